// Tensors into and out of a predictor's handles, for the commands that feed files.
#pragma once

#include "framework/dense_tensor.h"
#include "paddle_like/inference_api.h"

namespace paddle_like {
namespace cli {

// Reshapes `in` to `t` and copies `t` into it in its own element type; InvalidArgumentError
// naming `verb` and the input for an element type a handle does not take.
void SetInput(const char* verb, infer::Tensor* in, const framework::DenseTensor& t);

// Copies output `out` (after Run) into `t`, row-major on the CPU, reusing t's buffer when it
// already has the size; UnimplementedError naming `verb` and the output for an element type
// a handle does not give.
void GetOutput(const char* verb, const infer::Tensor& out, framework::DenseTensor* t);

}  // namespace cli
}  // namespace paddle_like

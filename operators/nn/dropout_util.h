// What dropout's CPU kernels (dropout_op.cc) and CUDA kernels (dropout_op.cu) share: the
// scale factors, the seed of the mask and the checked Mask input of dropout_grad.
#pragma once

#include <cstdint>

#include "operators/common.h"

namespace paddle_like {
namespace operators {
namespace dropout {

// Whether attribute dropout_implementation is upscale_in_train (else downgrade_in_infer).
bool Upscales(const ExecutionContext& ctx);
// The factor of kept elements in training: 1 / (1 - p) when upscaling (0 when p = 1), else 1.
double TrainScale(double p, bool upscale);
// The factor of every element in inference: 1 when upscaling, else 1 - p.
double InferScale(double p, bool upscale);
// The seed of the mask: input Seed (read on the host) when given, else attribute `seed` when
// fix_seed is set; a seed of 0 takes the next default seed (platform::ResolveSeed).
uint64_t MaskSeed(const ExecutionContext& ctx);
// dropout_grad's Mask in training: uint8, shaped like `dout`. Shares the input's buffer, so
// the caller keeps it alive even when X@GRAD is the Mask variable.
DenseTensor GradMask(const ExecutionContext& ctx, const DenseTensor& dout);

}  // namespace dropout
}  // namespace operators
}  // namespace paddle_like

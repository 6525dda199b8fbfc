// CUDA kernels of quadratic (quadratic_op.cu), registered in operators/cuda/quadratic_cuda.cc.
#pragma once

#include "framework/operator.h"

namespace paddle_like {
namespace operators {

// Out = a * X^2 + b * X + c on the op's CUDA stream; T is float or double.
template <typename T>
void QuadraticCudaKernel(const framework::ExecutionContext& ctx);

}  // namespace operators
}  // namespace paddle_like

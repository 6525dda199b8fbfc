// The CPU computations of a batched matrix product under matmul_v2's shape rules, shared by
// matmul_v2 and matmul (1.x), which reads its operands as matmul_v2 operands first.
// T = float, double, std::complex<float> or std::complex<double>.
#pragma once

#include "framework/dense_tensor.h"
#include "framework/operator.h"
#include "operators/matmul/matmul_shape.h"
#include "platform/device_context.h"

namespace paddle_like {
namespace operators {

// out (s.out_dims) = alpha * op(X) * op(Y) per batch; x and y are laid out as AnalyzeMatmulV2
// saw them.
template <typename T>
void MatmulV2Forward(const platform::CPUDeviceContext& dev, const MatmulV2Shape& s, const T* x,
                     const T* y, T alpha, T* out);

// Gradients of Out = alpha * op(X) * op(Y) (alpha real; complex X and Y enter conjugated)
// into fresh tensors of x's and y's dims (each skipped when null), summed over the batch dims
// the operand was broadcast along (in a fixed order).
template <typename T>
void MatmulV2Backward(const framework::ExecutionContext& ctx, const MatmulV2Shape& s,
                      const framework::DenseTensor& x, const framework::DenseTensor& y,
                      const framework::DenseTensor& dout, T alpha, framework::DenseTensor* dx,
                      framework::DenseTensor* dy);

}  // namespace operators
}  // namespace paddle_like

// quadratic: Out = a * X^2 + b * X + c, elementwise.
// The functor is shared by the CPU kernel (quadratic_op.cc) and the CUDA kernel (quadratic_op.cu).
#pragma once

#include "operators/math/hostdevice.h"

namespace paddle_like {
namespace operators {

template <typename T>
struct QuadraticFunctor {
  T a, b, c;
  // Horner form: one multiply-add less than a*x*x + b*x + c.
  PL_HOSTDEVICE T operator()(T x) const { return (a * x + b) * x + c; }
};

}  // namespace operators
}  // namespace paddle_like

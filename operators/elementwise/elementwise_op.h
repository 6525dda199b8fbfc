// Binary elementwise ops with broadcasting: Out = X (op) Y for op in add, sub, mul, div.
//
// Each op is described once, by a tag struct naming its type, its formula (for the op doc)
// and its functor. The functors are plain host/device callables, shared by the CPU kernels
// (elementwise_op.cc) and any CUDA kernels (elementwise_op.cu). Broadcasting follows
// operators/math/broadcast.h.
#pragma once

#include "operators/math/hostdevice.h"

namespace paddle_like {
namespace operators {

template <typename T>
struct AddFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const { return x + y; }
};

template <typename T>
struct SubFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const { return x - y; }
};

template <typename T>
struct MulFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const { return x * y; }
};

template <typename T>
struct DivFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const { return x / y; }
};

struct ElementwiseAddTag {
  static constexpr const char* kType = "elementwise_add";
  static constexpr const char* kFormula = "Out = X + Y";
  static constexpr const char* kGradFormula =
      "dX = \\mathrm{reduce\\_as}(dOut, X), \\quad dY = \\mathrm{reduce\\_as}(dOut, Y)";
  template <typename T>
  using Functor = AddFunctor<T>;
};
struct ElementwiseSubTag {
  static constexpr const char* kType = "elementwise_sub";
  static constexpr const char* kFormula = "Out = X - Y";
  static constexpr const char* kGradFormula =
      "dX = \\mathrm{reduce\\_as}(dOut, X), \\quad dY = -\\mathrm{reduce\\_as}(dOut, Y)";
  template <typename T>
  using Functor = SubFunctor<T>;
};
struct ElementwiseMulTag {
  static constexpr const char* kType = "elementwise_mul";
  static constexpr const char* kFormula = "Out = X \\odot Y";
  static constexpr const char* kGradFormula =
      "dX = \\mathrm{reduce\\_as}(dOut \\odot Y, X), \\quad "
      "dY = \\mathrm{reduce\\_as}(dOut \\odot X, Y)";
  template <typename T>
  using Functor = MulFunctor<T>;
};
struct ElementwiseDivTag {
  static constexpr const char* kType = "elementwise_div";
  static constexpr const char* kFormula = "Out = X / Y";
  static constexpr const char* kGradFormula =
      "dX = \\mathrm{reduce\\_as}(dOut / Y, X), \\quad "
      "dY = -\\mathrm{reduce\\_as}((dOut \\odot Out) / Y, Y)";
  template <typename T>
  using Functor = DivFunctor<T>;
};

// Calls fn(Tag{}) for every elementwise op, in registration order.
template <typename Fn>
void ForEachElementwise(Fn&& fn) {
  fn(ElementwiseAddTag{});
  fn(ElementwiseSubTag{});
  fn(ElementwiseMulTag{});
  fn(ElementwiseDivTag{});
}

}  // namespace operators
}  // namespace paddle_like

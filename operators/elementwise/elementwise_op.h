// Binary elementwise ops with broadcasting: Out = X (op) Y for op in add, sub, mul, div, pow,
// max, min, fmax, fmin, mod and floordiv.
//
// Each op is described once, by a tag struct naming its type, its formula (for the op doc)
// and its functor. The functors are plain host/device callables, shared by the CPU kernels
// (elementwise_op.cc) and any CUDA kernels (elementwise_op.cu). Broadcasting follows
// operators/math/broadcast.h.
#pragma once

#include <cmath>
#include <type_traits>

#include "operators/math/hostdevice.h"

namespace paddle_like {
namespace operators {

template <typename T>
struct AddFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const {
    if constexpr (std::is_same_v<T, bool>) {
      return x || y;  // PaddlePaddle's bool add.
    } else {
      return x + y;
    }
  }
};

template <typename T>
struct SubFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const { return x - y; }
};

template <typename T>
struct MulFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const {
    if constexpr (std::is_same_v<T, bool>) {
      return x && y;  // PaddlePaddle's bool multiply (masks combined).
    } else {
      return x * y;
    }
  }
};

template <typename T>
struct DivFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const { return x / y; }
};

// Integer pow rounds the double result, as PaddlePaddle does.
template <typename T>
struct PowFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(std::llrint(std::pow(static_cast<double>(x), static_cast<double>(y))));
    } else {
      return std::pow(x, y);
    }
  }
};

// NaN in either operand gives NaN.
template <typename T>
struct MaxFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const { return x > y || x != x ? x : y; }
};

template <typename T>
struct MinFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const { return x < y || x != x ? x : y; }
};

// fmax/fmin: NaN loses (the other operand is taken; NaN only when both are NaN); ties go to X.
template <typename T>
struct FMaxFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const { return x >= y || y != y ? x : y; }
};

template <typename T>
struct FMinFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const { return x <= y || y != y ? x : y; }
};

// The remainder with the sign of Y (Python's %): X - floor(X / Y) * Y. Integer Y must not be
// 0 (the kernels check).
template <typename T>
struct ModFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const {
    T r;
    if constexpr (std::is_integral_v<T>) {
      r = x % y;
    } else {
      r = std::fmod(x, y);
    }
    return r != T(0) && ((r < T(0)) != (y < T(0))) ? r + y : r;
  }
};

// floor(X / Y), also for integers (rounding towards minus infinity, as Python's //).
template <typename T>
struct FloorDivFunctor {
  PL_HOSTDEVICE T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      const T q = x / y;
      return x % y != T(0) && ((x < T(0)) != (y < T(0))) ? q - T(1) : q;
    } else {
      return std::floor(x / y);
    }
  }
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

struct ElementwisePowTag {
  static constexpr const char* kType = "elementwise_pow";
  static constexpr const char* kFormula = "Out = X^{Y}";
  static constexpr const char* kGradFormula =
      "dX = \\mathrm{reduce\\_as}(dOut \\odot Y \\odot X^{Y - 1}, X), \\quad "
      "dY = \\mathrm{reduce\\_as}(dOut \\odot Out \\odot \\log X, Y)";
  template <typename T>
  using Functor = PowFunctor<T>;
};
struct ElementwiseMaxTag {
  static constexpr const char* kType = "elementwise_max";
  static constexpr const char* kFormula = "Out = \\max(X, Y)";
  static constexpr const char* kGradFormula =
      "dX = \\mathrm{reduce\\_as}(dOut \\odot [X > Y], X), \\quad "
      "dY = \\mathrm{reduce\\_as}(dOut \\odot [X \\le Y], Y)";
  template <typename T>
  using Functor = MaxFunctor<T>;
};
struct ElementwiseMinTag {
  static constexpr const char* kType = "elementwise_min";
  static constexpr const char* kFormula = "Out = \\min(X, Y)";
  static constexpr const char* kGradFormula =
      "dX = \\mathrm{reduce\\_as}(dOut \\odot [X < Y], X), \\quad "
      "dY = \\mathrm{reduce\\_as}(dOut \\odot [X \\ge Y], Y)";
  template <typename T>
  using Functor = MinFunctor<T>;
};
struct ElementwiseFMaxTag {
  static constexpr const char* kType = "elementwise_fmax";
  static constexpr const char* kFormula =
      "Out = \\mathrm{fmax}(X, Y) \\text{ (a NaN operand yields the other)}";
  static constexpr const char* kGradFormula =
      "dX = \\mathrm{reduce\\_as}(dOut \\odot m, X), \\quad "
      "dY = \\mathrm{reduce\\_as}(dOut \\odot (1 - m), Y), \\quad "
      "m = [X \\ge Y \\lor Y \\ne Y]";
  template <typename T>
  using Functor = FMaxFunctor<T>;
};
struct ElementwiseFMinTag {
  static constexpr const char* kType = "elementwise_fmin";
  static constexpr const char* kFormula =
      "Out = \\mathrm{fmin}(X, Y) \\text{ (a NaN operand yields the other)}";
  static constexpr const char* kGradFormula =
      "dX = \\mathrm{reduce\\_as}(dOut \\odot m, X), \\quad "
      "dY = \\mathrm{reduce\\_as}(dOut \\odot (1 - m), Y), \\quad "
      "m = [X \\le Y \\lor Y \\ne Y]";
  template <typename T>
  using Functor = FMinFunctor<T>;
};
struct ElementwiseModTag {
  static constexpr const char* kType = "elementwise_mod";
  static constexpr const char* kFormula = "Out = X - \\lfloor X / Y \\rfloor Y";
  static constexpr const char* kGradFormula = "";  // Piecewise constant in Y: no gradient.
  template <typename T>
  using Functor = ModFunctor<T>;
};
struct ElementwiseFloorDivTag {
  static constexpr const char* kType = "elementwise_floordiv";
  static constexpr const char* kFormula = "Out = \\lfloor X / Y \\rfloor";
  static constexpr const char* kGradFormula = "";  // Piecewise constant: no gradient.
  template <typename T>
  using Functor = FloorDivFunctor<T>;
};

// Whether integer Y = 0 is an error (instead of undefined behaviour).
template <typename Tag>
constexpr bool kDividesByY = std::is_same_v<Tag, ElementwiseDivTag> ||
                             std::is_same_v<Tag, ElementwiseModTag> ||
                             std::is_same_v<Tag, ElementwiseFloorDivTag>;

// Calls fn(Tag{}) for the elementwise ops with a fused grad op type (`<type>_grad`, as
// PaddlePaddle's training programs hold them).
template <typename Fn>
void ForEachElementwiseWithFusedGrad(Fn&& fn) {
  fn(ElementwiseAddTag{});
  fn(ElementwiseSubTag{});
  fn(ElementwiseMulTag{});
  fn(ElementwiseDivTag{});
}

// Calls fn(Tag{}) for every elementwise op, in registration order.
template <typename Fn>
void ForEachElementwise(Fn&& fn) {
  ForEachElementwiseWithFusedGrad(fn);
  fn(ElementwisePowTag{});
  fn(ElementwiseMaxTag{});
  fn(ElementwiseMinTag{});
  fn(ElementwiseFMaxTag{});
  fn(ElementwiseFMinTag{});
  fn(ElementwiseModTag{});
  fn(ElementwiseFloorDivTag{});
}

}  // namespace operators
}  // namespace paddle_like

// The formulas of the comparison and logical ops, shared by their CPU and CUDA kernels, and
// the choice of one by op type. A NaN fails every comparison but `not_equal`; any value other
// than 0 is true for the logical ops.
#pragma once

#include <string>

#include "operators/math/hostdevice.h"

namespace paddle_like {
namespace operators {

template <typename T>
struct LessThanFunctor {
  PL_HOSTDEVICE bool operator()(T x, T y) const { return x < y; }
};
template <typename T>
struct LessEqualFunctor {
  PL_HOSTDEVICE bool operator()(T x, T y) const { return x <= y; }
};
template <typename T>
struct GreaterThanFunctor {
  PL_HOSTDEVICE bool operator()(T x, T y) const { return x > y; }
};
template <typename T>
struct GreaterEqualFunctor {
  PL_HOSTDEVICE bool operator()(T x, T y) const { return x >= y; }
};
template <typename T>
struct EqualFunctor {
  PL_HOSTDEVICE bool operator()(T x, T y) const { return x == y; }
};
template <typename T>
struct NotEqualFunctor {
  PL_HOSTDEVICE bool operator()(T x, T y) const { return x != y; }
};

template <typename T>
struct LogicalAndFunctor {
  PL_HOSTDEVICE bool operator()(T x, T y) const { return x != T(0) && y != T(0); }
};
template <typename T>
struct LogicalOrFunctor {
  PL_HOSTDEVICE bool operator()(T x, T y) const { return x != T(0) || y != T(0); }
};
template <typename T>
struct LogicalXorFunctor {
  PL_HOSTDEVICE bool operator()(T x, T y) const { return (x != T(0)) != (y != T(0)); }
};
template <typename T>
struct LogicalNotFunctor {
  PL_HOSTDEVICE bool operator()(T x) const { return x == T(0); }
};

// Calls run(functor) with the functor of comparison op `type` (less_than, ..., not_equal).
template <typename T, typename Run>
void VisitCompare(const std::string& type, const Run& run) {
  if (type == "less_than") {
    run(LessThanFunctor<T>{});
  } else if (type == "less_equal") {
    run(LessEqualFunctor<T>{});
  } else if (type == "greater_than") {
    run(GreaterThanFunctor<T>{});
  } else if (type == "greater_equal") {
    run(GreaterEqualFunctor<T>{});
  } else if (type == "equal") {
    run(EqualFunctor<T>{});
  } else {
    run(NotEqualFunctor<T>{});
  }
}

// Calls run(functor) with the functor of binary logical op `type` (logical_and/or/xor).
template <typename T, typename Run>
void VisitLogicalBinary(const std::string& type, const Run& run) {
  if (type == "logical_and") {
    run(LogicalAndFunctor<T>{});
  } else if (type == "logical_or") {
    run(LogicalOrFunctor<T>{});
  } else {
    run(LogicalXorFunctor<T>{});
  }
}

}  // namespace operators
}  // namespace paddle_like

#include "platform/collective/host_reduce.h"

#include "platform/data_type_visit.h"
#include "platform/enforce.h"
#include "platform/float16.h"

namespace paddle_like {
namespace platform {
namespace collective {

namespace {

// Arithmetic of element type T (half types computed in float and rounded once).
template <typename T>
struct Acc {
  using type = T;
};
template <>
struct Acc<float16> {
  using type = float;
};
template <>
struct Acc<bfloat16> {
  using type = float;
};

template <typename T, ReduceOp kOp>
void ReduceInto(void* c, const void* a, const void* b, size_t n) {
  using A = typename Acc<T>::type;
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  T* z = static_cast<T*>(c);
  for (size_t i = 0; i < n; ++i) {
    const A u = static_cast<A>(x[i]);
    const A v = static_cast<A>(y[i]);
    A r;
    switch (kOp) {
      case ReduceOp::kSum:
        r = static_cast<A>(u + v);
        break;
      case ReduceOp::kProd:
        r = static_cast<A>(u * v);
        break;
      case ReduceOp::kMax:
        r = u < v ? v : u;
        break;
      default:
        r = v < u ? v : u;
        break;
    }
    z[i] = static_cast<T>(r);
  }
}

template <typename T>
HostReduceFn ReduceOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return &ReduceInto<T, ReduceOp::kSum>;
    case ReduceOp::kProd:
      return &ReduceInto<T, ReduceOp::kProd>;
    case ReduceOp::kMax:
      return &ReduceInto<T, ReduceOp::kMax>;
    default:
      return &ReduceInto<T, ReduceOp::kMin>;
  }
}

}  // namespace

HostReduceFn HostReduceFunction(DataType dtype, ReduceOp op) {
  PL_ENFORCE(IsReducibleType(dtype),
             errors::Unimplemented("collectives do not handle %s data (they handle float16, "
                                   "bfloat16, float32, float64, int8, uint8, int32, int64)",
                                   DataTypeName(dtype)));
  HostReduceFn fn = nullptr;
  VisitDataType(dtype, [&](auto t) { fn = ReduceOf<decltype(t)>(op); });
  return fn;
}

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

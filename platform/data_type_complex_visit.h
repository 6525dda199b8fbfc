// VisitDataType with the complex types as well, for the places that take complex values
// beside real ones (cast, tensor handles in tests). VisitDataType itself leaves them out, so
// that its many visitors, written for real values, are never instantiated for complex ones.
#pragma once

#include <complex>

#include "platform/data_type.h"

namespace paddle_like {
namespace platform {

template <typename Fn>
decltype(auto) VisitDataTypeOrComplex(DataType type, Fn&& fn) {
  if (type == DataType::COMPLEX64) return fn(std::complex<float>{});
  if (type == DataType::COMPLEX128) return fn(std::complex<double>{});
  return VisitDataType(type, fn);
}

}  // namespace platform
}  // namespace paddle_like

// Element data types. The numeric values are PaddlePaddle's `VarType.Type` numbers, so a
// DataType converts to and from framework.proto without a table.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>

#include "platform/float16.h"

namespace paddle_like {
namespace platform {

enum class DataType : int {
  BOOL = 0,
  INT16 = 1,
  INT32 = 2,
  INT64 = 3,
  FLOAT16 = 4,
  FLOAT32 = 5,
  FLOAT64 = 6,
  UINT8 = 20,
  INT8 = 21,
  BFLOAT16 = 22,
  COMPLEX64 = 23,   // std::complex<float>: real and imaginary parts, as NumPy's complex64.
  COMPLEX128 = 24,  // std::complex<double>.
  UNDEFINED = -1,
};

[[noreturn]] void ThrowNoElementSize(DataType type);
// Size in bytes of one element; throws InvalidArgumentError for UNDEFINED.
inline size_t SizeOf(DataType type) {
  switch (type) {
    case DataType::BOOL:
    case DataType::UINT8:
    case DataType::INT8:
      return 1;
    case DataType::INT16:
    case DataType::FLOAT16:
    case DataType::BFLOAT16:
      return 2;
    case DataType::INT32:
    case DataType::FLOAT32:
      return 4;
    case DataType::INT64:
    case DataType::FLOAT64:
    case DataType::COMPLEX64:
      return 8;
    case DataType::COMPLEX128:
      return 16;
    default:
      ThrowNoElementSize(type);
  }
}
// "float32", "int64", ... as NumPy spells them ("bfloat16" for BFLOAT16).
std::string DataTypeName(DataType type);
// Inverse of DataTypeName; throws InvalidArgumentError naming the bad string.
DataType DataTypeFromName(const std::string& name);
// True for the VarType numbers above (the element types paddle_like can hold).
bool IsSupportedDataType(int var_type_number);
bool IsFloatingPoint(DataType type);
bool IsComplex(DataType type);
// complex64 -> float32, complex128 -> float64 (the type of each part); others unchanged.
DataType RealPartType(DataType type);
// float32 -> complex64, float64 -> complex128; InvalidArgumentError for other types.
DataType ComplexTypeOf(DataType type);

template <typename T>
struct DataTypeOf;
#define PL_DATA_TYPE_OF(T, E) \
  template <>                 \
  struct DataTypeOf<T> {      \
    static constexpr DataType value = DataType::E; \
  };
PL_DATA_TYPE_OF(bool, BOOL)
PL_DATA_TYPE_OF(int16_t, INT16)
PL_DATA_TYPE_OF(int32_t, INT32)
PL_DATA_TYPE_OF(int64_t, INT64)
PL_DATA_TYPE_OF(float16, FLOAT16)
PL_DATA_TYPE_OF(float, FLOAT32)
PL_DATA_TYPE_OF(double, FLOAT64)
PL_DATA_TYPE_OF(uint8_t, UINT8)
PL_DATA_TYPE_OF(int8_t, INT8)
PL_DATA_TYPE_OF(bfloat16, BFLOAT16)
PL_DATA_TYPE_OF(std::complex<float>, COMPLEX64)
PL_DATA_TYPE_OF(std::complex<double>, COMPLEX128)
#undef PL_DATA_TYPE_OF

template <typename T>
constexpr DataType ToDataType() {
  return DataTypeOf<T>::value;
}

// Calls fn(T{}) with the C++ type of `type`: VisitDataType(t, [&](auto tag) { using T = decltype(tag); ... }).
template <typename Fn>
decltype(auto) VisitDataType(DataType type, Fn&& fn);

}  // namespace platform
}  // namespace paddle_like

#include "platform/data_type_visit.h"

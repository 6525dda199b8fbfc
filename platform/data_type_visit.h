// Implementation of VisitDataType (kept apart so data_type.h reads as a contract).
#pragma once

#include "platform/errors.h"

namespace paddle_like {
namespace platform {

template <typename Fn>
decltype(auto) VisitDataType(DataType type, Fn&& fn) {
  switch (type) {
    case DataType::BOOL: return fn(bool{});
    case DataType::INT16: return fn(int16_t{});
    case DataType::INT32: return fn(int32_t{});
    case DataType::INT64: return fn(int64_t{});
    case DataType::FLOAT16: return fn(float16{});
    case DataType::FLOAT32: return fn(float{});
    case DataType::FLOAT64: return fn(double{});
    case DataType::UINT8: return fn(uint8_t{});
    case DataType::INT8: return fn(int8_t{});
    case DataType::BFLOAT16: return fn(bfloat16{});
    default:
      throw errors::InvalidArgument("unsupported data type number %d", static_cast<int>(type));
  }
}

}  // namespace platform
}  // namespace paddle_like

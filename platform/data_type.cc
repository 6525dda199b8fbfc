#include "platform/data_type.h"

namespace paddle_like {
namespace platform {

namespace {
struct TypeInfo {
  DataType type;
  const char* name;
};
constexpr TypeInfo kTypes[] = {
    {DataType::BOOL, "bool"},           {DataType::INT16, "int16"},
    {DataType::INT32, "int32"},         {DataType::INT64, "int64"},
    {DataType::FLOAT16, "float16"},     {DataType::FLOAT32, "float32"},
    {DataType::FLOAT64, "float64"},     {DataType::UINT8, "uint8"},
    {DataType::INT8, "int8"},           {DataType::BFLOAT16, "bfloat16"},
    {DataType::COMPLEX64, "complex64"}, {DataType::COMPLEX128, "complex128"},
};

const TypeInfo* Find(DataType type) {
  for (const auto& t : kTypes) {
    if (t.type == type) return &t;
  }
  return nullptr;
}
}  // namespace

void ThrowNoElementSize(DataType type) {
  throw errors::InvalidArgument("data type %d has no element size", static_cast<int>(type));
}

std::string DataTypeName(DataType type) {
  const TypeInfo* info = Find(type);
  return info ? info->name : "undefined(" + std::to_string(static_cast<int>(type)) + ")";
}

DataType DataTypeFromName(const std::string& name) {
  for (const auto& t : kTypes) {
    if (name == t.name) return t.type;
  }
  throw errors::InvalidArgument("unknown data type name `%s`", name);
}

bool IsSupportedDataType(int number) { return Find(static_cast<DataType>(number)) != nullptr; }

bool IsFloatingPoint(DataType type) {
  return type == DataType::FLOAT32 || type == DataType::FLOAT64 || type == DataType::FLOAT16 ||
         type == DataType::BFLOAT16;
}

bool IsComplex(DataType type) {
  return type == DataType::COMPLEX64 || type == DataType::COMPLEX128;
}

DataType RealPartType(DataType type) {
  if (type == DataType::COMPLEX64) return DataType::FLOAT32;
  if (type == DataType::COMPLEX128) return DataType::FLOAT64;
  return type;
}

DataType ComplexTypeOf(DataType type) {
  if (type == DataType::FLOAT32) return DataType::COMPLEX64;
  if (type == DataType::FLOAT64) return DataType::COMPLEX128;
  throw errors::InvalidArgument(
      "data type %s has no complex counterpart (float32 or float64 "
      "expected)",
      DataTypeName(type));
}

}  // namespace platform
}  // namespace paddle_like

#include "platform/data_type.h"

namespace paddle_like {
namespace platform {

namespace {
struct TypeInfo {
  DataType type;
  const char* name;
};
constexpr TypeInfo kTypes[] = {
    {DataType::BOOL, "bool"},         {DataType::INT16, "int16"},
    {DataType::INT32, "int32"},       {DataType::INT64, "int64"},
    {DataType::FLOAT16, "float16"},   {DataType::FLOAT32, "float32"},
    {DataType::FLOAT64, "float64"},   {DataType::UINT8, "uint8"},
    {DataType::INT8, "int8"},         {DataType::BFLOAT16, "bfloat16"},
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

}  // namespace platform
}  // namespace paddle_like

// Attribute: the value of one op attribute. The variant's alternative index equals
// PaddlePaddle's AttrType number (INT=0 ... SCALARS=17), so the type of a value is
// `static_cast<AttrType>(attr.index())`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace paddle_like {
namespace framework {

// Same numbers as framework.proto's AttrType (kept here so headers need not include the .pb.h).
enum class AttrType : int {
  INT = 0, FLOAT = 1, STRING = 2, INTS = 3, FLOATS = 4, STRINGS = 5, BOOLEAN = 6, BOOLEANS = 7,
  BLOCK = 8, LONG = 9, BLOCKS = 10, LONGS = 11, FLOAT64S = 12, VAR = 13, VARS = 14,
  FLOAT64 = 15, SCALAR = 16, SCALARS = 17,
};

struct BlockIndex {
  int idx = 0;
  bool operator==(const BlockIndex& o) const { return idx == o.idx; }
};
struct BlockIndices {
  std::vector<int> idx;
  bool operator==(const BlockIndices& o) const { return idx == o.idx; }
};
struct VarName {
  std::string name;
  bool operator==(const VarName& o) const { return name == o.name; }
};
struct VarNames {
  std::vector<std::string> names;
  bool operator==(const VarNames& o) const { return names == o.names; }
};
struct Scalar {
  enum class Type { BOOLEAN = 1, LONG = 2, FLOAT64 = 3, COMPLEX128 = 4 };
  Type type = Type::FLOAT64;
  bool b = false;
  int64_t i = 0;
  double r = 0;
  double c_real = 0, c_imag = 0;
  bool operator==(const Scalar& o) const {
    return type == o.type && b == o.b && i == o.i && r == o.r && c_real == o.c_real &&
           c_imag == o.c_imag;
  }
  double ToDouble() const;
};

using Attribute =
    std::variant<int, float, std::string, std::vector<int>, std::vector<float>,
                 std::vector<std::string>, bool, std::vector<bool>, BlockIndex, int64_t,
                 BlockIndices, std::vector<int64_t>, std::vector<double>, VarName, VarNames,
                 double, Scalar, std::vector<Scalar>>;

using AttributeMap = std::map<std::string, Attribute>;

// Attribute `name` of `attrs` when it is there and holds a T, else `fallback`: for passes
// and kernels that read an optional attribute and treat one of another type as absent.
template <typename T>
T AttrOr(const AttributeMap& attrs, const std::string& name, T fallback) {
  const auto it = attrs.find(name);
  if (it == attrs.end()) return fallback;
  const T* v = std::get_if<T>(&it->second);
  return v != nullptr ? *v : fallback;
}

inline AttrType GetAttrType(const Attribute& attr) { return static_cast<AttrType>(attr.index()); }
const char* AttrTypeName(AttrType type);

namespace detail {
template <typename T, typename V>
struct AlternativeIndex;
template <typename T, typename First, typename... Rest>
struct AlternativeIndex<T, std::variant<First, Rest...>> {
  static constexpr int value =
      std::is_same_v<T, First> ? 0 : 1 + AlternativeIndex<T, std::variant<Rest...>>::value;
};
template <typename T>
struct AlternativeIndex<T, std::variant<>> {
  static constexpr int value = 0;
};
}  // namespace detail

// The AttrType of a C++ attribute type: AttrTypeOf<float>() == AttrType::FLOAT.
template <typename T>
constexpr AttrType AttrTypeOf() {
  constexpr int index = detail::AlternativeIndex<T, Attribute>::value;
  static_assert(index < static_cast<int>(std::variant_size_v<Attribute>),
                "not an attribute type");
  return static_cast<AttrType>(index);
}

// Human-readable value: 3, 0.5, "NCHW", [1, 2], true, block(1) ...
std::string AttrToString(const Attribute& attr);
// The same as JSON.
std::string AttrToJson(const Attribute& attr);

// Converts `value` to `target` where the conversion loses nothing that a saved program can
// mean (INT->BOOLEAN, INT->LONG, FLOAT->FLOAT64, INT/LONG->FLOAT, one-element INTS<->INT,
// INTS->LONGS, FLOATS->FLOAT64S). Returns false if there is no such conversion; a long for
// an int attribute or a double for a float one is none, as in PaddlePaddle's loader.
bool CoerceAttribute(const Attribute& value, AttrType target, Attribute* out);

}  // namespace framework
}  // namespace paddle_like

#include "framework/attribute.h"

#include <cmath>
#include <sstream>

namespace paddle_like {
namespace framework {

double Scalar::ToDouble() const {
  switch (type) {
    case Type::BOOLEAN: return b ? 1.0 : 0.0;
    case Type::LONG: return static_cast<double>(i);
    case Type::FLOAT64: return r;
    case Type::COMPLEX128: return c_real;
  }
  return 0;
}

const char* AttrTypeName(AttrType type) {
  static const char* kNames[] = {"INT",     "FLOAT",  "STRING", "INTS",     "FLOATS", "STRINGS",
                                 "BOOLEAN", "BOOLEANS", "BLOCK", "LONG",    "BLOCKS", "LONGS",
                                 "FLOAT64S", "VAR",   "VARS",   "FLOAT64",  "SCALAR", "SCALARS"};
  int i = static_cast<int>(type);
  return i >= 0 && i < 18 ? kNames[i] : "UNKNOWN";
}

namespace {

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string Number(double v, bool json) {
  if (std::isnan(v)) return json ? "\"nan\"" : "nan";
  if (std::isinf(v)) return json ? (v > 0 ? "\"inf\"" : "\"-inf\"") : (v > 0 ? "inf" : "-inf");
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

std::string ScalarString(const Scalar& s, bool json) {
  switch (s.type) {
    case Scalar::Type::BOOLEAN: return s.b ? "true" : "false";
    case Scalar::Type::LONG: return std::to_string(s.i);
    case Scalar::Type::FLOAT64: return Number(s.r, json);
    case Scalar::Type::COMPLEX128:
      return json ? "[" + Number(s.c_real, true) + ", " + Number(s.c_imag, true) + "]"
                  : Number(s.c_real, false) + "+" + Number(s.c_imag, false) + "j";
  }
  return "";
}

template <typename T>
std::string ElementString(const T& v, bool json) {
  if constexpr (std::is_same_v<T, std::string>) {
    return Quote(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_floating_point_v<T>) {
    return Number(static_cast<double>(v), json);
  } else if constexpr (std::is_same_v<T, Scalar>) {
    return ScalarString(v, json);
  } else {
    return std::to_string(v);
  }
}

template <typename T>
std::string ListString(const std::vector<T>& v, bool json) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += ElementString<T>(v[i], json);
  }
  return s + "]";
}

std::string Render(const Attribute& attr, bool json) {
  return std::visit(
      [json](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, BlockIndex>) {
          return json ? "{\"block\": " + std::to_string(v.idx) + "}"
                      : "block(" + std::to_string(v.idx) + ")";
        } else if constexpr (std::is_same_v<T, BlockIndices>) {
          return json ? "{\"blocks\": " + ListString(v.idx, true) + "}"
                      : "blocks" + ListString(v.idx, false);
        } else if constexpr (std::is_same_v<T, VarName>) {
          return json ? "{\"var\": " + Quote(v.name) + "}" : "var(" + v.name + ")";
        } else if constexpr (std::is_same_v<T, VarNames>) {
          return json ? "{\"vars\": " + ListString(v.names, true) + "}"
                      : "vars" + ListString(v.names, false);
        } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
          std::string s = "[";
          for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::string(v[i] ? "true" : "false");
          return s + "]";
        } else if constexpr (std::is_same_v<T, std::vector<int>> ||
                             std::is_same_v<T, std::vector<float>> ||
                             std::is_same_v<T, std::vector<std::string>> ||
                             std::is_same_v<T, std::vector<int64_t>> ||
                             std::is_same_v<T, std::vector<double>> ||
                             std::is_same_v<T, std::vector<Scalar>>) {
          return ListString(v, json);
        } else {
          return ElementString<T>(v, json);
        }
      },
      attr);
}

template <typename To, typename From>
bool ConvertList(const std::vector<From>& in, Attribute* out) {
  std::vector<To> v;
  v.reserve(in.size());
  for (const From& x : in) {
    if constexpr (std::is_integral_v<To> && std::is_integral_v<From>) {
      if (static_cast<From>(static_cast<To>(x)) != x) return false;  // Would overflow.
    }
    v.push_back(static_cast<To>(x));
  }
  *out = std::move(v);
  return true;
}

}  // namespace

std::string AttrToString(const Attribute& attr) { return Render(attr, false); }
std::string AttrToJson(const Attribute& attr) { return Render(attr, true); }

bool CoerceAttribute(const Attribute& value, AttrType target, Attribute* out) {
  const AttrType from = GetAttrType(value);
  if (from == target) {
    *out = value;
    return true;
  }
  switch (target) {
    case AttrType::BOOLEAN:
      if (from == AttrType::INT) { *out = std::get<int>(value) != 0; return true; }
      if (from == AttrType::LONG) { *out = std::get<int64_t>(value) != 0; return true; }
      return false;
    case AttrType::INT:
      // Not from LONG (nor INTS from LONGS): PaddlePaddle reads an int attribute as an int and
      // refuses a long, which a program of its making never holds there.
      if (from == AttrType::BOOLEAN) { *out = std::get<bool>(value) ? 1 : 0; return true; }
      if (from == AttrType::INTS && std::get<std::vector<int>>(value).size() == 1) {
        *out = std::get<std::vector<int>>(value)[0];
        return true;
      }
      return false;
    case AttrType::LONG:
      if (from == AttrType::INT) { *out = static_cast<int64_t>(std::get<int>(value)); return true; }
      return false;
    case AttrType::FLOAT:
      // Not from FLOAT64 (nor FLOATS from FLOAT64S): PaddlePaddle refuses a double where its
      // op reads a float, and a program of its making never holds one.
      if (from == AttrType::INT) { *out = static_cast<float>(std::get<int>(value)); return true; }
      if (from == AttrType::LONG) { *out = static_cast<float>(std::get<int64_t>(value)); return true; }
      return false;
    case AttrType::FLOAT64:
      if (from == AttrType::FLOAT) { *out = static_cast<double>(std::get<float>(value)); return true; }
      if (from == AttrType::INT) { *out = static_cast<double>(std::get<int>(value)); return true; }
      if (from == AttrType::LONG) { *out = static_cast<double>(std::get<int64_t>(value)); return true; }
      return false;
    case AttrType::INTS:
      if (from == AttrType::INT) { *out = std::vector<int>{std::get<int>(value)}; return true; }
      return false;
    case AttrType::LONGS:
      if (from == AttrType::INTS) return ConvertList<int64_t>(std::get<std::vector<int>>(value), out);
      if (from == AttrType::LONG) { *out = std::vector<int64_t>{std::get<int64_t>(value)}; return true; }
      return false;
    case AttrType::FLOATS:
      return false;
    case AttrType::FLOAT64S:
      if (from == AttrType::FLOATS) return ConvertList<double>(std::get<std::vector<float>>(value), out);
      return false;
    default:
      return false;
  }
}

}  // namespace framework
}  // namespace paddle_like

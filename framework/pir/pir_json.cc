#include "framework/pir/pir_json.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "platform/enforce.h"

namespace paddle_like {
namespace framework {
namespace pir {

namespace {

using Json = nlohmann::json;
using platform::DataType;

// Dialect ids of the compressed names ("1.conv2d" is pd_op.conv2d), as PaddlePaddle numbers them.
std::string DialectName(const std::string& id) {
  if (id == "0") return "builtin";
  if (id == "1") return "pd_op";
  if (id == "2") return "cf";
  if (id == "3") return "custom_op";
  if (id == "4") return "dist_op";
  return id;
}

// Splits "1.conv2d" into ("pd_op", "conv2d"); an uncompressed "pd_op.conv2d" stays as is.
void SplitName(const std::string& full, std::string* dialect, std::string* name) {
  const size_t dot = full.find('.');
  if (dot == std::string::npos) {
    *dialect = "builtin";
    *name = full;
    return;
  }
  *dialect = DialectName(full.substr(0, dot));
  *name = full.substr(dot + 1);
}

// Where in the file an error is, for messages.
struct Where {
  const std::string& source;
  const Op* op;
  std::string Describe(const std::string& what) const {
    if (op == nullptr) return "PIR program `" + source + "`: " + what;
    return "PIR program `" + source + "`, " + op->location + " (`" + op->FullName() + "`): " + what;
  }
};

const Json& Member(const Json& object, const char* key, const Where& where) {
  PL_ENFORCE(object.is_object(),
             errors::InvalidArgument("%s", where.Describe(std::string("expected an object with `") +
                                                          key + "`, found " + object.type_name())));
  const auto it = object.find(key);
  PL_ENFORCE(
      it != object.end(),
      errors::InvalidArgument("%s", where.Describe(std::string("missing key `") + key + "`")));
  return *it;
}

const Json& ArrayMember(const Json& object, const char* key, const Where& where) {
  const Json& value = Member(object, key, where);
  PL_ENFORCE(value.is_array(),
             errors::InvalidArgument(
                 "%s", where.Describe(std::string("`") + key + "` should be an array, found " +
                                      value.type_name())));
  return value;
}

const std::string& StringMember(const Json& object, const char* key, const Where& where) {
  const Json& value = Member(object, key, where);
  PL_ENFORCE(value.is_string(),
             errors::InvalidArgument(
                 "%s", where.Describe(std::string("`") + key + "` should be a string, found " +
                                      value.type_name())));
  return value.get_ref<const std::string&>();
}

int64_t IntValue(const Json& value, const Where& where, const char* what) {
  PL_ENFORCE(value.is_number_integer(),
             errors::InvalidArgument(
                 "%s", where.Describe(std::string(what) + " should be an integer, found " +
                                      value.dump())));
  return value.get<int64_t>();
}

DataType ElementType(const std::string& name, bool* known) {
  static const std::map<std::string, DataType> kTypes = {
      {"t_bool", DataType::BOOL},      {"t_i8", DataType::INT8},
      {"t_ui8", DataType::UINT8},      {"t_i16", DataType::INT16},
      {"t_i32", DataType::INT32},      {"t_i64", DataType::INT64},
      {"t_f16", DataType::FLOAT16},    {"t_bf16", DataType::BFLOAT16},
      {"t_f32", DataType::FLOAT32},    {"t_f64", DataType::FLOAT64},
      {"t_index", DataType::INT64},    {"t_c64", DataType::COMPLEX64},
      {"t_c128", DataType::COMPLEX128}};
  const auto it = kTypes.find(name);
  *known = it != kTypes.end();
  return *known ? it->second : DataType::UNDEFINED;
}

ValueType ParseType(const Json& json, const Where& where, int depth) {
  ValueType type;
  PL_ENFORCE(depth < 8, errors::InvalidArgument("%s", where.Describe("types nested too deeply")));
  if (!json.is_object()) return type;
  const auto id = json.find("#");
  if (id == json.end() || !id->is_string()) return type;
  std::string dialect, name;
  SplitName(id->get<std::string>(), &dialect, &name);
  type.name = dialect + "." + name;
  const auto data = json.find("D");
  if (name == "t_dtensor") {
    // D: [element type, dims, layout, lod, offset].
    PL_ENFORCE(data != json.end() && data->is_array() && data->size() >= 2 && (*data)[1].is_array(),
               errors::InvalidArgument("%s", where.Describe("a dense tensor type without its "
                                                            "element type and dims: " +
                                                            json.dump().substr(0, 200))));
    const Json& element = (*data)[0];
    std::string element_dialect, element_name;
    if (element.is_object() && element.contains("#") && element["#"].is_string()) {
      SplitName(element["#"].get<std::string>(), &element_dialect, &element_name);
    }
    type.dtype = ElementType(element_name, &type.known);
    for (const Json& d : (*data)[1]) type.dims.push_back(IntValue(d, where, "a tensor dim"));
    if (data->size() >= 4 && (*data)[3].is_array()) {
      type.lod_level = static_cast<int>((*data)[3].size());
    }
    return type;
  }
  if (name == "t_dense_tensor_array") {
    // D: [element type, dims, layout]: the tensors' dtype and (the first one's) dims.
    type.is_array = true;
    if (data != json.end() && data->is_array() && !data->empty() && (*data)[0].is_object() &&
        (*data)[0].contains("#") && (*data)[0]["#"].is_string()) {
      std::string element_dialect, element_name;
      SplitName((*data)[0]["#"].get<std::string>(), &element_dialect, &element_name);
      type.dtype = ElementType(element_name, &type.known);
    }
    return type;
  }
  if (name == "t_vec") {
    type.is_vector = true;
    type.known = true;
    if (data != json.end() && data->is_array()) {
      for (const Json& e : *data) {
        type.elements.push_back(ParseType(e, where, depth + 1));
        type.known = type.known && type.elements.back().known;
      }
    }
    return type;
  }
  return type;  // Selected rows, tensor arrays, sparse tensors: not modelled.
}

// A JSON value as T, checked first: nlohmann converts a double to an int with a plain cast,
// which is undefined for one out of range, and reads any number as any other.
template <typename T>
T Checked(const Json& v) {
  using json_error = nlohmann::detail::type_error;
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) throw json_error::create(302, "expected a boolean", &v);
    return v.get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) throw json_error::create(302, "expected a string", &v);
    return v.get<std::string>();
  } else if constexpr (std::is_integral_v<T>) {
    if (!v.is_number_integer()) throw json_error::create(302, "expected an integer", &v);
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
        throw json_error::create(302, "integer out of range", &v);
      }
      return static_cast<T>(u);
    }
    const int64_t i = v.get<int64_t>();
    if (i < std::numeric_limits<T>::min() || i > std::numeric_limits<T>::max()) {
      throw json_error::create(302, "integer out of range", &v);
    }
    return static_cast<T>(i);
  } else {
    if (!v.is_number()) throw json_error::create(302, "expected a number", &v);
    return static_cast<T>(v.get<double>());
  }
}

// A float attribute's value: its "D", or for infinities and NaN (which JSON cannot write)
// "VD": PaddlePaddle writes "INF", "-INF" and "NaN"; any case is read.
double FloatValue(const Json& attr) {
  const auto d = attr.find("D");
  if (d != attr.end()) return Checked<double>(*d);
  const auto vd = attr.find("VD");
  if (vd != attr.end() && vd->is_string()) {
    std::string text = vd->get<std::string>();
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (text == "INF" || text == "+INF") return std::numeric_limits<double>::infinity();
    if (text == "-INF") return -std::numeric_limits<double>::infinity();
    if (text == "NAN" || text == "-NAN") return std::numeric_limits<double>::quiet_NaN();
  }
  throw nlohmann::detail::type_error::create(302, "a float attribute without a value", &attr);
}

// The "D" of each element of an array attribute, as T.
template <typename T>
std::vector<T> ListOf(const Json& items) {
  std::vector<T> out;
  for (const Json& item : items) {
    if constexpr (std::is_floating_point_v<T>) {
      out.push_back(static_cast<T>(FloatValue(item)));
    } else {
      out.push_back(Checked<T>(item.at("D")));
    }
  }
  return out;
}

// Complex numbers, each {"#": "0.a_c64" or "0.a_c128", "D": [real, imaginary]}, as scalars.
std::vector<framework::Scalar> ComplexScalars(const Json& items) {
  std::vector<framework::Scalar> out;
  for (const Json& item : items) {
    const Json& parts = item.at("D");
    if (!parts.is_array() || parts.size() != 2) {
      throw nlohmann::detail::type_error::create(302, "a complex number is [real, imaginary]",
                                                 &parts);
    }
    framework::Scalar s;
    s.type = framework::Scalar::Type::COMPLEX128;
    s.c_real = Checked<double>(parts[0]);
    s.c_imag = Checked<double>(parts[1]);
    out.push_back(s);
  }
  return out;
}

// Converts one attribute; false when it has a kind that no translated op reads (places, types,
// complex numbers, nested arrays): such an attribute is left out.
bool ParseAttribute(const Json& json, const Where& where, OpAttribute* out) {
  if (!json.is_object() || !json.contains("#") || !json["#"].is_string()) return false;
  std::string dialect, kind;
  SplitName(json["#"].get<std::string>(), &dialect, &kind);
  try {
    if (kind == "a_f32" || kind == "a_f64") {
      const double v = FloatValue(json);  // Also reads "VD" (infinities, NaN).
      if (kind == "a_f32") {
        out->value = static_cast<float>(v);
      } else {
        out->value = v;
      }
      return true;
    }
    const auto data_it = json.find("D");
    if (data_it == json.end()) return false;
    const Json& data = *data_it;
    if (kind == "a_bool") {
      out->value = Checked<bool>(data);
    } else if (kind == "a_i32") {
      out->value = Checked<int>(data);
    } else if (kind == "a_i64" || kind == "a_index") {
      out->value = Checked<int64_t>(data);
    } else if (kind == "a_str" || kind == "a_tensorname") {
      out->value = Checked<std::string>(data);
    } else if (kind == "a_intarray") {
      if (!data.is_array()) return false;
      std::vector<int64_t> values;
      for (const Json& v : data) values.push_back(Checked<int64_t>(v));
      out->value = values;
    } else if (kind == "a_dtype") {
      DataType dtype;
      if (!DataTypeFromPirName(Checked<std::string>(data), &dtype)) return false;
      out->value = static_cast<int>(dtype);
      out->is_dtype = true;
    } else if (kind == "a_scalar") {
      // D: [dtype name, value] (complex numbers add an imaginary part: not read).
      if (!data.is_array() || data.size() != 2) return false;
      const Json& v = data[1];
      if (v.is_boolean()) {
        out->value = Checked<bool>(v);
      } else if (v.is_number_integer()) {
        out->value = Checked<int64_t>(v);
      } else {
        out->value = Checked<double>(v);
      }
    } else if (kind == "a_array") {
      if (!data.is_array()) return false;
      if (data.empty()) {
        out->value = std::vector<int>{};
        return true;
      }
      std::string first_dialect, first;
      if (!data[0].is_object() || !data[0].contains("#") || !data[0]["#"].is_string()) return false;
      SplitName(data[0]["#"].get<std::string>(), &first_dialect, &first);
      for (const Json& item : data) {
        if (!item.is_object() || item.value("#", std::string()) != data[0]["#"]) return false;
      }
      if (first == "a_bool") {
        out->value = ListOf<bool>(data);
      } else if (first == "a_i32") {
        out->value = ListOf<int>(data);
      } else if (first == "a_i64" || first == "a_index") {
        out->value = ListOf<int64_t>(data);
      } else if (first == "a_f32") {
        out->value = ListOf<float>(data);
      } else if (first == "a_f64") {
        out->value = ListOf<double>(data);
      } else if (first == "a_str") {
        out->value = ListOf<std::string>(data);
      } else if (first == "a_c64" || first == "a_c128") {
        out->value = ComplexScalars(data);
      } else {
        return false;
      }
    } else {
      return false;
    }
  } catch (const Json::exception& e) {
    throw errors::InvalidArgument(
        "%s", where.Describe("attribute of kind `" + kind + "` holds " +
                             json.dump().substr(0, 200) + " (" + e.what() + ")"));
  }
  return true;
}

// Regions nest at most this deep (a loop in a branch in a loop ...): deeper is a damaged file,
// not a model, and would exhaust the stack.
constexpr int kMaxNesting = 64;

Op ParseOp(const Json& json, const std::string& location, const Where& program_where, int depth);

std::vector<Op> ParseOps(const Json& block, const std::string& prefix, const Where& where,
                         int depth) {
  const Json& ops = ArrayMember(block, "ops", where);
  std::vector<Op> parsed;
  parsed.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    parsed.push_back(ParseOp(ops[i], prefix + "op " + std::to_string(i), where, depth));
  }
  return parsed;
}

// The regions of a control-flow op: each block's arguments (`#` holds their value id) and ops.
void ParseRegions(const Json& json, const Where& where, int depth, Op* op) {
  PL_ENFORCE(depth < kMaxNesting,
             errors::InvalidArgument("%s", where.Describe("regions nested more than " +
                                                          std::to_string(kMaxNesting) + " deep")));
  const Json& regions = ArrayMember(json, "regions", where);
  for (size_t r = 0; r < regions.size(); ++r) {
    Region region;
    for (const Json& block : ArrayMember(regions[r], "blocks", where)) {
      Block parsed;
      if (block.contains("args")) {
        for (const Json& arg : ArrayMember(block, "args", where)) {
          parsed.args.push_back({IntValue(Member(arg, "#", where), where, "a block argument id"),
                                 ParseType(Member(arg, "TT", where), where, 0)});
        }
      }
      parsed.ops = ParseOps(block, op->location + ", region " + std::to_string(r) + ", ",
                            Where{where.source, nullptr}, depth + 1);
      region.blocks.push_back(std::move(parsed));
    }
    op->regions.push_back(std::move(region));
  }
}

Op ParseOp(const Json& json, const std::string& location, const Where& program_where, int depth) {
  Op op;
  op.location = location;
  PL_ENFORCE(json.is_object(),
             errors::InvalidArgument("%s", program_where.Describe(location + " is not an object")));
  SplitName(StringMember(json, "#", program_where), &op.dialect, &op.name);
  const Where where{program_where.source, &op};
  if (op.dialect == "builtin" && op.name == "p") op.name = "parameter";  // Compressed name.

  if (op.name == "parameter" && op.dialect == "builtin") {
    // A: [is_distributed, is_parameter, need_clip, name]; one result in "O" (an object).
    const Json& a = ArrayMember(json, "A", where);
    PL_ENFORCE(!a.empty() && a.back().is_string(),
               errors::InvalidArgument("%s", where.Describe("a parameter without its name")));
    op.attrs["parameter_name"].value = a.back().get<std::string>();
    // OA: [persistable, stop_gradient, trainable]. A buffer that is not persistable (an RNN's
    // dropout state, named `..._non_persistable`) has no record in the parameters file.
    const auto oa = json.find("OA");
    if (oa != json.end() && oa->is_array() && !oa->empty() && (*oa)[0].is_number_integer()) {
      op.attrs["persistable"].value = (*oa)[0].get<int64_t>() != 0;
    }
    const Json& o = Member(json, "O", where);
    const Json& result = o.is_array() && !o.empty() ? o[0] : o;
    op.results.push_back({IntValue(Member(result, "%", where), where, "a value id"),
                          ParseType(Member(result, "TT", where), where, 0)});
    return op;
  }
  for (const Json& operand : ArrayMember(json, "I", where)) {
    op.operands.push_back(IntValue(Member(operand, "%", where), where, "an operand id"));
  }
  for (const Json& result : ArrayMember(json, "O", where)) {
    const Json& type = Member(result, "TT", where);
    // An optional result that the op does not produce has the type "NULL": absent.
    const bool absent = type.is_object() && type.value("#", std::string()) == "NULL";
    op.results.push_back({absent ? 0 : IntValue(Member(result, "%", where), where, "a result id"),
                          ParseType(type, where, 0)});
  }
  if (json.contains("A")) {
    for (const Json& attr : ArrayMember(json, "A", where)) {
      if (!attr.is_object() || !attr.contains("N") || !attr["N"].is_string()) continue;
      OpAttribute value;
      const Json& typed = Member(attr, "AT", where);
      if (ParseAttribute(typed, where, &value)) {
        op.attrs[attr["N"].get<std::string>()] = value;
      } else {
        const bool named = typed.is_object() && typed.contains("#") && typed["#"].is_string();
        op.unread_attrs[attr["N"].get<std::string>()] =
            named ? typed["#"].get<std::string>() : typed.dump().substr(0, 80);
      }
    }
  }
  if (json.contains("regions")) ParseRegions(json, where, depth, &op);
  return op;
}

}  // namespace

bool DataTypeFromPirName(const std::string& name, DataType* dtype) {
  static const std::map<std::string, DataType> kNames = {
      {"bool", DataType::BOOL},
      {"int8", DataType::INT8},
      {"uint8", DataType::UINT8},
      {"int16", DataType::INT16},
      {"int32", DataType::INT32},
      {"int64", DataType::INT64},
      {"float16", DataType::FLOAT16},
      {"bfloat16", DataType::BFLOAT16},
      {"float32", DataType::FLOAT32},
      {"float64", DataType::FLOAT64},
      {"complex64", DataType::COMPLEX64},
      {"complex128", DataType::COMPLEX128},
      {"Undefined(ALL_DTYPE)", DataType::UNDEFINED},
      {"undefined", DataType::UNDEFINED}};
  const auto it = kNames.find(name);
  if (it == kNames.end()) return false;
  *dtype = it->second;
  return true;
}

Program ParseProgramJson(const std::string& text, const std::string& source) {
  const Where where{source, nullptr};
  Json json;
  try {
    json = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw errors::InvalidArgument("%s", where.Describe(std::string("not valid JSON: ") + e.what()));
  }
  Program program;
  const Json& base = Member(json, "base_code", where);
  PL_ENFORCE(base.is_object() && base.value("magic", std::string()) == "pir",
             errors::InvalidArgument("%s", where.Describe("`base_code.magic` is not \"pir\": "
                                                          "not a PaddlePaddle PIR program")));
  program.version = IntValue(Member(base, "version", where), where, "`base_code.version`");
  PL_ENFORCE(program.version <= kNewestPirVersion,
             errors::Unimplemented(
                 "%s", where.Describe("saved as PIR version " + std::to_string(program.version) +
                                      "; paddle_like reads PIR versions up to " +
                                      std::to_string(kNewestPirVersion) +
                                      " (the program was saved by a newer framework)")));
  const Json& regions = ArrayMember(Member(json, "program", where), "regions", where);
  PL_ENFORCE(regions.size() == 1,
             errors::InvalidArgument("%s", where.Describe("expected one top-level region, found " +
                                                          std::to_string(regions.size()))));
  const Json& blocks = ArrayMember(regions[0], "blocks", where);
  PL_ENFORCE(blocks.size() == 1,
             errors::InvalidArgument("%s", where.Describe("expected one top-level block, found " +
                                                          std::to_string(blocks.size()))));
  program.ops = ParseOps(blocks[0], "", where, 0);
  return program;
}

}  // namespace pir
}  // namespace framework
}  // namespace paddle_like

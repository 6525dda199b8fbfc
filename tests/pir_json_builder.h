// Builders of PaddlePaddle PIR programs as JSON text (the form `inference.json` takes), for
// tests of their translation: ops with numbered operands and results, typed tensors,
// attributes, and control flow's regions.
#pragma once

#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace paddle_like {
namespace testing {

inline std::string Program(const std::vector<std::string>& ops, int version = 4) {
  std::string joined;
  for (const auto& op : ops) joined += (joined.empty() ? "" : ", ") + op;
  return R"({"base_code": {"magic": "pir", "trainable": false, "version": )" +
         std::to_string(version) +
         R"(}, "program": {"regions": [{"#": "region_0", "blocks": [{"#": "block_0", "args": [], "ops": [)" +
         joined + "]}]}]}}";
}

inline std::string Tensor(const std::string& dtype, const std::string& dims) {
  return R"({"#": "0.t_dtensor", "D": [{"#": "0.)" + dtype + R"("}, [)" + dims +
         R"(], "NCHW", [], 0]})";
}

inline std::string Attr(const std::string& name, const std::string& kind,
                        const std::string& value) {
  return R"({"AT": {"#": ")" + kind + R"(", "D": )" + value + R"(}, "N": ")" + name + R"("})";
}

// An op; `regions` (from Region) makes it a control-flow op.
inline std::string Op(const std::string& name, const std::vector<int>& operands,
                      const std::vector<std::pair<int, std::string>>& results,
                      const std::vector<std::string>& attrs = {},
                      const std::vector<std::string>& regions = {}) {
  std::string in, out, a;
  for (int id : operands)
    in += (in.empty() ? "" : ", ") + std::string(R"({"%": )") + std::to_string(id) + "}";
  for (const auto& [id, type] : results) {
    out += (out.empty() ? "" : ", ") + std::string(R"({"%": )") + std::to_string(id) +
           R"(, "TT": )" + type + "}";
  }
  for (const auto& attr : attrs) a += (a.empty() ? "" : ", ") + attr;
  std::string r;
  for (const auto& region : regions) r += (r.empty() ? "" : ", ") + region;
  return R"({"#": ")" + name + R"(", "A": [)" + a + R"(], "I": [)" + in + R"(], "O": [)" + out +
         "]" + (regions.empty() ? "" : R"(, "regions": [)" + r + "]") + "}";
}

// A region of one block: its arguments (ids below zero, with their types) and ops.
inline std::string Region(const std::vector<std::pair<int, std::string>>& args,
                          const std::vector<std::string>& ops) {
  std::string a, o;
  for (const auto& [id, type] : args) {
    a += (a.empty() ? "" : ", ") + std::string(R"({"#": )") + std::to_string(id) + R"(, "TT": )" +
         type + "}";
  }
  for (const auto& op : ops) o += (o.empty() ? "" : ", ") + op;
  return R"({"#": "region", "blocks": [{"#": "block", "args": [)" + a + R"(], "ops": [)" + o +
         "]}]}";
}

// cf.yield of `values` (the last op of a region's block).
inline std::string Yield(const std::vector<int>& values) { return Op("2.yield", values, {}); }

// A feed of float32 (or int64, bool) values.
inline std::string Data(int id, const std::string& name, const std::string& dims,
                        const std::string& dtype = "float32") {
  const std::string type = dtype == "int64" ? "t_i64" : dtype == "bool" ? "t_bool" : "t_f32";
  return Op(
      "1.data", {}, {{id, Tensor(type, dims)}},
      {Attr("name", "0.a_str", "\"" + name + "\""), Attr("shape", "1.a_intarray", "[" + dims + "]"),
       Attr("dtype", "1.a_dtype", "\"" + dtype + "\"")});
}

// A parameter; `persistable` false makes it a buffer outside the parameters file (OA: its
// persistable, stop_gradient and trainable flags).
inline std::string Parameter(int id, const std::string& name, const std::string& dims,
                             bool persistable = true) {
  return R"({"#": "p", "A": [0, 1, 1, ")" + name + R"("], "DA": [], "O": {"%": )" +
         std::to_string(id) + R"(, "TT": )" + Tensor("t_f32", dims) + R"(}, "OA": )" +
         (persistable ? "[1, 0, 1]" : "[0, 1, 0]") + "}";
}

inline std::string Fetch(int operand, int result, const std::string& name, int col) {
  return Op(
      "1.fetch", {operand}, {{result, Tensor("t_f32", "-1")}},
      {Attr("name", "0.a_str", "\"" + name + "\""), Attr("col", "0.a_i32", std::to_string(col))});
}

inline std::string IntArray(int id, const std::string& values) {
  std::string items;
  std::stringstream ss(values);
  for (std::string v; std::getline(ss, v, ',');) {
    items += (items.empty() ? "" : ", ") + std::string(R"({"#": "0.a_i64", "D": )") + v + "}";
  }
  return Op(
      "1.full_int_array", {}, {{id, Tensor("t_i64", "1")}},
      {Attr("value", "0.a_array", "[" + items + "]"), Attr("dtype", "1.a_dtype", "\"int64\"")});
}

inline std::string Full(int id, const std::string& value, const std::string& dtype = "float32") {
  return Op("1.full", {}, {{id, Tensor(dtype == "int64" ? "t_i64" : "t_f32", "1")}},
            {Attr("shape", "1.a_intarray", "[1]"), Attr("value", "0.a_f64", value),
             Attr("dtype", "1.a_dtype", "\"" + dtype + "\"")});
}

}  // namespace testing
}  // namespace paddle_like

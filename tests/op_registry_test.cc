// The registry as a table: every op documents its math, declares defaults that pass its own
// checker, and (when it has kernels) has float32 and float64 plain CPU kernels.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "framework/kernel_registry.h"
#include "framework/op_info.h"
#include "operators/registry.h"
#include "platform/init.h"

namespace paddle_like {
namespace framework {
namespace {

// A valid value for a required attribute: the first allowed one when the attribute is an
// enum ("one of {max, avg}"), else a plain value of its type.
Attribute SampleValue(const OpAttrSpec& a) {
  const size_t open = a.constraint.find("one of {");
  std::string first;
  if (open != std::string::npos) {
    const size_t begin = open + 8;
    first = a.constraint.substr(begin, a.constraint.find_first_of(",}", begin) - begin);
  }
  switch (a.type) {
    case AttrType::STRING: return first.empty() ? std::string("x") : first;
    case AttrType::INT: return first.empty() ? 5 : std::stoi(first);  // Dtype attrs: 5 = float32.
    case AttrType::INTS: return std::vector<int>{0};
    case AttrType::LONGS: return std::vector<int64_t>{1};
    case AttrType::FLOAT: return 0.5f;
    case AttrType::FLOATS: return std::vector<float>{1.0f};
    case AttrType::STRINGS:
      return std::vector<std::string>{"x"};
    case AttrType::BOOLEAN: return false;
    case AttrType::BLOCK:
      return framework::BlockIndex{1};
    default: return Attribute();
  }
}

TEST(OpRegistryTable, EveryOpIsDocumentedAndComplete) {
  operators::RegisterAllOps();
  const auto& ops = OpInfoMap::Instance().map();
  ASSERT_GE(ops.size(), 25u);
  int with_float_kernels = 0;
  for (const auto& kv : ops) {
    if (kv.first.rfind("test_", 0) == 0) continue;  // Ops other tests register.
    const OpInfo& info = kv.second;
    SCOPED_TRACE("op " + kv.first);
    EXPECT_EQ(info.spec.type, kv.first);
    EXPECT_NE(info.spec.comment.find("$$"), std::string::npos) << "doc states no formula";
    for (const auto& s : info.spec.inputs) EXPECT_FALSE(s.comment.empty()) << "input " << s.name;
    for (const auto& s : info.spec.outputs) EXPECT_FALSE(s.comment.empty()) << "output " << s.name;
    // Attributes with defaults for all but the required ones pass the op's own checker.
    AttributeMap attrs;
    for (const auto& a : info.spec.attrs) {
      EXPECT_FALSE(a.comment.empty()) << "attribute " << a.name;
      if (!a.has_default) attrs[a.name] = SampleValue(a);
    }
    EXPECT_NO_THROW(info.checker.Check(kv.first, &attrs));
    const auto& kernels = KernelRegistry::Instance().KernelsOf(kv.first);
    if (kernels.empty()) continue;
    bool f32 = false, f64 = false, i32 = false, c64 = false, c128 = false;
    for (const auto& k : kernels) {
      if (k.key.device == DeviceType::kCPU && k.key.backend == LibraryType::kPlain) {
        f32 |= k.key.dtype == DataType::FLOAT32;
        f64 |= k.key.dtype == DataType::FLOAT64;
        i32 |= k.key.dtype == DataType::INT32;
        c64 |= k.key.dtype == DataType::COMPLEX64;
        c128 |= k.key.dtype == DataType::COMPLEX128;
      }
    }
    // Ops that read complex values (fft_c2c, real, ...) have kernels of both complex types
    // instead, float32's and float64's precisions.
    if (!f32 && !f64 && (c64 || c128)) {
      EXPECT_TRUE(c64 && c128) << "missing a complex64 or complex128 plain CPU kernel";
      continue;
    }
    // Bit operations mean nothing on floats: these ops have bool and integer kernels instead.
    // Nor do coordinates, random integers, shard-local ids and renumbered graph nodes: these
    // ops make int32 or int64 only.
    if (kv.first.rfind("bitwise_", 0) == 0 || kv.first == "tril_indices" ||
        kv.first == "triu_indices" || kv.first == "randint" || kv.first == "shard_index" ||
        kv.first == "graph_reindex") {
      EXPECT_TRUE(i32 && !f32) << "expected integer kernels and no float ones";
      continue;
    }
    // The int8 decoders' float side is float32 by definition (PaddlePaddle's formats): a
    // float64 kernel would never be chosen.
    static const std::set<std::string> float32_only = {
        "dequantize", "requantize", "dequantize_abs_max", "dequantize_log", "lookup_table_dequant"};
    if (float32_only.count(kv.first)) {
      EXPECT_TRUE(f32 && !f64) << "expected a float32 kernel and no float64 one";
      continue;
    }
    EXPECT_TRUE(f32 && f64) << "missing a float32 or float64 plain CPU kernel";
    with_float_kernels += f32 && f64;
  }
  EXPECT_GE(with_float_kernels, 25);
}

TEST(OpRegistryTable, OneDNNKernelsForMatmuls) {
  operators::RegisterAllOps();
  if (!platform::BuiltWithOneDNN()) GTEST_SKIP() << "built without oneDNN";
  for (const char* op : {"matmul_v2", "mul"}) {
    bool found = false;
    for (const auto& k : KernelRegistry::Instance().KernelsOf(op)) {
      found |= k.key.backend == LibraryType::kOneDNN && k.key.dtype == DataType::FLOAT32;
    }
    EXPECT_TRUE(found) << op;
  }
}

}  // namespace
}  // namespace framework
}  // namespace paddle_like

// coalesce_tensor: the layout of FusedOutput (offsets aligned as asked, zero padding), the
// copies, set_constant, the views it makes of its outputs (an in-place write into the fused
// buffer shows through them), shapes from concated_shapes, and its errors.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "framework/executor.h"
#include "framework/scope.h"
#include "op_test_util.h"
#include "operators/registry.h"

namespace paddle_like {
namespace {

using framework::DenseTensor;
using platform::DataType;
using testing::MakeTensor;
using testing::ToDoubles;

testing::NamedOpRun Coalesce(const std::map<std::string, DenseTensor>& feeds,
                             const std::vector<std::string>& inputs,
                             const framework::AttributeMap& extra) {
  framework::AttributeMap attrs = {{"dtype", static_cast<int>(DataType::FLOAT32)}};
  for (const auto& kv : extra) attrs[kv.first] = kv.second;
  framework::VariableNameMap in;
  if (!inputs.empty()) in["Input"] = inputs;
  std::vector<std::string> outs = inputs;
  if (outs.empty()) outs = {"o0", "o1"};
  return testing::RunNamedOp("coalesce_tensor", in,
                             {{"Output", outs}, {"FusedOutput", {"fused"}}}, feeds, attrs);
}

TEST(CoalesceTensorOp, CopiesEachInputAtAnAlignedOffsetAndPadsWithZeros) {
  const DenseTensor a = MakeTensor<float>(framework::DDim({2, 3}), {1, 2, 3, 4, 5, 6});
  const DenseTensor b = MakeTensor<float>(framework::DDim({5}), {7, 8, 9, 10, 11});
  for (int align : {-1, 16, 4}) {
    for (bool use_align : {true, false}) {
      SCOPED_TRACE("align_size " + std::to_string(align) + (use_align ? "" : " unaligned"));
      const auto run = Coalesce({{"a", a}, {"b", b}}, {"a", "b"},
                                {{"copy_data", true}, {"use_align", use_align}, {"align_size", align}});
      const size_t align_bytes = !use_align ? 4 : align > 0 ? static_cast<size_t>(align) : 256;
      const size_t b_offset = (24 + align_bytes - 1) / align_bytes * align_bytes / 4;
      const size_t total = ((b_offset * 4 + 20 + align_bytes - 1) / align_bytes * align_bytes) / 4;
      const std::vector<double> fused = ToDoubles(run.vars.at("fused"));
      ASSERT_EQ(fused.size(), total);
      std::vector<double> expected(total, 0.0);
      for (int i = 0; i < 6; ++i) expected[i] = i + 1;
      for (int i = 0; i < 5; ++i) expected[b_offset + i] = 7 + i;
      EXPECT_EQ(fused, expected);
      // The outputs are views of the fused buffer, with their own dims.
      const DenseTensor& va = run.vars.at("a");
      const DenseTensor& vb = run.vars.at("b");
      EXPECT_EQ(va.dims().ToVector(), (std::vector<int64_t>{2, 3}));
      EXPECT_EQ(ToDoubles(vb), (std::vector<double>{7, 8, 9, 10, 11}));
      EXPECT_EQ(va.raw_data(), run.vars.at("fused").raw_data());
      EXPECT_EQ(static_cast<const char*>(vb.raw_data()),
                static_cast<const char*>(run.vars.at("fused").raw_data()) + b_offset * 4);
    }
  }
}

TEST(CoalesceTensorOp, AWriteIntoTheFusedBufferShowsThroughTheViews) {
  const DenseTensor a = MakeTensor<float>(framework::DDim({3}), {1, 2, 3});
  const DenseTensor b = MakeTensor<float>(framework::DDim({2}), {4, 5});
  auto run = Coalesce({{"a", a}, {"b", b}}, {"a", "b"}, {{"copy_data", true}});
  DenseTensor& fused = run.vars.at("fused");
  float* p = static_cast<float*>(fused.raw_data());
  for (int64_t i = 0; i < fused.numel(); ++i) p[i] *= 10;
  EXPECT_EQ(ToDoubles(run.vars.at("a")), (std::vector<double>{10, 20, 30}));
  EXPECT_EQ(ToDoubles(run.vars.at("b")), (std::vector<double>{40, 50}));
  // The inputs given to the op are untouched (the op copied them).
  EXPECT_EQ(ToDoubles(a), (std::vector<double>{1, 2, 3}));
}

// Gradients coalesced every step (the data-parallel rewrite): scale writes g1 and g2 from a
// and b, then coalesce_tensor lays them out in `fused`, all three persistable. From the
// second run on, scale writes into the views (their places in the buffer) and the op finds
// them there: the same buffer, the new values. A gradient written elsewhere (its variable
// given a buffer of its own) is copied in; a buffer someone else holds is never written.
TEST(CoalesceTensorOp, GradientsWrittenIntoTheirViewsStayInTheBufferFromRunToRun) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& block = program.Block(0);
  for (const char* name : {"a", "b", "g1", "g2", "fused"}) {
    framework::VarDesc* v = block.Var(name);
    v->SetDataType(DataType::FLOAT32);
    v->SetPersistable(true);
  }
  block.Var("a")->SetShape({3});
  block.Var("b")->SetShape({2, 2});
  for (const auto& [in, out] : {std::pair<std::string, std::string>{"a", "g1"}, {"b", "g2"}}) {
    framework::OpDesc* op = block.AppendOp();
    *op = framework::OpDesc("scale", {{"X", {in}}}, {{"Out", {out}}}, {{"scale", 2.0f}});
  }
  framework::OpDesc* coalesce = block.AppendOp();
  *coalesce =
      framework::OpDesc("coalesce_tensor", {{"Input", {"g1", "g2"}}},
                        {{"Output", {"g1", "g2"}}, {"FusedOutput", {"fused"}}},
                        {{"dtype", static_cast<int>(DataType::FLOAT32)}, {"copy_data", true}});
  framework::Scope scope;
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program, 0, &scope);
  auto set = [&](const std::string& name, const DenseTensor& t) {
    *scope.Var(name)->GetMutable<DenseTensor>() = t;
  };
  auto var = [&](const std::string& name) -> DenseTensor& {
    return *scope.FindVar(name)->GetMutable<DenseTensor>();
  };
  auto fused_values = [&] {
    const std::vector<double> all = ToDoubles(var("fused"));
    std::vector<double> g1(all.begin(), all.begin() + 3);
    std::vector<double> g2(all.begin() + 64, all.begin() + 68);  // 256-byte aligned.
    g1.insert(g1.end(), g2.begin(), g2.end());
    return g1;
  };
  set("a", MakeTensor<float>(framework::DDim({3}), {1, 2, 3}));
  set("b", MakeTensor<float>(framework::DDim({2, 2}), {4, 5, 6, 7}));
  exec.Run(prepared.get());
  EXPECT_EQ(fused_values(), (std::vector<double>{2, 4, 6, 8, 10, 12, 14}));
  const void* buffer = var("fused").raw_data();
  const void* g2_place = var("g2").raw_data();

  set("a", MakeTensor<float>(framework::DDim({3}), {-1, -2, -3}));
  set("b", MakeTensor<float>(framework::DDim({2, 2}), {-4, -5, -6, -7}));
  exec.Run(prepared.get());
  EXPECT_EQ(var("fused").raw_data(), buffer);
  EXPECT_EQ(var("g2").raw_data(), g2_place) << "scale wrote g2 into its place";
  EXPECT_EQ(fused_values(), (std::vector<double>{-2, -4, -6, -8, -10, -12, -14}));
  EXPECT_EQ(ToDoubles(var("g2")), (std::vector<double>{-8, -10, -12, -14}));

  // Someone holds the buffer (a fetched copy): the next run leaves it as it is.
  const DenseTensor held = var("fused");
  set("a", MakeTensor<float>(framework::DDim({3}), {5, 5, 5}));
  exec.Run(prepared.get());
  EXPECT_NE(var("fused").raw_data(), buffer);
  EXPECT_EQ(ToDoubles(held)[0], -2);
  EXPECT_EQ(fused_values(), (std::vector<double>{10, 10, 10, -8, -10, -12, -14}));
}

TEST(CoalesceTensorOp, SetConstantAndShapesFromAttributes) {
  const auto run = Coalesce({}, {},
                            {{"set_constant", true}, {"constant", 1.5f},
                             {"concated_shapes", std::vector<int64_t>{2, 2, 3}},
                             {"concated_ranks", std::vector<int64_t>{2, 1}},
                             {"use_align", false}});
  EXPECT_EQ(ToDoubles(run.vars.at("fused")), std::vector<double>(7, 1.5));
  EXPECT_EQ(run.vars.at("o0").dims().ToVector(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(ToDoubles(run.vars.at("o1")), std::vector<double>(3, 1.5));
}

TEST(CoalesceTensorOp, DoubleInputsAndErrors) {
  const DenseTensor d = MakeTensor<double>(framework::DDim({2}), {0.25, -8});
  const auto run = testing::RunNamedOp(
      "coalesce_tensor", {{"Input", {"d"}}}, {{"Output", {"d"}}, {"FusedOutput", {"fused"}}},
      {{"d", d}}, {{"dtype", static_cast<int>(DataType::FLOAT64)}, {"copy_data", true}});
  EXPECT_EQ(ToDoubles(run.vars.at("d")), (std::vector<double>{0.25, -8}));
  // An input of another dtype than `dtype`.
  try {
    Coalesce({{"d", d}}, {"d"}, {{"copy_data", true}});
    ADD_FAILURE() << "a float64 input was taken as float32";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("expected float32 (attribute dtype), found float64"),
              std::string::npos)
        << e.what();
  }
  // concated_ranks that ask for more dims than concated_shapes holds.
  EXPECT_THROW(Coalesce({}, {},
                        {{"concated_shapes", std::vector<int64_t>{2}},
                         {"concated_ranks", std::vector<int64_t>{1, 1}}}),
               platform::InvalidArgumentError);
}

}  // namespace
}  // namespace paddle_like

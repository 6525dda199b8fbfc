// depend, nop, share_buffer and the memcpy ops: what each hands on and under which name,
// that outputs sharing an input's buffer never write into it, and the errors.
#include <gtest/gtest.h>

#include "tests/optimizer_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

const std::vector<double> kX = {1, -2, 3.5, 4, 0, 6};

TEST(HandOnOps, DependHandsXOnAsItselfOrUnderAnotherName) {
  for (const std::string out : {"x", "y"}) {
    SCOPED_TRACE("Out " + out);
    OneOpProgram prog("depend", {{"X", {"x"}}, {"Dep", {"d"}}}, {{"Out", {out}}}, {});
    prog.Set("x", MakeLoDTensor<float>({3, 2}, kX, {{0, 1, 3}}));
    prog.Set("d", MakeTensor<int64_t>({1}, {9}));
    prog.Run();
    EXPECT_EQ(prog.Values(out), kX);
    EXPECT_EQ(prog.Get(out).dims(), DDim({3, 2}));
    EXPECT_EQ(prog.Get(out).lod(), (framework::LoD{{0, 1, 3}}));
  }
}

TEST(HandOnOps, AWriteToAHandedOnTensorLeavesTheInputAlone) {
  // y = depend(x), then scale writes y in place: x keeps its values.
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  for (const char* v : {"x", "y"}) b.Var(v)->SetPersistable(true);
  framework::OpDesc* dep = b.AppendOp();
  dep->SetType("depend");
  dep->SetInput("X", {"x"});
  dep->SetOutput("Out", {"y"});
  framework::OpDesc* scale = b.AppendOp();
  scale->SetType("scale");
  scale->SetInput("X", {"y"});
  scale->SetOutput("Out", {"y"});
  scale->SetAttr("scale", 3.0f);
  framework::Scope scope;
  *scope.Var("x")->GetMutable<DenseTensor>() = MakeTensor<double>({6}, kX);
  framework::Executor(platform::CPUPlace()).Run(program, &scope, {}, {});
  EXPECT_EQ(ToDoubles(scope.FindVar("x")->Get<DenseTensor>()), kX);
  std::vector<double> tripled;
  for (double v : kX) tripled.push_back(3 * v);
  EXPECT_EQ(ToDoubles(scope.FindVar("y")->Get<DenseTensor>()), tripled);
}

TEST(HandOnOps, NopHandsOnPairsAndOtherwiseDoesNothing) {
  OneOpProgram pairs("nop", {{"X", {"a", "b"}}}, {{"Out", {"a2", "b"}}}, {});
  pairs.Set("a", MakeTensor<float>({2}, {1, 2}));
  pairs.Set("b", MakeTensor<int32_t>({3}, {4, 5, 6}));
  pairs.Run();
  EXPECT_EQ(pairs.Values("a2"), (std::vector<double>{1, 2}));
  EXPECT_EQ(pairs.Values("b"), (std::vector<double>{4, 5, 6}));

  OneOpProgram marker("nop", {{"X", {"a", "b"}}}, {{"Out", {"c"}}}, {});
  marker.Set("a", MakeTensor<float>({2}, {1, 2}));
  marker.Set("b", MakeTensor<float>({1}, {3}));
  marker.Set("c", MakeTensor<float>({1}, {7}));
  marker.Run();
  EXPECT_EQ(marker.Values("c"), std::vector<double>{7});
}

TEST(HandOnOps, ShareBufferGivesOutXWhereAskedAndHandsXOn) {
  OneOpProgram prog("share_buffer", {{"X", {"a", "b"}}},
                    {{"Out", {"a_out", "b_out"}}, {"XOut", {"a", "b_x"}}},
                    {{"share_dims_and_dtype", std::vector<bool>{true, false}}});
  prog.Set("a", MakeTensor<double>({3, 2}, kX));
  prog.Set("b", MakeTensor<float>({2}, {8, 9}));
  prog.Set("b_out", MakeTensor<int64_t>({4}, {0, 0, 0, 0}));
  prog.Run();
  EXPECT_EQ(prog.Values("a_out"), kX);
  EXPECT_EQ(prog.Get("a_out").dims(), DDim({3, 2}));
  EXPECT_EQ(prog.Values("b_x"), (std::vector<double>{8, 9}));
  // Not asked to share dims and dtype: b_out keeps its own.
  EXPECT_EQ(prog.Get("b_out").dtype(), DataType::INT64);
  EXPECT_EQ(prog.Get("b_out").dims(), DDim({4}));
}

TEST(HandOnOps, ShareBufferRejectsMismatchedLists) {
  OneOpProgram prog("share_buffer", {{"X", {"a", "b"}}},
                    {{"Out", {"c", "d"}}, {"XOut", {"a", "b"}}},
                    {{"share_dims_and_dtype", std::vector<bool>{true}}});
  prog.Set("a", MakeTensor<float>({1}, {1}));
  prog.Set("b", MakeTensor<float>({1}, {2}));
  ExpectError<platform::InvalidArgumentError>(
      [&] { prog.Run(); }, {"share_buffer", "`share_dims_and_dtype`", "2 values", "received 1"});
}

TEST(HandOnOps, MemcpyCopiesToTheHostOnACpuRun) {
  const std::vector<std::pair<std::string, int>> kinds = {{"memcpy_h2d", 0}, {"memcpy_d2h", 0},
                                                          {"memcpy_d2h", 1}, {"memcpy", 0},
                                                          {"memcpy", 1},     {"memcpy", 2}};
  for (const auto& [type, place] : kinds) {
    SCOPED_TRACE(type + " dst_place_type " + std::to_string(place));
    OneOpProgram prog(type, {{"X", {"x"}}}, {{"Out", {"y"}}}, {{"dst_place_type", place}});
    const std::vector<double> ints = {1, -2, 3, 4, 0, 6};
    prog.Set("x", MakeLoDTensor<int64_t>({3, 2}, ints, {{0, 2, 3}}));
    prog.Run();
    EXPECT_EQ(prog.Values("y"), ints);
    EXPECT_EQ(prog.Get("y").dtype(), DataType::INT64);
    EXPECT_EQ(prog.Get("y").lod(), (framework::LoD{{0, 2, 3}}));
    EXPECT_TRUE(prog.Get("y").place().is_cpu());
    // A deep copy: not the input's buffer.
    EXPECT_NE(prog.Get("y").raw_data(), prog.Get("x").raw_data());
  }
}

TEST(HandOnOps, MemcpyRejectsPlacesThisRuntimeLacks) {
  for (const auto& [type, place] : std::vector<std::pair<std::string, int>>{
           {"memcpy", 3}, {"memcpy_h2d", 1}, {"memcpy_d2h", 2}, {"memcpy", -1}}) {
    SCOPED_TRACE(type);
    OneOpProgram prog(type, {{"X", {"x"}}}, {{"Out", {"y"}}}, {{"dst_place_type", place}});
    prog.Set("x", MakeTensor<float>({1}, {1}));
    ExpectError<platform::InvalidArgumentError>([&] { prog.Run(); },
                                                {type, "`dst_place_type`", std::to_string(place)});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

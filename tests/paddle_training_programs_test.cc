// Training programs that PaddlePaddle 3.3.1's static mode built and saved (tests/fixtures/
// paddle_training_programs, made by make_paddle_training_programs.py: one family of layers,
// losses or optimizers each) trained here from PaddlePaddle's initial persistables: each
// step's loss must be PaddlePaddle's. They hold PaddlePaddle's own backward ops, those that
// paddle_like registers and those it writes as its own backward when the program loads
// (framework/paddle_grad_ops.h); the expansion itself is checked on hand-built programs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/executor.h"
#include "framework/npy_io.h"
#include "framework/op_info.h"
#include "framework/paddle_grad_ops.h"
#include "framework/program_desc.h"
#include "operators/registry.h"
#include "paddle_like/train/program_trainer.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace {

using framework::DenseTensor;
using framework::OpDesc;
using framework::ProgramDesc;
using framework::Scope;

const std::string kDir = PL_SOURCE_DIR "/tests/fixtures/paddle_training_programs";
constexpr double kRelTol = 1e-4;  // float32 training: they agree to about 2e-6.

// meta.json's "loss" and "feeds".
struct Meta {
  std::string loss;
  std::vector<std::string> feeds;
};

Meta ReadMeta(const std::string& dir) {
  std::ifstream in(dir + "/meta.json");
  const nlohmann::json meta = nlohmann::json::parse(in);
  return {meta.at("loss").get<std::string>(), meta.at("feeds").get<std::vector<std::string>>()};
}

class PaddleTrainingProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(PaddleTrainingProgram, StepsGivePaddlePaddlesLosses) {
  operators::RegisterAllOps();
  const std::string dir = kDir + "/" + GetParam();
  const Meta meta = ReadMeta(dir);
  ASSERT_FALSE(meta.loss.empty());
  ASSERT_EQ(meta.feeds.size(), 2u);
  std::map<std::string, DenseTensor> feeds;
  for (const auto& f : meta.feeds) feeds[f] = framework::ReadNpy(kDir + "/" + f + ".npy");
  const ProgramDesc main = ProgramDesc::Load(dir + "/main.pdmodel");
  // Every op, backward ones included, is registered once the program has loaded.
  for (const OpDesc* op : main.Block(0).AllOps()) {
    EXPECT_TRUE(framework::OpInfoMap::Instance().Has(op->Type())) << op->Type();
  }
  train::ProgramTrainingOptions options;
  options.init_dir = dir + "/init";
  options.loss = meta.loss;
  Scope scope;
  const train::ProgramTrainingResult result = train::TrainProgram(main, feeds, options, &scope);
  const std::vector<double> expected = testing::ToDoubles(framework::ReadNpy(dir + "/losses.npy"));
  ASSERT_EQ(result.losses.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(result.losses[i], expected[i], kRelTol * std::abs(expected[i])) << "step " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PaddleTrainingProgram,
                         ::testing::ValuesIn(testing::SubdirectoryNames(kDir)),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// A forward program `x -> transpose2 -> reduce_max -> loss` (transpose2's XShape and Out;
// loss = sum of the maxima) whose backward PaddlePaddle writes as transpose2_grad (reading
// only XShape and Out@GRAD) and reduce_max_grad (X, Out, Out@GRAD).
ProgramDesc PaddleStyleProgram() {
  operators::RegisterAllOps();
  ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  const auto declare = [&b](const std::string& name, std::vector<int64_t> dims) {
    framework::VarDesc* v = b.Var(name);
    v->SetShape(dims);
    v->SetDataType(platform::DataType::FLOAT32);
  };
  declare("x", {2, 3, 4});
  declare("t", {2, 4, 3});
  declare("t_xshape", {0, 2, 3, 4});
  declare("m", {2, 4});
  declare("loss", {1});
  declare("x@GRAD", {2, 3, 4});
  declare("t@GRAD", {2, 4, 3});
  declare("m@GRAD", {2, 4});
  declare("loss@GRAD", {1});
  const auto op = [&b](const std::string& type, framework::VariableNameMap in,
                       framework::VariableNameMap out, framework::AttributeMap attrs) {
    OpDesc* o = b.AppendOp();
    *o = OpDesc(type, std::move(in), std::move(out), std::move(attrs));
    o->SetBlock(&b);
  };
  op("transpose2", {{"X", {"x"}}}, {{"Out", {"t"}}, {"XShape", {"t_xshape"}}},
     {{"axis", std::vector<int>{0, 2, 1}}});
  op("reduce_max", {{"X", {"t"}}}, {{"Out", {"m"}}}, {{"dim", std::vector<int>{2}}});
  op("reduce_sum", {{"X", {"m"}}}, {{"Out", {"loss"}}}, {{"reduce_all", true}});
  op("fill_constant", {}, {{"Out", {"loss@GRAD"}}},
     {{"shape", std::vector<int64_t>{1}}, {"value", 1.0f}, {"dtype", 5}});
  op("reduce_sum_grad", {{"X", {"m"}}, {"Out@GRAD", {"loss@GRAD"}}}, {{"X@GRAD", {"m@GRAD"}}},
     {{"reduce_all", true}});
  op("reduce_max_grad", {{"X", {"t"}}, {"Out", {"m"}}, {"Out@GRAD", {"m@GRAD"}}},
     {{"X@GRAD", {"t@GRAD"}}}, {{"dim", std::vector<int>{2}}});
  op("transpose2_grad", {{"XShape", {"t_xshape"}}, {"Out@GRAD", {"t@GRAD"}}},
     {{"X@GRAD", {"x@GRAD"}}}, {{"axis", std::vector<int>{0, 2, 1}}});
  return p;
}

std::vector<std::string> Types(const ProgramDesc& p) {
  std::vector<std::string> types;
  for (const OpDesc* op : p.Block(0).AllOps()) types.push_back(op->Type());
  return types;
}

TEST(PaddleGradOpExpansion, UnregisteredGradOpsBecomeTheForwardOpsBackward) {
  ProgramDesc p = PaddleStyleProgram();
  for (const char* t : {"transpose2_grad", "reduce_max_grad"}) {
    ASSERT_FALSE(framework::OpInfoMap::Instance().Has(t)) << t << " is registered: pick another";
  }
  // Loading is where the expansion happens.
  p = ProgramDesc::FromBytes(p.ToBinary(), "paddle_style.pdmodel");
  for (const std::string& t : Types(p)) {
    EXPECT_TRUE(framework::OpInfoMap::Instance().Has(t)) << t;
  }
  const std::vector<double> x = testing::RandomValues(24, -2, 2, 3);
  Scope scope;
  const auto out =
      framework::Executor(platform::CPUPlace())
          .Run(p, &scope, {{"x", testing::MakeTensor<float>({2, 3, 4}, x)}}, {"x@GRAD"});
  ASSERT_EQ(out.size(), 1u);
  // d(sum over (b, j) of max_i x[b, i, j]) / dx: 1 where x[b, i, j] is its column's maximum.
  std::vector<double> want(24, 0.0);
  for (int b = 0; b < 2; ++b) {
    for (int j = 0; j < 4; ++j) {
      int arg = 0;
      for (int i = 1; i < 3; ++i) {
        if (x[(b * 3 + i) * 4 + j] > x[(b * 3 + arg) * 4 + j]) arg = i;
      }
      want[(b * 3 + arg) * 4 + j] = 1.0;
    }
  }
  EXPECT_EQ(testing::ToDoubles(out[0]), want);
}

TEST(PaddleGradOpExpansion, GradOpsWithoutTheirForwardOpAreLeftAlone) {
  ProgramDesc p = PaddleStyleProgram();
  // The forward transpose2 is gone: nothing says what transpose2_grad differentiates.
  p.Block(0).RemoveOp(0, 1);
  EXPECT_EQ(framework::ExpandPaddleGradOps(&p), 1);  // reduce_max_grad only.
  const std::vector<std::string> types = Types(p);
  EXPECT_EQ(std::count(types.begin(), types.end(), "transpose2_grad"), 1);
  EXPECT_EQ(std::count(types.begin(), types.end(), "reduce_max_grad"), 0);
}

TEST(PaddleGradOpExpansion, AForwardOpThatIsNotWellFormedKeepsPaddlePaddlesGradOp) {
  ProgramDesc p = PaddleStyleProgram();
  p.Block(0).Op(0)->SetInput("X", {});               // transpose2 without the X it requires.
  EXPECT_EQ(framework::ExpandPaddleGradOps(&p), 1);  // reduce_max_grad only.
  const std::vector<std::string> types = Types(p);
  EXPECT_EQ(std::count(types.begin(), types.end(), "transpose2_grad"), 1);
}

TEST(PaddleGradOpExpansion, AnOutputGradientItDoesNotReadIsZero) {
  // reduce_max_grad given no Out@GRAD: the expansion fills the gradient it needs with zeros.
  ProgramDesc p = PaddleStyleProgram();
  for (OpDesc* op : p.Block(0).AllOps()) {
    if (op->Type() == "reduce_max_grad") op->SetInput("Out@GRAD", {});
  }
  ASSERT_EQ(framework::ExpandPaddleGradOps(&p), 2);
  Scope scope;
  const auto out =
      framework::Executor(platform::CPUPlace())
          .Run(p, &scope,
               {{"x", testing::MakeTensor<float>({2, 3, 4}, testing::RandomValues(24, -2, 2, 5))}},
               {"x@GRAD"});
  EXPECT_EQ(testing::ToDoubles(out[0]), std::vector<double>(24, 0.0));
}

}  // namespace
}  // namespace paddle_like

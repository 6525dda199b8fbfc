// layer_norm and layer_norm_grad: forward against a naive double reference, with and without
// Scale and Bias, gradients against finite differences, what the grad maker reads, and errors.
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/var_type_inference.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

const double kEps = static_cast<double>(1e-5f);

struct LnReference {
  std::vector<double> y, mean, var;
};

LnReference Reference(const std::vector<double>& x, int64_t left, int64_t right,
                      const std::vector<double>* scale, const std::vector<double>* bias,
                      double eps) {
  LnReference r;
  for (int64_t i = 0; i < left; ++i) {
    double mu = 0, var = 0;
    for (int64_t j = 0; j < right; ++j) mu += x[i * right + j];
    mu /= right;
    for (int64_t j = 0; j < right; ++j) var += (x[i * right + j] - mu) * (x[i * right + j] - mu);
    var /= right;
    r.mean.push_back(mu);
    r.var.push_back(var);
    for (int64_t j = 0; j < right; ++j) {
      double v = (x[i * right + j] - mu) / std::sqrt(var + eps);
      if (scale != nullptr) v *= (*scale)[j];
      if (bias != nullptr) v += (*bias)[j];
      r.y.push_back(v);
    }
  }
  return r;
}

struct LnCase {
  std::vector<int64_t> dims;
  int axis;
  bool scale, bias;
};

const LnCase kCases[] = {
    {{2, 3, 4}, 1, true, true},   {{2, 3, 4}, 2, true, true}, {{5, 6}, 1, true, true},
    {{2, 3, 4}, 1, false, false}, {{4, 5}, 1, true, false},   {{3, 1, 2, 2}, 2, false, true},
};

const std::map<std::string, int> kOutputs = {{"Y", 1}, {"Mean", 1}, {"Variance", 1}};

SlotTensors MakeInputs(const LnCase& c, unsigned seed, bool as_float) {
  const DDim dims(c.dims);
  const int64_t right = framework::Product(dims, c.axis, dims.size());
  const auto make = [&](const DDim& d, const std::vector<double>& v) {
    return as_float ? MakeTensor<float>(d, v) : MakeTensor<double>(d, v);
  };
  SlotTensors in = {{"X", {make(dims, RandomValues(dims.numel(), -2, 3, seed))}}};
  if (c.scale) in["Scale"] = {make({right}, RandomValues(right, 0.5, 1.5, seed + 1))};
  if (c.bias) in["Bias"] = {make({right}, RandomValues(right, -1, 1, seed + 2))};
  return in;
}

TEST(LayerNormOp, MatchesReference) {
  unsigned seed = 3;
  for (const auto& c : kCases) {
    for (bool as_float : {true, false}) {
      SCOPED_TRACE(DDim(c.dims).ToString() + " axis " + std::to_string(c.axis) +
                   (as_float ? " float" : " double"));
      const SlotTensors in = MakeInputs(c, seed += 10, as_float);
      const DDim dims(c.dims);
      const int64_t left = framework::Product(dims, 0, c.axis);
      const int64_t right = framework::Product(dims, c.axis, dims.size());
      std::vector<double> scale, bias;
      if (c.scale) scale = ToDoubles(in.at("Scale")[0]);
      if (c.bias) bias = ToDoubles(in.at("Bias")[0]);
      const LnReference ref = Reference(ToDoubles(in.at("X")[0]), left, right,
                                        c.scale ? &scale : nullptr, c.bias ? &bias : nullptr, kEps);
      const auto r = RunOp("layer_norm", in, kOutputs, {{"begin_norm_axis", c.axis}});
      const double rtol = as_float ? 1e-5 : 1e-12, atol = as_float ? 1e-5 : 1e-12;
      EXPECT_EQ(r.outputs.at("Y")[0].dims(), dims);
      EXPECT_EQ(r.outputs.at("Mean")[0].dims(), DDim({left}));
      EXPECT_EQ(r.outputs.at("Variance")[0].dims(), DDim({left}));
      ExpectNear(ToDoubles(r.outputs.at("Y")[0]), ref.y, rtol, atol, "Y");
      ExpectNear(ToDoubles(r.outputs.at("Mean")[0]), ref.mean, rtol, atol, "Mean");
      ExpectNear(ToDoubles(r.outputs.at("Variance")[0]), ref.var, rtol, atol, "Variance");
    }
  }
}

TEST(LayerNormOp, BuildTimeShapes) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  framework::VarDesc* x = b.Var("x");
  x->SetDataType(DataType::FLOAT32);
  x->SetShape({-1, 3, 4});
  framework::OpDesc* op = b.AppendOp();
  op->SetType("layer_norm");
  op->SetInput("X", {"x"});
  op->SetOutput("Y", {"y"});
  op->SetOutput("Mean", {"mean"});
  op->SetOutput("Variance", {"var"});
  op->SetAttr("begin_norm_axis", 2);
  framework::InferVarTypeAndShape(op, &b);
  EXPECT_EQ(b.FindVar("y")->GetShape(), (std::vector<int64_t>{-1, 3, 4}));
  EXPECT_EQ(b.FindVar("mean")->GetShape(), std::vector<int64_t>{-1});
  EXPECT_EQ(b.FindVar("var")->GetDataType(), DataType::FLOAT32);
}

TEST(LayerNormGrad, MatchesFiniteDifferences) {
  unsigned seed = 40;
  for (const auto& c : kCases) {
    SCOPED_TRACE(DDim(c.dims).ToString() + " axis " + std::to_string(c.axis));
    GradCheck check;
    check.op_type = "layer_norm";
    check.inputs = MakeInputs(c, seed += 10, false);
    check.outputs = kOutputs;
    check.attrs = {{"begin_norm_axis", c.axis}};
    check.loss_outputs = {"Y"};
    CheckGradients(check);
  }
}

TEST(LayerNormGrad, MakerReadsOnlyWhatTheFormulaNeeds) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  for (const char* name : {"x", "scale", "bias"}) {
    framework::VarDesc* v = b.Var(name);
    v->SetDataType(DataType::FLOAT64);
    v->SetShape(std::string(name) == "x" ? std::vector<int64_t>{2, 3} : std::vector<int64_t>{3});
  }
  framework::OpDesc* op = b.AppendOp();
  op->SetType("layer_norm");
  op->SetInput("X", {"x"});
  op->SetInput("Scale", {"scale"});
  op->SetInput("Bias", {"bias"});
  op->SetOutput("Y", {"y"});
  op->SetOutput("Mean", {"mean"});
  op->SetOutput("Variance", {"var"});
  framework::InferVarTypeAndShape(op, &b);
  framework::AppendBackward(&program, "y");
  const framework::OpDesc* grad = nullptr;
  for (size_t i = 0; i < b.OpSize(); ++i) {
    if (b.Op(i)->Type() == "layer_norm_grad") grad = b.Op(i);
  }
  ASSERT_NE(grad, nullptr);
  std::set<std::string> slots;
  for (const auto& kv : grad->Inputs()) slots.insert(kv.first);
  EXPECT_EQ(slots, (std::set<std::string>{"X", "Scale", "Mean", "Variance", "Y@GRAD"}));
  EXPECT_EQ(grad->Output("Bias@GRAD"), std::vector<std::string>{"bias@GRAD"});
  EXPECT_EQ(b.FindVar("bias@GRAD")->GetShape(), std::vector<int64_t>{3});
}

TEST(LayerNormOp, ErrorsNameOpSlotAndAttribute) {
  const LnCase c{{2, 3, 4}, 1, true, true};
  const SlotTensors in = MakeInputs(c, 5, true);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("layer_norm", in, kOutputs, {{"begin_norm_axis", 3}});
      },
      {"op `layer_norm`", "attribute `begin_norm_axis`", "[2, 3, 4]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("layer_norm", in, kOutputs, {{"begin_norm_axis", 0}});
      },
      {"op `layer_norm`", "attribute `begin_norm_axis`"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("layer_norm", in, kOutputs, {{"begin_norm_axis", 2}});
      },
      {"op `layer_norm`", "input `Scale`", "[4]", "[12]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("layer_norm", in, kOutputs, {{"epsilon", 0.1f}});
      },
      {"op `layer_norm`", "attribute `epsilon`"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

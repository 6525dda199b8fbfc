// batch_norm and batch_norm_grad: forward against a naive double reference in NCHW and NHWC,
// training and inference modes, the running-statistics update through variables shared by
// Mean and MeanOut, gradients against finite differences, what the grad maker reads, and
// errors.
#include <algorithm>
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

struct BnReference {
  std::vector<double> y, mean_out, var_out, saved_mean, saved_inv_std;
};

// The channel of element k of X.
int64_t ChannelOf(const std::vector<int64_t>& dims, bool nhwc, int64_t k) {
  const int64_t c = nhwc ? dims.back() : dims[1];
  if (nhwc) return k % c;
  int64_t inner = 1;
  for (size_t i = 2; i < dims.size(); ++i) inner *= dims[i];
  return (k / inner) % c;
}

// Naive batch norm in double.
BnReference Reference(const std::vector<int64_t>& dims, bool nhwc, const std::vector<double>& x,
                      const std::vector<double>& scale, const std::vector<double>& bias,
                      const std::vector<double>& mean, const std::vector<double>& var, double eps,
                      double momentum, bool global) {
  const size_t c = scale.size();
  std::vector<double> sum(c, 0), count(c, 0);
  for (size_t k = 0; k < x.size(); ++k) {
    const int64_t ch = ChannelOf(dims, nhwc, static_cast<int64_t>(k));
    sum[ch] += x[k];
    count[ch] += 1;
  }
  std::vector<double> mu(c), sq(c, 0);
  for (size_t i = 0; i < c; ++i) mu[i] = sum[i] / count[i];
  for (size_t k = 0; k < x.size(); ++k) {
    const int64_t ch = ChannelOf(dims, nhwc, static_cast<int64_t>(k));
    sq[ch] += (x[k] - mu[ch]) * (x[k] - mu[ch]);
  }
  BnReference r;
  std::vector<double> use_mean(c), use_var(c);
  for (size_t i = 0; i < c; ++i) {
    const double batch_var = sq[i] / count[i];
    use_mean[i] = global ? mean[i] : mu[i];
    use_var[i] = global ? var[i] : batch_var;
    r.mean_out.push_back(global ? mean[i] : momentum * mean[i] + (1 - momentum) * mu[i]);
    r.var_out.push_back(global ? var[i] : momentum * var[i] + (1 - momentum) * batch_var);
    r.saved_mean.push_back(use_mean[i]);
    r.saved_inv_std.push_back(1 / std::sqrt(use_var[i] + eps));
  }
  for (size_t k = 0; k < x.size(); ++k) {
    const int64_t ch = ChannelOf(dims, nhwc, static_cast<int64_t>(k));
    r.y.push_back(scale[ch] * (x[k] - use_mean[ch]) / std::sqrt(use_var[ch] + eps) + bias[ch]);
  }
  return r;
}

// The attribute defaults as the op sees them (FLOAT attributes).
const double kEps = static_cast<double>(1e-5f);
const double kMomentum = static_cast<double>(0.9f);

const std::map<std::string, int> kOutputs = {
    {"Y", 1}, {"MeanOut", 1}, {"VarianceOut", 1}, {"SavedMean", 1}, {"SavedVariance", 1}};

struct BnInputs {
  std::vector<int64_t> dims;
  bool nhwc;
  std::vector<double> x, scale, bias, mean, var;
};

BnInputs MakeInputs(const std::vector<int64_t>& dims, bool nhwc, unsigned seed) {
  BnInputs in{dims, nhwc, {}, {}, {}, {}, {}};
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  const int64_t c = nhwc ? dims.back() : dims[1];
  in.x = RandomValues(n, -2, 3, seed);
  in.scale = RandomValues(c, 0.5, 1.5, seed + 1);
  in.bias = RandomValues(c, -1, 1, seed + 2);
  in.mean = RandomValues(c, -0.5, 0.5, seed + 3);
  in.var = RandomValues(c, 0.5, 2, seed + 4);
  return in;
}

template <typename T>
SlotTensors Tensors(const BnInputs& in) {
  const int64_t c = static_cast<int64_t>(in.scale.size());
  return {{"X", {MakeTensor<T>(DDim(in.dims), in.x)}},
          {"Scale", {MakeTensor<T>({c}, in.scale)}},
          {"Bias", {MakeTensor<T>({c}, in.bias)}},
          {"Mean", {MakeTensor<T>({c}, in.mean)}},
          {"Variance", {MakeTensor<T>({c}, in.var)}}};
}

// Runs batch_norm in T and compares every output with the reference computed from the same
// (rounded) inputs.
template <typename T>
void CheckForward(const BnInputs& in, const AttributeMap& attrs, bool global, double momentum) {
  const SlotTensors tensors = Tensors<T>(in);
  const auto values = [&](const char* slot) { return ToDoubles(tensors.at(slot)[0]); };
  const BnReference ref = Reference(in.dims, in.nhwc, values("X"), values("Scale"), values("Bias"),
                                    values("Mean"), values("Variance"), kEps, momentum, global);
  const auto r = RunOp("batch_norm", tensors, kOutputs, attrs);
  const DataType dt = platform::ToDataType<T>();
  const double rtol = RelTol(dt) * 10, atol = dt == DataType::FLOAT64 ? 1e-12 : 1e-5;
  EXPECT_EQ(r.outputs.at("Y")[0].dims(), DDim(in.dims));
  ExpectNear(ToDoubles(r.outputs.at("Y")[0]), ref.y, rtol, atol, "Y");
  ExpectNear(ToDoubles(r.outputs.at("MeanOut")[0]), ref.mean_out, rtol, atol, "MeanOut");
  ExpectNear(ToDoubles(r.outputs.at("VarianceOut")[0]), ref.var_out, rtol, atol, "VarianceOut");
  ExpectNear(ToDoubles(r.outputs.at("SavedMean")[0]), ref.saved_mean, rtol, atol, "SavedMean");
  ExpectNear(ToDoubles(r.outputs.at("SavedVariance")[0]), ref.saved_inv_std, rtol, atol,
             "SavedVariance");
}

struct LayoutCase {
  std::vector<int64_t> dims;
  bool nhwc;
};
const LayoutCase kLayouts[] = {
    {{2, 3, 4, 5}, false}, {{2, 4, 5, 3}, true}, {{6, 3}, false},          {{6, 3}, true},
    {{2, 3, 7}, false},    {{2, 7, 3}, true},    {{1, 2, 2, 3, 2}, false}, {{3, 1, 1, 4}, true},
};

AttributeMap LayoutAttrs(bool nhwc, AttributeMap attrs = {}) {
  attrs["data_layout"] = std::string(nhwc ? "NHWC" : "NCHW");
  return attrs;
}

TEST(BatchNormOp, TrainingMatchesReference) {
  unsigned seed = 11;
  for (const auto& lc : kLayouts) {
    SCOPED_TRACE(DDim(lc.dims).ToString() + (lc.nhwc ? " NHWC" : " NCHW"));
    const BnInputs in = MakeInputs(lc.dims, lc.nhwc, seed += 10);
    CheckForward<float>(in, LayoutAttrs(lc.nhwc), false, kMomentum);
    CheckForward<double>(in, LayoutAttrs(lc.nhwc), false, kMomentum);
    CheckForward<double>(in, LayoutAttrs(lc.nhwc, {{"momentum", 0.25f}}), false, 0.25);
  }
}

TEST(BatchNormOp, InferenceAndGlobalStatsUseRunningStatistics) {
  unsigned seed = 5;
  for (const auto& lc : kLayouts) {
    SCOPED_TRACE(DDim(lc.dims).ToString() + (lc.nhwc ? " NHWC" : " NCHW"));
    const BnInputs in = MakeInputs(lc.dims, lc.nhwc, seed += 10);
    CheckForward<float>(in, LayoutAttrs(lc.nhwc, {{"is_test", true}}), true, kMomentum);
    CheckForward<double>(in, LayoutAttrs(lc.nhwc, {{"is_test", true}}), true, kMomentum);
    CheckForward<double>(in, LayoutAttrs(lc.nhwc, {{"use_global_stats", true}}), true, kMomentum);
    // trainable_statistics brings batch statistics back in test mode.
    CheckForward<double>(in,
                         LayoutAttrs(lc.nhwc, {{"is_test", true}, {"trainable_statistics", true}}),
                         false, kMomentum);
  }
}

// fuse_with_relu (inference programs whose relu was folded in) clamps Y at 0 on every kernel.
TEST(BatchNormOp, FusedReluClampsY) {
  const BnInputs in = MakeInputs({2, 3, 4, 5}, false, 7);
  const SlotTensors tensors = Tensors<float>(in);
  const auto values = [&](const char* slot) { return ToDoubles(tensors.at(slot)[0]); };
  const BnReference ref = Reference(in.dims, in.nhwc, values("X"), values("Scale"), values("Bias"),
                                    values("Mean"), values("Variance"), kEps, kMomentum, true);
  std::vector<double> clamped = ref.y;
  int negatives = 0;
  for (double& v : clamped) {
    negatives += v < 0;
    v = std::max(v, 0.0);
  }
  ASSERT_GT(negatives, 0) << "the case should have negative outputs to clamp";
  for (bool use_onednn : {true, false}) {
    ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
    const auto r = RunOp("batch_norm", tensors, kOutputs,
                         {{"is_test", true}, {"fuse_with_relu", true}});
    ExpectNear(ToDoubles(r.outputs.at("Y")[0]), clamped, 1e-4, 1e-5,
               use_onednn ? "Y (oneDNN)" : "Y (plain)");
  }
}

TEST(BatchNormOp, AnyLayoutReadsAsNchw) {
  const BnInputs in = MakeInputs({2, 3, 2, 2}, false, 3);
  CheckForward<double>(in, {{"data_layout", std::string("AnyLayout")}}, false, kMomentum);
}

TEST(BatchNormOp, MomentumTensorOverridesTheAttribute) {
  const BnInputs in = MakeInputs({4, 2, 3}, false, 9);
  SlotTensors tensors = Tensors<double>(in);
  tensors["MomentumTensor"] = {MakeTensor<double>({1}, {0.5})};
  const auto r = RunOp("batch_norm", tensors, kOutputs, {{"momentum", 0.9f}});
  const BnReference ref =
      Reference(in.dims, false, in.x, in.scale, in.bias, in.mean, in.var, kEps, 0.5, false);
  ExpectNear(ToDoubles(r.outputs.at("MeanOut")[0]), ref.mean_out, 1e-12, 1e-12, "MeanOut");
  ExpectNear(ToDoubles(r.outputs.at("VarianceOut")[0]), ref.var_out, 1e-12, 1e-12, "VarianceOut");
}

TEST(BatchNormOp, OneValuePerChannelPassesThrough) {
  const BnInputs in = MakeInputs({1, 3}, false, 4);
  const auto r = RunOp("batch_norm", Tensors<double>(in), kOutputs);
  ExpectNear(ToDoubles(r.outputs.at("Y")[0]), in.x, 0, 0, "Y");
  ExpectNear(ToDoubles(r.outputs.at("MeanOut")[0]), in.mean, 0, 0, "MeanOut");
  ExpectNear(ToDoubles(r.outputs.at("VarianceOut")[0]), in.var, 0, 0, "VarianceOut");
  // An empty batch likewise.
  BnInputs empty = MakeInputs({0, 3, 2}, false, 5);
  const auto e = RunOp("batch_norm", Tensors<double>(empty), kOutputs);
  EXPECT_EQ(e.outputs.at("Y")[0].dims(), DDim({0, 3, 2}));
  ExpectNear(ToDoubles(e.outputs.at("MeanOut")[0]), empty.mean, 0, 0, "MeanOut of empty X");
}

TEST(BatchNormOp, RepeatedRunsAreBitwiseEqual) {
  const BnInputs in = MakeInputs({8, 5, 6, 7}, false, 21);
  const auto a = RunOp("batch_norm", Tensors<float>(in), kOutputs);
  const auto b = RunOp("batch_norm", Tensors<float>(in), kOutputs);
  for (const auto& kv : kOutputs) {
    EXPECT_EQ(ToDoubles(a.outputs.at(kv.first)[0]), ToDoubles(b.outputs.at(kv.first)[0]))
        << kv.first;
  }
}

// A block with x -> batch_norm -> y where Mean/MeanOut and Variance/VarianceOut are the
// persistable variables "mean" and "var" (as PaddlePaddle programs write them).
void BuildAliasedProgram(framework::ProgramDesc* program, const std::vector<int64_t>& x_dims,
                         int64_t c, const AttributeMap& attrs) {
  operators::RegisterAllOps();
  framework::BlockDesc& b = program->Block(0);
  auto add_var = [&](const std::string& name, const std::vector<int64_t>& shape, bool persistable) {
    framework::VarDesc* v = b.Var(name);
    v->SetDataType(DataType::FLOAT64);
    v->SetShape(shape);
    v->SetPersistable(persistable);
    v->SetStopGradient(persistable);
  };
  add_var("x", x_dims, false);
  for (const char* name : {"scale", "bias", "mean", "var"}) add_var(name, {c}, true);
  framework::OpDesc* op = b.AppendOp();
  op->SetType("batch_norm");
  op->SetInput("X", {"x"});
  op->SetInput("Scale", {"scale"});
  op->SetInput("Bias", {"bias"});
  op->SetInput("Mean", {"mean"});
  op->SetInput("Variance", {"var"});
  op->SetOutput("Y", {"y"});
  op->SetOutput("MeanOut", {"mean"});
  op->SetOutput("VarianceOut", {"var"});
  op->SetOutput("SavedMean", {"saved_mean"});
  op->SetOutput("SavedVariance", {"saved_variance"});
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::InferVarTypeAndShape(op, &b);
}

TEST(BatchNormOp, RunningStatisticsUpdateInPlace) {
  const BnInputs in = MakeInputs({3, 2, 2, 2}, false, 31);
  framework::ProgramDesc program;
  BuildAliasedProgram(&program, in.dims, 2, {{"momentum", 0.75f}});
  const framework::BlockDesc& b = program.Block(0);
  EXPECT_EQ(b.FindVar("mean")->GetDataType(), DataType::FLOAT64);
  EXPECT_EQ(b.FindVar("saved_mean")->GetShape(), std::vector<int64_t>{2});
  framework::Scope scope;
  const std::map<std::string, std::vector<double>> params = {
      {"scale", in.scale}, {"bias", in.bias}, {"mean", in.mean}, {"var", in.var}};
  for (const auto& kv : params) {
    *scope.Var(kv.first)->GetMutable<DenseTensor>() = MakeTensor<double>({2}, kv.second);
  }
  framework::Executor exec{platform::CPUPlace()};
  const std::map<std::string, DenseTensor> feeds = {{"x", MakeTensor<double>(DDim(in.dims), in.x)}};
  // Step by step: each run reads the statistics the previous one wrote.
  std::vector<double> mean = in.mean, var = in.var;
  for (int step = 0; step < 3; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const auto y = exec.Run(program, &scope, feeds, {"y"});
    const BnReference ref =
        Reference(in.dims, false, in.x, in.scale, in.bias, mean, var, kEps, 0.75, false);
    ExpectNear(ToDoubles(y[0]), ref.y, 1e-12, 1e-12, "y");
    ExpectNear(ToDoubles(scope.FindVar("mean")->Get<DenseTensor>()), ref.mean_out, 1e-12, 1e-12,
               "mean");
    ExpectNear(ToDoubles(scope.FindVar("var")->Get<DenseTensor>()), ref.var_out, 1e-12, 1e-12,
               "var");
    mean = ref.mean_out;
    var = ref.var_out;
  }
  EXPECT_NE(mean, in.mean);
}

TEST(BatchNormOp, InferenceLeavesSharedRunningStatisticsAlone) {
  const BnInputs in = MakeInputs({3, 2, 4}, false, 41);
  framework::ProgramDesc program;
  BuildAliasedProgram(&program, in.dims, 2, {{"is_test", true}});
  framework::Scope scope;
  const std::map<std::string, std::vector<double>> params = {
      {"scale", in.scale}, {"bias", in.bias}, {"mean", in.mean}, {"var", in.var}};
  for (const auto& kv : params) {
    *scope.Var(kv.first)->GetMutable<DenseTensor>() = MakeTensor<double>({2}, kv.second);
  }
  framework::Executor exec{platform::CPUPlace()};
  const auto y = exec.Run(program, &scope, {{"x", MakeTensor<double>(DDim(in.dims), in.x)}}, {"y"});
  const BnReference ref =
      Reference(in.dims, false, in.x, in.scale, in.bias, in.mean, in.var, kEps, kMomentum, true);
  ExpectNear(ToDoubles(y[0]), ref.y, 1e-12, 1e-12, "y");
  EXPECT_EQ(ToDoubles(scope.FindVar("mean")->Get<DenseTensor>()), in.mean);
  EXPECT_EQ(ToDoubles(scope.FindVar("var")->Get<DenseTensor>()), in.var);
}

GradCheck BnGradCheck(const BnInputs& in, const AttributeMap& attrs) {
  GradCheck check;
  check.op_type = "batch_norm";
  check.inputs = Tensors<double>(in);
  check.outputs = kOutputs;
  check.attrs = attrs;
  check.wrt = {"X", "Scale", "Bias"};
  check.loss_outputs = {"Y"};
  return check;
}

TEST(BatchNormGrad, TrainingMatchesFiniteDifferences) {
  const LayoutCase cases[] = {
      {{2, 3, 2, 2}, false}, {{2, 2, 2, 3}, true}, {{5, 2}, false}, {{2, 2, 3}, false}};
  unsigned seed = 50;
  for (const auto& lc : cases) {
    SCOPED_TRACE(DDim(lc.dims).ToString() + (lc.nhwc ? " NHWC" : " NCHW"));
    CheckGradients(BnGradCheck(MakeInputs(lc.dims, lc.nhwc, seed += 10), LayoutAttrs(lc.nhwc)));
  }
}

TEST(BatchNormGrad, GlobalStatisticsMatchFiniteDifferences) {
  const LayoutCase cases[] = {{{2, 3, 2, 2}, false}, {{2, 2, 3}, true}};
  unsigned seed = 80;
  for (const auto& lc : cases) {
    SCOPED_TRACE(DDim(lc.dims).ToString() + (lc.nhwc ? " NHWC" : " NCHW"));
    CheckGradients(BnGradCheck(MakeInputs(lc.dims, lc.nhwc, seed += 10),
                               LayoutAttrs(lc.nhwc, {{"use_global_stats", true}})));
    CheckGradients(BnGradCheck(MakeInputs(lc.dims, lc.nhwc, seed += 10),
                               LayoutAttrs(lc.nhwc, {{"is_test", true}})));
  }
}

// The slots of the batch_norm_grad op AppendBackward emits for y = batch_norm(x).
std::set<std::string> GradInputSlots(const AttributeMap& attrs) {
  framework::ProgramDesc program;
  BuildAliasedProgram(&program, {2, 3, 4}, 3, attrs);
  framework::AppendBackward(&program, "y");
  const framework::BlockDesc& b = program.Block(0);
  for (size_t i = 0; i < b.OpSize(); ++i) {
    const framework::OpDesc* op = b.Op(i);
    if (op->Type() != "batch_norm_grad") continue;
    EXPECT_EQ(op->Output("X@GRAD"), std::vector<std::string>{"x@GRAD"});
    std::set<std::string> slots;
    for (const auto& kv : op->Inputs()) {
      if (!kv.second.empty()) slots.insert(kv.first);
    }
    return slots;
  }
  ADD_FAILURE() << "no batch_norm_grad op";
  return {};
}

TEST(BatchNormGrad, MakerReadsOnlyWhatTheFormulaNeeds) {
  EXPECT_EQ(GradInputSlots({}),
            (std::set<std::string>{"X", "Scale", "SavedMean", "SavedVariance", "Y@GRAD"}));
  EXPECT_EQ(GradInputSlots({{"use_global_stats", true}}),
            (std::set<std::string>{"X", "Scale", "Mean", "Variance", "Y@GRAD"}));
  EXPECT_EQ(GradInputSlots({{"is_test", true}}),
            (std::set<std::string>{"X", "Scale", "Mean", "Variance", "Y@GRAD"}));
}

TEST(BatchNormGrad, NoGradientThroughAFusedRelu) {
  ExpectError<platform::UnimplementedError>([] { GradInputSlots({{"fuse_with_relu", true}}); },
                                            {"op `batch_norm` attribute `fuse_with_relu`"});
}

TEST(BatchNormOp, ErrorsNameOpSlotAndAttribute) {
  const BnInputs in = MakeInputs({2, 3, 4}, false, 7);
  SlotTensors bad_scale = Tensors<float>(in);
  bad_scale["Scale"] = {MakeTensor<float>({4}, {1, 1, 1, 1})};
  ExpectError<platform::InvalidArgumentError>([&] { RunOp("batch_norm", bad_scale, kOutputs); },
                                              {"op `batch_norm`", "input `Scale`", "[3]", "[4]"});
  SlotTensors bad_mean = Tensors<float>(in);
  bad_mean["Mean"] = {MakeTensor<float>({3, 1}, {0, 0, 0})};
  ExpectError<platform::InvalidArgumentError>([&] { RunOp("batch_norm", bad_mean, kOutputs); },
                                              {"op `batch_norm`", "input `Mean`", "[3, 1]"});
  SlotTensors rank1 = Tensors<float>(in);
  rank1["X"] = {MakeTensor<float>({3}, {1, 2, 3})};
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("batch_norm", rank1, kOutputs); },
      {"op `batch_norm`", "input `X`", "rank 2 to 5", "[3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("batch_norm", Tensors<float>(in), kOutputs, {{"epsilon", 0.5f}});
      },
      {"op `batch_norm`", "attribute `epsilon`"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("batch_norm", Tensors<float>(in), kOutputs, {{"data_layout", std::string("NDHWC")}});
      },
      {"op `batch_norm`", "attribute `data_layout`", "NDHWC"});
  ExpectError<platform::NotFoundError>(
      [&] {
        RunOp("batch_norm", Tensors<float>(in), {{"Y", 1}});
      },
      {"op `batch_norm`", "output `MeanOut`"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

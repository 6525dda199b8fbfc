// PaddlePaddle's fused grad op types (relu_grad, elementwise_add_grad, matmul_v2_grad ...),
// which programs built by PaddlePaddle hold, against the gradients paddle_like's own backward
// pass computes: the forward op is built, loss = reduce_sum(Out * W) appended and
// AppendBackward run (so Out@GRAD = W, random or ones), and `<op>_grad` is then run directly
// on the same forward values with Out@GRAD = W. Also: every grad op type's slots are the ones
// PaddlePaddle 3.3.1 writes, and the reduce_mean forward op.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/op_info.h"
#include "framework/var_type_inference.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::VariableNameMap;

struct GradOpCase {
  std::string op;                       // Forward op type.
  SlotTensors inputs;                   // Forward inputs (float64), one tensor per slot.
  AttributeMap attrs;
  std::vector<std::string> reads;       // Forward slots the grad op reads ("X", "Y", "Out").
  std::vector<std::string> grads;       // Input slots whose gradients are compared.
  bool ones = false;                    // Out@GRAD = 1 instead of random.
};

std::string Describe(const GradOpCase& c) {
  std::string s = c.op + "(";
  for (const auto& kv : c.inputs) s += kv.first + kv.second[0].dims().ToString() + " ";
  return s + ")";
}

struct Reference {
  DenseTensor out;                           // The forward Out.
  DenseTensor dout;                          // W = Out@GRAD.
  std::map<std::string, DenseTensor> grads;  // Input slot -> gradient.
};

// Forward op + reduce_sum(Out * W) + AppendBackward, run once.
Reference OwnBackward(const GradOpCase& c) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  std::map<std::string, DenseTensor> feeds;
  framework::OpDesc* op = b.AppendOp();
  op->SetType(c.op);
  for (const auto& kv : c.inputs) {
    framework::VarDesc* v = b.Var(kv.first);
    v->SetDataType(kv.second[0].dtype());
    v->SetShape(kv.second[0].dims().ToVector());
    v->SetStopGradient(false);
    feeds[kv.first] = kv.second[0];
    op->SetInput(kv.first, {kv.first});
  }
  op->SetOutput("Out", {"out"});
  for (const auto& kv : c.attrs) op->SetAttr(kv.first, kv.second);
  framework::InferVarTypeAndShape(op, &b);
  const auto append = [&b](const std::string& type, const VariableNameMap& in,
                           const VariableNameMap& out, const AttributeMap& attrs) {
    framework::OpDesc* o = b.AppendOp();
    o->SetType(type);
    for (const auto& kv : in) o->SetInput(kv.first, kv.second);
    for (const auto& kv : out) o->SetOutput(kv.first, kv.second);
    for (const auto& kv : attrs) o->SetAttr(kv.first, kv.second);
    framework::InferVarTypeAndShape(o, &b);
  };
  Reference ref;
  {
    framework::Scope scope;
    ref.out = framework::Executor(platform::CPUPlace()).Run(program, &scope, feeds, {"out"})[0];
  }
  const int64_t n = ref.out.numel();
  ref.dout = MakeTensor<double>(ref.out.dims(),
                                c.ones ? std::vector<double>(n, 1.0) : RandomValues(n, -1, 1, 5));
  framework::VarDesc* w = b.Var("w");
  w->SetDataType(DataType::FLOAT64);
  w->SetShape(ref.out.dims().ToVector());
  w->SetStopGradient(true);
  feeds["w"] = ref.dout;
  append("elementwise_mul", {{"X", {"out"}}, {"Y", {"w"}}}, {{"Out", {"weighted"}}},
         {{"axis", -1}});
  append("reduce_sum", {{"X", {"weighted"}}}, {{"Out", {"loss"}}},
         {{"reduce_all", true}, {"dim", std::vector<int>{}}});
  const framework::BackwardResult result = framework::AppendBackward(&program, "loss");
  std::vector<std::string> fetches;
  for (const auto& slot : c.grads) fetches.push_back(result.grad_of.at(slot));
  framework::Scope scope;
  const auto values =
      framework::Executor(platform::CPUPlace()).Run(program, &scope, feeds, fetches);
  for (size_t i = 0; i < c.grads.size(); ++i) ref.grads[c.grads[i]] = values[i];
  return ref;
}

template <typename T>
DenseTensor As(const DenseTensor& t) {
  return MakeTensor<T>(t.dims(), ToDoubles(t));
}

// Runs `<op>_grad` in T and compares with the reference (float64 values).
template <typename T>
void CheckGradOp(const GradOpCase& c, const Reference& ref) {
  SCOPED_TRACE(Describe(c) + (std::is_same_v<T, float> ? " float32" : " float64"));
  SlotTensors in;
  for (const auto& slot : c.reads) {
    in[slot] = {As<T>(slot == "Out" ? ref.out : c.inputs.at(slot)[0])};
  }
  in["Out@GRAD"] = {As<T>(ref.dout)};
  std::map<std::string, int> outs;
  for (const auto& slot : c.grads) outs[slot + "@GRAD"] = 1;
  const OpRunResult r = RunOp(c.op + "_grad", in, outs, c.attrs);
  ASSERT_NE(r.kernel, nullptr);
  EXPECT_EQ(r.kernel->key.dtype, platform::ToDataType<T>());
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-11;
  for (const auto& slot : c.grads) {
    const DenseTensor& got = r.outputs.at(slot + "@GRAD")[0];
    const DenseTensor& want = ref.grads.at(slot);
    EXPECT_EQ(got.dims(), c.inputs.at(slot)[0].dims()) << slot;
    EXPECT_EQ(got.dtype(), platform::ToDataType<T>()) << slot;
    ExpectNear(ToDoubles(got), ToDoubles(want), tol, tol, "d" + slot);
  }
}

void Check(const GradOpCase& c) {
  const Reference ref = OwnBackward(c);
  CheckGradOp<double>(c, ref);
  CheckGradOp<float>(c, ref);
}

DenseTensor Random(const DDim& dims, double lo, double hi, unsigned seed) {
  return MakeTensor<double>(dims, RandomValues(dims.numel(), lo, hi, seed));
}

// ---------------------------------------------------------------- activations

TEST(PaddleGradOps, Activations) {
  const DenseTensor x = Random({3, 5}, -2, 2, 1);
  for (const char* op : {"relu", "sigmoid", "tanh", "exp"}) {
    Check({op, {{"X", {x}}}, {}, {"Out"}, {"X"}});
    Check({op, {{"X", {x}}}, {}, {"Out"}, {"X"}, /*ones=*/true});
  }
  Check({"square", {{"X", {x}}}, {}, {"X"}, {"X"}});
  // Slopes exact in float: the two formulations round a float alpha differently.
  Check({"leaky_relu", {{"X", {x}}}, {{"alpha", 0.25f}}, {"X"}, {"X"}});
  Check({"leaky_relu", {{"X", {x}}}, {{"alpha", 0.125f}}, {"X"}, {"X"}, true});
}

// Every fused grad op of an elementwise unary op declared from its forward op
// (framework/fused_grad_op.h), found in the registry, against central differences of the
// forward op: dX = dOut * (f(X + h) - f(X - h)) / 2h, in float64, with its attributes at their
// defaults and with each boolean attribute of the math flipped. A new op declared so is
// checked without editing this file.
TEST(PaddleGradOps, EveryUnaryFusedGradOpAgainstFiniteDifferences) {
  operators::RegisterAllOps();
  std::vector<std::string> checked;
  for (const auto& [type, info] : framework::OpInfoMap::Instance().map()) {
    const framework::FusedGradDecl& d = info.fused_grad;
    if (info.fused_grad_of.empty() || d.input_grads != std::vector<std::string>{"X"} ||
        d.output_grads != std::vector<std::string>{"Out"} || d.reads.size() != 1) {
      continue;
    }
    const std::string& fwd = info.fused_grad_of;
    // Unary in their slots but not elementwise, checked by their own tests: lod_reset (its
    // defaults name no offsets), diag_v2 (a vector becomes a matrix), cumprod (a scan),
    // cholesky (square matrices; its gradient is symmetric) and renorm (norms of slices); and
    // gumbel_softmax, whose forward draws noise.
    if (fwd == "lod_reset" || fwd == "diag_v2" || fwd == "cumprod" || fwd == "cholesky" ||
        fwd == "renorm" || fwd == "gumbel_softmax") {
      continue;
    }
    // An op with a required input besides X (sequence_pad's PadValue), or whose X is a list
    // (multi_dot), is not unary.
    const auto& fwd_inputs = framework::OpInfoMap::Instance().Get(fwd).spec.inputs;
    if (std::any_of(fwd_inputs.begin(), fwd_inputs.end(), [](const framework::OpSlotSpec& s) {
          return (s.name != "X" && !s.dispensable) || (s.name == "X" && s.duplicable);
        })) {
      continue;
    }
    // Nor is one with a required output besides Out (rrelu's Noise).
    const auto& fwd_outputs = framework::OpInfoMap::Instance().Get(fwd).spec.outputs;
    if (std::any_of(fwd_outputs.begin(), fwd_outputs.end(), [](const framework::OpSlotSpec& s) {
          return s.name != "Out" && !s.dispensable;
        })) {
      continue;
    }
    // An op with a required attribute (pool3d's ksize) is not an elementwise unary op.
    const auto& fwd_attrs = framework::OpInfoMap::Instance().Get(fwd).spec.attrs;
    if (std::any_of(fwd_attrs.begin(), fwd_attrs.end(),
                    [](const framework::OpAttrSpec& a) { return !a.has_default; })) {
      continue;
    }
    // Inputs in [-2, 2], or in [0.2, 2] for an op not finite on all of it (log, sqrt).
    DenseTensor x = Random({4, 6}, -2, 2, 60);
    const std::vector<double> on_wide_range =
        ToDoubles(RunOp(fwd, {{"X", {x}}}, {{"Out", 1}}).outputs["Out"][0]);
    if (!std::all_of(on_wide_range.begin(), on_wide_range.end(),
                     [](double v) { return std::isfinite(v); })) {
      x = Random({4, 6}, 0.2, 2, 60);
    }
    const DenseTensor dout = Random({4, 6}, -1, 1, 61);
    std::vector<AttributeMap> variants = {{}};
    for (const auto& a : framework::OpInfoMap::Instance().Get(fwd).spec.attrs) {
      if (a.extra || a.type != framework::AttrType::BOOLEAN || !a.has_default) continue;
      variants.push_back({{a.name, !std::get<bool>(a.default_value)}});
    }
    for (const AttributeMap& attrs : variants) {
      SCOPED_TRACE(type + (attrs.empty() ? "" : " with " + attrs.begin()->first + " flipped"));
      const auto forward = [&](const std::vector<double>& v) {
        return RunOp(fwd, {{"X", {MakeTensor<double>(x.dims(), v)}}}, {{"Out", 1}}, attrs)
            .outputs["Out"][0];
      };
      const std::vector<double> xs = ToDoubles(x);
      const DenseTensor out = forward(xs);
      ASSERT_EQ(out.dims(), x.dims()) << "not elementwise";
      std::vector<double> plus = xs, minus = xs, h(xs.size());
      for (size_t i = 0; i < xs.size(); ++i) {
        h[i] = 1e-6 * std::max(1.0, std::abs(xs[i]));
        plus[i] += h[i];
        minus[i] -= h[i];
      }
      const std::vector<double> fp = ToDoubles(forward(plus)), fm = ToDoubles(forward(minus));
      const std::vector<double> g = ToDoubles(dout);
      std::vector<double> want(xs.size());
      for (size_t i = 0; i < xs.size(); ++i) want[i] = g[i] * (fp[i] - fm[i]) / (2 * h[i]);
      const DenseTensor& read = d.reads[0] == "X" ? x : out;
      for (bool f32 : {false, true}) {
        const OpRunResult r = RunOp(
            type,
            {{d.reads[0], {f32 ? As<float>(read) : read}},
             {"Out@GRAD", {f32 ? As<float>(dout) : dout}}},
            {{"X@GRAD", 1}}, attrs);
        ExpectNear(ToDoubles(r.outputs.at("X@GRAD")[0]), want, f32 ? 1e-4 : 1e-6, f32 ? 1e-5 : 1e-8,
                   f32 ? "float32 dX" : "float64 dX");
      }
    }
    checked.push_back(type);
  }
  for (const char* type : {"relu_grad", "sigmoid_grad", "tanh_grad", "exp_grad", "square_grad",
                           "gelu_grad", "leaky_relu_grad", "hard_sigmoid_grad",
                           "hard_swish_grad", "relu6_grad", "swish_grad", "sqrt_grad",
                           "rsqrt_grad"}) {
    EXPECT_NE(std::find(checked.begin(), checked.end(), type), checked.end()) << type;
  }
}

TEST(PaddleGradOps, ReluGradAtZeroAndLeakyReluSlopeAtZero) {
  // Both: zero output -> zero gradient for relu; slope 1 at X = 0 for leaky_relu.
  const DenseTensor zero = MakeTensor<double>({3}, {0, 0, 2});
  const DenseTensor dout = MakeTensor<double>({3}, {5, 5, 5});
  auto relu = RunOp("relu_grad", {{"Out", {zero}}, {"Out@GRAD", {dout}}}, {{"X@GRAD", 1}});
  EXPECT_EQ(ToDoubles(relu.outputs["X@GRAD"][0]), (std::vector<double>{0, 0, 5}));
  const DenseTensor x = MakeTensor<double>({3}, {0, -1, 2});
  auto leaky = RunOp("leaky_relu_grad", {{"X", {x}}, {"Out@GRAD", {dout}}}, {{"X@GRAD", 1}},
                     {{"alpha", 0.5f}});
  EXPECT_EQ(ToDoubles(leaky.outputs["X@GRAD"][0]), (std::vector<double>{5, 2.5, 5}));
}

// ---------------------------------------------------------------- elementwise

struct BroadcastCase {
  DDim x, y;
  int axis;
};

const std::vector<BroadcastCase>& BroadcastCases() {
  static const std::vector<BroadcastCase> kCases = {
      {{3, 4}, {3, 4}, -1},        {{2, 3, 4}, {4}, -1},   {{2, 3, 4}, {3}, 1},
      {{2, 3, 4}, {3, 1}, 1},      {{2, 1, 4}, {3, 1}, -1}, {{3}, {2, 3}, -1},
      {{2, 3, 4}, {2, 1, 4}, -1},  {{4, 1}, {1}, -1},      {{2, 3}, {}, -1},
  };
  return kCases;
}

TEST(PaddleGradOps, ElementwiseWithBroadcasting) {
  unsigned seed = 10;
  for (const BroadcastCase& b : BroadcastCases()) {
    const DenseTensor x = Random(b.x, -2, 2, ++seed);
    const DenseTensor y = Random(b.y, -2, 2, ++seed);
    const DenseTensor positive_y = Random(b.y, 0.5, 2, ++seed);
    const AttributeMap attrs = {{"axis", b.axis}};
    for (const char* op : {"elementwise_add", "elementwise_sub", "elementwise_mul"}) {
      Check({op, {{"X", {x}}, {"Y", {y}}}, attrs, {"X", "Y"}, {"X", "Y"}});
    }
    Check({"elementwise_div", {{"X", {x}}, {"Y", {positive_y}}}, attrs, {"X", "Y", "Out"},
           {"X", "Y"}});
    Check({"elementwise_add", {{"X", {x}}, {"Y", {y}}}, attrs, {"X", "Y"}, {"X", "Y"}, true});
  }
}

TEST(PaddleGradOps, ElementwiseGradOutputsAreDispensable) {
  const DenseTensor x = Random({2, 3}, -1, 1, 40);
  const DenseTensor y = Random({3}, -1, 1, 41);
  const DenseTensor dout = Random({2, 3}, -1, 1, 42);
  auto only_y = RunOp("elementwise_mul_grad", {{"X", {x}}, {"Y", {y}}, {"Out@GRAD", {dout}}},
                      {{"Y@GRAD", 1}}, {{"axis", -1}});
  const std::vector<double> xv = ToDoubles(x), dv = ToDoubles(dout);
  std::vector<double> dy(3, 0.0);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) dy[j] += dv[i * 3 + j] * xv[i * 3 + j];
  }
  ExpectNear(ToDoubles(only_y.outputs["Y@GRAD"][0]), dy, 1e-12, 1e-12, "dY");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("elementwise_add_grad",
              {{"X", {x}}, {"Y", {y}}, {"Out@GRAD", {Random({3, 2}, -1, 1, 43)}}},
              {{"X@GRAD", 1}});
      },
      {"op `elementwise_add_grad` input `Out@GRAD`", "[2, 3]", "[3, 2]"});
}

// ---------------------------------------------------------------- matmul_v2

TEST(PaddleGradOps, MatmulV2WithTransposesAndBatchBroadcasting) {
  struct Shapes {
    DDim x, y;
  };
  const std::vector<Shapes> shapes = {
      {{3, 4}, {4, 5}},       {{2, 3, 4}, {4, 5}},    {{4, 5}, {2, 5, 6}},
      {{2, 1, 3, 4}, {5, 4, 6}}, {{4}, {4, 5}},       {{3, 4}, {4}},
      {{4}, {4}},             {{2, 3, 4}, {4}},       {{1, 3, 4}, {2, 4, 5}},
  };
  unsigned seed = 50;
  for (const Shapes& s : shapes) {
    for (int t = 0; t < 4; ++t) {
      const bool tx = t & 1, ty = t & 2;
      // The shapes above are for no transposes: swap the matrix dims of a transposed operand.
      auto dims = [](DDim d, bool trans) {
        std::vector<int64_t> v = d.ToVector();
        if (trans && v.size() >= 2) std::swap(v[v.size() - 1], v[v.size() - 2]);
        return DDim(v);
      };
      const DenseTensor x = Random(dims(s.x, tx), -1, 1, ++seed);
      const DenseTensor y = Random(dims(s.y, ty), -1, 1, ++seed);
      Check({"matmul_v2", {{"X", {x}}, {"Y", {y}}}, {{"trans_x", tx}, {"trans_y", ty}},
             {"X", "Y"}, {"X", "Y"}});
    }
  }
}

// ---------------------------------------------------------------- softmax, mean, reduce

TEST(PaddleGradOps, Softmax) {
  const DenseTensor x = Random({2, 3, 4}, -2, 2, 70);
  for (int axis : {-1, 1, 0}) {
    Check({"softmax", {{"X", {x}}}, {{"axis", axis}}, {"Out"}, {"X"}});
  }
  Check({"softmax", {{"X", {x}}}, {{"axis", -1}}, {"Out"}, {"X"}, true});
}

TEST(PaddleGradOps, MeanAndReductions) {
  const DenseTensor x = Random({2, 3, 4}, -2, 2, 80);
  Check({"mean", {{"X", {x}}}, {}, {"X"}, {"X"}});
  Check({"mean", {{"X", {Random({}, -1, 1, 81)}}}, {}, {"X"}, {"X"}});
  const std::vector<AttributeMap> attrs = {
      {{"dim", std::vector<int>{1}}, {"keep_dim", false}, {"reduce_all", false}},
      {{"dim", std::vector<int>{1}}, {"keep_dim", true}, {"reduce_all", false}},
      {{"dim", std::vector<int>{0, -1}}, {"keep_dim", false}, {"reduce_all", false}},
      {{"dim", std::vector<int>{}}, {"keep_dim", false}, {"reduce_all", false}},
      {{"dim", std::vector<int>{0}}, {"keep_dim", true}, {"reduce_all", true}},
  };
  for (const AttributeMap& a : attrs) {
    Check({"reduce_sum", {{"X", {x}}}, a, {"X"}, {"X"}});
    Check({"reduce_mean", {{"X", {x}}}, a, {"X"}, {"X"}});
  }
  // As in the fixture: the mean of a [N, 1] loss with dim [] and reduce_all.
  Check({"reduce_mean",
         {{"X", {Random({5, 1}, 0, 3, 82)}}},
         {{"dim", std::vector<int>{}}, {"reduce_all", true}},
         {"X"},
         {"X"},
         true});
}

TEST(ReduceMeanOp, ForwardAgainstLoops) {
  const std::vector<double> v = {1, 2, 3, 4, 5, 6};
  const DenseTensor x = MakeTensor<float>({2, 3}, v);
  auto rows = RunOp("reduce_mean", {{"X", {x}}}, {{"Out", 1}}, {{"dim", std::vector<int>{1}}});
  EXPECT_EQ(rows.outputs["Out"][0].dims(), DDim({2}));
  EXPECT_EQ(ToDoubles(rows.outputs["Out"][0]), (std::vector<double>{2, 5}));
  auto cols = RunOp("reduce_mean", {{"X", {x}}}, {{"Out", 1}},
                    {{"dim", std::vector<int>{0}}, {"keep_dim", true}});
  EXPECT_EQ(cols.outputs["Out"][0].dims(), DDim({1, 3}));
  EXPECT_EQ(ToDoubles(cols.outputs["Out"][0]), (std::vector<double>{2.5, 3.5, 4.5}));
  auto all = RunOp("reduce_mean", {{"X", {x}}}, {{"Out", 1}},
                   {{"dim", std::vector<int>{}}, {"reduce_all", true}});
  EXPECT_EQ(all.outputs["Out"][0].dims(), DDim());
  EXPECT_EQ(all.outputs["Out"][0].dtype(), DataType::FLOAT32);
  EXPECT_EQ(ToDoubles(all.outputs["Out"][0]), (std::vector<double>{3.5}));
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("reduce_mean", {{"X", {x}}}, {{"Out", 1}}, {{"dim", std::vector<int>{2}}}); },
      {"op `reduce_mean` attribute `dim`"});
}

TEST(ReduceMeanOp, GradientMakerAgainstFiniteDifferences) {
  GradCheck check;
  check.op_type = "reduce_mean";
  check.inputs = {{"X", {Random({2, 3, 4}, -1, 1, 90)}}};
  check.outputs = {{"Out", 1}};
  check.max_order = 2;
  for (const AttributeMap& a :
       {AttributeMap{{"dim", std::vector<int>{1}}},
        AttributeMap{{"dim", std::vector<int>{0, 2}}, {"keep_dim", true}},
        AttributeMap{{"reduce_all", true}}}) {
    check.attrs = a;
    CheckGradients(check);
  }
}

// ---------------------------------------------------------------- slots

// The slots PaddlePaddle 3.3.1's append_backward writes for each grad op type (printed from
// tiny static programs): every one must be declared here, so CreateOp accepts the op.
TEST(PaddleGradOps, SlotsMatchPaddlePaddle) {
  operators::RegisterAllOps();
  const std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>>
      kSlots = {
          {"relu_grad", {{"Out", "Out@GRAD"}, {"X@GRAD"}}},
          {"sigmoid_grad", {{"Out", "Out@GRAD"}, {"X@GRAD"}}},
          {"tanh_grad", {{"Out", "Out@GRAD"}, {"X@GRAD"}}},
          {"exp_grad", {{"Out", "Out@GRAD"}, {"X@GRAD"}}},
          {"square_grad", {{"X", "Out@GRAD"}, {"X@GRAD"}}},
          {"leaky_relu_grad", {{"X", "Out@GRAD"}, {"X@GRAD"}}},
          {"elementwise_add_grad", {{"X", "Y", "Out@GRAD"}, {"X@GRAD", "Y@GRAD"}}},
          {"elementwise_sub_grad", {{"X", "Y", "Out@GRAD"}, {"X@GRAD", "Y@GRAD"}}},
          {"elementwise_mul_grad", {{"X", "Y", "Out@GRAD"}, {"X@GRAD", "Y@GRAD"}}},
          {"elementwise_div_grad", {{"X", "Y", "Out", "Out@GRAD"}, {"X@GRAD", "Y@GRAD"}}},
          {"matmul_v2_grad", {{"X", "Y", "Out@GRAD"}, {"X@GRAD", "Y@GRAD"}}},
          {"mul_grad", {{"X", "Y", "Out@GRAD"}, {"X@GRAD", "Y@GRAD"}}},
          {"softmax_grad", {{"Out", "Out@GRAD"}, {"X@GRAD"}}},
          {"log_softmax_grad", {{"Out", "Out@GRAD"}, {"X@GRAD"}}},
          {"mean_grad", {{"X", "Out@GRAD"}, {"X@GRAD"}}},
          {"reduce_sum_grad", {{"X", "Out@GRAD"}, {"X@GRAD"}}},
          {"reduce_mean_grad", {{"X", "Out@GRAD"}, {"X@GRAD"}}},
          {"softmax_with_cross_entropy_grad",
           {{"Label", "Softmax", "Loss@GRAD"}, {"Logits@GRAD"}}},
          {"cross_entropy_grad", {{"X", "Label", "Y@GRAD"}, {"X@GRAD"}}},
          {"reshape2_grad", {{"XShape", "Out@GRAD"}, {"X@GRAD"}}},
          {"flatten_contiguous_range_grad", {{"XShape", "Out@GRAD"}, {"X@GRAD"}}},
          {"gelu_grad", {{"X", "Out@GRAD"}, {"X@GRAD"}}},
          {"dropout_grad", {{"Mask", "Out@GRAD"}, {"X@GRAD"}}},
          {"conv2d_grad", {{"Input", "Filter", "Output@GRAD"}, {"Input@GRAD", "Filter@GRAD"}}},
          {"pool2d_grad", {{"X", "Out", "Out@GRAD"}, {"X@GRAD"}}},
          {"batch_norm_grad",
           {{"X", "Scale", "Bias", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance",
             "ReserveSpace", "Y@GRAD"},
            {"X@GRAD", "Scale@GRAD", "Bias@GRAD"}}},
          {"layer_norm_grad",
           {{"X", "Scale", "Bias", "Mean", "Variance", "Y@GRAD"},
            {"X@GRAD", "Scale@GRAD", "Bias@GRAD"}}},
          {"lookup_table_v2_grad", {{"W", "Ids", "Out@GRAD"}, {"W@GRAD"}}},
          {"concat_grad", {{"X", "Out@GRAD", "AxisTensor"}, {"X@GRAD"}}},
          {"slice_grad",
           {{"Input", "Out@GRAD", "StartsTensor", "EndsTensor", "StartsTensorList",
             "EndsTensorList"},
            {"Input@GRAD"}}},
          {"squared_l2_norm_grad", {{"X", "Out@GRAD"}, {"X@GRAD"}}},
      };
  for (const auto& kv : kSlots) {
    SCOPED_TRACE(kv.first);
    ASSERT_TRUE(framework::OpInfoMap::Instance().Has(kv.first));
    const framework::OpSpec& spec = framework::OpInfoMap::Instance().Get(kv.first).spec;
    for (const auto& slot : kv.second.first) {
      EXPECT_NE(spec.FindInput(slot), nullptr) << "input " << slot;
    }
    for (const auto& slot : kv.second.second) {
      EXPECT_NE(spec.FindOutput(slot), nullptr) << "output " << slot;
    }
    EXPECT_TRUE(framework::KernelRegistry::Instance().HasKernels(kv.first));
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

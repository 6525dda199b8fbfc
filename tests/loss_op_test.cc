// Loss ops: softmax_with_cross_entropy, cross_entropy and cross_entropy2. Forward against
// naive double references (hard and soft labels, every axis, ignore_index, use_softmax =
// false), gradients against finite differences, the backward ops the grad makers emit, and
// error messages.
#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/op_info.h"
#include "framework/var_type_inference.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::BlockDesc;
using framework::OpDesc;
using framework::ProgramDesc;

// X viewed as [outer, n, inner] around dim `axis`.
struct View {
  int64_t outer, n, inner;
};

View ViewAt(const DDim& dims, int axis) {
  return {framework::Product(dims, 0, axis), dims[axis],
          framework::Product(dims, axis + 1, dims.size())};
}

struct SwceReference {
  std::vector<double> softmax, loss;
};

// Naive softmax_with_cross_entropy in double. `label` holds class indices (hard) or the
// distribution (soft).
SwceReference NaiveSwce(const DDim& dims, int axis, const std::vector<double>& logits,
                        const std::vector<double>& label, bool soft, bool use_softmax,
                        int64_t ignore_index) {
  const View v = ViewAt(dims, axis);
  SwceReference r;
  r.softmax.assign(logits.size(), 0);
  r.loss.assign(static_cast<size_t>(v.outer * v.inner), 0);
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t i = 0; i < v.inner; ++i) {
      auto at = [&](int64_t j) { return (o * v.n + j) * v.inner + i; };
      double sum = 0;
      for (int64_t j = 0; j < v.n; ++j) sum += std::exp(logits[at(j)]);
      for (int64_t j = 0; j < v.n; ++j) {
        r.softmax[at(j)] = use_softmax ? std::exp(logits[at(j)]) / sum : logits[at(j)];
      }
      const int64_t pos = o * v.inner + i;
      if (soft) {
        double loss = 0;
        for (int64_t j = 0; j < v.n; ++j) loss -= label[at(j)] * std::log(r.softmax[at(j)]);
        r.loss[pos] = loss;
      } else {
        const auto l = static_cast<int64_t>(label[pos]);
        r.loss[pos] = l == ignore_index ? 0.0 : -std::log(r.softmax[at(l)]);
      }
    }
  }
  return r;
}

// Random class indices in [0, n) for every position, some replaced by `ignore`.
std::vector<double> RandomLabels(int64_t count, int64_t n, unsigned seed, int64_t ignore = -1000,
                                 int every = 0) {
  std::vector<double> v = RandomValues(count, 0, static_cast<double>(n), seed);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = std::floor(v[i]);
    if (every > 0 && i % every == 1) v[i] = static_cast<double>(ignore);
  }
  return v;
}

// Rows that sum to 1 along `axis`.
std::vector<double> RandomDistribution(const DDim& dims, int axis, unsigned seed) {
  std::vector<double> v = RandomValues(dims.numel(), 0.1, 1.0, seed);
  const View w = ViewAt(dims, axis);
  for (int64_t o = 0; o < w.outer; ++o) {
    for (int64_t i = 0; i < w.inner; ++i) {
      double sum = 0;
      for (int64_t j = 0; j < w.n; ++j) sum += v[(o * w.n + j) * w.inner + i];
      for (int64_t j = 0; j < w.n; ++j) v[(o * w.n + j) * w.inner + i] /= sum;
    }
  }
  return v;
}

DDim LabelDims(const DDim& dims, int axis) {
  DDim d = dims;
  d[axis] = 1;
  return d;
}

struct AxisCase {
  DDim dims;
  int axis;  // As given to the op (may be negative).
};

const AxisCase kAxisCases[] = {
    {{4, 5}, -1}, {{3, 4}, 1}, {{2, 3, 4}, 1}, {{2, 3, 4}, -1},
    {{3, 2}, 0},  {{5}, 0},    {{1, 1}, -1},   {{2, 1, 3}, 1},
};

int Normalize(int axis, int rank) { return axis < 0 ? axis + rank : axis; }

template <typename T>
void CheckSwceForwardHard() {
  const DataType dt = platform::ToDataType<T>();
  unsigned seed = 3;
  for (const auto& c : kAxisCases) {
    SCOPED_TRACE(c.dims.ToString() + " axis " + std::to_string(c.axis));
    const int axis = Normalize(c.axis, c.dims.size());
    const auto logits = RandomValues(c.dims.numel(), -3, 3, seed++);
    const DDim ldims = LabelDims(c.dims, axis);
    const auto labels = RandomLabels(ldims.numel(), c.dims[axis], seed++, -100, 3);
    const auto ref = NaiveSwce(c.dims, axis, logits, labels, false, true, -100);
    for (bool int32_label : {false, true}) {
      const DenseTensor label =
          int32_label ? MakeTensor<int32_t>(ldims, labels) : MakeTensor<int64_t>(ldims, labels);
      const auto r = RunOp("softmax_with_cross_entropy",
                           {{"Logits", {MakeTensor<T>(c.dims, logits)}}, {"Label", {label}}},
                           {{"Softmax", 1}, {"Loss", 1}}, {{"axis", c.axis}});
      const DenseTensor& loss = r.outputs.at("Loss")[0];
      EXPECT_EQ(loss.dims(), ldims);
      EXPECT_EQ(loss.dtype(), dt);
      EXPECT_EQ(r.outputs.at("Softmax")[0].dims(), c.dims);
      ExpectNear(ToDoubles(r.outputs.at("Softmax")[0]), ref.softmax, RelTol(dt), AbsTol(dt),
                 "softmax");
      ExpectNear(ToDoubles(loss), ref.loss, RelTol(dt), AbsTol(dt), "loss");
    }
  }
}

TEST(SoftmaxWithCrossEntropy, HardLabelsFloat) { CheckSwceForwardHard<float>(); }
TEST(SoftmaxWithCrossEntropy, HardLabelsDouble) { CheckSwceForwardHard<double>(); }

TEST(SoftmaxWithCrossEntropy, DocExample) {
  const auto r = RunOp("softmax_with_cross_entropy",
                       {{"Logits", {MakeTensor<float>({1, 3}, {1, 2, 3})}},
                        {"Label", {MakeTensor<int64_t>({1, 1}, {2})}}},
                       {{"Softmax", 1}, {"Loss", 1}});
  ExpectNear(ToDoubles(r.outputs.at("Softmax")[0]), {0.09003057, 0.24472847, 0.66524096}, 1e-6, 0,
             "softmax");
  ExpectNear(ToDoubles(r.outputs.at("Loss")[0]), {0.40760596}, 1e-6, 0, "loss");
}

TEST(SoftmaxWithCrossEntropy, LargeLogitsStayFinite) {
  const auto r = RunOp("softmax_with_cross_entropy",
                       {{"Logits", {MakeTensor<float>({1, 3}, {1000, 0, -1000})}},
                        {"Label", {MakeTensor<int64_t>({1, 1}, {1})}}},
                       {{"Softmax", 1}, {"Loss", 1}});
  ExpectNear(ToDoubles(r.outputs.at("Loss")[0]), {1000}, 1e-6, 0, "loss");
  ExpectNear(ToDoubles(r.outputs.at("Softmax")[0]), {1, 0, 0}, 0, 1e-30, "softmax");
}

template <typename T>
void CheckSwceForwardSoft() {
  const DataType dt = platform::ToDataType<T>();
  unsigned seed = 40;
  for (const auto& c : kAxisCases) {
    SCOPED_TRACE(c.dims.ToString() + " axis " + std::to_string(c.axis));
    const int axis = Normalize(c.axis, c.dims.size());
    const auto logits = RandomValues(c.dims.numel(), -3, 3, seed++);
    const auto label = RandomDistribution(c.dims, axis, seed++);
    const auto ref = NaiveSwce(c.dims, axis, logits, label, true, true, -100);
    const auto r = RunOp(
        "softmax_with_cross_entropy",
        {{"Logits", {MakeTensor<T>(c.dims, logits)}}, {"Label", {MakeTensor<T>(c.dims, label)}}},
        {{"Softmax", 1}, {"Loss", 1}}, {{"axis", c.axis}, {"soft_label", true}});
    EXPECT_EQ(r.outputs.at("Loss")[0].dims(), LabelDims(c.dims, axis));
    ExpectNear(ToDoubles(r.outputs.at("Loss")[0]), ref.loss, RelTol(dt), AbsTol(dt), "loss");
  }
}

TEST(SoftmaxWithCrossEntropy, SoftLabelsFloat) { CheckSwceForwardSoft<float>(); }
TEST(SoftmaxWithCrossEntropy, SoftLabelsDouble) { CheckSwceForwardSoft<double>(); }

TEST(SoftmaxWithCrossEntropy, SoftLabelOfAnotherFloatTypeIsCast) {
  // The kernel follows Logits; a float32 soft label meets float64 logits by a cast.
  const auto r = RunOp("softmax_with_cross_entropy",
                       {{"Logits", {MakeTensor<double>({1, 2}, {0, 0})}},
                        {"Label", {MakeTensor<float>({1, 2}, {0.5, 0.5})}}},
                       {{"Softmax", 1}, {"Loss", 1}}, {{"soft_label", true}});
  EXPECT_EQ(r.outputs.at("Loss")[0].dtype(), DataType::FLOAT64);
  ExpectNear(ToDoubles(r.outputs.at("Loss")[0]), {std::log(2.0)}, 1e-7, 0, "loss");
}

TEST(SoftmaxWithCrossEntropy, WithoutSoftmax) {
  const DDim dims({3, 4});
  const auto probs = RandomDistribution(dims, 1, 5);
  const auto labels = RandomLabels(3, 4, 6);
  const auto ref = NaiveSwce(dims, 1, probs, labels, false, false, -100);
  const auto r = RunOp("softmax_with_cross_entropy",
                       {{"Logits", {MakeTensor<double>(dims, probs)}},
                        {"Label", {MakeTensor<int64_t>({3, 1}, labels)}}},
                       {{"Softmax", 1}, {"Loss", 1}}, {{"use_softmax", false}});
  ExpectNear(ToDoubles(r.outputs.at("Softmax")[0]), probs, 0, 0, "softmax is Logits");
  ExpectNear(ToDoubles(r.outputs.at("Loss")[0]), ref.loss, 1e-12, 1e-12, "loss");
  // A probability 0 gives 1e20, not inf.
  const auto zero = RunOp("softmax_with_cross_entropy",
                          {{"Logits", {MakeTensor<float>({1, 2}, {0, 1})}},
                           {"Label", {MakeTensor<int64_t>({1, 1}, {0})}}},
                          {{"Softmax", 1}, {"Loss", 1}}, {{"use_softmax", false}});
  ExpectNear(ToDoubles(zero.outputs.at("Loss")[0]), {1e20}, 1e-6, 0, "loss of p = 0");
}

// Runs softmax_with_cross_entropy_grad directly.
std::vector<double> SwceGrad(const DenseTensor& label, const DenseTensor& softmax,
                             const DenseTensor& dloss, const AttributeMap& attrs) {
  const auto r = RunOp("softmax_with_cross_entropy_grad",
                       {{"Label", {label}}, {"Softmax", {softmax}}, {"Loss@GRAD", {dloss}}},
                       {{"Logits@GRAD", 1}}, attrs);
  return ToDoubles(r.outputs.at("Logits@GRAD")[0]);
}

TEST(SoftmaxWithCrossEntropy, IgnoreIndexGivesZeroLossAndGradient) {
  const DDim dims({4, 3});
  const auto logits = RandomValues(12, -2, 2, 9);
  const std::vector<double> labels = {2, 7, 0, 7};  // 7 is ignored.
  const AttributeMap attrs = {{"ignore_index", 7}};
  const auto fwd = RunOp("softmax_with_cross_entropy",
                         {{"Logits", {MakeTensor<double>(dims, logits)}},
                          {"Label", {MakeTensor<int64_t>({4, 1}, labels)}}},
                         {{"Softmax", 1}, {"Loss", 1}}, attrs);
  const auto loss = ToDoubles(fwd.outputs.at("Loss")[0]);
  EXPECT_EQ(loss[1], 0.0);
  EXPECT_EQ(loss[3], 0.0);
  EXPECT_GT(loss[0], 0.0);
  const auto dx = SwceGrad(MakeTensor<int64_t>({4, 1}, labels), fwd.outputs.at("Softmax")[0],
                           MakeTensor<double>({4, 1}, {1, 1, 1, 1}), attrs);
  const auto sm = ToDoubles(fwd.outputs.at("Softmax")[0]);
  for (int j = 0; j < 3; ++j) {
    EXPECT_EQ(dx[3 + j], 0.0) << "ignored row 1";
    EXPECT_EQ(dx[9 + j], 0.0) << "ignored row 3";
    EXPECT_NEAR(dx[j], sm[j] - (j == 2 ? 1 : 0), 1e-15) << "row 0";
  }
  // The default ignore_index -100 works the same way.
  const auto fwd2 = RunOp("softmax_with_cross_entropy",
                          {{"Logits", {MakeTensor<double>({2, 3}, {1, 2, 3, 4, 5, 6})}},
                           {"Label", {MakeTensor<int64_t>({2, 1}, {-100, 1})}}},
                          {{"Softmax", 1}, {"Loss", 1}});
  EXPECT_EQ(ToDoubles(fwd2.outputs.at("Loss")[0])[0], 0.0);
}

TEST(SoftmaxWithCrossEntropyGrad, HardLabelsMatchFiniteDifferences) {
  unsigned seed = 60;
  for (const auto& c : kAxisCases) {
    SCOPED_TRACE(c.dims.ToString() + " axis " + std::to_string(c.axis));
    const int axis = Normalize(c.axis, c.dims.size());
    const DDim ldims = LabelDims(c.dims, axis);
    GradCheck check;
    check.op_type = "softmax_with_cross_entropy";
    check.inputs = {
        {"Logits", {MakeTensor<double>(c.dims, RandomValues(c.dims.numel(), -2, 2, seed++))}},
        {"Label",
         {MakeTensor<int64_t>(ldims, RandomLabels(ldims.numel(), c.dims[axis], seed++, -100, 4))}}};
    check.outputs = {{"Softmax", 1}, {"Loss", 1}};
    check.loss_outputs = {"Loss"};
    check.wrt = {"Logits"};
    check.attrs = {{"axis", c.axis}};
    CheckGradients(check);
  }
}

TEST(SoftmaxWithCrossEntropyGrad, SoftLabelsMatchFiniteDifferences) {
  unsigned seed = 80;
  for (const auto& c : kAxisCases) {
    SCOPED_TRACE(c.dims.ToString() + " axis " + std::to_string(c.axis));
    const int axis = Normalize(c.axis, c.dims.size());
    for (bool normalized : {true, false}) {
      // Labels need not sum to 1: the gradient is exact either way.
      const auto label = normalized ? RandomDistribution(c.dims, axis, seed++)
                                    : RandomValues(c.dims.numel(), 0, 1, seed++);
      GradCheck check;
      check.op_type = "softmax_with_cross_entropy";
      check.inputs = {
          {"Logits", {MakeTensor<double>(c.dims, RandomValues(c.dims.numel(), -2, 2, seed++))}},
          {"Label", {MakeTensor<double>(c.dims, label)}}};
      check.outputs = {{"Softmax", 1}, {"Loss", 1}};
      check.loss_outputs = {"Loss"};
      check.wrt = {"Logits"};
      check.attrs = {{"axis", c.axis}, {"soft_label", true}};
      CheckGradients(check);
    }
  }
}

TEST(SoftmaxWithCrossEntropyGrad, WithoutSoftmaxMatchesFiniteDifferences) {
  const DDim dims({3, 4});
  for (bool soft : {false, true}) {
    GradCheck check;
    check.op_type = "softmax_with_cross_entropy";
    check.inputs = {{"Logits", {MakeTensor<double>(dims, RandomValues(12, 0.2, 1.0, 91))}},
                    {"Label",
                     {soft ? MakeTensor<double>(dims, RandomDistribution(dims, 1, 92))
                           : MakeTensor<int64_t>({3, 1}, {0, 3, 2})}}};
    check.outputs = {{"Softmax", 1}, {"Loss", 1}};
    check.loss_outputs = {"Loss"};
    check.wrt = {"Logits"};
    check.attrs = {{"use_softmax", false}, {"soft_label", soft}};
    CheckGradients(check);
  }
}

// A program x -> op -> loss with the backward appended; returns the first op of `type` in
// the backward part.
const OpDesc* FindBackwardOp(const ProgramDesc& program, size_t first, const std::string& type) {
  const BlockDesc& b = program.Block(0);
  for (size_t i = first; i < b.OpSize(); ++i) {
    if (b.Op(i)->Type() == type) return b.Op(i);
  }
  return nullptr;
}

void AddOp(BlockDesc* b, const std::string& type, const framework::VariableNameMap& in,
           const framework::VariableNameMap& out, const AttributeMap& attrs = {}) {
  OpDesc* op = b->AppendOp();
  op->SetType(type);
  for (const auto& kv : in) op->SetInput(kv.first, kv.second);
  for (const auto& kv : out) op->SetOutput(kv.first, kv.second);
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::InferVarTypeAndShape(op, b);
}

framework::VarDesc* Declare(BlockDesc* b, const std::string& name, DataType dtype,
                            const std::vector<int64_t>& shape) {
  framework::VarDesc* v = b->Var(name);
  v->SetDataType(dtype);
  v->SetShape(shape);
  return v;
}

TEST(SoftmaxWithCrossEntropyGrad, GradOpReadsLabelSoftmaxAndLossGradOnly) {
  operators::RegisterAllOps();
  ProgramDesc program;
  BlockDesc& b = program.Block(0);
  Declare(&b, "logits", DataType::FLOAT32, {-1, 5});
  Declare(&b, "label", DataType::INT64, {-1, 1});
  AddOp(&b, "softmax_with_cross_entropy", {{"Logits", {"logits"}}, {"Label", {"label"}}},
        {{"Softmax", {"sm"}}, {"Loss", {"loss"}}}, {{"ignore_index", 3}});
  // Build-time inference: dtypes follow Logits, not the int64 Label.
  EXPECT_EQ(b.FindVar("loss")->GetDataType(), DataType::FLOAT32);
  EXPECT_EQ(b.FindVar("sm")->GetDataType(), DataType::FLOAT32);
  EXPECT_EQ(b.FindVar("loss")->GetShape(), (std::vector<int64_t>{-1, 1}));
  const size_t forward_ops = b.OpSize();
  const auto result = framework::AppendBackward(&program, "loss");
  ASSERT_EQ(result.grad_of.count("logits"), 1u);
  EXPECT_EQ(result.grad_of.count("label"), 0u);
  const OpDesc* g = FindBackwardOp(program, forward_ops, "softmax_with_cross_entropy_grad");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->Inputs(),
            (framework::VariableNameMap{
                {"Label", {"label"}}, {"Softmax", {"sm"}}, {"Loss@GRAD", {"loss@GRAD"}}}));
  EXPECT_EQ(g->Outputs(), (framework::VariableNameMap{{"Logits@GRAD", {"logits@GRAD"}}}));
  EXPECT_EQ(g->Attr<int>("ignore_index"), 3);
  EXPECT_EQ(b.FindVar("logits@GRAD")->GetDataType(), DataType::FLOAT32);
  EXPECT_EQ(b.FindVar("logits@GRAD")->GetShape(), (std::vector<int64_t>{-1, 5}));
}

TEST(SoftmaxWithCrossEntropy, IntegerLabelIsNotCast) {
  operators::RegisterAllOps();
  auto op = framework::OpRegistry::CreateOp("softmax_with_cross_entropy",
                                            {{"Logits", {"l"}}, {"Label", {"y"}}},
                                            {{"Softmax", {"s"}}, {"Loss", {"o"}}}, {});
  const auto* k = dynamic_cast<const framework::OperatorWithKernel*>(op.get());
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(k->CastsInput("Label", DataType::INT64, DataType::FLOAT32));
  EXPECT_FALSE(k->CastsInput("Label", DataType::INT32, DataType::FLOAT64));
}

TEST(SoftmaxWithCrossEntropy, OpVersionIsOne) {
  operators::RegisterAllOps();
  EXPECT_EQ(framework::OpInfoMap::Instance().Get("softmax_with_cross_entropy").version(), 1);
}

template <typename ErrorT>
void ExpectError(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected an error";
  } catch (const ErrorT& e) {
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

TEST(SoftmaxWithCrossEntropy, Errors) {
  const DenseTensor logits = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto run = [&](const DenseTensor& label, const AttributeMap& attrs) {
    return [=] {
      RunOp("softmax_with_cross_entropy", {{"Logits", {logits}}, {"Label", {label}}},
            {{"Softmax", 1}, {"Loss", 1}}, attrs);
    };
  };
  ExpectError<platform::InvalidArgumentError>(
      run(MakeTensor<int64_t>({2, 1}, {0, 3}), {}),
      {"softmax_with_cross_entropy", "`Label`", "[0, 3)", "received 3"});
  ExpectError<platform::InvalidArgumentError>(run(MakeTensor<int64_t>({2, 1}, {0, -1}), {}),
                                              {"`Label`", "received -1"});
  ExpectError<platform::InvalidArgumentError>(
      run(MakeTensor<int64_t>({2, 2}, {0, 1, 1, 0}), {}),
      {"softmax_with_cross_entropy", "`Label`", "expected shape [2, 1]"});
  ExpectError<platform::InvalidArgumentError>(run(MakeTensor<int64_t>({2}, {0, 1}), {}),
                                              {"`Label`", "expected rank 2"});
  ExpectError<platform::InvalidArgumentError>(
      run(MakeTensor<int64_t>({2, 1}, {0, 1}), {{"axis", 2}}),
      {"softmax_with_cross_entropy", "attribute `axis`", "received 2"});
  ExpectError<platform::InvalidArgumentError>(
      run(MakeTensor<int64_t>({2, 3}, {0, 1, 0, 0, 1, 0}), {{"soft_label", true}}),
      {"`Label`", "soft_label"});
  ExpectError<platform::InvalidArgumentError>(run(MakeTensor<float>({2, 1}, {0, 1}), {}),
                                              {"`Label`", "int64 or int32"});
}

// ---- cross_entropy ----

std::vector<double> NaiveCrossEntropy(const DDim& x_dims, const std::vector<double>& x,
                                      const std::vector<double>& label, bool soft, int64_t ignore) {
  const int64_t d = x_dims[x_dims.size() - 1];
  const int64_t rows = x_dims.numel() / d;
  std::vector<double> y(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    if (soft) {
      double acc = 0;
      for (int64_t j = 0; j < d; ++j) acc -= label[r * d + j] * std::log(x[r * d + j]);
      y[r] = acc;
    } else {
      const auto l = static_cast<int64_t>(label[r]);
      y[r] = l == ignore ? 0.0 : -std::log(x[r * d + l]);
    }
  }
  return y;
}

template <typename T>
void CheckCrossEntropyForward() {
  const DataType dt = platform::ToDataType<T>();
  unsigned seed = 100;
  for (const DDim& dims : {DDim({4, 3}), DDim({2, 3, 5}), DDim({1, 1}), DDim({6})}) {
    SCOPED_TRACE(dims.ToString());
    const int rank = dims.size();
    const auto x = RandomDistribution(dims, rank - 1, seed++);
    const DDim ldims = LabelDims(dims, rank - 1);
    const auto hard = RandomLabels(ldims.numel(), dims[rank - 1], seed++, -100, 3);
    auto r = RunOp("cross_entropy",
                   {{"X", {MakeTensor<T>(dims, x)}}, {"Label", {MakeTensor<int64_t>(ldims, hard)}}},
                   {{"Y", 1}});
    EXPECT_EQ(r.outputs.at("Y")[0].dims(), ldims);
    ExpectNear(ToDoubles(r.outputs.at("Y")[0]), NaiveCrossEntropy(dims, x, hard, false, -100),
               RelTol(dt), AbsTol(dt), "hard");
    const auto soft = RandomDistribution(dims, rank - 1, seed++);
    r = RunOp("cross_entropy",
              {{"X", {MakeTensor<T>(dims, x)}}, {"Label", {MakeTensor<T>(dims, soft)}}}, {{"Y", 1}},
              {{"soft_label", true}});
    ExpectNear(ToDoubles(r.outputs.at("Y")[0]), NaiveCrossEntropy(dims, x, soft, true, -100),
               RelTol(dt), AbsTol(dt), "soft");
    // cross_entropy2: the same Y, MatchX = X at the label.
    r = RunOp("cross_entropy2",
              {{"X", {MakeTensor<T>(dims, x)}}, {"Label", {MakeTensor<int32_t>(ldims, hard)}}},
              {{"Y", 1}, {"XShape", 1}, {"MatchX", 1}});
    ExpectNear(ToDoubles(r.outputs.at("Y")[0]), NaiveCrossEntropy(dims, x, hard, false, -100),
               RelTol(dt), AbsTol(dt), "cross_entropy2");
    const auto match = ToDoubles(r.outputs.at("MatchX")[0]);
    const int64_t d = dims[rank - 1];
    for (size_t i = 0; i < match.size(); ++i) {
      const double want = hard[i] == -100 ? 0.0 : x[i * d + static_cast<int64_t>(hard[i])];
      EXPECT_NEAR(match[i], want, AbsTol(dt)) << "MatchX " << i;
    }
  }
}

TEST(CrossEntropy, ForwardFloat) { CheckCrossEntropyForward<float>(); }
TEST(CrossEntropy, ForwardDouble) { CheckCrossEntropyForward<double>(); }

TEST(CrossEntropy, LabelWithoutTrailingOneAndZeroProbability) {
  const auto r = RunOp("cross_entropy",
                       {{"X", {MakeTensor<float>({2, 2}, {0.2, 0.8, 0, 1})}},
                        {"Label", {MakeTensor<int64_t>({2}, {1, 0})}}},
                       {{"Y", 1}});
  EXPECT_EQ(r.outputs.at("Y")[0].dims(), DDim({2, 1}));
  ExpectNear(ToDoubles(r.outputs.at("Y")[0]), {-std::log(0.8), 1e20}, 1e-6, 0, "y");
}

TEST(CrossEntropyGrad, MatchesFiniteDifferences) {
  const DDim dims({3, 4});
  for (bool soft : {false, true}) {
    GradCheck check;
    check.op_type = "cross_entropy";
    check.inputs = {{"X", {MakeTensor<double>(dims, RandomValues(12, 0.2, 1.0, 111))}},
                    {"Label",
                     {soft ? MakeTensor<double>(dims, RandomValues(12, 0, 1, 112))
                           : MakeTensor<int64_t>({3, 1}, {1, -100, 3})}}};
    check.outputs = {{"Y", 1}};
    check.wrt = {"X"};
    check.attrs = {{"soft_label", soft}};
    CheckGradients(check);
  }
  GradCheck check2;
  check2.op_type = "cross_entropy2";
  check2.inputs = {{"X", {MakeTensor<double>({2, 3, 4}, RandomValues(24, 0.2, 1.0, 113))}},
                   {"Label", {MakeTensor<int64_t>({2, 3, 1}, {0, 3, 5, 1, 2, 2})}}};
  check2.outputs = {{"Y", 1}, {"XShape", 1}, {"MatchX", 1}};
  check2.loss_outputs = {"Y"};
  check2.wrt = {"X"};
  check2.attrs = {{"ignore_index", 5}};
  CheckGradients(check2);
}

TEST(CrossEntropyGrad, GradOpsReadWhatTheFormulaNeeds) {
  operators::RegisterAllOps();
  ProgramDesc program;
  BlockDesc& b = program.Block(0);
  Declare(&b, "x", DataType::FLOAT64, {4, 3});
  Declare(&b, "label", DataType::INT64, {4, 1});
  AddOp(&b, "cross_entropy2", {{"X", {"x"}}, {"Label", {"label"}}},
        {{"Y", {"y"}}, {"XShape", {"xs"}}, {"MatchX", {"m"}}});
  EXPECT_EQ(b.FindVar("xs")->GetShape(), (std::vector<int64_t>{0, 4, 3}));
  const size_t forward_ops = b.OpSize();
  framework::AppendBackward(&program, "y");
  const OpDesc* g = FindBackwardOp(program, forward_ops, "cross_entropy_grad2");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(
      g->Inputs(),
      (framework::VariableNameMap{
          {"MatchX", {"m"}}, {"Label", {"label"}}, {"XShape", {"xs"}}, {"Y@GRAD", {"y@GRAD"}}}));
  EXPECT_EQ(b.FindVar("x@GRAD")->GetShape(), (std::vector<int64_t>{4, 3}));
}

TEST(CrossEntropy, Errors) {
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("cross_entropy",
              {{"X", {MakeTensor<float>({2, 3}, {1, 1, 1, 1, 1, 1})}},
               {"Label", {MakeTensor<int64_t>({2, 1}, {0, 5})}}},
              {{"Y", 1}});
      },
      {"cross_entropy", "`Label`", "received 5"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("cross_entropy",
              {{"X", {MakeTensor<float>({2, 3}, {1, 1, 1, 1, 1, 1})}},
               {"Label", {MakeTensor<float>({2, 2}, {0, 1, 1, 0})}}},
              {{"Y", 1}}, {{"soft_label", true}});
      },
      {"cross_entropy", "`Label`", "expected shape [2, 3]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// log_softmax: forward against a naive double reference over shapes x axes x dtypes, large
// inputs, first and second order gradients against finite differences, the fused grad op
// log_softmax_grad against its formula, declarations and errors.
#include <cmath>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/op_info.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct LogSoftmaxCase {
  DDim x;
  int axis;
};

const LogSoftmaxCase kCases[] = {
    {{2, 5}, -1},     {{2, 5}, 0},      {{3, 4, 5}, 1},     {{3, 4, 5}, -2}, {{3, 4, 5}, 0},
    {{3, 4, 5}, 2},   {{3, 4, 5}, -3},  {{1}, 0},           {{}, -1},        {{}, 0},
    {{4, 1}, 1},      {{4, 1}, -1},     {{1, 7, 1}, 1},     {{0, 3}, -1},    {{3, 0}, 0},
    {{2, 300, 3}, 1}, {{2, 3, 600}, 1}, {{2, 3, 4, 5}, -3},
};

// [outer, n, inner] around the case's axis (a 0-D X is [1, 1, 1]).
void Split(const LogSoftmaxCase& c, int64_t* outer, int64_t* n, int64_t* inner) {
  const int rank = c.x.size();
  *outer = *n = *inner = 1;
  if (rank == 0) return;
  const int axis = c.axis < 0 ? c.axis + rank : c.axis;
  for (int i = 0; i < axis; ++i) *outer *= c.x[i];
  for (int i = axis + 1; i < rank; ++i) *inner *= c.x[i];
  *n = c.x[axis];
}

// log(exp(x_i) / sum_j exp(x_j)) straight from the definition, in long double.
std::vector<double> Reference(const LogSoftmaxCase& c, const std::vector<double>& x) {
  int64_t outer, n, inner;
  Split(c, &outer, &n, &inner);
  std::vector<double> out(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < inner; ++k) {
      long double sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        sum += std::exp(static_cast<long double>(x[(o * n + j) * inner + k]));
      }
      for (int64_t j = 0; j < n; ++j) {
        const int64_t i = (o * n + j) * inner + k;
        out[i] = static_cast<double>(std::log(std::exp(static_cast<long double>(x[i])) / sum));
      }
    }
  }
  return out;
}

template <typename T>
void CheckCase(const LogSoftmaxCase& c) {
  const std::string what = "log_softmax " + c.x.ToString() + " axis=" + std::to_string(c.axis);
  std::vector<double> x;
  for (double v : RandomValues(c.x.numel(), -5, 5, 41)) x.push_back(static_cast<T>(v));
  auto r = RunOp("log_softmax", {{"X", {MakeTensor<T>(c.x, x)}}}, {{"Out", 1}}, {{"axis", c.axis}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), c.x) << what;
  EXPECT_EQ(out.dtype(), platform::ToDataType<T>()) << what;
  const DataType t = platform::ToDataType<T>();
  ExpectNear(ToDoubles(out), Reference(c, x), RelTol(t), AbsTol(t), what);
}

TEST(LogSoftmaxOp, ForwardMatchesReference) {
  for (const auto& c : kCases) {
    CheckCase<float>(c);
    CheckCase<double>(c);
  }
}

TEST(LogSoftmaxOp, DefaultAxisIsLast) {
  auto r = RunOp("log_softmax", {{"X", {MakeTensor<double>({1, 3}, {1, 2, 3})}}}, {{"Out", 1}});
  ExpectNear(ToDoubles(r.outputs["Out"][0]),
             {-2.4076059644443806, -1.4076059644443806, -0.40760596444438063}, 1e-12, 1e-15,
             "log_softmax");
}

// Large shifts and entries far below the maximum, where log(softmax(x)) would take the log
// of an underflowed 0.
TEST(LogSoftmaxOp, LargeInputsStayFinite) {
  for (double shift : {1000.0, -1000.0}) {
    for (DataType t : {DataType::FLOAT32, DataType::FLOAT64}) {
      const std::vector<double> xv = {shift, shift + 1, shift + 2, shift, shift - 200, shift};
      const DenseTensor x =
          t == DataType::FLOAT32 ? MakeTensor<float>({2, 3}, xv) : MakeTensor<double>({2, 3}, xv);
      auto r = RunOp("log_softmax", {{"X", {x}}}, {{"Out", 1}});
      const double l2 = std::log(2.0);
      ExpectNear(
          ToDoubles(r.outputs["Out"][0]),
          {-2.4076059644443806, -1.4076059644443806, -0.40760596444438063, -l2, -200 - l2, -l2},
          1e-6, 1e-6, "shift " + std::to_string(shift));
    }
  }
}

TEST(LogSoftmaxOp, InputIsLeftUnchanged) {
  const std::vector<double> xv = {1, 2, 3, 4};
  DenseTensor x = MakeTensor<double>({2, 2}, xv);
  RunOp("log_softmax", {{"X", {x}}}, {{"Out", 1}}, {{"axis", 0}});
  ExpectNear(ToDoubles(x), xv, 0, 0, "X");
}

// ---------------------------------------------------------------- gradients

TEST(LogSoftmaxGrad, FirstAndSecondOrderMatchFiniteDifferences) {
  const LogSoftmaxCase cases[] = {{{5}, -1},   {{2, 3}, -1},   {{2, 3}, 0},
                                  {{3, 4}, 1}, {{2, 2, 3}, 1}, {{2, 3, 2}, -3},
                                  {{4, 1}, 1}, {{1, 3}, 0},    {{}, -1}};
  unsigned seed = 5;
  for (const auto& c : cases) {
    SCOPED_TRACE("log_softmax " + c.x.ToString() + " axis " + std::to_string(c.axis));
    GradCheck check;
    check.op_type = "log_softmax";
    check.inputs = {{"X", {MakeTensor<double>(c.x, RandomValues(c.x.numel(), -2, 2, seed++))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"axis", c.axis}};
    check.max_order = 2;
    CheckGradients(check);
  }
}

TEST(LogSoftmaxGrad, LargeInputsStayAccurate) {
  GradCheck check;
  check.op_type = "log_softmax";
  check.inputs = {{"X", {MakeTensor<double>({2, 3}, {100, 101, 99, -50, -52, -51})}}};
  check.outputs = {{"Out", 1}};
  check.max_order = 2;
  CheckGradients(check);
}

// The backward ops the grad maker emits read Out and Out@GRAD, never X.
TEST(LogSoftmaxGrad, BackwardReadsOutNotX) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  b.Var("x")->SetDataType(DataType::FLOAT64);
  b.Var("x")->SetShape({2, 3});
  auto add_op = [&b](const std::string& type, const framework::VariableNameMap& in,
                     const framework::VariableNameMap& out, const AttributeMap& attrs) {
    framework::OpDesc* op = b.AppendOp();
    op->SetType(type);
    for (const auto& kv : in) op->SetInput(kv.first, kv.second);
    for (const auto& kv : out) op->SetOutput(kv.first, kv.second);
    for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
    framework::InferVarTypeAndShape(op, &b);
  };
  add_op("log_softmax", {{"X", {"x"}}}, {{"Out", {"y"}}}, {{"axis", 1}});
  add_op("reduce_sum", {{"X", {"y"}}}, {{"Out", {"loss"}}},
         {{"reduce_all", true}, {"dim", std::vector<int>{}}});
  const size_t forward_ops = b.OpSize();
  const auto result = framework::AppendBackward(&program, "loss");
  ASSERT_EQ(result.grad_of.count("x"), 1u);
  for (size_t i = forward_ops; i < b.OpSize(); ++i) {
    for (const auto& in : b.Op(i)->InputArgumentNames()) {
      EXPECT_NE(in, "x") << "backward op #" << i << " `" << b.Op(i)->Type() << "` reads X";
    }
  }
  // d sum(log_softmax(x)) / dx_i = 1 - n * softmax(x)_i along the axis.
  const std::vector<double> xs = {0.5, -1.0, 2.0, 0.0, 1.0, -3.0};
  framework::Scope scope;
  const auto fetched =
      framework::Executor(platform::CPUPlace())
          .Run(program, &scope, {{"x", MakeTensor<double>({2, 3}, xs)}}, {result.grad_of.at("x")});
  std::vector<double> expected(6);
  for (int r = 0; r < 2; ++r) {
    double z = 0;
    for (int j = 0; j < 3; ++j) z += std::exp(xs[r * 3 + j]);
    for (int j = 0; j < 3; ++j) expected[r * 3 + j] = 1 - 3 * std::exp(xs[r * 3 + j]) / z;
  }
  ExpectNear(ToDoubles(fetched[0]), expected, 1e-12, 1e-14, "dloss/dx");
}

// PaddlePaddle's fused op: dX = dOut - exp(Out) * sum(dOut) along the axis.
template <typename T>
void CheckFusedGrad(const LogSoftmaxCase& c) {
  const std::string what = "log_softmax_grad " + c.x.ToString() + " axis=" + std::to_string(c.axis);
  std::vector<double> x, dout;
  for (double v : RandomValues(c.x.numel(), -3, 3, 43)) x.push_back(static_cast<T>(v));
  for (double v : RandomValues(c.x.numel(), -1, 1, 44)) dout.push_back(static_cast<T>(v));
  const DenseTensor out =
      RunOp("log_softmax", {{"X", {MakeTensor<T>(c.x, x)}}}, {{"Out", 1}}, {{"axis", c.axis}})
          .outputs.at("Out")[0];
  const std::vector<double> o = ToDoubles(out);
  int64_t outer, n, inner;
  Split(c, &outer, &n, &inner);
  std::vector<double> want(o.size());
  for (int64_t p = 0; p < outer; ++p) {
    for (int64_t k = 0; k < inner; ++k) {
      double sum = 0;
      for (int64_t j = 0; j < n; ++j) sum += dout[(p * n + j) * inner + k];
      for (int64_t j = 0; j < n; ++j) {
        const int64_t i = (p * n + j) * inner + k;
        want[i] = dout[i] - std::exp(o[i]) * sum;
      }
    }
  }
  auto r = RunOp("log_softmax_grad", {{"Out", {out}}, {"Out@GRAD", {MakeTensor<T>(c.x, dout)}}},
                 {{"X@GRAD", 1}}, {{"axis", c.axis}});
  const DenseTensor& dx = r.outputs.at("X@GRAD")[0];
  EXPECT_EQ(dx.dims(), c.x) << what;
  const DataType t = platform::ToDataType<T>();
  ExpectNear(ToDoubles(dx), want, RelTol(t), t == DataType::FLOAT64 ? 1e-12 : 1e-5, what);
}

TEST(LogSoftmaxGrad, FusedGradOpMatchesFormula) {
  for (const auto& c : kCases) {
    CheckFusedGrad<float>(c);
    CheckFusedGrad<double>(c);
  }
}

// ---------------------------------------------------------------- declarations and errors

TEST(LogSoftmaxOp, Declarations) {
  operators::RegisterAllOps();
  const auto& spec = framework::OpInfoMap::Instance().Get("log_softmax").spec;
  EXPECT_EQ(std::get<int>(spec.FindAttr("axis")->default_value), -1);
  EXPECT_FALSE(spec.FindAttr("axis")->extra);
  ASSERT_NE(spec.FindAttr("use_mkldnn"), nullptr);
  EXPECT_TRUE(spec.FindAttr("use_mkldnn")->extra);
  EXPECT_NE(spec.comment.find("$$Out_i"), std::string::npos);
  const auto& grad = framework::OpInfoMap::Instance().Get("log_softmax_grad").spec;
  for (const char* slot : {"Out", "Out@GRAD"}) {
    EXPECT_NE(grad.FindInput(slot), nullptr) << slot;
  }
  EXPECT_EQ(grad.FindInput("X"), nullptr);
  EXPECT_NE(grad.FindOutput("X@GRAD"), nullptr);
}

TEST(LogSoftmaxOp, BuildTimeShape) {
  operators::RegisterAllOps();
  framework::ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  b.Var("x")->SetShape({-1, 10});
  b.Var("x")->SetDataType(DataType::FLOAT32);
  framework::OpDesc* op = b.AppendOp();
  op->SetType("log_softmax");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"out"});
  op->SetAttr("axis", 1);
  framework::InferVarTypeAndShape(op, &b);
  EXPECT_EQ(b.FindVar("out")->GetShape(), (std::vector<int64_t>{-1, 10}));
  EXPECT_EQ(b.FindVar("out")->GetDataType(), DataType::FLOAT32);
}

TEST(LogSoftmaxOp, AxisOutOfRangeNamesOpAndAttribute) {
  const DenseTensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  for (int axis : {2, -3}) {
    ExpectError<platform::InvalidArgumentError>(
        [&] {
          RunOp("log_softmax", {{"X", {x}}}, {{"Out", 1}}, {{"axis", axis}});
        },
        {"op `log_softmax` attribute `axis`", "[-2, 2)", "received " + std::to_string(axis)});
    ExpectError<platform::InvalidArgumentError>(
        [&] {
          RunOp("log_softmax_grad", {{"Out", {x}}, {"Out@GRAD", {x}}}, {{"X@GRAD", 1}},
                {{"axis", axis}});
        },
        {"op `log_softmax_grad` attribute `axis`", "received " + std::to_string(axis)});
  }
}

TEST(LogSoftmaxOp, BuildTimeAxisOutOfRangeIsAnError) {
  operators::RegisterAllOps();
  framework::ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  b.Var("x")->SetShape({4, 10});
  b.Var("x")->SetDataType(DataType::FLOAT32);
  framework::OpDesc* op = b.AppendOp();
  op->SetType("log_softmax");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"out"});
  op->SetAttr("axis", 5);
  ExpectError<platform::InvalidArgumentError>([&] { framework::InferVarTypeAndShape(op, &b); },
                                              {"op `log_softmax` attribute `axis`", "received 5"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// accuracy, top_k, arg_max and auc: forward against naive references (auc: the fraction of
// positive-negative pairs ordered right, counted pair by pair), ties and NaN, optional tensor
// inputs, auc's sliding window and padding batches, output dtypes at build and run time,
// top_k's gradient, op versions and error messages.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "framework/op_info.h"
#include "framework/var_type_inference.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

template <typename ErrorT>
void ExpectError(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected an error";
  } catch (const ErrorT& e) {
    for (const auto& p : parts) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
  }
}

std::vector<int64_t> Ints(const DenseTensor& t) {
  std::vector<int64_t> v;
  for (double d : ToDoubles(t)) v.push_back(static_cast<int64_t>(d));
  return v;
}

// ---- accuracy ----

TEST(Accuracy, DocExample) {
  const auto r = RunOp("accuracy",
                       {{"Out", {MakeTensor<float>({2, 2}, {0.9, 0.1, 0.8, 0.2})}},
                        {"Indices", {MakeTensor<int64_t>({2, 2}, {2, 0, 1, 3})}},
                        {"Label", {MakeTensor<int64_t>({2, 1}, {0, 2})}}},
                       {{"Accuracy", 1}, {"Correct", 1}, {"Total", 1}});
  const DenseTensor& acc = r.outputs.at("Accuracy")[0];
  EXPECT_EQ(acc.dtype(), DataType::FLOAT32);
  EXPECT_EQ(acc.dims(), DDim());  // 0-D, as in PaddlePaddle 2.5 and later.
  EXPECT_EQ(r.outputs.at("Correct")[0].dtype(), DataType::INT32);
  EXPECT_EQ(r.outputs.at("Total")[0].dtype(), DataType::INT32);
  ExpectNear(ToDoubles(acc), {0.5}, 0, 0, "accuracy");
  EXPECT_EQ(Ints(r.outputs.at("Correct")[0]), (std::vector<int64_t>{1}));
  EXPECT_EQ(Ints(r.outputs.at("Total")[0]), (std::vector<int64_t>{2}));
}

template <typename T>
void CheckAccuracyRandom() {
  const int64_t n = 50, classes = 6, k = 3;
  const auto scores = RandomValues(n * classes, 0, 1, 11);
  const auto labels = RandomValues(n, 0, classes, 12);
  std::vector<double> indices, values, label_ints;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> order(classes);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return scores[i * classes + a] > scores[i * classes + b];
    });
    for (int64_t j = 0; j < k; ++j) {
      indices.push_back(static_cast<double>(order[j]));
      values.push_back(scores[i * classes + order[j]]);
    }
    label_ints.push_back(std::floor(labels[i]));
  }
  int64_t correct = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      if (indices[i * k + j] == label_ints[i]) {
        ++correct;
        break;
      }
    }
  }
  const auto r = RunOp("accuracy",
                       {{"Out", {MakeTensor<T>({n, k}, values)}},
                        {"Indices", {MakeTensor<int64_t>({n, k}, indices)}},
                        {"Label", {MakeTensor<int32_t>({n, 1}, label_ints)}}},
                       {{"Accuracy", 1}, {"Correct", 1}, {"Total", 1}});
  EXPECT_EQ(Ints(r.outputs.at("Correct")[0]), (std::vector<int64_t>{correct}));
  EXPECT_EQ(Ints(r.outputs.at("Total")[0]), (std::vector<int64_t>{n}));
  ExpectNear(ToDoubles(r.outputs.at("Accuracy")[0]),
             {static_cast<double>(static_cast<float>(correct) / static_cast<float>(n))}, 0, 0,
             "accuracy");
}

TEST(Accuracy, RandomFloat) { CheckAccuracyRandom<float>(); }
TEST(Accuracy, RandomDouble) { CheckAccuracyRandom<double>(); }

TEST(Accuracy, EmptyBatchGivesZero) {
  const auto r = RunOp("accuracy",
                       {{"Out", {MakeTensor<float>({0, 2}, {})}},
                        {"Indices", {MakeTensor<int64_t>({0, 2}, {})}},
                        {"Label", {MakeTensor<int64_t>({0, 1}, {})}}},
                       {{"Accuracy", 1}, {"Correct", 1}, {"Total", 1}});
  ExpectNear(ToDoubles(r.outputs.at("Accuracy")[0]), {0}, 0, 0, "accuracy");
  EXPECT_EQ(Ints(r.outputs.at("Total")[0]), (std::vector<int64_t>{0}));
}

TEST(Accuracy, BuildTimeTypesAndErrors) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  for (const auto& [name, dtype] : std::vector<std::pair<std::string, DataType>>{
           {"out", DataType::FLOAT64}, {"idx", DataType::INT64}, {"label", DataType::INT64}}) {
    framework::VarDesc* v = b.Var(name);
    v->SetDataType(dtype);
    v->SetShape(name == "label" ? std::vector<int64_t>{-1, 1} : std::vector<int64_t>{-1, 5});
  }
  framework::OpDesc* op = b.AppendOp();
  op->SetType("accuracy");
  op->SetInput("Out", {"out"});
  op->SetInput("Indices", {"idx"});
  op->SetInput("Label", {"label"});
  op->SetOutput("Accuracy", {"acc"});
  op->SetOutput("Correct", {"correct"});
  op->SetOutput("Total", {"total"});
  framework::InferVarTypeAndShape(op, &b);
  EXPECT_EQ(b.FindVar("acc")->GetDataType(), DataType::FLOAT32);
  EXPECT_EQ(b.FindVar("correct")->GetDataType(), DataType::INT32);
  EXPECT_EQ(b.FindVar("total")->GetDataType(), DataType::INT32);
  EXPECT_EQ(b.FindVar("acc")->GetShape(), (std::vector<int64_t>{}));

  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("accuracy",
              {{"Out", {MakeTensor<float>({2, 1}, {1, 1})}},
               {"Indices", {MakeTensor<int64_t>({2, 1}, {0, 1})}},
               {"Label", {MakeTensor<int64_t>({3, 1}, {0, 1, 2})}}},
              {{"Accuracy", 1}, {"Correct", 1}, {"Total", 1}});
      },
      {"accuracy", "`Label`", "[2, 1]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("accuracy",
              {{"Out", {MakeTensor<float>({2, 1}, {1, 1})}},
               {"Indices", {MakeTensor<float>({2, 1}, {0, 1})}},
               {"Label", {MakeTensor<int64_t>({2, 1}, {0, 1})}}},
              {{"Accuracy", 1}, {"Correct", 1}, {"Total", 1}});
      },
      {"accuracy", "`Indices`", "int64 or int32"});
}

// ---- top_k ----

// Naive top-k of each row: stable sort by value, descending (NaN first). Equal values come out
// in PaddlePaddle's order, not necessarily this one: tests compare the values and check the
// indices with ExpectIndicesHoldValues.
void NaiveTopK(const DDim& dims, const std::vector<double>& x, int64_t k,
               std::vector<double>* values, std::vector<int64_t>* indices) {
  const int64_t n = dims[dims.size() - 1];
  const int64_t rows = n == 0 ? 0 : dims.numel() / n;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      const double va = x[r * n + a], vb = x[r * n + b];
      if (std::isnan(va)) return !std::isnan(vb);
      if (std::isnan(vb)) return false;
      return va > vb;
    });
    for (int64_t j = 0; j < k; ++j) {
      indices->push_back(order[j]);
      values->push_back(x[r * n + order[j]]);
    }
  }
}

template <typename T>
void CheckTopK() {
  unsigned seed = 20;
  struct Case {
    DDim dims;
    int k;
  };
  for (const Case& c :
       {Case{{5}, 1}, Case{{3, 6}, 3}, Case{{2, 3, 4}, 4}, Case{{4, 1}, 1}, Case{{0, 5}, 2}}) {
    SCOPED_TRACE(c.dims.ToString() + " k " + std::to_string(c.k));
    // Values on a coarse grid, so ties are frequent.
    std::vector<double> x = RandomValues(c.dims.numel(), 0, 4, seed++);
    for (auto& v : x) v = std::floor(v);
    std::vector<double> want_v;
    std::vector<int64_t> want_i;
    NaiveTopK(c.dims, x, c.k, &want_v, &want_i);
    const auto r = RunOp("top_k", {{"X", {MakeTensor<T>(c.dims, x)}}}, {{"Out", 1}, {"Indices", 1}},
                         {{"k", c.k}});
    DDim out_dims = c.dims;
    out_dims[out_dims.size() - 1] = c.k;
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), out_dims);
    EXPECT_EQ(r.outputs.at("Indices")[0].dtype(), DataType::INT64);
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want_v, 0, 0, "values");
    ExpectIndicesHoldValues(x, c.dims[c.dims.size() - 1], r.outputs.at("Indices")[0], want_v, c.k,
                            "indices");
  }
}

TEST(TopK, MatchesASortedLineFloat) { CheckTopK<float>(); }
TEST(TopK, MatchesASortedLineDouble) { CheckTopK<double>(); }
TEST(TopK, MatchesASortedLineInt64) { CheckTopK<int64_t>(); }

TEST(TopK, TiesNaNAndDocExample) {
  const std::vector<double> x = {1, 3, 2, 3};
  auto r = RunOp("top_k", {{"X", {MakeTensor<float>({1, 4}, x)}}}, {{"Out", 1}, {"Indices", 1}},
                 {{"k", 2}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), {3, 3}, 0, 0, "values");
  ExpectIndicesHoldValues(x, 4, r.outputs.at("Indices")[0], {3, 3}, 2, "tied indices");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> with_nans = {1, nan, 5, nan};
  r = RunOp("top_k", {{"X", {MakeTensor<double>({4}, with_nans)}}}, {{"Out", 1}, {"Indices", 1}},
            {{"k", 3}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), {nan, nan, 5}, 0, 0, "NaN first");
  EXPECT_EQ(Ints(r.outputs.at("Indices")[0])[2], 2);
  ExpectIndicesHoldValues(with_nans, 4, r.outputs.at("Indices")[0], {nan, nan, 5}, 3,
                          "NaN indices");
}

TEST(TopK, KTensorOverridesAttribute) {
  const auto r = RunOp("top_k",
                       {{"X", {MakeTensor<float>({2, 4}, {4, 1, 3, 2, 0, 9, 8, 7})}},
                        {"K", {MakeTensor<int32_t>({1}, {3})}}},
                       {{"Out", 1}, {"Indices", 1}}, {{"k", 1}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({2, 3}));
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), {4, 3, 2, 9, 8, 7}, 0, 0, "values");
  EXPECT_EQ(Ints(r.outputs.at("Indices")[0]), (std::vector<int64_t>{0, 2, 3, 1, 2, 3}));
}

TEST(TopK, BuildTimeShapes) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  framework::VarDesc* x = b.Var("x");
  x->SetDataType(DataType::FLOAT64);
  x->SetShape({-1, 7});
  framework::VarDesc* k = b.Var("k");
  k->SetDataType(DataType::INT32);
  k->SetShape({1});
  for (bool with_k : {false, true}) {
    framework::OpDesc* op = b.AppendOp();
    op->SetType("top_k");
    op->SetInput("X", {"x"});
    if (with_k) op->SetInput("K", {"k"});
    const std::string suffix = with_k ? "_k" : "";
    op->SetOutput("Out", {"out" + suffix});
    op->SetOutput("Indices", {"idx" + suffix});
    op->SetAttr("k", 2);
    framework::InferVarTypeAndShape(op, &b);
    EXPECT_EQ(b.FindVar("out" + suffix)->GetDataType(), DataType::FLOAT64);
    EXPECT_EQ(b.FindVar("idx" + suffix)->GetDataType(), DataType::INT64);
    EXPECT_EQ(b.FindVar("out" + suffix)->GetShape(), (std::vector<int64_t>{-1, with_k ? -1 : 2}));
  }
}

TEST(TopKGrad, MatchesFiniteDifferences) {
  // Distinct values, so the selection does not change under the finite-difference steps.
  for (const DDim& dims : {DDim({5}), DDim({3, 4}), DDim({2, 2, 3})}) {
    SCOPED_TRACE(dims.ToString());
    std::vector<double> x(static_cast<size_t>(dims.numel()));
    std::iota(x.begin(), x.end(), 0.0);
    std::mt19937 gen(5);
    std::shuffle(x.begin(), x.end(), gen);
    GradCheck check;
    check.op_type = "top_k";
    check.inputs = {{"X", {MakeTensor<double>(dims, x)}}};
    check.outputs = {{"Out", 1}, {"Indices", 1}};
    check.loss_outputs = {"Out"};
    check.attrs = {{"k", 2}};
    CheckGradients(check);
  }
}

TEST(TopK, Errors) {
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("top_k", {{"X", {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}}},
              {{"Out", 1}, {"Indices", 1}}, {{"k", 4}});
      },
      {"top_k", "attribute `k`", "[1, 3]", "received 4"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("top_k",
              {{"X", {MakeTensor<float>({3}, {1, 2, 3})}}, {"K", {MakeTensor<int32_t>({1}, {0})}}},
              {{"Out", 1}, {"Indices", 1}});
      },
      {"top_k", "input `K`", "received 0"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("top_k", {{"X", {MakeTensor<float>({}, {1})}}}, {{"Out", 1}, {"Indices", 1}});
      },
      {"top_k", "input `X`", "rank >= 1"});
}

// ---- arg_max ----

// Naive arg max (arg min with !max) along `axis` (first extreme; NaN wins).
std::vector<int64_t> NaiveArgMax(const DDim& dims, const std::vector<double>& x, int axis,
                                 bool max = true) {
  const int64_t outer = framework::Product(dims, 0, axis);
  const int64_t n = dims[axis];
  const int64_t inner = framework::Product(dims, axis + 1, dims.size());
  std::vector<int64_t> out;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      for (int64_t j = 0; j < n; ++j) {
        const double v = x[(o * n + j) * inner + i];
        const double b = x[(o * n + best) * inner + i];
        if (std::isnan(b)) break;
        if (std::isnan(v) || (max ? v > b : v < b)) best = j;
      }
      out.push_back(best);
    }
  }
  return out;
}

template <typename T>
void CheckArgMax(const std::string& op = "arg_max") {
  unsigned seed = 30;
  struct Case {
    DDim dims;
    int64_t axis;
  };
  for (const Case& c : {Case{{6}, 0}, Case{{3, 4}, 1}, Case{{3, 4}, 0}, Case{{2, 3, 4}, -2},
                        Case{{2, 3, 4}, 2}, Case{{1, 1}, -1}}) {
    SCOPED_TRACE(c.dims.ToString() + " axis " + std::to_string(c.axis));
    std::vector<double> x = RandomValues(c.dims.numel(), 0, 5, seed++);
    for (auto& v : x) v = std::floor(v);  // Ties.
    const int axis = static_cast<int>(c.axis < 0 ? c.axis + c.dims.size() : c.axis);
    const auto want = NaiveArgMax(c.dims, x, axis, op == "arg_max");
    for (bool keepdims : {false, true}) {
      const auto r = RunOp(op, {{"X", {MakeTensor<T>(c.dims, x)}}}, {{"Out", 1}},
                           {{"axis", c.axis}, {"keepdims", keepdims}});
      const DenseTensor& out = r.outputs.at("Out")[0];
      std::vector<int64_t> dims;
      for (int i = 0; i < c.dims.size(); ++i) {
        if (i != axis) dims.push_back(c.dims[i]);
        if (i == axis && keepdims) dims.push_back(1);
      }
      EXPECT_EQ(out.dims(), DDim(dims));
      EXPECT_EQ(out.dtype(), DataType::INT64);
      EXPECT_EQ(Ints(out), want);
    }
  }
}

TEST(ArgMax, MatchesNaiveFloat) { CheckArgMax<float>(); }
TEST(ArgMax, MatchesNaiveDouble) { CheckArgMax<double>(); }
TEST(ArgMax, MatchesNaiveInt32) { CheckArgMax<int32_t>(); }
TEST(ArgMin, MatchesNaiveFloat) { CheckArgMax<float>("arg_min"); }
TEST(ArgMin, MatchesNaiveInt64) { CheckArgMax<int64_t>("arg_min"); }

TEST(ArgMin, DocExampleNaNAndErrors) {
  const DenseTensor x = MakeTensor<float>({2, 3}, {1, 0, 0, 5, 7, 2});
  auto r = RunOp("arg_min", {{"X", {x}}}, {{"Out", 1}}, {{"axis", int64_t{1}}});
  EXPECT_EQ(Ints(r.outputs.at("Out")[0]), (std::vector<int64_t>{1, 2}));
  r = RunOp("arg_min", {{"X", {x}}}, {{"Out", 1}}, {{"flatten", true}});
  EXPECT_EQ(Ints(r.outputs.at("Out")[0]), (std::vector<int64_t>{1}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  r = RunOp("arg_min", {{"X", {MakeTensor<double>({4}, {1, -3, nan, nan})}}}, {{"Out", 1}});
  EXPECT_EQ(Ints(r.outputs.at("Out")[0]), (std::vector<int64_t>{2}));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("arg_min", {{"X", {MakeTensor<float>({2, 0}, {})}}}, {{"Out", 1}},
              {{"axis", int64_t{1}}});
      },
      {"op `arg_min` input `X`", "cannot search an empty dim"});
}

TEST(ArgMax, FlattenDtypeNaNAndZeroD) {
  const DenseTensor x = MakeTensor<float>({2, 3}, {1, 3, 3, 5, 0, 2});
  auto r = RunOp("arg_max", {{"X", {x}}}, {{"Out", 1}}, {{"axis", int64_t{1}}});
  EXPECT_EQ(Ints(r.outputs.at("Out")[0]), (std::vector<int64_t>{1, 0}));
  r = RunOp("arg_max", {{"X", {x}}}, {{"Out", 1}}, {{"flatten", true}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim());
  EXPECT_EQ(Ints(r.outputs.at("Out")[0]), (std::vector<int64_t>{3}));
  r = RunOp("arg_max", {{"X", {x}}}, {{"Out", 1}}, {{"flatten", true}, {"keepdims", true}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({1, 1}));
  // dtype 2 gives int32; an INT axis is coerced to LONG.
  r = RunOp("arg_max", {{"X", {x}}}, {{"Out", 1}}, {{"axis", 0}, {"dtype", 2}});
  EXPECT_EQ(r.outputs.at("Out")[0].dtype(), DataType::INT32);
  EXPECT_EQ(Ints(r.outputs.at("Out")[0]), (std::vector<int64_t>{1, 0, 0}));
  r = RunOp("arg_max", {{"X", {x}}}, {{"Out", 1}}, {{"dtype", -1}});
  EXPECT_EQ(r.outputs.at("Out")[0].dtype(), DataType::INT64);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  r = RunOp("arg_max", {{"X", {MakeTensor<double>({4}, {1, nan, 7, nan})}}}, {{"Out", 1}});
  EXPECT_EQ(Ints(r.outputs.at("Out")[0]), (std::vector<int64_t>{1}));
  r = RunOp("arg_max", {{"X", {MakeTensor<double>({}, {4})}}}, {{"Out", 1}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim());
  EXPECT_EQ(Ints(r.outputs.at("Out")[0]), (std::vector<int64_t>{0}));
}

TEST(ArgMax, VersionVarTypeAndErrors) {
  operators::RegisterAllOps();
  EXPECT_EQ(framework::OpInfoMap::Instance().Get("arg_max").version(), 1);
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  framework::VarDesc* x = b.Var("x");
  x->SetDataType(DataType::FLOAT32);
  x->SetShape({-1, 4});
  framework::OpDesc* op = b.AppendOp();
  op->SetType("arg_max");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"y"});
  op->SetAttr("axis", int64_t{1});
  op->SetAttr("dtype", 2);
  framework::InferVarTypeAndShape(op, &b);
  EXPECT_EQ(b.FindVar("y")->GetDataType(), DataType::INT32);
  EXPECT_EQ(b.FindVar("y")->GetShape(), (std::vector<int64_t>{-1}));

  const DenseTensor t = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("arg_max", {{"X", {t}}}, {{"Out", 1}}, {{"axis", int64_t{2}}});
      },
      {"arg_max", "attribute `axis`", "received 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("arg_max", {{"X", {t}}}, {{"Out", 1}}, {{"dtype", 5}});
      },
      {"arg_max", "attribute `dtype`"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("arg_max", {{"X", {MakeTensor<float>({2, 0}, {})}}}, {{"Out", 1}});
      },
      {"arg_max", "input `X`", "empty"});
}

// auc's reference: over the samples of the batches in the window, the fraction of
// (positive, negative) pairs whose positive has the higher bucket, ties counting half.
double PairwiseAuc(const std::vector<std::vector<double>>& probs,
                   const std::vector<std::vector<double>>& labels, int thresholds) {
  std::vector<int64_t> pos, neg;
  for (size_t b = 0; b < probs.size(); ++b) {
    for (size_t i = 0; i < probs[b].size(); ++i) {
      const auto bucket = static_cast<int64_t>(static_cast<float>(probs[b][i]) * thresholds);
      if (labels[b][i] > 0) pos.push_back(bucket);
      if (labels[b][i] == 0) neg.push_back(bucket);
    }
  }
  double right = 0;
  for (int64_t a : pos) {
    for (int64_t c : neg) right += a > c ? 1.0 : (a == c ? 0.5 : 0.0);
  }
  return right / static_cast<double>(pos.size() * neg.size());
}

TEST(Auc, GlobalAndSlidingWindowsMatchPairCounts) {
  operators::RegisterAllOps();
  constexpr int kThresholds = 50;
  std::vector<std::vector<double>> probs, labels;
  for (int b = 0; b < 4; ++b) {
    probs.push_back(RandomValues(12, 0, 1, 80 + b));
    std::vector<double> y = RandomValues(12, 0, 1, 90 + b);
    for (double& v : y) v = v < 0.45 ? 1 : 0;
    y[0] = -1;  // Not counted.
    labels.push_back(y);
  }
  for (int slide : {0, 2}) {
    SCOPED_TRACE("slide_steps " + std::to_string(slide));
    const int64_t size = (1 + slide) * (kThresholds + 1) + (slide > 0 ? 1 : 0);
    DenseTensor pos = MakeTensor<int64_t>({size}, std::vector<double>(size, 0.0));
    DenseTensor neg = pos;
    for (int b = 0; b < 4; ++b) {
      // Two columns: the second is the positive probability.
      std::vector<double> two;
      for (double p : probs[b]) {
        two.push_back(1 - p);
        two.push_back(p);
      }
      auto r = RunOp("auc",
                     {{"Predict", {MakeTensor<float>({12, 2}, two)}},
                      {"Label", {MakeTensor<int64_t>({12, 1}, labels[b])}},
                      {"StatPos", {pos}},
                      {"StatNeg", {neg}}},
                     {{"AUC", 1}, {"StatPosOut", 1}, {"StatNegOut", 1}},
                     {{"num_thresholds", kThresholds}, {"slide_steps", slide}});
      pos = r.outputs.at("StatPosOut")[0];
      neg = r.outputs.at("StatNegOut")[0];
      const size_t first = slide == 0 ? 0 : static_cast<size_t>(std::max(0, b + 1 - slide));
      const std::vector<std::vector<double>> wp(probs.begin() + first, probs.begin() + b + 1);
      const std::vector<std::vector<double>> wl(labels.begin() + first, labels.begin() + b + 1);
      EXPECT_EQ(r.outputs.at("AUC")[0].dtype(), DataType::FLOAT64);
      EXPECT_NEAR(ToDoubles(r.outputs.at("AUC")[0])[0], PairwiseAuc(wp, wl, kThresholds), 1e-12)
          << "after batch " << b;
    }
  }
}

TEST(Auc, PaddingBatchesAndErrors) {
  operators::RegisterAllOps();
  const int64_t size = 2 * 11 + 1;
  const DenseTensor zeros = MakeTensor<int64_t>({size}, std::vector<double>(size, 0.0));
  const SlotTensors batch = {{"Predict", {MakeTensor<double>({4, 1}, {0.9, 0.2, 0.6, 0.35})}},
                             {"Label", {MakeTensor<int64_t>({4}, {1, 0, 1, 0})}},
                             {"StatPos", {zeros}},
                             {"StatNeg", {zeros}}};
  const AttributeMap attrs = {{"num_thresholds", 10}, {"slide_steps", 1}};
  const std::map<std::string, int> outs = {{"AUC", 1}, {"StatPosOut", 1}, {"StatNegOut", 1}};
  auto r = RunOp("auc", batch, outs, attrs);
  EXPECT_EQ(ToDoubles(r.outputs.at("AUC")[0]), (std::vector<double>{1.0}));
  // A padding batch (InsTagWeight 0) stays out of the window sum: no counts, AUC 0.
  SlotTensors padded = batch;
  padded["InsTagWeight"] = {MakeTensor<float>({1}, {0})};
  r = RunOp("auc", padded, outs, attrs);
  EXPECT_EQ(ToDoubles(r.outputs.at("AUC")[0]), (std::vector<double>{0.0}));
  EXPECT_EQ(ToDoubles(r.outputs.at("StatPosOut")[0])[size - 1], 1.0) << "the step counter";
  SlotTensors bad = batch;
  bad["Predict"] = {MakeTensor<double>({4, 1}, {0.9, 1.2, 0.6, 0.35})};
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("auc", bad, outs, attrs); },
      {"op `auc` input `Predict`", "row 1", "1.2", "[0, 1]"});
  bad = batch;
  bad["StatPos"] = {MakeTensor<int64_t>({5}, {0, 0, 0, 0, 0})};
  ExpectError<platform::InvalidArgumentError>([&] { RunOp("auc", bad, outs, attrs); },
                                              {"op `auc` input `StatPos`", "at least 23", "[5]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

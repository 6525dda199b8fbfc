// mean and reduce_sum: forward against naive double references over tables of shapes and
// attributes, both dtypes; output dtypes; determinism; build-time shapes; errors.
#include <cmath>
#include <cstring>
#include <functional>

#include "framework/op_info.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

template <typename T>
std::vector<double> Rounded(const std::vector<double>& v) {
  std::vector<double> r;
  for (double a : v) r.push_back(static_cast<double>(static_cast<T>(a)));
  return r;
}

// Tolerance of a sum of n terms of magnitude <= 1 against an exact reference.
double SumTol(DataType t, int64_t n) { return AbsTol(t) * (1 + static_cast<double>(n) / 100); }

// ---- mean ----

template <typename T>
void CheckMean(const DDim& dims) {
  const auto x = Rounded<T>(RandomValues(dims.numel(), -1, 1, 23));
  auto r = RunOp("mean", {{"X", {MakeTensor<T>(dims, x)}}}, {{"Out", 1}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), DDim({})) << dims;
  EXPECT_EQ(out.dtype(), platform::ToDataType<T>());
  long double sum = 0;
  for (double v : x) sum += v;
  const double expected = static_cast<double>(sum / x.size());
  ExpectNear(ToDoubles(out), {expected}, RelTol(out.dtype()), AbsTol(out.dtype()),
             "mean " + dims.ToString());
}

TEST(MeanOp, ForwardMatchesReference) {
  for (const DDim& d : {DDim({3, 5}), DDim({1}), DDim({}), DDim({2, 1, 3}), DDim({100003}),
                        DDim({7, 40000})}) {
    CheckMean<float>(d);
    CheckMean<double>(d);
  }
}

TEST(MeanOp, EmptyInputGivesNaN) {
  auto r = RunOp("mean", {{"X", {MakeTensor<float>({0, 3}, {})}}}, {{"Out", 1}});
  EXPECT_EQ(r.outputs["Out"][0].dims(), DDim({}));
  EXPECT_TRUE(std::isnan(ToDoubles(r.outputs["Out"][0])[0]));
}

TEST(MeanOp, DocExample) {
  auto r = RunOp("mean", {{"X", {MakeTensor<double>({2, 2}, {1, 2, 3, 6})}}}, {{"Out", 1}});
  ExpectNear(ToDoubles(r.outputs["Out"][0]), {3}, 0, 0, "mean");
}

TEST(MeanOp, RunsAreBitwiseEqual) {
  const DenseTensor x = MakeTensor<float>({300001}, RandomValues(300001, -1, 1, 5));
  const float a = RunOp("mean", {{"X", {x}}}, {{"Out", 1}}).outputs["Out"][0].data<float>()[0];
  const float b = RunOp("mean", {{"X", {x}}}, {{"Out", 1}}).outputs["Out"][0].data<float>()[0];
  EXPECT_EQ(std::memcmp(&a, &b, sizeof(float)), 0);
}

// ---- reduce_sum ----

struct SumCase {
  DDim x;
  std::vector<int> dim;
  bool keep_dim;
  bool reduce_all;
  DDim out;
};

const SumCase kSumCases[] = {
    {{2, 3}, {0}, false, false, {3}},
    {{2, 3}, {1}, false, false, {2}},
    {{2, 3}, {-1}, false, false, {2}},
    {{2, 3}, {0, 1}, false, false, {}},
    {{2, 3}, {0, 1}, true, false, {1, 1}},
    {{2, 3}, {0}, false, true, {}},
    {{2, 3}, {1}, true, true, {1, 1}},
    {{2, 3}, {}, false, false, {}},
    {{2, 3, 4}, {1}, false, false, {2, 4}},
    {{2, 3, 4}, {1}, true, false, {2, 1, 4}},
    {{2, 3, 4}, {0, 2}, false, false, {3}},
    {{2, 3, 4}, {-1, 0}, true, false, {1, 3, 1}},
    {{2, 3, 4}, {1, 1, -2}, false, false, {2, 4}},  // Duplicates count once.
    {{2, 3, 4, 5}, {1, 3}, false, false, {2, 4}},
    {{2, 3, 4, 5}, {0, 2}, false, false, {3, 5}},
    {{2, 1, 3}, {1}, false, false, {2, 3}},
    {{2, 1, 3}, {0}, false, false, {1, 3}},
    {{1, 1}, {0}, false, false, {1}},
    {{5}, {0}, false, false, {}},
    {{}, {0}, false, false, {}},
    {{}, {-1}, true, false, {}},
    {{0, 3}, {0}, false, false, {3}},
    {{0, 3}, {1}, false, false, {0}},
    {{2, 0}, {1}, true, false, {2, 1}},
    // Large enough for the parallel paths.
    {{300, 500}, {0}, false, false, {500}},
    {{300, 500}, {1}, false, false, {300}},
    {{4, 50000}, {1}, false, false, {4}},
    {{100003}, {0}, false, false, {}},
    {{30, 40, 50}, {0, 2}, false, false, {40}},
};

// Naive reference: every element added to the output it belongs to, in long double.
std::vector<double> SumReference(const SumCase& c, const std::vector<double>& x) {
  const int rank = c.x.size();
  std::vector<bool> reduced(static_cast<size_t>(rank), c.reduce_all || c.dim.empty());
  for (int d : c.dim) {
    if (rank > 0) reduced[d < 0 ? d + rank : d] = true;
  }
  int64_t out_numel = 1;
  for (int i = 0; i < rank; ++i) {
    if (!reduced[i]) out_numel *= c.x[i];
  }
  std::vector<long double> acc(static_cast<size_t>(out_numel), 0);
  for (int64_t n = 0; n < c.x.numel(); ++n) {
    int64_t rest = n, out_index = 0, out_stride = 1;
    for (int i = rank - 1; i >= 0; --i) {
      const int64_t idx = rest % c.x[i];
      rest /= c.x[i];
      if (!reduced[i]) {
        out_index += idx * out_stride;
        out_stride *= c.x[i];
      }
    }
    acc[out_index] += x[n];
  }
  return std::vector<double>(acc.begin(), acc.end());
}

template <typename T>
void CheckSum(const SumCase& c) {
  std::string what = "reduce_sum " + c.x.ToString() + " dim [";
  for (int d : c.dim) what += std::to_string(d) + " ";
  what += std::string("]") + (c.keep_dim ? " keep_dim" : "") + (c.reduce_all ? " all" : "");
  const auto x = Rounded<T>(RandomValues(c.x.numel(), -1, 1, 29));
  auto r = RunOp("reduce_sum", {{"X", {MakeTensor<T>(c.x, x)}}}, {{"Out", 1}},
                 {{"dim", c.dim}, {"keep_dim", c.keep_dim}, {"reduce_all", c.reduce_all}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), c.out) << what;
  EXPECT_EQ(out.dtype(), platform::ToDataType<T>()) << what;
  const int64_t terms = c.out.numel() == 0 ? 0 : c.x.numel() / c.out.numel();
  ExpectNear(ToDoubles(out), SumReference(c, x), RelTol(out.dtype()),
             SumTol(out.dtype(), terms), what);
}

TEST(ReduceSumOp, ForwardMatchesReference) {
  for (const auto& c : kSumCases) {
    CheckSum<float>(c);
    CheckSum<double>(c);
  }
}

TEST(ReduceSumOp, DocExamples) {
  const DenseTensor x = MakeTensor<double>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto sum = [&](const framework::AttributeMap& attrs) {
    return RunOp("reduce_sum", {{"X", {x}}}, {{"Out", 1}}, attrs).outputs["Out"][0];
  };
  ExpectNear(ToDoubles(sum({})), {5, 7, 9}, 0, 0, "default dim");
  ExpectNear(ToDoubles(sum({{"dim", std::vector<int>{-1}}})), {6, 15}, 0, 0, "dim -1");
  const DenseTensor kept = sum({{"dim", std::vector<int>{1}}, {"keep_dim", true}});
  EXPECT_EQ(kept.dims(), DDim({2, 1}));
  ExpectNear(ToDoubles(kept), {6, 15}, 0, 0, "keep_dim");
  const DenseTensor all = sum({{"reduce_all", true}});
  EXPECT_EQ(all.dims(), DDim({}));
  ExpectNear(ToDoubles(all), {21}, 0, 0, "reduce_all");
}

TEST(ReduceSumOp, OutDtypeAndInDtype) {
  const std::vector<double> xv = {0.5, 1.25, -2, 4};
  auto run = [&](DenseTensor x, const framework::AttributeMap& attrs) {
    return RunOp("reduce_sum", {{"X", {x}}}, {{"Out", 1}}, attrs).outputs["Out"][0];
  };
  const DenseTensor a = run(MakeTensor<float>({4}, xv), {{"out_dtype", 6}});
  EXPECT_EQ(a.dtype(), DataType::FLOAT64);
  ExpectNear(ToDoubles(a), {3.75}, 0, 0, "float -> float64");
  const DenseTensor b =
      run(MakeTensor<double>({2, 2}, xv), {{"out_dtype", 5}, {"dim", std::vector<int>{1}}});
  EXPECT_EQ(b.dtype(), DataType::FLOAT32);
  ExpectNear(ToDoubles(b), {1.75, 2}, 0, 0, "float64 -> float");
  const DenseTensor c = run(MakeTensor<float>({4}, xv), {{"in_dtype", 6}});
  EXPECT_EQ(c.dtype(), DataType::FLOAT64);
  ExpectNear(ToDoubles(c), {3.75}, 0, 0, "in_dtype float64");
  const DenseTensor d = run(MakeTensor<float>({4}, xv), {{"in_dtype", 6}, {"out_dtype", 5}});
  EXPECT_EQ(d.dtype(), DataType::FLOAT32);
  ExpectNear(ToDoubles(d), {3.75}, 0, 0, "in float64, out float32");
  // PaddlePaddle 2's paddle.sum(x, dtype=...) writes X's own dtype as in_dtype.
  const DenseTensor e = run(MakeTensor<int32_t>({2, 2}, {7, -3, 100, 2}),
                            {{"in_dtype", 2}, {"out_dtype", 3}, {"dim", std::vector<int>{1}}});
  EXPECT_EQ(e.dtype(), DataType::INT64);
  ExpectNear(ToDoubles(e), {4, 102}, 0, 0, "in_dtype int32, out int64");
  const DenseTensor f = run(MakeTensor<uint8_t>({3}, {200, 50, 7}), {{"in_dtype", 20}});
  EXPECT_EQ(f.dtype(), DataType::UINT8);
  ExpectNear(ToDoubles(f), {1}, 0, 0, "uint8 wraps as PaddlePaddle's does: 257 mod 256");
}

// Integer and bool sums are exact, in X's dtype or the out_dtype asked for (PaddlePaddle's
// `sum` asks for int64 with int32 and bool X).
TEST(ReduceSumOp, IntegerAndBoolSumsAreExact) {
  for (const auto& c : kSumCases) {
    std::vector<double> x = RandomValues(c.x.numel(), -1000, 1000, 31);
    for (double& v : x) v = std::round(v);
    const framework::AttributeMap attrs = {
        {"dim", c.dim}, {"keep_dim", c.keep_dim}, {"reduce_all", c.reduce_all}};
    for (const DenseTensor& t : {MakeTensor<int32_t>(c.x, x), MakeTensor<int64_t>(c.x, x)}) {
      const DenseTensor out =
          RunOp("reduce_sum", {{"X", {t}}}, {{"Out", 1}}, attrs).outputs["Out"][0];
      EXPECT_EQ(out.dtype(), t.dtype());
      EXPECT_EQ(out.dims(), c.out);
      EXPECT_EQ(ToDoubles(out), SumReference(c, x)) << c.x.ToString();
    }
  }
  // Past the 53 bits a double holds: 2^53 + 1 + 2 is kept exactly.
  DenseTensor big({2}, DataType::INT64);
  int64_t* b = big.mutable_data<int64_t>(platform::CPUPlace());
  b[0] = (int64_t{1} << 53) + 1;
  b[1] = 2;
  const DenseTensor sum = RunOp("reduce_sum", {{"X", {big}}}, {{"Out", 1}}, {}).outputs["Out"][0];
  EXPECT_EQ(sum.data<int64_t>()[0], (int64_t{1} << 53) + 3);
  // Counting: bools summed into int64, int32 widened.
  const DenseTensor flags = MakeTensor<bool>({2, 3}, {1, 0, 1, 1, 1, 0});
  const DenseTensor counts = RunOp("reduce_sum", {{"X", {flags}}}, {{"Out", 1}},
                                   {{"dim", std::vector<int>{1}}, {"out_dtype", 3}})
                                 .outputs["Out"][0];
  EXPECT_EQ(counts.dtype(), DataType::INT64);
  EXPECT_EQ(ToDoubles(counts), std::vector<double>({2, 2}));
  const DenseTensor wide = RunOp("reduce_sum", {{"X", {MakeTensor<int32_t>({3}, {2e9, 2e9, 1})}}},
                                 {{"Out", 1}}, {{"out_dtype", 3}})
                               .outputs["Out"][0];
  EXPECT_EQ(wide.data<int64_t>()[0], 4000000001);
}

TEST(ReduceSumOp, RunsAreBitwiseEqual) {
  const DenseTensor x = MakeTensor<float>({64, 5001}, RandomValues(64 * 5001, -1, 1, 9));
  for (int dim : {0, 1}) {
    const framework::AttributeMap attrs = {{"dim", std::vector<int>{dim}}};
    const DenseTensor a = RunOp("reduce_sum", {{"X", {x}}}, {{"Out", 1}}, attrs).outputs["Out"][0];
    const DenseTensor b = RunOp("reduce_sum", {{"X", {x}}}, {{"Out", 1}}, attrs).outputs["Out"][0];
    ASSERT_EQ(a.numel(), b.numel());
    EXPECT_EQ(std::memcmp(a.data<float>(), b.data<float>(), a.numel() * sizeof(float)), 0);
  }
}

std::vector<int64_t> BuildTimeShape(const std::vector<int64_t>& x,
                                    const framework::AttributeMap& attrs, DataType* dtype) {
  operators::RegisterAllOps();
  framework::ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  b.Var("x")->SetShape(x);
  b.Var("x")->SetDataType(DataType::FLOAT32);
  framework::OpDesc* op = b.AppendOp();
  op->SetType("reduce_sum");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"out"});
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::InferVarTypeAndShape(op, &b);
  *dtype = b.FindVar("out")->GetDataType();
  return b.FindVar("out")->GetShape();
}

TEST(ReduceSumOp, BuildTimeShapesAndDtypes) {
  using V = std::vector<int64_t>;
  DataType t;
  EXPECT_EQ(BuildTimeShape({-1, 3}, {{"dim", std::vector<int>{1}}}, &t), (V{-1}));
  EXPECT_EQ(t, DataType::FLOAT32);
  EXPECT_EQ(BuildTimeShape({-1, 3}, {}, &t), (V{3}));  // Registered default dim [0].
  EXPECT_EQ(BuildTimeShape({-1, 3}, {{"keep_dim", true}, {"out_dtype", 6}}, &t), (V{1, 3}));
  EXPECT_EQ(t, DataType::FLOAT64);
  EXPECT_EQ(BuildTimeShape({-1, 3}, {{"reduce_all", true}}, &t), (V{}));
}

void ExpectInvalidArgument(const std::function<void()>& fn,
                           const std::vector<std::string>& parts) {
  try {
    fn();
    FAIL() << "expected InvalidArgumentError";
  } catch (const platform::InvalidArgumentError& e) {
    for (const auto& p : parts) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << p << " in: " << e.what();
    }
  }
}

TEST(ReduceSumOp, BadAttributesNameOpAndAttribute) {
  const DenseTensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto run = [&](const framework::AttributeMap& attrs) {
    RunOp("reduce_sum", {{"X", {x}}}, {{"Out", 1}}, attrs);
  };
  ExpectInvalidArgument([&] { run({{"dim", std::vector<int>{2}}}); },
                        {"op `reduce_sum` attribute `dim`", "[-2, 2)", "received 2"});
  ExpectInvalidArgument([&] { run({{"dim", std::vector<int>{0, -3}}}); },
                        {"op `reduce_sum` attribute `dim`", "received -3"});
  ExpectInvalidArgument(
      [&] {
        run({{"out_dtype", 4}});
      },
      {"op `reduce_sum` attribute `out_dtype`", "received 4"});
  ExpectInvalidArgument(
      [&] {
        run({{"in_dtype", 7}});
      },
      {"op `reduce_sum` attribute `in_dtype`", "received 7"});
  ExpectInvalidArgument(
      [&] {
        RunOp("reduce_sum", {{"X", {MakeTensor<float>({}, {1})}}}, {{"Out", 1}},
              {{"dim", std::vector<int>{1}}});
      },
      {"op `reduce_sum` attribute `dim`", "received 1"});
}

TEST(ReduceOps, Declarations) {
  operators::RegisterAllOps();
  const auto& sum = framework::OpInfoMap::Instance().Get("reduce_sum").spec;
  EXPECT_EQ(std::get<std::vector<int>>(sum.FindAttr("dim")->default_value), std::vector<int>{0});
  EXPECT_EQ(std::get<bool>(sum.FindAttr("keep_dim")->default_value), false);
  EXPECT_EQ(std::get<bool>(sum.FindAttr("reduce_all")->default_value), false);
  EXPECT_EQ(std::get<int>(sum.FindAttr("in_dtype")->default_value), -1);
  EXPECT_EQ(std::get<int>(sum.FindAttr("out_dtype")->default_value), -1);
  EXPECT_NE(sum.comment.find("$$"), std::string::npos);
  const auto& mean = framework::OpInfoMap::Instance().Get("mean").spec;
  EXPECT_NE(mean.comment.find("\\frac{1}{N}"), std::string::npos);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

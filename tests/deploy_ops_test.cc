// Ops of deploy models: activations (relu6, swish, sqrt, rsqrt, clip), the extra elementwise
// ops (pow, max, min, mod, floordiv) on floats and integers, comparisons, logical ops, where,
// the indexing ops (gather, gather_nd, index_select), tile, expand_v2, stack, unstack, range,
// cumsum, fill_constant_batch_size_like and lookup_table (version 1). Forward results against
// references computed here in double, gradients against finite differences (second order
// where the backward is written with forward ops), and the errors of bad inputs.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

class DeployOps : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

DenseTensor Out(const OpRunResult& r, const std::string& slot = "Out", int i = 0) {
  return r.outputs.at(slot)[i];
}

std::vector<double> Map(const std::vector<double>& xs, double (*f)(double)) {
  std::vector<double> v;
  for (double x : xs) v.push_back(f(x));
  return v;
}

// ---------------------------------------------------------------- activations

TEST_F(DeployOps, Relu6SwishSqrtRsqrtAgainstClosedForms) {
  const std::vector<double> xs = {-3, -0.5, 0, 0.7, 2.5, 5.9, 6, 8};
  const std::vector<double> pos = {0.01, 0.5, 1, 2, 9, 100};
  for (DataType dtype : {DataType::FLOAT64, DataType::FLOAT32}) {
    auto make = [&](const std::vector<double>& v) {
      const DDim d({static_cast<int64_t>(v.size())});
      return dtype == DataType::FLOAT64 ? MakeTensor<double>(d, v) : MakeTensor<float>(d, v);
    };
    std::vector<double> relu6, relu6_3, swish, swish_2;
    for (double x : xs) {
      relu6.push_back(std::min(std::max(x, 0.0), 6.0));
      relu6_3.push_back(std::min(std::max(x, 0.0), 3.0));
      swish.push_back(x / (1 + std::exp(-x)));
      swish_2.push_back(x / (1 + std::exp(-2 * x)));
    }
    const double rt = RelTol(dtype), at = AbsTol(dtype);
    ExpectNear(ToDoubles(Out(RunOp("relu6", {{"X", {make(xs)}}}, {{"Out", 1}}))), relu6, rt, at,
               "relu6");
    ExpectNear(ToDoubles(Out(RunOp("relu6", {{"X", {make(xs)}}}, {{"Out", 1}},
                                   {{"threshold", 3.0f}}))),
               relu6_3, rt, at, "relu6 threshold 3");
    ExpectNear(ToDoubles(Out(RunOp("swish", {{"X", {make(xs)}}}, {{"Out", 1}}))), swish, rt, at,
               "swish");
    ExpectNear(ToDoubles(Out(RunOp("swish", {{"X", {make(xs)}}}, {{"Out", 1}}, {{"beta", 2.0f}}))),
               swish_2, rt, at, "swish beta 2");
    ExpectNear(ToDoubles(Out(RunOp("sqrt", {{"X", {make(pos)}}}, {{"Out", 1}}))),
               Map(pos, [](double x) { return std::sqrt(x); }), rt, at, "sqrt");
    ExpectNear(ToDoubles(Out(RunOp("rsqrt", {{"X", {make(pos)}}}, {{"Out", 1}}))),
               Map(pos, [](double x) { return 1 / std::sqrt(x); }), rt, at, "rsqrt");
  }
}

TEST_F(DeployOps, ClipWithAttributesAndTensorBoundsAndItsGradient) {
  const std::vector<double> xs = {-3, -1, -0.2, 0.3, 0.9, 4};
  const DenseTensor x = MakeTensor<double>({2, 3}, xs);
  ExpectNear(ToDoubles(Out(RunOp("clip", {{"X", {x}}}, {{"Out", 1}},
                                 {{"min", -0.5f}, {"max", 1.0f}}))),
             {-0.5, -0.5, -0.2, 0.3, 0.9, 1}, 0, 0, "clip attrs");
  // Tensors override the attributes.
  const OpRunResult r = RunOp("clip",
                              {{"X", {x}},
                               {"Min", {MakeTensor<double>({1}, {0.0})}},
                               {"Max", {MakeTensor<double>({1}, {0.5})}}},
                              {{"Out", 1}}, {{"min", -9.0f}, {"max", 9.0f}});
  ExpectNear(ToDoubles(Out(r)), {0, 0, 0, 0.3, 0.5, 0.5}, 0, 0, "clip tensors");
  // Integer tensors, with attribute bounds (truncated to the type) and tensor bounds.
  const std::vector<double> ints = {-7, -2, 0, 3, 5, 1LL << 40};
  EXPECT_EQ(ToDoubles(Out(RunOp("clip", {{"X", {MakeTensor<int64_t>({6}, ints)}}}, {{"Out", 1}},
                                {{"min", -2.5f}, {"max", 4.0f}}))),
            std::vector<double>({-2, -2, 0, 3, 4, 4}));
  const OpRunResult ri = RunOp("clip",
                               {{"X", {MakeTensor<int32_t>({5}, {-7, -2, 0, 3, 5})}},
                                {"Min", {MakeTensor<int32_t>({1}, {-1})}},
                                {"Max", {MakeTensor<int32_t>({1}, {3})}}},
                               {{"Out", 1}});
  EXPECT_EQ(Out(ri).dtype(), DataType::INT32);
  EXPECT_EQ(ToDoubles(Out(ri)), std::vector<double>({-1, -1, 0, 3, 3}));
  GradCheck check;
  check.op_type = "clip";
  check.inputs = {{"X", {x}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"min", -0.5f}, {"max", 1.0f}};
  CheckGradients(check);
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("clip", {{"X", {x}}}, {{"Out", 1}}, {{"min", 2.0f}, {"max", 1.0f}}); },
      {"op `clip`", "min <= max"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("clip", {{"X", {x}}, {"Min", {MakeTensor<double>({2}, {0, 1})}}}, {{"Out", 1}});
      },
      {"op `clip` input `Min`", "one element"});
}

TEST_F(DeployOps, PreluInEveryModeAndItsGradient) {
  const std::vector<double> xv = RandomValues(24, -2, 2, 12);
  const DenseTensor x = MakeTensor<double>({2, 3, 2, 2}, xv);
  const std::vector<double> slopes = {0.1, 0.2, 0.3};
  const struct {
    const char* mode;
    const char* format;
    DenseTensor alpha;
    int64_t (*index)(int64_t);
  } cases[] = {
      {"all", "NCHW", MakeTensor<double>({1}, {0.25}), [](int64_t) -> int64_t { return 0; }},
      {"channel", "NCHW", MakeTensor<double>({3}, slopes),
       [](int64_t i) -> int64_t { return (i / 4) % 3; }},
      // Channel-last: the last dim (2) holds the channels.
      {"channel", "NHWC", MakeTensor<double>({2}, {0.5, 0.75}),
       [](int64_t i) -> int64_t { return i % 2; }},
      {"element", "NCHW", MakeTensor<double>({1, 3, 2, 2}, RandomValues(12, 0, 1, 13)),
       [](int64_t i) -> int64_t { return i % 12; }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.mode) + " " + c.format);
    const AttributeMap attrs = {{"mode", std::string(c.mode)},
                                {"data_format", std::string(c.format)}};
    const std::vector<double> a = ToDoubles(c.alpha);
    std::vector<double> want;
    for (int64_t i = 0; i < 24; ++i) want.push_back(xv[i] > 0 ? xv[i] : a[c.index(i)] * xv[i]);
    ExpectNear(ToDoubles(Out(RunOp("prelu", {{"X", {x}}, {"Alpha", {c.alpha}}}, {{"Out", 1}},
                                   attrs))),
               want, 1e-12, 1e-12, "prelu");
    GradCheck check;
    check.op_type = "prelu";
    check.inputs = {{"X", {x}}, {"Alpha", {c.alpha}}};
    check.outputs = {{"Out", 1}};
    check.attrs = attrs;
    CheckGradients(check);
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("prelu", {{"X", {x}}, {"Alpha", {MakeTensor<double>({2}, {1, 2})}}}, {{"Out", 1}},
              {{"mode", std::string("channel")}});
      },
      {"op `prelu` input `Alpha`", "expected 3 elements"});
}

// ---------------------------------------------------------------- elementwise

TEST_F(DeployOps, ElementwiseExtrasOnFloatsWithBroadcasting) {
  const std::vector<double> xv = {0.5, 1.5, 2.0, 3.0, 0.25, 4.0};
  const std::vector<double> yv = {2.0, 0.5, 3.0};
  const DenseTensor x = MakeTensor<double>({2, 3}, xv);
  const DenseTensor y = MakeTensor<double>({3}, yv);
  struct Case {
    const char* op;
    double (*f)(double, double);
  };
  const Case cases[] = {
      {"elementwise_pow", [](double a, double b) { return std::pow(a, b); }},
      {"elementwise_max", [](double a, double b) { return std::max(a, b); }},
      {"elementwise_min", [](double a, double b) { return std::min(a, b); }},
      {"elementwise_fmax", [](double a, double b) { return std::fmax(a, b); }},
      {"elementwise_fmin", [](double a, double b) { return std::fmin(a, b); }},
      {"elementwise_mod", [](double a, double b) { return a - std::floor(a / b) * b; }},
      {"elementwise_floordiv", [](double a, double b) { return std::floor(a / b); }},
  };
  for (const Case& c : cases) {
    std::vector<double> want;
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) want.push_back(c.f(xv[i * 3 + j], yv[j]));
    }
    ExpectNear(ToDoubles(Out(RunOp(c.op, {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}}))), want, 1e-12,
               1e-12, c.op);
  }
  // axis = 0: Y [2] runs along dim 0 of X.
  const DenseTensor y0 = MakeTensor<double>({2}, {1.0, 2.0});
  ExpectNear(ToDoubles(Out(RunOp("elementwise_max", {{"X", {x}}, {"Y", {y0}}}, {{"Out", 1}},
                                 {{"axis", 0}}))),
             {1, 1.5, 2, 3, 2, 4}, 0, 0, "max axis 0");
}

TEST_F(DeployOps, IntegerModAndFloorDivRoundTowardsMinusInfinity) {
  const DenseTensor x = MakeTensor<int64_t>({6}, {7, -7, 7, -7, 0, 9});
  const DenseTensor y = MakeTensor<int64_t>({6}, {3, 3, -3, -3, 5, 9});
  const DenseTensor mod = Out(RunOp("elementwise_mod", {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}}));
  EXPECT_EQ(mod.dtype(), DataType::INT64);
  EXPECT_EQ(ToDoubles(mod), (std::vector<double>{1, 2, -2, -1, 0, 0}));
  EXPECT_EQ(ToDoubles(Out(RunOp("elementwise_floordiv", {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}}))),
            (std::vector<double>{2, -3, -3, 2, 0, 1}));
  const DenseTensor xi = MakeTensor<int32_t>({3}, {2, 3, -2});
  const DenseTensor yi = MakeTensor<int32_t>({3}, {10, 2, 3});
  EXPECT_EQ(ToDoubles(Out(RunOp("elementwise_pow", {{"X", {xi}}, {"Y", {yi}}}, {{"Out", 1}}))),
            (std::vector<double>{1024, 9, -8}));
  EXPECT_EQ(ToDoubles(Out(RunOp("elementwise_add", {{"X", {xi}}, {"Y", {yi}}}, {{"Out", 1}}))),
            (std::vector<double>{12, 5, 1}));
  const DenseTensor zero = MakeTensor<int64_t>({6}, {1, 1, 0, 1, 1, 1});
  for (const char* op : {"elementwise_mod", "elementwise_floordiv", "elementwise_div"}) {
    ExpectError<platform::InvalidArgumentError>(
        [&] { RunOp(op, {{"X", {x}}, {"Y", {zero}}}, {{"Out", 1}}); },
        {std::string("op `") + op + "` input `Y`", "no zero", "flat index 2"});
  }
}

TEST_F(DeployOps, MaxMinPowGradientsAgainstFiniteDifferences) {
  // Values apart so that no tie sits within the finite-difference step.
  const DenseTensor x = MakeTensor<double>({2, 3}, {0.5, 1.7, 0.9, 2.2, 0.3, 1.1});
  const DenseTensor y = MakeTensor<double>({3}, {1.0, 1.2, 0.6});
  for (const char* op : {"elementwise_max", "elementwise_min", "elementwise_fmax",
                         "elementwise_fmin", "elementwise_pow"}) {
    SCOPED_TRACE(op);
    GradCheck check;
    check.op_type = op;
    check.inputs = {{"X", {x}}, {"Y", {y}}};
    check.outputs = {{"Out", 1}};
    check.max_order = 2;
    check.rtol = 1e-4;
    check.atol = 1e-6;
    CheckGradients(check);
  }
}

// fmax/fmin take the operand that is not NaN; ties and a NaN Y send the gradient to X, a NaN X
// sends it to Y, two NaNs to X (PaddlePaddle's rule). With Y [1] broadcast, dY sums.
TEST_F(DeployOps, FMaxFMinSkipNaNAndRouteTheGradient) {
  const double nan = std::nan("");
  const DenseTensor x = MakeTensor<double>({5}, {1, nan, 2, nan, -1});
  const DenseTensor y = MakeTensor<double>({5}, {1, 3, nan, nan, 4});
  const std::vector<double> fmax =
      ToDoubles(Out(RunOp("elementwise_fmax", {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}})));
  const std::vector<double> fmin =
      ToDoubles(Out(RunOp("elementwise_fmin", {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}})));
  const std::vector<double> want_max = {1, 3, 2, nan, 4}, want_min = {1, 3, 2, nan, -1};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_TRUE(std::isnan(want_max[i]) ? std::isnan(fmax[i]) : fmax[i] == want_max[i]) << i;
    EXPECT_TRUE(std::isnan(want_min[i]) ? std::isnan(fmin[i]) : fmin[i] == want_min[i]) << i;
  }
  for (const auto& [op, dx_want] :
       {std::pair<const char*, std::vector<double>>{"elementwise_fmax", {1, 0, 1, 1, 0}},
        std::pair<const char*, std::vector<double>>{"elementwise_fmin", {1, 0, 1, 1, 1}}}) {
    SCOPED_TRACE(op);
    const auto g = NthGradient(op, {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}}, {}, 1);
    EXPECT_EQ(ToDoubles(g.at("X_0")), dx_want);
    std::vector<double> dy_want;
    for (double d : dx_want) dy_want.push_back(1 - d);
    EXPECT_EQ(ToDoubles(g.at("Y_0")), dy_want);
    const auto gb =
        NthGradient(op, {{"X", {x}}, {"Y", {MakeTensor<double>({1}, {1.5})}}}, {{"Out", 1}}, {}, 1);
    EXPECT_EQ(ToDoubles(gb.at("Y_0")),
              (std::vector<double>{std::string(op) == "elementwise_fmax" ? 4.0 : 3.0}));
  }
}

TEST_F(DeployOps, ComparisonsAndLogicalOpsGiveBool) {
  const DenseTensor x = MakeTensor<float>({2, 2}, {1, 2, 3, std::nan("")});
  const DenseTensor y = MakeTensor<float>({2}, {2, 2});
  const struct {
    const char* op;
    std::vector<double> want;
  } cases[] = {{"less_than", {1, 0, 0, 0}},    {"less_equal", {1, 1, 0, 0}},
               {"greater_than", {0, 0, 1, 0}}, {"greater_equal", {0, 1, 1, 0}},
               {"equal", {0, 1, 0, 0}},        {"not_equal", {1, 0, 1, 1}}};
  for (const auto& c : cases) {
    const DenseTensor out = Out(RunOp(c.op, {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}}));
    EXPECT_EQ(out.dtype(), DataType::BOOL) << c.op;
    EXPECT_EQ(out.dims(), DDim({2, 2})) << c.op;
    EXPECT_EQ(ToDoubles(out), c.want) << c.op;
  }
  const DenseTensor xi = MakeTensor<int64_t>({3}, {5, -1, 7});
  EXPECT_EQ(ToDoubles(Out(RunOp("equal", {{"X", {xi}}, {"Y", {MakeTensor<int64_t>({1}, {7})}}},
                                {{"Out", 1}}))),
            (std::vector<double>{0, 0, 1}));
  const DenseTensor a = MakeTensor<bool>({4}, {1, 1, 0, 0});
  const DenseTensor b = MakeTensor<bool>({4}, {1, 0, 1, 0});
  EXPECT_EQ(ToDoubles(Out(RunOp("logical_and", {{"X", {a}}, {"Y", {b}}}, {{"Out", 1}}))),
            (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(ToDoubles(Out(RunOp("logical_or", {{"X", {a}}, {"Y", {b}}}, {{"Out", 1}}))),
            (std::vector<double>{1, 1, 1, 0}));
  EXPECT_EQ(ToDoubles(Out(RunOp("logical_xor", {{"X", {a}}, {"Y", {b}}}, {{"Out", 1}}))),
            (std::vector<double>{0, 1, 1, 0}));
  const DenseTensor n = Out(RunOp("logical_not", {{"X", {a}}}, {{"Out", 1}}));
  EXPECT_EQ(n.dtype(), DataType::BOOL);
  EXPECT_EQ(ToDoubles(n), (std::vector<double>{0, 0, 1, 1}));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("less_than", {{"X", {x}}, {"Y", {MakeTensor<int64_t>({2}, {1, 2})}}}, {{"Out", 1}});
      },
      {"op `less_than` input `Y`", "expected dtype float32", "int64"});
}

TEST_F(DeployOps, WhereAndItsGradient) {
  const DenseTensor c = MakeTensor<bool>({2, 2}, {1, 0, 0, 1});
  const DenseTensor x = MakeTensor<double>({2, 2}, {1, 2, 3, 4});
  const DenseTensor y = MakeTensor<double>({2, 2}, {-1, -2, -3, -4});
  EXPECT_EQ(ToDoubles(Out(RunOp("where", {{"Condition", {c}}, {"X", {x}}, {"Y", {y}}},
                                {{"Out", 1}}))),
            (std::vector<double>{1, -2, -3, 4}));
  GradCheck check;
  check.op_type = "where";
  check.inputs = {{"Condition", {c}}, {"X", {x}}, {"Y", {y}}};
  check.outputs = {{"Out", 1}};
  check.wrt = {"X", "Y"};
  check.max_order = 2;
  CheckGradients(check);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("where", {{"Condition", {c}}, {"X", {x}}, {"Y", {MakeTensor<double>({4}, {1, 2, 3, 4})}}},
              {{"Out", 1}});
      },
      {"op `where` input `Y`", "shape of X"});
}

// ---------------------------------------------------------------- indexing

TEST_F(DeployOps, GatherAlongAnyAxisAndItsGradient) {
  const std::vector<double> xv = RandomValues(24, -1, 1, 3);
  const DenseTensor x = MakeTensor<double>({2, 3, 4}, xv);
  const DenseTensor index = MakeTensor<int64_t>({4}, {2, 0, 2, 1});
  for (int axis : {0, 1, 2, -1}) {
    const int a = axis < 0 ? axis + 3 : axis;
    const std::vector<int64_t> idx = a == 0 ? std::vector<int64_t>{1, 0} : std::vector<int64_t>{2, 0, 2, 1};
    const DenseTensor index_t =
        MakeTensor<int32_t>({static_cast<int64_t>(idx.size())}, {idx.begin(), idx.end()});
    std::vector<int64_t> dims = {2, 3, 4};
    dims[a] = static_cast<int64_t>(idx.size());
    std::vector<double> want;
    for (int64_t i = 0; i < dims[0]; ++i) {
      for (int64_t j = 0; j < dims[1]; ++j) {
        for (int64_t k = 0; k < dims[2]; ++k) {
          int64_t s[3] = {i, j, k};
          s[a] = idx[s[a]];
          want.push_back(xv[(s[0] * 3 + s[1]) * 4 + s[2]]);
        }
      }
    }
    // The axis as an attribute and as a tensor.
    const OpRunResult by_attr =
        RunOp("gather", {{"X", {x}}, {"Index", {index_t}}}, {{"Out", 1}}, {{"axis", axis}});
    EXPECT_EQ(Out(by_attr).dims(), DDim(dims));
    ExpectNear(ToDoubles(Out(by_attr)), want, 0, 0, "gather axis " + std::to_string(axis));
    const DenseTensor axis_t = MakeTensor<int64_t>({1}, {static_cast<double>(axis)});
    const OpRunResult by_tensor =
        RunOp("gather", {{"X", {x}}, {"Index", {index_t}}, {"Axis", {axis_t}}}, {{"Out", 1}});
    ExpectNear(ToDoubles(Out(by_tensor)), want, 0, 0, "gather Axis tensor");
  }
  GradCheck check;
  check.op_type = "gather";
  check.inputs = {{"X", {x}}, {"Index", {index}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"axis", 2}};
  check.wrt = {"X"};
  CheckGradients(check);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("gather", {{"X", {x}}, {"Index", {MakeTensor<int64_t>({2}, {0, 3})}}}, {{"Out", 1}},
              {{"axis", 1}});
      },
      {"op `gather` input `Index`", "index 3 at element 1", "[0, 3)"});
}

TEST_F(DeployOps, GatherNdAndIndexSelect) {
  const DenseTensor x = MakeTensor<double>({2, 3}, {1, 2, 3, 4, 5, 6});
  const DenseTensor pairs = MakeTensor<int64_t>({2, 2}, {1, 0, 0, -1});
  const DenseTensor g = Out(RunOp("gather_nd", {{"X", {x}}, {"Index", {pairs}}}, {{"Out", 1}}));
  EXPECT_EQ(g.dims(), DDim({2}));
  EXPECT_EQ(ToDoubles(g), (std::vector<double>{4, 3}));
  const DenseTensor rows =
      Out(RunOp("gather_nd", {{"X", {x}}, {"Index", {MakeTensor<int32_t>({1, 1}, {1})}}},
                {{"Out", 1}}));
  EXPECT_EQ(rows.dims(), DDim({1, 3}));
  EXPECT_EQ(ToDoubles(rows), (std::vector<double>{4, 5, 6}));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("gather_nd", {{"X", {x}}, {"Index", {MakeTensor<int64_t>({1, 2}, {2, 0})}}},
              {{"Out", 1}});
      },
      {"op `gather_nd` input `Index`", "index 2 of tuple 0"});

  const DenseTensor index = MakeTensor<int64_t>({3}, {2, -3, 2});
  const DenseTensor s = Out(RunOp("index_select", {{"X", {x}}, {"Index", {index}}}, {{"Out", 1}},
                                  {{"dim", 1}}));
  EXPECT_EQ(s.dims(), DDim({2, 3}));
  EXPECT_EQ(ToDoubles(s), (std::vector<double>{3, 1, 3, 6, 4, 6}));
  GradCheck check;
  check.op_type = "index_select";
  check.inputs = {{"X", {x}}, {"Index", {index}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"dim", 1}};
  check.wrt = {"X"};
  CheckGradients(check);
}

// ---------------------------------------------------------------- shapes

TEST_F(DeployOps, TileFromEachSourceAndItsGradient) {
  const DenseTensor x = MakeTensor<double>({2, 1}, {1, 2});
  const std::vector<double> want = {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2};
  const DenseTensor a = Out(RunOp("tile", {{"X", {x}}}, {{"Out", 1}},
                                  {{"repeat_times", std::vector<int>{2, 3}}}));
  EXPECT_EQ(a.dims(), DDim({4, 3}));
  EXPECT_EQ(ToDoubles(a), want);
  const DenseTensor b =
      Out(RunOp("tile", {{"X", {x}}, {"RepeatTimes", {MakeTensor<int32_t>({2}, {2, 3})}}},
                {{"Out", 1}}));
  EXPECT_EQ(ToDoubles(b), want);
  const DenseTensor c = Out(RunOp(
      "tile",
      {{"X", {x}},
       {"repeat_times_tensor", {MakeTensor<int64_t>({1}, {2}), MakeTensor<int64_t>({1}, {3})}}},
      {{"Out", 1}}));
  EXPECT_EQ(ToDoubles(c), want);
  // Fewer repeats than dims, and more.
  const DenseTensor d = Out(RunOp("tile", {{"X", {x}}}, {{"Out", 1}},
                                  {{"repeat_times", std::vector<int>{2}}}));
  EXPECT_EQ(d.dims(), DDim({2, 2}));
  EXPECT_EQ(ToDoubles(d), (std::vector<double>{1, 1, 2, 2}));
  const DenseTensor e = Out(RunOp("tile", {{"X", {x}}}, {{"Out", 1}},
                                  {{"repeat_times", std::vector<int>{2, 1, 1}}}));
  EXPECT_EQ(e.dims(), DDim({2, 2, 1}));
  GradCheck check;
  check.op_type = "tile";
  check.inputs = {{"X", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1, 9))}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"repeat_times", std::vector<int>{2, 1, 2}}};
  CheckGradients(check);
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("tile", {{"X", {x}}}, {{"Out", 1}}, {{"repeat_times", std::vector<int>{-1}}}); },
      {"op `tile` attribute `repeat_times`", "repeats >= 0"});
}

// expand (1.x): tile under other slot names, one repeat per dim of X.
TEST_F(DeployOps, ExpandV1FromEachSourceAndItsGradient) {
  const DenseTensor x = MakeTensor<double>({2, 1}, {1, 2});
  const std::vector<double> want = {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2};
  EXPECT_EQ(ToDoubles(Out(RunOp("expand", {{"X", {x}}}, {{"Out", 1}},
                                {{"expand_times", std::vector<int>{2, 3}}}))),
            want);
  EXPECT_EQ(ToDoubles(Out(RunOp("expand",
                                {{"X", {x}}, {"ExpandTimes", {MakeTensor<int64_t>({2}, {2, 3})}}},
                                {{"Out", 1}}))),
            want);
  EXPECT_EQ(ToDoubles(Out(RunOp("expand",
                                {{"X", {x}},
                                 {"expand_times_tensor",
                                  {MakeTensor<int32_t>({1}, {2}), MakeTensor<int32_t>({1}, {3})}}},
                                {{"Out", 1}}))),
            want);
  GradCheck check;
  check.op_type = "expand";
  check.inputs = {{"X", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1, 10))}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"expand_times", std::vector<int>{3, 2}}};
  CheckGradients(check);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("expand", {{"X", {x}}}, {{"Out", 1}}, {{"expand_times", std::vector<int>{2}}});
      },
      {"op `expand` attribute `expand_times`", "expected 2 repeats", "received 1"});
}

TEST_F(DeployOps, ExpandV2AndItsGradient) {
  const DenseTensor x = MakeTensor<double>({2, 1}, {1, 2});
  const DenseTensor a = Out(RunOp("expand_v2", {{"X", {x}}}, {{"Out", 1}},
                                  {{"shape", std::vector<int>{2, -1, 3}}}));
  EXPECT_EQ(a.dims(), DDim({2, 2, 3}));
  EXPECT_EQ(ToDoubles(a), (std::vector<double>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
  const DenseTensor b =
      Out(RunOp("expand_v2", {{"X", {x}}, {"Shape", {MakeTensor<int32_t>({2}, {2, 4})}}},
                {{"Out", 1}}));
  EXPECT_EQ(b.dims(), DDim({2, 4}));
  GradCheck check;
  check.op_type = "expand_v2";
  check.inputs = {{"X", {MakeTensor<double>({3, 1}, {0.5, -1, 2})}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"shape", std::vector<int>{2, 3, 4}}};
  check.max_order = 2;
  CheckGradients(check);
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("expand_v2", {{"X", {x}}}, {{"Out", 1}}, {{"shape", std::vector<int>{3, 3}}}); },
      {"op `expand_v2` attribute `shape`", "dim 0 of X is 2"});
}

TEST_F(DeployOps, StackUnstackAndTheirGradients) {
  const DenseTensor a = MakeTensor<double>({2}, {1, 2});
  const DenseTensor b = MakeTensor<double>({2}, {3, 4});
  const DenseTensor s0 = Out(RunOp("stack", {{"X", {a, b}}}, {{"Y", 1}}), "Y");
  EXPECT_EQ(s0.dims(), DDim({2, 2}));
  EXPECT_EQ(ToDoubles(s0), (std::vector<double>{1, 2, 3, 4}));
  const DenseTensor s1 = Out(RunOp("stack", {{"X", {a, b}}}, {{"Y", 1}}, {{"axis", -1}}), "Y");
  EXPECT_EQ(ToDoubles(s1), (std::vector<double>{1, 3, 2, 4}));
  const OpRunResult u =
      RunOp("unstack", {{"X", {s0}}}, {{"Y", 2}}, {{"axis", 1}, {"num", 2}});
  EXPECT_EQ(ToDoubles(Out(u, "Y", 0)), (std::vector<double>{1, 3}));
  EXPECT_EQ(ToDoubles(Out(u, "Y", 1)), (std::vector<double>{2, 4}));
  GradCheck stack;
  stack.op_type = "stack";
  stack.inputs = {{"X", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1, 4)),
                         MakeTensor<double>({2, 3}, RandomValues(6, -1, 1, 5))}}};
  stack.outputs = {{"Y", 1}};
  stack.attrs = {{"axis", 1}};
  stack.max_order = 2;
  CheckGradients(stack);
  GradCheck unstack;
  unstack.op_type = "unstack";
  unstack.inputs = {{"X", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1, 6))}}};
  unstack.outputs = {{"Y", 3}};
  unstack.attrs = {{"axis", 1}, {"num", 3}};
  unstack.max_order = 2;
  CheckGradients(unstack);
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("stack", {{"X", {a, MakeTensor<double>({3}, {1, 2, 3})}}}, {{"Y", 1}}); },
      {"op `stack` input `X`", "position 1"});
}

TEST_F(DeployOps, RangeCumsumAndFillConstantBatchSizeLike) {
  const auto range = [](const DenseTensor& s, const DenseTensor& e, const DenseTensor& st) {
    return Out(RunOp("range", {{"Start", {s}}, {"End", {e}}, {"Step", {st}}}, {{"Out", 1}}));
  };
  const DenseTensor r = range(MakeTensor<int64_t>({1}, {1}), MakeTensor<int64_t>({1}, {8}),
                              MakeTensor<int64_t>({1}, {2}));
  EXPECT_EQ(r.dtype(), DataType::INT64);
  EXPECT_EQ(ToDoubles(r), (std::vector<double>{1, 3, 5, 7}));
  const DenseTensor f = range(MakeTensor<float>({1}, {1}), MakeTensor<float>({1}, {0}),
                              MakeTensor<float>({1}, {-0.25}));
  ExpectNear(ToDoubles(f), {1, 0.75, 0.5, 0.25}, 0, 0, "range float");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        range(MakeTensor<int32_t>({1}, {0}), MakeTensor<int32_t>({1}, {5}),
              MakeTensor<int32_t>({1}, {0}));
      },
      {"op `range` input `Step`", "non-zero"});

  const DenseTensor x = MakeTensor<double>({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto cumsum = [&](const AttributeMap& attrs) {
    return ToDoubles(Out(RunOp("cumsum", {{"X", {x}}}, {{"Out", 1}}, attrs)));
  };
  EXPECT_EQ(cumsum({}), (std::vector<double>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(cumsum({{"axis", 0}}), (std::vector<double>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(cumsum({{"exclusive", true}}), (std::vector<double>{0, 1, 3, 0, 4, 9}));
  EXPECT_EQ(cumsum({{"reverse", true}}), (std::vector<double>{6, 5, 3, 15, 11, 6}));
  EXPECT_EQ(cumsum({{"reverse", true}, {"exclusive", true}}),
            (std::vector<double>{5, 3, 0, 11, 6, 0}));
  EXPECT_EQ(cumsum({{"flatten", true}}), (std::vector<double>{1, 3, 6, 10, 15, 21}));
  for (const AttributeMap& attrs :
       {AttributeMap{}, AttributeMap{{"axis", 0}, {"reverse", true}},
        AttributeMap{{"exclusive", true}}}) {
    GradCheck check;
    check.op_type = "cumsum";
    check.inputs = {{"X", {MakeTensor<double>({3, 4}, RandomValues(12, -1, 1, 8))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = attrs;
    check.max_order = 2;
    CheckGradients(check);
  }

  const DenseTensor in = MakeTensor<float>({5, 7}, RandomValues(35, 0, 1));
  const DenseTensor filled = Out(RunOp("fill_constant_batch_size_like", {{"Input", {in}}},
                                       {{"Out", 1}},
                                       {{"shape", std::vector<int>{3, -1}},
                                        {"value", 2.5f},
                                        {"input_dim_idx", 1},
                                        {"output_dim_idx", 1},
                                        {"dtype", static_cast<int>(DataType::FLOAT64)}}));
  EXPECT_EQ(filled.dtype(), DataType::FLOAT64);
  EXPECT_EQ(filled.dims(), DDim({3, 7}));
  EXPECT_EQ(ToDoubles(filled), std::vector<double>(21, 2.5));
}

TEST_F(DeployOps, LookupTableVersion1DropsTheTrailingDimOfIds) {
  const DenseTensor w = MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  const DenseTensor ids = MakeTensor<int64_t>({3, 1}, {2, 0, 1});
  const DenseTensor out = Out(RunOp("lookup_table", {{"W", {w}}, {"Ids", {ids}}}, {{"Out", 1}},
                                    {{"padding_idx", int64_t{0}}}));
  EXPECT_EQ(out.dims(), DDim({3, 2}));
  EXPECT_EQ(ToDoubles(out), (std::vector<double>{5, 6, 0, 0, 3, 4}));
  GradCheck check;
  check.op_type = "lookup_table";
  check.inputs = {{"W", {MakeTensor<double>({3, 2}, RandomValues(6, -1, 1, 2))}}, {"Ids", {ids}}};
  check.outputs = {{"Out", 1}};
  check.wrt = {"W"};
  CheckGradients(check);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lookup_table", {{"W", {w}}, {"Ids", {MakeTensor<int64_t>({3}, {0, 1, 2})}}},
              {{"Out", 1}});
      },
      {"op `lookup_table` input `Ids`", "last dim of 1"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// The int8 conversions of quantized inference programs (quantize, dequantize, requantize,
// dequantize_abs_max, dequantize_log, lookup_table_dequant) and cvm, against references
// written here (rounding half to even and saturation spelled out), with their typed errors.
// PaddlePaddle's own outputs are checked by the fixture test.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// round half to even, then clamp to [lo, hi].
double RoundSaturate(double v, double lo, double hi) {
  double r = std::floor(v);
  const double frac = v - r;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1;
  return std::min(hi, std::max(lo, r));
}

TEST(Quantize, RoundsHalfToEvenAndSaturatesToItsType) {
  // Values that land on halves and beyond the ranges at scale 10.
  const std::vector<double> x = {0.05, 0.15, -0.25, -0.35, 12.7, 13.0, -12.9, -20.0, 0.0, 3.14};
  struct Case {
    bool negative;
    float shift;
    DataType type;
    double lo, hi;
  };
  for (const Case& c :
       {Case{true, 0.0f, DataType::INT8, -128, 127}, Case{false, 0.0f, DataType::UINT8, 0, 255},
        Case{true, 128.0f, DataType::UINT8, 0, 255}}) {
    const std::string what =
        std::string("negative ") + (c.negative ? "1" : "0") + " shift " + std::to_string(c.shift);
    const auto r = RunOp("quantize", {{"Input", {MakeTensor<float>({2, 5}, x)}}}, {{"Output", 1}},
                         {{"Scale", 10.0f}, {"Shift", c.shift}, {"is_negative_input", c.negative}});
    const DenseTensor& out = r.outputs.at("Output")[0];
    ASSERT_EQ(out.dtype(), c.type) << what;
    std::vector<double> expected;
    for (double v : x) expected.push_back(RoundSaturate(v * 10 + c.shift, c.lo, c.hi));
    ExpectNear(ToDoubles(out), expected, 0, 0, what);
  }
  const auto bf = RunOp("quantize", {{"Input", {MakeTensor<double>({2, 5}, x)}}}, {{"Output", 1}},
                        {{"bfloat16", true}});
  EXPECT_EQ(bf.outputs.at("Output")[0].dtype(), DataType::BFLOAT16);
  ExpectNear(ToDoubles(bf.outputs.at("Output")[0]), x, 1.0 / 128, 0, "bfloat16");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("quantize", {{"Input", {MakeTensor<float>({2, 5}, x)}}}, {{"Output", 1}},
              {{"Scale", 1.0f}, {"Shift", 300.0f}});
      },
      {"op `quantize` attribute `Shift`", "[0, 255]", "300"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("quantize", {{"Input", {MakeTensor<float>({2, 5}, x)}}}, {{"Output", 1}},
              {{"Scale", 0.0f}});
      },
      {"op `quantize` attribute `Scale`", "positive scale"});
}

TEST(Dequantize, SubtractsTheShiftAndDividesByTheScale) {
  const std::vector<double> q = {-128, -3, 0, 7, 127, 100};
  const auto r = RunOp("dequantize", {{"Input", {MakeTensor<int8_t>({2, 3}, q)}}}, {{"Output", 1}},
                       {{"Scale", 4.0f}});
  std::vector<double> expected;
  for (double v : q) expected.push_back(v / 4);
  EXPECT_EQ(r.outputs.at("Output")[0].dtype(), DataType::FLOAT32);
  ExpectNear(ToDoubles(r.outputs.at("Output")[0]), expected, 0, 0, "int8");
  const std::vector<double> u = {0, 128, 255, 3, 130, 64};
  const auto s = RunOp("dequantize", {{"Input", {MakeTensor<uint8_t>({2, 3}, u)}}}, {{"Output", 1}},
                       {{"Scale", 4.0f}, {"Shift", 128.0f}});
  expected.clear();
  for (double v : u) expected.push_back((v - 128) / 4);
  ExpectNear(ToDoubles(s.outputs.at("Output")[0]), expected, 0, 0, "uint8 shifted");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("dequantize", {{"Input", {MakeTensor<int32_t>({2, 3}, q)}}}, {{"Output", 1}}, {});
      },
      {"op `dequantize` input `Input`", "expected int8 or uint8", "int32"});
}

TEST(Requantize, RescalesAndReshiftsWithSaturation) {
  const std::vector<double> q = {-128, -5, 0, 9, 100, 127};
  const auto r = RunOp("requantize", {{"Input", {MakeTensor<int8_t>({6}, q)}}}, {{"Output", 1}},
                       {{"Scale_in", 20.0f}, {"Scale_out", 30.0f}});
  EXPECT_EQ(r.outputs.at("Output")[0].dtype(), DataType::INT8);
  std::vector<double> expected;
  for (double v : q) expected.push_back(RoundSaturate(v * 1.5, -128, 127));
  ExpectNear(ToDoubles(r.outputs.at("Output")[0]), expected, 0, 0, "int8 -> int8");
  // A shifted output is uint8.
  const auto s = RunOp("requantize", {{"Input", {MakeTensor<int8_t>({6}, q)}}}, {{"Output", 1}},
                       {{"Scale_in", 20.0f}, {"Scale_out", 10.0f}, {"Shift_out", 128.0f}});
  EXPECT_EQ(s.outputs.at("Output")[0].dtype(), DataType::UINT8);
  expected.clear();
  for (double v : q) expected.push_back(RoundSaturate(v * 0.5 + 128, 0, 255));
  ExpectNear(ToDoubles(s.outputs.at("Output")[0]), expected, 0, 0, "int8 -> shifted uint8");
}

TEST(DequantizeWeights, AbsMaxAndLogTable) {
  const std::vector<double> q = {-127, -64, -1, 0, 1, 64, 127, 33};
  const auto a =
      RunOp("dequantize_abs_max",
            {{"X", {MakeTensor<int8_t>({2, 4}, q)}}, {"Scale", {MakeTensor<float>({1}, {0.5})}}},
            {{"Out", 1}}, {{"max_range", 127.0f}});
  std::vector<double> expected;
  for (double v : q) expected.push_back(v * 0.5 / 127);
  ExpectNear(ToDoubles(a.outputs.at("Out")[0]), expected, 1e-7, 0, "abs_max");

  std::vector<double> dict(128);
  for (int i = 0; i < 128; ++i) dict[i] = std::pow(2.0, i / 16.0) - 1;
  const auto l =
      RunOp("dequantize_log",
            {{"X", {MakeTensor<int8_t>({2, 4}, q)}}, {"Dict", {MakeTensor<float>({128}, dict)}}},
            {{"Out", 1}});
  expected.clear();
  for (double v : q) {
    const int c = static_cast<int>(v);
    expected.push_back(c < 0 ? -dict[c + 128] : dict[c]);
  }
  ExpectNear(ToDoubles(l.outputs.at("Out")[0]), expected, 1e-6, 0, "log");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("dequantize_log",
              {{"X", {MakeTensor<int8_t>({2, 4}, q)}},
               {"Dict", {MakeTensor<float>({64}, std::vector<double>(64))}}},
              {{"Out", 1}});
      },
      {"op `dequantize_log` input `Dict`", "expected 128 float32 values", "[64]"});
}

TEST(LookupTableDequant, DecodesTheRowsOfTheIds) {
  const int64_t rows = 4, d = 8;
  std::vector<uint8_t> codes(rows * d);
  for (size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
  const std::vector<double> lo = {-1, -0.5, 0, 2}, hi = {1, 0.5, 2.56, 3};
  DenseTensor w(DDim({rows, 2 + d / 4}), DataType::FLOAT32);
  float* p = w.mutable_data<float>(platform::CPUPlace());
  for (int64_t r = 0; r < rows; ++r) {
    p[r * (2 + d / 4)] = static_cast<float>(lo[r]);
    p[r * (2 + d / 4) + 1] = static_cast<float>(hi[r]);
    std::memcpy(p + r * (2 + d / 4) + 2, codes.data() + r * d, d);
  }
  const std::vector<double> ids = {3, 0, 2, 2};
  const auto r =
      RunOp("lookup_table_dequant", {{"W", {w}}, {"Ids", {MakeTensor<int64_t>({4, 1}, ids)}}},
            {{"Out", 1}}, {{"padding_idx", int64_t{2}}});
  std::vector<double> expected;
  for (double id : ids) {
    const int row = static_cast<int>(id);
    for (int64_t j = 0; j < d; ++j) {
      expected.push_back(row == 2 ? 0.0 : lo[row] + (hi[row] - lo[row]) / 256 * codes[row * d + j]);
    }
  }
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({4, d}));
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), expected, 1e-6, 1e-7, "decoded rows");
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lookup_table_dequant", {{"W", {w}}, {"Ids", {MakeTensor<int64_t>({1, 1}, {4})}}},
              {{"Out", 1}});
      },
      {"op `lookup_table_dequant` input `Ids`", "id 4", "[0, 4)"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lookup_table_dequant",
              {{"W", {MakeTensor<float>({2, 2}, std::vector<double>(4))}},
               {"Ids", {MakeTensor<int64_t>({1, 1}, {0})}}},
              {{"Out", 1}});
      },
      {"op `lookup_table_dequant` input `W`", "at least 3 columns"});
}

TEST(Cvm, LogFeaturesOrDroppedCountsAndTheBackwardOfCtrPrograms) {
  const framework::LoD lod = {{0, 1, 3}};  // Two instances over three rows.
  const std::vector<double> x = {3, 1, 0.5, -2, 0, 0, 1, 4, 7, 2, -1, 0.25};  // [3, 4].
  const std::vector<double> cvm = {10, 20, 30, 40};                           // [2, 2].
  const std::vector<double> dy_full = RandomValues(12, -1, 1, 5);
  for (bool use_cvm : {true, false}) {
    const std::string what = use_cvm ? "use_cvm" : "drop counts";
    DenseTensor xt = MakeTensor<double>({3, 4}, x);
    xt.set_lod(lod);
    const auto r = RunOp("cvm", {{"X", {xt}}, {"CVM", {MakeTensor<double>({2, 2}, cvm)}}},
                         {{"Y", 1}}, {{"use_cvm", use_cvm}});
    std::vector<double> expected;
    for (int row = 0; row < 3; ++row) {
      const double* v = &x[row * 4];
      if (use_cvm) {
        expected.push_back(std::log(v[0] + 1));
        expected.push_back(std::log(v[1] + 1) - std::log(v[0] + 1));
      }
      expected.push_back(v[2]);
      expected.push_back(v[3]);
    }
    ExpectNear(ToDoubles(r.outputs.at("Y")[0]), expected, 1e-15, 0, what);
    EXPECT_EQ(r.outputs.at("Y")[0].lod(), lod) << what;

    const int64_t dy_d = use_cvm ? 4 : 2;
    const std::vector<double> dy(dy_full.begin(), dy_full.begin() + 3 * dy_d);
    const auto g = RunOp("cvm_grad",
                         {{"X", {xt}},
                          {"CVM", {MakeTensor<double>({2, 2}, cvm)}},
                          {"Y@GRAD", {MakeTensor<double>({3, dy_d}, dy)}}},
                         {{"X@GRAD", 1}}, {{"use_cvm", use_cvm}});
    std::vector<double> dx;
    const int instance[3] = {0, 1, 1};
    for (int row = 0; row < 3; ++row) {
      dx.push_back(cvm[instance[row] * 2]);
      dx.push_back(cvm[instance[row] * 2 + 1]);
      dx.push_back(dy[row * dy_d + dy_d - 2]);
      dx.push_back(dy[row * dy_d + dy_d - 1]);
    }
    ExpectNear(ToDoubles(g.outputs.at("X@GRAD")[0]), dx, 0, 0, what + " grad");
  }
  DenseTensor xt = MakeTensor<double>({3, 4}, x);
  xt.set_lod(lod);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("cvm_grad",
              {{"X", {xt}},
               {"CVM", {MakeTensor<double>({3, 2}, std::vector<double>(6))}},
               {"Y@GRAD", {MakeTensor<double>({3, 4}, dy_full)}}},
              {{"X@GRAD", 1}});
      },
      {"op `cvm_grad` input `CVM`", "expected 2 rows", "[3, 2]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("cvm",
              {{"X", {MakeTensor<double>({3, 1}, {1, 2, 3})}},
               {"CVM", {MakeTensor<double>({3, 2}, std::vector<double>(6))}}},
              {{"Y", 1}});
      },
      {"op `cvm` input `X`", "D >= 2", "[3, 1]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

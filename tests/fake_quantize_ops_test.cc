// The simulated-quantization ops against the quantization formulas written here in double
// (both rounding rules, ties and clipping), their training paths (moving averages, channel
// scales), the straight-through gradients, typed errors. PaddlePaddle's own outputs are
// checked by the fixture test.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class FakeQuantize : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

// Round half to even, by comparing the distances to the two neighbours.
double RoundEven(double v) {
  const double lo = std::floor(v), hi = std::ceil(v);
  if (v - lo < hi - v) return lo;
  if (v - lo > hi - v) return hi;
  return std::fmod(lo, 2.0) == 0 ? lo : hi;
}

double RoundAway(double v) { return v < 0 ? -std::floor(-v + 0.5) : std::floor(v + 0.5); }

double QuantizeRef(double x, double s, double qmax, int round_type) {
  if (round_type == 0) return std::min(std::max(RoundEven(qmax / s * x), -qmax - 1), qmax);
  return RoundAway(qmax / s * std::min(std::max(x, -s), s));
}

// With s = qmax the scaled values are the values themselves: ties at .5 are exact.
const std::vector<double> kTies = {2.5,   3.5,   -2.5,   -3.5, 0.5, -0.5,
                                   126.5, 127.6, -128.5, -130, 200, 1.25};

TEST_F(FakeQuantize, BothRoundingRulesOnTiesAndClipping) {
  for (int round_type : {0, 1}) {
    std::vector<double> want_q, want_qdq;
    for (double x : kTies) {
      want_q.push_back(QuantizeRef(x, 127, 127, round_type));
      want_qdq.push_back(want_q.back() * 127 / 127);
    }
    const DenseTensor x = MakeTensor<double>({12}, kTies);
    const DenseTensor scale = MakeTensor<double>({1}, {127});
    const AttributeMap linear = {{"quant_axis", -1}, {"round_type", round_type}};
    const auto q = RunOp("quantize_linear", {{"X", {x}}, {"Scale", {scale}}}, {{"Y", 1}}, linear);
    EXPECT_EQ(ToDoubles(q.outputs.at("Y")[0]), want_q) << "round_type " << round_type;
    const auto dq = RunOp("dequantize_linear", {{"X", {q.outputs.at("Y")[0]}}, {"Scale", {scale}}},
                          {{"Y", 1}}, linear);
    EXPECT_EQ(ToDoubles(dq.outputs.at("Y")[0]), want_qdq);
    const auto fq =
        RunOp("fake_quantize_moving_average_abs_max", {{"X", {x}}, {"InScale", {scale}}},
              {{"Out", 1}, {"OutScale", 1}}, {{"round_type", round_type}, {"is_test", true}});
    EXPECT_EQ(ToDoubles(fq.outputs.at("Out")[0]), want_q);
  }
  // Hand-checked: ties to even give 2, 4, -2, -4; away from zero 3, 4, -3, -4.
  const auto even = RunOp("quantize_linear",
                          {{"X", {MakeTensor<double>({4}, {2.5, 3.5, -2.5, -3.5})}},
                           {"Scale", {MakeTensor<double>({1}, {127})}}},
                          {{"Y", 1}}, {{"quant_axis", -1}, {"round_type", 0}});
  EXPECT_EQ(ToDoubles(even.outputs.at("Y")[0]), (std::vector<double>{2, 4, -2, -4}));
}

TEST_F(FakeQuantize, PerChannelScalesAlongEitherAxis) {
  const std::vector<double> x = RandomValues(24, -2, 2, 3);
  for (int axis : {0, 1, 2}) {
    const std::vector<int64_t> dims = {2, 3, 4};
    const int64_t channels = dims[axis];
    const std::vector<double> scales = RandomValues(channels, 0.5, 1.5, 4);
    std::vector<double> want;
    for (int64_t i = 0; i < 24; ++i) {
      const int64_t idx[3] = {i / 12, (i / 4) % 3, i % 4};
      const double s = scales[idx[axis]];
      want.push_back(QuantizeRef(x[i], s, 127, 0) * s / 127);
    }
    const DenseTensor xt = MakeTensor<double>(DDim(dims), x);
    const DenseTensor st = MakeTensor<double>({channels}, scales);
    const AttributeMap attrs = {{"quant_axis", axis}, {"round_type", 0}};
    const auto q = RunOp("quantize_linear", {{"X", {xt}}, {"Scale", {st}}}, {{"Y", 1}}, attrs);
    const auto dq = RunOp("dequantize_linear", {{"X", {q.outputs.at("Y")[0]}}, {"Scale", {st}}},
                          {{"Y", 1}}, attrs);
    ExpectNear(ToDoubles(dq.outputs.at("Y")[0]), want, 1e-15, 1e-15,
               "axis " + std::to_string(axis));
  }
  // Channel-wise fake quantize-dequantize: the scales are max |X| per channel.
  const DenseTensor w = MakeTensor<double>({3, 4}, std::vector<double>(x.begin(), x.begin() + 12));
  const auto r = RunOp("fake_channel_wise_quantize_dequantize_abs_max", {{"X", {w}}},
                       {{"Out", 1}, {"OutScale", 1}}, {{"quant_axis", 0}, {"round_type", 1}});
  std::vector<double> maxes(3, 0.0), want;
  for (int i = 0; i < 12; ++i) maxes[i / 4] = std::max(maxes[i / 4], std::abs(x[i]));
  for (int i = 0; i < 12; ++i)
    want.push_back(QuantizeRef(x[i], maxes[i / 4], 127, 1) * maxes[i / 4] / 127);
  ExpectNear(ToDoubles(r.outputs.at("OutScale")[0]), maxes, 0, 0, "channel scales");
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-15, 1e-15, "channel qdq");
}

TEST_F(FakeQuantize, DequantizeReadsInt8AndOtherBitLengths) {
  const DenseTensor w = MakeTensor<int8_t>({2, 3}, {-128, -1, 0, 1, 64, 127});
  const auto r =
      RunOp("dequantize_linear", {{"X", {w}}, {"Scale", {MakeTensor<float>({2}, {0.5f, 2.0f})}}},
            {{"Y", 1}}, {{"quant_axis", 0}});
  EXPECT_EQ(r.outputs.at("Y")[0].dtype(), DataType::FLOAT32);
  ExpectNear(ToDoubles(r.outputs.at("Y")[0]),
             {-128 * 0.5 / 127, -0.5 / 127, 0, 2.0 / 127, 128.0 / 127, 2.0}, 1e-7, 0, "int8");
  // 4 bits: qmax 7 (a program saved before the qmax attribute).
  const auto q4 = RunOp("quantize_linear",
                        {{"X", {MakeTensor<double>({3}, {0.5, -1.0, 0.3})}},
                         {"Scale", {MakeTensor<double>({1}, {1.0})}}},
                        {{"Y", 1}}, {{"quant_axis", -1}, {"bit_length", 4}});
  EXPECT_EQ(ToDoubles(q4.outputs.at("Y")[0]), (std::vector<double>{4, -7, 2}));
  const auto fd =
      RunOp("fake_channel_wise_dequantize_max_abs",
            {{"X", {MakeTensor<double>({2, 2, 1}, {127, -127, 64, 1})}},
             {"Scales", {MakeTensor<double>({2}, {1.0, 2.0}), MakeTensor<double>({1}, {0.5})}}},
            {{"Out", 1}}, {{"quant_bits", std::vector<int>{8, 8}}});
  // Channels along dim 1 times the overall scale, over 127 * 127.
  ExpectNear(ToDoubles(fd.outputs.at("Out")[0]),
             {127 * 0.5 / 16129, -127 * 2.0 * 0.5 / 16129, 64 * 0.5 / 16129, 1 * 2.0 * 0.5 / 16129},
             1e-15, 0, "two scales");
}

TEST_F(FakeQuantize, TrainingUpdatesTheMovingAverage) {
  const DenseTensor x = MakeTensor<double>({4}, {0.5, -2.0, 1.0, 0.25});
  const DenseTensor accum = MakeTensor<double>({1}, {1.5});
  const DenseTensor state = MakeTensor<double>({1}, {2.0});
  // state = 0.9 * 2 + 1 = 2.8, accum = 0.9 * 1.5 + 2 = 3.35, scale = 3.35 / 2.8.
  const double scale = 3.35 / 2.8;
  const auto r = RunOp("fake_quantize_dequantize_moving_average_abs_max",
                       {{"X", {x}},
                        {"InScale", {MakeTensor<double>({1}, {9.0})}},
                        {"InAccum", {accum}},
                        {"InState", {state}}},
                       {{"Out", 1}, {"OutScale", 1}, {"OutState", 1}, {"OutAccum", 1}},
                       {{"is_test", false}, {"moving_rate", 0.9f}});
  const double rate = static_cast<double>(0.9f);
  ExpectNear(ToDoubles(r.outputs.at("OutState")[0]), {rate * 2 + 1}, 1e-15, 0, "state");
  ExpectNear(ToDoubles(r.outputs.at("OutAccum")[0]), {rate * 1.5 + 2}, 1e-15, 0, "accum");
  ExpectNear(ToDoubles(r.outputs.at("OutScale")[0]), {scale}, 1e-7, 0, "scale");
  std::vector<double> want;
  const double s = (rate * 1.5 + 2) / (rate * 2 + 1);
  for (double v : {0.5, -2.0, 1.0, 0.25}) want.push_back(QuantizeRef(v, s, 127, 1) * s / 127);
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-15, 1e-15, "out");
  // The observer: Out = X and the same moving average.
  const auto o = RunOp(
      "moving_average_abs_max_scale", {{"X", {x}}, {"InAccum", {accum}}, {"InState", {state}}},
      {{"Out", 1}, {"OutScale", 1}, {"OutState", 1}, {"OutAccum", 1}}, {{"is_test", false}});
  EXPECT_EQ(ToDoubles(o.outputs.at("Out")[0]), ToDoubles(x));
  ExpectNear(ToDoubles(o.outputs.at("OutScale")[0]), {s}, 1e-15, 0, "observer scale");
  // quantize_linear when training: per channel, the channel maxima.
  const auto q = RunOp("quantize_linear",
                       {{"X", {MakeTensor<double>({2, 2}, {0.5, -2.0, 1.0, 0.25})}},
                        {"Scale", {MakeTensor<double>({2}, {1, 1})}}},
                       {{"Y", 1}, {"OutScale", 1}}, {{"quant_axis", 0}, {"is_test", false}});
  EXPECT_EQ(ToDoubles(q.outputs.at("OutScale")[0]), (std::vector<double>{2.0, 1.0}));
}

// fake_quantize_range_abs_max over six training steps with a window of 3, its state carried
// from step to step as a program carries it (OutScale is InScale's variable, OutScales the
// window's), against the window's definition: the scale is the largest max |X| among the
// last three steps.
TEST_F(FakeQuantize, RangeAbsMaxKeepsTheLargestOfTheWindow) {
  const std::vector<double> peaks = {0.5, 0.9, 0.3, 0.2, 0.1, 0.4};
  DenseTensor scale = MakeTensor<double>({1}, {0.001});
  DenseTensor window;
  std::vector<double> recent;  // The last three peaks.
  for (size_t it = 0; it < peaks.size(); ++it) {
    const std::vector<double> xv = {peaks[it] / 2, -peaks[it], peaks[it] / 3};
    std::map<std::string, DenseTensor> feeds = {{"x", MakeTensor<double>({3}, xv)},
                                                {"scale", scale},
                                                {"iter", MakeTensor<int64_t>({1}, {double(it)})}};
    if (window.initialized()) feeds["window"] = window;
    const auto r = RunNamedOp(
        "fake_quantize_range_abs_max", {{"X", {"x"}}, {"InScale", {"scale"}}, {"Iter", {"iter"}}},
        {{"Out", {"out"}}, {"OutScale", {"scale"}}, {"OutScales", {"window"}}}, feeds,
        {{"window_size", 3}, {"is_test", false}, {"round_type", 1}});
    recent.push_back(peaks[it]);
    if (recent.size() > 3) recent.erase(recent.begin());
    const double want = *std::max_element(recent.begin(), recent.end());
    const std::string what = "step " + std::to_string(it);
    ExpectNear(ToDoubles(r.vars.at("scale")), {want}, 0, 0, what + " scale");
    std::vector<double> q;
    for (double v : xv) q.push_back(QuantizeRef(v, want, 127, 1));
    ExpectNear(ToDoubles(r.vars.at("out")), q, 0, 0, what + " out");
    scale = r.vars.at("scale");
    window = r.vars.at("window");
  }
  // is_test uses InScale as it is.
  const auto t = RunOp("fake_quantize_range_abs_max",
                       {{"X", {MakeTensor<double>({2}, {0.5, -2.0})}},
                        {"InScale", {MakeTensor<double>({1}, {1.0})}}},
                       {{"Out", 1}, {"OutScale", 1}}, {{"is_test", true}});
  ExpectNear(ToDoubles(t.outputs.at("Out")[0]), {QuantizeRef(0.5, 1, 127, 1), -127}, 0, 0,
             "is_test");
  ExpectError<platform::NotFoundError>(
      [&] {
        RunOp("fake_quantize_range_abs_max",
              {{"X", {MakeTensor<double>({2}, {0.5, -2.0})}},
               {"InScale", {MakeTensor<double>({1}, {1.0})}}},
              {{"Out", 1}, {"OutScale", 1}}, {{"is_test", false}});
      },
      {"op `fake_quantize_range_abs_max` input `Iter`", "required when training"});
}

TEST_F(FakeQuantize, QuantizeDequantizeGradientsGoStraightThrough) {
  for (const char* op :
       {"fake_quantize_dequantize_abs_max", "fake_channel_wise_quantize_dequantize_abs_max",
        "moving_average_abs_max_scale"}) {
    SCOPED_TRACE(op);
    const auto g = NthGradient(op, {{"X", {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1, 5))}}},
                               {{"Out", 1}, {"OutScale", 1}}, {}, 1, {"Out"});
    EXPECT_EQ(ToDoubles(g.at("X_0")), std::vector<double>(6, 1.0));
  }
}

TEST_F(FakeQuantize, BadArgumentsAreRefused) {
  const DenseTensor x = MakeTensor<float>({2, 3}, RandomValues(6, -1, 1));
  const DenseTensor one = MakeTensor<float>({1}, {1});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("quantize_linear", {{"X", {x}}, {"Scale", {one}}}, {{"Y", 1}}, {{"quant_axis", 1}});
      },
      {"op `quantize_linear` input `Scale`", "3 scale value(s)", "[1]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("quantize_linear", {{"X", {x}}, {"Scale", {one}}}, {{"Y", 1}}, {{"quant_axis", 2}});
      },
      {"op `quantize_linear` attribute `quant_axis`", "[2, 3]", "2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fake_quantize_abs_max", {{"X", {x}}}, {{"Out", 1}, {"OutScale", 1}},
              {{"bit_length", 0}});
      },
      {"op `fake_quantize_abs_max` attribute `bit_length`", "[1, 16]", "0"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fake_quantize_abs_max", {{"X", {x}}}, {{"Out", 1}, {"OutScale", 1}},
              {{"round_type", 2}});
      },
      {"fake_quantize_abs_max", "round_type"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("fake_channel_wise_dequantize_max_abs",
              {{"X", {x}}, {"Scales", {MakeTensor<float>({3}, {1, 1, 1}), one, one}}},
              {{"Out", 1}});
      },
      {"op `fake_channel_wise_dequantize_max_abs` input `Scales`", "1 or 2"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

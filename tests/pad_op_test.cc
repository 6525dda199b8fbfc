// pad3d: each mode on a hand-worked row, NCDHW against NDHWC (the same padding seen through a
// transpose), paddings from a tensor, gradients against finite differences, and the errors.
// pad2d: each mode and both layouts against direct loops, its paddings tensor, gradients and
// errors. pad (constant, any rank): against index arithmetic, the hand-worked example of its
// doc, gradients to second order, errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class Pad3dTest : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

std::vector<double> PadRow(const std::string& mode, std::vector<int> paddings, float value = 0) {
  auto r = RunOp("pad3d", {{"X", {MakeTensor<float>(DDim{1, 1, 1, 1, 3}, {1, 2, 3})}}},
                 {{"Out", 1}},
                 {{"paddings", paddings}, {"mode", mode}, {"value", value}});
  return ToDoubles(r.outputs["Out"][0]);
}

TEST_F(Pad3dTest, EachModeOnARow) {
  EXPECT_EQ(PadRow("constant", {2, 1, 0, 0, 0, 0}, 9), (std::vector<double>{9, 9, 1, 2, 3, 9}));
  EXPECT_EQ(PadRow("reflect", {2, 1, 0, 0, 0, 0}), (std::vector<double>{3, 2, 1, 2, 3, 2}));
  EXPECT_EQ(PadRow("replicate", {2, 1, 0, 0, 0, 0}), (std::vector<double>{1, 1, 1, 2, 3, 3}));
  EXPECT_EQ(PadRow("circular", {2, 4, 0, 0, 0, 0}),
            (std::vector<double>{2, 3, 1, 2, 3, 1, 2, 3, 1}));
  // H and D padding of a single row repeat it (replicate) or fill (constant).
  const std::vector<double> hd = PadRow("replicate", {0, 0, 1, 0, 0, 1});
  EXPECT_EQ(hd, (std::vector<double>{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}));
}

// NDHWC gives NCDHW's result with the channel moved last.
TEST_F(Pad3dTest, ChannelLastMatchesChannelFirst) {
  const int64_t n = 2, c = 3, d = 3, h = 4, w = 5;
  const std::vector<double> x = RandomValues(n * c * d * h * w, -1, 1, 4);
  std::vector<double> x_last(x.size());
  for (int64_t i = 0; i < n * c * d * h * w; ++i) {
    const int64_t s = i % (d * h * w), ch = (i / (d * h * w)) % c, b = i / (c * d * h * w);
    x_last[(b * d * h * w + s) * c + ch] = x[i];
  }
  for (const std::string mode : {"constant", "reflect", "replicate", "circular"}) {
    const std::vector<int> pads = {1, 2, 0, 3, 2, 1};
    AttributeMap attrs = {{"paddings", pads}, {"mode", mode}, {"value", 0.5f}};
    auto first = RunOp("pad3d", {{"X", {MakeTensor<float>(DDim{n, c, d, h, w}, x)}}},
                       {{"Out", 1}}, attrs);
    attrs["data_format"] = std::string("NDHWC");
    auto last = RunOp("pad3d", {{"X", {MakeTensor<float>(DDim{n, d, h, w, c}, x_last)}}},
                      {{"Out", 1}}, attrs);
    const DDim od = first.outputs["Out"][0].dims();
    ASSERT_EQ(od, (DDim{n, c, d + 3, h + 3, w + 3})) << mode;
    ASSERT_EQ(last.outputs["Out"][0].dims(), (DDim{n, d + 3, h + 3, w + 3, c})) << mode;
    const std::vector<double> a = ToDoubles(first.outputs["Out"][0]);
    const std::vector<double> b = ToDoubles(last.outputs["Out"][0]);
    const int64_t spatial = od[2] * od[3] * od[4];
    for (int64_t i = 0; i < od.numel(); ++i) {
      const int64_t s = i % spatial, ch = (i / spatial) % c, bb = i / (c * spatial);
      ASSERT_EQ(a[i], b[(bb * spatial + s) * c + ch]) << mode << " element " << i;
    }
  }
}

TEST_F(Pad3dTest, PaddingsTensorReplacesTheAttribute) {
  auto r = RunOp("pad3d",
                 {{"X", {MakeTensor<float>(DDim{1, 1, 1, 1, 3}, {1, 2, 3})}},
                  {"Paddings", {MakeTensor<int32_t>(DDim{6}, {1, 0, 0, 0, 0, 0})}}},
                 {{"Out", 1}}, {{"paddings", std::vector<int>{5, 5, 0, 0, 0, 0}}, {"mode", std::string("reflect")}});
  EXPECT_EQ(ToDoubles(r.outputs["Out"][0]), (std::vector<double>{2, 1, 2, 3}));
}

TEST_F(Pad3dTest, GradientsMatchFiniteDifferences) {
  const DenseTensor x = MakeTensor<double>(DDim{1, 2, 2, 3, 3}, RandomValues(36, -1, 1, 6));
  for (const std::string mode : {"constant", "reflect", "replicate", "circular"}) {
    SCOPED_TRACE(mode);
    GradCheck check;
    check.op_type = "pad3d";
    check.inputs = {{"X", {x}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"paddings", std::vector<int>{2, 1, 1, 2, 1, 1}}, {"mode", mode}};
    CheckGradients(check);
  }
}

TEST_F(Pad3dTest, ErrorsNameTheOpAndWhatIsWrong) {
  const DenseTensor x = MakeTensor<float>(DDim{1, 1, 1, 2, 3}, RandomValues(6, -1, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("pad3d", {{"X", {x}}}, {{"Out", 1}},
              {{"paddings", std::vector<int>{3, 0, 0, 0, 0, 0}}, {"mode", std::string("reflect")}});
      },
      {"pad3d", "reflect", "W (3)", "size 3"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("pad3d", {{"X", {x}}}, {{"Out", 1}}, {{"paddings", std::vector<int>{1, 2}}}); },
      {"pad3d", "6 values", "received 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("pad3d", {{"X", {x}}}, {{"Out", 1}}, {{"paddings", std::vector<int>{0, -1, 0, 0, 0, 0}}});
      },
      {"pad3d", ">= 0", "-1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("pad3d", {{"X", {MakeTensor<float>(DDim{2, 3}, RandomValues(6, -1, 1))}}}, {{"Out", 1}});
      },
      {"pad3d", "rank 5", "[2, 3]"});
}

// The source index along one axis of size n for output index o (-1: the constant).
int64_t Source2d(const std::string& mode, int64_t o, int64_t before, int64_t n) {
  const int64_t i = o - before;
  if (i >= 0 && i < n) return i;
  if (mode == "constant") return -1;
  if (mode == "edge") return std::clamp<int64_t>(i, 0, n - 1);
  return i < 0 ? -i : 2 * (n - 1) - i;  // reflect
}

// pad2d written out: X [N, C, H, W] or [N, H, W, C], paddings [top, bottom, left, right].
std::vector<double> NaivePad2d(const std::vector<double>& x, int64_t n, int64_t c, int64_t h,
                               int64_t w, const std::vector<int>& p, const std::string& mode,
                               double value, bool nhwc) {
  const int64_t oh = h + p[0] + p[1], ow = w + p[2] + p[3];
  std::vector<double> out(static_cast<size_t>(n * c * oh * ow));
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t z = 0; z < ow; ++z) {
          const int64_t sy = Source2d(mode, y, p[0], h), sz = Source2d(mode, z, p[2], w);
          const int64_t o = nhwc ? ((b * oh + y) * ow + z) * c + ch : ((b * c + ch) * oh + y) * ow + z;
          const int64_t i = nhwc ? ((b * h + sy) * w + sz) * c + ch : ((b * c + ch) * h + sy) * w + sz;
          out[o] = sy < 0 || sz < 0 ? value : x[i];
        }
      }
    }
  }
  return out;
}

TEST_F(Pad3dTest, Pad2dMatchesDirectLoopsInEachModeAndLayout) {
  const int64_t n = 2, c = 3, h = 4, w = 5;
  const std::vector<double> x = RandomValues(n * c * h * w, -1, 1, 9);
  const std::vector<int> pads = {1, 3, 2, 0};  // top, bottom, left, right
  for (const std::string mode : {"constant", "reflect", "edge"}) {
    for (bool nhwc : {false, true}) {
      SCOPED_TRACE(mode + (nhwc ? " NHWC" : " NCHW"));
      const DDim dims = nhwc ? DDim{n, h, w, c} : DDim{n, c, h, w};
      auto r = RunOp("pad2d", {{"X", {MakeTensor<double>(dims, x)}}}, {{"Out", 1}},
                     {{"paddings", pads},
                      {"mode", mode},
                      {"pad_value", 0.25f},
                      {"data_format", std::string(nhwc ? "NHWC" : "NCHW")}});
      const DDim want = nhwc ? DDim{n, h + 4, w + 2, c} : DDim{n, c, h + 4, w + 2};
      EXPECT_EQ(r.outputs["Out"][0].dims(), want);
      EXPECT_EQ(ToDoubles(r.outputs["Out"][0]), NaivePad2d(x, n, c, h, w, pads, mode, 0.25, nhwc));
    }
  }
  // A hand-worked row: edge repeats the end elements.
  auto row = RunOp("pad2d", {{"X", {MakeTensor<float>(DDim{1, 1, 1, 3}, {1, 2, 3})}}},
                   {{"Out", 1}},
                   {{"paddings", std::vector<int>{0, 0, 2, 1}}, {"mode", std::string("edge")}});
  EXPECT_EQ(ToDoubles(row.outputs["Out"][0]), (std::vector<double>{1, 1, 1, 2, 3, 3}));
  auto from_tensor =
      RunOp("pad2d",
            {{"X", {MakeTensor<float>(DDim{1, 1, 1, 3}, {1, 2, 3})}},
             {"Paddings", {MakeTensor<int32_t>(DDim{4}, {0, 0, 1, 2})}}},
            {{"Out", 1}}, {{"paddings", std::vector<int>{5, 5, 5, 5}}, {"mode", std::string("reflect")}});
  EXPECT_EQ(ToDoubles(from_tensor.outputs["Out"][0]), (std::vector<double>{2, 1, 2, 3, 2, 1}));
}

TEST_F(Pad3dTest, Pad2dGradientsAndErrors) {
  const DenseTensor x = MakeTensor<double>(DDim{1, 2, 3, 4}, RandomValues(24, -1, 1, 10));
  for (const std::string mode : {"constant", "reflect", "edge"}) {
    SCOPED_TRACE(mode);
    GradCheck check;
    check.op_type = "pad2d";
    check.inputs = {{"X", {x}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"paddings", std::vector<int>{2, 1, 0, 3}}, {"mode", mode}};
    CheckGradients(check);
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("pad2d", {{"X", {x}}}, {{"Out", 1}},
              {{"paddings", std::vector<int>{3, 0, 0, 0}}, {"mode", std::string("reflect")}});
      },
      {"pad2d", "reflect", "H (3)", "size 3"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("pad2d", {{"X", {x}}}, {{"Out", 1}}, {{"paddings", std::vector<int>(6, 0)}}); },
      {"pad2d", "4 values [top, bottom, left, right]", "received 6"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("pad2d", {{"X", {MakeTensor<float>(DDim{2, 3, 4, 5, 6}, RandomValues(720, -1, 1))}}},
              {{"Out", 1}});
      },
      {"pad2d", "rank 4", "[2, 3, 4, 5, 6]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("pad2d", {{"X", {x}}}, {{"Out", 1}}, {{"mode", std::string("circular")}});
      },
      {"pad2d", "mode", "circular"});
}

TEST_F(Pad3dTest, PadWidensEveryDimWithTheValue) {
  EXPECT_EQ(ToDoubles(RunOp("pad", {{"X", {MakeTensor<float>({1, 2}, {1, 2})}}}, {{"Out", 1}},
                            {{"paddings", std::vector<int>{1, 0, 0, 1}}})
                          .outputs.at("Out")[0]),
            (std::vector<double>{0, 0, 0, 1, 2, 0}));
  const std::vector<int64_t> in = {2, 3, 2};
  const std::vector<int> paddings = {1, 0, 0, 2, 2, 1};
  const std::vector<double> x = RandomValues(12, -1, 1, 3);
  const std::vector<int64_t> out = {3, 5, 5};
  std::vector<double> want;
  for (int64_t i = 0; i < out[0]; ++i) {
    for (int64_t j = 0; j < out[1]; ++j) {
      for (int64_t k = 0; k < out[2]; ++k) {
        const int64_t a = i - 1, b = j, c = k - 2;
        const bool inside = a >= 0 && a < in[0] && b >= 0 && b < in[1] && c >= 0 && c < in[2];
        want.push_back(inside ? x[(a * in[1] + b) * in[2] + c] : -1.5);
      }
    }
  }
  for (bool dbl : {false, true}) {
    const auto r = RunOp(
        "pad", {{"X", {dbl ? MakeTensor<double>(DDim(in), x) : MakeTensor<float>(DDim(in), x)}}},
        {{"Out", 1}}, {{"paddings", paddings}, {"pad_value", -1.5f}});
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim(out));
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]),
               dbl ? want : ToDoubles(MakeTensor<float>({75}, want)), 0, 0, "pad");
  }
  GradCheck check;
  check.op_type = "pad";
  check.inputs = {{"X", {MakeTensor<double>(DDim(in), x)}}};
  check.outputs = {{"Out", 1}};
  check.attrs = {{"paddings", paddings}, {"pad_value", 0.5f}};
  check.max_order = 2;
  CheckGradients(check);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("pad", {{"X", {MakeTensor<float>(DDim(in), x)}}}, {{"Out", 1}},
              {{"paddings", std::vector<int>{1, 1}}});
      },
      {"op `pad` attribute `paddings`", "expected 6 values", "[2, 3, 2]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("pad", {{"X", {MakeTensor<float>({2}, {1, 2})}}}, {{"Out", 1}},
              {{"paddings", std::vector<int>{-1, 0}}});
      },
      {"op `pad` attribute `paddings`", ">= 0"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

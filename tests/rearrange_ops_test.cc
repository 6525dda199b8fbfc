// The ops that move or mask elements without arithmetic: tril_triu, roll, pixel_shuffle and
// pixel_unshuffle, each against index formulas written out here, over attribute combinations
// and dtypes; their gradients (the ops themselves) against finite differences, second order
// included; their errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

std::vector<double> Iota(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(i) + 1;
  return v;
}

TEST(TrilTriuOp, KeepsTheTriangleFromTheDiagonal) {
  operators::RegisterAllOps();
  const DDim dims({2, 3, 4});
  const std::vector<double> x = Iota(dims.numel());
  for (const bool lower : {true, false}) {
    for (const int diagonal : {-2, -1, 0, 1, 3, 5}) {
      std::vector<double> want(x.size());
      for (int64_t e = 0; e < dims.numel(); ++e) {
        const int64_t i = (e / 4) % 3, j = e % 4;
        want[e] = (lower ? j - i <= diagonal : j - i >= diagonal) ? x[e] : 0;
      }
      for (DataType t : {DataType::FLOAT32, DataType::FLOAT64, DataType::INT64}) {
        const DenseTensor in = t == DataType::FLOAT32   ? MakeTensor<float>(dims, x)
                               : t == DataType::FLOAT64 ? MakeTensor<double>(dims, x)
                                                        : MakeTensor<int64_t>(dims, x);
        const OpRunResult r = RunOp("tril_triu", {{"X", {in}}}, {{"Out", 1}},
                                    {{"lower", lower}, {"diagonal", diagonal}});
        EXPECT_EQ(r.outputs.at("Out")[0].dtype(), t);
        EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want)
            << "lower " << lower << " diagonal " << diagonal;
      }
    }
  }
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("tril_triu", {{"X", {MakeTensor<float>({3}, {1, 2, 3})}}}, {{"Out", 1}});
      },
      {"op `tril_triu` input `X`", "rank >= 2", "[3]"});
}

// Out[i] = X[(i - s) mod n] per rolled dim, by a direct index walk.
std::vector<double> Rolled(const std::vector<int64_t>& dims, const std::vector<double>& x,
                           const std::vector<int64_t>& shift_per_dim) {
  std::vector<double> out(x.size());
  const int rank = static_cast<int>(dims.size());
  for (size_t e = 0; e < x.size(); ++e) {
    int64_t rest = static_cast<int64_t>(e), src = 0, stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t i = rest % dims[d];
      rest /= dims[d];
      int64_t j = (i - shift_per_dim[d]) % dims[d];
      if (j < 0) j += dims[d];
      src += j * stride;
      stride *= dims[d];
    }
    out[e] = x[src];
  }
  return out;
}

TEST(RollOp, ShiftsAlongDimsAndFlattened) {
  operators::RegisterAllOps();
  const std::vector<int64_t> shape = {3, 4, 5};
  const DDim dims(shape);
  const std::vector<double> x = Iota(dims.numel());
  struct Case {
    std::vector<int64_t> shifts, axis, per_dim;
  };
  const std::vector<Case> cases = {{{1}, {0}, {1, 0, 0}},
                                   {{-2, 7}, {1, 2}, {0, -2, 7}},
                                   {{2, 3}, {-1, -1}, {0, 0, 5}},
                                   {{13}, {}, {}},
                                   {{-4}, {}, {}}};
  for (const Case& c : cases) {
    const std::vector<double> want =
        c.axis.empty() ? Rolled({dims.numel()}, x, c.shifts) : Rolled(shape, x, c.per_dim);
    for (bool as_tensor : {false, true}) {
      SlotTensors in = {{"X", {MakeTensor<float>(dims, x)}}};
      AttributeMap attrs = {{"shifts", c.shifts}, {"axis", c.axis}};
      if (as_tensor) {
        std::vector<double> s(c.shifts.begin(), c.shifts.end());
        in["ShiftsTensor"] = {MakeTensor<int64_t>(DDim({static_cast<int64_t>(s.size())}), s)};
        attrs["shifts"] = std::vector<int64_t>(c.shifts.size(), 0);  // Ignored.
      }
      const OpRunResult r = RunOp("roll", in, {{"Out", 1}}, attrs);
      EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want) << "tensor " << as_tensor;
    }
  }
  const DenseTensor t = MakeTensor<float>(dims, x);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("roll", {{"X", {t}}}, {{"Out", 1}},
              {{"shifts", std::vector<int64_t>{1, 2}}, {"axis", std::vector<int64_t>{0}}});
      },
      {"op `roll` attributes `shifts` and `axis`", "as many shifts as axes", "2 and 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("roll", {{"X", {t}}}, {{"Out", 1}},
              {{"shifts", std::vector<int64_t>{1}}, {"axis", std::vector<int64_t>{3}}});
      },
      {"op `roll` attribute `axis`", "[-3, 3)", "received 3"});
}

TEST(PixelShuffleOp, MovesChannelBlocksToSpaceAndBack) {
  operators::RegisterAllOps();
  for (const std::string format : {"NCHW", "NHWC"}) {
    for (const int r : {1, 2, 3}) {
      const int64_t n = 2, c = 2, h = 2, w = 3;
      const DDim small = format == "NCHW" ? DDim({n, c * r * r, h, w}) : DDim({n, h, w, c * r * r});
      const DDim big = format == "NCHW" ? DDim({n, c, h * r, w * r}) : DDim({n, h * r, w * r, c});
      const std::vector<double> x = Iota(small.numel());
      std::vector<double> want(x.size());
      for (int64_t in = 0; in < n; ++in) {
        for (int64_t ch = 0; ch < c * r * r; ++ch) {
          for (int64_t y = 0; y < h; ++y) {
            for (int64_t z = 0; z < w; ++z) {
              const int64_t oc = ch / (r * r), oy = y * r + (ch % (r * r)) / r, oz = z * r + ch % r;
              const int64_t src = format == "NCHW" ? ((in * c * r * r + ch) * h + y) * w + z
                                                   : ((in * h + y) * w + z) * c * r * r + ch;
              const int64_t dst = format == "NCHW" ? ((in * c + oc) * h * r + oy) * w * r + oz
                                                   : ((in * h * r + oy) * w * r + oz) * c + oc;
              want[dst] = x[src];
            }
          }
        }
      }
      const OpRunResult up = RunOp("pixel_shuffle", {{"X", {MakeTensor<double>(small, x)}}},
                                   {{"Out", 1}}, {{"upscale_factor", r}, {"data_format", format}});
      EXPECT_EQ(up.outputs.at("Out")[0].dims(), big);
      EXPECT_EQ(ToDoubles(up.outputs.at("Out")[0]), want) << format << " r " << r;
      const OpRunResult down =
          RunOp("pixel_unshuffle", {{"X", {MakeTensor<double>(big, want)}}}, {{"Out", 1}},
                {{"downscale_factor", r}, {"data_format", format}});
      EXPECT_EQ(down.outputs.at("Out")[0].dims(), small);
      EXPECT_EQ(ToDoubles(down.outputs.at("Out")[0]), x) << format << " r " << r;
    }
  }
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("pixel_shuffle", {{"X", {MakeTensor<float>({1, 6, 2, 2}, Iota(24))}}}, {{"Out", 1}},
              {{"upscale_factor", 2}});
      },
      {"op `pixel_shuffle` input `X`", "divisible by upscale_factor^2 = 4", "received 6"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("pixel_unshuffle", {{"X", {MakeTensor<float>({1, 1, 3, 4}, Iota(12))}}}, {{"Out", 1}},
              {{"downscale_factor", 2}});
      },
      {"op `pixel_unshuffle` input `X`", "divisible by downscale_factor = 2"});
}

TEST(RearrangeOps, GradientsUpToSecondOrder) {
  operators::RegisterAllOps();
  struct Case {
    std::string op;
    DDim dims;
    AttributeMap attrs;
  };
  const std::vector<Case> cases = {
      {"tril_triu", DDim({2, 3, 3}), {{"lower", true}, {"diagonal", 0}}},
      {"tril_triu", DDim({3, 4}), {{"lower", false}, {"diagonal", -1}}},
      {"roll",
       DDim({3, 4}),
       {{"shifts", std::vector<int64_t>{1, -1}}, {"axis", std::vector<int64_t>{0, 1}}}},
      {"roll",
       DDim({2, 5}),
       {{"shifts", std::vector<int64_t>{3}}, {"axis", std::vector<int64_t>{}}}},
      {"pixel_shuffle",
       DDim({1, 8, 2, 2}),
       {{"upscale_factor", 2}, {"data_format", std::string("NCHW")}}},
      {"pixel_unshuffle",
       DDim({1, 4, 4, 2}),
       {{"downscale_factor", 2}, {"data_format", std::string("NHWC")}}},
  };
  unsigned seed = 40;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op + " " + c.dims.ToString());
    GradCheck check;
    check.op_type = c.op;
    check.inputs = {
        {"X", {MakeTensor<double>(c.dims, RandomValues(c.dims.numel(), -1, 1, ++seed))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = c.attrs;
    check.max_order = 2;
    CheckGradients(check);
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

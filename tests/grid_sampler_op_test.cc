// grid_sampler against a reference written here as a sum of tent functions over every pixel
// (bilinear) or a rounded lookup (nearest), with the padding modes' coordinate rules mirrored
// by repeated folding; every mode, padding and alignment, float and double; gradients of X and
// Grid against finite differences; the same for volumes (trilinear); shape errors.
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr char kOp[] = "grid_sampler";

// Pixel coordinate of normalized c along an axis of size s, with the padding rule.
double PixelCoordinate(double c, int64_t s, bool align, const std::string& padding) {
  double i = align ? (c + 1) / 2 * (s - 1) : ((c + 1) * s - 1) / 2;
  if (padding == "reflection") {
    const double lo = align ? 0 : -0.5, hi = align ? s - 1 : s - 0.5;
    if (hi > lo) {
      while (i < lo || i > hi) i = i < lo ? 2 * lo - i : 2 * hi - i;  // Fold until inside.
    } else {
      i = 0;
    }
  }
  if (padding != "zeros") i = std::min(std::max(i, 0.0), static_cast<double>(s - 1));
  return i;
}

std::vector<double> Reference(const std::vector<double>& x, const std::vector<double>& grid,
                              int64_t n, int64_t c, int64_t h, int64_t w, int64_t ho, int64_t wo,
                              const std::string& mode, const std::string& padding, bool align) {
  std::vector<double> out(static_cast<size_t>(n * c * ho * wo), 0.0);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t p = 0; p < ho * wo; ++p) {
      const double ix = PixelCoordinate(grid[(b * ho * wo + p) * 2], w, align, padding);
      const double iy = PixelCoordinate(grid[(b * ho * wo + p) * 2 + 1], h, align, padding);
      for (int64_t ch = 0; ch < c; ++ch) {
        double v = 0;
        for (int64_t q = 0; q < h; ++q) {
          for (int64_t r = 0; r < w; ++r) {
            const double pix = x[((b * c + ch) * h + q) * w + r];
            if (mode == "bilinear") {
              v += std::max(0.0, 1 - std::abs(ix - r)) * std::max(0.0, 1 - std::abs(iy - q)) * pix;
            } else if (std::round(ix) == r && std::round(iy) == q) {
              v = pix;
            }
          }
        }
        out[((b * c + ch) * ho * wo) + p] = v;
      }
    }
  }
  return out;
}

TEST(GridSamplerOp, EveryModePaddingAndAlignmentMatchesTheReference) {
  operators::RegisterAllOps();
  const int64_t n = 2, c = 3, h = 4, w = 5, ho = 3, wo = 4;
  const auto x = RandomValues(n * c * h * w, -1, 1, 31);
  const auto grid = RandomValues(n * ho * wo * 2, -1.6, 1.6, 32);  // Some points outside.
  for (const std::string mode : {"bilinear", "nearest"}) {
    for (const std::string padding : {"zeros", "border", "reflection"}) {
      for (bool align : {true, false}) {
        SCOPED_TRACE(mode + " " + padding + (align ? " align_corners" : ""));
        const auto want = Reference(x, grid, n, c, h, w, ho, wo, mode, padding, align);
        for (bool dbl : {false, true}) {
          SlotTensors in = {
              {"X",
               {dbl ? MakeTensor<double>({n, c, h, w}, x) : MakeTensor<float>({n, c, h, w}, x)}},
              {"Grid",
               {dbl ? MakeTensor<double>({n, ho, wo, 2}, grid)
                    : MakeTensor<float>({n, ho, wo, 2}, grid)}}};
          const OpRunResult r =
              RunOp(kOp, in, {{"Output", 1}},
                    {{"mode", mode}, {"padding_mode", padding}, {"align_corners", align}});
          EXPECT_EQ(r.outputs.at("Output")[0].dims(), DDim({n, c, ho, wo}));
          const double tol = dbl ? 1e-12 : 1e-5;
          ExpectNear(ToDoubles(r.outputs.at("Output")[0]),
                     dbl ? want : ToDoubles(MakeTensor<float>({n * c * ho * wo}, want)), tol, tol,
                     kOp);
        }
      }
    }
  }
}

// The volume form: X [n, c, d, h, w], grid [n, do, ho, wo, 3] with (x, y, z) per point.
std::vector<double> Reference3D(const std::vector<double>& x, const std::vector<double>& grid,
                                int64_t n, int64_t c, const int64_t (&size)[3], int64_t points,
                                const std::string& mode, const std::string& padding, bool align) {
  const int64_t d = size[0], h = size[1], w = size[2];
  std::vector<double> out(static_cast<size_t>(n * c * points), 0.0);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t p = 0; p < points; ++p) {
      const double* g = &grid[(b * points + p) * 3];
      const double ix = PixelCoordinate(g[0], w, align, padding);
      const double iy = PixelCoordinate(g[1], h, align, padding);
      const double iz = PixelCoordinate(g[2], d, align, padding);
      for (int64_t ch = 0; ch < c; ++ch) {
        double v = 0;
        for (int64_t z = 0; z < d; ++z) {
          for (int64_t q = 0; q < h; ++q) {
            for (int64_t r = 0; r < w; ++r) {
              const double voxel = x[(((b * c + ch) * d + z) * h + q) * w + r];
              if (mode == "bilinear") {
                v += std::max(0.0, 1 - std::abs(ix - r)) * std::max(0.0, 1 - std::abs(iy - q)) *
                     std::max(0.0, 1 - std::abs(iz - z)) * voxel;
              } else if (std::round(ix) == r && std::round(iy) == q && std::round(iz) == z) {
                v = voxel;
              }
            }
          }
        }
        out[(b * c + ch) * points + p] = v;
      }
    }
  }
  return out;
}

TEST(GridSamplerOp, VolumesMatchTheTrilinearReference) {
  operators::RegisterAllOps();
  const int64_t n = 2, c = 2, size[3] = {3, 4, 5}, od = 2, oh = 3, ow = 2;
  const int64_t points = od * oh * ow;
  const auto x = RandomValues(n * c * 60, -1, 1, 41);
  const auto grid = RandomValues(n * points * 3, -1.6, 1.6, 42);
  for (const std::string mode : {"bilinear", "nearest"}) {
    for (const std::string padding : {"zeros", "border", "reflection"}) {
      for (bool align : {true, false}) {
        SCOPED_TRACE(mode + " " + padding + (align ? " align_corners" : ""));
        const auto want = Reference3D(x, grid, n, c, size, points, mode, padding, align);
        for (bool dbl : {false, true}) {
          const DDim xd{n, c, size[0], size[1], size[2]}, gd{n, od, oh, ow, 3};
          SlotTensors in = {
              {"X", {dbl ? MakeTensor<double>(xd, x) : MakeTensor<float>(xd, x)}},
              {"Grid", {dbl ? MakeTensor<double>(gd, grid) : MakeTensor<float>(gd, grid)}}};
          const OpRunResult r =
              RunOp(kOp, in, {{"Output", 1}},
                    {{"mode", mode}, {"padding_mode", padding}, {"align_corners", align}});
          EXPECT_EQ(r.outputs.at("Output")[0].dims(), DDim({n, c, od, oh, ow}));
          const double tol = dbl ? 1e-12 : 1e-5;
          ExpectNear(ToDoubles(r.outputs.at("Output")[0]),
                     dbl ? want : ToDoubles(MakeTensor<float>({n * c * points}, want)), tol, tol,
                     kOp);
        }
      }
    }
  }
}

TEST(GridSamplerOp, TheCentreOfATwoByTwoImageIsItsMean) {
  operators::RegisterAllOps();
  const OpRunResult r = RunOp(kOp,
                              {{"X", {MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 6})}},
                               {"Grid", {MakeTensor<float>({1, 1, 1, 2}, {0, 0})}}},
                              {{"Output", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Output")[0]), (std::vector<double>{3}));
}

TEST(GridSamplerOp, GradientsOfXAndGridMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (const std::string mode : {"bilinear", "nearest"}) {
    for (const std::string padding : {"zeros", "border", "reflection"}) {
      for (bool align : {true, false}) {
        SCOPED_TRACE(mode + " " + padding + (align ? " align_corners" : ""));
        GradCheck check;
        check.op_type = kOp;
        check.inputs = {
            {"X", {MakeTensor<double>({1, 2, 3, 4}, RandomValues(24, -1, 1, 33))}},
            {"Grid", {MakeTensor<double>({1, 2, 3, 2}, RandomValues(12, -1.4, 1.4, 34))}}};
        check.outputs = {{"Output", 1}};
        check.attrs = {{"mode", mode}, {"padding_mode", padding}, {"align_corners", align}};
        CheckGradients(check);
      }
    }
  }
}

TEST(GridSamplerOp, VolumeGradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (const std::string mode : {"bilinear", "nearest"}) {
    for (const std::string padding : {"zeros", "border", "reflection"}) {
      for (bool align : {true, false}) {
        SCOPED_TRACE(mode + " " + padding + (align ? " align_corners" : ""));
        GradCheck check;
        check.op_type = kOp;
        check.inputs = {
            {"X", {MakeTensor<double>({1, 2, 2, 3, 3}, RandomValues(36, -1, 1, 43))}},
            {"Grid", {MakeTensor<double>({1, 2, 1, 2, 3}, RandomValues(12, -1.4, 1.4, 44))}}};
        check.outputs = {{"Output", 1}};
        check.attrs = {{"mode", mode}, {"padding_mode", padding}, {"align_corners", align}};
        CheckGradients(check);
      }
    }
  }
}

TEST(GridSamplerOp, BadShapesAreErrors) {
  operators::RegisterAllOps();
  const auto run = [](const DDim& x, const DDim& grid) {
    RunOp(kOp,
          {{"X", {MakeTensor<float>(x, RandomValues(x.numel(), -1, 1))}},
           {"Grid", {MakeTensor<float>(grid, RandomValues(grid.numel(), -1, 1))}}},
          {{"Output", 1}});
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({1, 2, 3}, {1, 2, 2, 2});
      },
      {"op `grid_sampler` input `X`", "[1, 2, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({1, 2, 3, 3}, {1, 2, 2, 3});
      },
      {"op `grid_sampler` input `Grid`", "[N, Ho, Wo, 2]", "[1, 2, 2, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({1, 2, 3, 3}, {1, 2, 2, 2, 3});
      },
      {"op `grid_sampler` input `Grid`", "[N, Ho, Wo, 2]", "[1, 2, 2, 2, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({2, 2, 3, 3}, {1, 2, 2, 2});
      },
      {"op `grid_sampler`", "2 images", "Grid 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({1, 2, 3, 3, 3}, {1, 2, 2, 2, 2});
      },
      {"op `grid_sampler` input `Grid`", "[N, Do, Ho, Wo, 3]", "[1, 2, 2, 2, 2]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

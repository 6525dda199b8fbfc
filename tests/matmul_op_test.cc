// matmul_v2 and mul: forward against naive triple loops in double (written here, independent
// of the op's shape code), both dtypes, with and without oneDNN for float32, 1-D and
// broadcast cases, zero-size tensors, build-time shapes and errors.
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "operators/math/blas.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct Reference {
  std::vector<int64_t> dims;
  std::vector<double> values;
};

int64_t Numel(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t v : d) n *= v;
  return n;
}

// numpy.matmul with optional transposes of the last two dims (ignored for 1-D operands).
Reference NaiveMatmul(const std::vector<double>& x, std::vector<int64_t> xd,
                      const std::vector<double>& y, std::vector<int64_t> yd, bool tx, bool ty) {
  const bool x_vec = xd.size() == 1, y_vec = yd.size() == 1;
  if (x_vec) xd = {1, xd[0]}, tx = false;
  if (y_vec) yd = {yd[0], 1}, ty = false;
  const size_t xr = xd.size(), yr = yd.size(), br = std::max(xr, yr) - 2;
  std::vector<int64_t> xb(br, 1), yb(br, 1), ob(br);
  for (size_t i = 0; i < xr - 2; ++i) xb[br - (xr - 2) + i] = xd[i];
  for (size_t i = 0; i < yr - 2; ++i) yb[br - (yr - 2) + i] = yd[i];
  for (size_t i = 0; i < br; ++i) ob[i] = xb[i] == 1 ? yb[i] : xb[i];  // 0 with 1 gives 0.
  const int64_t M = tx ? xd[xr - 1] : xd[xr - 2];
  const int64_t K = tx ? xd[xr - 2] : xd[xr - 1];
  const int64_t N = ty ? yd[yr - 2] : yd[yr - 1];
  Reference ref;
  ref.dims = ob;
  if (!x_vec) ref.dims.push_back(M);
  if (!y_vec) ref.dims.push_back(N);
  const int64_t batches = Numel(ob);
  for (int64_t b = 0; b < batches; ++b) {
    int64_t rem = b, xi = 0, yi = 0, xs = 1, ys = 1;
    for (size_t i = br; i-- > 0;) {
      const int64_t idx = rem % ob[i];
      rem /= ob[i];
      xi += (xb[i] == 1 ? 0 : idx) * xs;
      yi += (yb[i] == 1 ? 0 : idx) * ys;
      xs *= xb[i];
      ys *= yb[i];
    }
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t n = 0; n < N; ++n) {
        double sum = 0;
        for (int64_t k = 0; k < K; ++k) {
          sum += x[xi * M * K + (tx ? k * M + m : m * K + k)] *
                 y[yi * K * N + (ty ? n * K + k : k * N + n)];
        }
        ref.values.push_back(sum);
      }
    }
  }
  return ref;
}

// Values as stored in T, back in double, so the reference sees exactly the kernel's inputs.
template <typename T>
std::vector<double> Rounded(const std::vector<double>& v) {
  std::vector<double> out;
  for (double d : v) out.push_back(static_cast<double>(static_cast<T>(d)));
  return out;
}

template <typename T>
void CheckMatmul(const std::vector<int64_t>& xd, const std::vector<int64_t>& yd, bool tx, bool ty,
                 bool use_onednn) {
  ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
  const auto x = Rounded<T>(RandomValues(Numel(xd), -1, 1, 1));
  const auto y = Rounded<T>(RandomValues(Numel(yd), -1, 1, 2));
  const DenseTensor xt = MakeTensor<T>(DDim(xd), x), yt = MakeTensor<T>(DDim(yd), y);
  const std::string what = "matmul_v2 " + DDim(xd).ToString() + (tx ? "^T" : "") + " x " +
                           DDim(yd).ToString() + (ty ? "^T" : "") +
                           (use_onednn ? " (oneDNN allowed)" : " (plain)");
  auto r = RunOp("matmul_v2", {{"X", {xt}}, {"Y", {yt}}}, {{"Out", 1}},
                 {{"trans_x", tx}, {"trans_y", ty}});
  const Reference ref = NaiveMatmul(x, xd, y, yd, tx, ty);
  const DenseTensor& out = r.outputs["Out"][0];
  ASSERT_EQ(out.dims(), DDim(ref.dims)) << what;
  ASSERT_EQ(out.dtype(), platform::ToDataType<T>()) << what;
  const DataType t = platform::ToDataType<T>();
  const int64_t k = std::max<int64_t>(xd.back(), xd.size() > 1 ? xd[xd.size() - 2] : 1);
  ExpectNear(ToDoubles(out), ref.values, RelTol(t), AbsTol(t) * 4 * (k + 1), what);
  // Inputs are left untouched.
  ExpectNear(ToDoubles(xt), x, 0, 0, what + " X unchanged");
  ExpectNear(ToDoubles(yt), y, 0, 0, what + " Y unchanged");
}

struct MatmulCase {
  std::vector<int64_t> x, y;
  bool tx, ty;
};

const std::vector<MatmulCase>& MatmulCases() {
  static const std::vector<MatmulCase> cases = {
      // 2-D, every transpose combination.
      {{3, 4}, {4, 5}, false, false},
      {{4, 3}, {4, 5}, true, false},
      {{3, 4}, {5, 4}, false, true},
      {{4, 3}, {5, 4}, true, true},
      {{1, 1}, {1, 1}, false, false},
      // 1-D operands.
      {{4}, {4}, false, false},
      {{4}, {4}, true, true},
      {{4}, {4, 5}, false, false},
      {{4}, {5, 4}, false, true},
      {{3, 4}, {4}, false, false},
      {{4, 3}, {4}, true, false},
      {{4}, {2, 4, 5}, false, false},
      {{2, 3, 4}, {4}, false, false},
      // Batches and broadcasting.
      {{2, 3, 4}, {2, 4, 5}, false, false},
      {{2, 4, 3}, {2, 5, 4}, true, true},
      {{2, 1, 3, 4}, {5, 4, 6}, false, false},
      {{3, 4}, {2, 4, 5}, false, false},
      {{2, 3, 4}, {4, 5}, false, false},
      {{2, 4, 3}, {1, 5, 4}, true, true},
      {{1, 2, 3}, {4, 1, 3, 2}, false, false},
      {{3, 1, 2, 5}, {1, 4, 5, 2}, false, false},
      // Zero-size.
      {{0, 4}, {4, 5}, false, false},
      {{3, 0}, {0, 5}, false, false},
      {{0, 3, 4}, {4, 5}, false, false},
      {{2, 3, 4}, {4, 0}, false, false},
      // Large enough to split over threads.
      {{2, 64, 128}, {128, 96}, false, false},
      {{300, 70}, {70, 1}, false, false},
      {{70, 300}, {9, 70}, true, true},
  };
  return cases;
}

TEST(MatmulV2Op, Float32PlainAndOneDNN) {
  for (const auto& c : MatmulCases()) {
    CheckMatmul<float>(c.x, c.y, c.tx, c.ty, false);
    CheckMatmul<float>(c.x, c.y, c.tx, c.ty, true);
  }
}

TEST(MatmulV2Op, Float64) {
  for (const auto& c : MatmulCases()) CheckMatmul<double>(c.x, c.y, c.tx, c.ty, true);
}

TEST(MatmulV2Op, PlainKernelIsDeterministic) {
  ScopedFlag flag(&FLAGS_use_onednn, false);
  const SlotTensors in = {
      {"X", {MakeTensor<float>({2, 64, 128}, RandomValues(2 * 64 * 128, -1, 1))}},
      {"Y", {MakeTensor<float>({128, 96}, RandomValues(128 * 96, -1, 1, 3))}}};
  auto a = RunOp("matmul_v2", in, {{"Out", 1}});
  auto b = RunOp("matmul_v2", in, {{"Out", 1}});
  EXPECT_EQ(ToDoubles(a.outputs["Out"][0]), ToDoubles(b.outputs["Out"][0]));
}

void RunMatmulV2(const DDim& x, const DDim& y, bool tx = false, bool ty = false) {
  RunOp("matmul_v2",
        {{"X", {MakeTensor<float>(x, std::vector<double>(x.numel(), 1))}},
         {"Y", {MakeTensor<float>(y, std::vector<double>(y.numel(), 1))}}},
        {{"Out", 1}}, {{"trans_x", tx}, {"trans_y", ty}});
}

TEST(MatmulV2Op, Errors) {
  for (bool onednn : {false, true}) {
    ScopedFlag flag(&FLAGS_use_onednn, onednn);
    ExpectError<platform::InvalidArgumentError>(
        [] {
          RunMatmulV2({2, 3}, {4, 5});
        },
        {"op `matmul_v2`", "`X`", "`Y`", "[2, 3]", "[4, 5]", "K=3", "K=4"});
    ExpectError<platform::InvalidArgumentError>(
        [] {
          RunMatmulV2({2, 3}, {2, 3}, false, false);
        },
        {"op `matmul_v2`", "trans_y=false"});
    ExpectError<platform::InvalidArgumentError>(
        [] {
          RunMatmulV2({2, 3, 4}, {3, 4, 5});
        },
        {"op `matmul_v2`", "`X`", "`Y`", "batch", "[2, 3, 4]", "[3, 4, 5]"});
    ExpectError<platform::InvalidArgumentError>([] { RunMatmulV2({}, {3}); },
                                                {"op `matmul_v2`", "input `X`", "rank"});
    ExpectError<platform::InvalidArgumentError>([] { RunMatmulV2({3}, {4}); },
                                                {"op `matmul_v2`", "[3]", "[4]"});
  }
}

TEST(MatmulV2Op, OperandTypes) {
  // A float64 Y is cast to the float32 kernel by the executor; an int64 X is an error.
  auto r = RunOp(
      "matmul_v2",
      {{"X", {MakeTensor<float>({1, 2}, {1, 2})}}, {"Y", {MakeTensor<double>({2, 1}, {3, 4})}}},
      {{"Out", 1}});
  EXPECT_EQ(r.outputs["Out"][0].dtype(), DataType::FLOAT32);
  ExpectNear(ToDoubles(r.outputs["Out"][0]), {11}, 0, 0, "mixed float");
  for (bool onednn : {false, true}) {
    ScopedFlag flag(&FLAGS_use_onednn, onednn);
    ExpectError<platform::InvalidArgumentError>(
        [] {
          RunOp("matmul_v2",
                {{"X", {MakeTensor<int64_t>({1, 2}, {1, 2})}},
                 {"Y", {MakeTensor<float>({2, 1}, {3, 4})}}},
                {{"Out", 1}});
        },
        {"op `matmul_v2` input `X`", "int64"});
  }
}

// ---------------------------------------------------------------- GEMM

// The shared GEMM on a 4-thread context (the ops run on the default context): strided
// operands, alpha/beta, and a batch whose rows are split across threads.
TEST(Blas, ThreadedGemmMatchesNaive) {
  const platform::CPUDeviceContext ctx(4);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const int64_t M = 37, N = 29, K = 41, pad = 3;
      const int64_t lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
      const auto a = RandomValues((ta ? K : M) * lda, -1, 1, 21);
      const auto b = RandomValues((tb ? N : K) * ldb, -1, 1, 22);
      const auto c0 = RandomValues(M * ldc, -1, 1, 23);
      std::vector<double> c = c0;
      operators::math::Gemm<double>(ctx, ta, tb, M, N, K, 0.5, a.data(), lda, b.data(), ldb, -2.0,
                                    c.data(), ldc);
      for (int64_t m = 0; m < M; ++m) {
        for (int64_t n = 0; n < ldc; ++n) {
          double expected = c0[m * ldc + n];
          if (n < N) {
            double sum = 0;
            for (int64_t k = 0; k < K; ++k) {
              sum +=
                  (ta ? a[k * lda + m] : a[m * lda + k]) * (tb ? b[n * ldb + k] : b[k * ldb + n]);
            }
            expected = 0.5 * sum - 2.0 * expected;
          }
          ASSERT_NEAR(c[m * ldc + n], expected, 1e-12) << "ta=" << ta << " tb=" << tb;
        }
      }
    }
  }
  // Batches sharing one B (broadcast offsets); 3 rows each, so chunks straddle batches.
  const int64_t batch = 50, M = 3, N = 4, K = 5;
  const auto a = RandomValues(batch * M * K, -1, 1, 24);
  const auto b = RandomValues(K * N, -1, 1, 25);
  std::vector<int64_t> a_off, b_off(batch, 0);
  for (int64_t i = 0; i < batch; ++i) a_off.push_back(i * M * K);
  std::vector<double> c(batch * M * N, std::nan(""));  // beta = 0 must not read C.
  operators::math::BatchedGemm<double>(ctx, false, false, M, N, K, 1.0, a.data(), a_off, K,
                                       b.data(), b_off, N, 0.0, c.data(), N);
  const Reference ref = NaiveMatmul(a, {batch, M, K}, b, {K, N}, false, false);
  ExpectNear(c, ref.values, 1e-12, 1e-12, "batched gemm");
}

// ---------------------------------------------------------------- mul

template <typename T>
void CheckMul(const std::vector<int64_t>& xd, const std::vector<int64_t>& yd, int xn, int yn,
              const std::vector<int64_t>& out_dims, bool use_onednn) {
  ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
  const auto x = Rounded<T>(RandomValues(Numel(xd), -1, 1, 4));
  const auto y = Rounded<T>(RandomValues(Numel(yd), -1, 1, 5));
  auto r = RunOp("mul", {{"X", {MakeTensor<T>(DDim(xd), x)}}, {"Y", {MakeTensor<T>(DDim(yd), y)}}},
                 {{"Out", 1}}, {{"x_num_col_dims", xn}, {"y_num_col_dims", yn}});
  const std::vector<int64_t> x2 = {Numel({xd.begin(), xd.begin() + xn}),
                                   Numel({xd.begin() + xn, xd.end()})};
  const std::vector<int64_t> y2 = {Numel({yd.begin(), yd.begin() + yn}),
                                   Numel({yd.begin() + yn, yd.end()})};
  const Reference ref = NaiveMatmul(x, x2, y, y2, false, false);
  const std::string what = "mul " + DDim(xd).ToString() + " x " + DDim(yd).ToString();
  const DenseTensor& out = r.outputs["Out"][0];
  ASSERT_EQ(out.dims(), DDim(out_dims)) << what;
  const DataType t = platform::ToDataType<T>();
  ExpectNear(ToDoubles(out), ref.values, RelTol(t), AbsTol(t) * 4 * (x2[1] + 1), what);
}

TEST(MulOp, NumColDimsBothDtypes) {
  struct Case {
    std::vector<int64_t> x, y;
    int xn, yn;
    std::vector<int64_t> out;
  };
  const std::vector<Case> cases = {
      {{3, 4}, {4, 5}, 1, 1, {3, 5}},
      {{2, 3, 4}, {4, 5}, 2, 1, {2, 3, 5}},
      {{2, 3, 4}, {12, 5}, 1, 1, {2, 5}},
      {{6, 4}, {2, 2, 5}, 1, 2, {6, 5}},
      {{2, 3, 4, 5}, {4, 5, 6}, 2, 2, {2, 3, 6}},
      {{2, 3, 4, 5}, {20, 3, 2}, 2, 1, {2, 3, 3, 2}},
      {{0, 4}, {4, 5}, 1, 1, {0, 5}},
      {{3, 0}, {0, 2}, 1, 1, {3, 2}},
      {{128, 96}, {96, 64}, 1, 1, {128, 64}},
  };
  for (const auto& c : cases) {
    CheckMul<float>(c.x, c.y, c.xn, c.yn, c.out, false);
    CheckMul<float>(c.x, c.y, c.xn, c.yn, c.out, true);
    CheckMul<double>(c.x, c.y, c.xn, c.yn, c.out, true);
  }
}

TEST(MulOp, OutKeepsLoDOfX) {
  DenseTensor x = MakeTensor<double>({3, 2}, {1, 2, 3, 4, 5, 6});
  x.set_lod(framework::LoD{{0, 2, 3}});
  auto r = RunOp("mul", {{"X", {x}}, {"Y", {MakeTensor<double>({2, 1}, {1, 1})}}}, {{"Out", 1}});
  EXPECT_EQ(r.outputs["Out"][0].lod(), x.lod());
  ExpectNear(ToDoubles(r.outputs["Out"][0]), {3, 7, 11}, 0, 0, "mul row sums");
}

TEST(MulOp, Errors) {
  auto run = [](const DDim& x, const DDim& y, int xn, int yn) {
    RunOp("mul",
          {{"X", {MakeTensor<float>(x, std::vector<double>(x.numel(), 1))}},
           {"Y", {MakeTensor<float>(y, std::vector<double>(y.numel(), 1))}}},
          {{"Out", 1}}, {{"x_num_col_dims", xn}, {"y_num_col_dims", yn}});
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({2, 3, 4}, {5, 6}, 2, 1);
      },
      {"op `mul`", "`X`", "`Y`", "[2, 3, 4]", "[5, 6]", "x_num_col_dims=2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({2, 3}, {3, 4}, 0, 1);
      },
      {"op `mul`", "attribute `x_num_col_dims`"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({2, 3}, {3, 4}, 2, 1);
      },
      {"op `mul`", "attribute `x_num_col_dims`", "[2, 3]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run({2, 3}, {3, 4}, 1, 2);
      },
      {"op `mul`", "attribute `y_num_col_dims`", "[3, 4]"});
}

// ---------------------------------------------------------------- build time

std::vector<int64_t> BuildTimeShape(const std::string& type, const std::vector<int64_t>& x,
                                    const std::vector<int64_t>& y, const AttributeMap& attrs) {
  operators::RegisterAllOps();
  framework::ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  for (const auto& [name, shape] : {std::pair{"x", x}, std::pair{"y", y}}) {
    b.Var(name)->SetDataType(DataType::FLOAT64);
    b.Var(name)->SetShape(shape);
  }
  framework::OpDesc* op = b.AppendOp();
  op->SetType(type);
  op->SetInput("X", {"x"});
  op->SetInput("Y", {"y"});
  op->SetOutput("Out", {"out"});
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::InferVarTypeAndShape(op, &b);
  EXPECT_EQ(b.FindVar("out")->GetDataType(), DataType::FLOAT64);
  return b.FindVar("out")->GetShape();
}

TEST(MatmulOps, BuildTimeShapes) {
  EXPECT_EQ(BuildTimeShape("matmul_v2", {-1, 3, 4}, {4, 5}, {}), (std::vector<int64_t>{-1, 3, 5}));
  EXPECT_EQ(BuildTimeShape("matmul_v2", {-1, 4, 3}, {2, -1, 5}, {{"trans_x", true}}),
            (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(BuildTimeShape("matmul_v2", {-1}, {-1}, {}), (std::vector<int64_t>{}));
  EXPECT_EQ(BuildTimeShape("mul", {-1, 2, 3}, {6, 5}, {{"x_num_col_dims", 1}}),
            (std::vector<int64_t>{-1, 5}));
  EXPECT_EQ(BuildTimeShape("mul", {-1, 2, 3}, {3, 5}, {{"x_num_col_dims", 2}}),
            (std::vector<int64_t>{-1, 2, 5}));
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

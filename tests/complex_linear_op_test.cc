// Complex values through the linear ops of spectral models (a Fourier neural operator's
// mode mixing): matmul_v2 and einsum against products summed here, reductions (reduce_sum,
// reduce_mean, mean) against sums here, fill_constant and set_value writing complex values,
// gather, index_select, gather_nd, pad3d, where, strided_slice and tril_triu moving them,
// cumsum and reduce_prod against running sums and products here;
// gradients by finite differences over the real and imaginary parts, which follow
// PaddlePaddle's convention (dL/da + i dL/db: the other factor of a product enters
// conjugated).
#include <complex>
#include <string>
#include <vector>

#include "tests/complex_test_util.h"
#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

DenseTensor Complex(bool single, const DDim& dims, const std::vector<double>& interleaved) {
  return single ? MakeComplexTensor<float>(dims, interleaved)
                : MakeComplexTensor<double>(dims, interleaved);
}

// Out[b] = op(X[b]) * op(Y[b]) for X [batch..., rows, cols] stored row-major; `x_batch` and
// `y_batch` give each Out batch's matrix index in X and Y (broadcasting).
std::vector<Cd> NaiveMatmul(const std::vector<Cd>& x, const std::vector<Cd>& y, int64_t m,
                            int64_t n, int64_t k, bool tx, bool ty,
                            const std::vector<int64_t>& x_batch,
                            const std::vector<int64_t>& y_batch) {
  std::vector<Cd> out;
  for (size_t b = 0; b < x_batch.size(); ++b) {
    const Cd* xb = x.data() + x_batch[b] * m * k;
    const Cd* yb = y.data() + y_batch[b] * k * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        Cd s = 0;
        for (int64_t p = 0; p < k; ++p) {
          s += (tx ? xb[p * m + i] : xb[i * k + p]) * (ty ? yb[j * k + p] : yb[p * n + j]);
        }
        out.push_back(s);
      }
    }
  }
  return out;
}

TEST(ComplexMatmul, ProductsWithTransposesAndBroadcastBatches) {
  operators::RegisterAllOps();
  const int64_t m = 3, n = 4, k = 5;
  // X [2, 1, m, k] against Y [3, k, n]: Out [2, 3, m, n], X shared along the 3, Y along the 2.
  const std::vector<double> xv = RandomValues(2 * 2 * m * k, -1, 1, 41);
  const std::vector<double> yv = RandomValues(2 * 3 * k * n, -1, 1, 42);
  const std::vector<int64_t> x_batch = {0, 0, 0, 1, 1, 1}, y_batch = {0, 1, 2, 0, 1, 2};
  for (const bool tx : {false, true}) {
    for (const bool ty : {false, true}) {
      const std::vector<Cd> want =
          NaiveMatmul(Pairs(xv), Pairs(yv), m, n, k, tx, ty, x_batch, y_batch);
      const DDim xd = tx ? DDim({2, 1, k, m}) : DDim({2, 1, m, k});
      const DDim yd = ty ? DDim({3, n, k}) : DDim({3, k, n});
      for (const bool single : {true, false}) {
        const DenseTensor out =
            RunOp("matmul_v2", {{"X", {Complex(single, xd, xv)}}, {"Y", {Complex(single, yd, yv)}}},
                  {{"Out", 1}}, {{"trans_x", tx}, {"trans_y", ty}})
                .outputs.at("Out")[0];
        ASSERT_EQ(out.dtype(), single ? DataType::COMPLEX64 : DataType::COMPLEX128);
        ASSERT_EQ(out.dims(), DDim({2, 3, m, n}));
        ExpectClose(
            ToDoubles(out), Interleaved(want), single,
            std::string("matmul_v2 trans_x=") + (tx ? "1" : "0") + " trans_y=" + (ty ? "1" : "0"));
      }
    }
  }
}

TEST(ComplexMatmul, GradientsTakeTheConjugates) {
  for (const bool tx : {false, true}) {
    for (const bool ty : {false, true}) {
      GradCheck check;
      check.op_type = "matmul_v2";
      check.inputs = {{"X",
                       {MakeComplexTensor<double>(tx ? DDim({3, 2}) : DDim({2, 3}),
                                                  RandomValues(12, -1, 1, 43))}},
                      {"Y", {MakeComplexTensor<double>({3, 3}, RandomValues(18, -1, 1, 44))}}};
      check.outputs = {{"Out", 1}};
      check.attrs = {{"trans_x", tx}, {"trans_y", ty}};
      // The backward is matmul_v2 and conj: differentiable again.
      check.max_order = 2;
      CheckGradients(check);
    }
  }
  // Broadcast batches (summed back by reduce_as) and a 1-D operand.
  GradCheck batched;
  batched.op_type = "matmul_v2";
  batched.inputs = {{"X", {MakeComplexTensor<double>({2, 1, 2, 3}, RandomValues(24, -1, 1, 45))}},
                    {"Y", {MakeComplexTensor<double>({2, 3, 2}, RandomValues(24, -1, 1, 46))}}};
  batched.outputs = {{"Out", 1}};
  CheckGradients(batched);
  GradCheck vector;
  vector.op_type = "matmul_v2";
  vector.inputs = {{"X", {MakeComplexTensor<double>({3}, RandomValues(6, -1, 1, 47))}},
                   {"Y", {MakeComplexTensor<double>({2, 3, 2}, RandomValues(24, -1, 1, 48))}}};
  vector.outputs = {{"Out", 1}};
  CheckGradients(vector);
}

TEST(ComplexMatmul, BatchedProductsOfBmm) {
  operators::RegisterAllOps();
  const std::vector<double> xv = RandomValues(2 * 2 * 3 * 4, -1, 1, 65);
  const std::vector<double> yv = RandomValues(2 * 2 * 4 * 2, -1, 1, 66);
  const std::vector<Cd> want =
      NaiveMatmul(Pairs(xv), Pairs(yv), 3, 2, 4, false, false, {0, 1}, {0, 1});
  for (const bool single : {true, false}) {
    const DenseTensor out =
        RunOp("bmm",
              {{"X", {Complex(single, {2, 3, 4}, xv)}}, {"Y", {Complex(single, {2, 4, 2}, yv)}}},
              {{"Out", 1}}, {})
            .outputs.at("Out")[0];
    ExpectClose(ToDoubles(out), Interleaved(want), single, "bmm");
  }
  GradCheck check;
  check.op_type = "bmm";
  check.inputs = {{"X", {MakeComplexTensor<double>({2, 3, 4}, xv)}},
                  {"Y", {MakeComplexTensor<double>({2, 4, 2}, yv)}}};
  check.outputs = {{"Out", 1}};
  check.max_order = 2;
  CheckGradients(check);
}

TEST(ComplexMatmul, FusedGradOfPaddlePaddleProgramsConjugates) {
  operators::RegisterAllOps();
  const std::vector<double> xv = RandomValues(12, -1, 1, 49), yv = RandomValues(24, -1, 1, 50);
  const std::vector<double> gv = RandomValues(16, -1, 1, 51);
  const std::vector<Cd> x = Pairs(xv), y = Pairs(yv), g = Pairs(gv);  // [2, 3], [3, 4], [2, 4]
  std::vector<Cd> conj_x, conj_y;
  for (const Cd& c : x) conj_x.push_back(std::conj(c));
  for (const Cd& c : y) conj_y.push_back(std::conj(c));
  // dX = dOut * conj(Y)^T, dY = conj(X)^T * dOut.
  const std::vector<Cd> want_dx = NaiveMatmul(g, conj_y, 2, 3, 4, false, true, {0}, {0});
  const std::vector<Cd> want_dy = NaiveMatmul(conj_x, g, 3, 4, 2, true, false, {0}, {0});
  for (const bool single : {true, false}) {
    const OpRunResult r = RunOp("matmul_v2_grad",
                                {{"X", {Complex(single, {2, 3}, xv)}},
                                 {"Y", {Complex(single, {3, 4}, yv)}},
                                 {"Out@GRAD", {Complex(single, {2, 4}, gv)}}},
                                {{"X@GRAD", 1}, {"Y@GRAD", 1}}, {});
    ExpectClose(ToDoubles(r.outputs.at("X@GRAD")[0]), Interleaved(want_dx), single,
                "matmul_v2_grad X@GRAD");
    ExpectClose(ToDoubles(r.outputs.at("Y@GRAD")[0]), Interleaved(want_dy), single,
                "matmul_v2_grad Y@GRAD");
  }
}

TEST(ComplexEinsum, SpectralModeMixingAndItsGradient) {
  operators::RegisterAllOps();
  // An FNO layer's "bixy,ioxy->boxy": per mode (x, y), the channels mixed by a complex matrix.
  const int64_t B = 2, I = 3, O = 2, X = 2, Y = 3;
  const std::vector<double> av = RandomValues(2 * B * I * X * Y, -1, 1, 52);
  const std::vector<double> wv = RandomValues(2 * I * O * X * Y, -1, 1, 53);
  const std::vector<Cd> a = Pairs(av), w = Pairs(wv);
  std::vector<Cd> want;
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t o = 0; o < O; ++o) {
      for (int64_t x = 0; x < X; ++x) {
        for (int64_t y = 0; y < Y; ++y) {
          Cd s = 0;
          for (int64_t i = 0; i < I; ++i) {
            s += a[((b * I + i) * X + x) * Y + y] * w[((i * O + o) * X + x) * Y + y];
          }
          want.push_back(s);
        }
      }
    }
  }
  for (const bool single : {true, false}) {
    const DenseTensor out =
        RunOp(
            "einsum",
            {{"Operands", {Complex(single, {B, I, X, Y}, av), Complex(single, {I, O, X, Y}, wv)}}},
            {{"Out", 1}}, {{"equation", std::string("bixy,ioxy->boxy")}})
            .outputs.at("Out")[0];
    ASSERT_EQ(out.dims(), DDim({B, O, X, Y}));
    ExpectClose(ToDoubles(out), Interleaved(want), single, "einsum bixy,ioxy->boxy");
  }
  // The fused einsum_grad asked for the first operand's gradient only gives what it gives
  // with both asked for.
  const DenseTensor a_t = MakeComplexTensor<double>({B, I, X, Y}, av);
  const DenseTensor w_t = MakeComplexTensor<double>({I, O, X, Y}, wv);
  const DenseTensor g_t =
      MakeComplexTensor<double>({B, O, X, Y}, RandomValues(2 * B * O * X * Y, -1, 1, 67));
  const auto einsum_grad = [&](int count) {
    return RunOp("einsum_grad", {{"Operands", {a_t, w_t}}, {"Out@GRAD", {g_t}}},
                 {{"Operands@GRAD", count}}, {{"equation", std::string("bixy,ioxy->boxy")}})
        .outputs.at("Operands@GRAD")[0];
  };
  EXPECT_EQ(ToDoubles(einsum_grad(1)), ToDoubles(einsum_grad(2)));
  for (const std::string equation : {"bixy,ioxy->boxy", "ij,jk,kl->il", "ii->i"}) {
    GradCheck check;
    check.op_type = "einsum";
    if (equation == "bixy,ioxy->boxy") {
      check.inputs = {{"Operands",
                       {MakeComplexTensor<double>({B, I, X, Y}, av),
                        MakeComplexTensor<double>({I, O, X, Y}, wv)}}};
    } else if (equation == "ij,jk,kl->il") {
      check.inputs = {{"Operands",
                       {MakeComplexTensor<double>({2, 3}, RandomValues(12, -1, 1, 54)),
                        MakeComplexTensor<double>({3, 2}, RandomValues(12, -1, 1, 55)),
                        MakeComplexTensor<double>({2, 2}, RandomValues(8, -1, 1, 56))}}};
    } else {
      check.inputs = {{"Operands", {MakeComplexTensor<double>({3, 3}, RandomValues(18, -1, 1))}}};
    }
    check.outputs = {{"Out", 1}};
    check.attrs = {{"equation", equation}};
    CheckGradients(check);
  }
}

TEST(ComplexReductions, SumsAndMeansOverDims) {
  operators::RegisterAllOps();
  const std::vector<double> v = RandomValues(2 * 24, -1, 1, 57);
  const std::vector<Cd> c = Pairs(v);  // [2, 3, 4]
  // Sum over dims 0 and 2: Out [3].
  std::vector<Cd> sum_02(3, 0);
  Cd total = 0;
  for (int64_t i = 0; i < 24; ++i) {
    sum_02[(i / 4) % 3] += c[i];
    total += c[i];
  }
  for (const bool single : {true, false}) {
    const DenseTensor x = Complex(single, {2, 3, 4}, v);
    const DenseTensor s =
        RunOp("reduce_sum", {{"X", {x}}}, {{"Out", 1}}, {{"dim", std::vector<int>{0, -1}}})
            .outputs.at("Out")[0];
    ASSERT_EQ(s.dtype(), x.dtype());
    ASSERT_EQ(s.dims(), DDim({3}));
    ExpectClose(ToDoubles(s), Interleaved(sum_02), single, "reduce_sum dims 0, 2");
    std::vector<Cd> mean_02;
    for (const Cd& z : sum_02) mean_02.push_back(z / 8.0);
    const DenseTensor m = RunOp("reduce_mean", {{"X", {x}}}, {{"Out", 1}},
                                {{"dim", std::vector<int>{0, 2}}, {"keep_dim", true}})
                              .outputs.at("Out")[0];
    ASSERT_EQ(m.dims(), DDim({1, 3, 1}));
    ExpectClose(ToDoubles(m), Interleaved(mean_02), single, "reduce_mean keep_dim");
    const DenseTensor all = RunOp("reduce_sum", {{"X", {x}}}, {{"Out", 1}}, {{"reduce_all", true}})
                                .outputs.at("Out")[0];
    ASSERT_EQ(all.dims(), DDim());
    ExpectClose(ToDoubles(all), Interleaved({total}), single, "reduce_sum reduce_all");
    const DenseTensor mean = RunOp("mean", {{"X", {x}}}, {{"Out", 1}}, {}).outputs.at("Out")[0];
    ExpectClose(ToDoubles(mean), Interleaved({total / 24.0}), single, "mean");
  }
  ExpectError<platform::UnimplementedError>(
      [&] {
        RunOp("reduce_sum", {{"X", {Complex(false, {2, 3, 4}, v)}}}, {{"Out", 1}},
              {{"dim", std::vector<int>{0}}, {"out_dtype", static_cast<int>(DataType::FLOAT64)}});
      },
      {"op `reduce_sum` attribute `out_dtype`", "complex128", "float64"});
}

TEST(ComplexReductions, GradientsBroadcastBack) {
  const std::vector<double> v = RandomValues(2 * 12, -1, 1, 58);
  const std::vector<std::pair<std::string, AttributeMap>> cases = {
      {"reduce_sum", {{"dim", std::vector<int>{1}}}},
      {"reduce_sum", {{"reduce_all", true}}},
      {"reduce_mean", {{"dim", std::vector<int>{0}}, {"keep_dim", true}}},
      {"mean", {}}};
  for (const auto& [op, attrs] : cases) {
    GradCheck check;
    check.op_type = op;
    check.inputs = {{"X", {MakeComplexTensor<double>({3, 4}, v)}}};
    check.outputs = {{"Out", 1}};
    check.attrs = attrs;
    check.max_order = 2;  // unsqueeze2, expand_as_v2, cast and elementwise_div.
    CheckGradients(check);
  }
  // PaddlePaddle's fused grad ops: dOut broadcast back (divided by the count for means).
  operators::RegisterAllOps();
  const std::vector<double> gv = {1, -2, 0.5, 3};  // [2] complex.
  const DenseTensor x = MakeComplexTensor<double>({2, 3}, RandomValues(12, -1, 1, 59));
  const DenseTensor dout = MakeComplexTensor<double>({2}, gv);
  const auto grad = [&](const std::string& op, const AttributeMap& attrs) {
    return ToDoubles(RunOp(op, {{"X", {x}}, {"Out@GRAD", {dout}}}, {{"X@GRAD", 1}}, attrs)
                         .outputs.at("X@GRAD")[0]);
  };
  const AttributeMap rows = {{"dim", std::vector<int>{1}}};
  std::vector<double> want_sum, want_mean;
  for (int r = 0; r < 2; ++r) {
    for (int j = 0; j < 3; ++j) {
      for (int part = 0; part < 2; ++part) {
        want_sum.push_back(gv[2 * r + part]);
        want_mean.push_back(gv[2 * r + part] / 3);
      }
    }
  }
  ExpectClose(grad("reduce_sum_grad", rows), want_sum, false, "reduce_sum_grad");
  ExpectClose(grad("reduce_mean_grad", rows), want_mean, false, "reduce_mean_grad");
}

TEST(ComplexCumsum, RunningSumsInEveryDirectionAndTheirGradient) {
  operators::RegisterAllOps();
  const std::vector<Cd> x = Pairs(RandomValues(2 * 12, -1, 1, 61));  // [3, 4]
  struct Case {
    int axis;
    bool exclusive, reverse, flatten;
  };
  for (const Case& c :
       {Case{1, false, false, false}, Case{0, false, true, false}, Case{-1, true, false, false},
        Case{0, true, true, false}, Case{0, false, false, true}}) {
    const std::string what = "axis " + std::to_string(c.axis) + (c.exclusive ? " exclusive" : "") +
                             (c.reverse ? " reverse" : "") + (c.flatten ? " flatten" : "");
    const AttributeMap attrs = {{"axis", c.axis},
                                {"exclusive", c.exclusive},
                                {"reverse", c.reverse},
                                {"flatten", c.flatten}};
    // The running sums written out: rows of 4 along axis 1, columns of 3 along axis 0, all
    // 12 in order when flattened.
    const bool along_rows = c.flatten || c.axis != 0;
    const int64_t lines = c.flatten ? 1 : (along_rows ? 3 : 4);
    const int64_t len = c.flatten ? 12 : (along_rows ? 4 : 3);
    std::vector<Cd> want(12);
    for (int64_t l = 0; l < lines; ++l) {
      Cd sum = 0;
      for (int64_t s = 0; s < len; ++s) {
        const int64_t k = c.reverse ? len - 1 - s : s;
        const int64_t at = c.flatten ? k : (along_rows ? l * 4 + k : k * 4 + l);
        if (c.exclusive) want[at] = sum;
        sum += x[at];
        if (!c.exclusive) want[at] = sum;
      }
    }
    for (bool single : {true, false}) {
      const DenseTensor got =
          RunOp("cumsum", {{"X", {Complex(single, {3, 4}, Interleaved(x))}}}, {{"Out", 1}}, attrs)
              .outputs.at("Out")[0];
      ExpectClose(ToDoubles(got), Interleaved(want), single, what);
    }
    if (c.flatten) continue;  // No gradient of a flattened cumsum (an Unimplemented error).
    GradCheck check;
    check.op_type = "cumsum";
    check.inputs = {{"X", {MakeComplexTensor<double>({3, 4}, Interleaved(x))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = attrs;
    check.max_order = 2;  // The gradient is a cumsum itself.
    CheckGradients(check);
  }
}

TEST(ComplexReductions, ProductsOverDimsAndTheirConjugatedGradient) {
  operators::RegisterAllOps();
  // Away from 0 (the gradient divides by X).
  std::vector<double> v = RandomValues(2 * 12, 0.5, 1.5, 62);
  for (size_t i = 1; i < v.size(); i += 4) v[i] = -v[i];
  const std::vector<Cd> x = Pairs(v);  // [3, 4]
  std::vector<Cd> rows(3, Cd(1)), all(1, Cd(1));
  for (int r = 0; r < 3; ++r) {
    for (int j = 0; j < 4; ++j) {
      rows[r] *= x[r * 4 + j];
      all[0] *= x[r * 4 + j];
    }
  }
  for (bool single : {true, false}) {
    const DenseTensor t = Complex(single, {3, 4}, v);
    ExpectClose(
        ToDoubles(RunOp("reduce_prod", {{"X", {t}}}, {{"Out", 1}}, {{"dim", std::vector<int>{1}}})
                      .outputs.at("Out")[0]),
        Interleaved(rows), single, "reduce_prod over dim 1");
    ExpectClose(ToDoubles(RunOp("reduce_prod", {{"X", {t}}}, {{"Out", 1}}, {{"reduce_all", true}})
                              .outputs.at("Out")[0]),
                Interleaved(all), single, "reduce_prod over all");
  }
  for (const AttributeMap& attrs :
       {AttributeMap{{"dim", std::vector<int>{1}}},
        AttributeMap{{"dim", std::vector<int>{0}}, {"keep_dim", true}}}) {
    GradCheck check;
    check.op_type = "reduce_prod";
    check.inputs = {{"X", {MakeComplexTensor<double>({3, 4}, v)}}};
    check.outputs = {{"Out", 1}};
    check.attrs = attrs;
    check.max_order = 2;  // conj, elementwise_div and elementwise_mul.
    CheckGradients(check);
  }
}

TEST(ComplexFills, FillConstantAndSetValueWriteComplexValues) {
  operators::RegisterAllOps();
  for (const DataType type : {DataType::COMPLEX64, DataType::COMPLEX128}) {
    const DenseTensor filled_constant = RunOp("fill_constant", {}, {{"Out", 1}},
                                              {{"dtype", static_cast<int>(type)},
                                               {"shape", std::vector<int64_t>{2, 3}},
                                               {"value", 1.5f}})
                                            .outputs.at("Out")[0];
    ASSERT_EQ(filled_constant.dtype(), type);
    std::vector<double> want;
    for (int i = 0; i < 6; ++i) want.insert(want.end(), {1.5, 0});
    EXPECT_EQ(ToDoubles(filled_constant), want);
  }
  // The low modes of a zero spectrum overwritten (an FNO's out_ft[:, :, :2, :2] = ...).
  const std::vector<double> xv = RandomValues(2 * 12, -1, 1, 60);  // [3, 4]
  const std::vector<double> vv = RandomValues(2 * 4, -1, 1, 61);   // [2, 2]
  const AttributeMap box = {{"axes", std::vector<int64_t>{0, 1}},
                            {"starts", std::vector<int64_t>{1, 0}},
                            {"ends", std::vector<int64_t>{3, 4}},
                            {"steps", std::vector<int64_t>{1, 2}}};
  std::vector<Cd> want = Pairs(xv);
  const std::vector<Cd> value = Pairs(vv);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 2; ++c) want[(1 + r) * 4 + 2 * c] = value[r * 2 + c];
  }
  for (const bool single : {true, false}) {
    const DenseTensor out = RunOp("set_value",
                                  {{"Input", {Complex(single, {3, 4}, xv)}},
                                   {"ValueTensor", {Complex(single, {2, 2}, vv)}}},
                                  {{"Out", 1}}, box)
                                .outputs.at("Out")[0];
    ExpectClose(ToDoubles(out), Interleaved(want), single, "set_value with a complex tensor");
  }
  // A complex scalar among `values`.
  framework::Scalar z;
  z.type = framework::Scalar::Type::COMPLEX128;
  z.c_real = 0.25;
  z.c_imag = -2;
  AttributeMap scalar_box = box;
  scalar_box["shape"] = std::vector<int64_t>{1};
  scalar_box["values"] = std::vector<framework::Scalar>{z};
  std::vector<Cd> want_scalar = Pairs(xv);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 2; ++c) want_scalar[(1 + r) * 4 + 2 * c] = Cd(0.25, -2);
  }
  const DenseTensor filled =
      RunOp("set_value", {{"Input", {Complex(false, {3, 4}, xv)}}}, {{"Out", 1}}, scalar_box)
          .outputs.at("Out")[0];
  ExpectClose(ToDoubles(filled), Interleaved(want_scalar), false, "set_value complex scalar");

  GradCheck check;
  check.op_type = "set_value";
  check.inputs = {{"Input", {MakeComplexTensor<double>({3, 4}, xv)}},
                  {"ValueTensor", {MakeComplexTensor<double>({2, 2}, vv)}}};
  check.outputs = {{"Out", 1}};
  check.attrs = box;
  CheckGradients(check);
}

TEST(ComplexIndexing, GatherSlicePadAndWhereMoveBothParts) {
  operators::RegisterAllOps();
  const std::vector<double> v = RandomValues(2 * 12, -1, 1, 62);
  const std::vector<Cd> c = Pairs(v);  // [3, 4]
  const DenseTensor x = MakeComplexTensor<float>({3, 4}, v);
  const DenseTensor rows = MakeTensor<int64_t>({2}, {2, 0});
  const auto out = [](const OpRunResult& r) { return ToDoubles(r.outputs.at("Out")[0]); };
  std::vector<Cd> want;
  for (int64_t r : {2, 0}) want.insert(want.end(), c.begin() + 4 * r, c.begin() + 4 * r + 4);
  ExpectClose(out(RunOp("gather", {{"X", {x}}, {"Index", {rows}}}, {{"Out", 1}}, {})),
              Interleaved(want), true, "gather");
  std::vector<Cd> cols;
  for (int r = 0; r < 3; ++r) {
    for (int64_t j : {2, 0}) cols.push_back(c[4 * r + j]);
  }
  ExpectClose(
      out(RunOp("index_select", {{"X", {x}}, {"Index", {rows}}}, {{"Out", 1}}, {{"dim", 1}})),
      Interleaved(cols), true, "index_select");
  const DenseTensor points = MakeTensor<int64_t>({2, 2}, {1, 3, 2, 0});
  ExpectClose(out(RunOp("gather_nd", {{"X", {x}}, {"Index", {points}}}, {{"Out", 1}}, {})),
              Interleaved({c[7], c[8]}), true, "gather_nd");
  // Zero padding of a spectrum, one column on each side of W.
  std::vector<Cd> padded;
  for (int r = 0; r < 3; ++r) {
    padded.push_back(0);
    padded.insert(padded.end(), c.begin() + 4 * r, c.begin() + 4 * r + 4);
    padded.push_back(0);
  }
  ExpectClose(
      out(RunOp(
          "pad3d", {{"X", {MakeComplexTensor<float>({1, 1, 1, 3, 4}, v)}}}, {{"Out", 1}},
          {{"paddings", std::vector<int>{1, 1, 0, 0, 0, 0}}, {"mode", std::string("constant")}})),
      Interleaved(padded), true, "pad3d");
  const DenseTensor cond = MakeTensor<bool>({3, 4}, {1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1});
  const DenseTensor y = MakeComplexTensor<float>({3, 4}, RandomValues(24, -1, 1, 63));
  const std::vector<Cd> yc = Pairs(ToDoubles(y));
  std::vector<Cd> chosen;
  const std::vector<double> flags = ToDoubles(cond);
  for (int i = 0; i < 12; ++i) chosen.push_back(flags[i] != 0 ? c[i] : yc[i]);
  ExpectClose(
      out(RunOp("where", {{"Condition", {cond}}, {"X", {x}}, {"Y", {y}}}, {{"Out", 1}}, {})),
      Interleaved(chosen), true, "where");

  // Every second column from the end, backwards (x[:, ::-2]), and the upper triangle.
  std::vector<Cd> strided, upper;
  for (int r = 0; r < 3; ++r) {
    for (int j : {3, 1}) strided.push_back(c[4 * r + j]);
    for (int j = 0; j < 4; ++j) upper.push_back(j >= r ? c[4 * r + j] : Cd(0));
  }
  const AttributeMap backwards = {{"axes", std::vector<int>{1}},
                                  {"starts", std::vector<int>{-1}},
                                  {"ends", std::vector<int>{-5}},
                                  {"strides", std::vector<int>{-2}}};
  ExpectClose(out(RunOp("strided_slice", {{"Input", {x}}}, {{"Out", 1}}, backwards)),
              Interleaved(strided), true, "strided_slice");
  const AttributeMap triangle = {{"diagonal", 0}, {"lower", false}};
  ExpectClose(out(RunOp("tril_triu", {{"X", {x}}}, {{"Out", 1}}, triangle)), Interleaved(upper),
              true, "tril_triu");

  // Their gradients scatter dOut back (no conjugate: each is linear in X).
  GradCheck gather;
  gather.op_type = "gather";
  gather.inputs = {{"X", {MakeComplexTensor<double>({3, 4}, v)}},
                   {"Index", {MakeTensor<int64_t>({3}, {2, 0, 2})}}};
  gather.outputs = {{"Out", 1}};
  gather.wrt = {"X"};
  CheckGradients(gather);
  GradCheck select = gather;
  select.op_type = "index_select";
  select.attrs = {{"dim", 1}};
  CheckGradients(select);
  GradCheck pad;
  pad.op_type = "pad3d";
  pad.inputs = {{"X", {MakeComplexTensor<double>({1, 1, 1, 3, 4}, v)}}};
  pad.outputs = {{"Out", 1}};
  pad.attrs = {{"paddings", std::vector<int>{2, 1, 1, 0, 0, 0}}, {"mode", std::string("reflect")}};
  CheckGradients(pad);
  GradCheck slice;
  slice.op_type = "strided_slice";
  slice.inputs = {{"Input", {MakeComplexTensor<double>({3, 4}, v)}}};
  slice.outputs = {{"Out", 1}};
  slice.attrs = backwards;
  slice.max_order = 2;
  CheckGradients(slice);
  GradCheck tri;
  tri.op_type = "tril_triu";
  tri.inputs = {{"X", {MakeComplexTensor<double>({3, 4}, v)}}};
  tri.outputs = {{"Out", 1}};
  tri.attrs = triangle;
  tri.max_order = 2;
  CheckGradients(tri);
  GradCheck choose;
  choose.op_type = "where";
  choose.inputs = {{"Condition", {cond}},
                   {"X", {MakeComplexTensor<double>({3, 4}, v)}},
                   {"Y", {MakeComplexTensor<double>({3, 4}, RandomValues(24, -1, 1, 64))}}};
  choose.outputs = {{"Out", 1}};
  choose.wrt = {"X", "Y"};
  CheckGradients(choose);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// oneDNN kernels of mul_grad and matmul_v2_grad: FLAGS_use_onednn decides between the oneDNN
// and the plain kernel, and both give the same gradients (the plain kernels are checked
// against finite differences in matmul_grad_test.cc and paddle_grad_ops_test.cc). Covers
// transposes, 1-D operands, batches, broadcast batches (summed by the plain kernel the oneDNN
// kernel hands them to), one gradient alone, empty tensors, LoD, gradients written over
// inputs, and float64 on the plain kernels.
#include <string>
#include <vector>

#include "platform/init.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LibraryType;

class OneDNNMatmulGradTest : public OneDNNKernelTestBase {};

struct GradRun {
  LibraryType backend;
  std::map<std::string, DenseTensor> grads;  // "X@GRAD", "Y@GRAD" as requested.
};

GradRun RunGrad(bool use_onednn, const std::string& type, const SlotTensors& inputs,
                const AttributeMap& attrs, bool want_x, bool want_y) {
  ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
  std::map<std::string, int> outputs;
  if (want_x) outputs["X@GRAD"] = 1;
  if (want_y) outputs["Y@GRAD"] = 1;
  OpRunResult r = RunOp(type, inputs, outputs, attrs);
  GradRun g{r.kernel->key.backend, {}};
  for (auto& [slot, ts] : r.outputs) g.grads[slot] = ts[0];
  return g;
}

SlotTensors GradInputs(const DDim& x, const DDim& y, const DDim& out, unsigned seed) {
  return {{"X", {MakeTensor<float>(x, RandomValues(x.numel(), -1, 1, seed))}},
          {"Y", {MakeTensor<float>(y, RandomValues(y.numel(), -1, 1, seed + 1))}},
          {"Out@GRAD", {MakeTensor<float>(out, RandomValues(out.numel(), -1, 1, seed + 2))}}};
}

// Runs both kernels for each subset of gradients; oneDNN must be the chosen kernel, and the
// gradients agree within float rounding of sums of `sum_len` products (|terms| <= 1).
void CheckBoth(const std::string& type, const SlotTensors& inputs, const AttributeMap& attrs,
               int64_t sum_len, const std::string& what) {
  for (const auto& [want_x, want_y] : {std::pair{true, true}, {true, false}, {false, true}}) {
    const std::string w = what + (want_x ? " X@GRAD" : "") + (want_y ? " Y@GRAD" : "");
    const GradRun onednn = RunGrad(true, type, inputs, attrs, want_x, want_y);
    const GradRun plain = RunGrad(false, type, inputs, attrs, want_x, want_y);
    EXPECT_EQ(onednn.backend, LibraryType::kOneDNN) << w;
    EXPECT_EQ(plain.backend, LibraryType::kPlain) << w;
    ASSERT_EQ(onednn.grads.size(), plain.grads.size()) << w;
    for (const auto& [slot, expected] : plain.grads) {
      const DenseTensor& actual = onednn.grads.at(slot);
      ASSERT_TRUE(expected.initialized()) << w << " " << slot;
      EXPECT_EQ(actual.dims(), expected.dims()) << w << " " << slot;
      EXPECT_EQ(actual.lod(), expected.lod()) << w << " " << slot;
      ExpectNear(ToDoubles(actual), ToDoubles(expected), 1e-5, 2e-7 * sum_len, w + " " + slot);
    }
    EXPECT_EQ(onednn.grads.count("X@GRAD"), want_x ? 1u : 0u) << w;
    EXPECT_EQ(onednn.grads.count("Y@GRAD"), want_y ? 1u : 0u) << w;
  }
}

struct MatmulCase {
  DDim x, y;
  bool trans_x = false, trans_y = false;
  DDim out;
  int64_t sum_len;  // The longest sum in either gradient.
};

std::string Name(const MatmulCase& c) {
  return "matmul_v2_grad X " + c.x.ToString() + (c.trans_x ? "^T" : "") + " Y " + c.y.ToString() +
         (c.trans_y ? "^T" : "");
}

TEST_F(OneDNNMatmulGradTest, MatmulV2GradMatchesPlainKernel) {
  const std::vector<MatmulCase> cases = {
      // 2-D, every transpose.
      {{5, 7}, {7, 3}, false, false, {5, 3}, 7},
      {{7, 5}, {7, 3}, true, false, {5, 3}, 7},
      {{5, 7}, {3, 7}, false, true, {5, 3}, 7},
      {{7, 5}, {3, 7}, true, true, {5, 3}, 7},
      // Equal batch dims.
      {{2, 3, 5, 7}, {2, 3, 7, 4}, false, false, {2, 3, 5, 4}, 7},
      {{2, 3, 7, 5}, {2, 3, 4, 7}, true, true, {2, 3, 5, 4}, 7},
      {{4, 6, 33}, {4, 17, 33}, false, true, {4, 6, 17}, 33},
      // 1-D operands (their trans flags do not apply).
      {{7}, {7, 3}, true, false, {3}, 7},
      {{5, 7}, {7}, false, true, {5}, 7},
      {{7}, {7}, false, false, {}, 7},
      {{64, 40}, {40}, false, false, {64}, 64},
      // Unbatched Y under a batched X: dY over the flattened batches.
      {{2, 3, 5, 7}, {7, 4}, false, false, {2, 3, 5, 4}, 30},
      {{2, 3, 5, 7}, {4, 7}, false, true, {2, 3, 5, 4}, 30},
      {{3, 5, 7}, {7}, false, false, {3, 5}, 15},
  };
  unsigned seed = 1;
  for (const MatmulCase& c : cases) {
    const SlotTensors in = GradInputs(c.x, c.y, c.out, seed += 3);
    CheckBoth("matmul_v2_grad", in, {{"trans_x", c.trans_x}, {"trans_y", c.trans_y}}, c.sum_len,
              Name(c));
  }
}

// Gradients of broadcast operands are summed over the broadcast batches by the plain kernel;
// the gradient of the other operand alone still runs on the primitive.
TEST_F(OneDNNMatmulGradTest, BroadcastBatchesGoToThePlainKernel) {
  const std::vector<MatmulCase> cases = {
      {{2, 1, 5, 7}, {3, 7, 4}, false, false, {2, 3, 5, 4}, 7},
      {{2, 3, 7, 5}, {7, 4}, true, false, {2, 3, 5, 4}, 30},  // Transposed X: no flat dY.
      {{7}, {3, 7, 4}, false, false, {3, 4}, 7},
  };
  unsigned seed = 50;
  for (const MatmulCase& c : cases) {
    const SlotTensors in = GradInputs(c.x, c.y, c.out, seed += 3);
    const AttributeMap attrs = {{"trans_x", c.trans_x}, {"trans_y", c.trans_y}};
    for (const auto& [want_x, want_y] : {std::pair{true, true}, {true, false}, {false, true}}) {
      const GradRun onednn = RunGrad(true, "matmul_v2_grad", in, attrs, want_x, want_y);
      const GradRun plain = RunGrad(false, "matmul_v2_grad", in, attrs, want_x, want_y);
      EXPECT_EQ(onednn.backend, LibraryType::kOneDNN);
      for (const auto& [slot, expected] : plain.grads) {
        ExpectNear(ToDoubles(onednn.grads.at(slot)), ToDoubles(expected), 1e-5, 2e-7 * c.sum_len,
                   Name(c) + " " + slot);
      }
    }
  }
  // The plain kernel sums batches in double: dY = 1e8 + 1 - 1e8 = 1 exactly, where a float
  // sum in batch order gives 0. X [3, 1, 1] transposed keeps dY off the flattened product.
  const SlotTensors in = {{"X", {MakeTensor<float>({3, 1, 1}, {1, 1, 1})}},
                          {"Y", {MakeTensor<float>({1, 1}, {2})}},
                          {"Out@GRAD", {MakeTensor<float>({3, 1, 1}, {1e8, 1, -1e8})}}};
  const GradRun r = RunGrad(true, "matmul_v2_grad", in, {{"trans_x", true}}, false, true);
  EXPECT_EQ(r.backend, LibraryType::kOneDNN);
  EXPECT_EQ(ToDoubles(r.grads.at("Y@GRAD")), std::vector<double>{1.0});
}

TEST_F(OneDNNMatmulGradTest, MulGradMatchesPlainKernel) {
  struct MulCase {
    DDim x, y;
    int xc, yc;
    DDim out;
    int64_t sum_len;
  };
  const std::vector<MulCase> cases = {
      {{5, 7}, {7, 3}, 1, 1, {5, 3}, 7},           {{2, 3, 4}, {4, 5}, 2, 1, {2, 3, 5}, 6},
      {{6, 2, 2}, {4, 3}, 1, 1, {6, 3}, 6},        {{4, 6}, {2, 3, 5}, 1, 2, {4, 5}, 6},
      {{64, 800}, {800, 50}, 1, 1, {64, 50}, 800},
  };
  unsigned seed = 100;
  for (const MulCase& c : cases) {
    SlotTensors in = GradInputs(c.x, c.y, c.out, seed += 3);
    in["X"][0].set_lod({{0, 1, static_cast<size_t>(c.x[0])}});  // X@GRAD takes X's LoD.
    CheckBoth("mul_grad", in, {{"x_num_col_dims", c.xc}, {"y_num_col_dims", c.yc}}, c.sum_len,
              "mul_grad X " + c.x.ToString() + " Y " + c.y.ToString());
  }
}

// Empty M, N or batch give empty gradients; an empty contraction gives zeros.
TEST_F(OneDNNMatmulGradTest, EmptyTensors) {
  CheckBoth("mul_grad", GradInputs({0, 4}, {4, 3}, {0, 3}, 200), {}, 1, "mul_grad M = 0");
  CheckBoth("mul_grad", GradInputs({5, 4}, {4, 0}, {5, 0}, 203), {}, 1, "mul_grad N = 0");
  CheckBoth("mul_grad", GradInputs({5, 0}, {0, 3}, {5, 3}, 206), {}, 1, "mul_grad K = 0");
  CheckBoth("matmul_v2_grad", GradInputs({0, 5, 4}, {0, 4, 3}, {0, 5, 3}, 209), {}, 1,
            "matmul_v2_grad batch 0");
  CheckBoth("matmul_v2_grad", GradInputs({2, 5, 0}, {2, 0, 3}, {2, 5, 3}, 212), {}, 1,
            "matmul_v2_grad K = 0");
  CheckBoth("matmul_v2_grad", GradInputs({0, 5, 4}, {4, 3}, {0, 5, 3}, 215), {}, 1,
            "matmul_v2_grad flat dY of no batches");
  const GradRun r =
      RunGrad(true, "mul_grad", GradInputs({5, 0}, {0, 3}, {5, 3}, 218), {}, true, true);
  EXPECT_EQ(r.grads.at("X@GRAD").dims(), DDim({5, 0}));
  EXPECT_EQ(r.grads.at("Y@GRAD").dims(), DDim({0, 3}));
  const GradRun z = RunGrad(true, "matmul_v2_grad",
                            GradInputs({2, 5, 0}, {2, 0, 3}, {2, 5, 3}, 221), {}, true, true);
  EXPECT_EQ(z.grads.at("X@GRAD").dims(), DDim({2, 5, 0}));
}

// Each gradient written over an input the other gradient reads (X@GRAD over X, Y@GRAD over
// Y, or over Out@GRAD): both kernels read every input before replacing an output.
TEST_F(OneDNNMatmulGradTest, GradientsWrittenOverInputs) {
  // Square operands: shape inference resizes an output variable to its gradient's shape.
  const DDim square{6, 6};
  const SlotTensors in = GradInputs(square, square, square, 300);
  const std::map<std::string, DenseTensor> feeds = {
      {"x", in.at("X")[0]}, {"y", in.at("Y")[0]}, {"dout", in.at("Out@GRAD")[0]}};
  const framework::VariableNameMap inputs = {{"X", {"x"}}, {"Y", {"y"}}, {"Out@GRAD", {"dout"}}};
  for (const std::string type : {"mul_grad", "matmul_v2_grad"}) {
    const GradRun expected = RunGrad(false, type, in, {}, true, true);
    for (const auto& [dx, dy] : {std::pair{"x", "y"}, {"y", "x"}, {"dout", "y"}, {"x", "dout"}}) {
      for (bool use_onednn : {true, false}) {
        ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
        const std::string what =
            type + " X@GRAD->" + dx + " Y@GRAD->" + dy + (use_onednn ? " oneDNN" : " plain");
        const NamedOpRun r = RunNamedOp(type, inputs, {{"X@GRAD", {dx}}, {"Y@GRAD", {dy}}}, feeds);
        EXPECT_EQ(r.kernel->key.backend, use_onednn ? LibraryType::kOneDNN : LibraryType::kPlain);
        ExpectNear(ToDoubles(r.vars.at(dx)), ToDoubles(expected.grads.at("X@GRAD")), 1e-5, 2e-6,
                   what + " X@GRAD");
        ExpectNear(ToDoubles(r.vars.at(dy)), ToDoubles(expected.grads.at("Y@GRAD")), 1e-5, 2e-6,
                   what + " Y@GRAD");
      }
    }
  }
}

// With the handover on (the default), small products run the plain kernel inside the oneDNN
// one: bitwise the plain results, on sums long enough for the primitive's order to show.
TEST_F(OneDNNMatmulGradTest, SmallProductsRunThePlainKernel) {
  FLAGS_onednn_small_input_fallback = true;
  const SlotTensors in = GradInputs({4, 96}, {96, 3}, {4, 3}, 400);
  for (const std::string type : {"mul_grad", "matmul_v2_grad"}) {
    const GradRun onednn = RunGrad(true, type, in, {}, true, true);
    const GradRun plain = RunGrad(false, type, in, {}, true, true);
    EXPECT_EQ(onednn.backend, LibraryType::kOneDNN) << type;
    for (const auto& [slot, expected] : plain.grads) {
      EXPECT_EQ(ToDoubles(onednn.grads.at(slot)), ToDoubles(expected)) << type << " " << slot;
    }
  }
}

TEST_F(OneDNNMatmulGradTest, Float64StaysOnThePlainKernels) {
  const SlotTensors in = {{"X", {MakeTensor<double>({3, 4}, RandomValues(12, -1, 1, 500))}},
                          {"Y", {MakeTensor<double>({4, 2}, RandomValues(8, -1, 1, 501))}},
                          {"Out@GRAD", {MakeTensor<double>({3, 2}, RandomValues(6, -1, 1, 502))}}};
  for (const std::string type : {"mul_grad", "matmul_v2_grad"}) {
    const GradRun r = RunGrad(true, type, in, {}, true, true);
    EXPECT_EQ(r.backend, LibraryType::kPlain) << type;
    EXPECT_EQ(r.grads.at("X@GRAD").dtype(), DataType::FLOAT64) << type;
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// oneDNN kernels of matmul_v2 and mul: FLAGS_use_onednn decides between the oneDNN and the
// plain kernel, and both give the same values (cross-kernel consistency).
#include <atomic>
#include <thread>
#include <vector>

#include "platform/init.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LibraryType;

struct Run {
  LibraryType backend;
  DDim dims;
  std::vector<double> values;
};

Run RunWith(bool use_onednn, const std::string& type, const SlotTensors& inputs,
            const AttributeMap& attrs) {
  ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
  auto r = RunOp(type, inputs, {{"Out", 1}}, attrs);
  return {r.kernel->key.backend, r.outputs["Out"][0].dims(), ToDoubles(r.outputs["Out"][0])};
}

// Runs the op with oneDNN on and off; checks the choice and that the results agree.
void CheckBothKernels(const std::string& type, const DDim& x, const DDim& y,
                      const AttributeMap& attrs, int64_t k) {
  const SlotTensors inputs = {{"X", {MakeTensor<float>(x, RandomValues(x.numel(), -1, 1, 11))}},
                              {"Y", {MakeTensor<float>(y, RandomValues(y.numel(), -1, 1, 12))}}};
  const std::string what = type + " " + x.ToString() + " x " + y.ToString();
  const Run onednn = RunWith(true, type, inputs, attrs);
  const Run plain = RunWith(false, type, inputs, attrs);
  EXPECT_EQ(onednn.backend, LibraryType::kOneDNN) << what;
  EXPECT_EQ(plain.backend, LibraryType::kPlain) << what;
  EXPECT_EQ(onednn.dims, plain.dims) << what;
  ExpectNear(onednn.values, plain.values, 1e-5, 1e-6 * 4 * (k + 1), what);
}

class OneDNNKernelTest : public OneDNNKernelTestBase {};

TEST_F(OneDNNKernelTest, MatmulV2MatchesPlainKernel) {
  struct Case {
    DDim x, y;
    bool tx, ty;
  };
  const std::vector<Case> cases = {
      {{3, 4}, {4, 5}, false, false},
      {{4, 3}, {4, 5}, true, false},
      {{3, 4}, {5, 4}, false, true},
      {{4, 3}, {5, 4}, true, true},
      {{7}, {7}, false, false},
      {{7}, {7, 2}, false, false},
      {{3, 7}, {7}, false, false},
      {{2, 3, 4}, {2, 4, 5}, false, false},
      {{2, 1, 3, 4}, {5, 4, 6}, false, false},
      {{3, 4}, {2, 5, 4}, false, true},
      {{2, 4, 3}, {1, 5, 4}, true, true},
      {{0, 4}, {4, 5}, false, false},
      {{3, 0}, {0, 5}, false, false},
      {{64, 256}, {256, 48}, false, false},
  };
  for (const auto& c : cases) {
    const int64_t k = c.x.size() == 1 ? c.x[0] : c.x[c.tx ? c.x.size() - 2 : c.x.size() - 1];
    CheckBothKernels("matmul_v2", c.x, c.y, {{"trans_x", c.tx}, {"trans_y", c.ty}}, k);
  }
}

TEST_F(OneDNNKernelTest, MulMatchesPlainKernel) {
  struct Case {
    DDim x, y;
    int xn, yn;
    int64_t k;
  };
  const std::vector<Case> cases = {
      {{3, 4}, {4, 5}, 1, 1, 4},          {{2, 3, 4}, {4, 5}, 2, 1, 4},
      {{2, 3, 4}, {12, 5}, 1, 1, 12},     {{2, 3, 4, 5}, {4, 5, 6}, 2, 2, 20},
      {{0, 4}, {4, 5}, 1, 1, 4},          {{3, 0}, {0, 2}, 1, 1, 0},
      {{100, 300}, {300, 30}, 1, 1, 300},
  };
  for (const auto& c : cases) {
    CheckBothKernels("mul", c.x, c.y, {{"x_num_col_dims", c.xn}, {"y_num_col_dims", c.yn}}, c.k);
  }
}

// Executors on several threads share the CPU context; each thread runs its primitives on a
// stream of its own, and every result equals the single-threaded one.
TEST_F(OneDNNKernelTest, ConcurrentExecutorsGiveTheSingleThreadedResults) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  const SlotTensors inputs = {
      {"X", {MakeTensor<float>({32, 48}, RandomValues(32 * 48, -1, 1, 21))}},
      {"Y", {MakeTensor<float>({48, 40}, RandomValues(48 * 40, -1, 1, 22))}}};
  const auto reference = RunOp("matmul_v2", inputs, {{"Out", 1}});
  ASSERT_EQ(reference.kernel->key.backend, LibraryType::kOneDNN);
  const std::vector<double> expected = ToDoubles(reference.outputs.at("Out")[0]);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        const auto r = RunOp("matmul_v2", inputs, {{"Out", 1}});
        if (ToDoubles(r.outputs.at("Out")[0]) != expected) ++mismatches;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST_F(OneDNNKernelTest, Float64StaysOnThePlainKernel) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  auto r = RunOp("matmul_v2",
                 {{"X", {MakeTensor<double>({2, 2}, {1, 2, 3, 4})}},
                  {"Y", {MakeTensor<double>({2, 2}, {1, 0, 0, 1})}}},
                 {{"Out", 1}});
  EXPECT_EQ(r.kernel->key.backend, LibraryType::kPlain);
  ExpectNear(ToDoubles(r.outputs["Out"][0]), {1, 2, 3, 4}, 0, 0, "identity");
}

TEST_F(OneDNNKernelTest, LoDAndErrorsMatchPlainKernel) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  DenseTensor x = MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  x.set_lod(framework::LoD{{0, 1, 3}});
  auto r = RunOp("mul", {{"X", {x}}, {"Y", {MakeTensor<float>({2, 1}, {1, 1})}}}, {{"Out", 1}});
  EXPECT_EQ(r.kernel->key.backend, LibraryType::kOneDNN);
  EXPECT_EQ(r.outputs["Out"][0].lod(), x.lod());
  try {
    RunOp("matmul_v2",
          {{"X", {MakeTensor<float>({2, 3}, RandomValues(6, 0, 1))}},
           {"Y", {MakeTensor<float>({4, 5}, RandomValues(20, 0, 1))}}},
          {{"Out", 1}});
    FAIL() << "expected InvalidArgumentError";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `matmul_v2` inputs `X` and `Y`"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

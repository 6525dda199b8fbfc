// mul_grad, sum, the elementwise binary ops and concat, one op per program, float32, 2 threads: the
// oneDNN kernels (FLAGS_use_onednn) against the plain ones. The last argument of each is
// use_onednn (0/1); FLAGS_onednn_small_input_fallback=0 in the environment makes the oneDNN
// kernels run their primitives at every size (to find the crossovers).
//   BM_MulGrad: M, K, N (X [M, K], Y [K, N], both gradients).
//   BM_Sum: inputs, case (0: [64, 10], 1: [64, 100], 2: [64, 500], 3: [64, 20, 24, 24]).
//   BM_Binary: op (0 add, 1 sub, 2 mul, 3 div), case (0: [64, 10] + [10], 1: [64, 100] +
//           [100], 2: [64, 500] + [500], 3: [64, 20, 24, 24] + [20] on axis 1, 4: [64, 500] +
//           [64, 500], 5: [64, 20, 24, 24] + [64, 20, 24, 24], 6: [64, 64, 56, 56] + [64] on
//           axis 1).
//   BM_Concat: case (three inputs; 0: [64, 10], 1: [64, 100], 2: [64, 32, 14, 14], 3: [64, 500],
//              4: [64, 2000]) on axis 1.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "operators/registry.h"
#include "tests/benchmarks/bench_util.h"

namespace paddle_like {
namespace {

using framework::DDim;

const DDim kShapes[] = {DDim({64, 10}), DDim({64, 100}), DDim({64, 500}), DDim({64, 20, 24, 24}),
                        DDim({64, 64, 56, 56})};

void BM_MulGrad(benchmark::State& state) {
  operators::RegisterAllOps();
  const int64_t M = state.range(0), K = state.range(1), N = state.range(2);
  const FlagScope flags(state.range(3) != 0, 2);
  framework::ProgramDesc program;
  AddOp(&program.Block(0), "mul_grad", {{"X", {"x"}}, {"Y", {"y"}}, {"Out@GRAD", {"dout"}}},
        {{"X@GRAD", {"dx"}}, {"Y@GRAD", {"dy"}}});
  RunLoop(state, program,
          {{"x", Filled(DDim({M, K}), -1.0f, 0.02f)},
           {"y", Filled(DDim({K, N}), -0.1f, 0.002f)},
           {"dout", Filled(DDim({M, N}), -0.5f, 0.01f)}},
          {"dx", "dy"});
}

void BM_Sum(benchmark::State& state) {
  operators::RegisterAllOps();
  const int64_t n = state.range(0);
  const DDim& dims = kShapes[state.range(1)];
  const FlagScope flags(state.range(2) != 0, 2);
  framework::ProgramDesc program;
  std::map<std::string, framework::DenseTensor> feeds;
  std::vector<std::string> names;
  for (int64_t i = 0; i < n; ++i) {
    names.push_back("x" + std::to_string(i));
    feeds[names.back()] = Filled(dims, -1.0f + 0.1f * static_cast<float>(i), 0.02f);
  }
  AddOp(&program.Block(0), "sum", {{"X", names}}, {{"Out", {"out"}}});
  RunLoop(state, program, feeds, {"out"});
}

const char* const kBinaryOps[] = {"elementwise_add", "elementwise_sub", "elementwise_mul",
                                  "elementwise_div"};

void BM_Binary(benchmark::State& state) {
  operators::RegisterAllOps();
  const char* type = kBinaryOps[state.range(0)];
  const int64_t c = state.range(1);
  const bool same = c == 4 || c == 5;
  const DDim& x = kShapes[same ? c - 2 : (c == 6 ? 4 : c)];
  const DDim y = same ? x : DDim({x[1]});
  const FlagScope flags(state.range(2) != 0, 2);
  framework::ProgramDesc program;
  AddOp(&program.Block(0), type, {{"X", {"x"}}, {"Y", {"y"}}}, {{"Out", {"out"}}},
        {{"axis", same ? -1 : 1}});
  state.SetLabel(type);
  RunLoop(state, program, {{"x", Filled(x, -1.0f, 0.02f)}, {"y", Filled(y, 0.5f, 0.01f)}}, {"out"});
}

void BM_Concat(benchmark::State& state) {
  operators::RegisterAllOps();
  const DDim kConcatShapes[] = {DDim({64, 10}), DDim({64, 100}), DDim({64, 32, 14, 14}),
                                DDim({64, 500}), DDim({64, 2000})};
  const DDim& dims = kConcatShapes[state.range(0)];
  const FlagScope flags(state.range(1) != 0, 2);
  framework::ProgramDesc program;
  AddOp(&program.Block(0), "concat", {{"X", {"a", "b", "c"}}}, {{"Out", {"out"}}}, {{"axis", 1}});
  RunLoop(state, program,
          {{"a", Filled(dims, -1.0f, 0.02f)},
           {"b", Filled(dims, -0.5f, 0.01f)},
           {"c", Filled(dims, 0.0f, 0.03f)}},
          {"out"});
}

BENCHMARK(BM_MulGrad)
    ->ArgNames({"M", "K", "N", "onednn"})
    ->ArgsProduct({{64}, {800}, {500}, {0, 1}})
    ->ArgsProduct({{64}, {500}, {10}, {0, 1}})
    ->ArgsProduct({{64}, {400}, {10}, {0, 1}})
    ->ArgsProduct({{64}, {250}, {10}, {0, 1}})
    ->ArgsProduct({{64}, {100}, {10}, {0, 1}})
    ->ArgsProduct({{16}, {32}, {10}, {0, 1}})
    ->ArgsProduct({{8}, {16}, {4}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Sum)
    ->ArgNames({"inputs", "case", "onednn"})
    ->ArgsProduct({{2, 4}, {0, 1, 2, 3}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Binary)
    ->ArgNames({"op", "case", "onednn"})
    ->ArgsProduct({{0, 1, 2, 3}, {0, 1, 2, 3, 4, 5, 6}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Concat)
    ->ArgNames({"case", "onednn"})
    ->ArgsProduct({{0, 1, 2, 3, 4}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace paddle_like

BENCHMARK_MAIN();

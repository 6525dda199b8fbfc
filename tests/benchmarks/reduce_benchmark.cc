// One reduction or transpose2 per program on float32, 2 threads: the plain kernels, the oneDNN
// primitives (FLAGS_onednn_small_input_fallback off) and the oneDNN kernels as registered
// (small inputs handed to the plain kernels). Arguments: case (index into kCases), kernel
// (0 plain, 1 primitive, 2 registered).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "operators/registry.h"
#include "platform/flags.h"
#include "tests/benchmarks/bench_util.h"

namespace paddle_like {
namespace {

struct Case {
  const char* type;
  std::vector<int64_t> dims;
  framework::AttributeMap attrs;
};

const std::vector<Case>& Cases() {
  const auto dim = [](std::vector<int> d) { return framework::AttributeMap{{"dim", d}}; };
  const framework::AttributeMap all = {{"reduce_all", true}};
  const framework::AttributeMap nhwc = {{"axis", std::vector<int>{0, 2, 3, 1}}};
  static const std::vector<Case> cases = {
      // The shapes of docs/benchmarks.md.
      {"reduce_sum", {64, 500}, dim({0})},
      {"reduce_sum", {64, 500}, dim({-1})},
      {"reduce_mean", {64, 20, 24, 24}, all},
      {"mean", {64, 10}, {}},
      {"transpose2", {64, 20, 24, 24}, nhwc},
      // Sweeps for the thresholds: reductions over the last dim,
      {"reduce_sum", {64, 1024}, dim({-1})},
      {"reduce_sum", {64, 2048}, dim({-1})},
      {"reduce_sum", {64, 4096}, dim({-1})},
      {"reduce_sum", {1024, 64}, dim({-1})},
      {"reduce_sum", {4096, 16}, dim({-1})},
      {"reduce_sum", {512, 4096}, dim({-1})},
      // over leading dims,
      {"reduce_sum", {64, 4096}, dim({0})},
      {"reduce_mean", {64, 20, 24, 24}, dim({0, 2, 3})},
      // over everything,
      {"mean", {64, 256}, {}},
      {"mean", {64, 512}, {}},
      {"mean", {64, 1024}, {}},
      {"mean", {64, 2048}, {}},
      {"mean", {64, 4096}, {}},
      {"mean", {64, 20, 24, 24}, {}},
      // and transposes.
      {"transpose2", {1, 20, 8, 8}, nhwc},
      {"transpose2", {1, 20, 16, 16}, nhwc},
      {"transpose2", {2, 20, 16, 16}, nhwc},
      {"transpose2", {4, 20, 16, 16}, nhwc},
      {"transpose2", {512, 4096}, {{"axis", std::vector<int>{1, 0}}}},
  };
  return cases;
}

void BM_Reduce(benchmark::State& state) {
  operators::RegisterAllOps();
  const Case& c = Cases()[state.range(0)];
  const int kernel = static_cast<int>(state.range(1));
  const FlagScope flags(kernel != 0, 2);
  const bool fallback = FLAGS_onednn_small_input_fallback;
  FLAGS_onednn_small_input_fallback = kernel == 2;
  const framework::DDim dims(c.dims);
  framework::ProgramDesc program;
  framework::VariableNameMap outputs = {{"Out", {"y"}}};
  if (std::string(c.type) == "transpose2") outputs["XShape"] = {"xshape"};
  AddOp(&program.Block(0), c.type, {{"X", {"x"}}}, outputs, c.attrs);
  state.SetLabel(std::string(c.type) + " " + dims.ToString());
  RunLoop(state, program, {{"x", Filled(dims, -2.0f, 0.04f)}}, {"y"});
  FLAGS_onednn_small_input_fallback = fallback;
}

BENCHMARK(BM_Reduce)
    ->ArgNames({"case", "kernel"})
    ->ArgsProduct({benchmark::CreateDenseRange(0, 23, 1), {0, 1, 2}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace paddle_like

BENCHMARK_MAIN();

// One dense float32 `adam` step, in place, through the executor: LeNet's fc1 weight (400k
// floats, the largest update of its training step) and conv2 filter (25k floats), on 1 and 2
// threads. Bytes per second count the 4 arrays read and the 3 written.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "operators/registry.h"
#include "tests/benchmarks/bench_util.h"

namespace paddle_like {
namespace {

void BM_Adam(benchmark::State& state) {
  operators::RegisterAllOps();
  const int64_t n = state.range(0);
  const FlagScope flags(false, static_cast<int>(state.range(1)));
  framework::ProgramDesc program;
  AddOp(&program.Block(0), "adam",
        {{"Param", {"p"}},
         {"Grad", {"g"}},
         {"LearningRate", {"lr"}},
         {"Moment1", {"m1"}},
         {"Moment2", {"m2"}},
         {"Beta1Pow", {"b1p"}},
         {"Beta2Pow", {"b2p"}}},
        {{"ParamOut", {"p"}},
         {"Moment1Out", {"m1"}},
         {"Moment2Out", {"m2"}},
         {"Beta1PowOut", {"b1p"}},
         {"Beta2PowOut", {"b2p"}}});
  const framework::DDim dims({n});
  RunLoop(state, program,
          {{"p", Filled(dims, -0.5f, 0.01f)},
           {"g", Filled(dims, -0.01f, 0.0002f)},
           {"m1", Filled(dims, 0.f, 0.f)},
           {"m2", Filled(dims, 0.f, 0.f)},
           {"lr", Filled({1}, 1e-3f, 0.f)},
           {"b1p", Filled({1}, 0.9f, 0.f)},
           {"b2p", Filled({1}, 0.999f, 0.f)}},
          {});
  state.SetBytesProcessed(state.iterations() * n * 7 * static_cast<int64_t>(sizeof(float)));
}

BENCHMARK(BM_Adam)
    ->ArgNames({"n", "threads"})
    ->ArgsProduct({{400000, 25000}, {1, 2}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace paddle_like

BENCHMARK_MAIN();

// One activation op per program (forward ops, and the fused grad ops of PaddlePaddle's
// programs) on [64, width] float32, with the oneDNN kernels (FLAGS_use_onednn) against the
// plain ones, 2 threads. Arguments: op (index into kOps), width, use_onednn (0/1).
#include <benchmark/benchmark.h>

#include <string>

#include "operators/registry.h"
#include "tests/benchmarks/bench_util.h"

namespace paddle_like {
namespace {

struct OpCase {
  const char* type;
  const char* dep;  // The forward value a grad op reads ("" for a forward op).
};
const OpCase kOps[] = {{"relu", ""},      {"tanh", ""},         {"gelu", ""},
                       {"softmax", ""},   {"relu_grad", "Out"}, {"softmax_grad", "Out"},
                       {"leaky_relu", ""}};

void BM_Activation(benchmark::State& state) {
  operators::RegisterAllOps();
  const OpCase& c = kOps[state.range(0)];
  const framework::DDim dims({64, state.range(1)});
  const FlagScope flags(state.range(2) != 0, 2);
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  std::map<std::string, framework::DenseTensor> feeds = {{"x", Filled(dims, -2.0f, 0.04f)}};
  if (std::string(c.dep).empty()) {
    AddOp(&b, c.type, {{"X", {"x"}}}, {{"Out", {"y"}}});
  } else {
    feeds["dy"] = Filled(dims, -0.5f, 0.01f);
    AddOp(&b, c.type, {{c.dep, {"x"}}, {"Out@GRAD", {"dy"}}}, {{"X@GRAD", {"y"}}});
  }
  state.SetLabel(c.type);
  RunLoop(state, program, feeds, {"y"});
}

BENCHMARK(BM_Activation)
    ->ArgNames({"op", "width", "onednn"})
    ->ArgsProduct({{0, 1, 2, 3, 4, 5, 6}, {10, 256, 4096}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace paddle_like

BENCHMARK_MAIN();

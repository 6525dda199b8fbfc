// conv2d forward and conv2d_grad on LeNet's two layers, batch 64, float32, one thread: the
// oneDNN kernels (FLAGS_use_onednn) against the plain ones. Arguments: layer (0: 1->20 5x5
// on 28x28, 1: 20->50 5x5 on 12x12), use_onednn (0/1), and for the grad which gradients
// (1 Input@GRAD, 2 Filter@GRAD, 3 both). BM_MaxPool2dWithGrad: LeNet's two 2x2 stride-2
// max poolings and their gradients (layer 0: X [64, 20, 24, 24], 1: [64, 50, 8, 8]).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "operators/registry.h"
#include "tests/benchmarks/bench_util.h"

namespace paddle_like {
namespace {

struct Layer {
  int64_t in_c, out_c, side;
};
const Layer kLayers[] = {{1, 20, 28}, {20, 50, 12}};

void Run(benchmark::State& state, bool grad) {
  operators::RegisterAllOps();
  const Layer& l = kLayers[state.range(0)];
  const FlagScope flags(state.range(1) != 0, 1);
  const framework::DDim x({64, l.in_c, l.side, l.side});
  const framework::DDim w({l.out_c, l.in_c, 5, 5});
  const framework::DDim y({64, l.out_c, l.side - 4, l.side - 4});
  framework::ProgramDesc program;
  std::map<std::string, framework::DenseTensor> feeds = {{"x", Filled(x, -1.0f, 0.02f)},
                                                         {"w", Filled(w, -0.1f, 0.002f)}};
  if (grad) {
    feeds["dy"] = Filled(y, -0.5f, 0.01f);
    framework::VariableNameMap outputs;
    std::vector<std::string> fetches;
    if (state.range(2) & 1) {
      outputs["Input@GRAD"] = {"dx"};
      fetches.push_back("dx");
    }
    if (state.range(2) & 2) {
      outputs["Filter@GRAD"] = {"dw"};
      fetches.push_back("dw");
    }
    AddOp(&program.Block(0), "conv2d_grad",
          {{"Input", {"x"}}, {"Filter", {"w"}}, {"Output@GRAD", {"dy"}}}, outputs);
    RunLoop(state, program, feeds, fetches);
  } else {
    AddOp(&program.Block(0), "conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}},
          {{"Output", {"y"}}});
    RunLoop(state, program, feeds, {"y"});
  }
}

void BM_Conv2dForward(benchmark::State& state) { Run(state, false); }

void BM_MaxPool2dWithGrad(benchmark::State& state) {
  operators::RegisterAllOps();
  const Layer& l = kLayers[state.range(0)];
  const FlagScope flags(state.range(1) != 0, 1);
  const int64_t side = l.side - 4;
  const framework::DDim x({64, l.out_c, side, side});
  const framework::DDim y({64, l.out_c, side / 2, side / 2});
  const framework::AttributeMap attrs = {{"pooling_type", std::string("max")},
                                         {"ksize", std::vector<int>{2, 2}},
                                         {"strides", std::vector<int>{2, 2}}};
  framework::ProgramDesc program;
  AddOp(&program.Block(0), "pool2d", {{"X", {"x"}}}, {{"Out", {"y"}}}, attrs);
  AddOp(&program.Block(0), "pool2d_grad", {{"X", {"x"}}, {"Out", {"y"}}, {"Out@GRAD", {"dy"}}},
        {{"X@GRAD", {"dx"}}}, attrs);
  RunLoop(state, program, {{"x", Filled(x, -1.0f, 0.02f)}, {"dy", Filled(y, -0.5f, 0.01f)}},
          {"dx"});
}
void BM_Conv2dGrad(benchmark::State& state) { Run(state, true); }

BENCHMARK(BM_Conv2dForward)
    ->ArgNames({"layer", "onednn"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MaxPool2dWithGrad)
    ->ArgNames({"layer", "onednn"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conv2dGrad)
    ->ArgNames({"layer", "onednn", "grads"})
    ->ArgsProduct({{0, 1}, {0, 1}, {1, 2, 3}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace paddle_like

BENCHMARK_MAIN();

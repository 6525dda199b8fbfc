// batch_norm and layer_norm training steps (forward + fused grad op, float32) through a
// prepared program, with the oneDNN kernels (FLAGS_use_onednn) against the plain ones.
// Arguments: use_onednn (0/1), threads, and for batch_norm the layout (0 NCHW, 1 NHWC).
#include <benchmark/benchmark.h>

#include <string>

#include "operators/registry.h"
#include "tests/benchmarks/bench_util.h"

namespace paddle_like {
namespace {

using framework::DDim;
using framework::DenseTensor;

// batch_norm + batch_norm_grad on [64, 32, 28, 28] (or its NHWC transpose), training mode.
void BM_BatchNormTrainStep(benchmark::State& state) {
  operators::RegisterAllOps();
  const FlagScope flags(state.range(0) != 0, static_cast<int>(state.range(1)));
  const bool nhwc = state.range(2) != 0;
  const DDim x_dims = nhwc ? DDim({64, 28, 28, 32}) : DDim({64, 32, 28, 28});
  const int64_t c = 32;
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  const framework::AttributeMap attrs = {{"data_layout", std::string(nhwc ? "NHWC" : "NCHW")}};
  AddOp(&b, "batch_norm",
        {{"X", {"x"}},
         {"Scale", {"scale"}},
         {"Bias", {"bias"}},
         {"Mean", {"mean"}},
         {"Variance", {"var"}}},
        {{"Y", {"y"}},
         {"MeanOut", {"mean"}},
         {"VarianceOut", {"var"}},
         {"SavedMean", {"saved_mean"}},
         {"SavedVariance", {"saved_var"}}},
        attrs);
  AddOp(&b, "batch_norm_grad",
        {{"X", {"x"}},
         {"Scale", {"scale"}},
         {"SavedMean", {"saved_mean"}},
         {"SavedVariance", {"saved_var"}},
         {"Y@GRAD", {"dy"}}},
        {{"X@GRAD", {"dx"}}, {"Scale@GRAD", {"dscale"}}, {"Bias@GRAD", {"dbias"}}}, attrs);
  RunLoop(state, program,
          {{"x", Filled(x_dims, -1.0f, 0.02f)},
           {"dy", Filled(x_dims, -0.5f, 0.01f)},
           {"scale", Filled({c}, 0.5f, 0.01f)},
           {"bias", Filled({c}, -0.2f, 0.01f)},
           {"mean", Filled({c}, 0.0f, 0.0f)},
           {"var", Filled({c}, 1.0f, 0.0f)}},
          {"y", "dx", "dscale", "dbias", "mean", "var"});
}

// layer_norm + layer_norm_grad on [64 * 128, 256] rows (begin_norm_axis 2 of [64, 128, 256]).
void BM_LayerNormTrainStep(benchmark::State& state) {
  operators::RegisterAllOps();
  const FlagScope flags(state.range(0) != 0, static_cast<int>(state.range(1)));
  const DDim x_dims({64, 128, 256});
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  const framework::AttributeMap attrs = {{"begin_norm_axis", 2}};
  AddOp(&b, "layer_norm", {{"X", {"x"}}, {"Scale", {"scale"}}, {"Bias", {"bias"}}},
        {{"Y", {"y"}}, {"Mean", {"mean"}}, {"Variance", {"var"}}}, attrs);
  AddOp(&b, "layer_norm_grad",
        {{"X", {"x"}},
         {"Scale", {"scale"}},
         {"Mean", {"mean"}},
         {"Variance", {"var"}},
         {"Y@GRAD", {"dy"}}},
        {{"X@GRAD", {"dx"}}, {"Scale@GRAD", {"dscale"}}, {"Bias@GRAD", {"dbias"}}}, attrs);
  RunLoop(state, program,
          {{"x", Filled(x_dims, -1.0f, 0.02f)},
           {"dy", Filled(x_dims, -0.5f, 0.01f)},
           {"scale", Filled({256}, 0.5f, 0.01f)},
           {"bias", Filled({256}, -0.2f, 0.01f)}},
          {"y", "dx", "dscale", "dbias"});
}

BENCHMARK(BM_BatchNormTrainStep)
    ->ArgNames({"onednn", "threads", "nhwc"})
    ->ArgsProduct({{0, 1}, {1, 2}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LayerNormTrainStep)
    ->ArgNames({"onednn", "threads"})
    ->ArgsProduct({{0, 1}, {1, 2}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace paddle_like

BENCHMARK_MAIN();

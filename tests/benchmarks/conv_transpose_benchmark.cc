// conv2d_transpose forward and backward, float32, one thread: the oneDNN kernels
// (FLAGS_use_onednn) against the plain ones on decoder shapes. Arguments: shape (below),
// use_onednn (0/1), and for the forward bias (0/1: with a fused Bias input). The backward
// op computes both Input@GRAD and Filter@GRAD.
//   0: PP-OCRv3 detector's upsampling, 24 -> 24, kernel 2, stride 2, on 80x80, batch 1
//   1: its last layer, 24 -> 1, kernel 2, stride 2, on 160x160, batch 1
//   2: a segmentation decoder, 64 -> 32, kernel 4, stride 2, padding 1, on 40x40, batch 1
//   3: a generator block, 128 -> 64, kernel 4, stride 2, padding 1, on 16x16, batch 8
//   4: grouped, 32 -> 32 in 4 groups, kernel 3, stride 2, padding 1, output_padding 1,
//      on 32x32, batch 2
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "operators/registry.h"
#include "tests/benchmarks/bench_util.h"

namespace paddle_like {
namespace {

struct Shape {
  int64_t batch, in_c, out_c, side, kernel, stride, padding, output_padding, groups;
};
const Shape kShapes[] = {{1, 24, 24, 80, 2, 2, 0, 0, 1},
                         {1, 24, 1, 160, 2, 2, 0, 0, 1},
                         {1, 64, 32, 40, 4, 2, 1, 0, 1},
                         {8, 128, 64, 16, 4, 2, 1, 0, 1},
                         {2, 32, 32, 32, 3, 2, 1, 1, 4}};

framework::AttributeMap Attrs(const Shape& s) {
  framework::AttributeMap attrs = {
      {"strides", std::vector<int>{int(s.stride), int(s.stride)}},
      {"paddings", std::vector<int>{int(s.padding), int(s.padding)}},
      {"groups", int(s.groups)}};
  if (s.output_padding != 0) {
    attrs["output_padding"] = std::vector<int>{int(s.output_padding), int(s.output_padding)};
  }
  return attrs;
}

void BM_Conv2dTranspose(benchmark::State& state) {
  operators::RegisterAllOps();
  const Shape& s = kShapes[state.range(0)];
  const FlagScope flags(state.range(1) != 0, 1);
  const framework::DDim x({s.batch, s.in_c, s.side, s.side});
  const framework::DDim w({s.in_c, s.out_c / s.groups, s.kernel, s.kernel});
  framework::ProgramDesc program;
  const framework::AttributeMap attrs = Attrs(s);
  std::map<std::string, framework::DenseTensor> feeds = {{"x", Filled(x, -1.0f, 0.02f)},
                                                         {"w", Filled(w, -0.1f, 0.002f)}};
  framework::VariableNameMap inputs = {{"Input", {"x"}}, {"Filter", {"w"}}};
  if (state.range(2) != 0) {
    inputs["Bias"] = {"b"};
    feeds["b"] = Filled(framework::DDim{s.out_c}, -0.5f, 0.01f);
  }
  AddOp(&program.Block(0), "conv2d_transpose", inputs, {{"Output", {"y"}}}, attrs);
  RunLoop(state, program, feeds, {"y"});
}

BENCHMARK(BM_Conv2dTranspose)
    ->ArgNames({"shape", "onednn", "bias"})
    ->ArgsProduct({{0, 1, 2, 3, 4}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

void BM_Conv2dTransposeGrad(benchmark::State& state) {
  operators::RegisterAllOps();
  const Shape& s = kShapes[state.range(0)];
  const FlagScope flags(state.range(1) != 0, 1);
  const int64_t out_side = (s.side - 1) * s.stride - 2 * s.padding + s.kernel + s.output_padding;
  const framework::DDim x({s.batch, s.in_c, s.side, s.side});
  const framework::DDim w({s.in_c, s.out_c / s.groups, s.kernel, s.kernel});
  const framework::DDim y({s.batch, s.out_c, out_side, out_side});
  const framework::AttributeMap attrs = Attrs(s);
  framework::ProgramDesc program;
  AddOp(&program.Block(0), "conv2d_transpose_grad",
        {{"Input", {"x"}}, {"Filter", {"w"}}, {"Output@GRAD", {"dy"}}},
        {{"Input@GRAD", {"dx"}}, {"Filter@GRAD", {"dw"}}}, attrs);
  RunLoop(state, program,
          {{"x", Filled(x, -1.0f, 0.02f)}, {"w", Filled(w, -0.1f, 0.002f)},
           {"dy", Filled(y, -0.5f, 0.01f)}},
          {"dx", "dw"});
}

BENCHMARK(BM_Conv2dTransposeGrad)
    ->ArgNames({"shape", "onednn"})
    ->ArgsProduct({{0, 1, 2, 3, 4}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace paddle_like

BENCHMARK_MAIN();

// conv2d through a prepared program (the oneDNN kernel, filter a parameter packed once)
// against oneDNN's own convolution primitive doing the same work on the same shapes: the
// input reordered from nchw into the primitive's format, the convolution, the output
// reordered back to nchw (a one-op program feeds and fetches row-major tensors). Float32,
// `threads` threads. The ratio of the two is the kernel's overhead: slot and attribute
// lookups, memory objects, the executor's bookkeeping.
//
// Shapes (argument `shape`): 0: 1x32x7x7, 1x1 to 64 channels (small, overhead-bound);
// 1: 1x64x56x56, 3x3 to 64 (a ResNet stage); 2: 64x20x12x12, 5x5 to 50 (LeNet's second
// layer, batch 64); 3-4: ResNet-20's stages at batch 16 (16x32x16x16 and 16x64x8x8, 3x3);
// 5-6: 3x3 convolutions the kernel leaves to the direct algorithm (16x16x32x32: 16
// channels; 4x64x8x8: 16384 output values); 7: an image's first convolution, 1x3x224x224,
// 3x3 stride 2 to 32 channels (the PaddleLite model of ../shared/models).
// The primitive runs with `winograd` 0 (direct) or 1 (Winograd, where oneDNN has it): the
// kernel takes Winograd for shapes 1, 3 and 4 (WinogradForwardDesc), and these rows are
// what that rule rests on.
#include <benchmark/benchmark.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/executor.h"
#include "operators/registry.h"
#include "platform/onednn/onednn_context.h"
#include "tests/benchmarks/bench_util.h"

namespace paddle_like {
namespace {

struct Shape {
  int64_t batch, in_c, side, out_c, kernel, stride = 1;
};
const Shape kShapes[] = {{1, 32, 7, 64, 1},   {1, 64, 56, 64, 3},   {64, 20, 12, 50, 5},
                         {16, 32, 16, 32, 3}, {16, 64, 8, 64, 3},   {16, 16, 32, 16, 3},
                         {4, 64, 8, 64, 3},   {1, 3, 224, 32, 3, 2}};
constexpr int kLastShape = 7;

framework::DDim InputDims(const Shape& s) { return framework::DDim({s.batch, s.in_c, s.side, s.side}); }
framework::DDim FilterDims(const Shape& s) {
  return framework::DDim({s.out_c, s.in_c, s.kernel, s.kernel});
}
int64_t Pad(const Shape& s) { return s.kernel / 2; }

void BM_ConvKernel(benchmark::State& state) {
  operators::RegisterAllOps();
  const Shape& s = kShapes[state.range(0)];
  const FlagScope flags(true, static_cast<int>(state.range(1)));
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  b.Var("x")->SetShape(InputDims(s).ToVector());
  b.Var("w")->SetShape(FilterDims(s).ToVector());
  b.Var("w")->SetPersistable(true);
  const int pad = static_cast<int>(Pad(s));
  AddOp(&b, "conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"y"}}},
        {{"paddings", std::vector<int>{pad, pad}},
         {"strides", std::vector<int>{static_cast<int>(s.stride), static_cast<int>(s.stride)}}});
  framework::Scope scope;
  *scope.Var("w")->GetMutable<framework::DenseTensor>() = Filled(FilterDims(s), -0.1f, 0.002f);
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program, 0, &scope, {"y"});
  const framework::DenseTensor x = Filled(InputDims(s), -1.0f, 0.02f);
  framework::DenseTensor* input =
      prepared->local_scope()->FindVar("x")->GetMutable<framework::DenseTensor>();
  for (auto _ : state) {
    *input = x;  // Freed after its last use: fed again, sharing the buffer.
    exec.Run(prepared.get());
  }
}

void BM_ConvPrimitive(benchmark::State& state) {
  using dnnl::memory;
  using Tag = memory::format_tag;
  const Shape& s = kShapes[state.range(0)];
  const bool winograd = state.range(1) != 0;
  const FlagScope flags(true, static_cast<int>(state.range(2)));
  const platform::OneDNNContext& dev = OneDNNDevice();
  const dnnl::engine& engine = dev.engine();
  const auto f32 = memory::data_type::f32;
  const int64_t out_side = (s.side + 2 * Pad(s) - s.kernel) / s.stride + 1;
  const memory::desc src_user({s.batch, s.in_c, s.side, s.side}, f32, Tag::nchw);
  const memory::desc dst_user({s.batch, s.out_c, out_side, out_side}, f32, Tag::nchw);
  const memory::desc w_user({s.out_c, s.in_c, s.kernel, s.kernel}, f32, Tag::oihw);
  const auto any = [&](const memory::desc& d) { return memory::desc(d.dims(), f32, Tag::any); };
  dnnl::convolution_forward::primitive_desc pd;
  try {
    pd = dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(
            dnnl::prop_kind::forward_inference,
            winograd ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_direct,
            // Fewer than 8 input channels stay nchw, as the kernel keeps them: oneDNN's
            // first-layer kernel reads them so (its own choice reorders them for brgconv).
            s.in_c >= 8 ? any(src_user) : src_user, any(w_user), any(dst_user),
            {s.stride, s.stride}, {Pad(s), Pad(s)}, {Pad(s), Pad(s)}),
        engine);
  } catch (const dnnl::error&) {
    state.SkipWithError("oneDNN has no implementation of this algorithm here");
    return;
  }
  state.SetLabel(pd.impl_info_str());
  const dnnl::convolution_forward conv(pd);
  framework::DenseTensor x = Filled(InputDims(s), -1.0f, 0.02f);
  framework::DenseTensor w = Filled(FilterDims(s), -0.1f, 0.002f);
  std::vector<float> y(static_cast<size_t>(dst_user.get_size() / sizeof(float)));
  memory src_mem(src_user, engine, x.data<float>());
  memory dst_mem(dst_user, engine, y.data());
  memory w_mem(pd.weights_desc(), engine);
  memory w_plain(w_user, engine, w.data<float>());
  dnnl::reorder(w_plain, w_mem).execute(dev.stream(), w_plain, w_mem);  // Packed once.
  const bool reorder_src = pd.src_desc() != src_user;
  const bool reorder_dst = pd.dst_desc() != dst_user;
  memory src = reorder_src ? memory(pd.src_desc(), engine) : src_mem;
  memory dst = reorder_dst ? memory(pd.dst_desc(), engine) : dst_mem;
  dnnl::reorder to_src = reorder_src ? dnnl::reorder(src_mem, src) : dnnl::reorder();
  dnnl::reorder to_dst = reorder_dst ? dnnl::reorder(dst, dst_mem) : dnnl::reorder();
  const std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w_mem}, {DNNL_ARG_DST, dst}};
  for (auto _ : state) {
    if (reorder_src) to_src.execute(dev.stream(), src_mem, src);
    conv.execute(dev.stream(), args);
    if (reorder_dst) to_dst.execute(dev.stream(), dst, dst_mem);
    dev.stream().wait();
    benchmark::DoNotOptimize(y.data());
  }
}

BENCHMARK(BM_ConvKernel)
    ->ArgNames({"shape", "threads"})
    ->ArgsProduct({benchmark::CreateDenseRange(0, kLastShape, 1), {1, 2}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConvPrimitive)
    ->ArgNames({"shape", "winograd", "threads"})
    ->ArgsProduct({benchmark::CreateDenseRange(0, kLastShape, 1), {0, 1}, {1, 2}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace paddle_like

BENCHMARK_MAIN();

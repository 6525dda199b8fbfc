// matmul_v2 through a prepared program against oneDNN's own matmul primitive on the same
// shapes: X [M, K] an activation fed each run, Y [K, N] a parameter (packed once by both),
// Out [M, N] row-major. Float32, one thread. BM_MatmulKernel runs the oneDNN kernel,
// BM_MatmulPlainKernel the plain one (FLAGS_use_onednn off), BM_MatmulPrimitive the bare
// primitive; the ratios are the kernels' overhead (slot and attribute lookups, memory
// objects, the executor's bookkeeping). BM_MatmulPrimitiveRepack packs Y before every run
// (training, where the optimizer writes Y each step) and BM_MatmulPrimitiveRowMajorY hands
// the primitive Y as it is.
//
// Shapes (argument `shape`): 0: 64x784 x 784x256 (the MLP's first layer, batch 64);
// 1: 64x800 x 800x500 (LeNet's fc1, batch 64); 2: 512 cubed; 3: 1024 cubed.
#include <benchmark/benchmark.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <vector>

#include "framework/executor.h"
#include "operators/registry.h"
#include "platform/onednn/onednn_context.h"
#include "tests/benchmarks/bench_util.h"

namespace paddle_like {
namespace {

struct Shape {
  int64_t m, k, n;
};
const Shape kShapes[] = {{64, 784, 256}, {64, 800, 500}, {512, 512, 512}, {1024, 1024, 1024}};

void RunKernel(benchmark::State& state, bool onednn) {
  operators::RegisterAllOps();
  const Shape& s = kShapes[state.range(0)];
  const FlagScope flags(onednn, 1);
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  b.Var("x")->SetShape({s.m, s.k});
  b.Var("w")->SetShape({s.k, s.n});
  b.Var("w")->SetPersistable(true);
  AddOp(&b, "matmul_v2", {{"X", {"x"}}, {"Y", {"w"}}}, {{"Out", {"y"}}}, {});
  framework::Scope scope;
  *scope.Var("w")->GetMutable<framework::DenseTensor>() =
      Filled(framework::DDim({s.k, s.n}), -0.1f, 0.0001f);
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program, 0, &scope, {"y"});
  const framework::DenseTensor x = Filled(framework::DDim({s.m, s.k}), -1.0f, 0.0003f);
  framework::DenseTensor* input =
      prepared->local_scope()->FindVar("x")->GetMutable<framework::DenseTensor>();
  for (auto _ : state) {
    *input = x;  // Freed after its last use: fed again, sharing the buffer.
    exec.Run(prepared.get());
  }
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * s.m * s.k * s.n * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void BM_MatmulKernel(benchmark::State& state) { RunKernel(state, true); }
void BM_MatmulPlainKernel(benchmark::State& state) { RunKernel(state, false); }

// How the bare primitive meets Y: packed once (inference), packed again before every run
// (training, where the optimizer writes Y every step), or read row-major as it is.
enum class WeightUse { kPackedOnce, kPackedEachRun, kRowMajor };

void RunPrimitive(benchmark::State& state, WeightUse use) {
  using dnnl::memory;
  using Tag = memory::format_tag;
  const Shape& s = kShapes[state.range(0)];
  const FlagScope flags(true, 1);
  const platform::OneDNNContext& dev = OneDNNDevice();
  const dnnl::engine& engine = dev.engine();
  const auto f32 = memory::data_type::f32;
  const memory::desc src_md({s.m, s.k}, f32, Tag::ab);
  const memory::desc w_user({s.k, s.n}, f32, Tag::ab);
  const memory::desc dst_md({s.m, s.n}, f32, Tag::ab);
  const memory::desc w_md =
      use == WeightUse::kRowMajor ? w_user : memory::desc({s.k, s.n}, f32, Tag::any);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, w_md, dst_md), engine);
  const dnnl::matmul matmul(pd);
  framework::DenseTensor x = Filled(framework::DDim({s.m, s.k}), -1.0f, 0.0003f);
  framework::DenseTensor w = Filled(framework::DDim({s.k, s.n}), -0.1f, 0.0001f);
  std::vector<float> y(static_cast<size_t>(s.m * s.n));
  memory w_plain(w_user, engine, w.data<float>());
  memory w_mem = use == WeightUse::kRowMajor ? w_plain : memory(pd.weights_desc(), engine);
  const bool packs = pd.weights_desc() != w_user;
  const dnnl::reorder pack = packs ? dnnl::reorder(w_plain, w_mem) : dnnl::reorder();
  if (packs) pack.execute(dev.stream(), w_plain, w_mem);
  const std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, memory(src_md, engine, x.data<float>())},
      {DNNL_ARG_WEIGHTS, w_mem},
      {DNNL_ARG_DST, memory(dst_md, engine, y.data())}};
  for (auto _ : state) {
    if (packs && use == WeightUse::kPackedEachRun) pack.execute(dev.stream(), w_plain, w_mem);
    matmul.execute(dev.stream(), args);
    dev.stream().wait();
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * s.m * s.k * s.n * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void BM_MatmulPrimitive(benchmark::State& state) { RunPrimitive(state, WeightUse::kPackedOnce); }
void BM_MatmulPrimitiveRepack(benchmark::State& state) {
  RunPrimitive(state, WeightUse::kPackedEachRun);
}
void BM_MatmulPrimitiveRowMajorY(benchmark::State& state) {
  RunPrimitive(state, WeightUse::kRowMajor);
}

// The machine's single-precision peak as far as oneDNN reaches it: dnnl_sgemm on 2048-cubed
// row-major matrices, on 1 and 2 threads (argument `threads`). The training section of
// docs/benchmarks.md states LeNet's epoch time as a share of this.
void BM_SgemmPeak(benchmark::State& state) {
  const int64_t n = 2048;
  platform::LimitOpenMPThreadsOfCallingThread(static_cast<int>(state.range(0)));
  std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
  for (auto _ : state) {
    dnnl_sgemm('N', 'N', n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * n * n * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  platform::LimitOpenMPThreadsOfCallingThread(1);
}

BENCHMARK(BM_SgemmPeak)->ArgName("threads")->DenseRange(1, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatmulKernel)->ArgName("shape")->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MatmulPlainKernel)->ArgName("shape")->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MatmulPrimitive)->ArgName("shape")->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MatmulPrimitiveRepack)
    ->ArgName("shape")
    ->DenseRange(0, 3)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MatmulPrimitiveRowMajorY)
    ->ArgName("shape")
    ->DenseRange(0, 3)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace paddle_like

BENCHMARK_MAIN();

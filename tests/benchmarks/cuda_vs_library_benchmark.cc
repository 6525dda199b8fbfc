// The CUDA kernels through a prepared program against the bare library call on the same
// shapes, on gpu:0, float32:
//  - BM_GemmKernel (the `mul` op) against BM_GemmCublas (cublasSgemm);
//  - BM_ConvKernel (conv2d, the cuDNN kernel; search:1 with the op's `exhaustive_search`)
//    against BM_ConvCudnn (cudnnConvolutionForward with the same FMA math, and algo:0 the
//    heuristics' first algorithm, algo:1 the one the kernel takes from the heuristics, algo:2
//    the one it times as fastest, cudnn::ChooseForward): algo:1 against search:0 and algo:2
//    against search:1 are what the framework adds, the algo rows apart what the choice gains;
//  - BM_AddKernel (elementwise_add of two same-shape tensors) against BM_CopyBytes (a
//    device-to-device copy of as many bytes as the add reads and writes: the bandwidth
//    ceiling).
// Every iteration ends with the stream synchronised (the executor waits at the end of a run),
// so the times are one call's latency, launches included; the ratios kernel / library are
// the framework's overhead (slot and attribute lookups, output allocation, the run's
// bookkeeping). A lone call of 35-100 us scatters by 10-30% from one repetition to the next
// (the host's wake-up after the synchronisation), so the *Stream variants also run
// kStreamOps calls back to back per iteration, one program of that many ops against as many
// library calls, and time the stream with CUDA events: the time per call with the GPU kept
// busy, which is what a network's layers see (counter us_per_call; the TFLOPS counters
// count one call per iteration, so read them from the single-call rows). Their counter
// host_us_per_call is the host's side of a call: the library call's enqueueing, or the op's
// dispatch without a wait (shape inference, lookups, launches); where it exceeds the device's
// time per call, the host bounds the stream. Without a CUDA device
// every benchmark reports an error and does nothing.
//
//   build/tests/benchmarks/cuda_vs_library_benchmark --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true   (one command line)
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <chrono>

#include "framework/executor.h"
#include "operators/cuda/cudnn_conv.h"
#include "operators/nn/conv_pool_shape.h"
#include "operators/registry.h"
#include "platform/allocator.h"
#include "platform/cuda/cuda_device_context.h"
#include "platform/device_context_pool.h"
#include "platform/init.h"
#include "tests/benchmarks/bench_util.h"

namespace paddle_like {
namespace {

using framework::DDim;
using framework::DenseTensor;
namespace cudnn = operators::cudnn;

bool HaveDevice(benchmark::State& state) {
  operators::RegisterAllOps();
  if (platform::CudaDeviceCount() > 0) return true;
  state.SkipWithError("no CUDA device");
  return false;
}

const platform::CUDADeviceContext& Gpu() {
  return *platform::DeviceContextPool::Instance().GetAs<platform::CUDADeviceContext>(
      platform::CUDAPlace(0));
}

DenseTensor OnGpu(const DenseTensor& host) {
  DenseTensor t;
  framework::CopyTensor(host, platform::CUDAPlace(0), &t);
  return t;
}

// Runs a one-op program on gpu:0 per iteration; `params` are set once (on the GPU), `inputs`
// fed again before each run (sharing their GPU buffers).
// Times the stream between two CUDA events. An iteration's time is that of all its calls
// (so that --benchmark_min_time means real time); the counter us_per_call divides it.
class StreamTimer {
 public:
  StreamTimer() {
    platform::CheckCuda(cudaEventCreate(&start_), "cudaEventCreate");
    platform::CheckCuda(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~StreamTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void Start() {
    host_start_ = std::chrono::steady_clock::now();
    platform::CheckCuda(cudaEventRecord(start_, Gpu().stream()), "cudaEventRecord");
  }
  void Stop(benchmark::State& state, int calls) {
    host_s_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start_).count();
    platform::CheckCuda(cudaEventRecord(stop_, Gpu().stream()), "cudaEventRecord");
    platform::CheckCuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    platform::CheckCuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    state.SetIterationTime(ms * 1e-3);
    total_s_ += ms * 1e-3;
    calls_ += calls;
  }
  // Call after the timed loop.
  // host_us_per_call: the host's time from Start to Stop per call, which is the time to
  // enqueue the calls when nothing between them waits for the device (the library side).
  void Report(benchmark::State& state) const {
    if (calls_ == 0) return;
    state.counters["us_per_call"] = total_s_ * 1e6 / static_cast<double>(calls_);
    state.counters["host_us_per_call"] = host_s_ * 1e6 / static_cast<double>(calls_);
  }

 private:
  cudaEvent_t start_, stop_;
  std::chrono::steady_clock::time_point host_start_;
  double host_s_ = 0;
  double total_s_ = 0;
  int64_t calls_ = 0;
};

constexpr int kStreamOps = 32;

// Runs a program on gpu:0 per iteration; `params` are set once (on the GPU), `inputs` fed
// again before each run (sharing their GPU buffers). With `timed_calls` > 0 the iteration's
// time is the stream's, per call (the benchmark must UseManualTime).
void RunOnGpu(benchmark::State& state, const framework::ProgramDesc& program,
              const std::map<std::string, DenseTensor>& params,
              const std::map<std::string, DenseTensor>& inputs,
              const std::vector<std::string>& fetch, int timed_calls = 0) {
  framework::Scope scope;
  for (const auto& [name, t] : params) *scope.Var(name)->GetMutable<DenseTensor>() = OnGpu(t);
  framework::Executor exec{platform::CUDAPlace(0)};
  auto prepared = exec.Prepare(program, 0, &scope, fetch);
  std::map<std::string, DenseTensor> gpu_inputs;
  for (const auto& [name, t] : inputs) gpu_inputs[name] = OnGpu(t);
  // One run before the timed ones: the first allocates the outputs and the cuDNN workspace and
  // chooses the algorithms (timing them under exhaustive search), which the library side does
  // before its loop.
  auto run = [&] {
    for (const auto& [name, t] : gpu_inputs) {
      *prepared->local_scope()->FindVar(name)->GetMutable<DenseTensor>() = t;
    }
    exec.Run(prepared.get());
  };
  run();
  StreamTimer timer;
  for (auto _ : state) {
    if (timed_calls > 0) timer.Start();
    run();
    if (timed_calls > 0) timer.Stop(state, timed_calls);
  }
  timer.Report(state);
  if (timed_calls == 0) return;
  // A run waits for the device at its end, so the timer's host time is not the enqueueing
  // alone: a profile that does not wait for each op gives the host's side of each op instead.
  constexpr int kHostRuns = 20;
  double host_s = 0;
  size_t ops = 0;
  for (int i = 0; i < kHostRuns; ++i) {
    framework::ExecutionProfile profile;
    profile.wait_for_device = false;
    for (const auto& [name, t] : gpu_inputs) {
      *prepared->local_scope()->FindVar(name)->GetMutable<DenseTensor>() = t;
    }
    exec.Run(prepared.get(), &profile);
    for (const auto& op : profile.ops) host_s += op.seconds;
    ops += profile.ops.size();
  }
  state.counters["host_us_per_call"] = host_s * 1e6 / static_cast<double>(ops);
}

// Names y0..y{n-1}: the outputs of a program's n copies of one op.
std::vector<std::string> OutputNames(int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back("y" + std::to_string(i));
  return names;
}

struct GemmShape {
  int64_t m, k, n;
};
const GemmShape kGemms[] = {{64, 800, 500}, {1024, 1024, 1024}, {4096, 4096, 4096}};

void SetGemmCounters(benchmark::State& state, const GemmShape& s) {
  state.counters["TFLOPS"] = benchmark::Counter(2.0 * s.m * s.k * s.n * 1e-12,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

// `calls` copies of the `mul` op, all reading x and w, each writing its own output.
void GemmKernel(benchmark::State& state, int calls) {
  if (!HaveDevice(state)) return;
  const GemmShape& s = kGemms[state.range(0)];
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  b.Var("x")->SetShape({s.m, s.k});
  b.Var("w")->SetShape({s.k, s.n});
  b.Var("w")->SetPersistable(true);
  const std::vector<std::string> outputs = OutputNames(calls);
  for (const std::string& y : outputs) {
    AddOp(&b, "mul", {{"X", {"x"}}, {"Y", {"w"}}}, {{"Out", {y}}}, {});
  }
  RunOnGpu(state, program, {{"w", Filled(DDim({s.k, s.n}), -0.1f, 0.0001f)}},
           {{"x", Filled(DDim({s.m, s.k}), -1.0f, 0.0003f)}}, outputs, calls > 1 ? calls : 0);
  SetGemmCounters(state, s);
}

// `calls` cublasSgemm calls per iteration, each into its own output.
void GemmCublas(benchmark::State& state, int calls) {
  if (!HaveDevice(state)) return;
  const GemmShape& s = kGemms[state.range(0)];
  const auto& dev = Gpu();
  const DenseTensor x = OnGpu(Filled(DDim({s.m, s.k}), -1.0f, 0.0003f));
  const DenseTensor w = OnGpu(Filled(DDim({s.k, s.n}), -0.1f, 0.0001f));
  std::vector<platform::AllocationPtr> outs;
  for (int i = 0; i < calls; ++i) {
    outs.push_back(platform::Alloc(platform::CUDAPlace(0), sizeof(float) * s.m * s.n));
  }
  const float alpha = 1, beta = 0;
  auto call = [&](const platform::AllocationPtr& out) {
    // Row-major Out = X W as column-major Out^T = W^T X^T.
    platform::CheckCublas(
        cublasSgemm(dev.cublas_handle(), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(s.n),
                    static_cast<int>(s.m), static_cast<int>(s.k), &alpha, w.data<float>(),
                    static_cast<int>(s.n), x.data<float>(), static_cast<int>(s.k), &beta,
                    static_cast<float*>(out->ptr()), static_cast<int>(s.n)),
        "cublasSgemm");
  };
  call(outs[0]);  // cuBLAS's first call loads its kernels.
  dev.Wait();
  StreamTimer timer;
  for (auto _ : state) {
    if (calls > 1) timer.Start();
    for (const auto& out : outs) call(out);
    if (calls > 1) {
      timer.Stop(state, calls);
    } else {
      dev.Wait();
    }
  }
  timer.Report(state);
  SetGemmCounters(state, s);
}

void BM_GemmKernel(benchmark::State& state) { GemmKernel(state, 1); }
void BM_GemmCublas(benchmark::State& state) { GemmCublas(state, 1); }
void BM_GemmKernelStream(benchmark::State& state) { GemmKernel(state, kStreamOps); }
void BM_GemmCublasStream(benchmark::State& state) { GemmCublas(state, kStreamOps); }

struct ConvShape {
  int64_t n, c, h, w, k, r, pad;
};
// LeNet's two convolutions (batch 64), a ResNet-50 3x3 stage-1 layer and a stage-3 one, and
// two layers of a mobile model at batch 1 (PP-OCR's angle classifier), where the fixed cost
// of a call is most of its time.
const ConvShape kConvs[] = {{64, 1, 28, 28, 20, 5, 0},      {64, 20, 12, 12, 50, 5, 0},
                            {32, 64, 56, 56, 64, 3, 1},     {32, 256, 14, 14, 256, 3, 1},
                            {1, 16, 24, 96, 16, 3, 1},      {1, 64, 6, 24, 64, 1, 0}};

void SetConvCounters(benchmark::State& state, const ConvShape& s) {
  const int64_t oh = s.h + 2 * s.pad - s.r + 1, ow = s.w + 2 * s.pad - s.r + 1;
  state.counters["TFLOPS"] =
      benchmark::Counter(2.0 * s.n * s.k * oh * ow * s.c * s.r * s.r * 1e-12,
                         benchmark::Counter::kIsIterationInvariantRate);
}

framework::AttributeMap ConvAttrs(const ConvShape& s, bool exhaustive_search = false) {
  const int pad = static_cast<int>(s.pad);
  return {{"strides", std::vector<int>{1, 1}},
          {"paddings", std::vector<int>{pad, pad}},
          {"padding_algorithm", std::string("EXPLICIT")},
          {"dilations", std::vector<int>{1, 1}},
          {"groups", 1},
          {"data_format", std::string("NCHW")},
          {"exhaustive_search", exhaustive_search}};
}

// `calls` copies of the conv2d op, all reading x and f, each writing its own output.
void ConvKernel(benchmark::State& state, int calls) {
  if (!HaveDevice(state)) return;
  const ConvShape& s = kConvs[state.range(0)];
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  b.Var("x")->SetShape({s.n, s.c, s.h, s.w});
  b.Var("f")->SetShape({s.k, s.c, s.r, s.r});
  b.Var("f")->SetPersistable(true);
  const std::vector<std::string> outputs = OutputNames(calls);
  for (const std::string& y : outputs) {
    AddOp(&b, "conv2d", {{"Input", {"x"}}, {"Filter", {"f"}}}, {{"Output", {y}}},
          ConvAttrs(s, state.range(1) == 1));
  }
  RunOnGpu(state, program, {{"f", Filled(DDim({s.k, s.c, s.r, s.r}), -0.1f, 0.001f)}},
           {{"x", Filled(DDim({s.n, s.c, s.h, s.w}), -1.0f, 0.0003f)}}, outputs,
           calls > 1 ? calls : 0);
  SetConvCounters(state, s);
}

// range(1): 0 runs the heuristics' first algorithm, 1 the kernel's choice from the
// heuristics, 2 the kernel's timed choice. `calls` calls per iteration, each into its own
// output.
void ConvCudnn(benchmark::State& state, int calls) {
  if (!HaveDevice(state)) return;
  const ConvShape& s = kConvs[state.range(0)];
  const auto& dev = Gpu();
  const DDim x_dims({s.n, s.c, s.h, s.w}), f_dims({s.k, s.c, s.r, s.r});
  const cudnn::ConvPlan plan =
      cudnn::MakeConvPlan(operators::ResolveConv2d("conv2d", x_dims, f_dims, ConvAttrs(s)), false);
  const cudnn::ConvDescs<float> d("conv2d", plan);
  const DenseTensor x = OnGpu(Filled(x_dims, -1.0f, 0.0003f));
  const DenseTensor f = OnGpu(Filled(f_dims, -0.1f, 0.001f));
  std::vector<platform::AllocationPtr> ys;
  for (int i = 0; i < calls; ++i) {
    ys.push_back(platform::Alloc(platform::CUDAPlace(0), sizeof(float) * plan.YBuffer().numel()));
  }
  using platform::CheckCudnn;
  cudnnConvolutionFwdAlgo_t algo;
  if (state.range(1) == 0) {
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int found = 0;
    CheckCudnn(cudnnGetConvolutionForwardAlgorithm_v7(dev.cudnn_handle(), d.x.get(), d.w.get(),
                                                      d.conv.get(), d.y.get(), 8, &found, perf),
               "heuristics");
    algo = perf[0].algo;
  } else {
    algo = static_cast<cudnnConvolutionFwdAlgo_t>(
        cudnn::ChooseForward<float>(dev, "conv2d", plan, d, x.data<float>(), f.data<float>(),
                                    static_cast<float*>(ys[0]->ptr()), state.range(1) == 2)
            .algo);
  }
  size_t ws_bytes = 0;
  CheckCudnn(cudnnGetConvolutionForwardWorkspaceSize(dev.cudnn_handle(), d.x.get(), d.w.get(),
                                                     d.conv.get(), d.y.get(), algo, &ws_bytes),
             "workspace");
  auto ws = platform::Alloc(platform::CUDAPlace(0), ws_bytes);
  const float alpha = 1, beta = 0;
  auto call = [&](const platform::AllocationPtr& y) {
    CheckCudnn(cudnnConvolutionForward(dev.cudnn_handle(), &alpha, d.x.get(), x.data<float>(),
                                       d.w.get(), f.data<float>(), d.conv.get(), algo, ws->ptr(),
                                       ws_bytes, &beta, d.y.get(), y->ptr()),
               "forward");
  };
  call(ys[0]);
  dev.Wait();
  StreamTimer timer;
  for (auto _ : state) {
    if (calls > 1) timer.Start();
    for (const auto& y : ys) call(y);
    if (calls > 1) {
      timer.Stop(state, calls);
    } else {
      dev.Wait();
    }
  }
  timer.Report(state);
  state.SetLabel("algo " + std::to_string(static_cast<int>(algo)));
  SetConvCounters(state, s);
}

void BM_ConvKernel(benchmark::State& state) { ConvKernel(state, 1); }
void BM_ConvCudnn(benchmark::State& state) { ConvCudnn(state, 1); }
void BM_ConvKernelStream(benchmark::State& state) { ConvKernel(state, kStreamOps); }
void BM_ConvCudnnStream(benchmark::State& state) { ConvCudnn(state, kStreamOps); }

void SetBandwidth(benchmark::State& state, int64_t n) {
  state.counters["GB/s"] = benchmark::Counter(3.0 * sizeof(float) * n * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

void BM_AddKernel(benchmark::State& state) {
  if (!HaveDevice(state)) return;
  const int64_t n = int64_t{1} << state.range(0);
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  b.Var("x")->SetShape({n});
  b.Var("z")->SetShape({n});
  AddOp(&b, "elementwise_add", {{"X", {"x"}}, {"Y", {"z"}}}, {{"Out", {"y"}}}, {{"axis", -1}});
  RunOnGpu(state, program, {},
           {{"x", Filled(DDim({n}), -1.0f, 0.01f)}, {"z", Filled(DDim({n}), 1.0f, 0.02f)}}, {"y"});
  SetBandwidth(state, n);
}

// Copies 1.5x the add's element count: the same bytes read plus written.
void BM_CopyBytes(benchmark::State& state) {
  if (!HaveDevice(state)) return;
  const int64_t n = int64_t{1} << state.range(0);
  const size_t bytes = sizeof(float) * n * 3 / 2;
  auto a = platform::Alloc(platform::CUDAPlace(0), bytes);
  auto c = platform::Alloc(platform::CUDAPlace(0), bytes);
  const auto& dev = Gpu();
  for (auto _ : state) {
    platform::CheckCuda(
        cudaMemcpyAsync(c->ptr(), a->ptr(), bytes, cudaMemcpyDeviceToDevice, dev.stream()),
        "cudaMemcpyAsync");
    dev.Wait();
  }
  SetBandwidth(state, n);
}

BENCHMARK(BM_GemmKernel)->DenseRange(0, 2)->ArgName("shape")->UseRealTime();
BENCHMARK(BM_GemmCublas)->DenseRange(0, 2)->ArgName("shape")->UseRealTime();
BENCHMARK(BM_ConvKernel)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5}, {0, 1}})
    ->ArgNames({"shape", "search"})
    ->UseRealTime();
BENCHMARK(BM_ConvCudnn)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5}, {0, 1, 2}})
    ->ArgNames({"shape", "algo"})
    ->UseRealTime();
BENCHMARK(BM_GemmKernelStream)->DenseRange(0, 2)->ArgName("shape")->UseManualTime();
BENCHMARK(BM_GemmCublasStream)->DenseRange(0, 2)->ArgName("shape")->UseManualTime();
BENCHMARK(BM_ConvKernelStream)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5}, {0, 1}})
    ->ArgNames({"shape", "search"})
    ->UseManualTime();
BENCHMARK(BM_ConvCudnnStream)
    ->ArgsProduct({{0, 1, 2, 3, 4, 5}, {0, 1, 2}})
    ->ArgNames({"shape", "algo"})
    ->UseManualTime();
BENCHMARK(BM_AddKernel)->Arg(20)->Arg(26)->ArgName("log2n")->UseRealTime();
BENCHMARK(BM_CopyBytes)->Arg(20)->Arg(26)->ArgName("log2n")->UseRealTime();

}  // namespace
}  // namespace paddle_like

BENCHMARK_MAIN();

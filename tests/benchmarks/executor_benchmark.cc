// Executor overhead: a chain of `quadratic` ops run through a prepared program, against the
// same arithmetic done by a plain loop in the same process. The ratio is the cost of
// dispatch (guard, shape inference, kernel call, frees) relative to the work.
#include <benchmark/benchmark.h>

#include "framework/executor.h"
#include "operators/registry.h"

namespace paddle_like {
namespace {

constexpr int kOps = 64;

framework::ProgramDesc Chain(int ops) {
  framework::ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  b.Var("v0")->SetShape({-1});
  for (int i = 0; i < ops; ++i) {
    framework::OpDesc* op = b.AppendOp();
    op->SetType("quadratic");
    op->SetInput("X", {"v" + std::to_string(i)});
    op->SetOutput("Out", {"v" + std::to_string(i + 1)});
    op->SetAttr("a", 0.001f);
    op->SetAttr("b", -1.0f);
  }
  return p;
}

void BM_ExecutorChain(benchmark::State& state) {
  operators::RegisterAllOps();
  const int64_t n = state.range(0);
  framework::Scope scope;
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(Chain(kOps), 0, &scope, {"v" + std::to_string(kOps)});
  framework::DenseTensor x(framework::DDim({n}), platform::DataType::FLOAT32);
  float* p = x.mutable_data<float>(platform::CPUPlace());
  for (int64_t i = 0; i < n; ++i) p[i] = 0.001f * static_cast<float>(i % 100);
  framework::Variable* input = prepared->local_scope()->FindVar("v0");
  for (auto _ : state) {
    *input->GetMutable<framework::DenseTensor>() = x;
    exec.Run(prepared.get());
  }
  state.counters["ns_per_op"] = benchmark::Counter(
      static_cast<double>(kOps), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_PlainLoopChain(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) a[static_cast<size_t>(i)] = 0.001f * static_cast<float>(i % 100);
  for (auto _ : state) {
    const float* in = a.data();
    for (int op = 0; op < kOps; ++op) {
      float* out = (op % 2 == 0) ? b.data() : a.data();
      for (int64_t i = 0; i < n; ++i) out[i] = (0.001f * in[i] - 1.0f) * in[i];
      in = out;
    }
    benchmark::DoNotOptimize(a.data());
    benchmark::DoNotOptimize(b.data());
  }
  state.counters["ns_per_op"] = benchmark::Counter(
      static_cast<double>(kOps), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

BENCHMARK(BM_ExecutorChain)->Arg(1)->Arg(1024)->Arg(65536);
BENCHMARK(BM_PlainLoopChain)->Arg(1)->Arg(1024)->Arg(65536);

}  // namespace
}  // namespace paddle_like

BENCHMARK_MAIN();

// LeNet (paddle_like train's default model: conv 20 5x5, pool, conv 50 5x5, pool, fc 500,
// fc 10) on 28x28 single-channel images, float32: one inference run of the for-test program
// (batch 1 and 64) and one training step with Adam (batch 64), through the executor with a
// prepared program, as `paddle_like train` runs them (the for-test program also computes the
// loss and accuracy, so it is fed labels too). Arguments:
// batch, use_onednn (0/1), threads.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "framework/passes/fuse_relu_grad_pass.h"
#include "operators/registry.h"
#include "paddle_like/layers/optimizer.h"
#include "paddle_like/train/models.h"
#include "tests/benchmarks/bench_util.h"

namespace paddle_like {
namespace {

using framework::DenseTensor;

struct LeNet {
  layers::ProgramBuilder builder{1};
  train::ModelVars vars;
  framework::ProgramDesc test_program;
};

void Build(LeNet* net, bool with_optimizer) {
  net->vars = train::BuildModel(&net->builder, "lenet", {1, 28, 28}, 10);
  net->test_program = train::CloneForTest(net->builder.main_program());
  if (with_optimizer) {
    layers::OptimizerConfig config;
    config.kind = layers::OptimizerConfig::ParseKind("adam");
    layers::Minimize(&net->builder, net->vars.loss, config);
  }
}

DenseTensor Labels(int64_t batch) {
  DenseTensor t(framework::DDim({batch, 1}), platform::DataType::INT64);
  int64_t* p = t.mutable_data<int64_t>(platform::CPUPlace());
  for (int64_t i = 0; i < batch; ++i) p[i] = i % 10;
  return t;
}

void Run(benchmark::State& state, bool training) {
  operators::RegisterAllOps();
  const int64_t batch = state.range(0);
  const FlagScope flags(state.range(1) != 0, static_cast<int>(state.range(2)));
  LeNet net;
  Build(&net, training);
  framework::Scope scope;
  framework::Executor exec{platform::CPUPlace()};
  {
    auto startup = exec.Prepare(net.builder.startup_program(), 0, &scope);
    exec.Run(startup.get());
  }
  // As the trainer runs it: with the execution passes (fused relu and pooling gradients).
  framework::ProgramDesc program = training ? net.builder.main_program() : net.test_program;
  if (training) framework::ApplyExecutionPasses(&program);
  const std::string fetch = training ? net.vars.loss.name() : net.vars.probabilities.name();
  auto prepared = exec.Prepare(program, 0, &scope, {fetch});
  const DenseTensor image = Filled(framework::DDim({batch, 1, 28, 28}), -1.0f, 0.02f);
  const DenseTensor label = Labels(batch);
  framework::Scope* local = prepared->local_scope();
  for (auto _ : state) {
    *local->FindVar(net.vars.image.name())->GetMutable<DenseTensor>() = image;
    *local->FindVar(net.vars.label.name())->GetMutable<DenseTensor>() = label;
    exec.Run(prepared.get());
  }
  state.counters["samples/s"] =
      benchmark::Counter(static_cast<double>(batch), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_LeNetInference(benchmark::State& state) { Run(state, false); }
void BM_LeNetTrainStep(benchmark::State& state) { Run(state, true); }

BENCHMARK(BM_LeNetInference)
    ->ArgNames({"batch", "onednn", "threads"})
    ->ArgsProduct({{1, 64}, {0, 1}, {1, 2}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_LeNetTrainStep)
    ->ArgNames({"batch", "onednn", "threads"})
    ->ArgsProduct({{64}, {0, 1}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace paddle_like

BENCHMARK_MAIN();

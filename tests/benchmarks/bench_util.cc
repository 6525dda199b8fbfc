#include "tests/benchmarks/bench_util.h"

#include <utility>

#include "operators/registry.h"
#include "platform/device_context_pool.h"
#include "platform/flags.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {

using framework::DenseTensor;

DenseTensor Filled(const framework::DDim& dims, float lo, float step) {
  DenseTensor t(dims, platform::DataType::FLOAT32);
  float* p = t.mutable_data<float>(platform::CPUPlace());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = lo + step * static_cast<float>(i % 97);
  return t;
}

framework::OpDesc* AddOp(framework::BlockDesc* b, const std::string& type,
                         const framework::VariableNameMap& in,
                         const framework::VariableNameMap& out,
                         const framework::AttributeMap& attrs) {
  framework::OpDesc* op = b->AppendOp();
  op->SetType(type);
  for (const auto& kv : in) op->SetInput(kv.first, kv.second);
  for (const auto& kv : out) op->SetOutput(kv.first, kv.second);
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  return op;
}

const platform::OneDNNContext& OneDNNDevice() {
  operators::RegisterAllOps();
  return *platform::DeviceContextPool::Instance().GetAs<platform::OneDNNContext>(
      platform::CPUPlace());
}

FlagScope::FlagScope(bool use_onednn, int threads)
    : onednn_(FLAGS_use_onednn), threads_(FLAGS_paddle_num_threads) {
  FLAGS_use_onednn = use_onednn;
  FLAGS_paddle_num_threads = threads;
  platform::DeviceContextPool::Instance().Clear();
}

FlagScope::~FlagScope() {
  FLAGS_use_onednn = onednn_;
  FLAGS_paddle_num_threads = threads_;
  platform::DeviceContextPool::Instance().Clear();
}

void RunLoop(benchmark::State& state, framework::ProgramDesc program,
             const std::map<std::string, DenseTensor>& feeds,
             const std::vector<std::string>& fetches) {
  for (const auto& kv : feeds) {
    framework::VarDesc* v = program.Block(0).Var(kv.first);
    v->SetDataType(kv.second.dtype());
    v->SetShape(kv.second.dims().ToVector());
  }
  framework::Scope scope;
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program, 0, &scope, fetches);
  std::vector<std::pair<DenseTensor*, const DenseTensor*>> inputs;
  for (const auto& kv : feeds) {
    inputs.emplace_back(prepared->local_scope()->FindVar(kv.first)->GetMutable<DenseTensor>(),
                        &kv.second);
  }
  for (auto _ : state) {
    // The executor frees inputs after their last use: feed them again (sharing the buffers).
    for (const auto& in : inputs) *in.first = *in.second;
    exec.Run(prepared.get());
  }
}

}  // namespace paddle_like

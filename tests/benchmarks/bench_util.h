// Pieces shared by the Google Benchmark programs: input tensors, one-op programs, a scope for
// the flags that pick kernels, and the loop that runs a prepared program.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

#include "framework/executor.h"

namespace paddle_like {

namespace platform {
class OneDNNContext;
}

// The CPU's oneDNN device context under the current flags, for benchmarks that call
// oneDNN's primitives directly (registers the ops, and with them the oneDNN backend, first).
const platform::OneDNNContext& OneDNNDevice();

// A float32 tensor of `dims` holding lo + step * (i % 97).
framework::DenseTensor Filled(const framework::DDim& dims, float lo, float step);

// Appends an op to `b`.
framework::OpDesc* AddOp(framework::BlockDesc* b, const std::string& type,
                         const framework::VariableNameMap& in,
                         const framework::VariableNameMap& out,
                         const framework::AttributeMap& attrs = {});

// Sets FLAGS_use_onednn and FLAGS_paddle_num_threads for one benchmark and restores them
// after (device contexts are rebuilt both times).
class FlagScope {
 public:
  FlagScope(bool use_onednn, int threads);
  ~FlagScope();
  FlagScope(const FlagScope&) = delete;
  FlagScope& operator=(const FlagScope&) = delete;

 private:
  bool onednn_;
  int threads_;
};

// Runs `program` on `feeds` once per iteration (feeds declared in the program first).
void RunLoop(benchmark::State& state, framework::ProgramDesc program,
             const std::map<std::string, framework::DenseTensor>& feeds,
             const std::vector<std::string>& fetches);

}  // namespace paddle_like

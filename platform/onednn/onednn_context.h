// The CPU device context of a oneDNN build: the CPU context plus a oneDNN engine and one
// oneDNN stream per calling thread. oneDNN kernels take it with
// `ctx.device_context<OneDNNContext>()`.
#pragma once

#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <thread>
#include <unordered_map>

#include "platform/device_context.h"

namespace paddle_like {
namespace platform {

class OneDNNContext : public CPUDeviceContext {
 public:
  explicit OneDNNContext(int num_threads)
      : CPUDeviceContext(num_threads), engine_(dnnl::engine::kind::cpu, 0) {}

  const dnnl::engine& engine() const { return engine_; }

  // The calling thread's stream. Executors on several threads share this context (one per
  // place), and a dnnl::stream is not meant to run primitives for two threads at once.
  // oneDNN's CPU stream executes synchronously with respect to the calling thread.
  dnnl::stream& stream() const {
    std::lock_guard<std::mutex> lock(mu_);
    dnnl::stream& s = streams_[std::this_thread::get_id()];
    if (!s) s = dnnl::stream(engine_);
    return s;
  }

 private:
  dnnl::engine engine_;
  mutable std::mutex mu_;
  // Node-based: a reference stays valid while other threads add their streams.
  mutable std::unordered_map<std::thread::id, dnnl::stream> streams_;
};

}  // namespace platform
}  // namespace paddle_like

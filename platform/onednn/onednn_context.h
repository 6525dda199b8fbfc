// The CPU device context of a oneDNN build: the CPU context plus a oneDNN engine and stream.
// oneDNN kernels take it with `ctx.device_context<OneDNNContext>()`.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "platform/device_context.h"

namespace paddle_like {
namespace platform {

class OneDNNContext : public CPUDeviceContext {
 public:
  explicit OneDNNContext(int num_threads)
      : CPUDeviceContext(num_threads), engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {}

  const dnnl::engine& engine() const { return engine_; }
  // oneDNN's CPU stream executes synchronously with respect to the calling thread.
  dnnl::stream& stream() const { return stream_; }

 private:
  dnnl::engine engine_;
  mutable dnnl::stream stream_;
};

}  // namespace platform
}  // namespace paddle_like

// The one place that registers every op and kernel of this build.
#pragma once

namespace paddle_like {
namespace operators {

// Registers all ops with their plain CPU kernels, then the oneDNN and CUDA kernels where
// those backends are built in. Idempotent and thread-safe; also initialises the platform.
void RegisterAllOps();

}  // namespace operators
}  // namespace paddle_like

// Registration of every op and kernel of this build (op_family.h).
#pragma once

namespace paddle_like {
namespace operators {

// Registers all ops with their plain CPU kernels, then the library kernels (oneDNN, CUDA)
// this build has, from the table generated out of the op sources (op_family.h). Idempotent and thread-safe; also initialises the platform.
void RegisterAllOps();

}  // namespace operators
}  // namespace paddle_like

#include "operators/onednn/onednn_kernel_families.h"

namespace paddle_like {
namespace operators {

void RegisterNormOneDNNKernels() {}

}  // namespace operators
}  // namespace paddle_like

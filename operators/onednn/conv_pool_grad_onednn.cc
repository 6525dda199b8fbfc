#include "operators/onednn/onednn_kernel_families.h"

namespace paddle_like {
namespace operators {

void RegisterConvPoolGradOneDNNKernels() {}

}  // namespace operators
}  // namespace paddle_like

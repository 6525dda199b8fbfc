// oneDNN kernels of the matrix ops (float32; registered in registry_onednn.cc).
#pragma once

#include "framework/operator.h"

namespace paddle_like {
namespace operators {

// matmul_v2 with numpy semantics, including broadcast batch dims, on dnnl::matmul.
void MatmulV2OneDNNKernel(const framework::ExecutionContext& ctx);
// mul (X and Y flattened to 2-D) on dnnl::matmul.
void MulOneDNNKernel(const framework::ExecutionContext& ctx);

}  // namespace operators
}  // namespace paddle_like

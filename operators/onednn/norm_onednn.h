// oneDNN kernels of batch_norm, layer_norm and their fused gradient ops (float32; registered
// in norm_onednn.cc). Each gives the values of the plain kernel (operators/nn/) up to float
// rounding, and runs that kernel for the cases the primitives do not express.
#pragma once

#include "framework/operator.h"

namespace paddle_like {
namespace operators {

// dnnl::batch_normalization_forward, ranks 2 to 5, NCHW or NHWC: batch statistics
// (forward_training; the running averages and the inverse standard deviation are computed
// from them here) or the running ones (forward_inference with use_global_stats). Empty X and
// training with one value per channel (passed through) go to the plain kernel.
// A kernel class: the primitive is prepared per input shape.
framework::KernelFactory BatchNormOneDNNKernel();
// dnnl::batch_normalization_backward: prop_kind backward when Scale@GRAD or Bias@GRAD is
// asked for, backward_data otherwise; use_global_stats in inference mode. Same fallbacks.
void BatchNormGradOneDNNKernel(const framework::ExecutionContext& ctx);
// dnnl::layer_normalization_forward on X as [left, right]; Scale and Bias optional. Empty X
// goes to the plain kernel.
void LayerNormOneDNNKernel(const framework::ExecutionContext& ctx);
// dnnl::layer_normalization_backward; backward or backward_data as for batch_norm_grad.
void LayerNormGradOneDNNKernel(const framework::ExecutionContext& ctx);

}  // namespace operators
}  // namespace paddle_like

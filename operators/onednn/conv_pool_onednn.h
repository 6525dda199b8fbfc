// oneDNN kernels of conv2d / depthwise_conv2d and pool2d (float32 forward; registered in
// registry_onednn.cc).
#pragma once

#include "framework/operator.h"

namespace paddle_like {
namespace operators {

// dnnl::convolution_forward, NCHW or NHWC, any groups, strides, dilations and paddings: a
// kernel class that prepares the primitive per input shape and packs the filter once per
// filter value.
framework::KernelFactory Conv2dOneDNNKernel();
// dnnl::pooling_forward: max, avg (exclusive or not), global, ceil_mode, NCHW or NHWC.
// Adaptive pooling and windows lying wholly in the padding, which the primitive does not
// express, are computed by the plain CPU code within this kernel.
void Pool2dOneDNNKernel(const framework::ExecutionContext& ctx);

}  // namespace operators
}  // namespace paddle_like

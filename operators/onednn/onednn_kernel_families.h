// oneDNN kernel families that register their own kernels; registry_onednn.cc calls each.
#pragma once

namespace paddle_like {
namespace operators {

// Eltwise activations (forward and PaddlePaddle's fused `<type>_grad` ops) on
// dnnl::eltwise_forward / eltwise_backward.
void RegisterEltwiseOneDNNKernels();
// softmax and softmax_grad on dnnl::softmax_forward / softmax_backward.
void RegisterSoftmaxOneDNNKernels();
// batch_norm, layer_norm and their grads on dnnl::batch_normalization_* and
// dnnl::layer_normalization_*.
void RegisterNormOneDNNKernels();
// conv2d_grad, depthwise_conv2d_grad and pool2d_grad on the oneDNN backward primitives.
void RegisterConvPoolGradOneDNNKernels();
// mul_grad and matmul_v2_grad on dnnl::matmul.
void RegisterMatmulGradOneDNNKernels();
// sum of dense tensors on dnnl::sum.
void RegisterSumOneDNNKernels();
// concat on dnnl::concat.
void RegisterConcatOneDNNKernels();
// elementwise_add, _sub, _mul and _div on dnnl::binary.
void RegisterBinaryOneDNNKernels();
// reduce_sum, reduce_mean and mean on dnnl::reduction; transpose2 on dnnl::reorder.
void RegisterReduceOneDNNKernels();

}  // namespace operators
}  // namespace paddle_like

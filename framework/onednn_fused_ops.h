// The ops that PaddlePaddle's oneDNN passes fuse (and conv2d_transpose_bias, which its CPU
// passes write) (a program that paddle.inference optimised
// with oneDNN on and saved, `Config.enable_save_optim_model`, as PIR `onednn_op.*` or as a
// ProgramDesc) written back as the ops they fused, which paddle_like's own passes and kernels
// fuse again where it pays:
//   fused_matmul           [reshape2, transpose2 of X and Y] matmul (alpha) [+ ResidualData]
//                          [activation] [scale] [transpose2, reshape2 of Out]
//   fused_elementwise_add  (sub, mul, div) elementwise op [activation] [scale] [unsqueeze2]
//   fc                     with fuse_activation / fused_output_scale / fused_reshape2_shape:
//                          fc [activation] [scale] [reshape2]
//   fused_conv2d           conv2d (which takes Bias, ResidualData and fuse_activation itself)
//   conv2d_transpose_bias  conv2d_transpose (which takes Bias)
//   fused_conv3d           conv3d [+ Bias] [+ ResidualData] [activation]
//   fused_softplus         softplus [activation]
// The activation is oneDNN's post-op (fuse_activation, fuse_alpha, fuse_beta): abs, clip,
// gelu (gelu_erf), gelu_tanh, hard_sigmoid, hard_swish, leaky_relu, mish, relu, relu6,
// sigmoid, sqrt, swish, tanh. Quantised forms (int8 scales other than 1) are refused.
#pragma once

#include <string>

namespace paddle_like {
namespace framework {

class ProgramDesc;

// True for the op types ExpandOneDnnFusedOps rewrites (fc only with oneDNN's attributes).
bool IsOneDnnFusedOpType(const std::string& type);

// Rewrites every such op of every block in place; returns how many it rewrote.
// UnimplementedError naming the op for an activation or quantisation it cannot express.
int ExpandOneDnnFusedOps(ProgramDesc* program);

}  // namespace framework
}  // namespace paddle_like

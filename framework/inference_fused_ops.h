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
//   depthwise_conv2d_bias  depthwise_conv2d (Bias)
//   fused_conv2d_add_act   conv2d with Bias, ResidualData and cuDNN's activation (identity,
//   (conv2d_fusion)        relu, relu6, leaky_relu, sigmoid, tanh, swish) [split of Outputs]
//   fused_transpose        [squeeze2] transpose2 [unsqueeze2] [reshape2]
//   skip_layernorm         layer_norm(X + Y)
//   fused_fc_elementwise_layernorm   layer_norm(fc(X, W, Bias0) + Y)
//   fused_embedding_eltwise_layernorm  layer_norm over the last dim of the sum of lookups
//   fused_conv3d           conv3d [+ Bias] [+ ResidualData] [activation]
//   fused_softplus         softplus [activation]
// The activation is oneDNN's post-op (fuse_activation, fuse_alpha, fuse_beta): abs, clip,
// gelu (gelu_erf), gelu_tanh, hard_sigmoid, hard_swish, leaky_relu, mish, relu, relu6,
// sigmoid, sqrt, swish, tanh. Quantised forms (int8 scales other than 1) are refused.
#pragma once

#include <string>

#include "framework/attribute.h"

namespace paddle_like {
namespace framework {

class ProgramDesc;

// UnimplementedError naming `where` when `attrs` hold what float ops cannot express: a oneDNN
// int8 form (a scale_* / Scale_* quantisation scale other than 1, a data type other than
// float32, force_fp32_output) or, unless `post_ops_expanded` (the fused ops below, whose
// expansion writes them as ops), a post-op, an output scale or a fused reshape / transpose /
// squeeze. The one check for the fused ops here and for the onednn_op ops PIR translation maps
// onto ProgramDesc ops that lack those attributes.
void RefuseOneDnnOnlyAttributes(const std::string& where, const AttributeMap& attrs,
                                bool post_ops_expanded);

// True for the op types ExpandInferenceFusedOps rewrites (besides fc with oneDNN's attributes).
bool IsInferenceFusedOpType(const std::string& type);

// Rewrites every such op of every block in place; returns how many it rewrote.
// UnimplementedError naming the op for an activation or quantisation it cannot express.
int ExpandInferenceFusedOps(ProgramDesc* program);

}  // namespace framework
}  // namespace paddle_like

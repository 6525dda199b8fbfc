// PaddlePaddle's oneDNN precision attributes (int8 and bfloat16 hints), which its conv2d,
// conv2d_transpose, matmul and prior_box ops carry as extra attributes. They are declared
// with their types and defaults, so that a value of the wrong type is refused as PaddlePaddle
// refuses it; they change nothing in the float kernels here.
#pragma once

#include "framework/op_proto_maker.h"

namespace paddle_like {
namespace operators {

class OneDNNPrecisionAttrMaker : public framework::OpProtoAndCheckerMaker {
 protected:
  // mkldnn_data_type (float32, int8 or bfloat16) always; use_quantizer and force_fp32_output
  // where the op has them.
  void AddOneDNNPrecisionAttrs(bool use_quantizer, bool force_fp32_output);
};

}  // namespace operators
}  // namespace paddle_like

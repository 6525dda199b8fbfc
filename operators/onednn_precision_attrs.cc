#include "operators/onednn_precision_attrs.h"

#include <string>

namespace paddle_like {
namespace operators {

void OneDNNPrecisionAttrMaker::AddOneDNNPrecisionAttrs(bool use_quantizer,
                                                       bool force_fp32_output) {
  AddAttr<std::string>("mkldnn_data_type", "oneDNN precision hint; no effect here.")
      .SetDefault("float32")
      .InEnum({"float32", "int8", "bfloat16"})
      .AsExtra();
  if (use_quantizer) {
    AddAttr<bool>("use_quantizer", "oneDNN int8 option; no effect here.")
        .SetDefault(false)
        .AsExtra();
  }
  if (force_fp32_output) {
    AddAttr<bool>("force_fp32_output", "oneDNN int8 option; no effect here.")
        .SetDefault(false)
        .AsExtra();
  }
}

}  // namespace operators
}  // namespace paddle_like

#include "operators/nn/pool_window_attrs.h"

#include <string>
#include <vector>

namespace paddle_like {
namespace operators {

void PoolWindowAttrMaker::AddWindowAttrs() {
  AddAttr<std::vector<int>>("ksize",
                            "[kh, kw] (required); with `adaptive`, the output size [H_out, "
                            "W_out]; ignored by global pooling.");
  AddAttr<bool>("global_pooling", "Pool each whole plane: ksize = [H, W], no padding.")
      .SetDefault(false);
  AddAttr<std::vector<int>>("strides", "[stride_h, stride_w], each >= 1.")
      .SetDefault(std::vector<int>{1, 1});
  AddAttr<std::vector<int>>("paddings",
                            "[pad_h, pad_w] (both sides) or [top, bottom, left, right].")
      .SetDefault(std::vector<int>{0, 0});
  AddAttr<bool>("adaptive",
                "ksize is the output size; window i covers [floor(i * in / out), "
                "ceil((i + 1) * in / out)).")
      .SetDefault(false);
  AddAttr<bool>("ceil_mode", "Round the output size up instead of down.").SetDefault(false);
  AddAttr<std::string>("data_format", "NCHW or NHWC; AnyLayout = NCHW.")
      .SetDefault("NCHW")
      .InEnum({"NCHW", "NHWC", "AnyLayout"});
  AddAttr<std::string>("padding_algorithm",
                       "EXPLICIT (use `paddings`), SAME (out = ceil(in / stride)) or VALID "
                       "(no padding).")
      .SetDefault("EXPLICIT")
      .InEnum({"EXPLICIT", "SAME", "VALID"});
}

}  // namespace operators
}  // namespace paddle_like

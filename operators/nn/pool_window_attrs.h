// The attributes that place pool2d's windows, declared once for every op that pools over
// them (pool2d and its fused gradients, lp_pool2d), so that they read the same attributes
// with the same defaults and checks (Pool2dGeometry, conv_pool_shape.h, resolves them).
#pragma once

#include "framework/op_proto_maker.h"

namespace paddle_like {
namespace operators {

class PoolWindowAttrMaker : public framework::OpProtoAndCheckerMaker {
 protected:
  // ksize, global_pooling, strides, paddings, adaptive, ceil_mode, data_format and
  // padding_algorithm.
  void AddWindowAttrs();
};

}  // namespace operators
}  // namespace paddle_like

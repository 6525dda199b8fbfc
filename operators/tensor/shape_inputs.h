// The shape of a created tensor (fill_constant, empty, the random ops) as PaddlePaddle gives
// it: the input ShapeTensor (a 1-D int32/int64 tensor), else the input ShapeTensorList (one
// 1-element tensor per dim), else the attribute `shape` (INTS or LONGS).
#pragma once

#include <vector>

#include "operators/common.h"

namespace paddle_like {
namespace operators {

// The maker of an op that takes its shape so: AddShapeInputs declares ShapeTensor and
// ShapeTensorList (the attribute `shape` is the op's own: INTS or LONGS).
class ShapeInputsOpMaker : public OpProtoAndCheckerMaker {
 protected:
  void AddShapeInputs() {
    AddInput("ShapeTensor", "Optional 1-D int32/int64 tensor; overrides `shape`.").AsDispensable();
    AddInput("ShapeTensorList",
             "Optional list of 1-element int32/int64 tensors, one per dim; overrides `shape` "
             "(ShapeTensor wins over it).")
        .AsDuplicable()
        .AsDispensable();
  }
};

// The attribute `shape` (INTS or LONGS) as int64 values.
std::vector<int64_t> ShapeAttr(const framework::AttributeMap& attrs);

// Shape inference of output `out`: the attribute's dims, checked, at run time and where the
// attribute is given; at program-build time with only shape inputs, -1 dims of the rank they
// imply. At run time with shape inputs nothing is set: the kernel calls ShapeFromInputs.
void ShapeInputsInferShape(InferShapeContext* ctx, const char* out = "Out");

// The shape at run time, every dim checked >= 0. InvalidArgumentError naming the op and the
// input or attribute that gave a bad shape.
DDim ShapeFromInputs(const ExecutionContext& ctx);

}  // namespace operators
}  // namespace paddle_like

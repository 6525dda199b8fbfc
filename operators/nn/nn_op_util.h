// Helpers shared by the normalisation and dropout ops (batch_norm, layer_norm, dropout) and
// their gradient ops.
#pragma once

#include <initializer_list>
#include <string>

#include "framework/grad_op_maker.h"
#include "operators/common.h"

namespace paddle_like {
namespace operators {

// An op whose kernel computes in the dtype of its input `X` (other floating inputs, such as
// running statistics, are cast to it). Falls back to the default choice when X holds no data.
class XTypedOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override;
};

// A BOOLEAN attribute of a forward op as a grad maker sees it: INT values (older programs)
// count as booleans; `fallback` when the attribute is absent.
bool BoolAttrOr(const framework::OpDesc& op, const std::string& name, bool fallback);

// The named attributes of `op` that it carries, for the grad op a maker emits.
framework::AttributeMap PickAttrs(const framework::OpDesc& op,
                                  std::initializer_list<const char*> names);

}  // namespace operators
}  // namespace paddle_like

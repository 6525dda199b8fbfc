#include "operators/nn/nn_op_util.h"

namespace paddle_like {
namespace operators {

DataType XTypedOp::IndicateDataType(const framework::RuntimeContext& ctx) const {
  auto it = ctx.inputs.find("X");
  if (it != ctx.inputs.end() && !it->second.empty()) {
    const framework::Variable* v = it->second[0];
    if (v->IsType<DenseTensor>() && v->Get<DenseTensor>().initialized()) {
      return v->Get<DenseTensor>().dtype();
    }
  }
  return OperatorWithKernel::IndicateDataType(ctx);
}

bool BoolAttrOr(const framework::OpDesc& op, const std::string& name, bool fallback) {
  if (!op.HasAttr(name)) return fallback;
  const framework::Attribute& a = op.GetAttr(name);
  if (const bool* b = std::get_if<bool>(&a)) return *b;
  if (const int* i = std::get_if<int>(&a)) return *i != 0;
  if (const int64_t* l = std::get_if<int64_t>(&a)) return *l != 0;
  return fallback;
}

framework::AttributeMap PickAttrs(const framework::OpDesc& op,
                                  std::initializer_list<const char*> names) {
  framework::AttributeMap attrs;
  for (const char* name : names) {
    if (op.HasAttr(name)) attrs[name] = op.GetAttr(name);
  }
  return attrs;
}

}  // namespace operators
}  // namespace paddle_like

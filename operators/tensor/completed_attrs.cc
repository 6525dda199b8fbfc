#include "operators/tensor/completed_attrs.h"

#include "framework/op_info.h"

namespace paddle_like {
namespace operators {

CompletedAttrs::CompletedAttrs(const std::string& op_type, const framework::AttributeMap& attrs,
                               bool checked)
    : op_type_(op_type), attrs_(&attrs) {
  if (checked) return;
  completed_ = attrs;
  framework::OpInfoMap::Instance().Get(op_type).checker.Check(op_type, &completed_);
  attrs_ = &completed_;
}

const framework::Attribute& CompletedAttrs::Find(const std::string& name) const {
  auto it = attrs_->find(name);
  PL_ENFORCE(it != attrs_->end(),
             errors::NotFound("op `%s` has no attribute `%s`", op_type_, name));
  return it->second;
}

}  // namespace operators
}  // namespace paddle_like

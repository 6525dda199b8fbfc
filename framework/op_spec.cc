#include "framework/op_spec.h"

#include "framework/framework.pb.h"

namespace paddle_like {
namespace framework {

namespace {
template <typename T>
const T* FindByName(const std::vector<T>& items, const std::string& name) {
  for (const auto& item : items) {
    if (item.name == name) return &item;
  }
  return nullptr;
}

void SlotToProto(const OpSlotSpec& s, ::paddle::framework::proto::OpProto::Var* out) {
  out->set_name(s.name);
  out->set_comment(s.comment);
  out->set_duplicable(s.duplicable);
  out->set_dispensable(s.dispensable);
  out->set_intermediate(s.intermediate);
  out->set_extra(s.extra);
}
}  // namespace

bool OpSpec::ReadsOnlyMetadata(const std::string& name) const {
  const OpSlotSpec* slot = FindInput(name);
  return slot != nullptr && slot->no_need_buffer;
}

const OpSlotSpec* OpSpec::FindInput(const std::string& name) const { return FindByName(inputs, name); }
const OpSlotSpec* OpSpec::FindOutput(const std::string& name) const { return FindByName(outputs, name); }
const OpAttrSpec* OpSpec::FindAttr(const std::string& name) const { return FindByName(attrs, name); }

std::string OpSpec::ToProtoBytes() const {
  ::paddle::framework::proto::OpProto p;
  p.set_type(type);
  for (const auto& s : inputs) SlotToProto(s, p.add_inputs());
  for (const auto& s : outputs) SlotToProto(s, p.add_outputs());
  for (const auto& a : attrs) {
    auto* pa = p.add_attrs();
    pa->set_name(a.name);
    pa->set_type(static_cast<::paddle::framework::proto::AttrType>(a.type));
    pa->set_comment(a.comment);
    pa->set_extra(a.extra);
  }
  p.set_comment(comment);
  return p.SerializeAsString();
}

}  // namespace framework
}  // namespace paddle_like

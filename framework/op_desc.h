// OpDesc: one operator of a block as a program stores it: type, input and output slots
// (slot name -> variable names), attributes. Slots and attributes are kept sorted by name,
// which is also the order PaddlePaddle writes them in.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "framework/attribute.h"
#include "platform/enforce.h"

namespace paddle { namespace framework { namespace proto { class OpDesc; } } }

namespace paddle_like {
namespace framework {

namespace proto = ::paddle::framework::proto;
class BlockDesc;

using VariableNameMap = std::map<std::string, std::vector<std::string>>;

class OpDesc {
 public:
  OpDesc() = default;
  OpDesc(const std::string& type, const VariableNameMap& inputs, const VariableNameMap& outputs,
         const AttributeMap& attrs);
  // Parses a stored op; throws InvalidArgumentError for an attribute of an unknown type.
  OpDesc(const proto::OpDesc& desc, BlockDesc* block);

  const std::string& Type() const { return type_; }
  void SetType(const std::string& type) { type_ = type; }

  const VariableNameMap& Inputs() const { return inputs_; }
  const VariableNameMap& Outputs() const { return outputs_; }
  // The variables of a slot; empty if the slot is absent.
  const std::vector<std::string>& Input(const std::string& slot) const;
  const std::vector<std::string>& Output(const std::string& slot) const;
  bool HasInput(const std::string& slot) const { return !Input(slot).empty(); }
  bool HasOutput(const std::string& slot) const { return !Output(slot).empty(); }
  void SetInput(const std::string& slot, const std::vector<std::string>& args);
  void SetOutput(const std::string& slot, const std::vector<std::string>& args);
  // Every variable name of every input (output) slot, in slot order.
  std::vector<std::string> InputArgumentNames() const;
  std::vector<std::string> OutputArgumentNames() const;
  // Renames a variable wherever this op uses it.
  void Rename(const std::string& old_name, const std::string& new_name);

  const AttributeMap& Attrs() const { return attrs_; }
  AttributeMap* MutableAttrs() { return &attrs_; }
  bool HasAttr(const std::string& name) const { return attrs_.count(name) > 0; }
  const Attribute& GetAttr(const std::string& name) const;
  void SetAttr(const std::string& name, const Attribute& value) { attrs_[name] = value; }
  void RemoveAttr(const std::string& name) { attrs_.erase(name); }
  template <typename T>
  const T& Attr(const std::string& name) const {
    const Attribute& a = GetAttr(name);
    const T* v = std::get_if<T>(&a);
    PL_ENFORCE(v != nullptr, errors::InvalidArgument(
                                 "op `%s` attribute `%s`: expected type %s, received %s", type_,
                                 name, AttrTypeName(AttrTypeOf<T>()),
                                 AttrTypeName(GetAttrType(a))));
    return *v;
  }

  bool IsTarget() const { return is_target_; }
  void SetIsTarget(bool v) { is_target_ = v; }

  BlockDesc* Block() const { return block_; }
  void SetBlock(BlockDesc* block) { block_ = block; }

  void ToProto(proto::OpDesc* out) const;

 private:
  std::string type_;
  VariableNameMap inputs_;
  VariableNameMap outputs_;
  AttributeMap attrs_;
  bool is_target_ = false;
  BlockDesc* block_ = nullptr;
};

// Attribute `name` of `op` when it is there and holds a T, else `fallback` (attribute.h).
template <typename T>
T AttrOr(const OpDesc& op, const std::string& name, T fallback) {
  return AttrOr<T>(op.Attrs(), name, std::move(fallback));
}

}  // namespace framework
}  // namespace paddle_like

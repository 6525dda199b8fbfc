#include "framework/op_proto_maker.h"

namespace paddle_like {
namespace framework {

void OpProtoAndCheckerMaker::Build(const std::string& op_type, OpSpec* spec,
                                   AttributeChecker* checker) {
  spec_ = spec;
  checker_ = checker;
  spec_->type = op_type;
  Make();
  AddFrameworkAttrs();
  PL_ENFORCE(!spec_->comment.empty(),
             errors::PreconditionNotMet("op `%s` must document itself with AddComment", op_type));
  spec_ = nullptr;
  checker_ = nullptr;
}

SlotBuilder OpProtoAndCheckerMaker::AddInput(const std::string& name, const std::string& comment) {
  PL_ENFORCE(spec_->FindInput(name) == nullptr,
             errors::AlreadyExists("op `%s` declares input `%s` twice", spec_->type, name));
  spec_->inputs.push_back(OpSlotSpec{name, comment});
  return SlotBuilder(&spec_->inputs, spec_->inputs.size() - 1);
}

SlotBuilder OpProtoAndCheckerMaker::AddOutput(const std::string& name, const std::string& comment) {
  PL_ENFORCE(spec_->FindOutput(name) == nullptr,
             errors::AlreadyExists("op `%s` declares output `%s` twice", spec_->type, name));
  spec_->outputs.push_back(OpSlotSpec{name, comment});
  return SlotBuilder(&spec_->outputs, spec_->outputs.size() - 1);
}

void OpProtoAndCheckerMaker::AddComment(const std::string& comment) { spec_->comment = comment; }

size_t OpProtoAndCheckerMaker::NewAttr(const std::string& name, const std::string& comment,
                                            AttrType type) {
  PL_ENFORCE(spec_->FindAttr(name) == nullptr,
             errors::AlreadyExists("op `%s` declares attribute `%s` twice", spec_->type, name));
  OpAttrSpec attr;
  attr.name = name;
  attr.comment = comment;
  attr.type = type;
  spec_->attrs.push_back(attr);
  checker_->Declare(name, type);
  return spec_->attrs.size() - 1;
}

bool IsFrameworkAttr(const std::string& name) {
  return name == "op_role" || name == "op_role_var" || name == "op_namescope" ||
         name == "op_callstack" || name == "op_device" || name == "with_quant_attr";
}

void OpProtoAndCheckerMaker::AddFrameworkAttrs() {
  // The attribute's index in the spec, or attrs.size() when the op declared it itself.
  const auto add = [this](const std::string& name, const std::string& comment, AttrType type,
                          const Attribute& def) {
    if (spec_->FindAttr(name) != nullptr) return spec_->attrs.size();
    const size_t index = NewAttr(name, comment, type);
    OpAttrSpec& a = spec_->attrs[index];
    a.has_default = true;
    a.default_value = def;
    a.extra = true;
    checker_->SetDefault(name, def);
    return index;
  };
  const size_t role =
      add("op_role", "role of the op in training (forward, backward, optimize, loss ...)",
          AttrType::INT, static_cast<int>(OpRole::kNotSpecified));
  // PaddlePaddle's OpRole values and the combinations it writes: forward, backward, optimize,
  // RPC, distributed, LR schedule, loss (alone, with forward or backward), optimize with LR
  // schedule, and "not specified". Its loader refuses any other value, and so does this one.
  if (role < spec_->attrs.size()) {
    AttrBuilder<int>(&spec_->attrs, role, checker_)
        .InEnum({0x0000, 0x0001, 0x0002, 0x0004, 0x0008, 0x0010, 0x0100, 0x0101, 0x0012, 0x1000});
  }
  add("op_role_var", "[param, grad] pairs of optimizer-related ops", AttrType::STRINGS,
      std::vector<std::string>{});
  add("op_namescope", "name scope the op was built in", AttrType::STRING, std::string("/"));
  add("op_callstack", "where the op was built", AttrType::STRINGS, std::vector<std::string>{});
  add("op_device", "device the op is pinned to (empty: any)", AttrType::STRING, std::string());
  add("with_quant_attr", "whether the op carries quantization attributes", AttrType::BOOLEAN,
      false);
}

}  // namespace framework
}  // namespace paddle_like

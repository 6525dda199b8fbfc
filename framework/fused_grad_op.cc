#include "framework/fused_grad_op.h"

#include <algorithm>
#include <memory>

#include "framework/grad_op_maker.h"

namespace paddle_like {
namespace framework {

namespace {

// A forward slot `decl` names, checked.
const OpSlotSpec& ForwardSlot(const OpSpec& forward, const std::string& grad_type,
                              const std::string& name, bool input, bool output) {
  const OpSlotSpec* s = nullptr;
  if (input) s = forward.FindInput(name);
  if (s == nullptr && output) s = forward.FindOutput(name);
  PL_ENFORCE(s != nullptr,
             errors::InvalidArgument("fused grad op `%s`: op `%s` has no %s slot `%s`", grad_type,
                                     forward.type,
                                     input && output ? "input or output" : (input ? "input" : "output"),
                                     name));
  return *s;
}

}  // namespace

OpRegistrar RegisterFusedGradOp(const std::string& forward_type, const FusedGradDecl& decl) {
  const std::string type = forward_type + "_grad";
  PL_ENFORCE(OpInfoMap::Instance().Has(forward_type),
             errors::NotFound("fused grad op `%s`: its forward op `%s` is not registered "
                              "(register the forward op first)",
                              type, forward_type));
  const OpInfo forward = OpInfoMap::Instance().Get(forward_type);
  OpSpec spec;
  spec.type = type;
  for (const auto& r : decl.reads) {
    OpSlotSpec slot = ForwardSlot(forward.spec, type, r, true, true);
    slot.comment = "The forward op's " + r + ".";
    slot.intermediate = slot.extra = false;
    slot.no_need_buffer =
        std::find(decl.shape_reads.begin(), decl.shape_reads.end(), r) != decl.shape_reads.end();
    spec.inputs.push_back(slot);
  }
  for (const auto& r : decl.shape_reads) {
    PL_ENFORCE(std::find(decl.reads.begin(), decl.reads.end(), r) != decl.reads.end(),
               errors::InvalidArgument("fused grad op `%s`: shape-only slot `%s` is not one of "
                                       "the slots it reads",
                                       type, r));
  }
  // PaddlePaddle's own grad op may pass forward values the formula does not read (Out where
  // the formula reads X, Reserve, XShape ...): accepted, never read, never emitted here.
  for (const auto* slots : {&forward.spec.inputs, &forward.spec.outputs}) {
    for (const OpSlotSpec& f : *slots) {
      if (std::find(decl.reads.begin(), decl.reads.end(), f.name) != decl.reads.end()) continue;
      if (spec.FindInput(f.name) != nullptr) continue;
      OpSlotSpec slot = f;
      slot.comment =
          "Not read; accepted because PaddlePaddle's programs may pass the forward "
          "op's " +
          f.name + ".";
      slot.intermediate = slot.extra = false;
      slot.dispensable = slot.no_need_buffer = true;
      spec.inputs.push_back(slot);
    }
  }
  for (const auto& o : decl.output_grads) {
    const OpSlotSpec& f = ForwardSlot(forward.spec, type, o, false, true);
    OpSlotSpec slot{o + "@GRAD", "Gradient of the forward op's " + o + "."};
    slot.duplicable = f.duplicable;
    spec.inputs.push_back(slot);
  }
  for (const auto& i : decl.input_grads) {
    const OpSlotSpec& f = ForwardSlot(forward.spec, type, i, true, false);
    OpSlotSpec slot{i + "@GRAD", "Gradient of " + i + ", with " + i + "'s shape."};
    slot.duplicable = f.duplicable;
    slot.dispensable = decl.input_grads.size() > 1;
    spec.outputs.push_back(slot);
  }
  spec.attrs = forward.spec.attrs;
  spec.comment = "Gradient of `" + forward_type +
                 "` (fused kernel, first order only; the attributes are the forward op's):\n\n" +
                 decl.formula + "\n";

  OpInfo* info = OpInfoMap::Instance().Insert(type);
  info->creator = [](const std::string& t, const VariableNameMap& in, const VariableNameMap& out,
                     const AttributeMap& attrs) -> std::unique_ptr<OperatorBase> {
    return std::make_unique<OperatorWithKernel>(t, in, out, attrs);
  };
  info->spec = std::move(spec);
  info->checker = forward.checker;
  info->fused_grad_of = forward_type;
  info->fused_grad = decl;
  return OpRegistrar(info);
}

GradOpMakerFn FusedGradMaker(const FusedGradDecl& decl) {
  return [decl](GradOpBuilder* g) {
    bool wanted = false;
    for (const auto& s : decl.input_grads) wanted = wanted || g->WantsInputGrad(s);
    if (!wanted) return;
    const std::string type = g->ForwardType() + "_grad";
    const OpInfo& grad = OpInfoMap::Instance().Get(type);
    VariableNameMap inputs, outputs;
    for (const auto& r : decl.reads) {
      if (g->HasInput(r)) {
        inputs[r] = g->Input(r);
      } else if (g->Forward().HasOutput(r)) {
        inputs[r] = g->Output(r);
      }
    }
    for (const auto& o : decl.output_grads) inputs[o + "@GRAD"] = g->OutputGrad(o);
    for (const auto& i : decl.input_grads) {
      if (g->HasInput(i)) outputs[i + "@GRAD"] = g->InputGrad(i);
    }
    // Every attribute of the computation, as the forward op holds it; the backward pass
    // gives the op its own role.
    AttributeMap attrs;
    for (const auto& a : grad.spec.attrs) {
      if (!IsFrameworkAttr(a.name) && g->Forward().HasAttr(a.name)) {
        attrs[a.name] = g->Forward().GetAttr(a.name);
      }
    }
    g->AddOp(type, inputs, outputs, attrs);
  };
}

}  // namespace framework
}  // namespace paddle_like

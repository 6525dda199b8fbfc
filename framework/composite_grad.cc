#include "framework/composite_grad.h"

#include <map>
#include <set>
#include <string>

#include "framework/op_info.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {

namespace {

// Renames the variables of `op` that `names` maps.
void Rename(const std::map<std::string, std::string>& names, OpDesc* op) {
  auto rename = [&](const VariableNameMap& slots, bool inputs) {
    for (const auto& slot : slots) {
      std::vector<std::string> vars = slot.second;
      for (auto& v : vars) {
        auto it = names.find(v);
        if (it != names.end()) v = it->second;
      }
      if (inputs) {
        op->SetInput(slot.first, vars);
      } else {
        op->SetOutput(slot.first, vars);
      }
    }
  };
  rename(op->Inputs(), true);
  rename(op->Outputs(), false);
}

}  // namespace

void AppendCompositeGrad(GradOpBuilder* g, std::vector<OpDesc> parts) {
  const OpDesc& forward = g->Forward();
  // Gradient names of the composite's inputs ("" where not wanted) and outputs.
  std::map<std::string, std::string> input_grad;
  for (const auto& slot : forward.Inputs()) {
    const std::vector<std::string> grads = g->InputGrad(slot.first);
    for (size_t i = 0; i < slot.second.size(); ++i) {
      input_grad[slot.second[i]] = grads[i] == kEmptyVarName ? "" : grads[i];
    }
  }
  std::set<std::string> outputs;
  for (const auto& slot : forward.Outputs()) {
    for (const auto& v : slot.second) outputs.insert(v);
  }
  // Intermediates get new names in the backward pass, and their parts run again there.
  std::map<std::string, std::string> renamed;
  for (OpDesc& part : parts) {
    const OpInfo& info = OpInfoMap::Instance().Get(part.Type());
    info.checker.Check(part.Type(), part.MutableAttrs());
    part.SetBlock(forward.Block());
    for (const auto& out : part.OutputArgumentNames()) {
      if (outputs.count(out) || input_grad.count(out)) continue;
      PL_ENFORCE(!renamed.count(out),
                 errors::InvalidArgument("op `%s`: the gradient's parts write the intermediate "
                                         "`%s` twice",
                                         forward.Type(), out));
      renamed[out] = g->NewTemp(out);
    }
  }
  for (OpDesc& part : parts) Rename(renamed, &part);
  for (const OpDesc& part : parts) {
    bool writes_intermediate = false;
    for (const auto& out : part.OutputArgumentNames()) {
      writes_intermediate |= !outputs.count(out);
    }
    if (writes_intermediate) g->AddOp(part.Type(), part.Inputs(), part.Outputs(), part.Attrs());
  }
  std::map<std::string, std::string> intermediate_grad;
  for (const auto& kv : renamed) intermediate_grad[kv.second] = g->NewTemp(kv.first + "_grad");
  std::set<std::string> handed_out;  // The gradient names the parts' makers were given.
  auto find_grad = [&](const std::string& var) -> std::string {
    if (auto it = input_grad.find(var); it != input_grad.end()) return it->second;
    if (auto it = intermediate_grad.find(var); it != intermediate_grad.end()) return it->second;
    if (outputs.count(var)) {
      // Read through the composite's builder, so that an output gradient no op produced is
      // filled with zeros.
      for (const auto& slot : forward.Outputs()) {
        for (size_t i = 0; i < slot.second.size(); ++i) {
          if (slot.second[i] == var) return g->OutputGrad(slot.first)[i];
        }
      }
    }
    return "";
  };
  auto grad_name_of = [&](const std::string& var) {
    std::string name = find_grad(var);
    if (!name.empty()) handed_out.insert(name);
    return name;
  };
  int counter = 0;
  for (size_t i = parts.size(); i-- > 0;) {
    const OpDesc& part = parts[i];
    bool any_grad = false;
    for (const auto& in : part.InputArgumentNames()) any_grad |= !find_grad(in).empty();
    if (!any_grad) continue;
    GradOpBuilder part_builder(part, grad_name_of, &counter);
    OpInfoMap::Instance().Get(part.Type()).grad_op_maker(&part_builder);
    // The part's temporaries are numbered apart from the pass's: they get names of the pass.
    std::map<std::string, std::string> temps;
    for (auto& op : part_builder.TakeOps()) {
      for (const auto& out : op->OutputArgumentNames()) {
        if (out == kEmptyVarName || temps.count(out) || handed_out.count(out)) continue;
        temps[out] = g->NewTemp(out.substr(out.rfind('/') + 1));
      }
      Rename(temps, op.get());
      g->AddOp(op->Type(), op->Inputs(), op->Outputs(), op->Attrs());
    }
  }
}

}  // namespace framework
}  // namespace paddle_like

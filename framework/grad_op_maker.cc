#include "framework/grad_op_maker.h"

#include "framework/block_desc.h"
#include "framework/op_info.h"

namespace paddle_like {
namespace framework {

GradOpBuilder::GradOpBuilder(const OpDesc& forward,
                             std::function<std::string(const std::string&)> grad_name_of,
                             int* temp_counter)
    : forward_(forward), grad_name_of_(std::move(grad_name_of)), temp_counter_(temp_counter) {}

std::vector<std::string> GradOpBuilder::OutputGrad(const std::string& slot) const {
  std::vector<std::string> names;
  for (const auto& v : Output(slot)) {
    const std::string g = grad_name_of_(v);
    names.push_back(g.empty() ? kEmptyVarName : g);
    if (!g.empty()) read_output_grads_of_.push_back(v);
  }
  return names;
}

std::vector<std::string> GradOpBuilder::InputGrad(const std::string& slot) const {
  // The op reads only the metadata of a no-need-buffer input: its values have no gradient.
  const bool metadata_only = OpInfoMap::Instance().ReadsOnlyMetadata(forward_.Type(), slot);
  std::vector<std::string> names;
  for (const auto& v : Input(slot)) {
    const std::string g = metadata_only ? std::string() : grad_name_of_(v);
    names.push_back(g.empty() ? kEmptyVarName : g);
  }
  return names;
}

bool GradOpBuilder::WantsInputGrad(const std::string& slot) const {
  for (const auto& g : InputGrad(slot)) {
    if (g != kEmptyVarName) return true;
  }
  return false;
}

void GradOpBuilder::AddOp(const std::string& type, const VariableNameMap& inputs,
                          const VariableNameMap& outputs, const AttributeMap& attrs) {
  VariableNameMap kept;
  for (const auto& kv : outputs) {
    bool any = false;
    for (const auto& n : kv.second) any |= n != kEmptyVarName;
    if (any) kept[kv.first] = kv.second;
  }
  if (kept.empty()) return;
  ops_.push_back(std::make_unique<OpDesc>(type, inputs, kept, attrs));
}

std::string GradOpBuilder::NewTemp(const std::string& hint) {
  // Names an earlier backward pass declared in the block are skipped: a later pass reads
  // them as forward values and must not overwrite them.
  const BlockDesc* block = forward_.Block();
  std::string name;
  do {
    name = forward_.Type() + "_grad/" + hint + "@TMP_" + std::to_string((*temp_counter_)++);
  } while (block != nullptr && block->FindVarRecursive(name) != nullptr);
  return name;
}

void DefaultGradOpMaker(GradOpBuilder* g) {
  VariableNameMap inputs;
  VariableNameMap outputs;
  for (const auto& kv : g->Forward().Inputs()) {
    inputs[kv.first] = kv.second;
    outputs[kv.first + kGradSuffix] = g->InputGrad(kv.first);
  }
  for (const auto& kv : g->Forward().Outputs()) {
    inputs[kv.first] = kv.second;
    inputs[kv.first + kGradSuffix] = g->OutputGrad(kv.first);
  }
  g->AddOp(g->ForwardType() + "_grad", inputs, outputs, g->Attrs());
}

}  // namespace framework
}  // namespace paddle_like

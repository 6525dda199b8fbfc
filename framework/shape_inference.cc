#include "framework/shape_inference.h"

#include "framework/shape_inference_contexts.h"

namespace paddle_like {
namespace framework {

std::vector<DDim> InferShapeContext::GetInputsDim(const std::string& slot) const {
  std::vector<DDim> dims;
  for (size_t i = 0; i < InputSize(slot); ++i) dims.push_back(GetInputDim(slot, i));
  return dims;
}

void InferShapeContext::RequireInput(const std::string& slot) const {
  PL_ENFORCE(HasInput(slot),
             errors::NotFound("op `%s` input `%s`: required but not given", OpType(), slot));
}

void InferShapeContext::RequireOutput(const std::string& slot) const {
  PL_ENFORCE(HasOutput(slot),
             errors::NotFound("op `%s` output `%s`: required but not given", OpType(), slot));
}

// ---- build time ----

VarDesc* BuildTimeInferShapeContext::InputVar(const std::string& slot, size_t i) const {
  const auto& names = op_.Input(slot);
  PL_ENFORCE(i < names.size(), errors::NotFound("op `%s` input `%s`: has %zu variable(s), #%zu requested",
                                                OpType(), slot, names.size(), i));
  VarDesc* v = block_->FindVarRecursive(names[i]);
  PL_ENFORCE(v != nullptr, errors::NotFound("op `%s` input `%s`: variable `%s` is not declared",
                                            OpType(), slot, names[i]));
  return v;
}

VarDesc* BuildTimeInferShapeContext::OutputVar(const std::string& slot, size_t i) const {
  const auto& names = op_.Output(slot);
  PL_ENFORCE(i < names.size(), errors::NotFound("op `%s` output `%s`: has %zu variable(s), #%zu requested",
                                                OpType(), slot, names.size(), i));
  VarDesc* v = block_->FindVarRecursive(names[i]);
  return v != nullptr ? v : block_->Var(names[i]);
}

DDim BuildTimeInferShapeContext::GetInputDim(const std::string& slot, size_t i) const {
  return DDim(InputVar(slot, i)->GetShape());
}

DataType BuildTimeInferShapeContext::GetInputDataType(const std::string& slot, size_t i) const {
  return InputVar(slot, i)->GetDataType();
}

VarKind BuildTimeInferShapeContext::GetInputVarKind(const std::string& slot, size_t i) const {
  return InputVar(slot, i)->GetKind() == VarKind::kSelectedRows ? VarKind::kSelectedRows
                                                                : VarKind::kDenseTensor;
}

void BuildTimeInferShapeContext::SetOutputDim(const std::string& slot, const DDim& dims, size_t i) {
  OutputVar(slot, i)->SetShape(dims.ToVector());
}

void BuildTimeInferShapeContext::SetOutputDataType(const std::string& slot, DataType dtype, size_t i) {
  OutputVar(slot, i)->SetDataType(dtype);
}

void BuildTimeInferShapeContext::ShareLoD(const std::string& in, const std::string& out) {
  if (!HasInput(in) || !HasOutput(out)) return;
  OutputVar(out, 0)->SetLoDLevel(InputVar(in, 0)->GetLoDLevel());
}

// ---- run time ----

size_t RuntimeInferShapeContext::InputSize(const std::string& slot) const {
  auto it = ctx_.inputs.find(slot);
  return it == ctx_.inputs.end() ? 0 : it->second.size();
}

size_t RuntimeInferShapeContext::OutputSize(const std::string& slot) const {
  auto it = ctx_.outputs.find(slot);
  return it == ctx_.outputs.end() ? 0 : it->second.size();
}

const Variable& RuntimeInferShapeContext::InputVariable(const std::string& slot, size_t i) const {
  auto it = ctx_.inputs.find(slot);
  PL_ENFORCE(it != ctx_.inputs.end() && i < it->second.size(),
             errors::NotFound("op `%s` input `%s`: required but not given", OpType(), slot));
  return *it->second[i];
}

const DenseTensor& RuntimeInferShapeContext::InputTensor(const std::string& slot, size_t i) const {
  const Variable& v = InputVariable(slot, i);
  PL_ENFORCE(v.IsType<DenseTensor>(),
             errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected a dense tensor, "
                                     "found %s",
                                     OpType(), slot, op_.InputNames(slot)[i],
                                     v.IsInitialized() ? HeldTypeName(v) : "nothing (was it fed?)"));
  return v.Get<DenseTensor>();
}

DDim RuntimeInferShapeContext::GetInputDim(const std::string& slot, size_t i) const {
  const Variable& v = InputVariable(slot, i);
  if (v.IsType<SelectedRows>()) return v.Get<SelectedRows>().dense_dims();
  return InputTensor(slot, i).dims();
}

DataType RuntimeInferShapeContext::GetInputDataType(const std::string& slot, size_t i) const {
  const Variable& v = InputVariable(slot, i);
  if (v.IsType<SelectedRows>()) return v.Get<SelectedRows>().value().dtype();
  return InputTensor(slot, i).dtype();
}

VarKind RuntimeInferShapeContext::GetInputVarKind(const std::string& slot, size_t i) const {
  return InputVariable(slot, i).IsType<SelectedRows>() ? VarKind::kSelectedRows
                                                        : VarKind::kDenseTensor;
}

void RuntimeInferShapeContext::SetOutputDim(const std::string& slot, const DDim& dims, size_t i) {
  auto it = ctx_.outputs.find(slot);
  PL_ENFORCE(it != ctx_.outputs.end() && i < it->second.size(),
             errors::NotFound("op `%s` output `%s`: not given", OpType(), slot));
  PL_ENFORCE(!dims.HasUnknown(),
             errors::InvalidArgument("op `%s` output `%s` (variable `%s`): run-time shape %s has "
                                     "unknown dims",
                                     OpType(), slot, op_.OutputNames(slot)[i], dims.ToString()));
  const std::string problem = ShapeProblem(dims.data(), static_cast<size_t>(dims.size()), false);
  PL_ENFORCE(problem.empty(), errors::OutOfRange("op `%s` output `%s` (variable `%s`): %s",
                                                 OpType(), slot, op_.OutputNames(slot)[i],
                                                 problem));
  Variable* var = it->second[i];
  if (var->IsType<SelectedRows>()) {
    PL_ENFORCE(dims.size() >= 1,
               errors::InvalidArgument("op `%s` output `%s` (variable `%s`): a SelectedRows needs "
                                       "dims [height, ...], received %s",
                                       OpType(), slot, op_.OutputNames(slot)[i], dims.ToString()));
    var->GetMutable<SelectedRows>()->set_height(dims[0]);
    return;
  }
  PL_ENFORCE(!var->IsInitialized() || var->IsType<DenseTensor>(),
             errors::InvalidArgument("op `%s` output `%s` (variable `%s`): expected a dense tensor, "
                                     "found %s",
                                     OpType(), slot, op_.OutputNames(slot)[i], HeldTypeName(*var)));
  var->GetMutable<DenseTensor>()->Resize(dims);
}

void RuntimeInferShapeContext::ShareLoD(const std::string& in, const std::string& out) {
  if (!HasInput(in) || !HasOutput(out)) return;
  Variable* out_var = ctx_.outputs.at(out)[0];
  if (InputVariable(in, 0).IsType<SelectedRows>() || out_var->IsType<SelectedRows>()) return;
  const LoD lod = InputTensor(in, 0).lod();
  out_var->GetMutable<DenseTensor>()->set_lod(lod);
}

}  // namespace framework
}  // namespace paddle_like

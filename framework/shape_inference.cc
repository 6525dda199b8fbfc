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

const DenseTensor& RuntimeInferShapeContext::InputTensor(const std::string& slot, size_t i) const {
  auto it = ctx_.inputs.find(slot);
  PL_ENFORCE(it != ctx_.inputs.end() && i < it->second.size(),
             errors::NotFound("op `%s` input `%s`: required but not given", OpType(), slot));
  const Variable* v = it->second[i];
  PL_ENFORCE(v->IsType<DenseTensor>(),
             errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected a DenseTensor, received %s",
                                     OpType(), slot, op_.InputNames(slot)[i],
                                     v->IsInitialized() ? VarTypeName(v->Type()) : "nothing (was it fed?)"));
  return v->Get<DenseTensor>();
}

DDim RuntimeInferShapeContext::GetInputDim(const std::string& slot, size_t i) const {
  auto it = ctx_.inputs.find(slot);
  if (it != ctx_.inputs.end() && i < it->second.size() && it->second[i]->IsType<SelectedRows>()) {
    return it->second[i]->Get<SelectedRows>().dense_dims();
  }
  return InputTensor(slot, i).dims();
}

DataType RuntimeInferShapeContext::GetInputDataType(const std::string& slot, size_t i) const {
  auto it = ctx_.inputs.find(slot);
  if (it != ctx_.inputs.end() && i < it->second.size() && it->second[i]->IsType<SelectedRows>()) {
    return it->second[i]->Get<SelectedRows>().value().dtype();
  }
  return InputTensor(slot, i).dtype();
}

void RuntimeInferShapeContext::SetOutputDim(const std::string& slot, const DDim& dims, size_t i) {
  auto it = ctx_.outputs.find(slot);
  PL_ENFORCE(it != ctx_.outputs.end() && i < it->second.size(),
             errors::NotFound("op `%s` output `%s`: not given", OpType(), slot));
  PL_ENFORCE(!dims.HasUnknown(),
             errors::InvalidArgument("op `%s` output `%s`: run-time shape %s has unknown dims",
                                     OpType(), slot, dims.ToString()));
  it->second[i]->GetMutable<DenseTensor>()->Resize(dims);
}

void RuntimeInferShapeContext::ShareLoD(const std::string& in, const std::string& out) {
  if (!HasInput(in) || !HasOutput(out)) return;
  const LoD lod = InputTensor(in, 0).lod();
  ctx_.outputs.at(out)[0]->GetMutable<DenseTensor>()->set_lod(lod);
}

}  // namespace framework
}  // namespace paddle_like

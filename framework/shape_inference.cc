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

namespace {
// Output `var` of `op`'s `slot` takes run-time dims `dims` (already checked to be valid): a
// SelectedRows its height, anything else becomes a DenseTensor of `dims`.
void SetRuntimeOutputDim(const OperatorBase& op, const std::string& slot, size_t i,
                         Variable* var, const DDim& dims) {
  if (var->IsType<SelectedRows>()) {
    PL_ENFORCE(dims.size() >= 1,
               errors::InvalidArgument("op `%s` output `%s` (variable `%s`): a SelectedRows needs "
                                       "dims [height, ...], received %s",
                                       op.Type(), slot, op.OutputNames(slot)[i], dims.ToString()));
    var->GetMutable<SelectedRows>()->set_height(dims[0]);
    return;
  }
  PL_ENFORCE(!var->IsInitialized() || var->IsType<DenseTensor>(),
             errors::InvalidArgument("op `%s` output `%s` (variable `%s`): expected a dense tensor, "
                                     "found %s",
                                     op.Type(), slot, op.OutputNames(slot)[i], HeldTypeName(*var)));
  var->GetMutable<DenseTensor>()->Resize(dims);
}

// SelectedRows carry no LoD: nothing is shared from or to one.
void ShareRuntimeLoD(const Variable& in, Variable* out) {
  if (&in == out || in.IsType<SelectedRows>() || out->IsType<SelectedRows>()) return;
  const LoD& lod = in.Get<DenseTensor>().lod();
  // Comparing costs less than copying, and no allocation.
  if (out->IsType<DenseTensor>() && out->Get<DenseTensor>().lod() == lod) return;
  out->GetMutable<DenseTensor>()->set_lod(lod);
}
}  // namespace

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
  SetRuntimeOutputDim(op_, slot, i, it->second[i], dims);
  if (record_ != nullptr) record_->effects.push_back({it->second[i], nullptr, dims, slot, i});
}

void RuntimeInferShapeContext::ShareLoD(const std::string& in, const std::string& out) {
  if (!HasInput(in) || !HasOutput(out)) return;
  Variable* out_var = ctx_.outputs.at(out)[0];
  const Variable& in_var = InputVariable(in, 0);
  if (!in_var.IsType<SelectedRows>() && !out_var->IsType<SelectedRows>()) {
    InputTensor(in, 0);  // Fails on a variable that holds no tensor.
  }
  ShareRuntimeLoD(in_var, out_var);
  if (record_ != nullptr) record_->effects.push_back({out_var, &in_var, DDim(), out, 0});
}

void InferShapeEffects::Replay(const OperatorBase& op) const {
  for (const Effect& e : effects) {
    const DenseTensor* t = e.out->GetIf<DenseTensor>();
    if (e.lod_from != nullptr) {
      // The usual case, no LoD on either side, needs no sharing.
      const DenseTensor* from = e.lod_from->GetIf<DenseTensor>();
      if (t != nullptr && from != nullptr && t->lod().empty() && from->lod().empty()) continue;
      ShareRuntimeLoD(*e.lod_from, e.out);
      continue;
    }
    // A row-major output that has the dims already (the steady state of a prepared
    // program): resizing it would change nothing.
    if (t != nullptr && t->is_plain() && t->dims() == e.dims) continue;
    SetRuntimeOutputDim(op, e.slot, e.index, e.out, e.dims);
  }
}

}  // namespace framework
}  // namespace paddle_like

#include "framework/var_type_inference.h"

#include "framework/op_info.h"
#include "framework/shape_inference_contexts.h"

namespace paddle_like {
namespace framework {

VarDesc* VarTypeInferenceContext::InputVar(const std::string& slot, size_t i) const {
  const auto& names = op_->Input(slot);
  PL_ENFORCE(i < names.size(), errors::NotFound("op `%s` input `%s`: required but not given",
                                                OpType(), slot));
  VarDesc* v = block_->FindVarRecursive(names[i]);
  PL_ENFORCE(v != nullptr, errors::NotFound("op `%s` input `%s`: variable `%s` is not declared",
                                            OpType(), slot, names[i]));
  return v;
}

DataType VarTypeInferenceContext::GetInputDataType(const std::string& slot, size_t i) const {
  return InputVar(slot, i)->GetDataType();
}

VarKind VarTypeInferenceContext::GetInputKind(const std::string& slot, size_t i) const {
  return InputVar(slot, i)->GetKind();
}

void VarTypeInferenceContext::SetOutputDataType(const std::string& slot, DataType dtype) {
  for (size_t i = 0; i < OutputSize(slot); ++i) SetOutputDataType(slot, dtype, i);
}

void VarTypeInferenceContext::SetOutputKind(const std::string& slot, VarKind kind) {
  for (size_t i = 0; i < OutputSize(slot); ++i) SetOutputKind(slot, kind, i);
}

VarDesc* VarTypeInferenceContext::OutputVar(const std::string& slot, size_t i) const {
  const std::string& name = op_->Output(slot).at(i);
  VarDesc* v = block_->FindVarRecursive(name);
  return v != nullptr ? v : block_->Var(name);
}

void VarTypeInferenceContext::SetOutputDataType(const std::string& slot, DataType dtype,
                                                size_t i) {
  VarDesc* v = OutputVar(slot, i);
  if (v->HasTensorDesc()) v->SetDataType(dtype);
}

void VarTypeInferenceContext::SetOutputKind(const std::string& slot, VarKind kind, size_t i) {
  OutputVar(slot, i)->SetKind(kind);
}

void InferVarTypeAndShape(OpDesc* op, BlockDesc* block) {
  const OpInfo& info = OpInfoMap::Instance().Get(op->Type());
  // Complete and check the attributes first, as op creation does, so inference functions
  // see defaults and coerced types.
  info.checker.Check(op->Type(), op->MutableAttrs());
  for (const auto& name : op->OutputArgumentNames()) {
    if (block->FindVarRecursive(name) == nullptr) block->Var(name);
  }
  VarTypeInferenceContext vctx(op, block);
  if (info.infer_var_type) {
    info.infer_var_type(&vctx);
  } else {
    // The dtype of the first complex input, else of the first floating-point one, else of
    // the first input: the dtype the kernel computes in by default
    // (OperatorWithKernel::IndicateDataType).
    DataType dtype = DataType::UNDEFINED, floating = DataType::UNDEFINED;
    for (const auto& name : op->InputArgumentNames()) {
      const VarDesc* v = block->FindVarRecursive(name);
      if (v == nullptr || !v->HasTensorDesc()) continue;
      const DataType t = v->GetDataType();
      if (platform::IsComplex(t)) {
        floating = t;
        break;
      }
      if (floating == DataType::UNDEFINED && platform::IsFloatingPoint(t)) floating = t;
      if (dtype == DataType::UNDEFINED) dtype = t;
    }
    if (floating != DataType::UNDEFINED) dtype = floating;
    if (dtype != DataType::UNDEFINED) {
      for (const auto& kv : op->Outputs()) vctx.SetOutputDataType(kv.first, dtype);
    }
  }
  if (info.infer_shape) {
    BuildTimeInferShapeContext sctx(*op, block);
    info.infer_shape(&sctx);
  }
}

}  // namespace framework
}  // namespace paddle_like

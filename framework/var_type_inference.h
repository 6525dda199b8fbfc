// Build-time inference of output variable kinds and dtypes, and the build-time pass that
// runs it together with shape inference on an op of a block.
#pragma once

#include <string>

#include "framework/block_desc.h"

namespace paddle_like {
namespace framework {

class VarTypeInferenceContext {
 public:
  VarTypeInferenceContext(OpDesc* op, BlockDesc* block) : op_(op), block_(block) {}

  const std::string& OpType() const { return op_->Type(); }
  const AttributeMap& Attrs() const { return op_->Attrs(); }
  template <typename T>
  const T& Attr(const std::string& name) const {
    return op_->Attr<T>(name);
  }
  bool HasInput(const std::string& slot) const { return op_->HasInput(slot); }
  bool HasOutput(const std::string& slot) const { return op_->HasOutput(slot); }
  size_t InputSize(const std::string& slot) const { return op_->Input(slot).size(); }

  DataType GetInputDataType(const std::string& slot, size_t i = 0) const;
  VarKind GetInputKind(const std::string& slot, size_t i = 0) const;
  size_t OutputSize(const std::string& slot) const { return op_->Output(slot).size(); }
  // Sets every variable of the slot.
  void SetOutputDataType(const std::string& slot, DataType dtype);
  void SetOutputKind(const std::string& slot, VarKind kind);
  // Sets the i-th variable of the slot.
  void SetOutputDataType(const std::string& slot, DataType dtype, size_t i);
  void SetOutputKind(const std::string& slot, VarKind kind, size_t i);

 private:
  VarDesc* InputVar(const std::string& slot, size_t i) const;
  // The i-th variable of an output slot, created in the block when missing.
  VarDesc* OutputVar(const std::string& slot, size_t i) const;
  OpDesc* op_;
  BlockDesc* block_;
};

// Completes the op's attributes (defaults, coercions, checks), runs its registered var-type
// inference (default: every output takes the dtype of the first input that has one), then
// its shape inference on the VarDescs of `block`, creating output VarDescs that are missing.
void InferVarTypeAndShape(OpDesc* op, BlockDesc* block);

}  // namespace framework
}  // namespace paddle_like

// OpInfo: everything registered for one op type, and OpInfoMap, the table of all of them.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "framework/attribute_checker.h"
#include "framework/op_desc.h"
#include "framework/op_spec.h"
#include "framework/shape_inference.h"

namespace paddle_like {
namespace framework {

class OperatorBase;
class VarTypeInferenceContext;

using OpCreator = std::function<std::unique_ptr<OperatorBase>(
    const std::string& type, const VariableNameMap& inputs, const VariableNameMap& outputs,
    const AttributeMap& attrs)>;
using InferShapeFn = std::function<void(InferShapeContext*)>;
using InferVarTypeFn = std::function<void(VarTypeInferenceContext*)>;

class GradOpBuilder;
// Emits the backward OpDescs of one forward op through a GradOpBuilder (grad_op_maker.h).
using GradOpMakerFn = std::function<void(GradOpBuilder* builder)>;

// What one op-version checkpoint changed, as PaddlePaddle's OpVersionDesc records it.
// Attributes, inputs and outputs are never removed: a checkpoint only adds them or changes
// an attribute's meaning, and passes read these to decide which versions they understand.
enum class OpChangeKind {
  kNewAttr,                    // An attribute added, with the default that keeps old behaviour.
  kModifyAttr,                 // An attribute's meaning or default changed.
  kNewInput,                   // A (dispensable) input slot added.
  kNewOutput,                  // A (dispensable) output slot added.
  kBugfixWithBehaviorChanged,  // Same slots and attributes, different results.
};
const char* OpChangeKindName(OpChangeKind kind);

struct OpVersionChange {
  OpChangeKind kind;
  std::string name;  // The attribute or slot; empty for a bug fix.
  std::string remark;
  bool has_default = false;  // kNewAttr / kModifyAttr: `default_value` is set.
  Attribute default_value;
};

// One version step of an op: a note and the changes it made.
struct OpVersionCheckpoint {
  std::string note;
  std::vector<OpVersionChange> changes;
};

// How a fused grad op (`<forward>_grad`, fused_grad_op.h) relates to its forward op.
struct FusedGradDecl {
  std::vector<std::string> reads;                   // Forward input or output slots read.
  std::vector<std::string> output_grads = {"Out"};  // Forward outputs whose gradients it reads.
  std::vector<std::string> input_grads = {"X"};     // Forward inputs whose gradients it writes.
  std::string formula;                              // The gradient, for the op doc (LaTeX).
  // Of `reads`, those read for their dims only (no-need-buffer: their memory may be reused
  // before the grad op runs).
  std::vector<std::string> shape_reads = {};
};

struct OpInfo {
  OpCreator creator;
  OpSpec spec;
  AttributeChecker checker;
  InferShapeFn infer_shape;
  InferVarTypeFn infer_var_type;
  GradOpMakerFn grad_op_maker;
  std::vector<OpVersionCheckpoint> checkpoints;
  // Set for a fused grad op declared from its forward op (fused_grad_op.h).
  std::string fused_grad_of;
  FusedGradDecl fused_grad;

  // The op's version id: the number of checkpoints (0 without any).
  int version() const { return static_cast<int>(checkpoints.size()); }
};

class OpInfoMap {
 public:
  static OpInfoMap& Instance();

  bool Has(const std::string& type) const { return map_.count(type) > 0; }
  // NotFoundError "op `foo` is not registered" (with the closest registered names).
  const OpInfo& Get(const std::string& type) const;
  OpInfo* GetMutable(const std::string& type);
  // Whether op `type` reads only the metadata of input `slot` (OpSpec::ReadsOnlyMetadata);
  // false for an unregistered op.
  bool ReadsOnlyMetadata(const std::string& type, const std::string& slot) const;
  // AlreadyExistsError on a second registration of `type`.
  OpInfo* Insert(const std::string& type);
  const std::map<std::string, OpInfo>& map() const { return map_; }

 private:
  std::map<std::string, OpInfo> map_;
};

}  // namespace framework
}  // namespace paddle_like

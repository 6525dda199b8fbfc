// Operators. An operator is stateless: it holds only its type, slots and attributes. Run()
// takes its variables from a Scope and its compute resources from the DeviceContextPool.
//
// OperatorBase: ops that run themselves (feed, fetch, control flow).
// OperatorWithKernel: ops whose work is done by one of several registered kernels, chosen by
// KernelKey (see kernel_registry.h). The executor prepares them once (PreparedOp) and runs
// them many times; Run(scope, place) is the one-shot path for tests and tools.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "framework/execution_profile.h"
#include "framework/kernel_registry.h"
#include "framework/name_ref.h"
#include "framework/op_info.h"
#include "framework/scope.h"
#include "framework/slot_map.h"
#include "platform/device_context.h"

namespace paddle_like {
namespace framework {

using platform::Place;

class BlockDesc;

class OperatorBase {
 public:
  OperatorBase(const std::string& type, const VariableNameMap& inputs,
               const VariableNameMap& outputs, const AttributeMap& attrs);
  virtual ~OperatorBase() = default;
  OperatorBase(const OperatorBase&) = delete;  // The attribute index points into attrs_.
  OperatorBase& operator=(const OperatorBase&) = delete;

  const std::string& Type() const { return type_; }
  const VariableNameMap& Inputs() const { return inputs_; }
  const VariableNameMap& Outputs() const { return outputs_; }
  const AttributeMap& Attrs() const { return attrs_; }
  const OpInfo& Info() const { return *info_; }

  // The single variable name of a slot ("" if absent); InvalidArgumentError if it has several.
  std::string Input(const std::string& slot) const;
  std::string Output(const std::string& slot) const;
  const std::vector<std::string>& InputNames(const std::string& slot) const;
  const std::vector<std::string>& OutputNames(const std::string& slot) const;
  bool HasInput(const std::string& slot) const;
  bool HasOutput(const std::string& slot) const;
  // False for input slots declared AsNoNeedBuffer (only metadata is read).
  bool NeedsBuffer(const std::string& input_slot) const;

  // The attribute `name` of type T; NotFoundError or InvalidArgumentError naming the op.
  // Reached through an index built with the op (NameRef): no string or map on the way.
  template <typename T>
  const T& Attr(NameRef name) const {
    const Attribute* a = FindAttr(name);
    if (a == nullptr) ThrowNoAttr(name);
    const T* v = std::get_if<T>(a);
    if (v == nullptr) ThrowAttrType(name, AttrTypeOf<T>(), GetAttrType(*a));
    return *v;
  }
  bool HasAttr(NameRef name) const { return FindAttr(name) != nullptr; }

  virtual bool HasKernels() const { return false; }

  // Runs the op once on `place`. Output variables are created in `scope` if absent.
  void Run(const Scope& scope, const Place& place) const;

  // "quadratic(X=[x]) -> (Out=[y])" for messages.
  std::string DebugString() const;

  // The block of the program the op was created from (OpRegistry::CreateOp(desc)); nullptr for
  // an op made from its type, slots and attributes alone. Control-flow ops reach their
  // sub-blocks through it, so the program must outlive the op.
  const BlockDesc* Block() const { return block_; }
  void SetBlock(const BlockDesc* block) { block_ = block; }

 protected:
  virtual void RunImpl(const Scope& scope, const Place& place) const = 0;

 private:
  const Attribute* FindAttr(NameRef name) const {
    for (const AttrEntry& e : attr_index_) {
      if (name.Matches(e.hash, *e.name)) return e.value;
    }
    return nullptr;
  }
  [[noreturn]] void ThrowNoAttr(NameRef name) const;
  [[noreturn]] void ThrowAttrType(NameRef name, AttrType expected, AttrType found) const;

  std::string type_;
  VariableNameMap inputs_;
  VariableNameMap outputs_;
  AttributeMap attrs_;
  const OpInfo* info_ = nullptr;
  // attrs_ by name hash, pointing into attrs_ (whose nodes never move: it is never changed).
  struct AttrEntry {
    uint64_t hash;
    const std::string* name;
    const Attribute* value;
  };
  std::vector<AttrEntry> attr_index_;
  const BlockDesc* block_ = nullptr;
};

// The variables bound to an op's slots for one scope, resolved once.
struct RuntimeContext {
  SlotMap inputs;
  SlotMap outputs;
  // Inputs that live in a scope enclosing the op's: the parameter scope of an executor or a
  // predictor (persistable variables, written only by loads and optimizer steps). Kernels
  // pre-pack only these; activations change every run.
  std::set<const Variable*> parameters;
  // Outputs the executor lets a kernel leave in its library's own layout: temporaries whose
  // every reader accepts that layout (layout_planning.h). Everything else is row-major.
  std::set<const Variable*> opaque_outputs;
};

class ExecutionContext {
 public:
  // `prepacks`, when given, collects the NotePrepack records of this run.
  ExecutionContext(const OperatorBase& op, const RuntimeContext& ctx,
                   const platform::DeviceContext& device_context, const KernelKey& key,
                   std::vector<TransformRecord>* prepacks = nullptr)
      : op_(op), ctx_(ctx), device_context_(device_context), key_(key), prepacks_(prepacks) {}

  const OperatorBase& op() const { return op_; }
  const std::string& Type() const { return op_.Type(); }
  const KernelKey& kernel_key() const { return key_; }
  Place GetPlace() const { return device_context_.GetPlace(); }

  template <typename ContextT = platform::DeviceContext>
  const ContextT& device_context() const {
    return static_cast<const ContextT&>(device_context_);
  }

  template <typename T>
  const T& Attr(NameRef name) const {
    return op_.Attr<T>(name);
  }
  bool HasAttr(NameRef name) const { return op_.HasAttr(name); }

  bool HasInput(NameRef slot) const;
  bool HasOutput(NameRef slot) const;
  size_t InputSize(NameRef slot) const;
  size_t OutputSize(NameRef slot) const;

  // The i-th tensor of an input slot; nullptr if the slot is absent (dispensable input).
  // PreconditionNotMetError if the variable holds no data; InvalidArgumentError if it holds
  // something else, such as a SelectedRows (sparse-aware kernels read InputVar instead).
  const DenseTensor* Input(NameRef slot, size_t i = 0) const {
    const Variable* var = InputVar(slot, i);
    if (var == nullptr) return nullptr;
    // The usual case, checked inline: a dense tensor holding data.
    const DenseTensor* t = var->GetIf<DenseTensor>();
    if (t != nullptr && t->initialized()) return t;
    return CheckedInput(*var, slot, i);
  }
  std::vector<const DenseTensor*> MultiInput(NameRef slot) const;
  // The i-th tensor of an output slot; nullptr if absent. InvalidArgumentError if the
  // variable holds something other than a DenseTensor (e.g. it is declared SelectedRows).
  DenseTensor* Output(NameRef slot, size_t i = 0) const {
    Variable* var = OutputVar(slot, i);
    if (var == nullptr) return nullptr;
    if (var->IsInitialized() && !var->IsType<DenseTensor>()) ThrowNotDenseOutput(*var, slot, i);
    return var->GetMutable<DenseTensor>();
  }
  std::vector<DenseTensor*> MultiOutput(NameRef slot) const;

  const Variable* InputVar(NameRef slot, size_t i = 0) const {
    const auto it = ctx_.inputs.find(slot);
    return it != ctx_.inputs.end() && i < it->second.size() ? it->second[i] : nullptr;
  }
  Variable* OutputVar(NameRef slot, size_t i = 0) const {
    const auto it = ctx_.outputs.find(slot);
    return it != ctx_.outputs.end() && i < it->second.size() ? it->second[i] : nullptr;
  }

  // Variable names, for messages.
  std::string InputName(NameRef slot, size_t i = 0) const;
  std::string OutputName(NameRef slot, size_t i = 0) const;

  // Whether the i-th variable of input `slot` is a parameter (RuntimeContext::parameters).
  bool InputIsParameter(NameRef slot, size_t i = 0) const;
  // A kernel class (op_kernel.h) converted constant input `slot` into its own layout, writing
  // `bytes`; `how` says into what ("reorder to oneDNN weights format ..."). Counted by
  // PrepackCount() and shown in profiles next to the data transforms.
  void NotePrepack(NameRef slot, size_t i, size_t bytes, const std::string& how) const;
  // Whether the i-th variable of output `slot` may be written in the kernel library's own
  // layout (RuntimeContext::opaque_outputs); otherwise the kernel writes it row-major.
  bool OutputMayBeOpaque(NameRef slot, size_t i = 0) const;

  // Runs `fn` on a context whose inputs in an opaque layout are replaced by row-major copies:
  // for a library kernel that falls back to row-major code (a plain kernel, an unusual
  // shape). Outputs stay the same variables.
  void WithPlainInputs(const std::function<void(const ExecutionContext&)>& fn) const;

 private:
  // Input() for what the inline check did not pass: a no-need-buffer input whose buffer was
  // freed, or an error naming the op, slot and variable.
  const DenseTensor* CheckedInput(const Variable& var, NameRef slot, size_t i) const;
  [[noreturn]] void ThrowNotDenseOutput(const Variable& var, NameRef slot, size_t i) const;

  const OperatorBase& op_;
  const RuntimeContext& ctx_;
  const platform::DeviceContext& device_context_;
  KernelKey key_;
  std::vector<TransformRecord>* prepacks_;
};

class OperatorWithKernel : public OperatorBase {
 public:
  using OperatorBase::OperatorBase;

  bool HasKernels() const override { return true; }

  // The dtype the kernel should compute in. Default: the dtype of the first complex input,
  // else of the first floating-point one, else of the first input (inputs that hold data, or
  // no-need-buffer ones, in slot-name order). Ops whose kernel dtype comes
  // from an attribute (fill_constant, cast) override this.
  virtual DataType IndicateDataType(const RuntimeContext& ctx) const;
  // The dtype of the first variable of input `slot` (a SelectedRows counts by its value), for
  // IndicateDataType overrides; call it after the inputs were checked to hold data (a
  // no-need-buffer input needs only its metadata).
  // NotFoundError naming the op and slot when the slot is absent.
  DataType InputDataType(const RuntimeContext& ctx, const std::string& slot) const;
  // The layout the kernel should expect (default kAny).
  virtual DataLayout IndicateLayout(const RuntimeContext& ctx) const { return DataLayout::kAny; }
  // Whether an input of `slot` whose dtype differs from the kernel's is cast to it. Default:
  // floating inputs are cast; integer/bool inputs (indices, labels) are left as they are.
  virtual bool CastsInput(const std::string& slot, DataType from, DataType to) const;

  void InferShape(InferShapeContext* ctx) const;

 protected:
  void RunImpl(const Scope& scope, const Place& place) const override;
};

}  // namespace framework
}  // namespace paddle_like

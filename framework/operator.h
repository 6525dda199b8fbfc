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
#include "framework/op_info.h"
#include "framework/scope.h"
#include "platform/device_context.h"

namespace paddle_like {
namespace framework {

using platform::Place;

class OperatorBase {
 public:
  OperatorBase(const std::string& type, const VariableNameMap& inputs,
               const VariableNameMap& outputs, const AttributeMap& attrs);
  virtual ~OperatorBase() = default;

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

  template <typename T>
  const T& Attr(const std::string& name) const {
    auto it = attrs_.find(name);
    PL_ENFORCE(it != attrs_.end(), errors::NotFound("op `%s` has no attribute `%s`", type_, name));
    const T* v = std::get_if<T>(&it->second);
    PL_ENFORCE(v != nullptr, errors::InvalidArgument(
                                 "op `%s` attribute `%s`: expected type %s, received %s", type_,
                                 name, AttrTypeName(AttrTypeOf<T>()),
                                 AttrTypeName(GetAttrType(it->second))));
    return *v;
  }

  virtual bool HasKernels() const { return false; }

  // Runs the op once on `place`. Output variables are created in `scope` if absent.
  void Run(const Scope& scope, const Place& place) const;

  // "quadratic(X=[x]) -> (Out=[y])" for messages.
  std::string DebugString() const;

 protected:
  virtual void RunImpl(const Scope& scope, const Place& place) const = 0;

 private:
  std::string type_;
  VariableNameMap inputs_;
  VariableNameMap outputs_;
  AttributeMap attrs_;
  const OpInfo* info_ = nullptr;
};

// The variables bound to an op's slots for one scope, resolved once.
struct RuntimeContext {
  std::map<std::string, std::vector<Variable*>> inputs;
  std::map<std::string, std::vector<Variable*>> outputs;
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
  const T& Attr(const std::string& name) const {
    return op_.Attr<T>(name);
  }
  bool HasAttr(const std::string& name) const { return op_.Attrs().count(name) > 0; }

  bool HasInput(const std::string& slot) const;
  bool HasOutput(const std::string& slot) const;
  size_t InputSize(const std::string& slot) const;
  size_t OutputSize(const std::string& slot) const;

  // The i-th tensor of an input slot; nullptr if the slot is absent (dispensable input).
  // PreconditionNotMetError if the variable holds no data; InvalidArgumentError if it holds
  // something else, such as a SelectedRows (sparse-aware kernels read InputVar instead).
  const DenseTensor* Input(const std::string& slot, size_t i = 0) const;
  std::vector<const DenseTensor*> MultiInput(const std::string& slot) const;
  // The i-th tensor of an output slot; nullptr if absent. InvalidArgumentError if the
  // variable holds something other than a DenseTensor (e.g. it is declared SelectedRows).
  DenseTensor* Output(const std::string& slot, size_t i = 0) const;
  std::vector<DenseTensor*> MultiOutput(const std::string& slot) const;

  const Variable* InputVar(const std::string& slot, size_t i = 0) const;
  Variable* OutputVar(const std::string& slot, size_t i = 0) const;

  // Variable names, for messages.
  std::string InputName(const std::string& slot, size_t i = 0) const;
  std::string OutputName(const std::string& slot, size_t i = 0) const;

  // Whether the i-th variable of input `slot` is a parameter (RuntimeContext::parameters).
  bool InputIsParameter(const std::string& slot, size_t i = 0) const;
  // A kernel class (op_kernel.h) converted constant input `slot` into its own layout, writing
  // `bytes`; `how` says into what ("reorder to oneDNN weights format ..."). Counted by
  // PrepackCount() and shown in profiles next to the data transforms.
  void NotePrepack(const std::string& slot, size_t i, size_t bytes, const std::string& how) const;
  // Whether the i-th variable of output `slot` may be written in the kernel library's own
  // layout (RuntimeContext::opaque_outputs); otherwise the kernel writes it row-major.
  bool OutputMayBeOpaque(const std::string& slot, size_t i = 0) const;

  // Runs `fn` on a context whose inputs in an opaque layout are replaced by row-major copies:
  // for a library kernel that falls back to row-major code (a plain kernel, an unusual
  // shape). Outputs stay the same variables.
  void WithPlainInputs(const std::function<void(const ExecutionContext&)>& fn) const;

 private:
  const std::vector<Variable*>* InputVars(const std::string& slot) const;
  const std::vector<Variable*>* OutputVars(const std::string& slot) const;

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

  // The dtype the kernel should compute in. Default: the dtype of the first initialized
  // floating-point input (else the first initialized input). Ops whose kernel dtype comes
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

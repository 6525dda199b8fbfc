// OpKernel: a kernel that keeps state between runs of one prepared op.
//
// Plain kernels are free functions (KernelFn): they see only the ExecutionContext. A kernel
// that has work worth doing once (creating library primitives, choosing an algorithm,
// sizing a workspace, reordering a weight into the layout it computes fastest from, as ONNX
// Runtime's PrePack does) is a class registered with RegisterKernelClass<K>:
//
//   Prepare(ctx)  before the first Compute and again whenever an input's dims change;
//   Compute(ctx)  every run.
//
// State derived from an input's values, not only its dims (a pre-packed weight), is keyed
// by a VariableStamp and rebuilt when the variable has been written since (an optimizer
// step, a reload): inference packs once, training once per update. A kernel reports each
// such packing with ExecutionContext::NotePrepack, so profiles and tests can count them.
//
// Ownership and threading: the PreparedOp that chose the kernel owns the object; it is run
// by one thread at a time (a PreparedProgram's rule). Kernels never share objects.
#pragma once

#include <cstdint>
#include <memory>

#include "framework/ddim.h"

namespace paddle_like {
namespace framework {

class ExecutionContext;
class Variable;

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  // Called with the inputs of the coming Compute. Default: nothing to prepare.
  virtual void Prepare(const ExecutionContext& ctx);
  virtual void Compute(const ExecutionContext& ctx) = 0;
};

using KernelFactory = std::unique_ptr<OpKernel> (*)();

template <typename K>
std::unique_ptr<OpKernel> MakeKernel() {
  return std::make_unique<K>();
}

// Which state of a variable a derived value was computed from: the variable, its write
// version (Variable::version), the tensor's buffer and dims. Default-constructed stamps
// match nothing.
class VariableStamp {
 public:
  VariableStamp() = default;
  explicit VariableStamp(const Variable& var);
  bool operator==(const VariableStamp& o) const {
    return var_ != nullptr && var_ == o.var_ && version_ == o.version_ && data_ == o.data_ &&
           dims_ == o.dims_;
  }
  bool operator!=(const VariableStamp& o) const { return !(*this == o); }

 private:
  const Variable* var_ = nullptr;
  uint64_t version_ = 0;
  const void* data_ = nullptr;
  DDim dims_;
};

// Number of constant inputs packed by kernels (NotePrepack) in this process so far.
int64_t PrepackCount();
// Adds one to PrepackCount (ExecutionContext::NotePrepack calls it).
void CountPrepack();

}  // namespace framework
}  // namespace paddle_like

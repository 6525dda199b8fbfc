// PreparedOp: one operator bound to the variables of a scope, with its kernel chosen once.
//
// Construction resolves every slot to Variable* (no name lookups afterwards). The kernel is
// chosen on the first Run, when input dtypes are known, from the flags and the op's
// placement (KernelChoiceOptions::ForOp), and re-chosen only when the guard sees an input's
// dtype or place change. Input transforms (cast, place copy) are planned with the choice
// and applied on each run into private variables. A kernel class (op_kernel.h) is created
// with the choice and prepared again whenever an input's dims change.
//
// Shape inference runs again only when an input's dims, dtype or kind changed since the last
// run (or the kernel was chosen again); otherwise its recorded effects on the outputs are
// replayed (InferShapeEffects), which costs no attribute parsing or slot lookups.
//
// Layouts: an input in a library's own layout (DenseTensor::opaque_layout) reaches the
// kernel as it is only when the kernel declares that slot (KernelInfo::opaque_inputs) and
// the op does not also write that variable; otherwise a planned transform hands the kernel a
// row-major copy. Outputs may stay in a library layout only where the executor allows it
// (`opaque_outputs`); a library kernel's other outputs are checked to be row-major.
//
// In place: the executor names the (input, output) pairs whose input nothing reads after
// this op (SetInPlaceCandidates). When the chosen kernel declares the pair
// (KernelInfo::inplace), the input reaches the kernel untransformed (row-major, or in a
// library layout without padding that the kernel accepts), its buffer is held by no one
// else, and the output's inferred size equals the input's, the
// output is given the input's buffer to write into (DenseTensor::ShareBufferInPlace).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "framework/execution_profile.h"
#include "framework/operator.h"
#include "framework/shape_inference_contexts.h"

namespace paddle_like {
namespace framework {

class PreparedOp {
 public:
  // Binds `op` to `scope`. Input variables must exist (NotFoundError naming the op, slot and
  // variable otherwise); missing output variables are created in `scope`.
  // Inputs found in a scope enclosing `scope` count as parameters (RuntimeContext).
  // `opaque_outputs`: names of output variables the kernel may leave in its library's layout.
  PreparedOp(const OperatorBase& op, Scope* scope, const Place& place,
             const OpPlacement& placement = OpPlacement(),
             const std::set<std::string>& opaque_outputs = {});
  ~PreparedOp();

  void Run();

  const OperatorBase& op() const { return op_; }
  // The chosen kernel; nullptr before the first Run and for ops without kernels.
  const KernelInfo* kernel() const { return kernel_; }
  // How many times a kernel was chosen (1 after any number of same-typed runs).
  int kernel_choices() const { return kernel_choices_; }
  const OpPlacement& placement() const { return placement_; }
  // The input transforms and kernel pre-packs of the last run (kind and bytes each).
  std::vector<TransformRecord> TransformRecords() const;
  // "name: layout" for each output the last run left in a library layout.
  std::vector<std::string> OpaqueOutputs() const;

  struct InPlaceCandidate {
    std::string in_slot;
    size_t in_index;
    std::string out_slot;
    size_t out_index;
  };
  void SetInPlaceCandidates(std::vector<InPlaceCandidate> candidates);
  // "x -> y" for each output the last run wrote over its input's buffer.
  std::vector<std::string> InPlaceRecords() const;

 private:
  struct InputSignature {
    const Variable* var;
    DataType dtype;
    Place place;
    bool opaque;  // In a library layout.
    // The dims shape inference last saw, when the input was a DenseTensor (SteadyState).
    bool dense = false;
    DDim dims;
  };
  struct Transform {
    std::string slot;
    size_t index;
    const Variable* source;
    std::unique_ptr<Variable> target;
    DataType dtype;
    std::string reorder_from;  // The source's library layout, when it is converted to row-major.
  };

  // What run-time shape inference reads of one input.
  struct InputShape {
    int type;  // Variable::Type().
    DDim dims;
    DataType dtype;
    bool operator==(const InputShape& o) const {
      return type == o.type && dtype == o.dtype && dims == o.dims;
    }
  };

  bool GuardHolds() const;
  // Whether this run may skip the guard and shape inference and only replay the inferred
  // effects: no input transforms, and every input a DenseTensor with the dtype, place,
  // layout kind and dims of the last inference. One pass over the inputs, where the guard
  // and InferShape's own comparison took two.
  bool SteadyState() const;
  // Notes each input's dims for SteadyState after shape inference ran.
  void RecordInputDims();
  // Runs shape inference, or replays its last effects when its inputs are unchanged.
  void InferShape();
  bool IsOutput(const Variable* v) const;
  void ChooseKernel();
  // Prepares the kernel object when the kernel's input dims differ from the last Prepare.
  void PrepareKernelObject(const ExecutionContext& ctx);
  void ApplyTransforms();
  // The in-place candidates whose (input, output) pair the chosen kernel declares.
  void MatchInPlaceCandidates();
  // Gives outputs their dying inputs' buffers where the kernel and the sizes allow it; the
  // tensors granted are listed in granted_ (EndInPlace after the kernel).
  void GrantInPlace();
  // Converts to row-major any output a library kernel left in its layout without leave.
  void EnsurePlainOutputs();
  void CheckNanInf() const;

  const OperatorBase& op_;
  const OperatorWithKernel* kernel_op_;
  Scope* scope_;
  Place place_;
  OpPlacement placement_;
  RuntimeContext ctx_;         // Slots bound to scope variables.
  RuntimeContext kernel_ctx_;  // The same with transformed inputs swapped in.
  std::vector<const Variable*> kernel_inputs_;  // kernel_ctx_'s inputs, slot by slot.
  const KernelInfo* kernel_ = nullptr;
  const platform::DeviceContext* device_context_ = nullptr;
  std::vector<InputSignature> signature_;
  std::vector<InputShape> inferred_from_;  // The kernel inputs the last inference saw.
  InferShapeEffects inferred_;             // What it did; valid when shape_inferred_.
  bool shape_inferred_ = false;
  std::vector<Transform> transforms_;
  std::unique_ptr<OpKernel> kernel_object_;      // For kernel classes.
  std::vector<DDim> prepared_dims_;              // Input dims of the last Prepare.
  bool kernel_prepared_ = false;
  std::vector<TransformRecord> prepacks_;        // NotePrepack records of the last run.
  int kernel_choices_ = 0;
  std::vector<InPlaceCandidate> in_place_candidates_;
  // A candidate the chosen kernel declares and reads untransformed, resolved to variables.
  struct InPlacePair {
    size_t candidate;
    const Variable* in;
    Variable* out;
  };
  std::vector<InPlacePair> kernel_in_place_;
  std::vector<DenseTensor*> granted_;  // Outputs writing over their input in this run.
  std::vector<size_t> in_place_used_;  // Candidates granted in the last run (no strings per run).
};

}  // namespace framework
}  // namespace paddle_like

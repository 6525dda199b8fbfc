// Helpers shared by the collective ops: the communicator an op's `ring_id` names on the
// kernel's device, the checks every collective kernel makes, and the attributes and slots of
// the two generations of PaddlePaddle's collective ops (2.x: `c_allreduce_sum` with X/Out and
// use_calc_stream; 3.x: `all_reduce` with x/out).
#pragma once

#include <string>

#include "operators/common.h"
#include "platform/collective/comm_registry.h"

namespace paddle_like {
namespace operators {

using platform::collective::Communicator;
using platform::collective::ReduceOp;

// The communicator of the op's `ring_id` attribute (0 when absent) on the kernel's place;
// errors name the op. With `wait`, after the collectives submitted to its communication
// thread have run (a kernel that runs a collective itself keeps the ring's order).
Communicator* RingOf(const ExecutionContext& ctx, bool wait = true);
Communicator* RingOf(const framework::OperatorBase& op, const platform::Place& place,
                     bool wait = true);

// Checks an `nranks` attribute (0 or absent: not given) against the ring's size.
void CheckNranksAttr(const ExecutionContext& ctx, const Communicator& comm);

// Slot names: "X"/"Out" for the 2.x ops (`c_*`, `barrier`), "x"/"out" for the 3.x ones.
bool IsLowercaseCollective(const std::string& op_type);
inline const char* InSlot(const std::string& op_type) {
  return IsLowercaseCollective(op_type) ? "x" : "X";
}
inline const char* OutSlot(const std::string& op_type) {
  return IsLowercaseCollective(op_type) ? "out" : "Out";
}

// Out takes X's dims and LoD, with the slot names of the op's generation.
void SameShapeCollectiveInferShape(InferShapeContext* ctx);

class CollectiveOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  // A collective moves the dtype it is given: casting would change what other ranks see.
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

// Makers of collective ops: the slots of the op's generation and its ring attributes.
class CollectiveOpMaker : public OpProtoAndCheckerMaker {
 protected:
  // X/Out (or x/out) with these descriptions, ring_id, and for 2.x ops use_calc_stream.
  void AddSlotsAndRing(bool lowercase, const std::string& in_doc, const std::string& out_doc);
  void AddNranksAttr();
};

}  // namespace operators
}  // namespace paddle_like

#include "operators/collective/collective_util.h"

#include "platform/enforce.h"

namespace paddle_like {
namespace operators {

Communicator* RingOf(const framework::OperatorBase& op, const platform::Place& place,
                     bool wait) {
  const int ring_id = op.HasAttr("ring_id") ? op.Attr<int>("ring_id") : 0;
  PL_ENFORCE(ring_id >= 0, errors::InvalidArgument("op `%s`: attribute `ring_id` must be >= 0, "
                                                   "found %d",
                                                   op.Type(), ring_id));
  return platform::WithErrorContext(platform::Sprintf("op `%s`", op.Type()), [&] {
    Communicator* comm = platform::collective::CommRegistry::Instance().Get(ring_id, place);
    if (wait) comm->WaitAll();
    return comm;
  });
}

Communicator* RingOf(const ExecutionContext& ctx, bool wait) {
  return RingOf(ctx.op(), ctx.GetPlace(), wait);
}

void CheckNranksAttr(const ExecutionContext& ctx, const Communicator& comm) {
  if (!ctx.HasAttr("nranks")) return;
  const int nranks = ctx.Attr<int>("nranks");
  PL_ENFORCE(nranks <= 0 || nranks == comm.nranks(),
             errors::InvalidArgument("op `%s`: attribute `nranks` is %d but %s has %d ranks",
                                     ctx.Type(), nranks, comm.Describe(), comm.nranks()));
}

bool IsLowercaseCollective(const std::string& op_type) {
  return op_type.rfind("c_", 0) != 0 && op_type != "barrier";
}

void SameShapeCollectiveInferShape(InferShapeContext* ctx) {
  const char* in = InSlot(ctx->OpType());
  const char* out = OutSlot(ctx->OpType());
  ctx->SetOutputDim(out, ctx->GetInputDim(in));
  ctx->ShareLoD(in, out);
}

void CollectiveOpMaker::AddSlotsAndRing(bool lowercase, const std::string& in_doc,
                                        const std::string& out_doc) {
  AddInput(lowercase ? "x" : "X", in_doc);
  AddOutput(lowercase ? "out" : "Out", out_doc);
  AddAttr<int>("ring_id", "The communicator ring (ranks taking part) to run on.")
      .SetDefault(0)
      .GreaterThan(-1);
  if (!lowercase) {
    AddAttr<bool>("use_calc_stream",
                  "GPU: run on the computation stream instead of the communication stream "
                  "(host collectives finish before the op returns either way).")
        .SetDefault(false);
  }
}

void CollectiveOpMaker::AddNranksAttr() {
  AddAttr<int>("nranks", "Ranks of the ring; checked against the communicator when > 0.")
      .SetDefault(0);
}

}  // namespace operators
}  // namespace paddle_like

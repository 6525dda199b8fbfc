// The ops that set up and order collectives: c_gen_nccl_id and c_comm_init (PaddlePaddle's
// communicator set-up in a collective startup program), c_comm_init_all, barrier, and the
// stream-ordering ops c_sync_calc_stream, c_sync_comm_stream, c_wait_comm, c_wait_compute.
//
// Host (Gloo) communicators meet through the job's rendezvous store, so c_gen_nccl_id has
// nothing to exchange on the CPU and c_comm_init only makes the ring's communicator. The
// ring's communication thread plays the part of the GPU's communication stream.
#include <string>
#include <vector>

#include "operators/collective/collective_util.h"
#include "operators/op_family.h"
#include "platform/collective/device_communicator.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::OperatorBase;
using framework::Scope;
using framework::Variable;

Variable* FindVarOrThrow(const OperatorBase& op, const Scope& scope, const std::string& slot,
                         const std::string& name) {
  Variable* var = scope.FindVar(name);
  PL_ENFORCE(var != nullptr, errors::NotFound("op `%s` slot `%s`: variable `%s` not found",
                                              op.Type(), slot, name));
  return var;
}

class CGenNcclIdOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddOutput("Out", "The communicator id variable (RAW) that c_comm_init reads.");
    AddAttr<std::string>("endpoint", "This trainer's host:port.").SetDefault("");
    AddAttr<std::vector<std::string>>("other_endpoints", "The other trainers' host:port.")
        .SetDefault({});
    AddAttr<int>("rank", "This trainer's rank.").SetDefault(0);
    AddAttr<int>("ring_id", "The ring the id is for.").SetDefault(0);
    AddComment(R"DOC(
c_gen_nccl_id operator: produces the id that ranks share to build a GPU communicator.

$$Out = id(ring)$$

Communicators meet through the job's rendezvous store instead (rank 0 of a GPU ring puts the
NCCL id there when c_comm_init makes it), so the op only declares Out.
)DOC");
  }
};

class CGenNcclIdOp : public OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope& scope, const platform::Place& place) const override {
    PL_ENFORCE(place.is_cpu() || platform::collective::BuiltWithDeviceCollectives(),
               errors::Unimplemented("op `c_gen_nccl_id` on %s: this build has no GPU "
                                     "collectives (NCCL)",
                                     place.ToString()));
    // The ranks exchange the id through the job's rendezvous store when c_comm_init makes
    // the communicator; Out only has to exist.
    FindVarOrThrow(*this, scope, "Out", Output("Out"));
  }
};

class CCommInitOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The communicator id variable (from c_gen_nccl_id).");
    AddAttr<int>("nranks", "Ranks of the ring.").GreaterThan(0);
    AddAttr<int>("rank", "This process's rank in the ring.").GreaterThan(-1);
    AddAttr<int>("device_id", "GPU of this rank (-1: the place's).").SetDefault(-1);
    AddAttr<int>("ring_id", "The ring to build.").SetDefault(0).GreaterThan(-1);
    AddAttr<std::string>("endpoints", "host:port of every rank (informational).")
        .SetDefault("");
    AddComment(R"DOC(
c_comm_init operator: builds the communicator of ring `ring_id` with this process as rank
`rank` of `nranks`; later collectives with that ring_id use it.

$$comm_{ring} = \mathrm{connect}(rank, nranks)$$

Every rank of the ring must run it. A communicator that already exists with the same rank and
size is kept.
)DOC");
  }
};

class CCommInitOp : public OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope&, const platform::Place& place) const override {
    platform::WithErrorContext("op `c_comm_init`", [&] {
      platform::collective::CommRegistry::Instance().Init(Attr<int>("ring_id"), Attr<int>("rank"),
                                                          Attr<int>("nranks"), place);
    });
  }
};

class CCommInitAllOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddAttr<std::vector<int>>("devices", "The devices of this process taking part.")
        .SetDefault({});
    AddAttr<int>("ring_id", "The ring to build.").SetDefault(0).GreaterThan(-1);
    AddComment(R"DOC(
c_comm_init_all operator: builds ring `ring_id` over several devices of this one process.

$$comm_{ring} = \mathrm{connect}(devices)$$

On the CPU one device is the only choice: the ring is this process alone (or the job's ranks
when the process belongs to a distributed job).
)DOC");
  }
};

class CCommInitAllOp : public OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope&, const platform::Place& place) const override {
    const auto& devices = Attr<std::vector<int>>("devices");
    PL_ENFORCE(place.is_cpu() && devices.size() <= 1,
               errors::Unimplemented("op `c_comm_init_all`: a ring over %zu devices of one "
                                     "process on %s is not supported (one process per device: "
                                     "use `paddle_like launch`)",
                                     devices.size(), place.ToString()));
    RingOf(*this, place);
  }
};

class BarrierOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Any tensor (passed on).");
    AddOutput("Out", "X.");
    AddAttr<int>("ring_id", "The ring whose ranks meet.").SetDefault(0).GreaterThan(-1);
    AddComment(R"DOC(
barrier operator: returns on each rank of ring `ring_id` once every rank has reached it.

$$Out = X$$
)DOC");
  }
};

class BarrierOp : public OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope& scope, const platform::Place& place) const override {
    RingOf(*this, place)->Barrier();
    ShareInputsWithOutputs(*this, scope, "X", "Out");
  }
};

// c_sync_calc_stream, c_sync_comm_stream, c_wait_comm, c_wait_compute.
template <bool kList>
class StreamOrderOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    auto x = AddInput("X", "The tensors the ordering is about.");
    auto out = AddOutput("Out", "X (the same tensors).");
    if (kList) {
      x.AsDuplicable();
      out.AsDuplicable();
      AddAttr<int>("ring_id", "The ring whose communication stream is meant.").SetDefault(0);
    }
    AddComment(R"DOC(
Stream ordering operator (c_sync_calc_stream, c_sync_comm_stream, c_wait_comm,
c_wait_compute): orders the computation and communication streams. On the CPU,
c_sync_comm_stream and c_wait_comm wait until the collectives running on the ring's
communication thread (all-reduces with use_calc_stream false) have finished; computation is
always finished when its op returns.

$$Out = X$$
)DOC");
  }
};

class StreamOrderOp : public OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope& scope, const platform::Place& place) const override {
    // The host's computation is done when its op returns; communication may still run on
    // the ring's thread (all-reduces with use_calc_stream false).
    if (Type() == "c_sync_comm_stream" || Type() == "c_wait_comm") RingOf(*this, place)->WaitAll();
    ShareInputsWithOutputs(*this, scope, "X", "Out");
  }
};

void NoVarTypes(framework::VarTypeInferenceContext*) {}

void RawOutput(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kRaw);
}

}  // namespace

PL_REGISTER_OPS(RegisterCommInitOps) {
  framework::RegisterOp<CGenNcclIdOp, CGenNcclIdOpMaker>("c_gen_nccl_id").InferVarType(RawOutput);
  framework::RegisterOp<CCommInitOp, CCommInitOpMaker>("c_comm_init").InferVarType(NoVarTypes);
  framework::RegisterOp<CCommInitAllOp, CCommInitAllOpMaker>("c_comm_init_all")
      .InferVarType(NoVarTypes);
  framework::RegisterOp<BarrierOp, BarrierOpMaker>("barrier");
  framework::RegisterOp<StreamOrderOp, StreamOrderOpMaker<false>>("c_sync_calc_stream");
  for (const char* type : {"c_sync_comm_stream", "c_wait_comm", "c_wait_compute"}) {
    framework::RegisterOp<StreamOrderOp, StreamOrderOpMaker<true>>(type);
  }
}

}  // namespace operators
}  // namespace paddle_like

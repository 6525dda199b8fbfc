// The all-reduce ops: PaddlePaddle 2.x's c_allreduce_sum/max/min/prod (X, Out) and 3.x's
// all_reduce (x, out, reduce_type), on the communicator of `ring_id`.
#include <cstring>
#include <string>
#include <type_traits>

#include "operators/collective/collective_util.h"
#include "operators/op_family.h"
#include "platform/enforce.h"
#include "platform/flags.h"
#include "platform/float16.h"

namespace paddle_like {
namespace operators {

namespace {

// PaddlePaddle's paddle.distributed.ReduceOp values (all_reduce's reduce_type).
constexpr int kReduceTypeAvg = 4;

std::string ReduceFormula(const std::string& op) {
  if (op == "sum") return "Out = \\sum_{r=0}^{n-1} X_r";
  if (op == "prod") return "Out = \\prod_{r=0}^{n-1} X_r";
  return "Out = \\" + op + "_{r=0}^{n-1} X_r";
}

template <ReduceOp kOp>
class CAllReduceOpMaker : public CollectiveOpMaker {
 public:
  void Make() override {
    const std::string name = platform::collective::ReduceOpName(kOp);
    AddSlotsAndRing(false, "This rank's tensor; every rank gives the same shape and dtype.",
                    "The elementwise " + name + " of X over the ranks of the ring, the same on "
                    "every rank. Out may be X itself: the result is then written into X's "
                    "buffer, which views of it (coalesce_tensor's outputs) see; with "
                    "use_calc_stream false, on a ring whose communication stream is on (the "
                    "data-parallel trainers'), that happens on the ring's communication "
                    "thread, and c_sync_comm_stream waits for it.");
    AddAttr<bool>("use_model_parallel", "Kept for PaddlePaddle's programs; no effect here.")
        .SetDefault(false);
    AddComment("c_allreduce_" + name + " operator: an all-reduce over the ranks of ring "
               "`ring_id`.\n\n$$" + ReduceFormula(name) + "$$\n\nwhere X_r is rank r's X and n "
               "the ring's size. Every rank of the ring runs the op with the same shape. The "
               "reduction order is fixed by the ring, so equal inputs give equal bits; float16 "
               "and bfloat16 are reduced in float and rounded at each step.\n");
  }
};

class AllReduceOpMaker : public CollectiveOpMaker {
 public:
  void Make() override {
    AddSlotsAndRing(true, "This rank's tensor; every rank gives the same shape and dtype.",
                    "The reduction of x over the ranks of the ring. out may be x itself.");
    AddAttr<int>("reduce_type", "0 sum, 1 max, 2 min, 3 prod, 4 avg (sum / ranks).")
        .SetDefault(0)
        .InEnum({0, 1, 2, 3, 4});
    AddComment(R"DOC(
all_reduce operator (PaddlePaddle 3.x's name): an all-reduce over the ranks of ring `ring_id`.

$$out = \mathrm{reduce}_{r=0}^{n-1} x_r$$

with the reduction `reduce_type` (sum, max, min, prod, or avg = sum / n, avg for floating
types only). Same semantics as c_allreduce_<op>.
)DOC");
  }
};

ReduceOp ReduceOpOf(const ExecutionContext& ctx, bool* average) {
  *average = false;
  const std::string& type = ctx.Type();
  if (type == "c_allreduce_max") return ReduceOp::kMax;
  if (type == "c_allreduce_min") return ReduceOp::kMin;
  if (type == "c_allreduce_prod") return ReduceOp::kProd;
  if (type != "all_reduce") return ReduceOp::kSum;
  const int t = ctx.Attr<int>("reduce_type");
  *average = t == kReduceTypeAvg;
  return t == kReduceTypeAvg ? ReduceOp::kSum : static_cast<ReduceOp>(t);
}

// A buffer all-reduced in place on the communication stream run after run (a data-parallel
// gradient bucket) is moved into shared memory that the ring's other ranks read in place, the
// second time it comes (a buffer an op makes anew every run never is): that time it is
// all-reduced where it is, at once (the views of it, coalesce_tensor's outputs, see the sums),
// then copied into the shared buffer, which X holds from then on. Every rank does the same
// at the same op, as SharedBuffer needs. True when it did.
bool MovedIntoSharedMemory(Communicator* comm, ReduceOp op, DenseTensor* x) {
  const size_t bytes = x->data_bytes();
  if (!FLAGS_collective_shared_buffers || !comm->OffersSharedBuffers() || !x->initialized() ||
      !x->is_plain() || bytes == 0 || x->raw_data() != x->holder()->ptr() ||
      comm->IsSharedBuffer(x->raw_data(), bytes) || !comm->NoteInPlaceAllReduce(x->holder())) {
    return false;
  }
  comm->WaitAll();
  comm->AllReduce(x->raw_data(), x->raw_data(), x->numel(), x->dtype(), op);
  platform::AllocationPtr shared = comm->SharedBuffer(bytes);
  if (shared != nullptr) {
    std::memcpy(shared->ptr(), x->raw_data(), bytes);
    x->ResetHolder(std::move(shared));
  }
  return true;
}

template <typename T>
struct AllReduceKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& type = ctx.Type();
    const DenseTensor* x = ctx.Input(InSlot(type));
    DenseTensor* out = ctx.Output(OutSlot(type));
    bool average = false;
    const ReduceOp op = ReduceOpOf(ctx, &average);
    Communicator* comm = RingOf(ctx, /*wait=*/false);
    if (out == x && comm->communication_stream() && ctx.HasAttr("use_calc_stream") &&
        !ctx.Attr<bool>("use_calc_stream")) {
      if (MovedIntoSharedMemory(comm, op, out)) return;
      // On the communication stream: the ring's thread reduces X in place while the ops
      // after this one run; c_sync_comm_stream (or any collective of the ring) waits for it.
      const DenseTensor keep = *x;  // Holds the buffer until the work has run.
      comm->Submit([keep, op](Communicator* c) {
        void* data = const_cast<void*>(keep.raw_data());
        c->AllReduce(data, data, keep.numel(), keep.dtype(), op);
      });
      return;
    }
    comm->WaitAll();  // Runs after what the ring's thread still has, in the ring's order.
    constexpr bool kFloating = std::is_floating_point<T>::value ||
                               std::is_same<T, platform::float16>::value ||
                               std::is_same<T, platform::bfloat16>::value;
    PL_ENFORCE(!average || kFloating,
               errors::InvalidArgument("op `%s`: reduce_type avg needs floating data, input "
                                       "`%s` holds %s",
                                       type, ctx.InputName(InSlot(type)),
                                       platform::DataTypeName(x->dtype())));
    T* result;
    if (out == x) {
      // In place: into X's own buffer (see the maker's description of Out).
      result = static_cast<T*>(out->raw_data());
    } else {
      out->Resize(x->dims());
      out->set_lod(x->lod());
      result = out->mutable_data<T>(ctx.GetPlace());
    }
    PL_ENFORCE(!average || ctx.GetPlace().is_cpu(),
               errors::Unimplemented("op `%s`: reduce_type avg on %s (sum, then scale)", type,
                                     ctx.GetPlace().ToString()));
    comm->AllReduce(x->data<T>(), result, x->numel(), x->dtype(), op);
    if (average) {
      const float inv = 1.0f / static_cast<float>(comm->nranks());
      for (int64_t i = 0; i < x->numel(); ++i) {
        result[i] = static_cast<T>(static_cast<float>(result[i]) * inv);
      }
    }
  }
};

template <ReduceOp kOp>
void RegisterCAllReduce() {
  const std::string type = std::string("c_allreduce_") + platform::collective::ReduceOpName(kOp);
  framework::RegisterOp<CollectiveOp, CAllReduceOpMaker<kOp>>(type).InferShape(
      SameShapeCollectiveInferShape);
  // The kernel reaches data through the communicator: NCCL's on CUDA devices.
  RegisterPlainKernelsOnEveryDevice<AllReduceKernel, float, double, platform::float16,
                                    platform::bfloat16, int32_t, int64_t, int8_t, uint8_t>(type);
}

}  // namespace

PL_REGISTER_OPS(RegisterAllReduceOps) {
  RegisterCAllReduce<ReduceOp::kSum>();
  RegisterCAllReduce<ReduceOp::kMax>();
  RegisterCAllReduce<ReduceOp::kMin>();
  RegisterCAllReduce<ReduceOp::kProd>();
  framework::RegisterOp<CollectiveOp, AllReduceOpMaker>("all_reduce")
      .InferShape(SameShapeCollectiveInferShape);
  RegisterPlainKernelsOnEveryDevice<AllReduceKernel, float, double, platform::float16,
                                    platform::bfloat16, int32_t, int64_t, int8_t, uint8_t>(
      "all_reduce");
}

}  // namespace operators
}  // namespace paddle_like

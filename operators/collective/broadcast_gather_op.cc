// Broadcast, all-gather and reduce-scatter: PaddlePaddle 2.x's c_broadcast, c_allgather,
// c_reducescatter (X, Out) and 3.x's broadcast, all_gather, reduce_scatter (x, out).
#include <cstring>
#include <string>
#include <variant>

#include "operators/collective/collective_util.h"
#include "operators/op_family.h"
#include "platform/enforce.h"
#include "platform/float16.h"

namespace paddle_like {
namespace operators {

namespace {

template <bool kLowercase>
class BroadcastOpMaker : public CollectiveOpMaker {
 public:
  void Make() override {
    AddSlotsAndRing(kLowercase, "The tensor to send (on the root) or whose shape to receive.",
                    "The root's X on every rank. Out may be X itself (written in place).");
    AddAttr<int>("root", "The rank whose X is sent.").SetDefault(0).GreaterThan(-1);
    AddComment(R"DOC(
Broadcast operator (c_broadcast, broadcast): every rank of ring `ring_id` receives the root's
tensor.

$$Out_r = X_{root} \quad \text{for every rank } r$$

Every rank gives a tensor of the same shape and dtype.
)DOC");
  }
};

template <bool kLowercase>
class AllGatherOpMaker : public CollectiveOpMaker {
 public:
  void Make() override {
    AddSlotsAndRing(kLowercase, "This rank's block; every rank gives the same shape. Or a "
                    "SelectedRows (a sparse gradient) with any number of rows.",
                    "The blocks of all ranks stacked along dim 0 in rank order: [n * d0, ...]; "
                    "for a SelectedRows X, a SelectedRows of every rank's rows and values.");
    AddNranksAttr();
    AddComment(R"DOC(
All-gather operator (c_allgather, all_gather): concatenates every rank's X along dim 0, in
rank order, on every rank.

$$Out = \mathrm{concat}_0(X_0, X_1, \ldots, X_{n-1})$$

A SelectedRows X (rows r_k, values v_k, height h) gives a SelectedRows of height h whose rows
and values are the concatenations of every rank's: ranks may hold different numbers of rows,
and a row may appear several times (the optimizers add duplicate rows).
)DOC");
  }
};

template <bool kLowercase>
class ReduceScatterOpMaker : public CollectiveOpMaker {
 public:
  void Make() override {
    AddSlotsAndRing(kLowercase, "This rank's tensor; dim 0 divisible by the ring's size.",
                    "This rank's block of the sum over ranks: [d0 / n, ...].");
    AddNranksAttr();
    AddComment(R"DOC(
Reduce-scatter operator (c_reducescatter, reduce_scatter): the elementwise sum of X over the
ranks, cut along dim 0 into n equal blocks, of which rank r keeps block r.

$$Out_r = \Big(\sum_{s=0}^{n-1} X_s\Big)[r \cdot d_0/n : (r+1) \cdot d_0/n]$$
)DOC");
  }
};

// dims[0] of Out scaled by nranks (all-gather: multiply; reduce-scatter: divide) when the
// attribute gives it; -1 when it does not.
template <bool kGather>
void GatherScatterInferShape(InferShapeContext* ctx) {
  const char* in = InSlot(ctx->OpType());
  const char* out = OutSlot(ctx->OpType());
  DDim dims = ctx->GetInputDim(in);
  if (kGather && ctx->GetInputVarKind(in) == framework::VarKind::kSelectedRows) {
    // A gathered SelectedRows stands for a tensor of the same dense shape (more rows of it).
    ctx->SetOutputDim(out, dims);
    return;
  }
  PL_ENFORCE(dims.size() >= 1,
             errors::InvalidArgument("op `%s` input `%s`: expected a tensor of rank >= 1, found "
                                     "shape %s",
                                     ctx->OpType(), in, dims.ToString()));
  const auto& attrs = ctx->Attrs();
  auto it = attrs.find("nranks");
  const int* given = it == attrs.end() ? nullptr : std::get_if<int>(&it->second);
  int nranks = given == nullptr ? 0 : *given;
  if (nranks <= 0 && ctx->IsRuntime()) {
    // Not given: the ring's size (the communicator exists by the time the op runs).
    auto ring = attrs.find("ring_id");
    const int* ring_id = ring == attrs.end() ? nullptr : std::get_if<int>(&ring->second);
    nranks = platform::WithErrorContext(platform::Sprintf("op `%s`", ctx->OpType()), [&] {
      return platform::collective::CommRegistry::Instance()
          .Get(ring_id == nullptr ? 0 : *ring_id, platform::CPUPlace())
          ->nranks();
    });
  }
  if (dims[0] >= 0 && nranks > 0) {
    if (kGather) {
      dims[0] *= nranks;
    } else {
      PL_ENFORCE(dims[0] % nranks == 0,
                 errors::InvalidArgument("op `%s` input `%s`: dim 0 (%lld) must divide into "
                                         "the %d ranks",
                                         ctx->OpType(), in, static_cast<long long>(dims[0]),
                                         nranks));
      dims[0] /= nranks;
    }
  } else {
    dims[0] = -1;
  }
  ctx->SetOutputDim(out, dims);
}

template <typename T>
struct BroadcastKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& type = ctx.Type();
    const DenseTensor* x = ctx.Input(InSlot(type));
    DenseTensor* out = ctx.Output(OutSlot(type));
    Communicator* comm = RingOf(ctx);
    T* buffer;
    if (out == x) {
      buffer = static_cast<T*>(out->raw_data());
    } else {
      out->Resize(x->dims());
      out->set_lod(x->lod());
      framework::CopyTensor(*x, ctx.GetPlace(), out);
      buffer = out->data<T>();
    }
    comm->Broadcast(buffer, x->numel(), x->dtype(), ctx.Attr<int>("root"));
  }
};

// A SelectedRows X (a sparse gradient): every rank's rows and values, in rank order, with
// as many rows as each rank holds.
template <typename T>
void AllGatherSelectedRows(const ExecutionContext& ctx, Communicator* comm) {
  const std::string& type = ctx.Type();
  const framework::SelectedRows in = ctx.InputVar(InSlot(type))->Get<framework::SelectedRows>();
  const DenseTensor& value = in.value();
  const int64_t rows = static_cast<int64_t>(in.rows().size());
  PL_ENFORCE(value.dims().size() >= 1 && value.dims()[0] == rows,
             errors::InvalidArgument("op `%s` input `%s` (variable `%s`): a SelectedRows of %lld "
                                     "rows holds a value of shape %s",
                                     type, InSlot(type), ctx.InputName(InSlot(type)),
                                     static_cast<long long>(rows), value.dims().ToString()));
  const int64_t width = rows > 0 ? value.numel() / rows : 1;
  std::vector<int64_t> counts(static_cast<size_t>(comm->nranks()));
  comm->AllGather(&rows, counts.data(), 1, DataType::INT64);
  int64_t total = 0;
  std::vector<int64_t> value_counts;
  for (int64_t c : counts) {
    total += c;
    value_counts.push_back(c * width);
  }
  framework::SelectedRows out(std::vector<int64_t>(static_cast<size_t>(total)), in.height());
  comm->AllGatherV(in.rows().data(), rows, out.mutable_rows()->data(), counts, DataType::INT64);
  DDim dims = value.dims();
  dims[0] = total;
  DenseTensor* out_value = out.mutable_value();
  out_value->Resize(dims);
  T* dst = out_value->mutable_data<T>(ctx.GetPlace());
  comm->AllGatherV(rows > 0 ? value.data<T>() : nullptr, rows * width, dst, value_counts,
                   value.dtype());
  *ctx.OutputVar(OutSlot(type))->GetMutable<framework::SelectedRows>() = std::move(out);
}

template <typename T>
struct AllGatherKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& type = ctx.Type();
    if (ctx.InputVar(InSlot(type))->IsType<framework::SelectedRows>()) {
      PL_ENFORCE(ctx.GetPlace().is_cpu(),
                 errors::Unimplemented("op `%s`: gathering a SelectedRows on %s", type,
                                       ctx.GetPlace().ToString()));
      Communicator* comm = RingOf(ctx);
      CheckNranksAttr(ctx, *comm);
      AllGatherSelectedRows<T>(ctx, comm);
      return;
    }
    const DenseTensor* x = ctx.Input(InSlot(type));
    DenseTensor* out = ctx.Output(OutSlot(type));
    Communicator* comm = RingOf(ctx);
    CheckNranksAttr(ctx, *comm);
    PL_ENFORCE(x->dims().size() >= 1,
               errors::InvalidArgument("op `%s` input `%s`: expected rank >= 1, found %s", type,
                                       ctx.InputName(InSlot(type)), x->dims().ToString()));
    const DenseTensor in = *x;  // Keeps X's buffer alive should Out be X.
    DDim dims = in.dims();
    dims[0] *= comm->nranks();
    DenseTensor result(dims, in.dtype());
    comm->AllGather(in.data<T>(), result.mutable_data<T>(ctx.GetPlace()), in.numel(),
                    in.dtype());
    *out = result;
  }
};

template <typename T>
struct ReduceScatterKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& type = ctx.Type();
    const DenseTensor* x = ctx.Input(InSlot(type));
    DenseTensor* out = ctx.Output(OutSlot(type));
    Communicator* comm = RingOf(ctx);
    CheckNranksAttr(ctx, *comm);
    const DenseTensor in = *x;
    DDim dims = in.dims();
    PL_ENFORCE(dims.size() >= 1 && dims[0] % comm->nranks() == 0,
               errors::InvalidArgument("op `%s` input `%s`: dim 0 of shape %s must divide into "
                                       "the %d ranks of %s",
                                       type, ctx.InputName(InSlot(type)), dims.ToString(),
                                       comm->nranks(), comm->Describe()));
    dims[0] /= comm->nranks();
    DenseTensor result(dims, in.dtype());
    comm->ReduceScatter(in.data<T>(), result.mutable_data<T>(ctx.GetPlace()), result.numel(),
                        in.dtype(), ReduceOp::kSum);
    *out = result;
  }
};

template <template <typename> class KernelT>
void RegisterCollectiveKernels(const std::string& type) {
  // The kernels reach data through the communicator: NCCL's on CUDA devices.
  RegisterPlainKernelsOnEveryDevice<KernelT, float, double, platform::float16,
                                    platform::bfloat16, int32_t, int64_t, int8_t, uint8_t>(type);
}

}  // namespace

// Out is of X's kind: a dense tensor, or a SelectedRows (a sparse gradient) for all-gather.
void OutputKindOfInput(framework::VarTypeInferenceContext* ctx) {
  const char* in = InSlot(ctx->OpType());
  const char* out = OutSlot(ctx->OpType());
  ctx->SetOutputKind(out, ctx->GetInputKind(in));
  ctx->SetOutputDataType(out, ctx->GetInputDataType(in));
}

PL_REGISTER_OPS(RegisterBroadcastGatherOps) {
  framework::RegisterOp<CollectiveOp, BroadcastOpMaker<false>>("c_broadcast")
      .InferShape(SameShapeCollectiveInferShape);
  framework::RegisterOp<CollectiveOp, BroadcastOpMaker<true>>("broadcast")
      .InferShape(SameShapeCollectiveInferShape);
  framework::RegisterOp<CollectiveOp, AllGatherOpMaker<false>>("c_allgather")
      .InferShape(GatherScatterInferShape<true>)
      .InferVarType(OutputKindOfInput);
  framework::RegisterOp<CollectiveOp, AllGatherOpMaker<true>>("all_gather")
      .InferShape(GatherScatterInferShape<true>)
      .InferVarType(OutputKindOfInput);
  framework::RegisterOp<CollectiveOp, ReduceScatterOpMaker<false>>("c_reducescatter")
      .InferShape(GatherScatterInferShape<false>);
  framework::RegisterOp<CollectiveOp, ReduceScatterOpMaker<true>>("reduce_scatter")
      .InferShape(GatherScatterInferShape<false>);
  for (const char* type : {"c_broadcast", "broadcast"}) {
    RegisterCollectiveKernels<BroadcastKernel>(type);
  }
  for (const char* type : {"c_allgather", "all_gather"}) {
    RegisterCollectiveKernels<AllGatherKernel>(type);
  }
  for (const char* type : {"c_reducescatter", "reduce_scatter"}) {
    RegisterCollectiveKernels<ReduceScatterKernel>(type);
  }
}

}  // namespace operators
}  // namespace paddle_like

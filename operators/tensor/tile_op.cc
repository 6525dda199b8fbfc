// tile: X repeated along each dim; tile_grad (PaddlePaddle's fused op, also our backward)
// sums the repeats of the output gradient. Also `expand` (the 1.x op of the same meaning,
// with its own slot names, one repeat per dim of X) and expand_grad.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/expand_tile_shapes.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

TileShapes ComputeTileShapes(const std::string& op, const std::string& origin, const DDim& x,
                             std::vector<int64_t> repeats) {
  const size_t rank = std::max(static_cast<size_t>(x.size()), repeats.size());
  PL_ENFORCE(rank <= static_cast<size_t>(DDim::kMaxRank),
             errors::InvalidArgument("op `%s` %s: expected at most %d dims, received %s", op,
                                     origin, DDim::kMaxRank, ListToString(repeats)));
  for (int64_t r : repeats) {
    PL_ENFORCE(r >= 0, errors::InvalidArgument("op `%s` %s: expected repeats >= 0, received %s", op,
                                               origin, ListToString(repeats)));
  }
  repeats.insert(repeats.begin(), rank - repeats.size(), 1);
  std::vector<int64_t> xd = x.ToVector();
  xd.insert(xd.begin(), rank - xd.size(), 1);
  std::vector<int64_t> out(rank);
  for (size_t d = 0; d < rank; ++d) out[d] = xd[d] < 0 ? -1 : xd[d] * repeats[d];
  CheckShapeValues(op, origin, out, /*allow_unknown=*/true);
  return {DDim(xd), DDim(out)};
}

namespace {

constexpr char kOp[] = "tile";
constexpr char kExpandOp[] = "expand";

// Where an op of the family reads its repeats: the 1-D tensor, the list of one-element
// tensors, the attribute.
struct RepeatSlots {
  const char* tensor;
  const char* list;
  const char* attr;
};

RepeatSlots RepeatSlotsOf(const std::string& op) {
  if (op.rfind(kExpandOp, 0) == 0) return {"ExpandTimes", "expand_times_tensor", "expand_times"};
  return {"RepeatTimes", "repeat_times_tensor", "repeat_times"};
}

// expand takes exactly one repeat per dim of X (tile pads either side with 1s).
void CheckExpandRank(const std::string& op, const std::string& origin, const DDim& x,
                     size_t repeats) {
  if (op.rfind(kExpandOp, 0) != 0 || x.size() < 0) return;
  PL_ENFORCE(repeats == static_cast<size_t>(x.size()),
             errors::InvalidArgument("op `%s` %s: expected %d repeats (one per dim of input `X` "
                                     "%s), received %zu",
                                     op, origin, x.size(), x.ToString(), repeats));
}

}  // namespace

TileShapes KernelTileShapes(const ExecutionContext& ctx, const DDim& x) {
  std::string origin;
  const RepeatSlots slots = RepeatSlotsOf(ctx.Type());
  const std::vector<int64_t> repeats =
      ReadIntList(ctx, slots.tensor, slots.list, slots.attr, &origin);
  CheckExpandRank(ctx.Type(), origin, x, repeats.size());
  return ComputeTileShapes(ctx.Type(), origin, x, repeats);
}

namespace {

class TileOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to repeat.");
    AddInput("RepeatTimes", "1-D int32/int64 tensor; overrides the others.").AsDispensable();
    AddInput("repeat_times_tensor", "One-element int32/int64 tensors, one per dim.")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("Out", "X tiled, X's dtype.");
    AddAttr<std::vector<int>>("repeat_times", "Repeats per dim (each >= 0).").SetDefault({});
    AddComment(R"DOC(
Tile operator.

$$Out[i_0, \ldots, i_{r-1}] = X[i_0 \bmod d_0, \ldots, i_{r-1} \bmod d_{r-1}], \quad
Out.dims[k] = d_k \cdot repeat_k$$

The repeats come from RepeatTimes, else repeat_times_tensor, else the attribute. When the
repeats are fewer than X's dims they are padded with leading 1s; when X has fewer dims, its
shape is padded with leading 1s. Example: X [[1, 2]], repeat_times [2, 2] ->
[[1, 2, 1, 2], [1, 2, 1, 2]].

Gradient (fused op `tile_grad`):
$$dX[j] = \sum_{i:\ i \bmod d = j} dOut[i]$$
)DOC");
  }
};

class ExpandOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to repeat.");
    AddInput("ExpandTimes", "1-D int32/int64 tensor; overrides the others.").AsDispensable();
    AddInput("expand_times_tensor", "One-element int32/int64 tensors, one per dim.")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("Out", "X repeated, X's dtype.");
    AddAttr<std::vector<int>>("expand_times", "Repeats per dim of X (each >= 0).").SetDefault({});
    AddComment(R"DOC(
Expand operator (the 1.x op; `tile` is its successor): X repeated along each dim,

$$Out[i_0, \ldots, i_{r-1}] = X[i_0 \bmod d_0, \ldots, i_{r-1} \bmod d_{r-1}], \quad
Out.dims[k] = d_k \cdot expand\_times_k$$

with exactly one repeat per dim of X, from ExpandTimes, else expand_times_tensor, else the
attribute.

Gradient (fused op `expand_grad`): $$dX[j] = \sum_{i:\ i \bmod d = j} dOut[i]$$
)DOC");
  }
};

class TileOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void TileInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const RepeatSlots slots = RepeatSlotsOf(ctx->OpType());
  if (ctx->HasInput(slots.tensor) || ctx->HasInput(slots.list)) {
    if (ctx->IsRuntime()) return;  // The kernel reads the repeats.
    int64_t rank = x.size();
    if (ctx->HasInput(slots.list)) {
      rank = std::max<int64_t>(rank, ctx->InputSize(slots.list));
    } else {
      const DDim r = ctx->GetInputDim(slots.tensor);
      rank = r.size() == 1 && r[0] >= 0 ? std::max<int64_t>(rank, r[0]) : -1;
    }
    if (rank >= 0) ctx->SetOutputDim("Out", UnknownDims(ctx->OpType(), "input `X`", rank));
    return;
  }
  const std::vector<int>& r = ctx->Attr<std::vector<int>>(slots.attr);
  const std::string origin = std::string("attribute `") + slots.attr + "`";
  CheckExpandRank(ctx->OpType(), origin, x, r.size());
  ctx->SetOutputDim(
      "Out",
      ComputeTileShapes(ctx->OpType(), origin, x, std::vector<int64_t>(r.begin(), r.end())).out);
}

// Calls fn(out_index, x_index) for every element of Out, in order.
template <typename Fn>
void ForEachTiled(const TileShapes& s, Fn&& fn) {
  const int rank = s.out.size();
  const int64_t n = s.out.numel();
  std::vector<int64_t> idx(rank, 0);
  std::vector<int64_t> x_strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) x_strides[d] = x_strides[d + 1] * s.x[d + 1];
  for (int64_t i = 0; i < n; ++i) {
    int64_t xi = 0;
    for (int d = 0; d < rank; ++d) xi += (idx[d] % s.x[d]) * x_strides[d];
    fn(i, xi);
    for (int d = rank - 1; d >= 0 && ++idx[d] == s.out[d]; --d) idx[d] = 0;
  }
}

template <typename T>
struct TileKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const TileShapes s = KernelTileShapes(ctx, x->dims());
    DenseTensor fresh(s.out, x->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    if (fresh.numel() > 0) {
      const T* in = x->data<T>();
      ForEachTiled(s, [&](int64_t o, int64_t i) { out[o] = in[i]; });
    }
    *ctx.Output("Out") = std::move(fresh);
  }
};

template <typename T>
struct TileGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const TileShapes s = KernelTileShapes(ctx, x->dims());
    PL_ENFORCE(dout->dims() == s.out,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), s.out.ToString(), dout->dims().ToString()));
    DenseTensor fresh(x->dims(), dout->dtype());
    T* dx = fresh.mutable_data<T>(ctx.GetPlace());
    std::fill(dx, dx + fresh.numel(), T(0));
    if (dout->numel() > 0) {
      const T* g = dout->data<T>();
      ForEachTiled(s, [&](int64_t o, int64_t i) { dx[i] += g[o]; });
    }
    *ctx.Output("X@GRAD") = std::move(fresh);
  }
};

template <typename MakerT>
void RegisterRepeatOp(const char* op) {
  const RepeatSlots slots = RepeatSlotsOf(op);
  const framework::FusedGradDecl grad{{"X", slots.tensor, slots.list},
                                      {"Out"},
                                      {"X"},
                                      R"DOC($$dX[j] = \sum_{i:\ i \bmod d = j} dOut[i]$$)DOC"};
  framework::RegisterOp<TileOp, MakerT>(op)
      .InferShape(TileInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuElementKernels<TileKernel>(op);
  framework::RegisterFusedGradOp(op, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("X");
    ctx->RequireOutput("X@GRAD");
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  });
  RegisterPlainCpuFloatKernels<TileGradKernel>(std::string(op) + "_grad");
}

}  // namespace

PL_REGISTER_OPS(RegisterTileOp) {
  RegisterRepeatOp<TileOpMaker>(kOp);
  RegisterRepeatOp<ExpandOpMaker>(kExpandOp);
}

}  // namespace operators
}  // namespace paddle_like

// tile: X repeated along each dim; tile_grad (PaddlePaddle's fused op, also our backward)
// sums the repeats of the output gradient.
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

TileShapes KernelTileShapes(const ExecutionContext& ctx, const DDim& x) {
  std::string origin;
  const std::vector<int64_t> repeats =
      ReadIntList(ctx, "RepeatTimes", "repeat_times_tensor", "repeat_times", &origin);
  return ComputeTileShapes(ctx.Type(), origin, x, repeats);
}

namespace {

constexpr char kOp[] = "tile";

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

class TileOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

bool HasTensorRepeats(const InferShapeContext& ctx) {
  return ctx.HasInput("RepeatTimes") || ctx.HasInput("repeat_times_tensor");
}

void TileInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  if (HasTensorRepeats(*ctx)) {
    if (ctx->IsRuntime()) return;  // The kernel reads the repeats.
    int64_t rank = x.size();
    if (ctx->HasInput("repeat_times_tensor")) {
      rank = std::max<int64_t>(rank, ctx->InputSize("repeat_times_tensor"));
    } else {
      const DDim r = ctx->GetInputDim("RepeatTimes");
      rank = r.size() == 1 && r[0] >= 0 ? std::max<int64_t>(rank, r[0]) : -1;
    }
    if (rank >= 0) ctx->SetOutputDim("Out", UnknownDims(ctx->OpType(), "input `X`", rank));
    return;
  }
  const std::vector<int>& r = ctx->Attr<std::vector<int>>("repeat_times");
  ctx->SetOutputDim("Out", ComputeTileShapes(ctx->OpType(), "attribute `repeat_times`", x,
                                             std::vector<int64_t>(r.begin(), r.end()))
                               .out);
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

}  // namespace

PL_REGISTER_OPS(RegisterTileOp) {
  const framework::FusedGradDecl grad{
      {"X", "RepeatTimes", "repeat_times_tensor"},
      {"Out"},
      {"X"},
      R"DOC($$dX[j] = \sum_{i:\ i \bmod d = j} dOut[i]$$)DOC"};
  framework::RegisterOp<TileOp, TileOpMaker>(kOp)
      .InferShape(TileInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuKernels<TileKernel, float, double, int32_t, int64_t, bool>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("X");
    ctx->RequireOutput("X@GRAD");
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  });
  RegisterPlainCpuFloatKernels<TileGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like

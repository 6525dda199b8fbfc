// repeat_interleave: each slice of X along `dim` repeated in place (paddle.repeat_interleave,
// torch's op of the same name), by one count or a count per slice; and its fused backward.
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "repeat_interleave";

class RepeatInterleaveOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to repeat (rank >= 1).");
    AddInput("RepeatsTensor",
             "int32/int64 1-D, one count >= 0 per slice of X along dim; "
             "before `Repeats`.")
        .AsDispensable();
    AddOutput("Out", "X with dim of size sum(repeats).");
    AddAttr<int>("Repeats", "One count for every slice when RepeatsTensor is not given.")
        .SetDefault(0);
    AddAttr<int>("dim", "The axis along which slices repeat (negative counts from the end).")
        .SetDefault(0);
    AddAttr<int64_t>("output_size", "sum(repeats) when known, else -1 (a hint).").SetDefault(-1);
    AddComment(R"DOC(
Repeat interleave along dim d with counts r_0, ..., r_{n-1} (n = X.shape[d]):
$$Out[\ldots, j, \ldots] = X[\ldots, i, \ldots] \quad \text{for } \sum_{k<i} r_k \le j <
\sum_{k \le i} r_k$$
Example: X = [[1, 2], [3, 4]], Repeats 2, dim 1 -> [[1, 1, 2, 2], [3, 3, 4, 4]]; with
RepeatsTensor [1, 2] and dim 0 -> [[1, 2], [3, 4], [3, 4]].

Gradient, by the fused op repeat_interleave_grad: dX[..., i, ...] is the sum of the r_i
rows of dOut that slice i became.
)DOC");
  }
};

class RepeatInterleaveOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

// The count of each slice of X along the resolved dim.
std::vector<int64_t> Repeats(const ExecutionContext& ctx, const LineView& v) {
  std::vector<int64_t> r;
  std::string origin;
  if (ctx.HasInput("RepeatsTensor")) {
    const DenseTensor* t = ctx.Input("RepeatsTensor");
    r = ReadIntValues(*t, ctx.Type(), "RepeatsTensor");
    origin = "input `RepeatsTensor`";
    PL_ENFORCE(t->dims().size() <= 1 && static_cast<int64_t>(r.size()) == v.n,
               errors::InvalidArgument("op `%s` input `RepeatsTensor`: expected %lld counts (X's "
                                       "dim %d), received shape %s",
                                       ctx.Type(), static_cast<long long>(v.n), v.axis,
                                       t->dims().ToString()));
  } else {
    r.assign(static_cast<size_t>(v.n), ctx.Attr<int>("Repeats"));
    origin = "attribute `Repeats`";
  }
  int64_t total = 0;
  for (int64_t c : r) {
    PL_ENFORCE(c >= 0 && c <= std::numeric_limits<int64_t>::max() - total,
               errors::InvalidArgument("op `%s` %s: counts must be >= 0 with a sum that fits "
                                       "int64, received %lld",
                                       ctx.Type(), origin, static_cast<long long>(c)));
    total += c;
  }
  return r;
}

// X around its `dim`, the counts and Out's dims: what the kernel and its backward share.
struct Repetition {
  LineView v;
  std::vector<int64_t> counts;
  int64_t total = 0;
  DDim out_dims;
};

Repetition ResolveRepetition(const ExecutionContext& ctx, const DDim& x) {
  Repetition rep;
  const int dim = NormalizeAxis(ctx.Type(), "attribute `dim`", ctx.Attr<int>("dim"), x.size());
  rep.v = ViewAround(ctx.Type(), x, dim);
  rep.counts = Repeats(ctx, rep.v);
  for (int64_t c : rep.counts) rep.total += c;
  std::vector<int64_t> out = x.ToVector();
  out[dim] = rep.total;
  CheckShapeValues(ctx.Type(), "output", out, false);
  rep.out_dims = DDim(out);
  return rep;
}

void RepeatInterleaveInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const int dim = NormalizeAxis(ctx->OpType(), "attribute `dim`", ctx->Attr<int>("dim"), x.size());
  if (ctx->IsRuntime()) return;  // The kernel sizes Out from the counts.
  std::vector<int64_t> out = x.ToVector();
  if (ctx->HasInput("RepeatsTensor")) {
    out[dim] = -1;
  } else if (out[dim] >= 0) {
    out[dim] *= ctx->Attr<int>("Repeats");
  }
  ctx->SetOutputDim("Out", DDim(out));
}

template <typename T>
struct RepeatInterleaveKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const Repetition rep = ResolveRepetition(ctx, x->dims());
    const LineView& v = rep.v;
    const std::vector<int64_t>& r = rep.counts;
    const int64_t total = rep.total;
    DenseTensor out(rep.out_dims, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (int64_t a = 0; a < v.outer; ++a) {
      T* dst = o + a * total * v.inner;
      for (int64_t i = 0; i < v.n; ++i) {
        const T* src = in + (a * v.n + i) * v.inner;
        for (int64_t k = 0; k < r[i]; ++k, dst += v.inner)
          std::memcpy(dst, src, sizeof(T) * v.inner);
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void RepeatInterleaveGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct RepeatInterleaveGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const Repetition rep = ResolveRepetition(ctx, x->dims());
    const LineView& v = rep.v;
    const std::vector<int64_t>& r = rep.counts;
    const int64_t total = rep.total;
    PL_ENFORCE(
        dout->dims() == rep.out_dims,
        errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                ctx.Type(), rep.out_dims.ToString(), dout->dims().ToString()));
    DenseTensor dx(x->dims(), dout->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    if (dx.numel() > 0) std::memset(g, 0, sizeof(T) * dx.numel());
    const T* d = dout->data<T>();
    for (int64_t a = 0; a < v.outer; ++a) {
      const T* src = d + a * total * v.inner;
      for (int64_t i = 0; i < v.n; ++i) {
        T* dst = g + (a * v.n + i) * v.inner;
        for (int64_t k = 0; k < r[i]; ++k, src += v.inner) {
          for (int64_t e = 0; e < v.inner; ++e) dst[e] += src[e];
        }
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRepeatInterleaveOp) {
  const framework::FusedGradDecl grad{
      {"X", "RepeatsTensor"},
      {"Out"},
      {"X"},
      R"DOC($$dX[\ldots, i, \ldots] = \sum_{j \in rows(i)} dOut[\ldots, j, \ldots]$$)DOC"};
  framework::RegisterOp<RepeatInterleaveOp, RepeatInterleaveOpMaker>(kOp)
      .InferShape(RepeatInterleaveInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuNumericKernels<RepeatInterleaveKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(RepeatInterleaveGradInferShape);
  RegisterPlainCpuFloatKernels<RepeatInterleaveGradKernel>("repeat_interleave_grad");
}

}  // namespace operators
}  // namespace paddle_like

// segment_pool: the rows of X summed, averaged, or reduced to their maximum or minimum per
// segment, segments given by sorted ids (paddle.geometric.segment_sum and the others), with
// its fused gradient.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "segment_pool";

class SegmentPoolOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, ...]: the rows pooled.");
    AddInput("SegmentIds", "[N] int32 or int64, non-decreasing, >= 0: each row's segment.");
    AddOutput("Out", "[S, ...] with S = the last id + 1: one row per segment.");
    AddOutput("SummedIds", "[S, 1], X's dtype: how many rows each segment has.").AsIntermediate();
    AddAttr<std::string>("pooltype", "SUM, MEAN, MAX or MIN.")
        .SetDefault("SUM")
        .InEnum({"SUM", "MEAN", "MAX", "MIN"});
    AddComment(R"DOC(
SegmentPool operator. Rows i of X with SegmentIds[i] = s form segment s:

$$Out_s = \operatorname{pool}_{i : SegmentIds_i = s} X_i$$

elementwise over the row, pool being the sum, the mean, the maximum or the minimum. A segment
with no rows (an id skipped) gives zeros. Example: X = [[1, 2], [3, 4], [5, 6]], SegmentIds =
[0, 0, 2], SUM -> [[4, 6], [0, 0], [5, 6]].

Gradient (fused segment_pool_grad): dX_i = dOut_s for SUM, dOut_s / count_s for MEAN, and for
MAX and MIN dOut_s at every element equal to Out_s (ties each get the whole gradient, as in
PaddlePaddle), 0 elsewhere.
)DOC");
  }
};

class SegmentPoolOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

void CheckIds(const std::string& op, const DDim& x, const DDim& ids) {
  PL_ENFORCE(x.size() >= 1, errors::InvalidArgument("op `%s` input `X`: expected rank >= 1, "
                                                    "received a 0-D tensor",
                                                    op));
  PL_ENFORCE(ids.size() == 1 && (ids[0] < 0 || x[0] < 0 || ids[0] == x[0]),
             errors::InvalidArgument("op `%s` input `SegmentIds`: expected [%lld] (X's rows), "
                                     "received %s",
                                     op, static_cast<long long>(x[0]), ids.ToString()));
}

void SegmentPoolInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("SegmentIds");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckIds(ctx->OpType(), x, ctx->GetInputDim("SegmentIds"));
  if (ctx->IsRuntime()) return;  // The kernel sizes Out from the ids.
  std::vector<int64_t> out = x.ToVector();
  out[0] = -1;
  ctx->SetOutputDim("Out", DDim(out));
  if (ctx->HasOutput("SummedIds")) ctx->SetOutputDim("SummedIds", DDim({-1, 1}));
}

enum class Pool { kSum, kMean, kMax, kMin };

// The attribute `pooltype`, resolved once per run (the checker admits only these four).
Pool PoolOf(const ExecutionContext& ctx) {
  const std::string& pool = ctx.Attr<std::string>("pooltype");
  if (pool == "MEAN") return Pool::kMean;
  if (pool == "MAX") return Pool::kMax;
  if (pool == "MIN") return Pool::kMin;
  return Pool::kSum;
}

// The segment ids as int64, checked non-decreasing and >= 0.
std::vector<int64_t> ReadIds(const std::string& op, const DenseTensor& ids) {
  std::vector<int64_t> v(static_cast<size_t>(ids.numel()));
  if (ids.dtype() == DataType::INT32) {
    std::copy(ids.data<int32_t>(), ids.data<int32_t>() + ids.numel(), v.begin());
  } else {
    PL_ENFORCE(ids.dtype() == DataType::INT64,
               errors::InvalidArgument("op `%s` input `SegmentIds`: expected int32 or int64, "
                                       "received %s",
                                       op, platform::DataTypeName(ids.dtype())));
    std::copy(ids.data<int64_t>(), ids.data<int64_t>() + ids.numel(), v.begin());
  }
  for (size_t i = 0; i < v.size(); ++i) {
    PL_ENFORCE(v[i] >= 0 && (i == 0 || v[i] >= v[i - 1]),
               errors::InvalidArgument("op `%s` input `SegmentIds`: expected sorted ids >= 0, "
                                       "received %lld at %zu after %lld",
                                       op, static_cast<long long>(v[i]), i,
                                       static_cast<long long>(i == 0 ? 0 : v[i - 1])));
  }
  return v;
}

// f(segment, first row, end row) for every non-empty segment.
template <typename F>
void ForEachSegment(const std::vector<int64_t>& ids, const F& f) {
  size_t begin = 0;
  while (begin < ids.size()) {
    size_t end = begin + 1;
    while (end < ids.size() && ids[end] == ids[begin]) ++end;
    f(ids[begin], static_cast<int64_t>(begin), static_cast<int64_t>(end));
    begin = end;
  }
}

template <typename T>
struct SegmentPoolKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    CheckIds(kOp, x->dims(), ctx.Input("SegmentIds")->dims());
    const std::vector<int64_t> ids = ReadIds(kOp, *ctx.Input("SegmentIds"));
    const Pool pool = PoolOf(ctx);
    const int64_t segments = ids.empty() ? 0 : ids.back() + 1;
    const int64_t width = x->dims()[0] == 0 ? 0 : x->numel() / x->dims()[0];
    std::vector<int64_t> dims = x->dims().ToVector();
    dims[0] = segments;
    DenseTensor out(DDim(dims), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    std::fill(o, o + out.numel(), T(0));
    DenseTensor counts(DDim({segments, 1}), x->dtype());
    T* c = counts.mutable_data<T>(ctx.GetPlace());
    std::fill(c, c + segments, T(0));
    const T* xd = x->data<T>();
    ForEachSegment(ids, [&](int64_t s, int64_t begin, int64_t end) {
      c[s] = static_cast<T>(end - begin);
      T* row = o + s * width;
      for (int64_t j = 0; j < width; ++j) {
        double acc = static_cast<double>(xd[begin * width + j]);
        for (int64_t i = begin + 1; i < end; ++i) {
          const double v = static_cast<double>(xd[i * width + j]);
          if (pool == Pool::kMax) {
            acc = std::max(acc, v);
          } else if (pool == Pool::kMin) {
            acc = std::min(acc, v);
          } else {
            acc += v;
          }
        }
        row[j] = static_cast<T>(pool == Pool::kMean ? acc / static_cast<double>(end - begin) : acc);
      }
    });
    *ctx.Output("Out") = std::move(out);
    if (DenseTensor* summed = ctx.Output("SummedIds")) *summed = std::move(counts);
  }
};

template <typename T>
struct SegmentPoolGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* out = ctx.Input("Out");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const std::vector<int64_t> ids = ReadIds(kOp, *ctx.Input("SegmentIds"));
    const Pool pool = PoolOf(ctx);
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Out", out->dims());
    const int64_t width = x->dims()[0] == 0 ? 0 : x->numel() / x->dims()[0];
    DenseTensor dx(x->dims(), x->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    std::fill(g, g + dx.numel(), T(0));
    const T* xd = x->data<T>();
    const T* od = out->data<T>();
    const T* dd = dout->data<T>();
    const bool extreme = pool == Pool::kMax || pool == Pool::kMin;
    ForEachSegment(ids, [&](int64_t s, int64_t begin, int64_t end) {
      const T scale = pool == Pool::kMean ? static_cast<T>(end - begin) : T(1);
      for (int64_t i = begin; i < end; ++i) {
        for (int64_t j = 0; j < width; ++j) {
          const T d = dd[s * width + j];
          if (extreme) {
            g[i * width + j] = xd[i * width + j] == od[s * width + j] ? d : T(0);
          } else {
            g[i * width + j] = d / scale;
          }
        }
      }
    });
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

void SegmentPoolGradInferShape(InferShapeContext* ctx) {
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

}  // namespace

PL_REGISTER_OPS(RegisterSegmentPoolOp) {
  const framework::FusedGradDecl grad{
      {"X", "SegmentIds", "Out"},
      {"Out"},
      {"X"},
      R"DOC($$dX_i = dOut_s \text{ (SUM)}, \; dOut_s / count_s \text{ (MEAN)}, \;
dOut_s [X_i = Out_s] \text{ (MAX, MIN)}, \quad s = SegmentIds_i$$)DOC"};
  framework::RegisterOp<SegmentPoolOp, SegmentPoolOpMaker>(kOp)
      .InferShape(SegmentPoolInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<SegmentPoolKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(SegmentPoolGradInferShape);
  RegisterPlainCpuFloatKernels<SegmentPoolGradKernel>("segment_pool_grad");
}

}  // namespace operators
}  // namespace paddle_like

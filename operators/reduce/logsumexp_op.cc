// logsumexp: log(sum(exp(X))) over some dims (paddle.logsumexp), computed around the
// maximum so that it neither overflows nor underflows; with its fused gradient.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "logsumexp";

class LogsumexpOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor reduced, of any rank.");
    AddOutput("Out", "X with the reduced dims removed (kept as 1 with keepdim).");
    AddAttr<std::vector<int>>("axis", "The dims reduced; negative count from the end; empty: all.")
        .SetDefault({});
    AddAttr<bool>("keepdim", "Keep the reduced dims as size 1.").SetDefault(false);
    AddAttr<bool>("reduce_all", "Reduce every dim, whatever `axis` says.").SetDefault(false);
    AddComment(R"DOC(
Log-sum-exp over the dims D: with m the largest element of each reduced group,
$$Out = m + \log \sum_{D} e^{X - m}$$
(a group of only -inf gives -inf). Gradient (fused op): $$dX = dOut \, e^{X - Out}$$
Example: X = [0, \log 3] over dim 0 gives \log 4.
)DOC");
  }
};

class LogsumexpOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// Which dims of `x` are reduced.
std::vector<bool> ReducedDims(const DDim& x, const framework::AttributeMap& attrs) {
  const std::vector<int>& axis = std::get<std::vector<int>>(attrs.at("axis"));
  const bool all = std::get<bool>(attrs.at("reduce_all")) || axis.empty();
  std::vector<bool> reduced(static_cast<size_t>(x.size()), all);
  if (all) return reduced;
  for (int a : axis) {
    const int rank = x.size();
    PL_ENFORCE(a >= -rank && a < rank,
               errors::InvalidArgument("op `%s` attribute `axis`: expected values in [%d, %d) for "
                                       "X %s, received %s",
                                       kOp, -rank, rank, x.ToString(), ListToString(axis)));
    reduced[a < 0 ? a + rank : a] = true;
  }
  return reduced;
}

DDim OutDims(const DDim& x, const std::vector<bool>& reduced, bool keepdim) {
  std::vector<int64_t> out;
  for (int d = 0; d < x.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(x[d]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return DDim(out);
}

// The Out element of every X element, in X's order (reduced dims stride 0).
std::vector<int64_t> OutIndexOf(const DDim& x, const std::vector<bool>& reduced) {
  const int rank = x.size();
  std::vector<int64_t> stride(static_cast<size_t>(rank), 0), at(static_cast<size_t>(rank), 0);
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (!reduced[d]) {
      stride[d] = s;
      s *= x[d];
    }
  }
  std::vector<int64_t> index(static_cast<size_t>(x.numel()));
  int64_t o = 0;
  for (int64_t e = 0; e < x.numel(); ++e) {
    index[e] = o;
    for (int d = rank - 1; d >= 0; --d) {
      o += stride[d];
      if (++at[d] < x[d]) break;
      o -= stride[d] * x[d];
      at[d] = 0;
    }
  }
  return index;
}

void LogsumexpInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  ctx->SetOutputDim("Out", OutDims(x, ReducedDims(x, ctx->Attrs()), ctx->Attr<bool>("keepdim")));
}

template <typename T>
struct LogsumexpKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const std::vector<bool> reduced = ReducedDims(x->dims(), ctx.op().Attrs());
    const DDim out_dims = OutDims(x->dims(), reduced, ctx.Attr<bool>("keepdim"));
    const std::vector<int64_t> to = OutIndexOf(x->dims(), reduced);
    const T* in = x->data<T>();
    std::vector<double> m(static_cast<size_t>(out_dims.numel()),
                          -std::numeric_limits<double>::infinity());
    for (size_t e = 0; e < to.size(); ++e)
      m[to[e]] = std::max(m[to[e]], static_cast<double>(in[e]));
    std::vector<double> sum(m.size(), 0.0);
    for (size_t e = 0; e < to.size(); ++e) {
      if (std::isfinite(m[to[e]])) sum[to[e]] += std::exp(static_cast<double>(in[e]) - m[to[e]]);
    }
    DenseTensor out(out_dims, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (size_t i = 0; i < m.size(); ++i) {
      o[i] = static_cast<T>(std::isfinite(m[i]) ? m[i] + std::log(sum[i]) : m[i]);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct LogsumexpGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* out = ctx.Input("Out");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const std::vector<bool> reduced = ReducedDims(x->dims(), ctx.op().Attrs());
    const DDim out_dims = OutDims(x->dims(), reduced, ctx.Attr<bool>("keepdim"));
    PL_ENFORCE(out->numel() == out_dims.numel() && dout->numel() == out_dims.numel(),
               errors::InvalidArgument("op `%s`: expected Out and Out@GRAD of shape %s, "
                                       "received %s and %s",
                                       ctx.Type(), out_dims.ToString(), out->dims().ToString(),
                                       dout->dims().ToString()));
    const std::vector<int64_t> to = OutIndexOf(x->dims(), reduced);
    DenseTensor dx(x->dims(), x->dtype());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    const T* y = out->data<T>();
    const T* g = dout->data<T>();
    for (size_t e = 0; e < to.size(); ++e) {
      d[e] = static_cast<T>(static_cast<double>(g[to[e]]) *
                            std::exp(static_cast<double>(in[e]) - static_cast<double>(y[to[e]])));
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterLogsumexpOp) {
  const framework::FusedGradDecl grad{
      {"X", "Out"}, {"Out"}, {"X"}, R"DOC($$dX = dOut \, e^{X - Out}$$)DOC"};
  framework::RegisterOp<LogsumexpOp, LogsumexpOpMaker>(kOp)
      .InferShape(LogsumexpInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<LogsumexpKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("X");
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  });
  RegisterPlainCpuFloatKernels<LogsumexpGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like

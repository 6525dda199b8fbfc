// kthvalue (the k-th smallest value of each line along an axis) and mode (its most frequent
// value), each with the position it came from, as PaddlePaddle's CPU kernels order them; and
// their fused gradients, which send dOut to that position.
//
// kthvalue ranks a NaN below every number (PaddlePaddle's comparator) and equal values by
// increasing position. mode takes the smallest of the most frequent values and the last
// position holding it; NaNs never equal each other, so each counts once.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

template <bool kKth>
class LineStatOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input of any rank (0-D counts as one value).");
    AddOutput("Out", "One value per line along `axis`: X's dims without it (1 with keepdim).");
    AddOutput("Indices", "int64 position of each Out value along `axis` of X.");
    if (kKth) AddAttr<int>("k", "Which smallest value (1 is the minimum).").SetDefault(1);
    AddAttr<int>("axis", "The dim searched; negative values count from the end.").SetDefault(-1);
    AddAttr<bool>("keepdim", "Keep the searched dim as size 1.").SetDefault(false);
    if (kKth) {
      AddComment(R"DOC(
The k-th smallest value along `axis` and its position:
$$Out = X_{\ldots, Indices, \ldots}, \quad Indices = \sigma(k - 1)$$
where sigma orders the line increasingly, a NaN below every number and equal values by
increasing position. Example: X [3, 1, 2, 1], k = 2 -> Out 1, Indices 3.

Gradient, by the fused op kthvalue_grad: $$dX_{\ldots, Indices, \ldots} = dOut$$ and 0
elsewhere.
)DOC");
    } else {
      AddComment(R"DOC(
The most frequent value along `axis` and its position:
$$Out = \min \arg\max_v \#\{j : X_j = v\}, \quad Indices = \max\{j : X_j = Out\}$$
(the smallest of the most frequent values, at the last position holding it; NaNs never
equal each other). Example: X [2, 1, 2, 1, 3] -> Out 1, Indices 3.

Gradient, by the fused op mode_grad: $$dX_{\ldots, Indices, \ldots} = dOut$$ and 0
elsewhere.
)DOC");
    }
  }
};

class LineStatOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

DDim ReducedDims(const DDim& x, const LineView& v, bool keepdim) {
  if (x.size() == 0) return x;
  std::vector<int64_t> dims;
  for (int i = 0; i < x.size(); ++i) {
    if (i != v.axis) {
      dims.push_back(x[i]);
    } else if (keepdim) {
      dims.push_back(1);
    }
  }
  return DDim(dims);
}

void CheckKth(const std::string& op, int64_t k, int64_t n, const DDim& x) {
  PL_ENFORCE(k >= 1 && (n < 0 || k <= n),
             errors::InvalidArgument("op `%s` attribute `k`: expected a value in [1, %lld] (the "
                                     "searched dim of input `X` %s), received %lld",
                                     op, static_cast<long long>(n), x.ToString(),
                                     static_cast<long long>(k)));
}

template <bool kKth>
void LineStatInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const LineView v = ViewAround(ctx->OpType(), x, ctx->Attr<int>("axis"));
  const int64_t n = x.size() == 0 ? 1 : x[v.axis];
  if (kKth) CheckKth(ctx->OpType(), ctx->Attr<int>("k"), n, x);
  PL_ENFORCE(n != 0, errors::InvalidArgument("op `%s` input `X`: the searched dim %d of shape %s "
                                             "is empty",
                                             ctx->OpType(), v.axis, x.ToString()));
  const DDim out = ReducedDims(x, v, ctx->Attr<bool>("keepdim"));
  ctx->SetOutputDim("Out", out);
  if (ctx->HasOutput("Indices")) ctx->SetOutputDim("Indices", out);
}

void LineStatInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
  ctx->SetOutputDataType("Indices", DataType::INT64);
}

// The position of the k-th smallest value of `line` (k from 1).
template <typename T>
int64_t KthPosition(const std::vector<T>& line, int64_t k) {
  std::vector<int64_t> order(line.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  const T* row = line.data();
  std::nth_element(order.begin(), order.begin() + (k - 1), order.end(),
                   [row](int64_t a, int64_t b) {
                     const T p = row[a], q = row[b];
                     const bool p_nan = p != p, q_nan = q != q;
                     if (p_nan != q_nan) return p_nan;
                     if (!p_nan && p != q) return p < q;
                     return a < b;
                   });
  return order[k - 1];
}

// The position of the mode of `line`: the smallest most frequent value, its last position.
template <typename T>
int64_t ModePosition(const std::vector<T>& line) {
  std::vector<int64_t> order(line.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  const T* row = line.data();
  // Numbers increasing (a NaN after them), equal values by position.
  std::sort(order.begin(), order.end(), [row](int64_t a, int64_t b) {
    const T p = row[a], q = row[b];
    const bool p_nan = p != p, q_nan = q != q;
    if (p_nan != q_nan) return q_nan;
    if (!p_nan && p != q) return p < q;
    return a < b;
  });
  int64_t best = order[0], best_count = 0, run = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    ++run;
    const bool run_ends = i + 1 == order.size() || !(row[order[i + 1]] == row[order[i]]);
    if (!run_ends) continue;
    if (run > best_count) {
      best_count = run;
      best = order[i];
    }
    run = 0;
  }
  return best;
}

template <bool kKth>
struct LineStatKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x_t = ctx.Input("X");
      const DDim x_dims = x_t->dims();
      const LineView v = ViewAround(ctx.Type(), x_dims, ctx.Attr<int>("axis"));
      PL_ENFORCE(v.n > 0, errors::InvalidArgument("op `%s` input `X`: the searched dim %d of "
                                                  "shape %s is empty",
                                                  ctx.Type(), v.axis, x_dims.ToString()));
      int64_t k = 1;
      if constexpr (kKth) {
        k = ctx.Attr<int>("k");
        CheckKth(ctx.Type(), k, v.n, x_dims);
      }
      const DDim out_dims = ReducedDims(x_dims, v, ctx.Attr<bool>("keepdim"));
      DenseTensor out_t(out_dims, x_t->dtype());
      DenseTensor idx_t(out_dims, DataType::INT64);
      T* out = out_t.mutable_data<T>(ctx.GetPlace());
      int64_t* idx = idx_t.mutable_data<int64_t>(ctx.GetPlace());
      const T* x = x_t->data<T>();
      std::vector<T> line(static_cast<size_t>(v.n));
      for (int64_t o = 0; o < v.outer; ++o) {
        for (int64_t i = 0; i < v.inner; ++i) {
          for (int64_t j = 0; j < v.n; ++j) line[j] = x[(o * v.n + j) * v.inner + i];
          const int64_t at = kKth ? KthPosition(line, k) : ModePosition(line);
          out[o * v.inner + i] = line[at];
          idx[o * v.inner + i] = at;
        }
      }
      *ctx.Output("Out") = std::move(out_t);
      if (DenseTensor* indices = ctx.Output("Indices")) *indices = std::move(idx_t);
    }
  };
};

void LineStatGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Indices");
  ctx->RequireInput("Out@GRAD");
  if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct LineStatGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DDim x_dims = ctx.Input("X")->dims();
    const DenseTensor* idx_t = ctx.Input("Indices");
    const DenseTensor* dout_t = ctx.Input("Out@GRAD");
    const LineView v = ViewAround(ctx.Type(), x_dims, ctx.Attr<int>("axis"));
    const int64_t lines = v.outer * v.inner;
    PL_ENFORCE(
        idx_t->dtype() == DataType::INT64 && idx_t->numel() == lines && dout_t->numel() == lines,
        errors::InvalidArgument("op `%s` inputs `Indices` and `Out@GRAD`: expected int64 "
                                "and %lld elements each (one per line of X %s along axis "
                                "%d), received %s %s and %s",
                                ctx.Type(), static_cast<long long>(lines), x_dims.ToString(),
                                v.axis, DataTypeName(idx_t->dtype()), idx_t->dims().ToString(),
                                dout_t->dims().ToString()));
    DenseTensor dx_t(x_dims, dout_t->dtype());
    T* dx = dx_t.mutable_data<T>(ctx.GetPlace());
    if (dx_t.numel() > 0) std::memset(dx, 0, sizeof(T) * dx_t.numel());
    const int64_t* idx = idx_t->data<int64_t>();
    const T* dout = dout_t->data<T>();
    for (int64_t o = 0; o < v.outer; ++o) {
      for (int64_t i = 0; i < v.inner; ++i) {
        const int64_t c = idx[o * v.inner + i];
        PL_ENFORCE(c >= 0 && c < v.n,
                   errors::InvalidArgument("op `%s` input `Indices`: expected values in [0, "
                                           "%lld), received %lld",
                                           ctx.Type(), static_cast<long long>(v.n),
                                           static_cast<long long>(c)));
        dx[(o * v.n + c) * v.inner + i] += dout[o * v.inner + i];
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx_t);
  }
};

template <bool kKth>
void RegisterLineStat(const std::string& type) {
  const framework::FusedGradDecl grad{
      {"X", "Indices"},
      {"Out"},
      {"X"},
      R"DOC($$dX_{\ldots, Indices, \ldots} = dOut$$ and 0 elsewhere)DOC"};
  framework::RegisterOp<LineStatOp, LineStatOpMaker<kKth>>(type)
      .InferShape(LineStatInferShape<kKth>)
      .InferVarType(LineStatInferVarType)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuKernels<LineStatKernel<kKth>::template Kernel, float, double, int32_t, int64_t>(
      type);
  framework::RegisterFusedGradOp(type, grad).InferShape(LineStatGradInferShape);
  RegisterPlainCpuFloatKernels<LineStatGradKernel>(type + "_grad");
}

}  // namespace

PL_REGISTER_OPS(RegisterKthvalueModeOps) {
  RegisterLineStat<true>("kthvalue");
  RegisterLineStat<false>("mode");
}

}  // namespace operators
}  // namespace paddle_like

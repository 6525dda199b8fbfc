// The scans beside cumsum: cumprod, logcumsumexp, cummax and cummin, each with a fused
// backward that walks each line once:
// - cumprod_grad without dividing by X (zeros in X are fine): dX_k = P_{k-1} S_k with P the
//   running product before k and S_k = dOut_k + X_{k+1} S_{k+1};
// - logcumsumexp_grad without overflow: dX_k = e^{X_k - Out_k} R_k with
//   R_k = dOut_k + e^{Out_k - Out_{k+1}} R_{k+1}, every exponent at most 0;
// - cummax_grad and cummin_grad: dOut sent to the element each output took.
// Positions are counted in scan order (from the end when `reverse`).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/indexing/index_util.h"
#include "operators/op_family.h"
#include "operators/reduce/cumsum_op.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

// One line of a scan: element `step` (in scan order) sits at data[At(step)].
struct ScanLine {
  int64_t base, len, inner;
  bool reverse;
  int64_t At(int64_t step) const { return base + (reverse ? len - 1 - step : step) * inner; }
};

template <typename Fn>
void ForEachLine(const AxisSplit& s, bool reverse, Fn&& fn) {
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i)
      fn(ScanLine{o * s.axis * s.inner + i, s.axis, s.inner, reverse});
  }
}

class ScanOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("X") ? "X" : "x");
  }
};

void CheckGradDims(const ExecutionContext& ctx, const char* slot, const DDim& want) {
  const DDim got = ctx.Input(slot)->dims();
  PL_ENFORCE(got.numel() == want.numel(),
             errors::InvalidArgument("op `%s` input `%s`: expected %lld elements (shape %s), "
                                     "received shape %s",
                                     ctx.Type(), slot, static_cast<long long>(want.numel()),
                                     want.ToString(), got.ToString()));
}

// ---------------------------------------------------------------- cumprod

class CumprodOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor.");
    AddOutput("Out", "X's shape and dtype.");
    AddAttr<int>("dim", "The dim multiplied along (negative counts from the end).").SetDefault(-1);
    AddAttr<bool>("exclusive", "Leave the current element out of its product.").SetDefault(false);
    AddAttr<bool>("reverse", "Multiply from the last element towards the first.").SetDefault(false);
    AddComment(R"DOC(
Cumulative product along `dim` (index k along it):

$$Out_k = \prod_{j \le k} X_j \;(\text{exclusive: } j < k), \qquad
\text{reverse: } Out_k = \prod_{j \ge k} X_j \;(\text{exclusive: } j > k)$$

Example: X [1, 2, 3] -> [1, 2, 6]; exclusive -> [1, 1, 2]; reverse -> [6, 6, 3].

Gradient, by the fused op cumprod_grad (zeros in X allowed; no division by X):
$$dX_k = \sum_{j \ge k} dOut_j \prod_{i \le j, i \ne k} X_i$$ (the other forms alike).
)DOC");
  }
};

AxisSplit CumprodSplit(const std::string& op, const DDim& dims, int dim) {
  if (dims.size() == 0) return AxisSplit{};
  return SplitAtAxis(dims, NormalizeAxis(op, "attribute `dim`", dim, dims.size()));
}

void CumprodInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  if (x.size() > 0)
    NormalizeAxis(ctx->OpType(), "attribute `dim`", ctx->Attr<int>("dim"), x.size());
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct CumprodKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const AxisSplit s = CumprodSplit(ctx.Type(), x->dims(), ctx.Attr<int>("dim"));
    const bool exclusive = ctx.Attr<bool>("exclusive");
    DenseTensor out(x->dims(), x->dtype());
    out.set_lod(x->lod());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    ForEachLine(s, ctx.Attr<bool>("reverse"), [&](const ScanLine& line) {
      T prod = T(1);
      for (int64_t k = 0; k < line.len; ++k) {
        const int64_t at = line.At(k);
        if (exclusive) {
          o[at] = prod;
          prod *= in[at];
        } else {
          prod *= in[at];
          o[at] = prod;
        }
      }
    });
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct CumprodGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    CheckGradDims(ctx, "Out@GRAD", x->dims());
    const AxisSplit s = CumprodSplit(ctx.Type(), x->dims(), ctx.Attr<int>("dim"));
    const bool exclusive = ctx.Attr<bool>("exclusive");
    DenseTensor dx(x->dims(), x->dtype());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    const T* g = x->numel() > 0 ? ctx.Input("Out@GRAD")->data<T>() : nullptr;
    ForEachLine(s, ctx.Attr<bool>("reverse"), [&](const ScanLine& line) {
      // d holds S_k (T_k when exclusive: the sum over j > k), from the line's end ...
      T acc = T(0);
      for (int64_t k = line.len - 1; k >= 0; --k) {
        const int64_t at = line.At(k);
        if (exclusive) {
          d[at] = acc;
          acc = g[at] + in[at] * acc;
        } else {
          acc = g[at] + (k + 1 < line.len ? in[line.At(k + 1)] * acc : T(0));
          d[at] = acc;
        }
      }
      // ... then times the product of the elements before k.
      T prod = T(1);
      for (int64_t k = 0; k < line.len; ++k) {
        const int64_t at = line.At(k);
        d[at] *= prod;
        prod *= in[at];
      }
    });
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

// ---------------------------------------------------------------- logcumsumexp

class LogcumsumexpOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor.");
    AddOutput("Out", "X's shape (1-D [numel] when flatten), X's dtype.");
    AddAttr<int>("axis", "The dim scanned along (negative counts from the end).").SetDefault(-1);
    AddAttr<bool>("flatten", "Scan X flattened to 1-D (axis ignored).").SetDefault(false);
    AddAttr<bool>("exclusive", "Leave the current element out (the first output is -inf).")
        .SetDefault(false);
    AddAttr<bool>("reverse", "Scan from the last element towards the first.").SetDefault(false);
    AddComment(R"DOC(
Logarithm of the cumulative sum of exponentials along `axis`, computed stably (a running
log-add-exp):

$$Out_k = \log \sum_{j \le k} e^{X_j}$$ (exclusive: j < k; reverse: j >= k, or j > k).

Example: X [0, 0, 0] -> [0, log 2, log 3].

Gradient, by the fused op logcumsumexp_grad (every exponent it takes is at most 0):
$$dX_k = \sum_{j \ge k} dOut_j \, e^{X_k - Out_j}$$ (the other forms alike).
)DOC");
  }
};

void LogcumsumexpInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  if (ctx->Attr<bool>("flatten")) {
    ctx->SetOutputDim("Out", DDim({x.numel()}));
    return;
  }
  if (x.size() > 0)
    NormalizeAxis(ctx->OpType(), "attribute `axis`", ctx->Attr<int>("axis"), x.size());
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
T LogAddExp(T a, T b) {
  if (a == -std::numeric_limits<T>::infinity()) return b;
  if (b == -std::numeric_limits<T>::infinity()) return a;
  const T m = a > b ? a : b;
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

// e^(a - b), 0 where a is -inf (a term that contributes nothing).
template <typename T>
T ExpDiff(T a, T b) {
  return a == -std::numeric_limits<T>::infinity() ? T(0) : std::exp(a - b);
}

template <typename T>
struct LogcumsumexpKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const CumsumPlan p = PlanCumsum(ctx);
    DenseTensor out(p.out_dims, x->dtype());
    out.set_lod(p.out_lod);
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    ForEachLine(p.split, p.reverse, [&](const ScanLine& line) {
      T acc = -std::numeric_limits<T>::infinity();
      for (int64_t k = 0; k < line.len; ++k) {
        const int64_t at = line.At(k);
        if (p.exclusive) {
          o[at] = acc;
          acc = LogAddExp(acc, in[at]);
        } else {
          acc = LogAddExp(acc, in[at]);
          o[at] = acc;
        }
      }
    });
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct LogcumsumexpGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const CumsumPlan p = PlanCumsum(ctx);
    CheckGradDims(ctx, "Out", p.out_dims);
    CheckGradDims(ctx, "Out@GRAD", p.out_dims);
    DenseTensor dx(x->dims(), x->dtype());
    dx.set_lod(x->lod());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    if (x->numel() == 0) {
      *ctx.Output("X@GRAD") = std::move(dx);
      return;
    }
    const T* in = x->data<T>();
    const T* o = ctx.Input("Out")->data<T>();
    const T* g = ctx.Input("Out@GRAD")->data<T>();
    ForEachLine(p.split, p.reverse, [&](const ScanLine& line) {
      // r: the sum over the outputs j that include element k of dOut_j e^{ref - Out_j}, with
      // ref the first such output (Out_k, or Out_{k+1} when exclusive).
      T r = T(0);
      for (int64_t k = line.len - 1; k >= 0; --k) {
        const int64_t at = line.At(k);
        const int64_t first = p.exclusive ? k + 1 : k;  // The first output that includes k.
        if (first >= line.len) {
          d[at] = T(0);
          continue;
        }
        const int64_t ref = line.At(first);
        r = g[ref] + (first + 1 < line.len ? ExpDiff(o[ref], o[line.At(first + 1)]) * r : T(0));
        d[at] = ExpDiff(in[at], o[ref]) * r;
      }
    });
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

// ---------------------------------------------------------------- cummax / cummin

template <bool kMax>
class CumExtremeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    const std::string what = kMax ? "maximum" : "minimum";
    AddInput("x", "Input tensor.");
    AddOutput("out", "The running " + what + ", x's shape and dtype.");
    AddOutput("indices", "Where along `axis` each output's value sits in x.");
    AddAttr<int>("axis", "The dim scanned along (negative counts from the end).").SetDefault(-1);
    AddAttr<int>("dtype", "dtype of `indices`: 2 (int32) or 3 (int64).")
        .SetDefault(3)
        .InEnum({2, 3});
    AddComment(std::string("Running ") + what + " along `axis`:\n\n$$out_k = \\" +
               (kMax ? "max" : "min") +
               R"DOC(_{j \le k} x_j, \qquad indices_k = \text{the } j \text{ it came from}$$

A tie takes the later position; a NaN stays once met (as PyTorch and PaddlePaddle do).
Example: x [1, 3, 2, 3] -> )DOC" +
               (kMax ? std::string("out [1, 3, 3, 3], indices [0, 1, 1, 3]")
                     : std::string("out [1, 1, 1, 1], indices [0, 0, 0, 0]")) +
               R"DOC(.

Gradient, by the fused op: dx_j = the sum of dout_k over the k with indices_k = j.
)DOC");
  }
};

void CumExtremeInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("x");
  const DDim x = ctx->GetInputDim("x");
  if (x.size() > 0)
    NormalizeAxis(ctx->OpType(), "attribute `axis`", ctx->Attr<int>("axis"), x.size());
  ctx->SetOutputDim("out", x);
  ctx->SetOutputDim("indices", x);
  ctx->SetOutputDataType("indices", static_cast<DataType>(ctx->Attr<int>("dtype")));
}

AxisSplit CumExtremeSplit(const ExecutionContext& ctx, const DDim& dims) {
  if (dims.size() == 0) return AxisSplit{};
  return SplitAtAxis(
      dims, NormalizeAxis(ctx.Type(), "attribute `axis`", ctx.Attr<int>("axis"), dims.size()));
}

template <bool kMax>
struct CumExtremeKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x = ctx.Input("x");
      const AxisSplit s = CumExtremeSplit(ctx, x->dims());
      const DataType index_type = static_cast<DataType>(ctx.Attr<int>("dtype"));
      DenseTensor out(x->dims(), x->dtype());
      DenseTensor indices(x->dims(), index_type);
      T* o = out.mutable_data<T>(ctx.GetPlace());
      std::vector<int64_t> pos(static_cast<size_t>(x->numel()));
      const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
      ForEachLine(s, false, [&](const ScanLine& line) {
        int64_t best = 0;
        for (int64_t k = 0; k < line.len; ++k) {
          const T v = in[line.At(k)];
          const T cur = in[line.At(best)];
          const bool takes = v != v || (cur == cur && (kMax ? v >= cur : v <= cur));
          if (k == 0 || takes) best = k;
          o[line.At(k)] = in[line.At(best)];
          pos[line.At(k)] = best;
        }
      });
      if (index_type == DataType::INT32) {
        PL_ENFORCE(s.axis <= std::numeric_limits<int32_t>::max(),
                   errors::InvalidArgument("op `%s` attribute `dtype`: int32 indices cannot hold "
                                           "positions up to %lld",
                                           ctx.Type(), static_cast<long long>(s.axis)));
        int32_t* idx = indices.mutable_data<int32_t>(ctx.GetPlace());
        for (size_t i = 0; i < pos.size(); ++i) idx[i] = static_cast<int32_t>(pos[i]);
      } else {
        int64_t* idx = indices.mutable_data<int64_t>(ctx.GetPlace());
        std::copy(pos.begin(), pos.end(), idx);
      }
      *ctx.Output("out") = std::move(out);
      *ctx.Output("indices") = std::move(indices);
    }
  };
};

template <typename T>
struct CumExtremeGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("x");
    const DenseTensor* indices = ctx.Input("indices");
    CheckGradDims(ctx, "indices", x->dims());
    CheckGradDims(ctx, "out@GRAD", x->dims());
    const AxisSplit s = CumExtremeSplit(ctx, x->dims());
    DenseTensor dx(x->dims(), x->dtype());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    std::fill(d, d + dx.numel(), T(0));
    const T* g = x->numel() > 0 ? ctx.Input("out@GRAD")->data<T>() : nullptr;
    ForEachLine(s, false, [&](const ScanLine& line) {
      for (int64_t k = 0; k < line.len; ++k) {
        const int64_t at = line.At(k);
        const int64_t j = indices->dtype() == DataType::INT32 ? indices->data<int32_t>()[at]
                                                              : indices->data<int64_t>()[at];
        PL_ENFORCE(j >= 0 && j <= k,
                   errors::InvalidArgument("op `%s` input `indices`: expected a position in [0, "
                                           "%lld] at flat index %lld, received %lld",
                                           ctx.Type(), static_cast<long long>(k),
                                           static_cast<long long>(at), static_cast<long long>(j)));
        d[line.At(j)] += g[at];
      }
    });
    *ctx.Output("x@GRAD") = std::move(dx);
  }
};

void SameAsInputGradInferShape(InferShapeContext* ctx, const char* in, const char* grad) {
  ctx->RequireInput(in);
  if (ctx->HasOutput(grad)) ctx->SetOutputDim(grad, ctx->GetInputDim(in));
}

}  // namespace

PL_REGISTER_OPS(RegisterCumulativeOps) {
  const framework::FusedGradDecl cumprod_grad{
      {"X"},
      {"Out"},
      {"X"},
      R"DOC($$dX_k = P_{k-1} S_k, \quad S_k = dOut_k + X_{k+1} S_{k+1}$$)DOC"};
  framework::RegisterOp<ScanOp, CumprodOpMaker>("cumprod")
      .InferShape(CumprodInferShape)
      .GradOpMaker(framework::FusedGradMaker(cumprod_grad))
      .Checkpoint("cumprod with exclusive and reverse",
                  framework::OpVersionDesc()
                      .NewAttr("exclusive", "leave the current element out of its product", false)
                      .NewAttr("reverse", "multiply from the last element", false));
  RegisterPlainCpuKernels<CumprodKernel, float, double, int32_t, int64_t>("cumprod");
  framework::RegisterFusedGradOp("cumprod", cumprod_grad).InferShape([](InferShapeContext* ctx) {
    SameAsInputGradInferShape(ctx, "X", "X@GRAD");
  });
  RegisterPlainCpuFloatKernels<CumprodGradKernel>("cumprod_grad");

  const framework::FusedGradDecl logcumsumexp_grad{
      {"X", "Out"},
      {"Out"},
      {"X"},
      R"DOC($$dX_k = e^{X_k - Out_k} R_k, \quad R_k = dOut_k + e^{Out_k - Out_{k+1}} R_{k+1}$$)DOC"};
  framework::RegisterOp<ScanOp, LogcumsumexpOpMaker>("logcumsumexp")
      .InferShape(LogcumsumexpInferShape)
      .GradOpMaker(framework::FusedGradMaker(logcumsumexp_grad));
  RegisterPlainCpuFloatKernels<LogcumsumexpKernel>("logcumsumexp");
  framework::RegisterFusedGradOp("logcumsumexp", logcumsumexp_grad)
      .InferShape([](InferShapeContext* ctx) { SameAsInputGradInferShape(ctx, "X", "X@GRAD"); });
  RegisterPlainCpuFloatKernels<LogcumsumexpGradKernel>("logcumsumexp_grad");

  for (const bool max : {true, false}) {
    const std::string type = max ? "cummax" : "cummin";
    const framework::FusedGradDecl grad{
        {"x", "indices"}, {"out"}, {"x"}, R"DOC($$dx_j = \sum_{k : indices_k = j} dout_k$$)DOC"};
    framework::OpRegistrar op = max ? framework::RegisterOp<ScanOp, CumExtremeOpMaker<true>>(type)
                                    : framework::RegisterOp<ScanOp, CumExtremeOpMaker<false>>(type);
    op.InferShape(CumExtremeInferShape)
        .InferVarType([](framework::VarTypeInferenceContext* ctx) {
          ctx->SetOutputDataType("out", ctx->GetInputDataType("x"));
          ctx->SetOutputDataType("indices", static_cast<DataType>(ctx->Attr<int>("dtype")));
        })
        .GradOpMaker(framework::FusedGradMaker(grad));
    if (max) {
      RegisterPlainCpuKernels<CumExtremeKernel<true>::Kernel, float, double, int32_t, int64_t>(
          type);
    } else {
      RegisterPlainCpuKernels<CumExtremeKernel<false>::Kernel, float, double, int32_t, int64_t>(
          type);
    }
    framework::RegisterFusedGradOp(type, grad).InferShape([](InferShapeContext* ctx) {
      SameAsInputGradInferShape(ctx, "x", "x@GRAD");
    });
    RegisterPlainCpuFloatKernels<CumExtremeGradKernel>(type + "_grad");
  }
}

}  // namespace operators
}  // namespace paddle_like

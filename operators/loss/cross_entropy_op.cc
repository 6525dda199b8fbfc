// cross_entropy (version 1) and cross_entropy2: the cross entropy of given probabilities X
// against labels along the last dim, with their fused gradient ops.
#include <cstring>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/loss/cross_entropy_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "cross_entropy";
constexpr char kGradOp[] = "cross_entropy_grad";
constexpr char kOp2[] = "cross_entropy2";
constexpr char kGradOp2[] = "cross_entropy_grad2";

// ---- shapes ----

// Checks Label against X ([..., D]); unknown (-1) dims pass at build time. Hard labels have
// X's rank with last dim 1, or X's rank - 1; soft labels have X's dims.
void CheckLabelDims(const std::string& op, const DDim& x, const DDim& label, bool soft) {
  PL_ENFORCE(x.size() >= 1,
             errors::InvalidArgument("op `%s` input `X`: expected rank >= 1, received shape %s", op,
                                     x.ToString()));
  const int rank = x.size();
  const bool short_label = !soft && label.size() == rank - 1;
  PL_ENFORCE(label.size() == rank || short_label,
             errors::InvalidArgument("op `%s` input `Label`: expected rank %d%s (input `X` has "
                                     "shape %s), received shape %s",
                                     op, rank, soft ? "" : " or one less", x.ToString(),
                                     label.ToString()));
  const std::string want = soft ? x.ToString() : WithDimOne(x, rank - 1).ToString();
  for (int i = 0; i < label.size(); ++i) {
    const int64_t w = (i == rank - 1 && !soft) ? 1 : x[i];
    if (w < 0 || label[i] < 0) continue;
    PL_ENFORCE(
        label[i] == w,
        errors::InvalidArgument("op `%s` input `Label`: expected shape %s (%s labels for "
                                "input `X` of shape %s), received %s",
                                op, want, soft ? "soft" : "hard", x.ToString(), label.ToString()));
  }
}

// X's dims from XShape's [0] + X.dims.
DDim DimsFromXShape(const std::string& op, const DDim& xshape) {
  PL_ENFORCE(xshape.size() >= 2,
             errors::InvalidArgument("op `%s` input `XShape`: expected [0] + X.dims with X of "
                                     "rank >= 1, received shape %s",
                                     op, xshape.ToString()));
  return framework::Slice(xshape, 1, xshape.size());
}

// ---- cross_entropy ----

class CrossEntropyOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Probabilities, rank >= 1, classes along the last dim (D of them).");
    AddInput("Label",
             "Hard labels: int64 or int32 class indices with X's dims and last dim 1 (or X's "
             "dims without the last). Soft labels: a floating distribution with X's dims.");
    AddOutput("Y", "The cross entropy: X's dims with last dim 1.");
    AddAttr<bool>("soft_label", "Label is a distribution over the classes.").SetDefault(false);
    AddAttr<int>("ignore_index", "Hard labels equal to this value give Y = 0 and gradient 0.")
        .SetDefault(-100);
    AddComment(R"DOC(
Cross entropy of probabilities (version 1).

hard labels: $$Y = -\log X_{Label}$$ and Y = 0 where Label = ignore_index;

soft labels: $$Y = -\sum_j Label_j \log X_j$$

along the last dim; -log 0 gives 1e20 rather than inf, as in PaddlePaddle. Example:
X [[0.2, 0.8]], Label [[1]] -> Y [[0.2231]].

Gradient, by the fused op cross_entropy_grad (reads X, Label and Y@GRAD; Label gets no
gradient): $$dX_j = -\frac{Label_j}{X_j} dY$$ with Label one-hot for hard labels (0 on
ignore_index rows).
)DOC");
  }
};

class CrossEntropyGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X.");
    AddInput("Label", "The forward op's Label.");
    AddInput("Y@GRAD", "Gradient of the forward op's Y.");
    AddOutput("X@GRAD", "Gradient of X, with X's dims.");
    AddAttr<bool>("soft_label", "As in cross_entropy.").SetDefault(false);
    AddAttr<int>("ignore_index", "As in cross_entropy.").SetDefault(-100);
    AddComment(R"DOC(
Gradient of cross_entropy (fused kernel, not differentiable again):
$$dX_j = -\frac{Label_j}{X_j} dY$$ with Label one-hot for hard labels (0 on ignore_index rows).
)DOC");
  }
};

// The kernel follows X, never a float soft label.
class CrossEntropyOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    const char* slot = ctx.inputs.count("X") ? "X" : "MatchX";
    return InputDataType(ctx, slot);
  }
};

void CrossEntropyInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Label");
  ctx->RequireOutput("Y");
  const DDim x = ctx->GetInputDim("X");
  CheckLabelDims(ctx->OpType(), x, ctx->GetInputDim("Label"), ctx->Attr<bool>("soft_label"));
  ctx->SetOutputDim("Y", WithDimOne(x, x.size() - 1));
  ctx->ShareLoD("X", "Y");
}

void OutputsLikeX(framework::VarTypeInferenceContext* ctx, const char* x_slot,
                  std::initializer_list<const char*> outputs) {
  const DataType dtype = ctx->GetInputDataType(x_slot);
  for (const char* slot : outputs) {
    if (!ctx->HasOutput(slot)) continue;
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(slot, dtype);
  }
}

void CrossEntropyInferVarType(framework::VarTypeInferenceContext* ctx) {
  OutputsLikeX(ctx, "X", {"Y"});
}

template <typename T>
struct CrossEntropyKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x_t = ctx.Input("X");
    const DenseTensor* label = ctx.Input("Label");
    const bool soft = ctx.Attr<bool>("soft_label");
    const int64_t ignore = ctx.Attr<int>("ignore_index");
    CheckLabelDims(kOp, x_t->dims(), label->dims(), soft);
    const int64_t d = x_t->dims()[x_t->dims().size() - 1];
    const int64_t rows = framework::Product(x_t->dims(), 0, x_t->dims().size() - 1);
    DenseTensor* y_t = ctx.Output("Y");
    const T* x = x_t->data<T>();
    T* y = y_t->mutable_data<T>(ctx.GetPlace());
    if (soft) {
      CheckSoftLabelType(kOp, *label, platform::ToDataType<T>());
      const T* l = label->data<T>();
      for (int64_t r = 0; r < rows; ++r) {
        T acc = 0;
        for (int64_t j = 0; j < d; ++j) acc -= l[r * d + j] * TolerableLog(x[r * d + j]);
        y[r] = acc;
      }
      return;
    }
    const IntLabels l(*label, kOp, "Label");
    for (int64_t r = 0; r < rows; ++r) {
      CheckHardLabel(kOp, l[r], d, ignore, r);
      y[r] = l[r] == ignore ? T(0) : -TolerableLog(x[r * d + l[r]]);
    }
  }
};

void CrossEntropyGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Label");
  ctx->RequireInput("Y@GRAD");
  ctx->RequireOutput("X@GRAD");
  const DDim x = ctx->GetInputDim("X");
  CheckLabelDims(ctx->OpType(), x, ctx->GetInputDim("Label"), ctx->Attr<bool>("soft_label"));
  ctx->SetOutputDim("X@GRAD", x);
  ctx->ShareLoD("X", "X@GRAD");
}

void CrossEntropyGradInferVarType(framework::VarTypeInferenceContext* ctx) {
  OutputsLikeX(ctx, "X", {"X@GRAD"});
}

// Checks that dY has one element per row.
void CheckRowGrad(const std::string& op, const char* slot, const DenseTensor& dy, int64_t rows) {
  PL_ENFORCE(dy.numel() == rows,
             errors::InvalidArgument("op `%s` input `%s`: expected %lld elements (one per row), "
                                     "received shape %s",
                                     op, slot, static_cast<long long>(rows), dy.dims().ToString()));
}

template <typename T>
struct CrossEntropyGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x_t = ctx.Input("X");
    const DenseTensor* label = ctx.Input("Label");
    const DenseTensor* dy_t = ctx.Input("Y@GRAD");
    const bool soft = ctx.Attr<bool>("soft_label");
    const int64_t ignore = ctx.Attr<int>("ignore_index");
    CheckLabelDims(kGradOp, x_t->dims(), label->dims(), soft);
    const int64_t d = x_t->dims()[x_t->dims().size() - 1];
    const int64_t rows = framework::Product(x_t->dims(), 0, x_t->dims().size() - 1);
    CheckRowGrad(kGradOp, "Y@GRAD", *dy_t, rows);
    const T* x = x_t->data<T>();
    const T* dy = dy_t->data<T>();
    DenseTensor dx_t(x_t->dims(), x_t->dtype());
    T* dx = dx_t.mutable_data<T>(ctx.GetPlace());
    if (soft) {
      CheckSoftLabelType(kGradOp, *label, platform::ToDataType<T>());
      const T* l = label->data<T>();
      for (int64_t k = 0; k < rows * d; ++k) dx[k] = -l[k] / x[k] * dy[k / d];
    } else {
      const IntLabels l(*label, kGradOp, "Label");
      if (x_t->numel() > 0) std::memset(dx, 0, sizeof(T) * x_t->numel());
      for (int64_t r = 0; r < rows; ++r) {
        CheckHardLabel(kGradOp, l[r], d, ignore, r);
        if (l[r] != ignore) dx[r * d + l[r]] = -dy[r] / x[r * d + l[r]];
      }
    }
    dx_t.set_lod(x_t->lod());
    *ctx.Output("X@GRAD") = std::move(dx_t);
  }
};

void CrossEntropyGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  framework::AttributeMap attrs;
  for (const char* name : {"soft_label", "ignore_index"}) {
    if (g->Forward().HasAttr(name)) attrs[name] = g->Forward().GetAttr(name);
  }
  g->AddOp(kGradOp,
           {{"X", g->Input("X")}, {"Label", g->Input("Label")}, {"Y@GRAD", g->OutputGrad("Y")}},
           {{"X@GRAD", g->InputGrad("X")}}, attrs);
}

// ---- cross_entropy2 ----

class CrossEntropy2OpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Probabilities, rank >= 1, classes along the last dim (D of them).");
    AddInput("Label",
             "int64 or int32 class indices with X's dims and last dim 1 (or X's dims without "
             "the last).");
    AddOutput("Y", "The cross entropy: X's dims with last dim 1.");
    AddOutput("XShape", "[0] + X.dims; carries no data, kept for the grad op.").AsIntermediate();
    AddOutput("MatchX", "X at the label of each row (0 on ignore_index rows); Y's dims.")
        .AsIntermediate();
    AddAttr<int>("ignore_index", "Labels equal to this value give Y = 0 and gradient 0.")
        .SetDefault(-100);
    AddComment(R"DOC(
Cross entropy of probabilities with hard labels (version 2).

$$MatchX = X_{Label}, \quad Y = -\log MatchX$$

along the last dim; Y = MatchX = 0 where Label = ignore_index; -log 0 gives 1e20.

Gradient, by the fused op cross_entropy_grad2, which reads MatchX, Label, XShape and
Y@GRAD (not X): $$dX_j = -\frac{[j = Label]}{MatchX} dY$$
)DOC");
  }
};

class CrossEntropyGrad2OpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("MatchX", "The forward op's MatchX.");
    AddInput("Label", "The forward op's Label.");
    AddInput("XShape", "The forward op's XShape: [0] + X.dims.").AsNoNeedBuffer();
    AddInput("Y@GRAD", "Gradient of the forward op's Y.");
    AddOutput("X@GRAD", "Gradient of X, with X's dims.");
    AddAttr<int>("ignore_index", "As in cross_entropy2.").SetDefault(-100);
    AddComment(R"DOC(
Gradient of cross_entropy2 (fused kernel, not differentiable again):
$$dX_j = -\frac{[j = Label]}{MatchX} dY$$ and 0 on ignore_index rows.
)DOC");
  }
};

void CrossEntropy2InferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Label");
  ctx->RequireOutput("Y");
  const DDim x = ctx->GetInputDim("X");
  CheckLabelDims(ctx->OpType(), x, ctx->GetInputDim("Label"), false);
  const DDim y = WithDimOne(x, x.size() - 1);
  ctx->SetOutputDim("Y", y);
  if (ctx->HasOutput("MatchX")) ctx->SetOutputDim("MatchX", y);
  if (ctx->HasOutput("XShape")) {
    std::vector<int64_t> xs = x.ToVector();
    xs.insert(xs.begin(), 0);
    PL_ENFORCE(xs.size() <= static_cast<size_t>(DDim::kMaxRank),
               errors::InvalidArgument("op `%s` output `XShape`: input `X` of rank %d leaves no "
                                       "room for the leading 0",
                                       ctx->OpType(), x.size()));
    ctx->SetOutputDim("XShape", DDim(xs));
  }
  ctx->ShareLoD("X", "Y");
}

void CrossEntropy2InferVarType(framework::VarTypeInferenceContext* ctx) {
  OutputsLikeX(ctx, "X", {"Y", "XShape", "MatchX"});
}

template <typename T>
struct CrossEntropy2Kernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x_t = ctx.Input("X");
    const DenseTensor* label = ctx.Input("Label");
    const int64_t ignore = ctx.Attr<int>("ignore_index");
    CheckLabelDims(kOp2, x_t->dims(), label->dims(), false);
    const int64_t d = x_t->dims()[x_t->dims().size() - 1];
    const int64_t rows = framework::Product(x_t->dims(), 0, x_t->dims().size() - 1);
    const IntLabels l(*label, kOp2, "Label");
    const T* x = x_t->data<T>();
    T* y = ctx.Output("Y")->mutable_data<T>(ctx.GetPlace());
    DenseTensor* match_t = ctx.Output("MatchX");
    T* match = match_t != nullptr ? match_t->mutable_data<T>(ctx.GetPlace()) : nullptr;
    if (DenseTensor* xshape = ctx.Output("XShape")) {
      xshape->set_lod({});
      xshape->mutable_data<T>(ctx.GetPlace());  // 0 elements: marks it as produced.
    }
    for (int64_t r = 0; r < rows; ++r) {
      CheckHardLabel(kOp2, l[r], d, ignore, r);
      const T m = l[r] == ignore ? T(0) : x[r * d + l[r]];
      if (match != nullptr) match[r] = m;
      y[r] = l[r] == ignore ? T(0) : -TolerableLog(m);
    }
  }
};

void CrossEntropyGrad2InferShape(InferShapeContext* ctx) {
  for (const char* slot : {"MatchX", "Label", "XShape", "Y@GRAD"}) ctx->RequireInput(slot);
  ctx->RequireOutput("X@GRAD");
  const DDim x = DimsFromXShape(ctx->OpType(), ctx->GetInputDim("XShape"));
  CheckLabelDims(ctx->OpType(), x, ctx->GetInputDim("Label"), false);
  ctx->SetOutputDim("X@GRAD", x);
}

void CrossEntropyGrad2InferVarType(framework::VarTypeInferenceContext* ctx) {
  OutputsLikeX(ctx, "MatchX", {"X@GRAD"});
}

template <typename T>
struct CrossEntropyGrad2Kernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* match_t = ctx.Input("MatchX");
    const DenseTensor* label = ctx.Input("Label");
    const DenseTensor* dy_t = ctx.Input("Y@GRAD");
    const int64_t ignore = ctx.Attr<int>("ignore_index");
    const DDim x_dims = DimsFromXShape(kGradOp2, ctx.Input("XShape")->dims());
    CheckLabelDims(kGradOp2, x_dims, label->dims(), false);
    const int64_t d = x_dims[x_dims.size() - 1];
    const int64_t rows = framework::Product(x_dims, 0, x_dims.size() - 1);
    CheckRowGrad(kGradOp2, "Y@GRAD", *dy_t, rows);
    CheckRowGrad(kGradOp2, "MatchX", *match_t, rows);
    const IntLabels l(*label, kGradOp2, "Label");
    const T* match = match_t->data<T>();
    const T* dy = dy_t->data<T>();
    DenseTensor dx_t(x_dims, match_t->dtype());
    T* dx = dx_t.mutable_data<T>(ctx.GetPlace());
    if (x_dims.numel() > 0) std::memset(dx, 0, sizeof(T) * x_dims.numel());
    for (int64_t r = 0; r < rows; ++r) {
      CheckHardLabel(kGradOp2, l[r], d, ignore, r);
      if (l[r] != ignore) dx[r * d + l[r]] = -dy[r] / match[r];
    }
    *ctx.Output("X@GRAD") = std::move(dx_t);
  }
};

void CrossEntropy2GradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  PL_ENFORCE(!g->Output("XShape").empty() && !g->Output("MatchX").empty(),
             errors::InvalidArgument("op `%s` outputs `XShape` and `MatchX`: the gradient reads "
                                     "them, but the op producing `%s` lacks one",
                                     kOp2, g->Output("Y").empty() ? "" : g->Output("Y")[0]));
  framework::AttributeMap attrs;
  if (g->Forward().HasAttr("ignore_index"))
    attrs["ignore_index"] = g->Forward().GetAttr("ignore_index");
  g->AddOp(kGradOp2,
           {{"MatchX", g->Output("MatchX")},
            {"Label", g->Input("Label")},
            {"XShape", g->Output("XShape")},
            {"Y@GRAD", g->OutputGrad("Y")}},
           {{"X@GRAD", g->InputGrad("X")}}, attrs);
}

}  // namespace

PL_REGISTER_OPS(RegisterCrossEntropyOp) {
  framework::RegisterOp<CrossEntropyOp, CrossEntropyOpMaker>(kOp)
      .InferShape(CrossEntropyInferShape)
      .InferVarType(CrossEntropyInferVarType)
      .GradOpMaker(CrossEntropyGradMaker);
  RegisterPlainCpuFloatKernels<CrossEntropyKernel>(kOp);
  framework::RegisterOp<CrossEntropyOp, CrossEntropyGradOpMaker>(kGradOp)
      .InferShape(CrossEntropyGradInferShape)
      .InferVarType(CrossEntropyGradInferVarType);
  RegisterPlainCpuFloatKernels<CrossEntropyGradKernel>(kGradOp);

  framework::RegisterOp<CrossEntropyOp, CrossEntropy2OpMaker>(kOp2)
      .InferShape(CrossEntropy2InferShape)
      .InferVarType(CrossEntropy2InferVarType)
      .GradOpMaker(CrossEntropy2GradMaker);
  RegisterPlainCpuFloatKernels<CrossEntropy2Kernel>(kOp2);
  framework::RegisterOp<CrossEntropyOp, CrossEntropyGrad2OpMaker>(kGradOp2)
      .InferShape(CrossEntropyGrad2InferShape)
      .InferVarType(CrossEntropyGrad2InferVarType);
  RegisterPlainCpuFloatKernels<CrossEntropyGrad2Kernel>(kGradOp2);
}

}  // namespace operators
}  // namespace paddle_like

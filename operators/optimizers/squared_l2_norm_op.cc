// squared_l2_norm (with its gradient), clip_by_global_norm and clip_by_norm: the pieces of
// gradient clipping by norm. Sums run in double, in element order, so results are reproducible.
#include <algorithm>
#include <cmath>

#include "framework/grad_op_maker.h"
#include "framework/selected_rows.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/math/selected_rows_functor.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kNormOp[] = "squared_l2_norm";
constexpr char kNormGradOp[] = "squared_l2_norm_grad";
constexpr char kClipOp[] = "clip_by_global_norm";

class SquaredL2NormOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "The sum of squares of X's elements, shape [1].");
    AddComment(R"DOC(
SquaredL2Norm operator.

$$Out = \sum_i X_i^2$$

The sum is accumulated in double precision in element order (bitwise reproducible), then
stored in X's dtype. Out has shape [1].
)DOC");
  }
};

class SquaredL2NormGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward input.");
    AddInput("Out@GRAD", "Gradient of Out, 1 element.");
    AddOutput("X@GRAD", "Gradient of X, X's shape.");
    AddComment(R"DOC(
Gradient of `squared_l2_norm` (fused kernel, not differentiable again).

$$X@GRAD = 2 \cdot X \cdot Out@GRAD$$
)DOC");
  }
};

void SquaredL2NormInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", DDim{1});
}

void SquaredL2NormGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  const DDim dout = ctx->GetInputDim("Out@GRAD");
  PL_ENFORCE(dout.numel() == -1 || dout.numel() == 1,
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected 1 element, received "
                                     "shape %s",
                                     ctx->OpType(), dout.ToString()));
  if (ctx->HasOutput("X@GRAD")) {
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
    ctx->ShareLoD("X", "X@GRAD");
  }
}

template <typename T>
double SumOfSquares(const T* x, int64_t n) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * static_cast<double>(x[i]);
  return sum;
}

template <typename T>
struct SquaredL2NormKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const double sum = SumOfSquares(x->data<T>(), x->numel());
    DenseTensor* out = ctx.Output("Out");
    out->Resize(DDim{1});
    *out->mutable_data<T>(ctx.GetPlace()) = static_cast<T>(sum);
  }
};

template <typename T>
struct SquaredL2NormGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    PL_ENFORCE(dout->numel() == 1,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected 1 element, received "
                                       "shape %s",
                                       kNormGradOp, dout->dims().ToString()));
    DenseTensor* dx = ctx.Output("X@GRAD");
    if (dx == nullptr) return;
    const T scale = T(2) * dout->data<T>()[0];
    const T* in = x->data<T>();
    DenseTensor fresh(x->dims(), x->dtype());
    T* o = fresh.mutable_data<T>(ctx.GetPlace());
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        x->numel(), 1 << 14, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) o[i] = scale * in[i];
        });
    fresh.set_lod(x->lod());
    *dx = std::move(fresh);
  }
};

void SquaredL2NormGradMaker(framework::GradOpBuilder* g) {
  g->AddOp(kNormGradOp, {{"X", g->Input("X")}, {"Out@GRAD", g->OutputGrad("Out")}},
           {{"X@GRAD", g->InputGrad("X")}});
}

class ClipByGlobalNormOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X",
             "The tensors to clip together (usually the gradients), one dtype; dense tensors "
             "or SelectedRows (sparse gradients).")
        .AsDuplicable();
    AddOutput("Out",
              "The clipped tensors, one per X, same shapes and kinds (may be the X variables).")
        .AsDuplicable();
    AddAttr<float>("max_global_norm", "The largest global norm left unchanged (> 0).");
    AddComment(R"DOC(
ClipByGlobalNorm operator: scales a list of tensors so that their joint L2 norm is at most
max_global_norm.

$$global\_norm = \sqrt{\sum_i \sum_j X_{i,j}^2}$$
$$Out_i = X_i \cdot \frac{max\_global\_norm}{\max(global\_norm, max\_global\_norm)}$$

The sum runs in double over X in list order and element order (bitwise reproducible); the
scaling is done in double. Out_i may be the same variable as X_i: every X is read before any
Out is written. A SelectedRows X_i enters with its duplicate rows merged (the norm of the
dense tensor it stands for), and Out_i is that merged SelectedRows, scaled.
)DOC");
  }
};

class ClipByGlobalNormOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  // Every X must already have the kernel's dtype (checked by the kernel); none is cast.
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

// clip_by_global_norm and clip_by_norm: a finite limit > 0, and Out_i with X_i's dims.
void ClipInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const char* attr = ctx->OpType() == kClipOp ? "max_global_norm" : "max_norm";
  const float max_norm = ctx->Attr<float>(attr);
  PL_ENFORCE(max_norm > 0 && std::isfinite(max_norm),
             errors::InvalidArgument("op `%s` attribute `%s`: expected a finite value > 0, "
                                     "received %g",
                                     ctx->OpType(), attr, static_cast<double>(max_norm)));
  PL_ENFORCE(ctx->InputSize("X") == ctx->OutputSize("Out"),
             errors::InvalidArgument("op `%s` output `Out`: expected %zu variables (one per X), "
                                     "received %zu",
                                     ctx->OpType(), ctx->InputSize("X"), ctx->OutputSize("Out")));
  for (size_t i = 0; i < ctx->InputSize("X"); ++i) {
    ctx->SetOutputDim("Out", ctx->GetInputDim("X", i), i);
  }
}

// Out_i of every X_i takes X_i's kind: a SelectedRows stays sparse.
void ClipByGlobalNormInferVarType(framework::VarTypeInferenceContext* ctx) {
  for (size_t i = 0; i < ctx->InputSize("X") && i < ctx->OutputSize("Out"); ++i) {
    ctx->SetOutputKind("Out", ctx->GetInputKind("X", i), i);
    ctx->SetOutputDataType("Out", ctx->GetInputDataType("X", i), i);
  }
}

// X_i held for clipping: a dense tensor shares its buffer, a SelectedRows enters as its
// merged rows (the dense tensor it stands for). Holding every input first lets an output that
// is the same variable as an input get a new buffer, so no input is overwritten unread.
struct HeldInput {
  DenseTensor values;
  framework::SelectedRows sparse;  // The merged rows, when X_i is a SelectedRows.
  bool is_sparse = false;
};

template <typename T>
HeldInput HoldInput(const ExecutionContext& ctx, size_t i) {
  HeldInput h;
  const framework::Variable* var = ctx.InputVar("X", i);
  if (var->IsType<framework::SelectedRows>()) {
    h.is_sparse = true;
    math::MergeSelectedRows(var->Get<framework::SelectedRows>(), &h.sparse);
    h.values = h.sparse.value();
  } else {
    h.values = *ctx.Input("X", i);
  }
  PL_ENFORCE(h.values.dtype() == platform::ToDataType<T>(),
             errors::InvalidArgument("op `%s` input `X` (variable `%s`): expected %s, received %s",
                                     ctx.Type(), ctx.InputName("X", i),
                                     platform::DataTypeName(platform::ToDataType<T>()),
                                     platform::DataTypeName(h.values.dtype())));
  return h;
}

// Out_i = X_i * scale (computed in double), of X_i's kind.
template <typename T>
void WriteScaled(const ExecutionContext& ctx, size_t i, HeldInput* h, double scale) {
  const DenseTensor& x = h->values;
  DenseTensor scaled(x.dims(), x.dtype());
  const T* in = x.data<T>();
  T* o = scaled.mutable_data<T>(ctx.GetPlace());
  ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
      x.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
        for (int64_t j = begin; j < end; ++j) {
          o[j] = static_cast<T>(static_cast<double>(in[j]) * scale);
        }
      });
  scaled.set_lod(x.lod());
  framework::Variable* out = ctx.OutputVar("Out", i);
  if (h->is_sparse) {
    *h->sparse.mutable_value() = std::move(scaled);
    *out->GetMutable<framework::SelectedRows>() = std::move(h->sparse);
  } else {
    *ctx.Output("Out", i) = std::move(scaled);
  }
}

template <typename T>
struct ClipByGlobalNormKernel {
  static void Compute(const ExecutionContext& ctx) {
    const size_t count = ctx.InputSize("X");
    std::vector<HeldInput> held;
    double sum = 0;
    for (size_t i = 0; i < count; ++i) {
      held.push_back(HoldInput<T>(ctx, i));
      sum += SumOfSquares(held[i].values.data<T>(), held[i].values.numel());
    }
    const double max_norm = ctx.Attr<float>("max_global_norm");
    const double scale = max_norm / std::max(std::sqrt(sum), max_norm);
    for (size_t i = 0; i < count; ++i) WriteScaled<T>(ctx, i, &held[i], scale);
  }
};

// ---- clip_by_norm ----

class ClipByNormOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to clip (usually a gradient): a dense tensor or SelectedRows.");
    AddOutput("Out", "The clipped tensor, X's shape and kind (may be the X variable).");
    AddAttr<float>("max_norm", "The largest L2 norm left unchanged (> 0).");
    AddComment(R"DOC(
ClipByNorm operator: scales X so that its L2 norm is at most max_norm.

$$norm = \sqrt{\sum_j X_j^2}$$
$$Out = \begin{cases} X & norm \le max\_norm \\ X \cdot \frac{max\_norm}{norm} & \text{otherwise} \end{cases}$$

The sum runs in double in element order; the scaling is done in double. A SelectedRows X
enters with its duplicate rows merged (the norm of the dense tensor it stands for), and Out is
that merged SelectedRows, scaled.
)DOC");
  }
};

template <typename T>
struct ClipByNormKernel {
  static void Compute(const ExecutionContext& ctx) {
    HeldInput held = HoldInput<T>(ctx, 0);
    const double norm = std::sqrt(SumOfSquares(held.values.data<T>(), held.values.numel()));
    const double max_norm = ctx.Attr<float>("max_norm");
    WriteScaled<T>(ctx, 0, &held, norm <= max_norm ? 1.0 : max_norm / norm);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSquaredL2NormOp) {
  framework::RegisterOp<OperatorWithKernel, SquaredL2NormOpMaker>(kNormOp)
      .InferShape(SquaredL2NormInferShape)
      .GradOpMaker(SquaredL2NormGradMaker);
  RegisterPlainCpuFloatKernels<SquaredL2NormKernel>(kNormOp);
  framework::RegisterOp<OperatorWithKernel, SquaredL2NormGradOpMaker>(kNormGradOp)
      .InferShape(SquaredL2NormGradInferShape);
  RegisterPlainCpuFloatKernels<SquaredL2NormGradKernel>(kNormGradOp);

  framework::RegisterOp<ClipByGlobalNormOp, ClipByGlobalNormOpMaker>(kClipOp)
      .InferShape(ClipInferShape)
      .InferVarType(ClipByGlobalNormInferVarType);
  RegisterPlainCpuFloatKernels<ClipByGlobalNormKernel>(kClipOp);

  framework::RegisterOp<ClipByGlobalNormOp, ClipByNormOpMaker>("clip_by_norm")
      .InferShape(ClipInferShape)
      .InferVarType(ClipByGlobalNormInferVarType);
  RegisterPlainCpuFloatKernels<ClipByNormKernel>("clip_by_norm");
}

}  // namespace operators
}  // namespace paddle_like

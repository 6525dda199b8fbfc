// matmul_v2: batched matrix product with numpy matmul semantics. Also PaddlePaddle's fused
// grad op type matmul_v2_grad, for programs it built.
#include <complex>
#include <string>
#include <vector>

#include "framework/grad_forward_vars.h"
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/matmul/matmul_compute.h"
#include "operators/matmul/matmul_shape.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "matmul_v2";

class MatmulV2OpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Left operand, rank >= 1.");
    AddInput("Y", "Right operand, rank >= 1.");
    AddOutput("Out", "The product.");
    AddAttr<bool>("trans_x", "Transpose the last two dims of X first.").SetDefault(false);
    AddAttr<bool>("trans_y", "Transpose the last two dims of Y first.").SetDefault(false);
    AddComment(R"DOC(
MatmulV2 operator.

$$Out = op(X) \cdot op(Y), \quad op(A) = A^T \text{ if its trans flag is set, else } A$$

over the last two dims, as numpy.matmul: a 1-D X is read as [1, K] and a 1-D Y as [K, 1]
(their trans flags are then ignored), and those unit dims are dropped from Out (two 1-D
inputs give a 0-D Out). The other dims are batch dims and broadcast right-aligned.
Example: X [2, 1, 3, 4], Y [5, 4, 6] -> Out [2, 5, 3, 6].

Gradients, written with differentiable ops (matmul_v2 with trans flags; reduce_as sums
over batch dims an input was broadcast along; 1-D inputs are unsqueeze2'd to matrices and
their gradients squeeze2'd back):
$$dX = dOut \cdot Y^T, \quad dY = X^T \cdot dOut$$
trans_x: $$dX = Y \cdot dOut^T, \quad dY = X \cdot dOut$$
trans_y: $$dX = dOut \cdot Y, \quad dY = dOut^T \cdot X$$
both: $$dX = Y^T \cdot dOut^T, \quad dY = dOut^T \cdot X^T$$
with complex X and Y conjugated in those products (conj ops): $$dX = dOut \cdot \bar{Y}^T$$
and so on, the gradient of a real loss by z = a + ib being dL/da + i dL/db.
)DOC");
  }
};

class MatmulV2Op : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void MatmulV2InferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  const MatmulV2Shape s = AnalyzeMatmulV2(kOp, ctx->GetInputDim("X"), ctx->GetInputDim("Y"),
                                          ctx->Attr<bool>("trans_x"), ctx->Attr<bool>("trans_y"));
  ctx->SetOutputDim("Out", s.out_dims);
}

template <typename T>
struct MatmulV2Kernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    DenseTensor* out = ctx.Output("Out");
    CheckOperandTypes(kOp, *x, *y, platform::ToDataType<T>());
    const MatmulV2Shape s = AnalyzeMatmulV2(kOp, x->dims(), y->dims(), ctx.Attr<bool>("trans_x"),
                                            ctx.Attr<bool>("trans_y"));
    // The product cannot be written over an operand: use a fresh buffer then.
    DenseTensor fresh(s.out_dims, x->dtype());
    DenseTensor* target = (out == x || out == y) ? &fresh : out;
    T* o = target->mutable_data<T>(ctx.GetPlace());
    MatmulV2Forward<T>(ctx.device_context<platform::CPUDeviceContext>(), s, x->data<T>(),
                       y->data<T>(), T(1), o);
    if (target != out) *out = std::move(fresh);
  }
};

// ---------------------------------------------------------------- gradient

using framework::GradOpBuilder;

DDim ForwardDims(const GradOpBuilder& g, const char* slot) {
  const std::string& name = g.Input(slot)[0];
  const DDim dims = framework::DeclaredForwardDims(g, slot, name);
  PL_ENFORCE(dims.size() >= 1,
             errors::InvalidArgument("op `%s` gradient: input `%s` variable `%s` has shape %s, "
                                     "expected rank >= 1",
                                     kOp, slot, name, dims.ToString()));
  return dims;
}

// Whether the batch dims of `a` (rank >= 2; none for a 1-D operand) cover those of `b`
// at build time, so a product of the broadcast batch shape needs no summing back to `a`.
bool CoversBatch(const DDim& a, const DDim& b) {
  const int ab = a.size() >= 2 ? a.size() - 2 : 0;
  const int bb = b.size() >= 2 ? b.size() - 2 : 0;
  if (ab < bb) return false;
  for (int i = 0; i < ab; ++i) {
    if (a[i] < 0) return false;
  }
  for (int i = 0; i < bb; ++i) {
    const int64_t bd = b[i];
    const int64_t ad = a[ab - bb + i];
    if (bd < 0 || (bd != ad && bd != 1)) return false;
  }
  return true;
}

// Emits the gradient of one operand from the matrix product `product` (shape: broadcast
// batch dims + the operand's matrix dims, unsqueezed when the operand is 1-D).
// `squeeze_axis` removes the unit dim of a 1-D operand (0 if none).
void FinishOperandGrad(GradOpBuilder* g, const char* slot, const std::string& product,
                       bool one_d, int squeeze_axis, bool needs_sum) {
  const std::string grad = g->InputGrad(slot)[0];
  std::string value = product;
  if (one_d) {
    const std::string squeezed = needs_sum ? g->NewTemp(std::string(slot) + "_vec") : grad;
    g->AddOp("squeeze2", {{"X", {value}}}, {{"Out", {squeezed}}},
             {{"axes", std::vector<int>{squeeze_axis}}});
    value = squeezed;
  }
  if (needs_sum) {
    g->AddOp("reduce_as", {{"X", {value}}, {"Target", g->Input(slot)}}, {{"Out", {grad}}},
             {{"axis", -1}});
  }
}

void MatmulV2GradMaker(GradOpBuilder* g) {
  const bool want_x = g->WantsInputGrad("X");
  const bool want_y = g->WantsInputGrad("Y");
  if (!want_x && !want_y) return;
  const DDim x_dims = ForwardDims(*g, "X");
  const DDim y_dims = ForwardDims(*g, "Y");
  const bool x1 = x_dims.size() == 1;
  const bool y1 = y_dims.size() == 1;
  // 1-D operands become matrices ([1, K] and [K, 1]); their trans flags do not apply.
  bool tx = !x1 && g->Attr<bool>("trans_x");
  bool ty = !y1 && g->Attr<bool>("trans_y");
  // Complex operands enter the products conjugated (each is read only by the other's
  // gradient).
  std::string x = want_y ? framework::ConjugatedIfComplex(g, g->Input("X")[0]) : g->Input("X")[0];
  std::string y = want_x ? framework::ConjugatedIfComplex(g, g->Input("Y")[0]) : g->Input("Y")[0];
  std::string dout = g->OutputGrad("Out")[0];
  if (x1) {
    const std::string m = g->NewTemp("x_row");
    g->AddOp("unsqueeze2", {{"X", {x}}}, {{"Out", {m}}}, {{"axes", std::vector<int>{0}}});
    x = m;
  }
  if (y1) {
    const std::string m = g->NewTemp("y_col");
    g->AddOp("unsqueeze2", {{"X", {y}}}, {{"Out", {m}}}, {{"axes", std::vector<int>{1}}});
    y = m;
  }
  if (x1 || y1) {
    // Put back the unit dims the forward op dropped from Out.
    const std::vector<int> axes = x1 && y1 ? std::vector<int>{0, 1}
                                  : x1     ? std::vector<int>{-2}
                                           : std::vector<int>{-1};
    const std::string m = g->NewTemp("dout_matrix");
    g->AddOp("unsqueeze2", {{"X", {dout}}}, {{"Out", {m}}}, {{"axes", axes}});
    dout = m;
  }
  const auto matmul = [g](const std::string& a, const std::string& b, bool ta, bool tb,
                          const std::string& out) {
    g->AddOp(kOp, {{"X", {a}}, {"Y", {b}}}, {{"Out", {out}}},
             {{"trans_x", ta}, {"trans_y", tb}});
  };
  if (want_x) {
    const bool needs_sum = !CoversBatch(x_dims, y_dims);
    const std::string p = x1 || needs_sum ? g->NewTemp("dx_full") : g->InputGrad("X")[0];
    if (!tx && !ty) matmul(dout, y, false, true, p);
    if (tx && !ty) matmul(y, dout, false, true, p);
    if (!tx && ty) matmul(dout, y, false, false, p);
    if (tx && ty) matmul(y, dout, true, true, p);
    FinishOperandGrad(g, "X", p, x1, -2, needs_sum);
  }
  if (want_y) {
    const bool needs_sum = !CoversBatch(y_dims, x_dims);
    const std::string p = y1 || needs_sum ? g->NewTemp("dy_full") : g->InputGrad("Y")[0];
    if (!tx && !ty) matmul(x, dout, true, false, p);
    if (tx && !ty) matmul(x, dout, false, false, p);
    if (!tx && ty) matmul(dout, x, true, false, p);
    if (tx && ty) matmul(dout, x, true, true, p);
    FinishOperandGrad(g, "Y", p, y1, -1, needs_sum);
  }
}

// ---------------------------------------------------------------- PaddlePaddle grad op types

constexpr char kGradOp[] = "matmul_v2_grad";

class MatmulV2GradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X.");
    AddInput("Y", "The forward op's Y.");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape.").AsDispensable();
    AddOutput("Y@GRAD", "Gradient of Y, with Y's shape.").AsDispensable();
    AddAttr<bool>("trans_x", "As in `matmul_v2`.").SetDefault(false);
    AddAttr<bool>("trans_y", "As in `matmul_v2`.").SetDefault(false);
    AddComment(R"DOC(
Gradient of `matmul_v2` as PaddlePaddle's programs hold it (fused kernel, first order
only). Per Out batch, with X and Y read as matrices as in `matmul_v2`:
$$dX = dOut \cdot Y^T, \quad dY = X^T \cdot dOut$$
trans_x: $$dX = Y \cdot dOut^T, \quad dY = X \cdot dOut$$
trans_y: $$dX = dOut \cdot Y, \quad dY = dOut^T \cdot X$$
both: $$dX = Y^T \cdot dOut^T, \quad dY = dOut^T \cdot X^T$$
(complex X and Y conjugated in those products), then summed over the batch dims along
which that input was broadcast (sums in double, in a fixed order). A 1-D input's gradient
is 1-D.
)DOC");
  }
};

void MatmulV2GradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireInput("Out@GRAD");
  const DDim x = ctx->GetInputDim("X");
  const DDim y = ctx->GetInputDim("Y");
  const MatmulV2Shape s =
      AnalyzeMatmulV2(ctx->OpType(), x, y, ctx->Attr<bool>("trans_x"), ctx->Attr<bool>("trans_y"));
  const DDim dout = ctx->GetInputDim("Out@GRAD");
  PL_ENFORCE(dout.HasUnknown() || s.out_dims.HasUnknown() || dout == s.out_dims,
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                     ctx->OpType(), s.out_dims.ToString(), dout.ToString()));
  if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", x);
  if (ctx->HasOutput("Y@GRAD")) ctx->SetOutputDim("Y@GRAD", y);
}

template <typename T>
struct MatmulV2GradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckOperandTypes(kGradOp, *x, *y, platform::ToDataType<T>());
    const MatmulV2Shape s = AnalyzeMatmulV2(kGradOp, x->dims(), y->dims(),
                                            ctx.Attr<bool>("trans_x"), ctx.Attr<bool>("trans_y"));
    PL_ENFORCE(dout->numel() == s.out_dims.numel(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       kGradOp, s.out_dims.ToString(), dout->dims().ToString()));
    DenseTensor* dx = ctx.Output("X@GRAD");
    DenseTensor* dy = ctx.Output("Y@GRAD");
    // Fresh tensors replace the outputs once both are computed: an output may be an input
    // the other gradient reads.
    DenseTensor gx, gy;
    MatmulV2Backward<T>(ctx, s, *x, *y, *dout, T(1), dx ? &gx : nullptr, dy ? &gy : nullptr);
    if (dx != nullptr) *dx = std::move(gx);
    if (dy != nullptr) *dy = std::move(gy);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterMatmulV2Op) {
  framework::RegisterOp<MatmulV2Op, MatmulV2OpMaker>(kOp)
      .InferShape(MatmulV2InferShape)
      .GradOpMaker(MatmulV2GradMaker);
  RegisterPlainCpuKernels<MatmulV2Kernel, float, double, std::complex<float>, std::complex<double>,
                          int32_t, int64_t>(kOp);
  framework::RegisterOp<MatmulV2Op, MatmulV2GradOpMaker>(kGradOp).InferShape(
      MatmulV2GradInferShape);
  RegisterPlainCpuKernels<MatmulV2GradKernel, float, double, std::complex<float>,
                          std::complex<double>>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like

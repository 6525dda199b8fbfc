// mul: matrix product of X and Y after flattening each to 2-D.
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/matmul/matmul_shape.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "mul";

class MulOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Left operand, rank >= 2.");
    AddInput("Y", "Right operand, rank >= 2.");
    AddOutput("Out", "The product, of shape X.dims[:x_num_col_dims] + Y.dims[y_num_col_dims:].");
    AddAttr<int>("x_num_col_dims",
                 "X is flattened to [prod(X.dims[:x_num_col_dims]), prod(the rest)].")
        .SetDefault(1)
        .GreaterThan(0);
    AddAttr<int>("y_num_col_dims",
                 "Y is flattened to [prod(Y.dims[:y_num_col_dims]), prod(the rest)].")
        .SetDefault(1)
        .GreaterThan(0);
    AddComment(R"DOC(
Mul operator.

$$Out = \mathrm{flatten}(X, x\_num\_col\_dims) \cdot \mathrm{flatten}(Y, y\_num\_col\_dims)$$

reshaped to X.dims[:x_num_col_dims] + Y.dims[y_num_col_dims:]. Out keeps X's LoD.
Example: X [2, 3, 4] with x_num_col_dims = 2 is read as [6, 4]; with Y [4, 5] Out is [2, 3, 5].

Gradient, by the fused op `mul_grad` (first order only), with the same flattening:
$$dX = dOut \cdot Y^T, \quad dY = X^T \cdot dOut$$
)DOC");
  }
};

class MulGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X.");
    AddInput("Y", "The forward op's Y.");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with X's shape.").AsDispensable();
    AddOutput("Y@GRAD", "Gradient of Y, with Y's shape.").AsDispensable();
    AddAttr<int>("x_num_col_dims", "As in `mul`.").SetDefault(1).GreaterThan(0);
    AddAttr<int>("y_num_col_dims", "As in `mul`.").SetDefault(1).GreaterThan(0);
    AddComment(R"DOC(
Gradient of `mul` (fused kernel, not differentiable again). With X, Y and dOut flattened
as in `mul` (X to [M, K], Y to [K, N], dOut to [M, N]):
$$dX = dOut \cdot Y^T, \quad dY = X^T \cdot dOut$$
reshaped to the shapes of X and Y.
)DOC");
  }
};

class MulOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void MulInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  const MulShape s = AnalyzeMul(kOp, ctx->GetInputDim("X"), ctx->GetInputDim("Y"),
                                ctx->Attr<int>("x_num_col_dims"), ctx->Attr<int>("y_num_col_dims"));
  ctx->SetOutputDim("Out", s.out_dims);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct MulKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    DenseTensor* out = ctx.Output("Out");
    CheckOperandTypes(kOp, *x, *y, platform::ToDataType<T>());
    const MulShape s = AnalyzeMul(kOp, x->dims(), y->dims(), ctx.Attr<int>("x_num_col_dims"),
                                  ctx.Attr<int>("y_num_col_dims"));
    // The product cannot be written over an operand: use a fresh buffer then.
    DenseTensor fresh(s.out_dims, x->dtype());
    DenseTensor* target = (out == x || out == y) ? &fresh : out;
    T* o = target->mutable_data<T>(ctx.GetPlace());
    math::Gemm<T>(ctx.device_context<platform::CPUDeviceContext>(), false, false, s.M, s.N, s.K,
                  T(1), x->data<T>(), s.K, y->data<T>(), s.N, T(0), o, s.N);
    if (target != out) {
      fresh.set_lod(x->lod());
      *out = std::move(fresh);
    }
  }
};

constexpr char kGradOp[] = "mul_grad";

void MulGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireInput("Out@GRAD");
  const DDim x = ctx->GetInputDim("X");
  const DDim y = ctx->GetInputDim("Y");
  const MulShape s = AnalyzeMul(kGradOp, x, y, ctx->Attr<int>("x_num_col_dims"),
                                ctx->Attr<int>("y_num_col_dims"));
  const DDim dout = ctx->GetInputDim("Out@GRAD");
  PL_ENFORCE(dout.HasUnknown() || s.out_dims.HasUnknown() || dout.numel() == s.out_dims.numel(),
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                     ctx->OpType(), s.out_dims.ToString(), dout.ToString()));
  if (ctx->HasOutput("X@GRAD")) {
    ctx->SetOutputDim("X@GRAD", x);
    ctx->ShareLoD("X", "X@GRAD");
  }
  if (ctx->HasOutput("Y@GRAD")) ctx->SetOutputDim("Y@GRAD", y);
}

template <typename T>
struct MulGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckOperandTypes(kGradOp, *x, *y, platform::ToDataType<T>());
    const MulShape s = AnalyzeMul(kGradOp, x->dims(), y->dims(), ctx.Attr<int>("x_num_col_dims"),
                                  ctx.Attr<int>("y_num_col_dims"));
    PL_ENFORCE(dout->numel() == s.M * s.N,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       kGradOp, s.out_dims.ToString(), dout->dims().ToString()));
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    // Both gradients go to fresh tensors that replace the outputs once both are computed:
    // an output may be an input the other gradient reads.
    DenseTensor* dx = ctx.Output("X@GRAD");
    DenseTensor* dy = ctx.Output("Y@GRAD");
    DenseTensor gx, gy;
    if (dx != nullptr) {
      // dX [M, K] = dOut [M, N] * Y^T (Y stored [K, N]).
      gx = DenseTensor(x->dims(), x->dtype());
      math::Gemm<T>(dev, false, true, s.M, s.K, s.N, T(1), dout->data<T>(), s.N, y->data<T>(),
                    s.N, T(0), gx.mutable_data<T>(ctx.GetPlace()), s.K);
      gx.set_lod(x->lod());
    }
    if (dy != nullptr) {
      // dY [K, N] = X^T (X stored [M, K]) * dOut [M, N].
      gy = DenseTensor(y->dims(), y->dtype());
      math::Gemm<T>(dev, true, false, s.K, s.N, s.M, T(1), x->data<T>(), s.K, dout->data<T>(),
                    s.N, T(0), gy.mutable_data<T>(ctx.GetPlace()), s.N);
    }
    if (dx != nullptr) *dx = std::move(gx);
    if (dy != nullptr) *dy = std::move(gy);
  }
};

// One fused mul_grad op reading X, Y and dOut (not Out).
void MulGradMaker(framework::GradOpBuilder* g) {
  framework::AttributeMap attrs;
  for (const char* name : {"x_num_col_dims", "y_num_col_dims"}) {
    if (g->Forward().HasAttr(name)) attrs[name] = g->Forward().GetAttr(name);
  }
  g->AddOp(kGradOp,
           {{"X", g->Input("X")}, {"Y", g->Input("Y")}, {"Out@GRAD", g->OutputGrad("Out")}},
           {{"X@GRAD", g->InputGrad("X")}, {"Y@GRAD", g->InputGrad("Y")}}, attrs);
}

}  // namespace

PL_REGISTER_OPS(RegisterMulOp) {
  framework::RegisterOp<MulOp, MulOpMaker>(kOp).InferShape(MulInferShape).GradOpMaker(
      MulGradMaker);
  RegisterPlainCpuFloatKernels<MulKernel>(kOp);
  framework::RegisterOp<MulOp, MulGradOpMaker>(kGradOp).InferShape(MulGradInferShape);
  RegisterPlainCpuFloatKernels<MulGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like

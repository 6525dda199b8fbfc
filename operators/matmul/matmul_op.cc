// matmul: PaddlePaddle 1.x's batched matrix product with a scale alpha (matmul_v2 replaced
// it; saved deploy models still hold it). Fused grad op matmul_grad. Both read their operands
// as matmul_v2 operands (AnalyzeMatmulV1) and run matmul_v2's computations on views.
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/matmul/matmul_compute.h"
#include "operators/matmul/matmul_shape.h"
#include "operators/onednn_precision_attrs.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "matmul";

class MatmulOpMaker : public OneDNNPrecisionAttrMaker {
 public:
  void Make() override {
    AddInput("X", "Left operand, rank >= 1.");
    AddInput("Y", "Right operand, rank >= 1.");
    AddOutput("Out", "alpha * op(X) * op(Y).");
    AddAttr<bool>("transpose_X", "Transpose the last two dims of X (a 1-D X is [1, K]) first.")
        .SetDefault(false);
    AddAttr<bool>("transpose_Y", "Transpose the last two dims of Y (a 1-D Y is [K, 1]) first.")
        .SetDefault(false);
    AddAttr<float>("alpha", "Scale of the product.").SetDefault(1.0f);
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    // oneDNN fusions PaddlePaddle's passes may write; refused when set (AnalyzeMatmulV1Op).
    for (const char* name : {"fused_reshape_X", "fused_reshape_Y", "fused_transpose_X",
                             "fused_transpose_Y", "fused_reshape_Out", "fused_transpose_Out"}) {
      AddAttr<std::vector<int>>(name, "oneDNN fusion; must be empty here.")
          .SetDefault(std::vector<int>{})
          .AsExtra();
    }
    AddAttr<int>("head_number", "Multi-head split of the GPU kernel; must be 1 here.")
        .SetDefault(1)
        .AsExtra();
    AddOneDNNPrecisionAttrs(/*use_quantizer=*/false, /*force_fp32_output=*/true);
    AddComment(R"DOC(
Matmul operator (PaddlePaddle 1.x).

$$Out = \alpha \cdot op(X) \cdot op(Y), \quad op(A) = A^T \text{ if its transpose flag is set}$$

over the last two dims. A 1-D X is read as the row [1, K] and a 1-D Y as the column
[K, 1], and the transpose flags then apply to those matrices. Dims before the last two are
batch dims: X and Y must hold the same number of matrices, or one of them a single matrix
(no broadcasting otherwise). Out has the batched operand's batch dims (X's first) and
[M, N]; an M of 1 from a 1-D X and an N of 1 from a 1-D Y are dropped, and an Out with no
dims left is [1]. Example: X [2, 3, 4], Y [4, 5], alpha 0.5 -> Out [2, 3, 5].

Gradient (fused op `matmul_grad`), per matrix, summed over the batches of a single-matrix
operand:
$$dX = \alpha\, dOut \cdot Y^T, \quad dY = \alpha\, X^T \cdot dOut$$
and with the transpose flags as for matmul_v2.
)DOC");
  }
};

class MatmulOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void MatmulInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", AnalyzeMatmulV1Op(ctx->OpType(), ctx->GetInputDim("X"),
                                             ctx->GetInputDim("Y"), ctx->Attrs())
                               .out_dims);
}

// `t` with the dims `dims` (same element count), sharing its buffer.
DenseTensor View(const DenseTensor& t, const DDim& dims) {
  DenseTensor v = t;
  v.Resize(dims);
  return v;
}

template <typename T>
struct MatmulKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    CheckOperandTypes(kOp, *x, *y, platform::ToDataType<T>());
    const MatmulV1Shape s = AnalyzeMatmulV1Op(kOp, x->dims(), y->dims(), ctx.op().Attrs());
    DenseTensor fresh(s.out_dims, x->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    if (fresh.numel() > 0) {
      MatmulV2Forward<T>(ctx.device_context<platform::CPUDeviceContext>(), s.v2,
                         x->numel() > 0 ? x->data<T>() : nullptr,
                         y->numel() > 0 ? y->data<T>() : nullptr, T(ctx.Attr<float>("alpha")),
                         out);
    }
    *ctx.Output("Out") = std::move(fresh);
  }
};

template <typename T>
struct MatmulGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckOperandTypes(op, *x, *y, platform::ToDataType<T>());
    const MatmulV1Shape s = AnalyzeMatmulV1Op(op, x->dims(), y->dims(), ctx.op().Attrs());
    PL_ENFORCE(dout->dims() == s.out_dims,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       op, s.out_dims.ToString(), dout->dims().ToString()));
    DenseTensor* dx = ctx.Output("X@GRAD");
    DenseTensor* dy = ctx.Output("Y@GRAD");
    DenseTensor gx, gy;
    MatmulV2Backward<T>(ctx, s.v2, View(*x, s.x), View(*y, s.y), View(*dout, s.v2.out_dims),
                        T(ctx.Attr<float>("alpha")), dx ? &gx : nullptr, dy ? &gy : nullptr);
    if (dx != nullptr) *dx = View(gx, x->dims());
    if (dy != nullptr) *dy = View(gy, y->dims());
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterMatmulOp) {
  const framework::FusedGradDecl grad{
      {"X", "Y"},
      {"Out"},
      {"X", "Y"},
      R"DOC($$dX = \alpha\, dOut \cdot Y^T, \quad dY = \alpha\, X^T \cdot dOut$$ (per matrix, with the transpose flags as for matmul_v2))DOC"};
  framework::RegisterOp<MatmulOp, MatmulOpMaker>(kOp)
      .InferShape(MatmulInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad))
      .Checkpoint("add attribute fused_reshape_Y (a oneDNN fusion of PaddlePaddle's passes)",
                  framework::OpVersionDesc().NewAttr("fused_reshape_Y", "reshape of Y fused in",
                                                     std::vector<int>{}));
  RegisterPlainCpuFloatKernels<MatmulKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape([](InferShapeContext* ctx) {
    ctx->RequireInput("X");
    ctx->RequireInput("Y");
    if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
    if (ctx->HasOutput("Y@GRAD")) ctx->SetOutputDim("Y@GRAD", ctx->GetInputDim("Y"));
  });
  RegisterPlainCpuFloatKernels<MatmulGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like

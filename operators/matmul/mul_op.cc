// mul: matrix product of X and Y after flattening each to 2-D.
#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/matmul/matmul_shape.h"
#include "operators/registry_table.h"

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

}  // namespace

void RegisterMulOp() {
  framework::RegisterOp<MulOp, MulOpMaker>(kOp).InferShape(MulInferShape);
  RegisterPlainCpuFloatKernels<MulKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

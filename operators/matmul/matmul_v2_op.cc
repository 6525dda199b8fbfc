// matmul_v2: batched matrix product with numpy matmul semantics.
#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/matmul/matmul_shape.h"
#include "operators/registry_table.h"

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
    std::vector<int64_t> x_offsets, y_offsets;
    s.BatchOffsets(&x_offsets, &y_offsets);
    math::BatchedGemm<T>(ctx.device_context<platform::CPUDeviceContext>(), s.trans_x, s.trans_y,
                         s.M, s.N, s.K, T(1), x->data<T>(), x_offsets, s.trans_x ? s.M : s.K,
                         y->data<T>(), y_offsets, s.trans_y ? s.K : s.N, T(0), o, s.N);
    if (target != out) *out = std::move(fresh);
  }
};

}  // namespace

void RegisterMatmulV2Op() {
  framework::RegisterOp<MatmulV2Op, MatmulV2OpMaker>(kOp).InferShape(MatmulV2InferShape);
  RegisterPlainCpuFloatKernels<MatmulV2Kernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

// equal_all: whether two tensors have the same shape and equal elements (paddle.equal_all), as
// one 0-D bool.
#include <string>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "equal_all";

class EqualAllOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The first tensor.");
    AddInput("Y", "The second tensor, X's dtype.");
    AddOutput("Out", "0-D bool tensor.");
    AddComment(R"DOC(
EqualAll operator.

$$Out = \left(\mathrm{dims}(X) = \mathrm{dims}(Y)\right) \wedge \bigwedge_i \left(X_i = Y_i\right)$$

Tensors of different shapes give false (no broadcasting, no error); NaN equals nothing.
Example: X = [1, 2], Y = [1, 2] -> true; Y = [[1, 2]] -> false. Not differentiable.
)DOC");
  }
};

// The kernel follows X's dtype; Y must match (nothing is cast).
class EqualAllOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void EqualAllInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", DDim());
}

void EqualAllInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", DataType::BOOL);
}

template <typename T>
struct EqualAllKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    PL_ENFORCE(x->dtype() == y->dtype(),
               errors::InvalidArgument("op `%s` input `Y`: expected X's dtype %s, received %s", kOp,
                                       platform::DataTypeName(x->dtype()),
                                       platform::DataTypeName(y->dtype())));
    bool equal = x->dims() == y->dims();
    if (equal && x->numel() > 0) {
      const T* a = x->data<T>();
      const T* b = y->data<T>();
      for (int64_t i = 0; i < x->numel() && equal; ++i) equal = a[i] == b[i];
    }
    DenseTensor out(DDim(), DataType::BOOL);
    *out.mutable_data<bool>(ctx.GetPlace()) = equal;
    *ctx.Output("Out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterEqualAllOp) {
  framework::RegisterOp<EqualAllOp, EqualAllOpMaker>(kOp)
      .InferShape(EqualAllInferShape)
      .InferVarType(EqualAllInferVarType);
  RegisterPlainCpuKernels<EqualAllKernel, float, double, int32_t, int64_t, bool>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

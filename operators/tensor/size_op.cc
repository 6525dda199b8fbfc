// size: the number of elements of a tensor, as a 0-D int64 tensor.
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "size";

class SizeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "Tensor of any shape and dtype (its data is not read).").AsNoNeedBuffer();
    AddOutput("Out", "0-D int64 tensor holding the element count of Input.");
    AddComment(R"DOC(
Size operator.

$$Out = \prod_{i} \mathrm{dims}(Input)_i$$

The element count of Input as a 0-D int64 tensor (1 for a 0-D Input, 0 for an empty one).
Example: Input of shape [2, 3, 4] -> Out = 24.

Not differentiable: Out is an integer that does not depend on Input's values.
)DOC");
  }
};

class SizeOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Input");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void SizeInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", DDim());
}

void SizeInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", DataType::INT64);
}

template <typename T>
struct SizeKernel {
  static void Compute(const ExecutionContext& ctx) {
    const int64_t n = ctx.Input("Input")->numel();
    DenseTensor* out = ctx.Output("Out");
    out->Resize(DDim());
    // Out lives where the kernel runs (Input's data is never read, so it is not moved).
    int64_t* o = out->mutable_data<int64_t>(ctx.GetPlace());
    platform::Copy(ctx.GetPlace(), o, platform::CPUPlace(), &n, sizeof(n));
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSizeOp) {
  framework::RegisterOp<SizeOp, SizeOpMaker>(kOp)
      .InferShape(SizeInferShape)
      .InferVarType(SizeInferVarType);
  RegisterPlainKernelsOnEveryDevice<SizeKernel, float, double, int32_t, int64_t, bool>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

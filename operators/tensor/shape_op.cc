// shape: the dims of a tensor, as a 1-D int32 tensor.
#include <complex>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "shape";

class ShapeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "Tensor of any shape and dtype (its data is not read).").AsNoNeedBuffer();
    AddOutput("Out", "1-D int32 tensor holding the dims of Input.");
    AddComment(R"DOC(
Shape operator.

$$Out_i = \mathrm{dims}(Input)_i, \quad i = 0, \dots, \mathrm{rank}(Input) - 1$$

Example: Input of shape [2, 3, 4] -> Out = [2, 3, 4] (int32); a 0-D Input gives an empty Out.
Not differentiable: Out does not depend on Input's values.
)DOC");
  }
};

class ShapeOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Input");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void ShapeInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", DDim({static_cast<int64_t>(ctx->GetInputDim("Input").size())}));
}

void ShapeInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", DataType::INT32);
}

template <typename T>
struct ShapeKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DDim dims = ctx.Input("Input")->dims();
    DenseTensor* out = ctx.Output("Out");
    out->Resize(DDim({static_cast<int64_t>(dims.size())}));
    std::vector<int32_t> values(static_cast<size_t>(dims.size()));
    for (int i = 0; i < dims.size(); ++i) {
      PL_ENFORCE(dims[i] <= INT32_MAX,
                 errors::OutOfRange("op `%s` input `Input`: dim %d is %lld, above int32's "
                                    "range",
                                    kOp, i, static_cast<long long>(dims[i])));
      values[i] = static_cast<int32_t>(dims[i]);
    }
    // Out lives where the kernel runs (Input's data is never read, so it is not moved).
    int32_t* o = out->mutable_data<int32_t>(ctx.GetPlace());
    if (!values.empty()) {
      platform::Copy(ctx.GetPlace(), o, platform::CPUPlace(), values.data(),
                     values.size() * sizeof(int32_t));
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterShapeOp) {
  framework::RegisterOp<ShapeOp, ShapeOpMaker>(kOp)
      .InferShape(ShapeInferShape)
      .InferVarType(ShapeInferVarType);
  RegisterPlainKernelsOnEveryDevice<ShapeKernel, float, double, int32_t, int64_t, bool>(kOp);
  RegisterPlainCpuKernels<ShapeKernel, std::complex<float>, std::complex<double>>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

// size and is_empty: the number of elements of a tensor as a 0-D int64 tensor, and whether it
// is zero as a 0-D bool tensor. Neither reads the tensor's data.
#include <complex>

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

class IsEmptyOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Tensor of any shape and dtype (its data is not read).").AsNoNeedBuffer();
    AddOutput("Out", "0-D bool tensor: whether X has no elements.");
    AddComment(R"DOC(
IsEmpty operator.

$$Out = \left(\prod_{i} \mathrm{dims}(X)_i = 0
ight)$$

Example: X of shape [2, 0] -> true; a 0-D X -> false. Not differentiable.
)DOC");
  }
};

// The kernel follows the dtype of the input in `kSlot` (only its dims are read).
template <const char* kSlot>
class ElementCountOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, kSlot);
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

constexpr char kInput[] = "Input";
constexpr char kX[] = "X";

template <const char* kSlot>
void ElementCountInferShape(InferShapeContext* ctx) {
  ctx->RequireInput(kSlot);
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", DDim());
}

template <DataType kType>
void ElementCountInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", kType);
}

// Writes the 0-D Out on the kernel's place (the input's data is never read, so never moved).
template <typename V>
void WriteScalarOut(const ExecutionContext& ctx, V value) {
  DenseTensor* out = ctx.Output("Out");
  out->Resize(DDim());
  V* o = out->mutable_data<V>(ctx.GetPlace());
  platform::Copy(ctx.GetPlace(), o, platform::CPUPlace(), &value, sizeof(value));
}

template <typename T>
struct SizeKernel {
  static void Compute(const ExecutionContext& ctx) {
    WriteScalarOut<int64_t>(ctx, ctx.Input("Input")->numel());
  }
};

template <typename T>
struct IsEmptyKernel {
  static void Compute(const ExecutionContext& ctx) {
    WriteScalarOut<bool>(ctx, ctx.Input("X")->numel() == 0);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSizeOp) {
  framework::RegisterOp<ElementCountOp<kInput>, SizeOpMaker>(kOp)
      .InferShape(ElementCountInferShape<kInput>)
      .InferVarType(ElementCountInferVarType<DataType::INT64>);
  RegisterPlainKernelsOnEveryDevice<SizeKernel, float, double, int32_t, int64_t, bool>(kOp);
  RegisterPlainCpuKernels<SizeKernel, std::complex<float>, std::complex<double>>(kOp);
  framework::RegisterOp<ElementCountOp<kX>, IsEmptyOpMaker>("is_empty")
      .InferShape(ElementCountInferShape<kX>)
      .InferVarType(ElementCountInferVarType<DataType::BOOL>);
  RegisterPlainKernelsOnEveryDevice<IsEmptyKernel, float, double, int32_t, int64_t, bool>(
      "is_empty");
  RegisterPlainCpuKernels<IsEmptyKernel, std::complex<float>, std::complex<double>>("is_empty");
}

}  // namespace operators
}  // namespace paddle_like

// fill_any_like: a tensor of X's shape filled with one value. The backward builder seeds
// gradients with it (value 1) and fills missing gradients with zeros. fill_zeros_like: the
// zeros of X's shape and dtype, as PaddlePaddle 1.x programs write them.
#include <algorithm>
#include <string>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "fill_any_like";
// The `dtype` value meaning "X's dtype".
constexpr int kDtypeOfX = -1;

class FillAnyLikeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X",
             "Tensor whose shape (and, with dtype = -1, element type) Out takes; its values are "
             "not read.")
        .AsNoNeedBuffer();
    AddOutput("Out", "A tensor of X's shape and LoD filled with `value`.");
    AddAttr<float>("value", "The fill value.").SetDefault(0.0f);
    AddAttr<int>("dtype",
                 "Element type of Out as a VarType number: -1 X's type, 0 bool, 1 int16, "
                 "2 int32, 3 int64, 5 float32, 6 float64, 20 uint8, 21 int8, 23 complex64, "
                 "24 complex128 (the value is the real part).")
        .SetDefault(kDtypeOfX)
        .InEnum({kDtypeOfX, 0, 1, 2, 3, 5, 6, 20, 21, 23, 24});
    AddComment(R"DOC(
FillAnyLike operator.

$$Out[i] = value \quad \text{for every index } i \text{ of a tensor of X's shape}$$

Out has the dtype given by `dtype`, or X's dtype when dtype = -1. Integer dtypes require a
finite value within their range (fractions are truncated toward zero); bool stores
value != 0. Example: X of shape [2, 3], value = 1 -> [[1, 1, 1], [1, 1, 1]].

Gradient: Out does not depend on the values of X, so no gradient flows back:

$$dX = 0$$
)DOC");
  }
};

class FillZerosLikeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Tensor whose shape and element type Out takes; its values are not read.")
        .AsNoNeedBuffer();
    AddOutput("Out", "Zeros of X's shape, dtype and LoD.");
    AddComment(R"DOC(
FillZerosLike operator (fill_any_like with value 0 and X's dtype).

$$Out[i] = 0 \quad \text{for every index } i \text{ of a tensor of X's shape}$$

Gradient: none flows back to X.
)DOC");
  }
};

class FillAnyLikeOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  // The kernel computes in Out's dtype.
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    const int dtype = HasAttr("dtype") ? Attr<int>("dtype") : kDtypeOfX;  // fill_zeros_like
    if (dtype != kDtypeOfX) return static_cast<DataType>(dtype);
    return InputDataType(ctx, "X");
  }
  // X is never read, so it is never converted.
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void FillAnyLikeInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  const int dtype = ctx->Attr<int>("dtype");
  const DataType out =
      dtype == kDtypeOfX ? ctx->GetInputDataType("X") : static_cast<DataType>(dtype);
  if (out != DataType::UNDEFINED) ctx->SetOutputDataType("Out", out);
}

template <typename T>
struct FillAnyLikeKernel {
  static void Compute(const ExecutionContext& ctx) {
    // X must hold a tensor (Input throws otherwise); shape inference gave its dims to Out.
    static_cast<void>(ctx.Input("X"));
    DenseTensor* out = ctx.Output("Out");
    const T value = FillAnyLikeValue<T>(ctx);
    T* o = out->mutable_data<T>(ctx.GetPlace());
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        out->numel(), 1 << 16,
        [&](int64_t begin, int64_t end) { std::fill(o + begin, o + end, value); });
  }
};

template <typename T>
struct FillZerosLikeKernel {
  static void Compute(const ExecutionContext& ctx) {
    static_cast<void>(ctx.Input("X"));
    DenseTensor* out = ctx.Output("Out");
    T* o = out->mutable_data<T>(ctx.GetPlace());
    std::fill(o, o + out->numel(), T(0));
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterFillAnyLikeOp) {
  framework::RegisterOp<FillAnyLikeOp, FillAnyLikeOpMaker>(kOp)
      .InferShape(SameShapeInferShape)
      .InferVarType(FillAnyLikeInferVarType)
      .GradOpMaker(framework::NoGradient);
  // The CUDA kernels (operators/tensor/tensor_op.cu) take float, double, int32, int64 and bool;
  // on a GPU the other types run on the CPU.
  RegisterPlainCpuElementKernels<FillAnyLikeKernel>(kOp);
  // No `dtype` attribute: the op class follows X's dtype.
  framework::RegisterOp<FillAnyLikeOp, FillZerosLikeOpMaker>("fill_zeros_like")
      .InferShape(SameShapeInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuElementKernels<FillZerosLikeKernel>("fill_zeros_like");
}

}  // namespace operators
}  // namespace paddle_like

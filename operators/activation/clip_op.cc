// clip: X limited to [min, max], the bounds as attributes or as one-element tensors Min and
// Max, with PaddlePaddle's fused grad op clip_grad; the math is activation::Clip and ClipGrad
// (parametric_activation.h).
#include <string>

#include "framework/data_transform.h"
#include "operators/activation/parametric_activation.h"
#include "operators/activation/unary_elementwise.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "clip";

class ClipOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddInput("Min", "One-element tensor of X's dtype; overrides the attribute `min`.")
        .AsDispensable();
    AddInput("Max", "One-element tensor of X's dtype; overrides the attribute `max`.")
        .AsDispensable();
    AddOutput("Out", "Output tensor with the shape, dtype and LoD of X.");
    AddAttr<float>("min", "Lower bound (when Min is absent).").SetDefault(0.0f);
    AddAttr<float>("max", "Upper bound (when Max is absent).").SetDefault(0.0f);
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
Clip operator, elementwise (float, double, int32, int64), with bounds from the tensors Min and Max when given, else from
the attributes min and max:

$$Out = \min(\max(X, min), max)$$

min > max is an error. Gradient (fused op `clip_grad`, first order), reading X:
$$dX = dOut \cdot [min < X < max]$$
)DOC");
  }
};

// The bound `slot` (a one-element tensor of X's dtype, read on the host) when given, else
// the attribute `attr`.
double Bound(const ExecutionContext& ctx, const char* slot, const char* attr, DataType x_dtype) {
  if (!ctx.HasInput(slot)) return ctx.Attr<float>(attr);
  const DenseTensor* t = ctx.Input(slot);
  PL_ENFORCE(t->numel() == 1,
             errors::InvalidArgument("op `%s` input `%s`: expected one element, received shape %s",
                                     ctx.Type(), slot, t->dims().ToString()));
  PL_ENFORCE(t->dtype() == x_dtype,
             errors::InvalidArgument("op `%s` input `%s`: expected dtype %s (X's), received %s",
                                     ctx.Type(), slot, platform::DataTypeName(x_dtype),
                                     platform::DataTypeName(t->dtype())));
  const DenseTensor host = framework::OnCpu(*t);
  switch (x_dtype) {
    case DataType::FLOAT64:
      return host.data<double>()[0];
    case DataType::INT32:
      return host.data<int32_t>()[0];
    case DataType::INT64:
      return static_cast<double>(host.data<int64_t>()[0]);
    default:
      return host.data<float>()[0];
  }
}

}  // namespace

namespace activation {

ClipBounds ReadClipBounds(const ExecutionContext& ctx, DataType x_dtype) {
  const ClipBounds b{Bound(ctx, "Min", "min", x_dtype), Bound(ctx, "Max", "max", x_dtype)};
  PL_ENFORCE(!(b.min > b.max),
             errors::InvalidArgument("op `%s`: expected min <= max, received min %s > max %s",
                                     ctx.Type(), std::to_string(b.min), std::to_string(b.max)));
  return b;
}

}  // namespace activation

PL_REGISTER_OPS(RegisterClipOp) {
  const framework::FusedGradDecl grad{
      {"X", "Min", "Max"}, {"Out"}, {"X"}, R"DOC($$dX = dOut \cdot [min < X < max]$$)DOC"};
  framework::RegisterOp<UnaryOp, ClipOpMaker>(kOp)
      .InferShape(SameShapeInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad))
      .Checkpoint("clip with tensor bounds",
                  framework::OpVersionDesc()
                      .NewInput("Min", "one-element tensor overriding the attribute min")
                      .NewInput("Max", "one-element tensor overriding the attribute max"));
  RegisterPlainCpuFloatKernels<UnaryFunctorKernel<activation::Clip>::Kernel>(kOp);
  // Integer tensors too (indices, counts), as PaddlePaddle's; the bounds truncate to X's type.
  RegisterPlainCpuKernels<UnaryFunctorKernel<activation::Clip>::Kernel, int32_t, int64_t>(kOp);
  DeclarePlainInPlace(kOp, {{"X", "Out"}});
  framework::RegisterFusedGradOp(kOp, grad).InferShape(
      [](InferShapeContext* ctx) { UnaryGradInferShape(ctx, "X"); });
  RegisterPlainCpuFloatKernels<UnaryGradFunctorKernel<activation::ClipGrad>::Kernel>(
      std::string(kOp) + "_grad");
  DeclarePlainInPlace(std::string(kOp) + "_grad", {{"Out@GRAD", "X@GRAD"}});
}

}  // namespace operators
}  // namespace paddle_like

// clip: X limited to [min, max], the bounds as attributes or as one-element tensors Min and
// Max, with PaddlePaddle's fused grad op clip_grad.
#include <string>

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
Clip operator, elementwise, with bounds from the tensors Min and Max when given, else from
the attributes min and max:

$$Out = \min(\max(X, min), max)$$

min > max is an error. Gradient (fused op `clip_grad`, first order), reading X:
$$dX = dOut \cdot [min < X < max]$$
)DOC");
  }
};

// The bound `slot` (a one-element tensor) when given, else the attribute `attr`.
template <typename T>
T Bound(const ExecutionContext& ctx, const char* slot, const char* attr) {
  if (!ctx.HasInput(slot)) return static_cast<T>(ctx.Attr<float>(attr));
  const DenseTensor* t = ctx.Input(slot);
  PL_ENFORCE(t->numel() == 1,
             errors::InvalidArgument("op `%s` input `%s`: expected one element, received shape %s",
                                     ctx.Type(), slot, t->dims().ToString()));
  PL_ENFORCE(t->dtype() == platform::ToDataType<T>(),
             errors::InvalidArgument("op `%s` input `%s`: expected dtype %s (X's), received %s",
                                     ctx.Type(), slot,
                                     platform::DataTypeName(platform::ToDataType<T>()),
                                     platform::DataTypeName(t->dtype())));
  return t->data<T>()[0];
}

template <typename T>
struct Bounds {
  T min, max;
};

template <typename T>
Bounds<T> ReadBounds(const ExecutionContext& ctx) {
  const Bounds<T> b{Bound<T>(ctx, "Min", "min"), Bound<T>(ctx, "Max", "max")};
  PL_ENFORCE(!(b.min > b.max),
             errors::InvalidArgument("op `%s`: expected min <= max, received min %s > max %s",
                                     ctx.Type(), std::to_string(b.min), std::to_string(b.max)));
  return b;
}

template <typename T>
struct ClipKernel {
  static void Compute(const ExecutionContext& ctx) {
    const Bounds<T> b = ReadBounds<T>(ctx);
    ComputeUnary<T>(ctx, [=](T x) { return x < b.min ? b.min : (x > b.max ? b.max : x); });
  }
};

template <typename T>
struct ClipGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const Bounds<T> b = ReadBounds<T>(ctx);
    ComputeUnaryGrad<T>(ctx, "X",
                        [=](T x, T dout) { return x > b.min && x < b.max ? dout : T(0); });
  }
};

}  // namespace

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
  RegisterPlainCpuFloatKernels<ClipKernel>(kOp);
  DeclarePlainInPlace(kOp, {{"X", "Out"}});
  framework::RegisterFusedGradOp(kOp, grad).InferShape(
      [](InferShapeContext* ctx) { UnaryGradInferShape(ctx, "X"); });
  RegisterPlainCpuFloatKernels<ClipGradKernel>(std::string(kOp) + "_grad");
  DeclarePlainInPlace(std::string(kOp) + "_grad", {{"Out@GRAD", "X@GRAD"}});
}

}  // namespace operators
}  // namespace paddle_like

// increment: Out = X + step on a one-element tensor (loop counters).
#include <string>

#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class IncrementOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "A tensor of one element.");
    AddOutput("Out", "X + step, X's dtype.");
    AddAttr<float>("step", "The increment.").SetDefault(1.0f);
    AddComment(R"DOC(
Increment: $$Out = X + step$$ for a one-element X (step converted to X's dtype).
)DOC");
  }
};

void IncrementInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  PL_ENFORCE(x.HasUnknown() || x.numel() == 1,
             errors::InvalidArgument("op `%s` input `X`: expected one element, received shape %s",
                                     ctx->OpType(), x.ToString()));
  ctx->SetOutputDim("Out", x);
}

template <typename T>
struct IncrementKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    PL_ENFORCE(x->numel() == 1,
               errors::InvalidArgument("op `%s` input `X`: expected one element, received shape "
                                       "%s",
                                       ctx.Type(), x->dims().ToString()));
    DenseTensor fresh(x->dims(), x->dtype());
    fresh.mutable_data<T>(ctx.GetPlace())[0] =
        static_cast<T>(x->data<T>()[0] + static_cast<T>(ctx.Attr<float>("step")));
    *ctx.Output("Out") = std::move(fresh);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterIncrementOp) {
  framework::RegisterOp<OperatorWithKernel, IncrementOpMaker>("increment")
      .InferShape(IncrementInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"));
  RegisterPlainCpuKernels<IncrementKernel, float, double, int32_t, int64_t>("increment");
}

}  // namespace operators
}  // namespace paddle_like

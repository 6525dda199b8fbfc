// scale: Out = scale * X + bias (or scale * (X + bias)), elementwise.
#include <string>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/hostdevice.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

template <typename T>
struct ScaleFunctor {
  T scale, bias;
  bool bias_after_scale;
  PL_HOSTDEVICE T operator()(T x) const {
    return bias_after_scale ? scale * x + bias : scale * (x + bias);
  }
};

class ScaleOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddInput("ScaleTensor",
             "Optional 1-element tensor (any real dtype); when given, its value replaces the "
             "attribute `scale`.")
        .AsDispensable();
    AddOutput("Out", "Output tensor with the shape, dtype and LoD of X.");
    AddAttr<float>("scale", "The factor X is multiplied by.").SetDefault(1.0f);
    AddAttr<float>("bias", "The term added to X.").SetDefault(0.0f);
    AddAttr<bool>("bias_after_scale",
                  "true: add bias after scaling; false: add bias before scaling.")
        .SetDefault(true);
    AddComment(R"DOC(
Scale operator.

$$Out = scale \cdot X + bias$$  if bias_after_scale (the default), else
$$Out = scale \cdot (X + bias)$$

applied elementwise. A ScaleTensor input, when given, overrides the attribute `scale`.
With X = [1, 2], scale = 2, bias = 1: Out = [3, 5], or [4, 6] with bias_after_scale = false.

Gradient (either placement of bias; ScaleTensor, when given, receives none):

$$dX = scale \cdot dOut$$
)DOC");
  }
};

class ScaleOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  // The kernel computes in X's dtype, whatever the dtype of ScaleTensor.
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    auto it = ctx.inputs.find("X");
    if (it != ctx.inputs.end() && !it->second.empty() && it->second[0]->IsType<DenseTensor>()) {
      return it->second[0]->Get<DenseTensor>().dtype();
    }
    return OperatorWithKernel::IndicateDataType(ctx);
  }
  // ScaleTensor is read in its own dtype.
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot != "ScaleTensor" && OperatorWithKernel::CastsInput(slot, from, to);
  }
};

void ScaleInferShape(InferShapeContext* ctx) {
  SameShapeInferShape(ctx);
  // Out takes X's dtype whatever the dtype of ScaleTensor (no-op at run time).
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
  if (!ctx->HasInput("ScaleTensor")) return;
  const DDim dims = ctx->GetInputDim("ScaleTensor");
  PL_ENFORCE(dims.numel() == 1 || dims.HasUnknown(),
             errors::InvalidArgument(
                 "op `%s` input `ScaleTensor`: expected a tensor of 1 element, received shape %s",
                 ctx->OpType(), dims.ToString()));
}

template <typename T>
struct ScaleCpuKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    double scale = ctx.Attr<float>("scale");
    if (const DenseTensor* s = ctx.Input("ScaleTensor")) {
      DenseTensor as_double;
      framework::CastTensor(*s, DataType::FLOAT64, &as_double);
      scale = as_double.data<double>()[0];
    }
    const ScaleFunctor<T> f{static_cast<T>(scale), static_cast<T>(ctx.Attr<float>("bias")),
                            ctx.Attr<bool>("bias_after_scale")};
    const T* in = x->data<T>();
    T* o = out->mutable_data<T>(ctx.GetPlace());
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        x->numel(), 1 << 14, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) o[i] = f(in[i]);
        });
  }
};

// dX = scale(dOut, scale, bias = 0), itself a differentiable scale op. A given ScaleTensor is
// passed on (the scale op reads it in any real dtype and keeps dOut's shape and dtype).
void ScaleGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  framework::VariableNameMap inputs = {{"X", g->OutputGrad("Out")}};
  if (g->HasInput("ScaleTensor")) inputs["ScaleTensor"] = g->Input("ScaleTensor");
  g->AddOp("scale", inputs, {{"Out", g->InputGrad("X")}},
           {{"scale", g->Attr<float>("scale")}, {"bias", 0.0f}, {"bias_after_scale", true}});
}

}  // namespace

PL_REGISTER_OPS(RegisterScaleOp) {
  framework::RegisterOp<ScaleOp, ScaleOpMaker>("scale")
      .InferShape(ScaleInferShape)
      .GradOpMaker(ScaleGradMaker);
  // Integer tensors too (a decoded tag path, an index): the factor and bias are cast to the
  // element type first, as PaddlePaddle does.
  RegisterPlainCpuKernels<ScaleCpuKernel, float, double, int32_t, int64_t, int8_t, uint8_t,
                          std::complex<float>, std::complex<double>>("scale");
  DeclarePlainInPlace("scale", {{"X", "Out"}});
}

}  // namespace operators
}  // namespace paddle_like

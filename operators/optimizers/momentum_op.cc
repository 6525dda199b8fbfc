// momentum: SGD with (optionally Nesterov) momentum and optional L2 decay.
#include "operators/op_family.h"
#include "operators/optimizers/optimizer_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "momentum";

class MomentumOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Param", "The parameter to update (float32 or float64).");
    AddInput("Grad",
             "The gradient: a DenseTensor of Param's shape, or SelectedRows (absent rows count "
             "as zero gradient).");
    AddInput("Velocity", "The velocity, Param's shape, in the compute dtype.");
    AddInput("LearningRate", "The learning rate, a 1-element tensor.");
    AddInput("MasterParam", "With multi_precision: the parameter in its compute precision.")
        .AsDispensable();
    AddOutput("ParamOut", "The updated parameter (usually the same variable as Param).");
    AddOutput("VelocityOut", "The updated velocity (usually the same variable as Velocity).");
    AddOutput("MasterParamOut", "With multi_precision: the updated MasterParam.").AsDispensable();
    AddAttr<float>("mu", "The momentum coefficient.");
    AddAttr<bool>("use_nesterov", "Use Nesterov momentum.").SetDefault(false);
    AddAttr<std::string>("regularization_method",
                         "\"l2_decay\" adds regularization_coeff * Param to the gradient; \"\" "
                         "adds nothing.")
        .SetDefault("")
        .InEnum({"", "l2_decay"});
    AddAttr<float>("regularization_coeff", "The L2 decay coefficient.").SetDefault(0.0f);
    AddAttr<bool>("multi_precision",
                  "Update MasterParam and write ParamOut as its value converted to Param's dtype.")
        .SetDefault(false);
    AddAttr<float>("rescale_grad", "Factor applied to Grad first.").SetDefault(1.0f);
    AddComment(R"DOC(
Momentum operator.

$$g = rescale\_grad \cdot Grad \; (+\, regularization\_coeff \cdot Param \text{ for l2\_decay})$$
$$VelocityOut = mu \cdot Velocity + g$$
$$ParamOut = Param - LearningRate \cdot (g + mu \cdot VelocityOut) \text{ if use\_nesterov, else }
  Param - LearningRate \cdot VelocityOut$$

With a SelectedRows Grad, rows that are absent have g = rescale_grad * 0 (plus the decay
term), so every velocity still decays. Outputs may be the same variables as their inputs.
)DOC");
  }
};

void MomentumInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Param", "Grad", "Velocity", "LearningRate"}) ctx->RequireInput(slot);
  ctx->RequireOutput("ParamOut");
  ctx->RequireOutput("VelocityOut");
  CheckOneElementInputs(ctx, {"LearningRate"});
  SetOutputDimsLike(
      ctx, {{"ParamOut", "Param"}, {"VelocityOut", "Velocity"}, {"MasterParamOut", "MasterParam"}});
}

void MomentumInferVarType(framework::VarTypeInferenceContext* ctx) {
  SetOutputTypesLike(
      ctx, {{"ParamOut", "Param"}, {"VelocityOut", "Velocity"}, {"MasterParamOut", "MasterParam"}});
}

template <typename T>
struct MomentumKernel {
  static void Compute(const ExecutionContext& ctx) {
    WithComputeType<T>(ctx, [&](auto tag) { Run<decltype(tag)>(ctx); });
  }

  template <typename MT>
  static void Run(const ExecutionContext& ctx) {
    const DenseTensor* param = ctx.Input("Param");
    const DDim dims = param->dims();
    const int64_t n = param->numel();
    CheckStateInput(ctx, "Velocity", platform::ToDataType<MT>(), dims);
    const MT lr = static_cast<MT>(ReadScalarInput(ctx, "LearningRate"));
    const MT mu = static_cast<MT>(ctx.Attr<float>("mu"));
    const MT rescale = static_cast<MT>(ctx.Attr<float>("rescale_grad"));
    const bool l2 = ctx.Attr<std::string>("regularization_method") == "l2_decay";
    const MT coeff = static_cast<MT>(ctx.Attr<float>("regularization_coeff"));
    const bool nesterov = ctx.Attr<bool>("use_nesterov");
    const GradView<T> grad(GetGrad(ctx, dims, platform::ToDataType<T>()), dims);

    // Inputs first, then outputs (which may be the same tensors).
    ParamAccess<T, MT> p = ParamInputs<T, MT>(ctx);
    const MT* v = ctx.Input("Velocity")->data<MT>();
    AllocParamOutputs(ctx, &p);
    MT* v_out = ctx.Output("VelocityOut")->Resize(dims).mutable_data<MT>(ctx.GetPlace());

    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n, 1 << 14, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const MT param_i = p.Get(i);
            MT g = static_cast<MT>(grad[i]) * rescale;
            if (l2) g = g + coeff * param_i;
            const MT velocity = v[i] * mu + g;
            v_out[i] = velocity;
            p.Set(i, nesterov ? param_i - (g + velocity * mu) * lr : param_i - lr * velocity);
          }
        });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterMomentumOp) {
  framework::RegisterOp<OptimizerOp, MomentumOpMaker>(kOp)
      .InferShape(MomentumInferShape)
      .InferVarType(MomentumInferVarType)
      .Checkpoint(
          "Upgrade momentum add 4 attributes [regularization_method, "
          "regularization_coeff, multi_precision, rescale_grad].",
          framework::OpVersionDesc()
              .NewAttr("regularization_method", "\"l2_decay\" or none", std::string())
              .NewAttr("regularization_coeff", "the L2 decay coefficient", 0.0f)
              .NewAttr("multi_precision", "update a master copy of the parameter", false)
              .NewAttr("rescale_grad", "factor applied to Grad first", 1.0f));
  RegisterPlainCpuFloatKernels<MomentumKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

// dropout: zeroes random elements in training and scales in inference (or in training),
// and its gradient op dropout_grad.
//
// The mask is drawn single-threaded in element order from std::mt19937_64, so a given seed
// gives the same mask on every platform: element k is kept when u_k >= dropout_prob, with
// u_k = (engine() >> 11) * 2^-53 uniform in [0, 1).
#include <cstdint>
#include <random>
#include <string>

#include "framework/var_type_inference.h"
#include "operators/nn/nn_op_util.h"
#include "operators/nn/dropout_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "dropout";
constexpr char kGradOp[] = "dropout_grad";

class DropoutOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddInput("Seed", "One-element int32 or int64 tensor: the seed, overriding the attributes.")
        .AsDispensable();
    AddOutput("Out", "The result, with the shape and LoD of X.");
    AddOutput("Mask",
              "uint8 mask of X's shape: 1 where X was kept (all ones in inference). Inference "
              "programs may leave it out; training needs it for the gradient.")
        .AsIntermediate()
        .AsDispensable();
    AddAttr<float>("dropout_prob", "Probability of zeroing an element.")
        .SetDefault(0.5f)
        .InRange(0.0f, 1.0f);
    AddAttr<bool>("is_test", "Inference mode: no randomness.").SetDefault(false);
    AddAttr<std::string>("dropout_implementation",
                         "downgrade_in_infer: scale by (1 - p) in inference; upscale_in_train: "
                         "scale kept elements by 1 / (1 - p) in training.")
        .SetDefault("downgrade_in_infer")
        .InEnum({"downgrade_in_infer", "upscale_in_train"});
    AddAttr<bool>("fix_seed", "Use the `seed` attribute (else the default generator).")
        .SetDefault(false);
    AddAttr<int>("seed", "Seed of the mask when fix_seed is set (0: the default generator).")
        .SetDefault(0);
    AddComment(R"DOC(
Dropout operator. In training, with p = dropout_prob and a mask M of independent
Bernoulli(1 - p) values:

$$Out = X \cdot M \quad \text{(downgrade\_in\_infer)}, \qquad
Out = \frac{X \cdot M}{1 - p} \quad \text{(upscale\_in\_train; zeros when } p = 1)$$

In inference (is_test): $$Out = X \cdot (1 - p)$$ for downgrade_in_infer and Out = X for
upscale_in_train; Mask is all ones.

The seed is the Seed input when given, else `seed` when fix_seed is set; a seed of 0 takes
the next seed of the default generator (FLAGS_random_seed makes that reproducible). The mask
is drawn in element order from std::mt19937_64: element k is kept when
u_k = (engine() >> 11) 2^{-53} >= p.

Gradient (op `dropout_grad`, itself linear in dOut and differentiable again):
$$dX = dOut \cdot M \;\; \text{or} \;\; dX = \frac{dOut \cdot M}{1 - p}$$
in training, and dX = dOut (1 - p) or dX = dOut in inference.
)DOC");
  }
};

class DropoutGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Mask", "The forward op's Mask (not read in inference mode).").AsDispensable();
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("X@GRAD", "Gradient of X, with the shape of Out@GRAD.");
    AddAttr<float>("dropout_prob", "As in `dropout`.").SetDefault(0.5f).InRange(0.0f, 1.0f);
    AddAttr<bool>("is_test", "As in `dropout`.").SetDefault(false);
    AddAttr<std::string>("dropout_implementation", "As in `dropout`.")
        .SetDefault("downgrade_in_infer")
        .InEnum({"downgrade_in_infer", "upscale_in_train"});
    AddComment(R"DOC(
Gradient of `dropout`, linear in dOut:
$$dX = dOut \cdot M \cdot s$$
with s = 1 (downgrade_in_infer) or 1 / (1 - p) (upscale_in_train, 0 when p = 1) in training;
in inference dX = dOut (1 - p) (downgrade_in_infer) or dX = dOut (upscale_in_train).
Its own gradient is dropout_grad again, with the same Mask.
)DOC");
  }
};

void DropoutInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  if (ctx->HasInput("Seed")) {
    const DDim s = ctx->GetInputDim("Seed");
    PL_ENFORCE(s.numel() < 0 || s.numel() == 1,
               errors::InvalidArgument("op `%s` input `Seed`: expected one element, received "
                                       "shape %s",
                                       ctx->OpType(), s.ToString()));
  }
  const DDim x = ctx->GetInputDim("X");
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
  if (ctx->HasOutput("Mask")) ctx->SetOutputDim("Mask", x);
}

void DropoutInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
  ctx->SetOutputDataType("Mask", DataType::UINT8);
}

template <typename T>
struct DropoutKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    const double p = ctx.Attr<float>("dropout_prob");
    const bool upscale = dropout::Upscales(ctx);
    const platform::Place place = ctx.GetPlace();
    const int64_t n = x.numel();
    const T* in = x.data<T>();
    out->Resize(x.dims());
    out->set_lod(x.lod());
    T* o = out->mutable_data<T>(place);
    // Without a Mask output (inference programs) the mask lives only for this call.
    DenseTensor local_mask;
    DenseTensor* mask = ctx.Output("Mask") != nullptr ? ctx.Output("Mask") : &local_mask;
    mask->Resize(x.dims());
    uint8_t* m = mask->mutable_data<uint8_t>(place);
    if (ctx.Attr<bool>("is_test")) {
      const T s = static_cast<T>(dropout::InferScale(p, upscale));
      for (int64_t k = 0; k < n; ++k) {
        o[k] = in[k] * s;
        m[k] = 1;
      }
      return;
    }
    std::mt19937_64 engine(dropout::MaskSeed(ctx));
    for (int64_t k = 0; k < n; ++k) {
      const double u = static_cast<double>(engine() >> 11) * 0x1.0p-53;
      m[k] = u >= p ? 1 : 0;
    }
    const T s = static_cast<T>(dropout::TrainScale(p, upscale));
    for (int64_t k = 0; k < n; ++k) o[k] = m[k] != 0 ? in[k] * s : T(0);
  }
};

void DropoutGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("X@GRAD");
  const DDim dout = ctx->GetInputDim("Out@GRAD");
  if (ctx->HasInput("Mask")) {
    const DDim mask = ctx->GetInputDim("Mask");
    PL_ENFORCE(mask.HasUnknown() || dout.HasUnknown() || mask == dout,
               errors::InvalidArgument("op `%s` input `Mask`: expected the shape of `Out@GRAD` "
                                       "%s, received %s",
                                       ctx->OpType(), dout.ToString(), mask.ToString()));
  }
  ctx->SetOutputDim("X@GRAD", dout);
  ctx->ShareLoD("Out@GRAD", "X@GRAD");
}

void DropoutGradInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("X@GRAD", ctx->GetInputDataType("Out@GRAD"));
}

template <typename T>
struct DropoutGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    DenseTensor* dx = ctx.Output("X@GRAD");
    const double p = ctx.Attr<float>("dropout_prob");
    const bool upscale = dropout::Upscales(ctx);
    const bool is_test = ctx.Attr<bool>("is_test");
    const int64_t n = dout.numel();
    const T* g = dout.data<T>();
    // A local copy keeps the mask's buffer alive even if X@GRAD is the Mask variable.
    const DenseTensor mask = is_test ? DenseTensor() : dropout::GradMask(ctx, dout);
    dx->Resize(dout.dims());
    dx->set_lod(dout.lod());
    T* o = dx->mutable_data<T>(ctx.GetPlace());
    if (is_test) {
      const T s = static_cast<T>(dropout::InferScale(p, upscale));
      for (int64_t k = 0; k < n; ++k) o[k] = g[k] * s;
      return;
    }
    const uint8_t* m = mask.data<uint8_t>();
    const T s = static_cast<T>(dropout::TrainScale(p, upscale));
    for (int64_t k = 0; k < n; ++k) o[k] = m[k] != 0 ? g[k] * s : T(0);
  }
};

framework::AttributeMap GradAttrs(const framework::OpDesc& op) {
  return PickAttrs(op, {"dropout_prob", "is_test", "dropout_implementation"});
}

// dropout_grad reads the Mask (in training) and dOut; not X or Out.
void DropoutGradMaker(framework::GradOpBuilder* g) {
  framework::VariableNameMap inputs = {{"Out@GRAD", g->OutputGrad("Out")}};
  if (!BoolAttrOr(g->Forward(), "is_test", false)) {
    PL_ENFORCE(g->Forward().HasOutput("Mask"),
               errors::InvalidArgument("op `%s` output `Mask`: the gradient in training reads "
                                       "the mask, but the op has no Mask output",
                                       kOp));
    inputs["Mask"] = g->Output("Mask");
  }
  g->AddOp(kGradOp, inputs, {{"X@GRAD", g->InputGrad("X")}}, GradAttrs(g->Forward()));
}

// dropout_grad is linear in Out@GRAD with the same factors: its gradient is itself.
void DropoutGradGradMaker(framework::GradOpBuilder* g) {
  framework::VariableNameMap inputs = {{"Out@GRAD", g->OutputGrad("X@GRAD")}};
  if (g->HasInput("Mask") && !g->Input("Mask").empty()) inputs["Mask"] = g->Input("Mask");
  g->AddOp(kGradOp, inputs, {{"X@GRAD", g->InputGrad("Out@GRAD")}}, GradAttrs(g->Forward()));
}

}  // namespace

PL_REGISTER_OPS(RegisterDropoutOp) {
  framework::RegisterOp<XTypedOp, DropoutOpMaker>(kOp)
      .InferShape(DropoutInferShape)
      .InferVarType(DropoutInferVarType)
      .GradOpMaker(DropoutGradMaker);
  RegisterPlainCpuFloatKernels<DropoutKernel>(kOp);
  framework::RegisterOp<OperatorWithKernel, DropoutGradOpMaker>(kGradOp)
      .InferShape(DropoutGradInferShape)
      .InferVarType(DropoutGradInferVarType)
      .GradOpMaker(DropoutGradGradMaker);
  RegisterPlainCpuFloatKernels<DropoutGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like

// fc: a fully connected layer in one op, act(flatten(Input) W + Bias), as PaddlePaddle's fc
// (what inference/passes' fc_fuse_pass makes of mul / matmul_v2 + elementwise_add [+ act]).
// Inference only: no gradient.
#include <string>
#include <vector>

#include "operators/activation/fused_activation.h"
#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/matmul/fc_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {
constexpr char kOp[] = "fc";
}  // namespace

FusedActivation FcActivation(const framework::AttributeMap& attrs) {
  framework::AttributeMap as_conv;
  for (const char* name : {"fuse_alpha", "fuse_beta"}) {
    if (attrs.count(name)) as_conv[name] = attrs.at(name);
  }
  if (attrs.count("activation_type")) as_conv["fuse_activation"] = attrs.at("activation_type");
  return ReadFusedActivation(kOp, as_conv);
}

MulShape CheckFc(const framework::AttributeMap& attrs, const framework::DDim& input,
                 const framework::DDim& w, const framework::DDim* bias) {
  PL_ENFORCE(w.size() == 2,
             errors::InvalidArgument("op `fc` input `W`: expected rank 2 [K, N], received shape %s",
                                     w.ToString()));
  auto padding = attrs.find("padding_weights");
  PL_ENFORCE(padding == attrs.end() || !std::get<bool>(padding->second),
             errors::Unimplemented("op `fc` attribute `padding_weights`: padded weights are not "
                                   "supported"));
  const MulShape s = AnalyzeMul(kOp, input, w, std::get<int>(attrs.at("in_num_col_dims")), 1);
  if (bias != nullptr) {
    const bool fits =
        (bias->size() == 1 || (bias->size() == 2 && (*bias)[0] == 1)) &&
        (s.N < 0 || (*bias)[bias->size() - 1] < 0 || (*bias)[bias->size() - 1] == s.N);
    PL_ENFORCE(fits,
               errors::InvalidArgument("op `fc` input `Bias`: expected shape [%d] or [1, %d], "
                                       "received %s",
                                       s.N, s.N, bias->ToString()));
  }
  FcActivation(attrs);
  return s;
}

namespace {

class FcOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "Input of rank >= 2, read as [prod(dims[:in_num_col_dims]), K].");
    AddInput("W", "Weights [K, N].");
    AddInput("Bias", "Bias [N] or [1, N], added to each row.").AsDispensable();
    AddOutput("Out", "Input.dims[:in_num_col_dims] + [N].");
    AddAttr<int>("in_num_col_dims", "Input is flattened to [prod(dims[:k]), prod(dims[k:])].")
        .SetDefault(1)
        .GreaterThan(0);
    AddAttr<std::string>("activation_type",
                         "Activation applied last: \"\" (none), relu, or another name of "
                         "operators/activation/fused_activation.h (parameters fuse_alpha, "
                         "fuse_beta).")
        .SetDefault("");
    AddAttr<float>("fuse_alpha", "First parameter of the activation.").SetDefault(0.0f).AsExtra();
    AddAttr<float>("fuse_beta", "Second parameter of the activation.").SetDefault(0.0f).AsExtra();
    AddAttr<bool>("padding_weights", "PaddlePaddle's padded-weights layout; must be false.")
        .SetDefault(false);
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
Fully connected layer. With Input flattened to X [M, K] (k = in_num_col_dims):
$$Out[m, n] = act\left(\sum_{j=0}^{K-1} X[m, j] \, W[j, n] + Bias[n]\right)$$
reshaped to Input.dims[:k] + [N]; Out keeps Input's LoD. Example: Input [2, 3, 4] with
k = 2, W [4, 5] give Out [2, 3, 5].
)DOC");
  }
};

class FcOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void FcInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("W");
  ctx->RequireOutput("Out");
  const framework::DDim bias = ctx->HasInput("Bias") ? ctx->GetInputDim("Bias") : framework::DDim();
  const MulShape s = CheckFc(ctx->Attrs(), ctx->GetInputDim("Input"), ctx->GetInputDim("W"),
                             ctx->HasInput("Bias") ? &bias : nullptr);
  ctx->SetOutputDim("Out", s.out_dims);
  ctx->ShareLoD("Input", "Out");
}

template <typename T>
struct FcKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("Input");
    const DenseTensor* w = ctx.Input("W");
    const DenseTensor* bias = ctx.HasInput("Bias") ? ctx.Input("Bias") : nullptr;
    DenseTensor* out = ctx.Output("Out");
    CheckOperandTypes(kOp, *x, *w, platform::ToDataType<T>());
    const MulShape s = CheckFc(ctx.op().Attrs(), x->dims(), w->dims(), bias ? &bias->dims() : nullptr);
    // The result cannot be written over an operand: use a fresh buffer then.
    DenseTensor fresh(s.out_dims, x->dtype());
    DenseTensor* target = (out == x || out == w || out == bias) ? &fresh : out;
    target->Resize(s.out_dims);
    target->set_dtype(x->dtype());
    T* o = target->mutable_data<T>(ctx.GetPlace());
    if (s.M > 0 && s.N > 0) {
      math::Gemm<T>(ctx.device_context<platform::CPUDeviceContext>(), false, false, s.M, s.N, s.K,
                    T(1), x->data<T>(), s.K, w->data<T>(), s.N, T(0), o, s.N);
      if (bias != nullptr) {
        const T* b = bias->data<T>();
        for (int64_t m = 0; m < s.M; ++m) {
          for (int64_t n = 0; n < s.N; ++n) o[m * s.N + n] += b[n];
        }
      }
      ApplyFusedActivation(FcActivation(ctx.op().Attrs()), o, s.M * s.N);
    }
    target->set_lod(x->lod());
    if (target != out) *out = std::move(fresh);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterFcOp) {
  framework::RegisterOp<FcOp, FcOpMaker>(kOp).InferShape(FcInferShape);
  RegisterPlainCpuFloatKernels<FcKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

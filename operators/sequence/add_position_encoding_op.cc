// add_position_encoding: X scaled plus the sinusoidal position encoding of each element's place
// in its sequence (a padded batch [N, T, D], or a LoD tensor [total, D]), as the Transformer
// models of PaddlePaddle's model zoo add it.
#include <cmath>
#include <string>

#include "framework/fused_grad_op.h"
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "add_position_encoding";

class AddPositionEncodingOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, T, D] (a padded batch) or [total, D] with a level-1 LoD; D even.");
    AddOutput("Out", "X's shape and LoD.");
    AddAttr<float>("alpha", "The scale of X.").SetDefault(1.0f);
    AddAttr<float>("beta", "The scale of the encoding.").SetDefault(1.0f);
    AddComment(R"DOC(
Add position encoding. For position t of a sequence (from 0) and h = D / 2, k < h:
$$\omega_k = \frac{t}{10000^{k / (h - 1)}} \;(h > 1), \quad \frac{t}{10000} \;(h = 1)$$
$$Out_{t,k} = \alpha X_{t,k} + \beta \sin\omega_k, \quad
Out_{t,h+k} = \alpha X_{t,h+k} + \beta \cos\omega_k$$
Gradient: dX = alpha dOut (a scale op, so differentiable again).
)DOC");
  }
};

class AddPositionEncodingOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void AddPositionEncodingInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  PL_ENFORCE(x.size() == 2 || x.size() == 3,
             errors::InvalidArgument("op `%s` input `X`: expected [N, T, D] or [total, D] with a "
                                     "LoD, received %s",
                                     kOp, x.ToString()));
  const int64_t d = x[x.size() - 1];
  PL_ENFORCE(d < 0 || d % 2 == 0,
             errors::InvalidArgument("op `%s` input `X`: expected an even feature size D, "
                                     "received %s",
                                     kOp, x.ToString()));
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct AddPositionEncodingKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DDim dims = x->dims();
    const double alpha = ctx.Attr<float>("alpha"), beta = ctx.Attr<float>("beta");
    // Each sequence's first row and length.
    std::vector<std::pair<int64_t, int64_t>> seqs;
    int64_t d = 0;
    if (x->lod().empty()) {
      PL_ENFORCE(dims.size() == 3,
                 errors::InvalidArgument("op `%s` input `X`: expected [N, T, D] without a LoD, "
                                         "received %s",
                                         kOp, dims.ToString()));
      d = dims[2];
      for (int64_t i = 0; i < dims[0]; ++i) seqs.emplace_back(i * dims[1], dims[1]);
    } else {
      PL_ENFORCE(dims.size() == 2,
                 errors::InvalidArgument("op `%s` input `X`: expected [total, D] with a LoD, "
                                         "received %s",
                                         kOp, dims.ToString()));
      d = dims[1];
      const std::vector<size_t>& lod = SequenceOffsets(kOp, "X", *x, 1);
      for (size_t i = 0; i + 1 < lod.size(); ++i) {
        seqs.emplace_back(static_cast<int64_t>(lod[i]), static_cast<int64_t>(lod[i + 1] - lod[i]));
      }
    }
    PL_ENFORCE(d % 2 == 0,
               errors::InvalidArgument("op `%s` input `X`: expected an even feature size D, "
                                       "received %s",
                                       kOp, dims.ToString()));
    const int64_t half = d / 2;
    DenseTensor out(dims, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* xd = x->data<T>();
    for (const auto& [first, length] : seqs) {
      for (int64_t t = 0; t < length; ++t) {
        const T* xr = xd + (first + t) * d;
        T* orow = o + (first + t) * d;
        for (int64_t k = 0; k < half; ++k) {
          const double w =
              half > 1 ? t / std::pow(10000.0, static_cast<double>(k) / (half - 1)) : t / 10000.0;
          orow[k] = static_cast<T>(xr[k] * alpha + std::sin(w) * beta);
          orow[half + k] = static_cast<T>(xr[half + k] * alpha + std::cos(w) * beta);
        }
      }
    }
    out.set_lod(x->lod());
    *ctx.Output("Out") = std::move(out);
  }
};

// PaddlePaddle's add_position_encoding_grad (in the programs it saves with their backward).
template <typename T>
struct AddPositionEncodingGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const T alpha = static_cast<T>(ctx.Attr<float>("alpha"));
    DenseTensor dx(dout->dims(), dout->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < dout->numel(); ++i) g[i] = dout->data<T>()[i] * alpha;
    dx.set_lod(dout->lod());
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

// dX = alpha dOut, written as a scale op so that it differentiates again.
void AddPositionEncodingGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp("scale", {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
           {{"scale", g->Attr<float>("alpha")}, {"bias", 0.0f}, {"bias_after_scale", true}});
}

}  // namespace

PL_REGISTER_OPS(RegisterAddPositionEncodingOp) {
  framework::RegisterOp<AddPositionEncodingOp, AddPositionEncodingOpMaker>(kOp)
      .InferShape(AddPositionEncodingInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(AddPositionEncodingGradMaker);
  RegisterPlainCpuFloatKernels<AddPositionEncodingKernel>(kOp);
  const framework::FusedGradDecl grad{{}, {"Out"}, {"X"}, R"DOC($$dX = \alpha \, dOut$$)DOC"};
  framework::RegisterFusedGradOp(kOp, grad).InferShape(
      [](InferShapeContext* ctx) { ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("Out@GRAD")); });
  RegisterPlainCpuFloatKernels<AddPositionEncodingGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like

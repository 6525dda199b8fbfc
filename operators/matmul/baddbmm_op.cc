// baddbmm: Beta * Input + Alpha * X Y for a batch of matrices, Input broadcast to the
// product's shape (paddle.baddbmm). The gradient is written with matmul_v2, scale and
// reduce_as, so it can be differentiated again.
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/math/broadcast.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "baddbmm";

class BaddbmmOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "Broadcasts (NumPy rules) to [B, M, N].");
    AddInput("X", "[B, M, K].");
    AddInput("Y", "[B, K, N].");
    AddOutput("Out", "[B, M, N].");
    AddAttr<float>("Beta", "Scale of Input.").SetDefault(1.0f);
    AddAttr<float>("Alpha", "Scale of X Y.").SetDefault(1.0f);
    AddComment(R"DOC(
Batched add and matrix-multiply, for every batch b:

$$Out_b = \beta \, Input_b + \alpha \, X_b Y_b$$

with Input broadcast to [B, M, N]. Example: Input = [[1]], X = [[[1, 2]]],
Y = [[[3], [4]]], alpha 1, beta 2 -> [[[13]]].

Gradient (written with differentiable ops): dInput = beta dOut summed over Input's broadcast
dims, dX = alpha dOut Y^T, dY = alpha X^T dOut.
)DOC");
  }
};

class BaddbmmOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

// [B, M, N] after checking X, Y and Input (unknown dims, -1, pass at program-build time).
DDim OutDims(const std::string& op, const DDim& input, const DDim& x, const DDim& y) {
  PL_ENFORCE(x.size() == 3, errors::InvalidArgument("op `%s` input `X`: expected rank 3 "
                                                    "[B, M, K], received %s",
                                                    op, x.ToString()));
  const auto same = [](int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; };
  PL_ENFORCE(y.size() == 3 && same(x[0], y[0]) && same(x[2], y[1]),
             errors::InvalidArgument("op `%s` input `Y`: expected [%lld, %lld, N] (X's batch and "
                                     "columns), received %s",
                                     op, static_cast<long long>(x[0]), static_cast<long long>(x[2]),
                                     y.ToString()));
  const DDim out({x[0] >= 0 ? x[0] : y[0], x[1], y[2]});
  const DDim with_input = math::ComputeBroadcastDims(op, out, input, -1).out;
  PL_ENFORCE(with_input.size() == 3 && (out.numel() < 0 || with_input == out),
             errors::InvalidArgument("op `%s` input `Input`: shape %s does not broadcast to the "
                                     "product's %s",
                                     op, input.ToString(), out.ToString()));
  return out;
}

void BaddbmmInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Input", "X", "Y"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", OutDims(ctx->OpType(), ctx->GetInputDim("Input"), ctx->GetInputDim("X"),
                                   ctx->GetInputDim("Y")));
}

template <typename T>
struct BaddbmmKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const DDim dims = OutDims(kOp, input->dims(), x->dims(), y->dims());
    const int64_t batch = dims[0], m = dims[1], n = dims[2], k = x->dims()[2];
    const T alpha = static_cast<T>(ctx.Attr<float>("Alpha"));
    const T beta = static_cast<T>(ctx.Attr<float>("Beta"));
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    DenseTensor out(dims, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    if (out.numel() == 0) {
      *ctx.Output("Out") = std::move(out);
      return;
    }
    const DDim aligned = math::AlignInside(kOp, "Out", dims, "Input", input->dims(), -1);
    math::BroadcastTo(dev, input->data<T>(), aligned, dims, o);
    for (int64_t i = 0; i < out.numel(); ++i) o[i] *= beta;
    if (k > 0) {
      const T* xd = x->data<T>();
      const T* yd = y->data<T>();
      for (int64_t b = 0; b < batch; ++b) {
        math::Gemm<T>(dev, false, false, m, n, k, alpha, xd + b * m * k, k, yd + b * k * n, n, T(1),
                      o + b * m * n, n);
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void BaddbmmGradMaker(framework::GradOpBuilder* g) {
  using Names = std::vector<std::string>;
  const Names dout = g->OutputGrad("Out");
  const float alpha = g->Attr<float>("Alpha"), beta = g->Attr<float>("Beta");
  // Out = scale * value as a new op.
  const auto scaled = [g](const Names& value, float scale, const Names& out) {
    g->AddOp("scale", {{"X", value}}, {{"Out", out}},
             {{"scale", scale}, {"bias", 0.0f}, {"bias_after_scale", true}});
  };
  const auto product = [&](const Names& a, const Names& b, bool ta, bool tb, const char* slot) {
    const Names raw{g->NewTemp("unscaled_product")};
    g->AddOp("matmul_v2", {{"X", a}, {"Y", b}}, {{"Out", raw}}, {{"trans_x", ta}, {"trans_y", tb}});
    scaled(raw, alpha, g->InputGrad(slot));
  };
  if (g->WantsInputGrad("X")) product(dout, g->Input("Y"), false, true, "X");
  if (g->WantsInputGrad("Y")) product(g->Input("X"), dout, true, false, "Y");
  if (g->WantsInputGrad("Input")) {
    const Names part{g->NewTemp("beta_dout")};
    scaled(dout, beta, part);
    g->AddOp("reduce_as", {{"X", part}, {"Target", g->Input("Input")}},
             {{"Out", g->InputGrad("Input")}}, {{"axis", -1}});
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterBaddbmmOp) {
  framework::RegisterOp<BaddbmmOp, BaddbmmOpMaker>(kOp)
      .InferShape(BaddbmmInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(BaddbmmGradMaker);
  RegisterPlainCpuFloatKernels<BaddbmmKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

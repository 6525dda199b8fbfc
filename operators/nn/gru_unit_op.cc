// gru_unit: one step of gru for a batch of rows (the unit that static recurrent programs
// unroll), and gru_unit_grad, its fused backward. The input is already projected (x W_x,
// 3 D columns); the weights are laid out as gru's. Activations are named by PaddlePaddle's
// codes: 0 identity, 1 sigmoid, 2 tanh, 3 relu.
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/nn/sequence_batch.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class GruUnitOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "[N, 3 D]: projected inputs (update gate, reset gate, candidate).");
    AddInput("HiddenPrev", "[N, D]: the previous hidden state.");
    AddInput("Weight",
             "[D, 3 D]: gate weights [D, 2 D] in the first 2 D^2 values, candidate "
             "weights [D, D] in the last D^2.");
    AddInput("Bias", "[1, 3 D], added to Input; zeros when absent.").AsDispensable();
    AddOutput("Gate", "[N, 3 D]: the activated update gate, reset gate and candidate.")
        .AsIntermediate();
    AddOutput("ResetHiddenPrev", "[N, D]: r * HiddenPrev.").AsIntermediate();
    AddOutput("Hidden", "[N, D]: the new hidden state.");
    AddAttr<int>("activation", "Candidate activation: 0 identity, 1 sigmoid, 2 tanh, 3 relu.")
        .SetDefault(2)
        .InEnum({0, 1, 2, 3});
    AddAttr<int>("gate_activation", "Gate activation: 0 identity, 1 sigmoid, 2 tanh, 3 relu.")
        .SetDefault(1)
        .InEnum({0, 1, 2, 3});
    AddAttr<bool>("origin_mode",
                  "Use h = u h_prev + (1 - u) c instead of "
                  "h = (1 - u) h_prev + u c.")
        .SetDefault(false);
    AddComment(R"DOC(
With x the rows of Input + Bias and h_p = HiddenPrev:
$$u = act_g(x_u + h_p W_u), \quad r = act_g(x_r + h_p W_r), \quad
c = act_c(x_c + (r \odot h_p) W_c)$$
$$Hidden = (1 - u) \odot h_p + u \odot c \quad (u \odot h_p + (1 - u) \odot c \text{ with
origin\_mode})$$
)DOC");
  }
};

FusedActivation CodedActivation(const std::string& op, const char* attr, int code) {
  static const char* const names[] = {"identity", "sigmoid", "tanh", "relu"};
  PL_ENFORCE(code >= 0 && code <= 3,
             errors::InvalidArgument("op `%s` attribute `%s`: expected 0 (identity), 1 "
                                     "(sigmoid), 2 (tanh) or 3 (relu), received %d",
                                     op, attr, code));
  return RecurrentActivation(op, attr, names[code]);
}

struct GruUnitDims {
  int64_t n = 0, d = 0;
};

GruUnitDims CheckGruUnitShapes(InferShapeContext* ctx) {
  const std::string& op = ctx->OpType();
  const DDim in = ctx->GetInputDim("Input");
  const DDim h = ctx->GetInputDim("HiddenPrev");
  const int64_t d = CheckGruWeight(ctx, "Weight");
  PL_ENFORCE(in.size() == 2 && (in[1] < 0 || d < 0 || in[1] == 3 * d),
             errors::InvalidArgument("op `%s` input `Input`: expected [N, %lld], received shape "
                                     "%s",
                                     op, static_cast<long long>(3 * d), in.ToString()));
  PL_ENFORCE(
      h.size() == 2 && (h[1] < 0 || d < 0 || h[1] == d) && (h[0] < 0 || in[0] < 0 || h[0] == in[0]),
      errors::InvalidArgument("op `%s` input `HiddenPrev`: expected [%lld, %lld] (a row "
                              "per row of Input), received shape %s",
                              op, static_cast<long long>(in[0]), static_cast<long long>(d),
                              h.ToString()));
  CheckGruBias(ctx, d);
  CodedActivation(op, "activation", ctx->Attr<int>("activation"));
  CodedActivation(op, "gate_activation", ctx->Attr<int>("gate_activation"));
  return {in[0], d};
}

void GruUnitInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Input", "HiddenPrev", "Weight"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Hidden");
  const GruUnitDims g = CheckGruUnitShapes(ctx);
  if (ctx->HasOutput("Gate")) ctx->SetOutputDim("Gate", DDim{g.n, g.d < 0 ? -1 : 3 * g.d});
  if (ctx->HasOutput("ResetHiddenPrev")) ctx->SetOutputDim("ResetHiddenPrev", DDim{g.n, g.d});
  ctx->SetOutputDim("Hidden", DDim{g.n, g.d});
}

class GruUnitOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Hidden@GRAD") ? "Hidden@GRAD" : "Input");
  }
};

template <typename T>
struct GruUnitKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* h_prev = ctx.Input("HiddenPrev");
    const DenseTensor* weight = ctx.Input("Weight");
    const DenseTensor* bias = ctx.HasInput("Bias") ? ctx.Input("Bias") : nullptr;
    const FusedActivation act = CodedActivation(op, "activation", ctx.Attr<int>("activation"));
    const FusedActivation gate_act =
        CodedActivation(op, "gate_activation", ctx.Attr<int>("gate_activation"));
    const bool origin = ctx.Attr<bool>("origin_mode");
    const int64_t n = input->dims()[0], d = weight->dims()[0];
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    DenseTensor gate(DDim{n, 3 * d}, input->dtype()), reset(DDim{n, d}, input->dtype()),
        hidden(DDim{n, d}, input->dtype());
    T* g = gate.mutable_data<T>(ctx.GetPlace());
    T* rh = reset.mutable_data<T>(ctx.GetPlace());
    T* h = hidden.mutable_data<T>(ctx.GetPlace());
    const T* x = input->data<T>();
    const T* b = bias ? bias->data<T>() : nullptr;
    const T* hp = h_prev->data<T>();
    for (int64_t i = 0; i < n * 3 * d; ++i) g[i] = x[i] + (b ? b[i % (3 * d)] : T(0));
    const T* w_gates = weight->data<T>();
    const T* w_cand = w_gates + 2 * d * d;
    if (n > 0 && d > 0) {
      math::Gemm<T>(dev, false, false, n, 2 * d, d, T(1), hp, d, w_gates, 2 * d, T(1), g, 3 * d);
    }
    for (int64_t i = 0; i < n; ++i) {
      T* row = g + i * 3 * d;
      for (int64_t j = 0; j < 2 * d; ++j) row[j] = ApplyRecurrentActivation(gate_act, row[j]);
      for (int64_t j = 0; j < d; ++j) rh[i * d + j] = row[d + j] * hp[i * d + j];
    }
    if (n > 0 && d > 0) {
      math::Gemm<T>(dev, false, false, n, d, d, T(1), rh, d, w_cand, d, T(1), g + 2 * d, 3 * d);
    }
    for (int64_t i = 0; i < n; ++i) {
      T* row = g + i * 3 * d;
      for (int64_t j = 0; j < d; ++j) {
        row[2 * d + j] = ApplyRecurrentActivation(act, row[2 * d + j]);
        const T u = row[j], c = row[2 * d + j], p = hp[i * d + j];
        h[i * d + j] = origin ? u * p + (T(1) - u) * c : (T(1) - u) * p + u * c;
      }
    }
    *ctx.Output("Hidden") = std::move(hidden);
    if (ctx.HasOutput("Gate")) *ctx.Output("Gate") = std::move(gate);
    if (ctx.HasOutput("ResetHiddenPrev")) *ctx.Output("ResetHiddenPrev") = std::move(reset);
  }
};

// ---- gru_unit_grad ----

template <typename T>
DenseTensor TensorOf(const DDim& dims, const std::vector<T>& values, const platform::Place& place) {
  DenseTensor t(dims, platform::ToDataType<T>());
  std::copy(values.begin(), values.end(), t.mutable_data<T>(place));
  return t;
}

void GruUnitGradInferShape(InferShapeContext* ctx) {
  for (const char* slot :
       {"Input", "HiddenPrev", "Weight", "Gate", "ResetHiddenPrev", "Hidden@GRAD"}) {
    ctx->RequireInput(slot);
  }
  CheckGruUnitShapes(ctx);
  for (const char* slot : {"Input", "HiddenPrev", "Weight", "Bias"}) {
    const std::string grad = std::string(slot) + "@GRAD";
    if (ctx->HasOutput(grad)) {
      ctx->RequireInput(slot);
      ctx->SetOutputDim(grad, ctx->GetInputDim(slot));
    }
  }
}

template <typename T>
struct GruUnitGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const DenseTensor* h_prev = ctx.Input("HiddenPrev");
    const DenseTensor* weight = ctx.Input("Weight");
    const DenseTensor* gate = ctx.Input("Gate");
    const DenseTensor* reset = ctx.Input("ResetHiddenPrev");
    const DenseTensor* dhidden = ctx.Input("Hidden@GRAD");
    const FusedActivation act = CodedActivation(op, "activation", ctx.Attr<int>("activation"));
    const FusedActivation gate_act =
        CodedActivation(op, "gate_activation", ctx.Attr<int>("gate_activation"));
    const bool origin = ctx.Attr<bool>("origin_mode");
    const int64_t n = h_prev->dims()[0], d = weight->dims()[0];
    PL_ENFORCE(gate->dims() == DDim({n, 3 * d}) && reset->dims() == DDim({n, d}) &&
                   dhidden->dims() == DDim({n, d}),
               errors::InvalidArgument("op `%s` inputs `Gate`, `ResetHiddenPrev` and "
                                       "`Hidden@GRAD`: expected [%lld, %lld], [%lld, %lld] and "
                                       "[%lld, %lld], received %s, %s and %s",
                                       op, static_cast<long long>(n), static_cast<long long>(3 * d),
                                       static_cast<long long>(n), static_cast<long long>(d),
                                       static_cast<long long>(n), static_cast<long long>(d),
                                       gate->dims().ToString(), reset->dims().ToString(),
                                       dhidden->dims().ToString()));
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const T* g = gate->data<T>();
    const T* rh = reset->data<T>();
    const T* hp = h_prev->data<T>();
    const T* dh = dhidden->data<T>();
    const T* w_gates = weight->data<T>();
    const T* w_cand = w_gates + 2 * d * d;
    // dg: the gradient of the pre-activation gates [du, dr, dc], which is Input@GRAD.
    std::vector<T> dg(static_cast<size_t>(n * 3 * d)), dhp(static_cast<size_t>(n * d)),
        drh(static_cast<size_t>(n * d), T(0));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < d; ++j) {
        const T u = g[i * 3 * d + j], c = g[i * 3 * d + 2 * d + j], p = hp[i * d + j];
        const T dhv = dh[i * d + j];
        const T du = origin ? dhv * (p - c) : dhv * (c - p);
        const T dc = origin ? dhv * (T(1) - u) : dhv * u;
        dhp[i * d + j] = origin ? dhv * u : dhv * (T(1) - u);
        dg[i * 3 * d + j] = du * ActivationSlope(gate_act, u);
        dg[i * 3 * d + 2 * d + j] = dc * ActivationSlope(act, c);
      }
    }
    // d(r h_p) = dc W_c^T.
    if (n > 0 && d > 0) {
      math::Gemm<T>(dev, false, true, n, d, d, T(1), dg.data() + 2 * d, 3 * d, w_cand, d, T(0),
                    drh.data(), d);
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < d; ++j) {
        const T r = g[i * 3 * d + d + j];
        dg[i * 3 * d + d + j] = drh[i * d + j] * hp[i * d + j] * ActivationSlope(gate_act, r);
        dhp[i * d + j] += drh[i * d + j] * r;
      }
    }
    if (DenseTensor* out = ctx.Output("HiddenPrev@GRAD")) {
      // dh_p += [du, dr] W_{u,r}^T.
      if (n > 0 && d > 0) {
        math::Gemm<T>(dev, false, true, n, d, 2 * d, T(1), dg.data(), 3 * d, w_gates, 2 * d, T(1),
                      dhp.data(), d);
      }
      *out = TensorOf<T>(DDim{n, d}, dhp, ctx.GetPlace());
    }
    if (DenseTensor* out = ctx.Output("Weight@GRAD")) {
      std::vector<T> dw(static_cast<size_t>(3 * d * d), T(0));
      if (n > 0 && d > 0) {
        // dW_{u,r} = h_p^T [du, dr]; dW_c = (r h_p)^T dc.
        math::Gemm<T>(dev, true, false, d, 2 * d, n, T(1), hp, d, dg.data(), 3 * d, T(0), dw.data(),
                      2 * d);
        math::Gemm<T>(dev, true, false, d, d, n, T(1), rh, d, dg.data() + 2 * d, 3 * d, T(0),
                      dw.data() + 2 * d * d, d);
      }
      *out = TensorOf<T>(weight->dims(), dw, ctx.GetPlace());
    }
    if (DenseTensor* out = ctx.Output("Bias@GRAD")) {
      std::vector<T> db(static_cast<size_t>(3 * d), T(0));
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < 3 * d; ++j) db[j] += dg[i * 3 * d + j];
      }
      *out = TensorOf<T>(DDim{1, 3 * d}, db, ctx.GetPlace());
    }
    if (DenseTensor* out = ctx.Output("Input@GRAD")) {
      *out = TensorOf<T>(DDim{n, 3 * d}, dg, ctx.GetPlace());
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterGruUnitOp) {
  const framework::FusedGradDecl grad{
      {"Input", "HiddenPrev", "Weight", "Bias", "Gate", "ResetHiddenPrev"},
      {"Hidden"},
      {"Input", "HiddenPrev", "Weight", "Bias"},
      R"DOC(With dh = Hidden@GRAD and a' the slope of activation a at its output:
$$dc = dh \odot u \odot act_c'(c), \quad du = dh \odot (c - h_p) \odot act_g'(u), \quad
dr = ((dc \, W_c^T) \odot h_p) \odot act_g'(r)$$
$$dh_p = dh \odot (1 - u) + (dc \, W_c^T) \odot r + [du, dr] [W_u, W_r]^T$$
(u and 1 - u swap with origin_mode); Input@GRAD is [du, dr, dc], Bias@GRAD its column sums,
Weight@GRAD holds h_p^T [du, dr] and (r \odot h_p)^T dc.)DOC"};
  framework::RegisterOp<GruUnitOp, GruUnitOpMaker>("gru_unit")
      .InferShape(GruUnitInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<GruUnitKernel>("gru_unit");
  framework::RegisterFusedGradOp("gru_unit", grad).InferShape(GruUnitGradInferShape);
  RegisterPlainCpuFloatKernels<GruUnitGradKernel>("gru_unit_grad");
}

}  // namespace operators
}  // namespace paddle_like

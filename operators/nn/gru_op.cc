// gru: a gated recurrent unit over the sequences of a level-1 LoD batch, as PaddlePaddle's
// dynamic GRU computes it. The input is already projected (x W_x, 3 D columns per step).
//
// fusion_gru (also here) is the fc + gru pair that PaddlePaddle's inference passes fuse: it
// projects X by WeightX itself, then runs the same recurrence.
//
// The steps run in PaddlePaddle's "batch" order: sequences sorted by length (longest first),
// step t of every sequence still running stacked together, so that one GEMM per step serves
// all of them. BatchGate, BatchResetHiddenPrev and BatchHidden are the intermediates in that
// order; Hidden is in the order of the input rows.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/grad_op_maker.h"
#include "operators/activation/fused_activation.h"
#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/nn/sequence_batch.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

// The attributes of the recurrence that gru and fusion_gru share.
class GruMakerBase : public OpProtoAndCheckerMaker {
 protected:
  void AddRecurrenceAttrs() {
    AddAttr<std::string>("activation", "Candidate activation: tanh, sigmoid, relu or identity.")
        .SetDefault("tanh");
    AddAttr<std::string>("gate_activation", "Gate activation: sigmoid, tanh, relu or identity.")
        .SetDefault("sigmoid");
    AddAttr<bool>("is_reverse", "Run each sequence from its last step to its first.")
        .SetDefault(false);
    AddAttr<bool>("origin_mode",
                  "Use h = u h_prev + (1 - u) c (Cho et al.) instead of "
                  "h = (1 - u) h_prev + u c.")
        .SetDefault(false);
  }
};

class GruOpMaker : public GruMakerBase {
 public:
  void Make() override {
    AddInput("Input", "Projected inputs [T, 3 D] with a level-1 LoD (one sequence per offset "
                      "pair): columns [0, D) update gate, [D, 2 D) reset gate, [2 D, 3 D) "
                      "candidate.");
    AddInput("H0", "Initial hidden state [N, D], row i for sequence i; zeros when absent.")
        .AsDispensable();
    AddInput("Weight", "[D, 3 D]: the first 2 D^2 values are the gate weights [D, 2 D], the "
                       "last D^2 the candidate weights [D, D] (both row-major).");
    AddInput("Bias", "[1, 3 D], added to Input; zeros when absent.").AsDispensable();
    AddOutput("BatchGate", "[T, 3 D]: activated gates and candidate, in batch order.")
        .AsIntermediate();
    AddOutput("BatchResetHiddenPrev", "[T, D]: r * h_prev, in batch order.").AsIntermediate();
    AddOutput("BatchHidden", "[T, D]: hidden states in batch order.").AsIntermediate();
    AddOutput("Hidden", "[T, D]: hidden states, with Input's LoD.");
    AddRecurrenceAttrs();
    AddAttr<bool>("is_test", "Inference mode; no effect here.").SetDefault(false).AsExtra();
    AddComment(R"DOC(
GRU over variable-length sequences. With x_t the row of Input (plus Bias) for step t of a
sequence and h_{t-1} its previous hidden state (H0's row, or zeros, at the first step):
$$u_t = act_g(x_{u,t} + h_{t-1} W_u), \quad r_t = act_g(x_{r,t} + h_{t-1} W_r)$$
$$c_t = act_c(x_{c,t} + (r_t \odot h_{t-1}) W_c)$$
$$h_t = (1 - u_t) \odot h_{t-1} + u_t \odot c_t \quad (h_t = u_t \odot h_{t-1} + (1 - u_t)
\odot c_t \text{ with origin\_mode})$$
[W_u, W_r] are the first 2 D^2 values of Weight as a [D, 2 D] matrix, W_c the last D^2 as
[D, D]. With is_reverse each sequence runs from its last row to its first.
)DOC");
  }
};

struct GruDims {
  int64_t steps = 0, width = 0;  // T and D.
};

// Bias [1, 3 D] and H0 [N, D], when given.
void CheckGruBiasAndH0(InferShapeContext* ctx, int64_t d) {
  const std::string& op = ctx->OpType();
  CheckGruBias(ctx, d);
  if (ctx->HasInput("H0")) {
    const DDim h0 = ctx->GetInputDim("H0");
    PL_ENFORCE(h0.size() == 2 && (h0[1] < 0 || d < 0 || h0[1] == d),
               errors::InvalidArgument("op `%s` input `H0`: expected [N, %lld], received shape "
                                       "%s",
                                       op, static_cast<long long>(d), h0.ToString()));
  }
}

GruDims CheckGruShapes(InferShapeContext* ctx) {
  const std::string& op = ctx->OpType();
  const DDim in = ctx->GetInputDim("Input");
  const DDim w = ctx->GetInputDim("Weight");
  const int64_t d = CheckGruWeight(ctx, "Weight");
  PL_ENFORCE(
      in.size() == 2 && (in[1] < 0 || d < 0 || in[1] == 3 * d),
      errors::InvalidArgument("op `%s` input `Input`: expected [T, 3 D] = [T, %lld] "
                              "(Weight is %s), received shape %s",
                              op, static_cast<long long>(3 * d), w.ToString(), in.ToString()));
  CheckGruBiasAndH0(ctx, d);
  return {in[0], d};
}

// fusion_gru's operands: X [T, M], WeightX [M, 3 D], WeightH [D, 3 D], and Bias and H0 as gru's.
GruDims CheckFusionGruShapes(InferShapeContext* ctx) {
  const std::string& op = ctx->OpType();
  const DDim x = ctx->GetInputDim("X");
  const DDim wx = ctx->GetInputDim("WeightX");
  const DDim wh = ctx->GetInputDim("WeightH");
  const int64_t d = CheckGruWeight(ctx, "WeightH");
  PL_ENFORCE(x.size() == 2,
             errors::InvalidArgument("op `%s` input `X`: expected a [T, M] matrix, received "
                                     "shape %s",
                                     op, x.ToString()));
  PL_ENFORCE(
      wx.size() == 2 && (wx[0] < 0 || x[1] < 0 || wx[0] == x[1]) &&
          (wx[1] < 0 || d < 0 || wx[1] == 3 * d),
      errors::InvalidArgument("op `%s` input `WeightX`: expected [M, 3 D] = [%lld, %lld] "
                              "(X is %s, WeightH %s), received shape %s",
                              op, static_cast<long long>(x[1]), static_cast<long long>(3 * d),
                              x.ToString(), wh.ToString(), wx.ToString()));
  CheckGruBiasAndH0(ctx, d);
  return {x[0], d};
}

void GruInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Weight");
  ctx->RequireOutput("Hidden");
  const GruDims g = CheckGruShapes(ctx);
  RecurrentActivation(ctx->OpType(), "activation", ctx->Attr<std::string>("activation"));
  RecurrentActivation(ctx->OpType(), "gate_activation",
                      ctx->Attr<std::string>("gate_activation"));
  const int64_t gates = g.width < 0 ? -1 : 3 * g.width;
  if (ctx->HasOutput("BatchGate")) ctx->SetOutputDim("BatchGate", DDim{g.steps, gates});
  if (ctx->HasOutput("BatchResetHiddenPrev")) {
    ctx->SetOutputDim("BatchResetHiddenPrev", DDim{g.steps, g.width});
  }
  if (ctx->HasOutput("BatchHidden")) ctx->SetOutputDim("BatchHidden", DDim{g.steps, g.width});
  ctx->SetOutputDim("Hidden", DDim{g.steps, g.width});
  ctx->ShareLoD("Input", "Hidden");
}

class GruOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Input");
  }
};

// The recurrence over `input` (projected: [T, 3 D] with a level-1 LoD) with the hidden
// weights `weight` [D, 3 D]; Bias and H0 come from the op's slots of those names. Writes
// Hidden, and those of gru's intermediate outputs that the op has.
template <typename T>
void ComputeGru(const ExecutionContext& ctx, const DenseTensor* input, const DenseTensor* weight) {
  const std::string& op = ctx.Type();
  const DenseTensor* bias = ctx.HasInput("Bias") ? ctx.Input("Bias") : nullptr;
  const DenseTensor* h0 = ctx.HasInput("H0") ? ctx.Input("H0") : nullptr;
  const int64_t d = weight->dims()[0];
  const int64_t steps = input->dims()[0];
  const std::vector<size_t>& offsets = SequenceOffsets(op, *input);
  const int64_t n = static_cast<int64_t>(offsets.size()) - 1;
  PL_ENFORCE(h0 == nullptr || h0->dims()[0] == n,
             errors::InvalidArgument("op `%s` input `H0`: expected one row per sequence, %lld, "
                                     "received shape %s",
                                     op, static_cast<long long>(n), h0->dims().ToString()));
  const FusedActivation act =
      RecurrentActivation(op, "activation", ctx.Attr<std::string>("activation"));
  const FusedActivation gate_act =
      RecurrentActivation(op, "gate_activation", ctx.Attr<std::string>("gate_activation"));
  const bool origin_mode = ctx.Attr<bool>("origin_mode");
  const BatchOrder order = MakeBatchOrder(offsets, ctx.Attr<bool>("is_reverse"));
  const auto& dev = ctx.device_context<platform::CPUDeviceContext>();

  const DataType dtype = input->dtype();
  DenseTensor gate(DDim{steps, 3 * d}, dtype), reset(DDim{steps, d}, dtype),
      hidden_batch(DDim{steps, d}, dtype), hidden(DDim{steps, d}, dtype);
  T* g = gate.mutable_data<T>(ctx.GetPlace());
  T* rh = reset.mutable_data<T>(ctx.GetPlace());
  T* hb = hidden_batch.mutable_data<T>(ctx.GetPlace());
  const T* x = input->data<T>();
  const T* b = bias ? bias->data<T>() : nullptr;
  for (size_t k = 0; k < order.rows.size(); ++k) {
    const T* src = x + order.rows[k] * 3 * d;
    T* dst = g + k * 3 * d;
    for (int64_t j = 0; j < 3 * d; ++j) dst[j] = src[j] + (b ? b[j] : T(0));
  }
  // The state before the first step, one row per sequence in sorted order.
  std::vector<T> start(static_cast<size_t>(n * d), T(0));
  if (h0 != nullptr) {
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(&start[i * d], h0->data<T>() + order.seqs[i] * d, sizeof(T) * d);
    }
  }
  const T* gate_w = weight->data<T>();
  const T* state_w = gate_w + 2 * d * d;
  for (size_t t = 0; t + 1 < order.step_begin.size(); ++t) {
    const int64_t first = order.step_begin[t];
    const int64_t rows = order.step_begin[t + 1] - first;
    // The sequences running at step t are the first `rows` of those at step t - 1.
    const T* prev = t == 0 ? start.data() : hb + order.step_begin[t - 1] * d;
    T* gt = g + first * 3 * d;
    T* rt = rh + first * d;
    T* ht = hb + first * d;
    math::Gemm<T>(dev, false, false, rows, 2 * d, d, T(1), prev, d, gate_w, 2 * d, T(1), gt, 3 * d);
    for (int64_t i = 0; i < rows; ++i) {
      T* row = gt + i * 3 * d;
      ApplyFusedActivation<T>(gate_act, row, 2 * d);
      for (int64_t j = 0; j < d; ++j) rt[i * d + j] = row[d + j] * prev[i * d + j];
    }
    math::Gemm<T>(dev, false, false, rows, d, d, T(1), rt, d, state_w, d, T(1), gt + 2 * d, 3 * d);
    for (int64_t i = 0; i < rows; ++i) {
      T* row = gt + i * 3 * d;
      ApplyFusedActivation<T>(act, row + 2 * d, d);
      for (int64_t j = 0; j < d; ++j) {
        const T u = row[j], c = row[2 * d + j], h = prev[i * d + j];
        ht[i * d + j] = origin_mode ? u * h + (T(1) - u) * c : (T(1) - u) * h + u * c;
      }
    }
  }
  T* out = hidden.mutable_data<T>(ctx.GetPlace());
  for (size_t k = 0; k < order.rows.size(); ++k) {
    std::memcpy(out + order.rows[k] * d, hb + k * d, sizeof(T) * d);
  }
  hidden.set_lod(input->lod());
  *ctx.Output("Hidden") = std::move(hidden);
  if (ctx.HasOutput("BatchGate")) *ctx.Output("BatchGate") = std::move(gate);
  if (ctx.HasOutput("BatchResetHiddenPrev")) {
    *ctx.Output("BatchResetHiddenPrev") = std::move(reset);
  }
  if (ctx.HasOutput("BatchHidden")) *ctx.Output("BatchHidden") = std::move(hidden_batch);
}

template <typename T>
struct GruKernel {
  static void Compute(const ExecutionContext& ctx) {
    ComputeGru<T>(ctx, ctx.Input("Input"), ctx.Input("Weight"));
  }
};

// ---- fusion_gru: X WeightX, then gru's recurrence ----

class FusionGruOpMaker : public GruMakerBase {
 public:
  void Make() override {
    AddInput("X", "Inputs [T, M] with a level-1 LoD (one sequence per offset pair).");
    AddInput("H0", "Initial hidden state [N, D], row i for sequence i; zeros when absent.")
        .AsDispensable();
    AddInput("WeightX",
             "[M, 3 D]: X's projection onto the update gate, reset gate and "
             "candidate columns.");
    AddInput("WeightH",
             "[D, 3 D]: gru's Weight (gate weights [D, 2 D], then candidate "
             "weights [D, D]).");
    AddInput("Bias", "[1, 3 D], added to the projection; zeros when absent.").AsDispensable();
    AddOutput("ReorderedH0", "Unused here (PaddlePaddle's batch-mode scratch).")
        .AsIntermediate()
        .AsDispensable();
    AddOutput("XX", "[T, 3 D]: X WeightX, before Bias.").AsIntermediate().AsDispensable();
    AddOutput("BatchedInput", "Unused here (PaddlePaddle's batch-mode scratch).")
        .AsIntermediate()
        .AsDispensable();
    AddOutput("BatchedOut", "Unused here (PaddlePaddle's batch-mode scratch).")
        .AsIntermediate()
        .AsDispensable();
    AddOutput("Hidden", "[T, D]: hidden states, with X's LoD.");
    AddRecurrenceAttrs();
    AddAttr<bool>("use_seq",
                  "PaddlePaddle's choice of loop (per sequence or batched); the "
                  "result is the same.")
        .SetDefault(true);
    AddAttr<bool>("force_fp32_output", "For int8 programs; no effect on float inputs.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
The fc + gru pair that inference passes fuse: with x_t the row of
$$XX = X \, WeightX \; (+ Bias)$$
for step t of a sequence, gru's recurrence with WeightH as its Weight:
$$u_t = act_g(x_{u,t} + h_{t-1} W_u), \quad r_t = act_g(x_{r,t} + h_{t-1} W_r), \quad
c_t = act_c(x_{c,t} + (r_t \odot h_{t-1}) W_c)$$
$$h_t = (1 - u_t) \odot h_{t-1} + u_t \odot c_t \quad (h_t = u_t \odot h_{t-1} + (1 - u_t)
\odot c_t \text{ with origin\_mode})$$
An inference op: it has no gradient (training programs hold mul and gru).
)DOC");
  }
};

void FusionGruInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "WeightX", "WeightH"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Hidden");
  const GruDims g = CheckFusionGruShapes(ctx);
  RecurrentActivation(ctx->OpType(), "activation", ctx->Attr<std::string>("activation"));
  RecurrentActivation(ctx->OpType(), "gate_activation", ctx->Attr<std::string>("gate_activation"));
  if (ctx->HasOutput("XX")) {
    ctx->SetOutputDim("XX", DDim{g.steps, g.width < 0 ? -1 : 3 * g.width});
    ctx->ShareLoD("X", "XX");
  }
  ctx->SetOutputDim("Hidden", DDim{g.steps, g.width});
  ctx->ShareLoD("X", "Hidden");
}

template <typename T>
struct FusionGruKernel {
  static void Compute(const ExecutionContext& ctx) {
    DenseTensor xx = ProjectSequenceRows<T>(ctx, *ctx.Input("X"), *ctx.Input("WeightX"));
    ComputeGru<T>(ctx, &xx, ctx.Input("WeightH"));
    if (ctx.HasOutput("XX")) *ctx.Output("XX") = std::move(xx);
  }
};

// ---- gru_grad: back-propagation through time, in the forward's batch order ----

void GruGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Input", "Weight", "BatchGate", "BatchResetHiddenPrev", "BatchHidden",
                           "Hidden@GRAD"}) {
    ctx->RequireInput(slot);
  }
  const GruDims g = CheckGruShapes(ctx);
  if (ctx->HasOutput("Input@GRAD")) {
    ctx->SetOutputDim("Input@GRAD", ctx->GetInputDim("Input"));
    ctx->ShareLoD("Input", "Input@GRAD");
  }
  if (ctx->HasOutput("H0@GRAD")) {
    ctx->RequireInput("H0");
    ctx->SetOutputDim("H0@GRAD", ctx->GetInputDim("H0"));
  }
  if (ctx->HasOutput("Weight@GRAD")) ctx->SetOutputDim("Weight@GRAD", ctx->GetInputDim("Weight"));
  if (ctx->HasOutput("Bias@GRAD")) {
    ctx->SetOutputDim("Bias@GRAD", DDim{1, g.width < 0 ? -1 : 3 * g.width});
  }
}

template <typename T>
struct GruGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* weight = ctx.Input("Weight");
    const DenseTensor* h0 = ctx.HasInput("H0") ? ctx.Input("H0") : nullptr;
    const DenseTensor* gate_t = ctx.Input("BatchGate");
    const DenseTensor* reset_t = ctx.Input("BatchResetHiddenPrev");
    const DenseTensor* hidden_t = ctx.Input("BatchHidden");
    const DenseTensor* dhidden_t = ctx.Input("Hidden@GRAD");
    const int64_t d = weight->dims()[0];
    const int64_t steps = input->dims()[0];
    const std::vector<size_t>& offsets = SequenceOffsets(op, *input);
    const int64_t n = static_cast<int64_t>(offsets.size()) - 1;
    const std::pair<const char*, const DenseTensor*> saved[] = {
        {"BatchGate", gate_t}, {"BatchResetHiddenPrev", reset_t}, {"BatchHidden", hidden_t},
        {"Hidden@GRAD", dhidden_t}};
    for (const auto& [slot, t] : saved) {
      const int64_t width = std::string(slot) == "BatchGate" ? 3 * d : d;
      PL_ENFORCE(t->dims() == DDim({steps, width}),
                 errors::InvalidArgument("op `%s` input `%s`: expected shape [%lld, %lld], "
                                         "received %s",
                                         op, slot, static_cast<long long>(steps),
                                         static_cast<long long>(width), t->dims().ToString()));
    }
    const FusedActivation act =
        RecurrentActivation(op, "activation", ctx.Attr<std::string>("activation"));
    const FusedActivation gate_act =
        RecurrentActivation(op, "gate_activation", ctx.Attr<std::string>("gate_activation"));
    const bool origin_mode = ctx.Attr<bool>("origin_mode");
    const BatchOrder order = MakeBatchOrder(offsets, ctx.Attr<bool>("is_reverse"));
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();

    const T* gate = gate_t->data<T>();
    const T* reset = reset_t->data<T>();
    const T* hb = hidden_t->data<T>();
    const T* gate_w = weight->data<T>();
    const T* state_w = gate_w + 2 * d * d;
    // dh in batch order; each step adds what flows back into the previous step's rows.
    std::vector<T> dh(static_cast<size_t>(steps * d));
    for (size_t k = 0; k < order.rows.size(); ++k) {
      std::memcpy(&dh[k * d], dhidden_t->data<T>() + order.rows[k] * d, sizeof(T) * d);
    }
    std::vector<T> start(static_cast<size_t>(n * d), T(0)), dstart(start.size(), T(0));
    if (h0 != nullptr) {
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(&start[i * d], h0->data<T>() + order.seqs[i] * d, sizeof(T) * d);
      }
    }
    std::vector<T> dgate(static_cast<size_t>(steps * 3 * d));
    std::vector<T> dw(static_cast<size_t>(3 * d * d), T(0));
    for (size_t t = order.step_begin.size() - 1; t-- > 0;) {
      const int64_t first = order.step_begin[t];
      const int64_t rows = order.step_begin[t + 1] - first;
      const T* prev = t == 0 ? start.data() : hb + order.step_begin[t - 1] * d;
      T* dprev = t == 0 ? dstart.data() : dh.data() + order.step_begin[t - 1] * d;
      const T* g = gate + first * 3 * d;
      T* dg = dgate.data() + first * 3 * d;
      std::vector<T> drh(static_cast<size_t>(rows * d));
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < d; ++j) {
          const T u = g[i * 3 * d + j], c = g[i * 3 * d + 2 * d + j], h = prev[i * d + j];
          const T dht = dh[(first + i) * d + j];
          const T du = origin_mode ? dht * (h - c) : dht * (c - h);
          const T dc = origin_mode ? dht * (T(1) - u) : dht * u;
          dprev[i * d + j] += origin_mode ? dht * u : dht * (T(1) - u);
          dg[i * 3 * d + j] = du * ActivationSlope(gate_act, u);
          dg[i * 3 * d + 2 * d + j] = dc * ActivationSlope(act, c);
        }
      }
      // d(r h_prev) = dc W_c^T; dW_c += (r h_prev)^T dc.
      math::Gemm<T>(dev, false, true, rows, d, d, T(1), dg + 2 * d, 3 * d, state_w, d, T(0),
                    drh.data(), d);
      math::Gemm<T>(dev, true, false, d, d, rows, T(1), reset + first * d, d, dg + 2 * d, 3 * d,
                    T(1), dw.data() + 2 * d * d, d);
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < d; ++j) {
          const T r = g[i * 3 * d + d + j];
          dg[i * 3 * d + d + j] = drh[i * d + j] * prev[i * d + j] * ActivationSlope(gate_act, r);
          dprev[i * d + j] += drh[i * d + j] * r;
        }
      }
      // Through the gates: dh_prev += [du, dr] W_g^T; dW_g += h_prev^T [du, dr].
      math::Gemm<T>(dev, false, true, rows, d, 2 * d, T(1), dg, 3 * d, gate_w, 2 * d, T(1), dprev,
                    d);
      math::Gemm<T>(dev, true, false, d, 2 * d, rows, T(1), prev, d, dg, 3 * d, T(1), dw.data(),
                    2 * d);
    }
    const DataType dtype = input->dtype();
    if (ctx.HasOutput("Input@GRAD")) {
      DenseTensor dx(input->dims(), dtype);
      T* out = dx.mutable_data<T>(ctx.GetPlace());
      for (size_t k = 0; k < order.rows.size(); ++k) {
        std::memcpy(out + order.rows[k] * 3 * d, &dgate[k * 3 * d], sizeof(T) * 3 * d);
      }
      dx.set_lod(input->lod());
      *ctx.Output("Input@GRAD") = std::move(dx);
    }
    if (ctx.HasOutput("H0@GRAD")) {
      PL_ENFORCE(h0 != nullptr, errors::InvalidArgument(
                                    "op `%s` output `H0@GRAD`: requested without input `H0`", op));
      DenseTensor dh0(h0->dims(), dtype);
      T* out = dh0.mutable_data<T>(ctx.GetPlace());
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(out + order.seqs[i] * d, &dstart[i * d], sizeof(T) * d);
      }
      *ctx.Output("H0@GRAD") = std::move(dh0);
    }
    if (ctx.HasOutput("Weight@GRAD")) {
      DenseTensor dweight(weight->dims(), dtype);
      if (!dw.empty()) std::memcpy(dweight.mutable_data<T>(ctx.GetPlace()), dw.data(), sizeof(T) * dw.size());
      *ctx.Output("Weight@GRAD") = std::move(dweight);
    }
    if (ctx.HasOutput("Bias@GRAD")) {
      DenseTensor db(DDim{1, 3 * d}, dtype);
      T* out = db.mutable_data<T>(ctx.GetPlace());
      std::fill(out, out + 3 * d, T(0));
      for (int64_t k = 0; k < steps; ++k) {
        for (int64_t j = 0; j < 3 * d; ++j) out[j] += dgate[k * 3 * d + j];
      }
      *ctx.Output("Bias@GRAD") = std::move(db);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterGruOp) {
  const framework::FusedGradDecl grad{
      {"Input", "H0", "Weight", "BatchGate", "BatchResetHiddenPrev", "BatchHidden"},
      {"Hidden"},
      {"Input", "H0", "Weight", "Bias"},
      R"DOC(Back-propagation through time: with dh_t the gradient reaching h_t,
$$dc_t = dh_t \odot u_t \odot act_c'(c_t), \quad du_t = dh_t \odot (c_t - h_{t-1}) \odot
act_g'(u_t)$$
$$dr_t = ((dc_t W_c^T) \odot h_{t-1}) \odot act_g'(r_t), \quad dh_{t-1} \mathrel{+}= dh_t
\odot (1 - u_t) + (dc_t W_c^T) \odot r_t + [du_t, dr_t] [W_u, W_r]^T$$
(u_t and 1 - u_t swap with origin_mode); dInput rows are [du_t, dr_t, dc_t], dBias their sum,
dW sums h_{t-1}^T [du_t, dr_t] and (r_t h_{t-1})^T dc_t.)DOC"};
  framework::RegisterOp<GruOp, GruOpMaker>("gru")
      .InferShape(GruInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<GruKernel>("gru");
  framework::RegisterFusedGradOp("gru", grad).InferShape(GruGradInferShape);
  RegisterPlainCpuFloatKernels<GruGradKernel>("gru_grad");

  framework::RegisterOp<FusedRecurrentOp, FusionGruOpMaker>("fusion_gru")
      .InferShape(FusionGruInferShape)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<FusionGruKernel>("fusion_gru");
}

}  // namespace operators
}  // namespace paddle_like

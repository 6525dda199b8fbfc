// lstm: a long short-term memory unit over the sequences of a level-1 LoD batch, as
// PaddlePaddle's dynamic LSTM computes it, with optional peephole connections. The input is
// already projected (x W_x, 4 D columns per step, in the gate order candidate, input,
// forget, output).
//
// The steps run in the batch order of sequence_batch.h. BatchGate (the activated gates) and
// BatchCellPreAct (the activated cell) are the intermediates in that order; Hidden and Cell
// are in the order of the input rows.
//
// fusion_lstm (also here) is the fc + lstm pair that PaddlePaddle's inference passes fuse: it
// projects X by WeightX itself, then runs the same recurrence.
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/nn/sequence_batch.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class LstmOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input",
             "Projected inputs [T, 4 D] with a level-1 LoD (one sequence per offset "
             "pair): columns [0, D) candidate, [D, 2 D) input gate, [2 D, 3 D) forget "
             "gate, [3 D, 4 D) output gate.");
    AddInput("H0", "Initial hidden state [N, D], row i for sequence i; zeros when absent.")
        .AsDispensable();
    AddInput("C0", "Initial cell state [N, D], row i for sequence i; zeros when absent.")
        .AsDispensable();
    AddInput("Weight", "[D, 4 D]: the recurrent weights of the four blocks, in Input's order.");
    AddInput("Bias",
             "[1, 4 D], added to Input; [1, 7 D] with use_peepholes, whose last 3 D "
             "values are the peephole weights w_ic, w_fc, w_oc.");
    AddOutput("Hidden", "[T, D]: hidden states, with Input's LoD.");
    AddOutput("Cell", "[T, D]: cell states, with Input's LoD.");
    AddOutput("BatchGate", "[T, 4 D]: the activated candidate and gates, in batch order.")
        .AsIntermediate();
    AddOutput("BatchCellPreAct", "[T, D]: act_cell(c_t), in batch order.").AsIntermediate();
    AddAttr<bool>("use_peepholes", "Let the gates read the cell state (Bias is [1, 7 D]).")
        .SetDefault(true);
    AddAttr<bool>("is_reverse", "Run each sequence from its last step to its first.")
        .SetDefault(false);
    AddAttr<bool>("is_test", "Inference mode; no effect here.").SetDefault(false);
    AddAttr<std::string>("gate_activation", "Gate activation: sigmoid, tanh, relu or identity.")
        .SetDefault("sigmoid");
    AddAttr<std::string>("cell_activation",
                         "Activation of the cell state before the output "
                         "gate: sigmoid, tanh, relu or identity.")
        .SetDefault("tanh");
    AddAttr<std::string>("candidate_activation",
                         "Candidate activation: sigmoid, tanh, relu or identity.")
        .SetDefault("tanh");
    AddComment(R"DOC(
LSTM over variable-length sequences. With x_t the row of Input plus the first 4 D values of
Bias for step t of a sequence, h_{t-1} and c_{t-1} its previous states (H0's and C0's rows,
or zeros, at the first step) and W = [W_c, W_i, W_f, W_o] the blocks of Weight:
$$\tilde c_t = act_{cand}(x_{c,t} + h_{t-1} W_c)$$
$$i_t = act_g(x_{i,t} + h_{t-1} W_i + w_{ic} \odot c_{t-1}), \quad
f_t = act_g(x_{f,t} + h_{t-1} W_f + w_{fc} \odot c_{t-1})$$
$$c_t = f_t \odot c_{t-1} + i_t \odot \tilde c_t$$
$$o_t = act_g(x_{o,t} + h_{t-1} W_o + w_{oc} \odot c_t), \quad
h_t = o_t \odot act_{cell}(c_t)$$
The peephole terms w are Bias's last 3 D values with use_peepholes, zero otherwise. With
is_reverse each sequence runs from its last row to its first.
)DOC");
  }
};

struct LstmDims {
  int64_t steps = 0, width = 0;  // T and D.
};

// `in` is the projected input's dims (Input's for lstm), `weight_slot` the hidden weights'.
LstmDims CheckLstmShapes(InferShapeContext* ctx, const DDim& in, const char* weight_slot) {
  const std::string& op = ctx->OpType();
  const DDim w = ctx->GetInputDim(weight_slot);
  PL_ENFORCE(w.size() == 2 && (w[0] < 0 || w[1] < 0 || w[1] == 4 * w[0]),
             errors::InvalidArgument("op `%s` input `%s`: expected [D, 4 D], received shape "
                                     "%s",
                                     op, weight_slot, w.ToString()));
  const int64_t d = w[0];
  PL_ENFORCE(
      in.size() == 2 && (in[1] < 0 || d < 0 || in[1] == 4 * d),
      errors::InvalidArgument("op `%s` input `Input`: expected [T, 4 D] = [T, %lld] "
                              "(Weight is %s), received shape %s",
                              op, static_cast<long long>(4 * d), w.ToString(), in.ToString()));
  const bool peepholes = ctx->Attr<bool>("use_peepholes");
  const int64_t bias_width = (peepholes ? 7 : 4) * d;
  const DDim b = ctx->GetInputDim("Bias");
  PL_ENFORCE(b.size() == 2 && (b[0] < 0 || b[0] == 1) && (b[1] < 0 || d < 0 || b[1] == bias_width),
             errors::InvalidArgument("op `%s` input `Bias`: expected [1, %lld] (use_peepholes "
                                     "%s), received shape %s",
                                     op, static_cast<long long>(bias_width),
                                     peepholes ? "true" : "false", b.ToString()));
  for (const char* slot : {"H0", "C0"}) {
    if (!ctx->HasInput(slot)) continue;
    const DDim s = ctx->GetInputDim(slot);
    PL_ENFORCE(s.size() == 2 && (s[1] < 0 || d < 0 || s[1] == d),
               errors::InvalidArgument("op `%s` input `%s`: expected [N, %lld], received shape "
                                       "%s",
                                       op, slot, static_cast<long long>(d), s.ToString()));
  }
  for (const char* attr : {"gate_activation", "cell_activation", "candidate_activation"}) {
    RecurrentActivation(op, attr, ctx->Attr<std::string>(attr));
  }
  return {in[0], d};
}

void LstmInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Weight");
  ctx->RequireInput("Bias");
  ctx->RequireOutput("Hidden");
  ctx->RequireOutput("Cell");
  const LstmDims l = CheckLstmShapes(ctx, ctx->GetInputDim("Input"), "Weight");
  const int64_t gates = l.width < 0 ? -1 : 4 * l.width;
  if (ctx->HasOutput("BatchGate")) ctx->SetOutputDim("BatchGate", DDim{l.steps, gates});
  if (ctx->HasOutput("BatchCellPreAct")) {
    ctx->SetOutputDim("BatchCellPreAct", DDim{l.steps, l.width});
  }
  ctx->SetOutputDim("Hidden", DDim{l.steps, l.width});
  ctx->SetOutputDim("Cell", DDim{l.steps, l.width});
  ctx->ShareLoD("Input", "Hidden");
  ctx->ShareLoD("Input", "Cell");
}

class LstmOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Input");
  }
};

struct LstmActivations {
  FusedActivation gate, cell, candidate;
};

LstmActivations ReadLstmActivations(const ExecutionContext& ctx) {
  const std::string& op = ctx.Type();
  return {RecurrentActivation(op, "gate_activation", ctx.Attr<std::string>("gate_activation")),
          RecurrentActivation(op, "cell_activation", ctx.Attr<std::string>("cell_activation")),
          RecurrentActivation(op, "candidate_activation",
                              ctx.Attr<std::string>("candidate_activation"))};
}

// The rows of an optional [N, D] initial state in the batch order's sequence order (zeros
// when the state is absent), checked to have one row per sequence.
template <typename T>
std::vector<T> InitialState(const ExecutionContext& ctx, const char* slot, const BatchOrder& order,
                            int64_t d) {
  const int64_t n = static_cast<int64_t>(order.seqs.size());
  std::vector<T> start(static_cast<size_t>(n * d), T(0));
  if (!ctx.HasInput(slot)) return start;
  const DenseTensor* s = ctx.Input(slot);
  PL_ENFORCE(
      s->dims()[0] == n,
      errors::InvalidArgument("op `%s` input `%s`: expected one row per sequence, %lld, "
                              "received shape %s",
                              ctx.Type(), slot, static_cast<long long>(n), s->dims().ToString()));
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(&start[i * d], s->data<T>() + order.seqs[i] * d, sizeof(T) * d);
  }
  return start;
}

// The peephole weights w_ic, w_fc, w_oc (zeros without use_peepholes), each D values.
template <typename T>
std::vector<T> Peepholes(const ExecutionContext& ctx, const DenseTensor& bias, int64_t d) {
  std::vector<T> p(static_cast<size_t>(3 * d), T(0));
  if (ctx.Attr<bool>("use_peepholes"))
    std::memcpy(p.data(), bias.data<T>() + 4 * d, sizeof(T) * 3 * d);
  return p;
}

// What both kernels read first: the inputs, the batch order, the activations, the initial
// states in batch order and the peephole weights.
template <typename T>
struct LstmSetup {
  const DenseTensor* input;
  const DenseTensor* weight;
  const DenseTensor* bias;
  int64_t d, steps;
  BatchOrder order;
  LstmActivations act;
  std::vector<T> start_h, start_c, peep;

  explicit LstmSetup(const ExecutionContext& ctx)
      : LstmSetup(ctx, ctx.Input("Input"), ctx.Input("Weight")) {}
  // `input` projected ([T, 4 D] with a level-1 LoD), `weight` the hidden weights [D, 4 D].
  LstmSetup(const ExecutionContext& ctx, const DenseTensor* input, const DenseTensor* weight)
      : input(input),
        weight(weight),
        bias(ctx.Input("Bias")),
        d(weight->dims()[0]),
        steps(input->dims()[0]),
        order(MakeBatchOrder(SequenceOffsets(ctx.Type(), *input), ctx.Attr<bool>("is_reverse"))),
        act(ReadLstmActivations(ctx)),
        start_h(InitialState<T>(ctx, "H0", order, d)),
        start_c(InitialState<T>(ctx, "C0", order, d)),
        peep(Peepholes<T>(ctx, *bias, d)) {}
  const T* w_ic() const { return peep.data(); }
  const T* w_fc() const { return peep.data() + d; }
  const T* w_oc() const { return peep.data() + 2 * d; }
};

// The recurrence of setup `s`: writes Hidden and Cell, and BatchGate and BatchCellPreAct when
// the op has them.
template <typename T>
void ComputeLstm(const ExecutionContext& ctx, const LstmSetup<T>& s) {
  const DenseTensor* input = s.input;
  const DenseTensor* weight = s.weight;
  const int64_t d = s.d, steps = s.steps;
  const BatchOrder& order = s.order;
  const LstmActivations& act = s.act;
  const std::vector<T>& start_h = s.start_h;
  const std::vector<T>& start_c = s.start_c;
  const T* w_ic = s.w_ic();
  const T* w_fc = s.w_fc();
  const T* w_oc = s.w_oc();
  const auto& dev = ctx.device_context<platform::CPUDeviceContext>();

  const DataType dtype = input->dtype();
  DenseTensor gate(DDim{steps, 4 * d}, dtype), cell_act(DDim{steps, d}, dtype);
  std::vector<T> hb(static_cast<size_t>(steps * d)), cb(hb.size());
  T* g = gate.mutable_data<T>(ctx.GetPlace());
  T* ab = cell_act.mutable_data<T>(ctx.GetPlace());
  const T* x = input->data<T>();
  const T* b = s.bias->template data<T>();
  for (size_t k = 0; k < order.rows.size(); ++k) {
    const T* src = x + order.rows[k] * 4 * d;
    T* dst = g + k * 4 * d;
    for (int64_t j = 0; j < 4 * d; ++j) dst[j] = src[j] + b[j];
  }
  for (size_t t = 0; t + 1 < order.step_begin.size(); ++t) {
    const int64_t first = order.step_begin[t];
    const int64_t rows = order.step_begin[t + 1] - first;
    // The sequences running at step t are the first `rows` of those at step t - 1.
    const T* prev_h = t == 0 ? start_h.data() : hb.data() + order.step_begin[t - 1] * d;
    const T* prev_c = t == 0 ? start_c.data() : cb.data() + order.step_begin[t - 1] * d;
    T* gt = g + first * 4 * d;
    math::Gemm<T>(dev, false, false, rows, 4 * d, d, T(1), prev_h, d, weight->data<T>(), 4 * d,
                  T(1), gt, 4 * d);
    for (int64_t i = 0; i < rows; ++i) {
      T* row = gt + i * 4 * d;
      const T* cp = prev_c + i * d;
      T* c = cb.data() + (first + i) * d;
      T* s = ab + (first + i) * d;
      T* h = hb.data() + (first + i) * d;
      for (int64_t j = 0; j < d; ++j) {
        const T cand = ApplyRecurrentActivation(act.candidate, row[j]);
        const T in_gate = ApplyRecurrentActivation(act.gate, row[d + j] + cp[j] * w_ic[j]);
        const T forget = ApplyRecurrentActivation(act.gate, row[2 * d + j] + cp[j] * w_fc[j]);
        c[j] = forget * cp[j] + in_gate * cand;
        const T out_gate = ApplyRecurrentActivation(act.gate, row[3 * d + j] + c[j] * w_oc[j]);
        s[j] = ApplyRecurrentActivation(act.cell, c[j]);
        h[j] = out_gate * s[j];
        row[j] = cand;
        row[d + j] = in_gate;
        row[2 * d + j] = forget;
        row[3 * d + j] = out_gate;
      }
    }
  }
  DenseTensor hidden(DDim{steps, d}, dtype), cell(DDim{steps, d}, dtype);
  T* h_out = hidden.mutable_data<T>(ctx.GetPlace());
  T* c_out = cell.mutable_data<T>(ctx.GetPlace());
  for (size_t k = 0; k < order.rows.size(); ++k) {
    std::memcpy(h_out + order.rows[k] * d, &hb[k * d], sizeof(T) * d);
    std::memcpy(c_out + order.rows[k] * d, &cb[k * d], sizeof(T) * d);
  }
  hidden.set_lod(input->lod());
  cell.set_lod(input->lod());
  *ctx.Output("Hidden") = std::move(hidden);
  *ctx.Output("Cell") = std::move(cell);
  if (ctx.HasOutput("BatchGate")) *ctx.Output("BatchGate") = std::move(gate);
  if (ctx.HasOutput("BatchCellPreAct")) *ctx.Output("BatchCellPreAct") = std::move(cell_act);
}

template <typename T>
struct LstmKernel {
  static void Compute(const ExecutionContext& ctx) { ComputeLstm<T>(ctx, LstmSetup<T>(ctx)); }
};

// ---- fusion_lstm: X WeightX, then lstm's recurrence ----

class FusionLstmOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Inputs [T, M] with a level-1 LoD (one sequence per offset pair).");
    AddInput("WeightX",
             "[M, 4 D]: X's projection onto the candidate, input, forget and "
             "output gate columns.");
    AddInput("WeightH", "[D, 4 D]: lstm's Weight.");
    AddInput("Bias", "[1, 4 D], or [1, 7 D] with use_peepholes (then w_ic, w_fc, w_oc).");
    AddInput("H0", "Initial hidden state [N, D]; zeros when absent.").AsDispensable();
    AddInput("C0", "Initial cell state [N, D]; zeros when absent.").AsDispensable();
    AddOutput("Hidden", "[T, D]: hidden states, with X's LoD.");
    AddOutput("Cell", "[T, D]: cell states, with X's LoD.");
    AddOutput("XX", "[T, 4 D]: X WeightX, before Bias.").AsIntermediate().AsDispensable();
    for (const char* scratch : {"BatchedInput", "BatchedHidden", "BatchedCell", "ReorderedH0",
                                "ReorderedC0", "CheckedCell"}) {
      AddOutput(scratch, "Unused here (PaddlePaddle's batch-mode scratch).")
          .AsIntermediate()
          .AsDispensable();
    }
    AddAttr<bool>("use_peepholes", "Peephole connections from the cell to the gates.")
        .SetDefault(true);
    AddAttr<bool>("is_reverse", "Run each sequence from its last step to its first.")
        .SetDefault(false);
    AddAttr<bool>("use_seq",
                  "PaddlePaddle's choice of loop (per sequence or batched); the "
                  "result is the same.")
        .SetDefault(true);
    AddAttr<std::string>("gate_activation", "Gate activation: sigmoid, tanh, relu or identity.")
        .SetDefault("sigmoid");
    AddAttr<std::string>("cell_activation",
                         "Activation of the cell in h: tanh, sigmoid, relu "
                         "or identity.")
        .SetDefault("tanh");
    AddAttr<std::string>("candidate_activation",
                         "Candidate activation: tanh, sigmoid, relu or "
                         "identity.")
        .SetDefault("tanh");
    AddAttr<float>("Scale_data", "For int8 programs; no effect on float inputs.")
        .SetDefault(1.0f)
        .AsExtra();
    AddAttr<float>("Shift_data", "For int8 programs; no effect on float inputs.")
        .SetDefault(0.0f)
        .AsExtra();
    AddAttr<std::vector<float>>("Scale_weights", "For int8 programs; no effect on float inputs.")
        .SetDefault({1.0f})
        .AsExtra();
    AddAttr<bool>("force_fp32_output", "For int8 programs; no effect on float inputs.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
The fc + lstm pair that inference passes fuse: with x_t the row of
$$XX = X \, WeightX \; (+ Bias)$$
for step t of a sequence, lstm's recurrence with WeightH as its Weight:
$$i_t = act_g(x_{i,t} + h_{t-1} W_i + w_{ic} \odot c_{t-1}), \quad
f_t = act_g(x_{f,t} + h_{t-1} W_f + w_{fc} \odot c_{t-1})$$
$$c_t = f_t \odot c_{t-1} + i_t \odot act_{cand}(x_{c,t} + h_{t-1} W_c), \quad
o_t = act_g(x_{o,t} + h_{t-1} W_o + w_{oc} \odot c_t), \quad h_t = o_t \odot act_{cell}(c_t)$$
An inference op: it has no gradient (training programs hold mul and lstm).
)DOC");
  }
};

void FusionLstmInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "WeightX", "WeightH", "Bias"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Hidden");
  ctx->RequireOutput("Cell");
  const std::string& op = ctx->OpType();
  const DDim x = ctx->GetInputDim("X");
  const DDim wx = ctx->GetInputDim("WeightX");
  PL_ENFORCE(x.size() == 2 && wx.size() == 2 && (wx[0] < 0 || x[1] < 0 || wx[0] == x[1]),
             errors::InvalidArgument("op `%s` inputs `X` and `WeightX`: expected [T, M] and "
                                     "[M, 4 D], received shapes %s and %s",
                                     op, x.ToString(), wx.ToString()));
  const LstmDims l = CheckLstmShapes(ctx, DDim{x[0], wx[1]}, "WeightH");
  if (ctx->HasOutput("XX")) {
    ctx->SetOutputDim("XX", DDim{l.steps, wx[1]});
    ctx->ShareLoD("X", "XX");
  }
  for (const char* out : {"Hidden", "Cell"}) {
    ctx->SetOutputDim(out, DDim{l.steps, l.width});
    ctx->ShareLoD("X", out);
  }
}

template <typename T>
struct FusionLstmKernel {
  static void Compute(const ExecutionContext& ctx) {
    DenseTensor xx = ProjectSequenceRows<T>(ctx, *ctx.Input("X"), *ctx.Input("WeightX"));
    ComputeLstm<T>(ctx, LstmSetup<T>(ctx, &xx, ctx.Input("WeightH")));
    if (ctx.HasOutput("XX")) *ctx.Output("XX") = std::move(xx);
  }
};

// ---- lstm_grad: back-propagation through time, in the forward's batch order ----

void LstmGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Input", "Weight", "Bias", "Hidden", "Cell", "BatchGate",
                           "BatchCellPreAct", "Hidden@GRAD"}) {
    ctx->RequireInput(slot);
  }
  CheckLstmShapes(ctx, ctx->GetInputDim("Input"), "Weight");
  for (const char* slot : {"Input", "H0", "C0", "Weight", "Bias"}) {
    const std::string grad = std::string(slot) + "@GRAD";
    if (!ctx->HasOutput(grad)) continue;
    ctx->RequireInput(slot);
    ctx->SetOutputDim(grad, ctx->GetInputDim(slot));
  }
  if (ctx->HasOutput("Input@GRAD")) ctx->ShareLoD("Input", "Input@GRAD");
}

// `src` ([T, D] in input row order) in batch order.
template <typename T>
std::vector<T> ToBatchOrder(const DenseTensor& src, const BatchOrder& order, int64_t d) {
  std::vector<T> out(order.rows.size() * d);
  for (size_t k = 0; k < order.rows.size(); ++k) {
    std::memcpy(&out[k * d], src.data<T>() + order.rows[k] * d, sizeof(T) * d);
  }
  return out;
}

template <typename T>
struct LstmGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const LstmSetup<T> s(ctx);
    const DenseTensor* input = s.input;
    const DenseTensor* weight = s.weight;
    const DenseTensor* bias = s.bias;
    const int64_t d = s.d, steps = s.steps;
    const std::pair<const char*, int64_t> saved[] = {{"Hidden", d},        {"Cell", d},
                                                     {"BatchGate", 4 * d}, {"BatchCellPreAct", d},
                                                     {"Hidden@GRAD", d},   {"Cell@GRAD", d}};
    for (const auto& [slot, width] : saved) {
      if (!ctx.HasInput(slot)) continue;
      const DenseTensor* t = ctx.Input(slot);
      PL_ENFORCE(t->dims() == DDim({steps, width}),
                 errors::InvalidArgument("op `%s` input `%s`: expected shape [%lld, %lld], "
                                         "received %s",
                                         op, slot, static_cast<long long>(steps),
                                         static_cast<long long>(width), t->dims().ToString()));
    }
    const BatchOrder& order = s.order;
    const int64_t n = static_cast<int64_t>(order.seqs.size());
    const LstmActivations& act = s.act;
    const std::vector<T>& start_h = s.start_h;
    const std::vector<T>& start_c = s.start_c;
    const T* w_ic = s.w_ic();
    const T* w_fc = s.w_fc();
    const T* w_oc = s.w_oc();
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();

    const T* gate = ctx.Input("BatchGate")->data<T>();
    const T* cell_act = ctx.Input("BatchCellPreAct")->data<T>();
    const std::vector<T> hb = ToBatchOrder<T>(*ctx.Input("Hidden"), order, d);
    const std::vector<T> cb = ToBatchOrder<T>(*ctx.Input("Cell"), order, d);
    // dh and dc in batch order; each step adds what flows back into the previous step's rows.
    std::vector<T> dh = ToBatchOrder<T>(*ctx.Input("Hidden@GRAD"), order, d);
    std::vector<T> dc = ctx.HasInput("Cell@GRAD")
                            ? ToBatchOrder<T>(*ctx.Input("Cell@GRAD"), order, d)
                            : std::vector<T>(dh.size(), T(0));
    std::vector<T> dstart_h(static_cast<size_t>(n * d), T(0)), dstart_c(dstart_h.size(), T(0));
    std::vector<T> dgate(static_cast<size_t>(steps * 4 * d));
    std::vector<T> dw(static_cast<size_t>(4 * d * d), T(0)), dpeep(3 * d, T(0));
    for (size_t t = order.step_begin.size() - 1; t-- > 0;) {
      const int64_t first = order.step_begin[t];
      const int64_t rows = order.step_begin[t + 1] - first;
      const int64_t prev_first = t == 0 ? 0 : order.step_begin[t - 1];
      const T* prev_h = t == 0 ? start_h.data() : hb.data() + prev_first * d;
      const T* prev_c = t == 0 ? start_c.data() : cb.data() + prev_first * d;
      T* dprev_h = t == 0 ? dstart_h.data() : dh.data() + prev_first * d;
      T* dprev_c = t == 0 ? dstart_c.data() : dc.data() + prev_first * d;
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t k = first + i;
        const T* g = gate + k * 4 * d;
        T* dg = dgate.data() + k * 4 * d;
        for (int64_t j = 0; j < d; ++j) {
          const T cand = g[j], in_gate = g[d + j], forget = g[2 * d + j], out_gate = g[3 * d + j];
          const T c = cb[k * d + j], s = cell_act[k * d + j], cp = prev_c[i * d + j];
          const T dht = dh[k * d + j];
          const T d_out = dht * s * ActivationSlope(act.gate, out_gate);
          const T dct =
              dc[k * d + j] + dht * out_gate * ActivationSlope(act.cell, s) + d_out * w_oc[j];
          const T d_in = dct * cand * ActivationSlope(act.gate, in_gate);
          const T d_forget = dct * cp * ActivationSlope(act.gate, forget);
          dg[j] = dct * in_gate * ActivationSlope(act.candidate, cand);
          dg[d + j] = d_in;
          dg[2 * d + j] = d_forget;
          dg[3 * d + j] = d_out;
          dprev_c[i * d + j] += dct * forget + d_in * w_ic[j] + d_forget * w_fc[j];
          dpeep[j] += d_in * cp;
          dpeep[d + j] += d_forget * cp;
          dpeep[2 * d + j] += d_out * c;
        }
      }
      // dh_prev += dgate W^T; dW += h_prev^T dgate.
      T* dg = dgate.data() + first * 4 * d;
      math::Gemm<T>(dev, false, true, rows, d, 4 * d, T(1), dg, 4 * d, weight->data<T>(), 4 * d,
                    T(1), dprev_h, d);
      math::Gemm<T>(dev, true, false, d, 4 * d, rows, T(1), prev_h, d, dg, 4 * d, T(1), dw.data(),
                    4 * d);
    }
    const DataType dtype = input->dtype();
    if (ctx.HasOutput("Input@GRAD")) {
      DenseTensor dx(input->dims(), dtype);
      T* out = dx.mutable_data<T>(ctx.GetPlace());
      for (size_t k = 0; k < order.rows.size(); ++k) {
        std::memcpy(out + order.rows[k] * 4 * d, &dgate[k * 4 * d], sizeof(T) * 4 * d);
      }
      dx.set_lod(input->lod());
      *ctx.Output("Input@GRAD") = std::move(dx);
    }
    const std::pair<const char*, const std::vector<T>*> starts[] = {{"H0", &dstart_h},
                                                                    {"C0", &dstart_c}};
    for (const auto& [slot, grad] : starts) {
      const std::string name = std::string(slot) + "@GRAD";
      if (!ctx.HasOutput(name)) continue;
      PL_ENFORCE(ctx.HasInput(slot),
                 errors::InvalidArgument("op `%s` output `%s`: requested without input `%s`", op,
                                         name, slot));
      DenseTensor ds(ctx.Input(slot)->dims(), dtype);
      T* out = ds.mutable_data<T>(ctx.GetPlace());
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(out + order.seqs[i] * d, &(*grad)[i * d], sizeof(T) * d);
      }
      *ctx.Output(name) = std::move(ds);
    }
    if (ctx.HasOutput("Weight@GRAD")) {
      DenseTensor dweight(weight->dims(), dtype);
      T* out = dweight.mutable_data<T>(ctx.GetPlace());
      if (!dw.empty()) std::memcpy(out, dw.data(), sizeof(T) * dw.size());
      *ctx.Output("Weight@GRAD") = std::move(dweight);
    }
    if (ctx.HasOutput("Bias@GRAD")) {
      DenseTensor db(bias->dims(), dtype);
      T* out = db.mutable_data<T>(ctx.GetPlace());
      std::fill(out, out + bias->numel(), T(0));
      for (int64_t k = 0; k < steps; ++k) {
        for (int64_t j = 0; j < 4 * d; ++j) out[j] += dgate[k * 4 * d + j];
      }
      if (bias->numel() == 7 * d) std::memcpy(out + 4 * d, dpeep.data(), sizeof(T) * 3 * d);
      *ctx.Output("Bias@GRAD") = std::move(db);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterLstmOp) {
  const framework::FusedGradDecl grad{
      {"Input", "H0", "C0", "Weight", "Bias", "Hidden", "Cell", "BatchGate", "BatchCellPreAct"},
      {"Hidden", "Cell"},
      {"Input", "H0", "C0", "Weight", "Bias"},
      R"DOC(Back-propagation through time: with dh_t and dc_t the gradients reaching h_t and
c_t, s_t = act_{cell}(c_t) and a' the slope of activation a at its output,
$$do_t = dh_t \odot s_t \odot act_g'(o_t), \quad
dc_t \mathrel{+}= dh_t \odot o_t \odot act_{cell}'(s_t) + do_t \odot w_{oc}$$
$$di_t = dc_t \odot \tilde c_t \odot act_g'(i_t), \quad
df_t = dc_t \odot c_{t-1} \odot act_g'(f_t), \quad
d\tilde c_t = dc_t \odot i_t \odot act_{cand}'(\tilde c_t)$$
$$dc_{t-1} \mathrel{+}= dc_t \odot f_t + di_t \odot w_{ic} + df_t \odot w_{fc}, \quad
dh_{t-1} \mathrel{+}= [d\tilde c_t, di_t, df_t, do_t] W^T$$
dInput rows are [d\tilde c_t, di_t, df_t, do_t], dBias their sum (and the peephole sums
di_t c_{t-1}, df_t c_{t-1}, do_t c_t), dW sums h_{t-1}^T [d\tilde c_t, di_t, df_t, do_t].)DOC"};
  framework::RegisterOp<LstmOp, LstmOpMaker>("lstm")
      .InferShape(LstmInferShape)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<LstmKernel>("lstm");
  framework::RegisterFusedGradOp("lstm", grad).InferShape(LstmGradInferShape);
  RegisterPlainCpuFloatKernels<LstmGradKernel>("lstm_grad");

  framework::RegisterOp<FusedRecurrentOp, FusionLstmOpMaker>("fusion_lstm")
      .InferShape(FusionLstmInferShape)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<FusionLstmKernel>("fusion_lstm");
}

}  // namespace operators
}  // namespace paddle_like

// rnn: PaddlePaddle's multi-layer, optionally bidirectional recurrent network over a
// time-major batch, the op that paddle.nn.LSTM, paddle.nn.GRU and paddle.nn.SimpleRNN save:
// mode LSTM, GRU, RNN_TANH or RNN_RELU.
//
// Each layer and direction k = layer * D + direction has four tensors in WeightList, all the
// weights first, then all the biases (PaddlePaddle's cuDNN-style order):
//   WeightList[2 k], [2 k + 1]                   W_ih [G H, in], W_hh [G H, H]
//   WeightList[2 L D + 2 k], [2 L D + 2 k + 1]   b_ih [G H], b_hh [G H]
// with G gates (4, 3, 1), `in` the input size for layer 0 and D H above it. A step first
// projects every time step's input at once (one GEMM per layer and direction), then runs one
// [N, H] x [H, G H] GEMM per step for the recurrence.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/nn/dropout_mask.h"
#include "operators/op_family.h"
#include "platform/random.h"

namespace paddle_like {
namespace operators {

namespace {

class RnnOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "[T, N, input_size], time-major.");
    AddInput("PreState",
             "Initial states, each [num_layers * D, N, hidden_size] (D = 2 when "
             "bidirectional): h0 and c0 for LSTM, h0 otherwise.")
        .AsDuplicable();
    AddInput("WeightList",
             "4 num_layers D tensors: every W_ih [G H, in] and W_hh [G H, H] "
             "(layer by layer, forward then backward), then every b_ih and b_hh "
             "[G H] in the same order; G = 4 (LSTM), 3 (GRU), 1 (RNN_*).")
        .AsDuplicable();
    AddInput("SequenceLength",
             "int32 or int64 [N]: the steps of each batch row; later steps "
             "give zero outputs and leave the states alone.")
        .AsDispensable();
    AddOutput("Out",
              "[T, N, D * hidden_size]: the last layer's hidden states, the forward "
              "direction's first.");
    AddOutput("State", "Final states, shaped as PreState.").AsDuplicable();
    AddOutput("Reserve", "uint8: what PaddlePaddle keeps for its grad kernel; empty here.")
        .AsIntermediate()
        .AsDispensable();
    AddOutput("DropoutState",
              "uint8: the dropout mask between layers in training (empty "
              "otherwise).")
        .AsDispensable();
    AddAttr<float>("dropout_prob",
                   "Dropout on the inputs of layers 1 and above, in training "
                   "(is_test false) only; in [0, 1].")
        .SetDefault(0.0f);
    AddAttr<bool>("is_bidirec", "Adds a backward direction (D = 2).").SetDefault(false);
    AddAttr<int>("input_size", "Features of Input.").SetDefault(10);
    AddAttr<int>("hidden_size", "Features of each hidden state (H).").SetDefault(100);
    AddAttr<int>("num_layers", "Stacked layers (L).").SetDefault(1);
    AddAttr<std::string>("mode", "LSTM, GRU, RNN_TANH or RNN_RELU.").SetDefault("RNN_TANH");
    AddAttr<int>("seed", "Seed of the dropout mask; 0 takes the next default seed.").SetDefault(0);
    AddAttr<bool>("is_test", "Inference: no dropout.").SetDefault(false);
    AddComment(R"DOC(
A recurrent network. With x_t the layer's input at step t, h_{t-1} (and c_{t-1}) the state,
g = x_t W_ih^T + b_ih and q = h_{t-1} W_hh^T + b_hh, split into gate blocks of H columns:
$$\text{LSTM: } i, f, o = \sigma(g + q)_{i,f,o}, \quad \tilde c = \tanh(g + q)_c, \quad
c_t = f \odot c_{t-1} + i \odot \tilde c, \quad h_t = o \odot \tanh(c_t)$$
(blocks in the order i, f, c, o);
$$\text{GRU: } r = \sigma(g_r + q_r), \quad z = \sigma(g_z + q_z), \quad
\tilde h = \tanh(g_c + r \odot q_c), \quad h_t = z \odot h_{t-1} + (1 - z) \odot \tilde h$$
$$\text{RNN\_TANH / RNN\_RELU: } h_t = \tanh(g + q) \text{ or } \max(g + q, 0)$$
The backward direction runs from each row's last step (SequenceLength) to step 0. Layer l > 0
reads the concatenated directions of layer l - 1.
)DOC");
  }
};

struct RnnShape {
  std::string mode;
  int64_t gates = 0, dirs = 0, layers = 0, hidden = 0, input = 0;
};

// The attributes of `ctx` (an InferShapeContext or ExecutionContext), checked.
template <typename Context>
RnnShape ResolveRnnShape(const std::string& op, const Context& ctx) {
  RnnShape s;
  s.mode = ctx.template Attr<std::string>("mode");
  if (s.mode == "LSTM") {
    s.gates = 4;
  } else if (s.mode == "GRU") {
    s.gates = 3;
  } else if (s.mode == "RNN_TANH" || s.mode == "RNN_RELU") {
    s.gates = 1;
  } else {
    throw errors::InvalidArgument(
        "op `%s` attribute `mode`: expected LSTM, GRU, RNN_TANH or RNN_RELU, received \"%s\"", op,
        s.mode);
  }
  s.dirs = ctx.template Attr<bool>("is_bidirec") ? 2 : 1;
  s.layers = ctx.template Attr<int>("num_layers");
  s.hidden = ctx.template Attr<int>("hidden_size");
  s.input = ctx.template Attr<int>("input_size");
  PL_ENFORCE(s.layers >= 1,
             errors::InvalidArgument("op `%s` attribute `num_layers`: expected >= 1, received %lld",
                                     op, static_cast<long long>(s.layers)));
  PL_ENFORCE(s.hidden >= 1, errors::InvalidArgument(
                                "op `%s` attribute `hidden_size`: expected >= 1, received %lld", op,
                                static_cast<long long>(s.hidden)));
  const float p = ctx.template Attr<float>("dropout_prob");
  PL_ENFORCE(p >= 0.0f && p <= 1.0f,
             errors::InvalidArgument("op `%s` attribute `dropout_prob`: expected a value in "
                                     "[0, 1], received %g",
                                     op, static_cast<double>(p)));
  return s;
}

// Whether `d` (a dim, -1 when unknown) is `want`.
bool DimIs(int64_t d, int64_t want) { return d < 0 || want < 0 || d == want; }

void RnnInferShape(InferShapeContext* ctx) {
  const std::string& op = ctx->OpType();
  ctx->RequireInput("Input");
  ctx->RequireInput("PreState");
  ctx->RequireInput("WeightList");
  ctx->RequireOutput("Out");
  const RnnShape s = ResolveRnnShape(op, *ctx);
  const DDim x = ctx->GetInputDim("Input");
  PL_ENFORCE(x.size() == 3 && DimIs(x[2], s.input),
             errors::InvalidArgument("op `%s` input `Input`: expected [T, N, input_size = %lld], "
                                     "received shape %s",
                                     op, static_cast<long long>(s.input), x.ToString()));
  const size_t states = s.mode == "LSTM" ? 2 : 1;
  PL_ENFORCE(ctx->InputSize("PreState") == states,
             errors::InvalidArgument("op `%s` input `PreState`: expected %zu tensors for mode "
                                     "%s, received %zu",
                                     op, states, s.mode, ctx->InputSize("PreState")));
  const DDim state{s.layers * s.dirs, x[1], s.hidden};
  for (size_t i = 0; i < states; ++i) {
    const DDim h = ctx->GetInputDim("PreState", i);
    PL_ENFORCE(
        h.size() == 3 && DimIs(h[0], state[0]) && DimIs(h[1], state[1]) && DimIs(h[2], state[2]),
        errors::InvalidArgument("op `%s` input `PreState` %zu: expected [num_layers * D, "
                                "N, hidden_size] = %s, received shape %s",
                                op, i, state.ToString(), h.ToString()));
  }
  const size_t weights = static_cast<size_t>(4 * s.layers * s.dirs);
  PL_ENFORCE(ctx->InputSize("WeightList") == weights,
             errors::InvalidArgument("op `%s` input `WeightList`: expected 4 * num_layers * D "
                                     "= %zu tensors, received %zu",
                                     op, weights, ctx->InputSize("WeightList")));
  const int64_t rows = s.gates * s.hidden;
  for (int64_t k = 0; k < s.layers * s.dirs; ++k) {
    const int64_t in = k < s.dirs ? s.input : s.dirs * s.hidden;
    const struct {
      size_t index;
      DDim want;
    } expected[] = {{static_cast<size_t>(2 * k), DDim{rows, in}},
                    {static_cast<size_t>(2 * k + 1), DDim{rows, s.hidden}},
                    {static_cast<size_t>(weights / 2 + 2 * k), DDim{rows}},
                    {static_cast<size_t>(weights / 2 + 2 * k + 1), DDim{rows}}};
    for (const auto& e : expected) {
      const DDim w = ctx->GetInputDim("WeightList", e.index);
      bool ok = w.size() == e.want.size();
      for (int i = 0; ok && i < w.size(); ++i) ok = DimIs(w[i], e.want[i]);
      PL_ENFORCE(ok, errors::InvalidArgument("op `%s` input `WeightList` %zu: expected shape %s "
                                             "(mode %s, layer %lld, direction %lld), received %s",
                                             op, e.index, e.want.ToString(), s.mode,
                                             static_cast<long long>(k / s.dirs),
                                             static_cast<long long>(k % s.dirs), w.ToString()));
    }
  }
  if (ctx->HasInput("SequenceLength")) {
    const DDim len = ctx->GetInputDim("SequenceLength");
    PL_ENFORCE(len.size() == 1 && DimIs(len[0], x[1]),
               errors::InvalidArgument("op `%s` input `SequenceLength`: expected [N] = [%lld], "
                                       "received shape %s",
                                       op, static_cast<long long>(x[1]), len.ToString()));
  }
  ctx->SetOutputDim("Out", DDim{x[0], x[1], s.dirs * s.hidden});
  for (size_t i = 0; i < ctx->OutputSize("State") && i < states; ++i) {
    ctx->SetOutputDim("State", state, i);
  }
  if (ctx->HasOutput("Reserve")) ctx->SetOutputDim("Reserve", DDim{0});
}

void RnnInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("Input"));
  ctx->SetOutputDataType("State", ctx->GetInputDataType("Input"));
  ctx->SetOutputDataType("Reserve", DataType::UINT8);
  ctx->SetOutputDataType("DropoutState", DataType::UINT8);
}

class RnnOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Input");
  }
};

template <typename T>
T Sigmoid(T v) {
  return T(1) / (T(1) + std::exp(-v));
}

// The steps of each batch row: SequenceLength's values (checked in [0, T]), else T.
std::vector<int64_t> StepsPerRow(const ExecutionContext& ctx, int64_t steps, int64_t batch) {
  std::vector<int64_t> len(static_cast<size_t>(batch), steps);
  if (!ctx.HasInput("SequenceLength")) return len;
  const DenseTensor* t = ctx.Input("SequenceLength");
  PL_ENFORCE(
      t->numel() == batch,
      errors::InvalidArgument("op `%s` input `SequenceLength`: expected %lld values (one "
                              "per batch row), received shape %s",
                              ctx.Type(), static_cast<long long>(batch), t->dims().ToString()));
  for (int64_t n = 0; n < batch; ++n) {
    if (t->dtype() == DataType::INT32) {
      len[n] = t->data<int32_t>()[n];
    } else if (t->dtype() == DataType::INT64) {
      len[n] = t->data<int64_t>()[n];
    } else {
      throw errors::InvalidArgument(
          "op `%s` input `SequenceLength`: expected int32 or int64, "
          "received %s",
          ctx.Type(), DataTypeName(t->dtype()));
    }
    PL_ENFORCE(
        len[n] >= 0 && len[n] <= steps,
        errors::InvalidArgument("op `%s` input `SequenceLength`: row %lld has %lld steps, "
                                "expected 0 to %lld (Input's T)",
                                ctx.Type(), static_cast<long long>(n),
                                static_cast<long long>(len[n]), static_cast<long long>(steps)));
  }
  return len;
}

template <typename T>
struct RnnKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const RnnShape s = ResolveRnnShape(op, ctx);
    const DenseTensor* x = ctx.Input("Input");
    const std::vector<const DenseTensor*> pre = ctx.MultiInput("PreState");
    const std::vector<const DenseTensor*> w = ctx.MultiInput("WeightList");
    // RnnInferShape has checked the shapes at run time (the counts of PreState and WeightList
    // among them) before the kernel runs.
    const int64_t steps = x->dims()[0], batch = x->dims()[1], h = s.hidden, g = s.gates * h;
    const std::vector<int64_t> len = StepsPerRow(ctx, steps, batch);
    const bool lstm = s.mode == "LSTM";
    const bool training = !ctx.Attr<bool>("is_test");
    const double p = ctx.Attr<float>("dropout_prob");
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const int64_t width = s.dirs * h;  // Features of a layer's output.

    std::vector<T> layer_in, layer_out(static_cast<size_t>(steps * batch * width));
    std::vector<T> proj(static_cast<size_t>(steps * batch * g)),
        rec(static_cast<size_t>(batch * g));
    std::vector<T> hs(static_cast<size_t>(batch * h)), cs(lstm ? hs.size() : 0);
    std::vector<DenseTensor> final_states;
    for (size_t i = 0; i < pre.size(); ++i) {
      final_states.emplace_back(pre[i]->dims(), x->dtype());
      final_states.back().mutable_data<T>(ctx.GetPlace());
    }
    DenseTensor mask(DDim{0}, DataType::UINT8);
    mask.mutable_data<uint8_t>(ctx.GetPlace());
    for (int64_t l = 0; l < s.layers; ++l) {
      const T* in = l == 0 ? x->data<T>() : layer_in.data();
      const int64_t in_w = l == 0 ? s.input : width;
      for (int64_t dir = 0; dir < s.dirs; ++dir) {
        const int64_t k = l * s.dirs + dir;
        const T* w_ih = w[2 * k]->data<T>();
        const T* w_hh = w[2 * k + 1]->data<T>();
        const T* b_ih = w[w.size() / 2 + 2 * k]->data<T>();
        const T* b_hh = w[w.size() / 2 + 2 * k + 1]->data<T>();
        // proj = in W_ih^T + b_ih for every step at once.
        math::Gemm<T>(dev, false, true, steps * batch, g, in_w, T(1), in, in_w, w_ih, in_w, T(0),
                      proj.data(), g);
        for (int64_t r = 0; r < steps * batch; ++r) {
          for (int64_t j = 0; j < g; ++j) proj[r * g + j] += b_ih[j];
        }
        std::memcpy(hs.data(), pre[0]->data<T>() + k * batch * h, sizeof(T) * hs.size());
        if (lstm) std::memcpy(cs.data(), pre[1]->data<T>() + k * batch * h, sizeof(T) * cs.size());
        for (int64_t step = 0; step < steps; ++step) {
          const int64_t t = dir == 0 ? step : steps - 1 - step;
          // rec = h W_hh^T + b_hh.
          for (int64_t n = 0; n < batch; ++n) std::memcpy(&rec[n * g], b_hh, sizeof(T) * g);
          math::Gemm<T>(dev, false, true, batch, g, h, T(1), hs.data(), h, w_hh, h, T(1),
                        rec.data(), g);
          for (int64_t n = 0; n < batch; ++n) {
            T* out = &layer_out[(t * batch + n) * width + dir * h];
            if (t >= len[n]) {  // Past the row's end: zero output, the state kept.
              std::fill(out, out + h, T(0));
              continue;
            }
            const T* a = &proj[(t * batch + n) * g];
            const T* q = &rec[n * g];
            T* hn = &hs[n * h];
            for (int64_t j = 0; j < h; ++j) {
              if (lstm) {
                const T i_gate = Sigmoid(a[j] + q[j]);
                const T f_gate = Sigmoid(a[h + j] + q[h + j]);
                const T cand = std::tanh(a[2 * h + j] + q[2 * h + j]);
                const T o_gate = Sigmoid(a[3 * h + j] + q[3 * h + j]);
                T& c = cs[n * h + j];
                c = f_gate * c + i_gate * cand;
                hn[j] = o_gate * std::tanh(c);
              } else if (s.gates == 3) {
                const T r = Sigmoid(a[j] + q[j]);
                const T z = Sigmoid(a[h + j] + q[h + j]);
                const T cand = std::tanh(a[2 * h + j] + r * q[2 * h + j]);
                hn[j] = z * hn[j] + (T(1) - z) * cand;
              } else {
                const T v = a[j] + q[j];
                hn[j] = s.mode == "RNN_TANH" ? std::tanh(v) : std::max(v, T(0));
              }
              out[j] = hn[j];
            }
          }
        }
        std::memcpy(final_states[0].data<T>() + k * batch * h, hs.data(), sizeof(T) * hs.size());
        if (lstm) {
          std::memcpy(final_states[1].data<T>() + k * batch * h, cs.data(), sizeof(T) * cs.size());
        }
      }
      if (l + 1 < s.layers) {
        layer_in = layer_out;
        if (training && p > 0.0) {
          // upscale_in_train between layers, a counter-based draw per element of each layer.
          const uint64_t seed = platform::ResolveSeed(ctx.Attr<int>("seed"));
          const int64_t count = static_cast<int64_t>(layer_in.size());
          mask = DenseTensor(DDim{count}, DataType::UINT8);
          uint8_t* keep = mask.mutable_data<uint8_t>(ctx.GetPlace());
          const T scale = p < 1.0 ? static_cast<T>(1.0 / (1.0 - p)) : T(0);
          for (int64_t e = 0; e < count; ++e) {
            keep[e] = dropout::KeepElement(seed, static_cast<uint64_t>(l * count + e), p) ? 1 : 0;
            layer_in[e] = keep[e] ? layer_in[e] * scale : T(0);
          }
        }
      }
    }
    DenseTensor out(DDim{steps, batch, width}, x->dtype());
    if (!layer_out.empty()) {
      std::memcpy(out.mutable_data<T>(ctx.GetPlace()), layer_out.data(),
                  sizeof(T) * layer_out.size());
    } else {
      out.mutable_data<T>(ctx.GetPlace());
    }
    *ctx.Output("Out") = std::move(out);
    const std::vector<DenseTensor*> state_out = ctx.MultiOutput("State");
    for (size_t i = 0; i < state_out.size() && i < final_states.size(); ++i) {
      if (state_out[i] != nullptr) *state_out[i] = std::move(final_states[i]);
    }
    if (ctx.HasOutput("Reserve")) {
      DenseTensor reserve(DDim{0}, DataType::UINT8);
      reserve.mutable_data<uint8_t>(ctx.GetPlace());
      *ctx.Output("Reserve") = std::move(reserve);
    }
    if (ctx.HasOutput("DropoutState")) *ctx.Output("DropoutState") = std::move(mask);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRnnOp) {
  framework::RegisterOp<RnnOp, RnnOpMaker>("rnn")
      .InferShape(RnnInferShape)
      .InferVarType(RnnInferVarType);
  RegisterPlainCpuFloatKernels<RnnKernel>("rnn");
}

}  // namespace operators
}  // namespace paddle_like

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
#include <utility>
#include <vector>

#include "framework/fused_grad_op.h"
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
                   "(is_test false) only, one mask shared by those layers; in [0, 1].")
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

// What the backward pass needs of one layer and direction, per time index t (not per
// processing step) and batch row; rows past their length keep whatever was there.
template <typename T>
struct RnnTrace {
  std::vector<T> h_prev;  // [T, N, H]: the hidden state before step t.
  std::vector<T> gates;   // [T, N, G H]: LSTM i, f, c~, o; GRU r, z, c~; RNN_* h_t.
  std::vector<T> c_prev;  // LSTM [T, N, H]: the cell before step t.
  std::vector<T> c;       // LSTM [T, N, H]: the cell after step t.
  std::vector<T> q_cand;  // GRU [T, N, H]: h_{t-1} W_hc^T + b_hc.
};

template <typename T>
struct RnnRecord {
  std::vector<std::vector<T>> layer_inputs;  // Input of layer l > 0 (after dropout), at [l].
  std::vector<RnnTrace<T>> traces;           // At layer * D + direction.
};

template <typename T>
struct RnnResult {
  std::vector<T> out;                          // [T, N, D H]
  std::vector<DenseTensor> states;             // Final h (and c), shaped as PreState.
  DenseTensor mask{DDim{0}, DataType::UINT8};  // The dropout mask between layers.
};

// The inverse keep probability of dropout `p` (0 when everything is dropped).
double DropoutScale(double p) { return p < 1.0 ? 1.0 / (1.0 - p) : 0.0; }

// Runs the network of `ctx`'s attributes on its inputs. The dropout mask between layers is
// `given_mask` when not null (the one the forward op drew), else drawn from the seed. With
// `record` it keeps what RnnBackward reads.
template <typename T>
RnnResult<T> RunRnn(const ExecutionContext& ctx, const RnnShape& s, const std::vector<int64_t>& len,
                    const DenseTensor* given_mask, RnnRecord<T>* record) {
  const DenseTensor* x = ctx.Input("Input");
  const std::vector<const DenseTensor*> pre = ctx.MultiInput("PreState");
  const std::vector<const DenseTensor*> w = ctx.MultiInput("WeightList");
  // RnnInferShape has checked the shapes at run time (the counts of PreState and WeightList
  // among them) before the kernel runs.
  const int64_t steps = x->dims()[0], batch = x->dims()[1], h = s.hidden, g = s.gates * h;
  const bool lstm = s.mode == "LSTM";
  const bool training = !ctx.Attr<bool>("is_test");
  const double p = ctx.Attr<float>("dropout_prob");
  const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
  const int64_t width = s.dirs * h;  // Features of a layer's output.

  RnnResult<T> result;
  std::vector<T> layer_in, layer_out(static_cast<size_t>(steps * batch * width));
  std::vector<T> proj(static_cast<size_t>(steps * batch * g)), rec(static_cast<size_t>(batch * g));
  std::vector<T> hs(static_cast<size_t>(batch * h)), cs(lstm ? hs.size() : 0);
  for (size_t i = 0; i < pre.size(); ++i) {
    result.states.emplace_back(pre[i]->dims(), x->dtype());
    result.states.back().template mutable_data<T>(ctx.GetPlace());
  }
  result.mask.template mutable_data<uint8_t>(ctx.GetPlace());
  if (record != nullptr) {
    record->layer_inputs.assign(static_cast<size_t>(s.layers), {});
    record->traces.assign(static_cast<size_t>(s.layers * s.dirs), {});
  }
  const size_t per_step = static_cast<size_t>(steps * batch);
  for (int64_t l = 0; l < s.layers; ++l) {
    const T* in = l == 0 ? x->data<T>() : layer_in.data();
    const int64_t in_w = l == 0 ? s.input : width;
    for (int64_t dir = 0; dir < s.dirs; ++dir) {
      const int64_t k = l * s.dirs + dir;
      RnnTrace<T>* trace = record ? &record->traces[k] : nullptr;
      if (trace != nullptr) {
        trace->h_prev.resize(per_step * h);
        trace->gates.resize(per_step * g);
        if (lstm) {
          trace->c_prev.resize(per_step * h);
          trace->c.resize(per_step * h);
        }
        if (s.gates == 3) trace->q_cand.resize(per_step * h);
      }
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
        math::Gemm<T>(dev, false, true, batch, g, h, T(1), hs.data(), h, w_hh, h, T(1), rec.data(),
                      g);
        for (int64_t n = 0; n < batch; ++n) {
          T* out = &layer_out[(t * batch + n) * width + dir * h];
          if (t >= len[n]) {  // Past the row's end: zero output, the state kept.
            std::fill(out, out + h, T(0));
            continue;
          }
          const size_t at = static_cast<size_t>(t * batch + n);
          const T* a = &proj[at * g];
          const T* q = &rec[n * g];
          T* hn = &hs[n * h];
          if (trace != nullptr) {
            std::memcpy(&trace->h_prev[at * h], hn, sizeof(T) * h);
            if (lstm) std::memcpy(&trace->c_prev[at * h], &cs[n * h], sizeof(T) * h);
          }
          T* saved = trace ? &trace->gates[at * g] : nullptr;
          for (int64_t j = 0; j < h; ++j) {
            if (lstm) {
              const T i_gate = Sigmoid(a[j] + q[j]);
              const T f_gate = Sigmoid(a[h + j] + q[h + j]);
              const T cand = std::tanh(a[2 * h + j] + q[2 * h + j]);
              const T o_gate = Sigmoid(a[3 * h + j] + q[3 * h + j]);
              T& c = cs[n * h + j];
              c = f_gate * c + i_gate * cand;
              hn[j] = o_gate * std::tanh(c);
              if (saved != nullptr) {
                saved[j] = i_gate;
                saved[h + j] = f_gate;
                saved[2 * h + j] = cand;
                saved[3 * h + j] = o_gate;
                trace->c[at * h + j] = c;
              }
            } else if (s.gates == 3) {
              const T r = Sigmoid(a[j] + q[j]);
              const T z = Sigmoid(a[h + j] + q[h + j]);
              const T cand = std::tanh(a[2 * h + j] + r * q[2 * h + j]);
              hn[j] = z * hn[j] + (T(1) - z) * cand;
              if (saved != nullptr) {
                saved[j] = r;
                saved[h + j] = z;
                saved[2 * h + j] = cand;
                trace->q_cand[at * h + j] = q[2 * h + j];
              }
            } else {
              const T v = a[j] + q[j];
              hn[j] = s.mode == "RNN_TANH" ? std::tanh(v) : std::max(v, T(0));
              if (saved != nullptr) saved[j] = hn[j];
            }
            out[j] = hn[j];
          }
        }
      }
      std::memcpy(result.states[0].template data<T>() + k * batch * h, hs.data(),
                  sizeof(T) * hs.size());
      if (lstm) {
        std::memcpy(result.states[1].template data<T>() + k * batch * h, cs.data(),
                    sizeof(T) * cs.size());
      }
    }
    if (l + 1 < s.layers) {
      layer_in = layer_out;
      if (training && p > 0.0) {
        // upscale_in_train between layers, with one mask for every layer, as PaddlePaddle
        // draws it (DropoutState holds it): a counter-based draw per element.
        const int64_t count = static_cast<int64_t>(layer_in.size());
        if (result.mask.numel() != count && given_mask != nullptr) {
          PL_ENFORCE(given_mask->numel() == count,
                     errors::InvalidArgument("op `%s` input `DropoutState`: expected %lld mask "
                                             "values (one per element of a layer's output), "
                                             "received shape %s",
                                             ctx.Type(), static_cast<long long>(count),
                                             given_mask->dims().ToString()));
          result.mask = *given_mask;
        } else if (result.mask.numel() != count) {
          const uint64_t seed = platform::ResolveSeed(ctx.Attr<int>("seed"));
          result.mask = DenseTensor(DDim{count}, DataType::UINT8);
          uint8_t* keep = result.mask.template mutable_data<uint8_t>(ctx.GetPlace());
          for (int64_t e = 0; e < count; ++e) {
            keep[e] = dropout::KeepElement(seed, static_cast<uint64_t>(e), p) ? 1 : 0;
          }
        }
        const uint8_t* keep = result.mask.template data<uint8_t>();
        const T scale = static_cast<T>(DropoutScale(p));
        for (int64_t e = 0; e < count; ++e) layer_in[e] = keep[e] ? layer_in[e] * scale : T(0);
      }
      if (record != nullptr) record->layer_inputs[l + 1] = layer_in;
    }
  }
  result.out = std::move(layer_out);
  return result;
}

template <typename T>
struct RnnKernel {
  static void Compute(const ExecutionContext& ctx) {
    const RnnShape s = ResolveRnnShape(ctx.Type(), ctx);
    const DenseTensor* x = ctx.Input("Input");
    const std::vector<int64_t> len = StepsPerRow(ctx, x->dims()[0], x->dims()[1]);
    RnnResult<T> r = RunRnn<T>(ctx, s, len, nullptr, nullptr);
    DenseTensor out(DDim{x->dims()[0], x->dims()[1], s.dirs * s.hidden}, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    if (!r.out.empty()) std::memcpy(o, r.out.data(), sizeof(T) * r.out.size());
    *ctx.Output("Out") = std::move(out);
    const std::vector<DenseTensor*> state_out = ctx.MultiOutput("State");
    for (size_t i = 0; i < state_out.size() && i < r.states.size(); ++i) {
      if (state_out[i] != nullptr) *state_out[i] = std::move(r.states[i]);
    }
    if (ctx.HasOutput("Reserve")) {
      DenseTensor reserve(DDim{0}, DataType::UINT8);
      reserve.mutable_data<uint8_t>(ctx.GetPlace());
      *ctx.Output("Reserve") = std::move(reserve);
    }
    if (ctx.HasOutput("DropoutState")) *ctx.Output("DropoutState") = std::move(r.mask);
  }
};

// ---- rnn_grad: the forward run again with a record, then back-propagation through time,
// layer by layer from the top ----

void RnnGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("PreState");
  ctx->RequireInput("WeightList");
  ctx->RequireInput("Out@GRAD");
  if (ctx->HasOutput("Input@GRAD")) ctx->SetOutputDim("Input@GRAD", ctx->GetInputDim("Input"));
  for (const char* slot : {"PreState", "WeightList"}) {
    const std::string grad = std::string(slot) + "@GRAD";
    for (size_t i = 0; i < ctx->OutputSize(grad) && i < ctx->InputSize(slot); ++i) {
      ctx->SetOutputDim(grad, ctx->GetInputDim(slot, i), i);
    }
  }
}

// Adds the column sums of the [rows, cols] matrix `m` to `sum`.
template <typename T>
void AddColumnSums(const T* m, int64_t rows, int64_t cols, T* sum) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) sum[j] += m[r * cols + j];
  }
}

template <typename T>
struct RnnGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const RnnShape s = ResolveRnnShape(op, ctx);
    const DenseTensor* x = ctx.Input("Input");
    const std::vector<const DenseTensor*> w = ctx.MultiInput("WeightList");
    const int64_t steps = x->dims()[0], batch = x->dims()[1], h = s.hidden, g = s.gates * h;
    const int64_t width = s.dirs * h;
    const bool lstm = s.mode == "LSTM";
    const std::vector<int64_t> len = StepsPerRow(ctx, steps, batch);
    const DenseTensor* mask = ctx.HasInput("DropoutState") ? ctx.Input("DropoutState") : nullptr;
    if (mask != nullptr && mask->numel() == 0) mask = nullptr;
    RnnRecord<T> rec;
    const RnnResult<T> fw = RunRnn<T>(ctx, s, len, mask, &rec);
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();

    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const DDim out_dims{steps, batch, width};
    PL_ENFORCE(dout->dims() == out_dims,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       op, out_dims.ToString(), dout->dims().ToString()));
    // The gradients reaching the final states: State@GRAD's, zeros where absent.
    const size_t state_count = fw.states.size();
    std::vector<std::vector<T>> dstate(state_count,
                                       std::vector<T>(s.layers * s.dirs * batch * h, T(0)));
    const std::vector<const DenseTensor*> dfinal = ctx.HasInput("State@GRAD")
                                                       ? ctx.MultiInput("State@GRAD")
                                                       : std::vector<const DenseTensor*>();
    for (size_t i = 0; i < state_count && i < dfinal.size(); ++i) {
      if (dfinal[i] == nullptr || dfinal[i]->numel() == 0) continue;
      PL_ENFORCE(dfinal[i]->dims() == fw.states[i].dims(),
                 errors::InvalidArgument("op `%s` input `State@GRAD` %zu: expected shape %s, "
                                         "received %s",
                                         op, i, fw.states[i].dims().ToString(),
                                         dfinal[i]->dims().ToString()));
      std::memcpy(dstate[i].data(), dfinal[i]->data<T>(), sizeof(T) * dstate[i].size());
    }
    std::vector<std::vector<T>> dw(w.size());
    for (size_t i = 0; i < w.size(); ++i) dw[i].assign(static_cast<size_t>(w[i]->numel()), T(0));

    std::vector<T> dlayer_out(dout->data<T>(), dout->data<T>() + dout->numel());
    std::vector<T> din;
    std::vector<T> dgates(static_cast<size_t>(steps * batch * g)),
        dq(static_cast<size_t>(batch * g));
    for (int64_t l = s.layers - 1; l >= 0; --l) {
      const T* in = l == 0 ? x->data<T>() : rec.layer_inputs[l].data();
      const int64_t in_w = l == 0 ? s.input : width;
      din.assign(static_cast<size_t>(steps * batch * in_w), T(0));
      for (int64_t dir = 0; dir < s.dirs; ++dir) {
        const int64_t k = l * s.dirs + dir;
        const RnnTrace<T>& tr = rec.traces[k];
        T* dh = dstate[0].data() + k * batch * h;
        T* dc = lstm ? dstate[1].data() + k * batch * h : nullptr;
        const T* w_hh = w[2 * k + 1]->data<T>();
        T* dw_hh = dw[2 * k + 1].data();
        T* db_hh = dw[w.size() / 2 + 2 * k + 1].data();
        std::fill(dgates.begin(), dgates.end(), T(0));
        for (int64_t step = steps - 1; step >= 0; --step) {
          const int64_t t = dir == 0 ? step : steps - 1 - step;
          std::fill(dq.begin(), dq.end(), T(0));
          for (int64_t n = 0; n < batch; ++n) {
            if (t >= len[n]) continue;  // The state passed through; the output was constant.
            const size_t at = static_cast<size_t>(t * batch + n);
            const T* gt = &tr.gates[at * g];
            T* dg = &dgates[at * g];
            T* dqn = &dq[n * g];
            for (int64_t j = 0; j < h; ++j) {
              const T dht = dh[n * h + j] + dlayer_out[at * width + dir * h + j];
              if (lstm) {
                const T i_gate = gt[j], f_gate = gt[h + j], cand = gt[2 * h + j],
                        o_gate = gt[3 * h + j];
                const T tc = std::tanh(tr.c[at * h + j]);
                const T dct = dc[n * h + j] + dht * o_gate * (T(1) - tc * tc);
                dg[j] = dct * cand * i_gate * (T(1) - i_gate);
                dg[h + j] = dct * tr.c_prev[at * h + j] * f_gate * (T(1) - f_gate);
                dg[2 * h + j] = dct * i_gate * (T(1) - cand * cand);
                dg[3 * h + j] = dht * tc * o_gate * (T(1) - o_gate);
                dc[n * h + j] = dct * f_gate;
                dh[n * h + j] = T(0);
                for (int q = 0; q < 4; ++q) dqn[q * h + j] = dg[q * h + j];
              } else if (s.gates == 3) {
                const T r = gt[j], z = gt[h + j], cand = gt[2 * h + j];
                const T dpre_c = dht * (T(1) - z) * (T(1) - cand * cand);
                dg[j] = dpre_c * tr.q_cand[at * h + j] * r * (T(1) - r);
                dg[h + j] = dht * (tr.h_prev[at * h + j] - cand) * z * (T(1) - z);
                dg[2 * h + j] = dpre_c;
                dqn[j] = dg[j];
                dqn[h + j] = dg[h + j];
                dqn[2 * h + j] = dpre_c * r;
                dh[n * h + j] = dht * z;
              } else {
                const T y = gt[j];
                dg[j] = dht * (s.mode == "RNN_TANH" ? T(1) - y * y : (y > T(0) ? T(1) : T(0)));
                dqn[j] = dg[j];
                dh[n * h + j] = T(0);
              }
            }
          }
          // dh += dq W_hh; dW_hh += dq^T h_prev; db_hh += sum dq. Rows past their length have
          // dq = 0 and h_prev left from other steps, which the zero rows of dq cancel.
          math::Gemm<T>(dev, false, false, batch, h, g, T(1), dq.data(), g, w_hh, h, T(1), dh, h);
          math::Gemm<T>(dev, true, false, g, h, batch, T(1), dq.data(), g,
                        tr.h_prev.data() + t * batch * h, h, T(1), dw_hh, h);
          AddColumnSums(dq.data(), batch, g, db_hh);
        }
        // Through the input projection: dW_ih += dgates^T in; din += dgates W_ih.
        math::Gemm<T>(dev, true, false, g, in_w, steps * batch, T(1), dgates.data(), g, in, in_w,
                      T(1), dw[2 * k].data(), in_w);
        AddColumnSums(dgates.data(), steps * batch, g, dw[w.size() / 2 + 2 * k].data());
        math::Gemm<T>(dev, false, false, steps * batch, in_w, g, T(1), dgates.data(), g,
                      w[2 * k]->data<T>(), in_w, T(1), din.data(), in_w);
      }
      if (l > 0) {
        // Back through the dropout between layers l - 1 and l.
        if (fw.mask.numel() > 0) {
          const uint8_t* keep = fw.mask.template data<uint8_t>();
          const T scale = static_cast<T>(DropoutScale(ctx.Attr<float>("dropout_prob")));
          for (size_t e = 0; e < din.size(); ++e) din[e] = keep[e] ? din[e] * scale : T(0);
        }
        dlayer_out.swap(din);
      }
    }
    if (ctx.HasOutput("Input@GRAD")) {
      DenseTensor dx(x->dims(), x->dtype());
      T* o = dx.mutable_data<T>(ctx.GetPlace());
      if (!din.empty()) std::memcpy(o, din.data(), sizeof(T) * din.size());
      *ctx.Output("Input@GRAD") = std::move(dx);
    }
    const std::vector<const DenseTensor*> pre = ctx.MultiInput("PreState");
    const std::pair<const char*, std::vector<std::vector<T>>*> grads[] = {
        {"PreState@GRAD", &dstate}, {"WeightList@GRAD", &dw}};
    for (const auto& [slot, values] : grads) {
      if (!ctx.HasOutput(slot)) continue;
      const std::vector<DenseTensor*> outs = ctx.MultiOutput(slot);
      const std::vector<const DenseTensor*>& like = std::string(slot) == "PreState@GRAD" ? pre : w;
      for (size_t i = 0; i < outs.size() && i < values->size(); ++i) {
        if (outs[i] == nullptr) continue;
        DenseTensor t(like[i]->dims(), x->dtype());
        T* o = t.mutable_data<T>(ctx.GetPlace());
        if (!(*values)[i].empty())
          std::memcpy(o, (*values)[i].data(), sizeof(T) * (*values)[i].size());
        *outs[i] = std::move(t);
      }
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRnnOp) {
  // DropoutState carries the forward's dropout mask, so the backward pass drops the same
  // elements; the forward's Out and Reserve are not read (the kernel runs the forward again).
  const framework::FusedGradDecl grad{
      {"Input", "PreState", "WeightList", "SequenceLength", "DropoutState"},
      {"Out", "State"},
      {"Input", "PreState", "WeightList"},
      R"DOC(Back-propagation through time, layer by layer from the top. With dh_t the
gradient reaching h_t (from Out@GRAD and from step t + 1) and a_t = x_t W_ih^T + b_ih +
h_{t-1} W_hh^T + b_hh the pre-activations:
$$	ext{LSTM: } dc_t \mathrel{+}= dh_t \odot o_t \odot (1 - 	anh^2 c_t), \quad
da = [dc_t 	ilde c_t i_t (1 - i_t), dc_t c_{t-1} f_t (1 - f_t), dc_t i_t (1 - 	ilde c_t^2),
dh_t 	anh(c_t) o_t (1 - o_t)], \quad dc_{t-1} = dc_t \odot f_t$$
$$	ext{GRU: } da_c = dh_t (1 - z) (1 - 	ilde h^2), \quad da_z = dh_t (h_{t-1} - 	ilde h)
z (1 - z), \quad da_r = da_c\, q_c\, r (1 - r), \quad dh_{t-1} = dh_t z$$
then dh_{t-1} += da W_hh (GRU: with da_c r for the candidate block), dW_hh += da^T h_{t-1},
dW_ih += da^T x_t, dx_t += da W_ih, and the biases sum da. Rows past their SequenceLength
pass dh (and dc) through unchanged.)DOC"};
  framework::RegisterOp<RnnOp, RnnOpMaker>("rnn")
      .InferShape(RnnInferShape)
      .InferVarType(RnnInferVarType)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<RnnKernel>("rnn");
  framework::RegisterFusedGradOp("rnn", grad).InferShape(RnnGradInferShape);
  RegisterPlainCpuFloatKernels<RnnGradKernel>("rnn_grad");
}

}  // namespace operators
}  // namespace paddle_like

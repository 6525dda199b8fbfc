// Message passing over graph edges (paddle.geometric): graph_send_recv (send_u_recv),
// graph_send_ue_recv (send_ue_recv) and graph_send_uv (send_uv), with their fused gradients.
// Edge e goes from node Src_index[e] to node Dst_index[e]:
// - graph_send_recv:    Out[d] = reduce over edges into d of X[src];
// - graph_send_ue_recv: Out[d] = reduce over edges into d of X[src] (+ or *) Y[e];
// - graph_send_uv:      out[e] = x[src] (+ or *) y[dst].
// Feature dims (all but the first) broadcast NumPy-style between the two operands of a
// message. reduce is SUM, MEAN, MAX or MIN; a node that receives nothing gets zeros.
// PaddlePaddle's Python layer turns sub and div into add and mul (of -y, 1 / y) before the op.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

enum class Reduce { kSum, kMean, kMax, kMin };

Reduce ReduceOf(const ExecutionContext& ctx) {
  const std::string& r = ctx.Attr<std::string>("reduce_op");
  if (r == "MEAN") return Reduce::kMean;
  if (r == "MAX") return Reduce::kMax;
  if (r == "MIN") return Reduce::kMin;
  return Reduce::kSum;
}

bool Multiplies(const ExecutionContext& ctx) {
  return ctx.Attr<std::string>("message_op") == "MUL";
}

// The slot names of the three ops (graph_send_uv's are in lower case, as PaddlePaddle's).
struct Slots {
  const char *x, *y, *src, *dst, *out;
};
const Slots kRecvSlots{"X", "Y", "Src_index", "Dst_index", "Out"};
const Slots kUvSlots{"x", "y", "src_index", "dst_index", "out"};

// Indices as int64, each checked to lie in [0, bound).
std::vector<int64_t> ReadIndices(const std::string& op, const char* slot, const DenseTensor& t,
                                 int64_t bound, const char* what) {
  PL_ENFORCE(t.dims().size() == 1,
             errors::InvalidArgument("op `%s` input `%s`: expected a 1-D index tensor, received "
                                     "shape %s",
                                     op, slot, t.dims().ToString()));
  const std::vector<int64_t> v = ReadIntValues(t, op, slot);
  for (size_t i = 0; i < v.size(); ++i) {
    PL_ENFORCE(v[i] >= 0 && v[i] < bound,
               errors::InvalidArgument("op `%s` input `%s`: expected indices in [0, %lld) (%s), "
                                       "received %lld at %zu",
                                       op, slot, static_cast<long long>(bound), what,
                                       static_cast<long long>(v[i]), i));
  }
  return v;
}

// All dims but the first.
std::vector<int64_t> FeatureDims(const DDim& d) {
  const std::vector<int64_t> all = d.ToVector();
  return std::vector<int64_t>(all.begin() + (all.empty() ? 0 : 1), all.end());
}

// Feature-dim broadcasting of the two operands of a message: the output's feature dims and,
// per output feature element, the offsets into each operand's feature row.
struct FeatureBroadcast {
  std::vector<int64_t> dims;  // Output feature dims.
  std::vector<int64_t> a, b;  // Offsets into the two rows, one per output element.
  int64_t a_width = 1, b_width = 1;
};

FeatureBroadcast BroadcastFeatures(const std::string& op, const char* a_slot, const DDim& a,
                                   const char* b_slot, const DDim& b) {
  std::vector<int64_t> fa = FeatureDims(a), fb = FeatureDims(b);
  const size_t rank = std::max(fa.size(), fb.size());
  fa.insert(fa.begin(), rank - fa.size(), 1);
  fb.insert(fb.begin(), rank - fb.size(), 1);
  FeatureBroadcast f;
  f.dims.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    PL_ENFORCE(fa[i] == fb[i] || fa[i] == 1 || fb[i] == 1 || fa[i] < 0 || fb[i] < 0,
               errors::InvalidArgument("op `%s`: the feature dims of input `%s` %s and input `%s` "
                                       "%s do not broadcast",
                                       op, a_slot, a.ToString(), b_slot, b.ToString()));
    f.dims[i] = fa[i] == 1 ? fb[i] : fa[i];
  }
  for (int64_t d : fa) f.a_width *= d;
  for (int64_t d : fb) f.b_width *= d;
  int64_t total = 1;
  for (int64_t d : f.dims) total *= d;
  if (total < 0) return f;  // Unknown at program-build time.
  f.a.resize(static_cast<size_t>(total));
  f.b.resize(static_cast<size_t>(total));
  for (int64_t e = 0; e < total; ++e) {
    int64_t rest = e, oa = 0, ob = 0, sa = 1, sb = 1;
    for (size_t i = rank; i-- > 0;) {
      const int64_t idx = rest % f.dims[i];
      rest /= f.dims[i];
      oa += (fa[i] == 1 ? 0 : idx) * sa;
      ob += (fb[i] == 1 ? 0 : idx) * sb;
      sa *= fa[i];
      sb *= fb[i];
    }
    f.a[e] = oa;
    f.b[e] = ob;
  }
  return f;
}

DDim WithRows(int64_t rows, const std::vector<int64_t>& features) {
  std::vector<int64_t> d = {rows};
  d.insert(d.end(), features.begin(), features.end());
  return DDim(d);
}

// The rows of Out: the tensor Out_size or the attribute out_size when positive, else X's.
int64_t OutRows(const ExecutionContext& ctx, int64_t x_rows) {
  int64_t rows = 0;
  if (ctx.HasInput("Out_size")) {
    const DenseTensor* t = ctx.Input("Out_size");
    PL_ENFORCE(t->numel() == 1 && (t->dtype() == DataType::INT32 || t->dtype() == DataType::INT64),
               errors::InvalidArgument("op `%s` input `Out_size`: expected one int32 or int64, "
                                       "received %s %s",
                                       ctx.Type(), platform::DataTypeName(t->dtype()),
                                       t->dims().ToString()));
    rows = t->dtype() == DataType::INT32 ? t->data<int32_t>()[0] : t->data<int64_t>()[0];
  } else {
    const auto& attr = ctx.Attr<std::vector<int64_t>>("out_size");
    rows = attr.empty() ? 0 : attr[0];
  }
  return rows > 0 ? rows : x_rows;
}

class GraphMessageOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("X") ? "X" : "x");
  }
};

template <bool kWithEdges>
class GraphSendRecvOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, ...]: node features.");
    if (kWithEdges) AddInput("Y", "[E, ...]: edge features, broadcast against X's features.");
    AddInput("Src_index", "[E] int32 or int64: each edge's source node.");
    AddInput("Dst_index", "[E], Src_index's dtype: each edge's destination node.");
    AddInput("Out_size", "One int32/int64: Out's rows; overrides the attribute.").AsDispensable();
    AddOutput("Out", "[out_size or N, ...]: one row per destination node.");
    AddOutput("Dst_count", "[out rows] int32: the edges into each node.")
        .AsIntermediate()
        .AsDispensable();
    if (kWithEdges) {
      AddAttr<std::string>("message_op", "ADD or MUL: X[src] combined with Y[e].")
          .SetDefault("ADD")
          .InEnum({"ADD", "MUL"});
    }
    AddAttr<std::string>("reduce_op", "SUM, MEAN, MAX or MIN.")
        .SetDefault("SUM")
        .InEnum({"SUM", "MEAN", "MAX", "MIN"});
    AddAttr<std::vector<int64_t>>("out_size", "[rows] of Out when > 0, else N.")
        .SetDefault(std::vector<int64_t>{0});
    AddComment(kWithEdges ? R"DOC(
Graph send-ue-recv operator: each edge e sends X[Src_index_e] combined with its feature Y_e
(ADD or MUL, feature dims broadcast), and each node reduces what it receives:
$$Out_d = \operatorname{reduce}_{e : Dst_e = d} \left(X_{Src_e} \circ Y_e\right)$$
Nodes receiving nothing get 0. Gradients of X and Y (fused).
)DOC"
                          : R"DOC(
Graph send-recv operator: each edge e sends the row X[Src_index_e] to node Dst_index_e, which
reduces what it receives (SUM, MEAN, MAX, MIN):
$$Out_d = \operatorname{reduce}_{e : Dst_e = d} X_{Src_e}$$
Nodes receiving nothing get 0. Gradient of X (fused): the reduction's, routed back along the
edges (MAX, MIN: to every message equal to the result).
)DOC");
  }
};

class GraphSendUvOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("x", "[N, ...]: features of the source nodes.");
    AddInput("y", "[M, ...]: features of the destination nodes, broadcast against x's.");
    AddInput("src_index", "[E] int32 or int64.");
    AddInput("dst_index", "[E], src_index's dtype.");
    AddOutput("out", "[E, broadcast features]: one row per edge.");
    AddAttr<std::string>("message_op", "ADD or MUL.").SetDefault("ADD").InEnum({"ADD", "MUL"});
    AddComment(R"DOC(
Graph send-uv operator: per edge e, the source's and the destination's features combined:
$$out_e = x_{src_e} \circ y_{dst_e}, \quad \circ \in \{+, \times\}$$
Gradients of x and y (fused).
)DOC");
  }
};

template <bool kWithEdges>
void GraphSendRecvInferShape(InferShapeContext* ctx) {
  for (const char* s : {"X", "Src_index", "Dst_index"}) ctx->RequireInput(s);
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  PL_ENFORCE(x.size() >= 1, errors::InvalidArgument("op `%s` input `X`: expected rank >= 1, "
                                                    "received a 0-D tensor",
                                                    ctx->OpType()));
  std::vector<int64_t> features = FeatureDims(x);
  if (kWithEdges) {
    ctx->RequireInput("Y");
    PL_ENFORCE(ctx->GetInputDim("Y").size() >= 1,
               errors::InvalidArgument("op `%s` input `Y`: expected rank >= 1, received a 0-D "
                                       "tensor",
                                       ctx->OpType()));
    features = BroadcastFeatures(ctx->OpType(), "X", x, "Y", ctx->GetInputDim("Y")).dims;
  }
  const auto& attr = ctx->Attrs().count("out_size")
                         ? std::get<std::vector<int64_t>>(ctx->Attrs().at("out_size"))
                         : std::vector<int64_t>{};
  // Sized by a tensor: the kernel reads it at run time.
  if (ctx->HasInput("Out_size") && ctx->IsRuntime()) return;
  const int64_t rows =
      ctx->HasInput("Out_size") ? -1 : (!attr.empty() && attr[0] > 0 ? attr[0] : x[0]);
  ctx->SetOutputDim("Out", WithRows(rows, features));
  if (ctx->HasOutput("Dst_count")) ctx->SetOutputDim("Dst_count", DDim({rows}));
}

void GraphSendUvInferShape(InferShapeContext* ctx) {
  for (const char* s : {"x", "y", "src_index", "dst_index"}) ctx->RequireInput(s);
  ctx->RequireOutput("out");
  for (const char* s : {"x", "y"}) {
    PL_ENFORCE(ctx->GetInputDim(s).size() >= 1,
               errors::InvalidArgument("op `%s` input `%s`: expected rank >= 1, received a 0-D "
                                       "tensor",
                                       ctx->OpType(), s));
  }
  const FeatureBroadcast f =
      BroadcastFeatures(ctx->OpType(), "x", ctx->GetInputDim("x"), "y", ctx->GetInputDim("y"));
  ctx->SetOutputDim("out", WithRows(ctx->GetInputDim("src_index")[0], f.dims));
}

void GraphSendRecvInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
  ctx->SetOutputKind("Dst_count", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Dst_count", DataType::INT32);
}

// The edges of a send-recv op, checked.
struct Edges {
  std::vector<int64_t> src, dst;
};

Edges ReadEdges(const ExecutionContext& ctx, const Slots& s, int64_t src_bound, int64_t dst_bound) {
  const DenseTensor* src = ctx.Input(s.src);
  const DenseTensor* dst = ctx.Input(s.dst);
  PL_ENFORCE(
      src->dims() == dst->dims(),
      errors::InvalidArgument("op `%s` input `%s`: expected %s's shape %s, received %s", ctx.Type(),
                              s.dst, s.src, src->dims().ToString(), dst->dims().ToString()));
  Edges e;
  e.src = ReadIndices(ctx.Type(), s.src, *src, src_bound, "the source nodes' rows");
  e.dst = ReadIndices(ctx.Type(), s.dst, *dst, dst_bound, "the destination rows");
  return e;
}

// One message per edge, row-major [E, width]: X[src] alone, or combined with Y[e].
template <typename T>
std::vector<T> Messages(const ExecutionContext& ctx, const Edges& e, const DenseTensor& x,
                        const DenseTensor* y, const FeatureBroadcast* f, int64_t width) {
  std::vector<T> m(static_cast<size_t>(e.src.size() * width));
  const T* xd = x.data<T>();
  const int64_t x_width = x.dims()[0] == 0 ? 0 : x.numel() / x.dims()[0];
  const bool mul = y != nullptr && Multiplies(ctx);
  for (size_t k = 0; k < e.src.size(); ++k) {
    T* row = m.data() + k * width;
    const T* xr = xd + e.src[k] * x_width;
    if (y == nullptr) {
      std::copy(xr, xr + width, row);
      continue;
    }
    const T* yr = y->data<T>() + static_cast<int64_t>(k) * f->b_width;
    for (int64_t j = 0; j < width; ++j) {
      row[j] = mul ? xr[f->a[j]] * yr[f->b[j]] : xr[f->a[j]] + yr[f->b[j]];
    }
  }
  return m;
}

template <typename T>
struct GraphSendRecvKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.HasInput("Y") ? ctx.Input("Y") : nullptr;
    const int64_t n = x->dims()[0];
    const int64_t rows = OutRows(ctx, n);
    const Edges e = ReadEdges(ctx, kRecvSlots, n, rows);
    FeatureBroadcast f;
    std::vector<int64_t> features = FeatureDims(x->dims());
    if (y != nullptr) {
      f = BroadcastFeatures(ctx.Type(), "X", x->dims(), "Y", y->dims());
      PL_ENFORCE(y->dims()[0] == static_cast<int64_t>(e.src.size()),
                 errors::InvalidArgument("op `%s` input `Y`: expected one row per edge (%zu), "
                                         "received %s",
                                         ctx.Type(), e.src.size(), y->dims().ToString()));
      features = f.dims;
    }
    int64_t width = 1;
    for (int64_t d : features) width *= d;
    const std::vector<T> m = Messages<T>(ctx, e, *x, y, y != nullptr ? &f : nullptr, width);
    const Reduce reduce = ReduceOf(ctx);
    DenseTensor out(WithRows(rows, features), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    std::fill(o, o + out.numel(), T(0));
    DenseTensor count(DDim({rows}), DataType::INT32);
    int32_t* c = count.mutable_data<int32_t>(ctx.GetPlace());
    std::fill(c, c + rows, 0);
    for (size_t k = 0; k < e.src.size(); ++k) {
      T* row = o + e.dst[k] * width;
      const T* msg = m.data() + k * width;
      const bool first = c[e.dst[k]]++ == 0;
      for (int64_t j = 0; j < width; ++j) {
        if (reduce == Reduce::kMax) {
          row[j] = first ? msg[j] : std::max(row[j], msg[j]);
        } else if (reduce == Reduce::kMin) {
          row[j] = first ? msg[j] : std::min(row[j], msg[j]);
        } else {
          row[j] += msg[j];
        }
      }
    }
    if (reduce == Reduce::kMean) {
      for (int64_t d = 0; d < rows; ++d) {
        for (int64_t j = 0; c[d] > 1 && j < width; ++j) o[d * width + j] /= static_cast<T>(c[d]);
      }
    }
    *ctx.Output("Out") = std::move(out);
    if (DenseTensor* dc = ctx.Output("Dst_count")) *dc = std::move(count);
  }
};

// Per edge, the gradient of its message: dOut[dst], over the count for MEAN, and for MAX and
// MIN only where the message equals the result (every such message gets it whole, as
// PaddlePaddle's). `m`, the messages, is read for MAX and MIN only.
template <typename T>
std::vector<T> MessageGrads(const ExecutionContext& ctx, const Edges& e, const std::vector<T>& m,
                            int64_t width, int64_t rows) {
  const DenseTensor* dout = ctx.Input("Out@GRAD");
  const DenseTensor* out = ctx.Input("Out");
  const Reduce reduce = ReduceOf(ctx);
  PL_ENFORCE(dout->dims()[0] == rows && dout->numel() == rows * width,
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected %lld rows of %lld "
                                     "values, received %s",
                                     ctx.Type(), static_cast<long long>(rows),
                                     static_cast<long long>(width), dout->dims().ToString()));
  std::vector<int64_t> count(static_cast<size_t>(rows), 0);
  for (int64_t d : e.dst) ++count[d];
  std::vector<T> g(e.src.size() * static_cast<size_t>(width));
  const T* dd = dout->data<T>();
  const T* od = reduce == Reduce::kMax || reduce == Reduce::kMin ? out->data<T>() : nullptr;
  for (size_t k = 0; k < e.src.size(); ++k) {
    const int64_t d = e.dst[k];
    for (int64_t j = 0; j < width; ++j) {
      const T grad = dd[d * width + j];
      T v = grad;
      if (reduce == Reduce::kMean) v = grad / static_cast<T>(count[d]);
      if (od != nullptr) v = m[k * width + j] == od[d * width + j] ? grad : T(0);
      g[k * width + j] = v;
    }
  }
  return g;
}

// dX (rows of X summed over the edges they sent and the broadcast dims) and dY from the
// message gradients g, for messages X[src] (+ or *) Y[e] (Y absent: X[src] alone), or for
// graph_send_uv, x[src] (+ or *) y[dst].
template <typename T>
void OperandGrads(const ExecutionContext& ctx, const Slots& s, const Edges& e,
                  const std::vector<T>& g, int64_t width, const FeatureBroadcast* f,
                  bool y_per_edge) {
  const DenseTensor* x = ctx.Input(s.x);
  const DenseTensor* y = ctx.HasInput(s.y) ? ctx.Input(s.y) : nullptr;
  const bool mul = y != nullptr && Multiplies(ctx);
  const std::string xg = std::string(s.x) + "@GRAD", yg = std::string(s.y) + "@GRAD";
  DenseTensor* dx_out = ctx.Output(xg);
  DenseTensor* dy_out = y != nullptr ? ctx.Output(yg) : nullptr;
  const int64_t x_width = x->dims()[0] == 0 ? 0 : x->numel() / x->dims()[0];
  DenseTensor dx(x->dims(), x->dtype()), dy;
  T* gx = dx.mutable_data<T>(ctx.GetPlace());
  std::fill(gx, gx + dx.numel(), T(0));
  T* gy = nullptr;
  if (y != nullptr) {
    dy = DenseTensor(y->dims(), y->dtype());
    gy = dy.mutable_data<T>(ctx.GetPlace());
    std::fill(gy, gy + dy.numel(), T(0));
  }
  for (size_t k = 0; k < e.src.size(); ++k) {
    const T* gr = g.data() + k * width;
    T* xr = gx + e.src[k] * x_width;
    if (y == nullptr) {
      for (int64_t j = 0; j < width; ++j) xr[j] += gr[j];
      continue;
    }
    const int64_t y_row = y_per_edge ? static_cast<int64_t>(k) : e.dst[k];
    const T* xv = x->data<T>() + e.src[k] * x_width;
    const T* yv = y->data<T>() + y_row * f->b_width;
    T* yr = gy + y_row * f->b_width;
    for (int64_t j = 0; j < width; ++j) {
      xr[f->a[j]] += mul ? gr[j] * yv[f->b[j]] : gr[j];
      yr[f->b[j]] += mul ? gr[j] * xv[f->a[j]] : gr[j];
    }
  }
  if (dx_out != nullptr) *dx_out = std::move(dx);
  if (dy_out != nullptr) *dy_out = std::move(dy);
}

template <typename T>
struct GraphSendRecvGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.HasInput("Y") ? ctx.Input("Y") : nullptr;
    const DenseTensor* out = ctx.Input("Out");
    const int64_t rows = out->dims()[0];
    const Edges e = ReadEdges(ctx, kRecvSlots, x->dims()[0], rows);
    FeatureBroadcast f;
    if (y != nullptr) f = BroadcastFeatures(ctx.Type(), "X", x->dims(), "Y", y->dims());
    const int64_t width = rows == 0 ? 0 : out->numel() / rows;
    // MAX and MIN compare each message with the result: only they form the messages again.
    const Reduce reduce = ReduceOf(ctx);
    const std::vector<T> m = reduce == Reduce::kMax || reduce == Reduce::kMin
                                 ? Messages<T>(ctx, e, *x, y, y != nullptr ? &f : nullptr, width)
                                 : std::vector<T>();
    OperandGrads<T>(ctx, kRecvSlots, e, MessageGrads<T>(ctx, e, m, width, rows), width,
                    y != nullptr ? &f : nullptr, true);
  }
};

template <typename T>
struct GraphSendUvKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("x");
    const DenseTensor* y = ctx.Input("y");
    const Edges e = ReadEdges(ctx, kUvSlots, x->dims()[0], y->dims()[0]);
    const FeatureBroadcast f = BroadcastFeatures(ctx.Type(), "x", x->dims(), "y", y->dims());
    int64_t width = 1;
    for (int64_t d : f.dims) width *= d;
    DenseTensor out(WithRows(static_cast<int64_t>(e.src.size()), f.dims), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const bool mul = Multiplies(ctx);
    const int64_t x_width = f.a_width;
    for (size_t k = 0; k < e.src.size(); ++k) {
      const T* xr = x->data<T>() + e.src[k] * x_width;
      const T* yr = y->data<T>() + e.dst[k] * f.b_width;
      for (int64_t j = 0; j < width; ++j) {
        o[k * width + j] = mul ? xr[f.a[j]] * yr[f.b[j]] : xr[f.a[j]] + yr[f.b[j]];
      }
    }
    *ctx.Output("out") = std::move(out);
  }
};

template <typename T>
struct GraphSendUvGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("x");
    const DenseTensor* y = ctx.Input("y");
    const DenseTensor* dout = ctx.Input("out@GRAD");
    const Edges e = ReadEdges(ctx, kUvSlots, x->dims()[0], y->dims()[0]);
    const FeatureBroadcast f = BroadcastFeatures(ctx.Type(), "x", x->dims(), "y", y->dims());
    const int64_t width = static_cast<int64_t>(f.a.size());
    PL_ENFORCE(dout->numel() == static_cast<int64_t>(e.src.size()) * width,
               errors::InvalidArgument("op `%s` input `out@GRAD`: expected %zu rows of %lld "
                                       "values, received %s",
                                       ctx.Type(), e.src.size(), static_cast<long long>(width),
                                       dout->dims().ToString()));
    const std::vector<T> g(dout->data<T>(), dout->data<T>() + dout->numel());
    OperandGrads<T>(ctx, kUvSlots, e, g, width, &f, false);
  }
};

void InputGradsLikeInputs(InferShapeContext* ctx, std::initializer_list<const char*> slots) {
  for (const char* s : slots) {
    const std::string g = std::string(s) + "@GRAD";
    if (ctx->HasOutput(g)) ctx->SetOutputDim(g, ctx->GetInputDim(s));
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterGraphSendRecvOps) {
  const framework::FusedGradDecl recv_grad{
      {"X", "Src_index", "Dst_index", "Out"},
      {"Out"},
      {"X"},
      R"DOC($$dX_s = \sum_{e : Src_e = s} g_e, \quad g_e = dOut_{Dst_e} \text{ (SUM)}, \;
dOut_{Dst_e} / |\{e' : Dst_{e'} = Dst_e\}| \text{ (MEAN)}, \;
dOut_{Dst_e} [X_{Src_e} = Out_{Dst_e}] \text{ (MAX, MIN)}$$)DOC"};
  framework::RegisterOp<GraphMessageOp, GraphSendRecvOpMaker<false>>("graph_send_recv")
      .InferShape(GraphSendRecvInferShape<false>)
      .InferVarType(GraphSendRecvInferVarType)
      .GradOpMaker(framework::FusedGradMaker(recv_grad));
  RegisterPlainCpuFloatKernels<GraphSendRecvKernel>("graph_send_recv");
  framework::RegisterFusedGradOp("graph_send_recv", recv_grad)
      .InferShape([](InferShapeContext* ctx) { InputGradsLikeInputs(ctx, {"X"}); });
  RegisterPlainCpuFloatKernels<GraphSendRecvGradKernel>("graph_send_recv_grad");

  const framework::FusedGradDecl ue_grad{
      {"X", "Y", "Src_index", "Dst_index", "Out"},
      {"Out"},
      {"X", "Y"},
      R"DOC($$dX_s = \sum_{e : Src_e = s} g_e \circ' Y_e, \quad dY_e = g_e \circ' X_{Src_e}$$
(g_e as for graph_send_recv's messages; $\circ'$ multiplies for MUL and passes g_e for ADD,
summed over broadcast dims))DOC"};
  framework::RegisterOp<GraphMessageOp, GraphSendRecvOpMaker<true>>("graph_send_ue_recv")
      .InferShape(GraphSendRecvInferShape<true>)
      .InferVarType(GraphSendRecvInferVarType)
      .GradOpMaker(framework::FusedGradMaker(ue_grad));
  RegisterPlainCpuFloatKernels<GraphSendRecvKernel>("graph_send_ue_recv");
  framework::RegisterFusedGradOp("graph_send_ue_recv", ue_grad)
      .InferShape([](InferShapeContext* ctx) {
        InputGradsLikeInputs(ctx, {"X", "Y"});
      });
  RegisterPlainCpuFloatKernels<GraphSendRecvGradKernel>("graph_send_ue_recv_grad");

  const framework::FusedGradDecl uv_grad{
      {"x", "y", "src_index", "dst_index"},
      {"out"},
      {"x", "y"},
      R"DOC($$dx_s = \sum_{e : src_e = s} dout_e \circ' y_{dst_e}, \quad
dy_d = \sum_{e : dst_e = d} dout_e \circ' x_{src_e}$$)DOC"};
  framework::RegisterOp<GraphMessageOp, GraphSendUvOpMaker>("graph_send_uv")
      .InferShape(GraphSendUvInferShape)
      .InferVarType(OutputDataTypeOf("x", "out"))
      .GradOpMaker(framework::FusedGradMaker(uv_grad));
  RegisterPlainCpuFloatKernels<GraphSendUvKernel>("graph_send_uv");
  framework::RegisterFusedGradOp("graph_send_uv", uv_grad).InferShape([](InferShapeContext* ctx) {
    InputGradsLikeInputs(ctx, {"x", "y"});
  });
  RegisterPlainCpuFloatKernels<GraphSendUvGradKernel>("graph_send_uv_grad");
}

}  // namespace operators
}  // namespace paddle_like

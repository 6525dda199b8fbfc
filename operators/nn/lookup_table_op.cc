// lookup_table_v2 (embedding): Out = the rows of W selected by Ids, and
// lookup_table_v2_grad, which adds the output gradient rows back into a dense [V, D]
// gradient or lists them as a SelectedRows (is_sparse). Also version 1, lookup_table and
// lookup_table_grad, whose Ids end in a dim of 1 that Out replaces by D. CUDA kernels:
// lookup_table_op.cu.
#include <cstring>
#include <string>
#include <vector>

#include "framework/data_transform.h"
#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/nn/lookup_table_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "lookup_table_v2";
constexpr char kOpV1[] = "lookup_table";
constexpr int64_t kNoPadding = -1;
const char* const kAttrNames[] = {"padding_idx", "is_sparse", "is_distributed", "remote_prefetch"};

// Declares the attributes the forward and the grad op share.
class EmbeddingAttrsMaker : public OpProtoAndCheckerMaker {
 protected:
  void AddShared() {
    AddAttr<int64_t>("padding_idx",
                     "Ids equal to this row give zero rows and no gradient; -1 means none, "
                     "other negative values count from V.")
        .SetDefault(kNoPadding);
    AddAttr<bool>("is_sparse",
                  "The gradient of W is a SelectedRows (the looked-up rows) instead of a dense "
                  "[V, D] tensor.")
        .SetDefault(false);
    AddAttr<bool>("is_distributed", "Distributed table (not supported; accepted and ignored).")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("remote_prefetch", "Remote prefetch (not supported; accepted and ignored).")
        .SetDefault(false)
        .AsExtra();
  }
};

class LookupTableV2OpMaker : public EmbeddingAttrsMaker {
 public:
  void Make() override {
    AddInput("W", "The embedding table [V, D].");
    AddInput("Ids", "int64 or int32 row indices of any shape, each in [0, V).");
    AddOutput("Out", "The looked-up rows: Ids.dims + [D], W's dtype.");
    AddShared();
    AddComment(R"DOC(
Lookup table (embedding), version 2.

$$Out[i_1, \ldots, i_k, :] = \begin{cases} 0 & Ids[i_1, \ldots, i_k] = padding\_idx \\
W[Ids[i_1, \ldots, i_k], :] & \text{otherwise} \end{cases}$$

Out has dims Ids.dims + [D] (no trailing 1 is removed from Ids, unlike version 1) and Ids'
LoD. An id outside [0, V) is an error. Example: W [[1, 2], [3, 4], [5, 6]], Ids [2, 0] ->
Out [[5, 6], [1, 2]]; with padding_idx = 0 -> [[5, 6], [0, 0]].

Gradient, by lookup_table_v2_grad (reads W's dims, Ids and Out@GRAD):
$$dW[v, :] = \sum_{i:\ Ids[i] = v,\ v \ne padding\_idx} dOut[i, :]$$
added in the order of Ids (deterministic). With is_sparse, dW is a SelectedRows whose rows
are the ids in order (repeats kept) and whose value rows are the matching dOut rows (zero for
padding_idx); merging repeats (math::MergeSelectedRows) gives the dense result's non-zero rows.
)DOC");
  }
};

class LookupTableV1OpMaker : public EmbeddingAttrsMaker {
 public:
  void Make() override {
    AddInput("W", "The embedding table [V, D].");
    AddInput("Ids", "int64 or int32 row indices of shape [..., 1], each in [0, V).");
    AddOutput("Out", "The looked-up rows: Ids.dims with the last dim replaced by D.");
    AddShared();
    AddAttr<std::string>("entry_config", "Sparse feature entry config (ignored here).")
        .SetDefault("")
        .AsExtra();
    AddComment(R"DOC(
Lookup table (embedding), version 1: as lookup_table_v2, but Ids must end in a dim of 1,
which Out replaces by D.

$$Out[i_1, \ldots, i_k, :] = \begin{cases} 0 & Ids[i_1, \ldots, i_k, 0] = padding\_idx \\
W[Ids[i_1, \ldots, i_k, 0], :] & \text{otherwise} \end{cases}$$

Example: W [[1, 2], [3, 4], [5, 6]], Ids [[2], [0]] -> Out [[5, 6], [1, 2]].

Gradient, by lookup_table_grad:
$$dW[v, :] = \sum_{i:\ Ids[i] = v,\ v \ne padding\_idx} dOut[i, :]$$
)DOC");
  }
};

class LookupTableV2GradOpMaker : public EmbeddingAttrsMaker {
 public:
  void Make() override {
    AddInput("W", "The forward op's W (only its dims are read).").AsNoNeedBuffer();
    AddInput("Ids", "The forward op's Ids.");
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("W@GRAD",
              "Gradient of W: dense [V, D], or a SelectedRows of height V when "
              "is_sparse.");
    AddShared();
    AddComment(R"DOC(
Gradient of lookup_table_v2:
$$dW[v, :] = \sum_{i:\ Ids[i] = v,\ v \ne padding\_idx} dOut[i, :]$$
dense, or with is_sparse a SelectedRows with rows = Ids (flattened, in order), value = dOut
rows (zero for padding_idx) and height V. The dense form is linear in Out@GRAD; its gradient
is lookup_table_v2 of the gradient of W@GRAD.
)DOC");
  }
};

// The kernel follows W (forward) or Out@GRAD (backward), never the integer Ids.
class LookupTableV2Op : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    const char* slot = ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "W";
    return InputDataType(ctx, slot);
  }
};

bool IsVersion1(const std::string& op) { return op.rfind(kOp, 0) != 0; }

}  // namespace

namespace lookup_table {

void CheckTable(const std::string& op, const DDim& w) {
  PL_ENFORCE(w.size() == 2,
             errors::InvalidArgument("op `%s` input `W`: expected a 2-D table [V, D], received "
                                     "shape %s",
                                     op, w.ToString()));
}

int64_t PaddingRow(const std::string& op, int64_t padding_idx, int64_t v) {
  if (padding_idx == kNoPadding || v < 0) return padding_idx;
  PL_ENFORCE(
      padding_idx >= -v && padding_idx < v,
      errors::InvalidArgument("op `%s` attribute `padding_idx`: expected -1 or a value in "
                              "[%lld, %lld) for a table of %lld rows, received %lld",
                              op, static_cast<long long>(-v), static_cast<long long>(v),
                              static_cast<long long>(v), static_cast<long long>(padding_idx)));
  return padding_idx < 0 ? padding_idx + v : padding_idx;
}

std::vector<int64_t> ReadIds(const std::string& op, const DenseTensor& tensor, int64_t v) {
  const DenseTensor ids = framework::OnCpu(tensor);  // One copy when the ids live on a device.
  std::vector<int64_t> out(static_cast<size_t>(ids.numel()));
  if (ids.dtype() == DataType::INT64) {
    const int64_t* p = ids.data<int64_t>();
    out.assign(p, p + ids.numel());
  } else {
    PL_ENFORCE(ids.dtype() == DataType::INT32,
               errors::InvalidArgument("op `%s` input `Ids`: expected int64 or int32, received %s",
                                       op, platform::DataTypeName(ids.dtype())));
    const int32_t* p = ids.data<int32_t>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  }
  for (size_t i = 0; i < out.size(); ++i) {
    PL_ENFORCE(
        out[i] >= 0 && out[i] < v,
        errors::InvalidArgument("op `%s` input `Ids`: id %lld at element %zu is outside "
                                "[0, %lld) (V, the rows of input `W`)",
                                op, static_cast<long long>(out[i]), i, static_cast<long long>(v)));
  }
  return out;
}

DDim OutDims(const std::string& op, const DDim& ids, int64_t d) {
  if (IsVersion1(op)) {
    PL_ENFORCE(ids.size() >= 1 && (ids[ids.size() - 1] == 1 || ids[ids.size() - 1] < 0),
               errors::InvalidArgument("op `%s` input `Ids`: expected a last dim of 1, received "
                                       "shape %s",
                                       op, ids.ToString()));
    std::vector<int64_t> out = ids.ToVector();
    out.back() = d;
    return DDim(out);
  }
  PL_ENFORCE(ids.size() < DDim::kMaxRank,
             errors::InvalidArgument("op `%s` input `Ids`: rank %d leaves no room for the "
                                     "embedding dim",
                                     op, ids.size()));
  std::vector<int64_t> out = ids.ToVector();
  out.push_back(d);
  return DDim(out);
}

Lookup ResolveLookup(const ExecutionContext& ctx) {
  const DDim w = ctx.Input("W")->dims();
  const DenseTensor* ids = ctx.Input("Ids");
  CheckTable(ctx.Type(), w);
  Lookup l;
  l.v = w[0];
  l.d = w[1];
  l.pad = PaddingRow(ctx.Type(), ctx.Attr<int64_t>("padding_idx"), l.v);
  l.ids = ReadIds(ctx.Type(), *ids, l.v);
  l.out_dims = OutDims(ctx.Type(), ids->dims(), l.d);
  if (ctx.HasInput("Out@GRAD")) {
    const DDim dout = ctx.Input("Out@GRAD")->dims();
    PL_ENFORCE(dout == l.out_dims,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s (Ids.dims + "
                                       "[D]), received %s",
                                       ctx.Type(), l.out_dims.ToString(), dout.ToString()));
  }
  return l;
}

}  // namespace lookup_table

namespace {

using lookup_table::CheckTable;
using lookup_table::Lookup;
using lookup_table::OutDims;
using lookup_table::PaddingRow;
using lookup_table::ResolveLookup;

void LookupTableV2InferShape(InferShapeContext* ctx) {
  ctx->RequireInput("W");
  ctx->RequireInput("Ids");
  ctx->RequireOutput("Out");
  const DDim w = ctx->GetInputDim("W");
  CheckTable(ctx->OpType(), w);
  PaddingRow(ctx->OpType(), ctx->Attr<int64_t>("padding_idx"), w[0]);
  ctx->SetOutputDim("Out", OutDims(ctx->OpType(), ctx->GetInputDim("Ids"), w[1]));
  ctx->ShareLoD("Ids", "Out");
}

void LookupTableV2InferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("W"));
}

template <typename T>
struct LookupTableV2Kernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* w = ctx.Input("W");
    const DenseTensor* ids_t = ctx.Input("Ids");
    const Lookup l = ResolveLookup(ctx);
    const std::vector<int64_t>& ids = l.ids;
    const int64_t d = l.d, pad = l.pad;
    DenseTensor fresh(l.out_dims, w->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    const T* table = w->data<T>();
    for (size_t i = 0; i < ids.size(); ++i) {
      T* row = out + static_cast<int64_t>(i) * d;
      if (ids[i] == pad) {
        std::memset(row, 0, sizeof(T) * d);
      } else if (d > 0) {
        std::memcpy(row, table + ids[i] * d, sizeof(T) * d);
      }
    }
    fresh.set_lod(ids_t->lod());
    *ctx.Output("Out") = std::move(fresh);
  }
};

// ---- lookup_table_v2_grad ----

void LookupTableV2GradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("W");
  ctx->RequireInput("Ids");
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("W@GRAD");
  const DDim w = ctx->GetInputDim("W");
  CheckTable(ctx->OpType(), w);
  const DDim want = OutDims(ctx->OpType(), ctx->GetInputDim("Ids"), w[1]);
  const DDim dout = ctx->GetInputDim("Out@GRAD");
  PL_ENFORCE(want.HasUnknown() || dout.HasUnknown() || want == dout,
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s (Ids.dims + "
                                     "[D]), received %s",
                                     ctx->OpType(), want.ToString(), dout.ToString()));
  // A sparse gradient is a SelectedRows whose VarDesc records the dense dims [V, D] it stands
  // for. At run time the kernel fills it: an empty variable (an op run outside a program)
  // would become dense if its dims were set here.
  if (ctx->IsRuntime() && ctx->Attr<bool>("is_sparse")) return;
  ctx->SetOutputDim("W@GRAD", w);
}

void LookupTableV2GradInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("W@GRAD", ctx->Attr<bool>("is_sparse") ? framework::VarKind::kSelectedRows
                                                            : framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("W@GRAD", ctx->GetInputDataType("W"));
}

template <typename T>
struct LookupTableV2GradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DDim w_dims = ctx.Input("W")->dims();
    const DenseTensor* dout_t = ctx.Input("Out@GRAD");
    const Lookup l = ResolveLookup(ctx);
    const std::vector<int64_t>& ids = l.ids;
    const int64_t v = l.v, d = l.d, pad = l.pad;
    const T* dout = dout_t->data<T>();
    const auto n = static_cast<int64_t>(ids.size());
    if (ctx.Attr<bool>("is_sparse")) {
      framework::SelectedRows* dw = ctx.OutputVar("W@GRAD")->GetMutable<framework::SelectedRows>();
      DenseTensor value(DDim({n, d}), dout_t->dtype());
      T* val = value.mutable_data<T>(ctx.GetPlace());
      if (n * d > 0) std::memcpy(val, dout, sizeof(T) * n * d);
      for (int64_t i = 0; i < n; ++i) {
        if (ids[i] == pad) std::memset(val + i * d, 0, sizeof(T) * d);
      }
      *dw->mutable_rows() = ids;
      dw->set_height(v);
      *dw->mutable_value() = std::move(value);
      return;
    }
    DenseTensor fresh(w_dims, dout_t->dtype());
    T* dw = fresh.mutable_data<T>(ctx.GetPlace());
    if (fresh.numel() > 0) std::memset(dw, 0, sizeof(T) * fresh.numel());
    for (int64_t i = 0; i < n; ++i) {
      if (ids[i] == pad) continue;
      T* row = dw + ids[i] * d;
      const T* g = dout + i * d;
      for (int64_t k = 0; k < d; ++k) row[k] += g[k];
    }
    *ctx.Output("W@GRAD") = std::move(fresh);
  }
};

framework::AttributeMap SharedAttrs(const framework::GradOpBuilder& g) {
  framework::AttributeMap attrs;
  for (const char* name : kAttrNames) {
    if (g.Forward().HasAttr(name)) attrs[name] = g.Forward().GetAttr(name);
  }
  return attrs;
}

void LookupTableV2GradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("W")) return;
  g->AddOp(g->ForwardType() + "_grad",
           {{"W", g->Input("W")}, {"Ids", g->Input("Ids")}, {"Out@GRAD", g->OutputGrad("Out")}},
           {{"W@GRAD", g->InputGrad("W")}}, SharedAttrs(*g));
}

// The dense gradient is linear in Out@GRAD: its gradient looks the gradient of W@GRAD up.
void LookupTableV2GradGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("Out@GRAD")) return;
  PL_ENFORCE(!g->Attr<bool>("is_sparse"),
             errors::Unimplemented("op `%s` attribute `is_sparse`: a sparse (SelectedRows) "
                                   "gradient cannot be differentiated again; use is_sparse = "
                                   "false",
                                   g->ForwardType()));
  framework::AttributeMap attrs = SharedAttrs(*g);
  attrs["is_sparse"] = false;
  const std::string& grad_type = g->ForwardType();
  g->AddOp(grad_type.substr(0, grad_type.size() - 5), {{"W", g->OutputGrad("W@GRAD")}, {"Ids", g->Input("Ids")}},
           {{"Out", g->InputGrad("Out@GRAD")}}, attrs);
}

}  // namespace

PL_REGISTER_OPS(RegisterLookupTableOps) {
  framework::RegisterOp<LookupTableV2Op, LookupTableV2OpMaker>(kOp)
      .InferShape(LookupTableV2InferShape)
      .InferVarType(LookupTableV2InferVarType)
      .GradOpMaker(LookupTableV2GradMaker)
      .Checkpoint("Ids may be int32 as well as int64",
                  framework::OpVersionDesc().BugfixWithBehaviorChanged(
                      "Ids of dtype int32 are accepted as well as int64"));
  framework::RegisterOp<LookupTableV2Op, LookupTableV1OpMaker>(kOpV1)
      .InferShape(LookupTableV2InferShape)
      .InferVarType(LookupTableV2InferVarType)
      .GradOpMaker(LookupTableV2GradMaker)
      .Checkpoint("lookup_table with entry_config",
                  framework::OpVersionDesc().NewAttr(
                      "entry_config", "sparse feature entry config", std::string()));
  for (const std::string type : {kOp, kOpV1}) {
    RegisterPlainCpuFloatKernels<LookupTableV2Kernel>(type);
    framework::RegisterOp<LookupTableV2Op, LookupTableV2GradOpMaker>(type + "_grad")
        .InferShape(LookupTableV2GradInferShape)
        .InferVarType(LookupTableV2GradInferVarType)
        .GradOpMaker(LookupTableV2GradGradMaker);
    RegisterPlainCpuFloatKernels<LookupTableV2GradKernel>(type + "_grad");
  }
}

}  // namespace operators
}  // namespace paddle_like

// sequence_pool: one row per sequence of a LoD tensor (sum, mean, max, ...), and
// sequence_pool_grad, its fused backward.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "sequence_pool";
constexpr char kGradOp[] = "sequence_pool_grad";

class SequencePoolOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "LoD tensor [N, ...] (1 or 2 LoD levels); the last level splits its rows "
                  "into sequences.");
    AddOutput("Out", "[S, ...]: one row per sequence; LoD: X's LoD without its last level.");
    AddOutput("MaxIndex", "int32 [S, ...]: for MAX, the row of X each maximum came from (-1 "
                          "for an empty sequence). Required for MAX.")
        .AsIntermediate()
        .AsDispensable();
    AddAttr<bool>("is_test", "Inference only (accepted; MaxIndex is filled all the same).")
        .SetDefault(false)
        .AsExtra();
    AddAttr<std::string>("pooltype", "AVERAGE, SUM, SQRT, LAST, FIRST or MAX.")
        .SetDefault("AVERAGE")
        .InEnum({"AVERAGE", "SUM", "SQRT", "LAST", "FIRST", "MAX"});
    AddAttr<float>("pad_value", "The value of every element of an empty sequence's row.")
        .SetDefault(0.0f);
    AddComment(R"DOC(
Sequence pooling: for sequence i, the rows X[s_i : s_{i+1}] (s the last LoD level,
L_i = s_{i+1} - s_i) become one row of Out:
$$SUM: Out_i = \sum_{r=s_i}^{s_{i+1}-1} X_r, \quad AVERAGE: \frac{SUM}{L_i}, \quad
SQRT: \frac{SUM}{\sqrt{L_i}}, \quad MAX: \max_r X_r, \quad FIRST: X_{s_i}, \quad
LAST: X_{s_{i+1}-1}$$
elementwise over the trailing dims; an empty sequence (L_i = 0) gives pad_value. Example:
X = [[1], [3], [2], [4], [6]], LoD [[0, 2, 5]] -> SUM [[4], [12]], AVERAGE [[2], [4]],
MAX [[3], [6]] with MaxIndex [[1], [4]], FIRST [[1], [2]], LAST [[3], [6]]. With a 2-level
LoD the output keeps the first level.

Gradient, by the fused op sequence_pool_grad: dX_r is dOut_i (SUM), dOut_i / L_i (AVERAGE),
dOut_i / sqrt(L_i) (SQRT) for every row r of sequence i; for MAX, FIRST and LAST only the
selected row gets dOut_i, the others 0.
)DOC");
  }
};

class SequencePoolOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

void SequencePoolInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const bool is_max = ctx->Attr<std::string>("pooltype") == "MAX";
  if (is_max) ctx->RequireOutput("MaxIndex");
  const DDim x = ctx->GetInputDim("X");
  CheckMinRank(ctx->OpType(), "X", x, 1);
  if (ctx->IsRuntime()) return;  // The number of sequences comes from the LoD: the kernel.
  std::vector<int64_t> out = x.ToVector();
  out[0] = -1;
  ctx->SetOutputDim("Out", DDim(out));
  if (is_max) ctx->SetOutputDim("MaxIndex", DDim(out));
}

void SequencePoolInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
  if (ctx->HasOutput("MaxIndex")) ctx->SetOutputDataType("MaxIndex", DataType::INT32);
}

template <typename T>
struct SequencePoolKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const std::string pooltype = ctx.Attr<std::string>("pooltype");
    const std::vector<size_t>& lod = SequenceOffsets(ctx.Type(), "X", *x, 2);
    const int64_t seqs = static_cast<int64_t>(lod.size()) - 1;
    const int64_t w = RowWidth(x->dims());
    std::vector<int64_t> out_dims = x->dims().ToVector();
    out_dims[0] = seqs;
    DenseTensor out(DDim(out_dims), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const bool is_max = pooltype == "MAX";
    DenseTensor index(DDim(out_dims), DataType::INT32);
    int32_t* idx = is_max ? index.mutable_data<int32_t>(ctx.GetPlace()) : nullptr;
    const T* in = x->data<T>();
    const T pad = static_cast<T>(ctx.Attr<float>("pad_value"));
    for (int64_t i = 0; i < seqs; ++i) {
      const int64_t begin = static_cast<int64_t>(lod[i]);
      const int64_t len = static_cast<int64_t>(lod[i + 1]) - begin;
      T* row = o + i * w;
      if (len == 0) {
        for (int64_t k = 0; k < w; ++k) row[k] = pad;
        if (is_max) {
          for (int64_t k = 0; k < w; ++k) idx[i * w + k] = -1;
        }
        continue;
      }
      const T* first = in + begin * w;
      if (pooltype == "FIRST" || pooltype == "LAST") {
        const T* src = pooltype == "FIRST" ? first : first + (len - 1) * w;
        std::memcpy(row, src, sizeof(T) * w);
      } else if (is_max) {
        for (int64_t k = 0; k < w; ++k) {
          row[k] = first[k];
          idx[i * w + k] = static_cast<int32_t>(begin);
        }
        for (int64_t r = 1; r < len; ++r) {
          for (int64_t k = 0; k < w; ++k) {
            if (first[r * w + k] > row[k]) {
              row[k] = first[r * w + k];
              idx[i * w + k] = static_cast<int32_t>(begin + r);
            }
          }
        }
      } else {  // SUM, AVERAGE, SQRT
        SumPoolRows(pooltype, first, len, w, row);
      }
    }
    if (x->lod().size() == 2) out.set_lod({x->lod()[0]});
    *ctx.Output("Out") = std::move(out);
    if (is_max) {
      DenseTensor* max_index = ctx.Output("MaxIndex");
      PL_ENFORCE(max_index != nullptr,
                 errors::NotFound("op `%s` output `MaxIndex`: required for pooltype MAX but "
                                  "not given",
                                  ctx.Type()));
      *max_index = std::move(index);
    }
  }
};

// ---- sequence_pool_grad ----

void SequencePoolGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("X@GRAD");
  const DDim x = ctx->GetInputDim("X");
  const DDim dout = ctx->GetInputDim("Out@GRAD");
  bool ok = x.size() == dout.size();
  for (int i = 1; ok && i < x.size(); ++i) ok = x[i] < 0 || dout[i] < 0 || x[i] == dout[i];
  PL_ENFORCE(ok, errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape [S%s] for X "
                                         "%s, received %s",
                                         ctx->OpType(), x.size() > 1 ? ", ..." : "",
                                         x.ToString(), dout.ToString()));
  if (ctx->Attr<std::string>("pooltype") == "MAX") ctx->RequireInput("MaxIndex");
  ctx->SetOutputDim("X@GRAD", x);
  ctx->ShareLoD("X", "X@GRAD");
}

template <typename T>
struct SequencePoolGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const std::string pooltype = ctx.Attr<std::string>("pooltype");
    const std::vector<size_t>& lod = SequenceOffsets(ctx.Type(), "X", *x, 2);
    const int64_t seqs = static_cast<int64_t>(lod.size()) - 1;
    const int64_t w = RowWidth(x->dims());
    std::vector<int64_t> want = x->dims().ToVector();
    want[0] = seqs;
    PL_ENFORCE(dout->dims() == DDim(want),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s (one row per "
                                       "sequence of X), received %s",
                                       ctx.Type(), DDim(want).ToString(),
                                       dout->dims().ToString()));
    DenseTensor dx(x->dims(), dout->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    if (dx.numel() > 0) std::memset(g, 0, sizeof(T) * dx.numel());
    const T* d = dout->data<T>();
    if (pooltype == "MAX") {
      const DenseTensor* index = ctx.Input("MaxIndex");
      PL_ENFORCE(index != nullptr && index->dtype() == DataType::INT32 &&
                     index->dims() == dout->dims(),
                 errors::InvalidArgument("op `%s` input `MaxIndex`: expected int32 of shape %s "
                                         "for pooltype MAX, received %s",
                                         ctx.Type(), dout->dims().ToString(),
                                         index ? index->dims().ToString() : "none"));
      const int32_t* idx = index->data<int32_t>();
      for (int64_t i = 0; i < seqs; ++i) {
        for (int64_t k = 0; k < w; ++k) {
          const int64_t r = idx[i * w + k];
          if (r < 0) continue;  // An empty sequence.
          PL_ENFORCE(r >= static_cast<int64_t>(lod[i]) && r < static_cast<int64_t>(lod[i + 1]),
                     errors::InvalidArgument("op `%s` input `MaxIndex`: row %lld at [%lld, %lld] "
                                             "is outside sequence %lld, rows [%zu, %zu)",
                                             ctx.Type(), static_cast<long long>(r),
                                             static_cast<long long>(i), static_cast<long long>(k),
                                             static_cast<long long>(i), lod[i], lod[i + 1]));
          g[r * w + k] = d[i * w + k];
        }
      }
    } else {
      for (int64_t i = 0; i < seqs; ++i) {
        const int64_t begin = static_cast<int64_t>(lod[i]);
        const int64_t len = static_cast<int64_t>(lod[i + 1]) - begin;
        if (len == 0) continue;
        const T* src = d + i * w;
        if (pooltype == "FIRST" || pooltype == "LAST") {
          const int64_t r = pooltype == "FIRST" ? begin : begin + len - 1;
          std::memcpy(g + r * w, src, sizeof(T) * w);
          continue;
        }
        const T scale = pooltype == "SUM"       ? T(1)
                        : pooltype == "AVERAGE" ? T(1) / static_cast<T>(len)
                                                : T(1) / std::sqrt(static_cast<T>(len));
        for (int64_t r = begin; r < begin + len; ++r) {
          for (int64_t k = 0; k < w; ++k) {
            g[r * w + k] = pooltype == "SUM" ? src[k] : src[k] * scale;
          }
        }
      }
    }
    dx.set_lod(x->lod());
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

// As PaddlePaddle's: MaxIndex is read for MAX only (other pooltypes leave it unwritten).
void SequencePoolGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  framework::VariableNameMap inputs = {{"X", g->Input("X")}, {"Out@GRAD", g->OutputGrad("Out")}};
  const bool is_max = g->Forward().HasAttr("pooltype") && g->Attr<std::string>("pooltype") == "MAX";
  if (is_max && g->Forward().HasOutput("MaxIndex")) inputs["MaxIndex"] = g->Output("MaxIndex");
  framework::AttributeMap attrs;
  for (const char* name : {"is_test", "pooltype", "pad_value"}) {
    if (g->Forward().HasAttr(name)) attrs[name] = g->Forward().GetAttr(name);
  }
  g->AddOp(kGradOp, inputs, {{"X@GRAD", g->InputGrad("X")}}, attrs);
}

}  // namespace

PL_REGISTER_OPS(RegisterSequencePoolOp) {
  const framework::FusedGradDecl grad{
      {"X", "MaxIndex"},
      {"Out"},
      {"X"},
      R"DOC($$dX_r = dOut_i \cdot \begin{cases} 1 & SUM \\ 1 / L_i & AVERAGE \\
1 / \sqrt{L_i} & SQRT \\ [r \text{ selected}] & MAX, FIRST, LAST \end{cases}$$
for each row r of sequence i (X's last LoD level); X@GRAD has X's shape and LoD.)DOC"};
  framework::RegisterOp<SequencePoolOp, SequencePoolOpMaker>(kOp)
      .InferShape(SequencePoolInferShape)
      .InferVarType(SequencePoolInferVarType)
      .GradOpMaker(SequencePoolGradMaker);
  RegisterPlainCpuFloatKernels<SequencePoolKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad)
      .InferShape(SequencePoolGradInferShape)
      .InferVarType(OutputDataTypeOf("Out@GRAD", "X@GRAD"));
  RegisterPlainCpuFloatKernels<SequencePoolGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like

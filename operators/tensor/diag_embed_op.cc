// diag_embed: each last-dim vector of Input placed on a diagonal of a new 2-D slice
// (paddle.diag_embed). The gradient is the diagonal op, differentiable again.
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "diag_embed";

class DiagEmbedOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "[..., N]: the vectors to place (rank >= 1).");
    AddOutput("Out",
              "Input's rank + 1: Input's leading dims in order, and dims dim1 and dim2 both of "
              "size N + |offset|.");
    AddAttr<int>("offset", "Which diagonal: 0 the main one, > 0 above it, < 0 below.")
        .SetDefault(0);
    AddAttr<int>("dim1", "Out's dim of the slices' rows (negative counts from the end).")
        .SetDefault(-2);
    AddAttr<int>("dim2", "Out's dim of the slices' columns, other than dim1.").SetDefault(-1);
    AddComment(R"DOC(
DiagEmbed operator. With M = N + |offset|, every index b of Input's leading dims gives an
M x M slice of Out over the dims dim1 and dim2 (the other dims of Out are b, in order):

$$Out[b, i, j] = \begin{cases} Input[b, \min(i, j)] & j - i = offset \\ 0 &
\text{otherwise} \end{cases}$$

Example: Input = [1, 2], offset 1 -> [[0, 1, 0], [0, 0, 2], [0, 0, 0]].

Gradient: dInput = diagonal(dOut, offset, axis1 = dim1, axis2 = dim2).
)DOC");
  }
};

class DiagEmbedOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// Out's geometry: its dims and the positions of dim1 and dim2 in them.
struct EmbedGeometry {
  DDim out;
  int dim1 = 0, dim2 = 0;
  int64_t size = 0;  // N + |offset|
};

EmbedGeometry Resolve(const std::string& op, const DDim& in, const framework::AttributeMap& attrs) {
  PL_ENFORCE(in.size() >= 1, errors::InvalidArgument("op `%s` input `Input`: expected rank >= 1, "
                                                     "received a 0-D tensor",
                                                     op));
  const int rank = in.size() + 1;
  const int offset = std::get<int>(attrs.at("offset"));
  EmbedGeometry g;
  const auto axis = [&](const char* name) {
    const int a = std::get<int>(attrs.at(name));
    PL_ENFORCE(a >= -rank && a < rank,
               errors::InvalidArgument("op `%s` attribute `%s`: expected a dim in [%d, %d) of "
                                       "Out's rank %d, received %d",
                                       op, name, -rank, rank, rank, a));
    return a < 0 ? a + rank : a;
  };
  g.dim1 = axis("dim1");
  g.dim2 = axis("dim2");
  PL_ENFORCE(g.dim1 != g.dim2,
             errors::InvalidArgument("op `%s` attributes `dim1`, `dim2`: expected two different "
                                     "dims, received both %d",
                                     op, g.dim1));
  const int64_t n = in[in.size() - 1];
  g.size = n < 0 ? -1 : n + (offset < 0 ? -offset : offset);
  std::vector<int64_t> out;
  int next = 0;
  for (int d = 0; d < rank; ++d) {
    out.push_back(d == g.dim1 || d == g.dim2 ? g.size : in[next++]);
  }
  g.out = DDim(out);
  return g;
}

void DiagEmbedInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", Resolve(ctx->OpType(), ctx->GetInputDim("Input"), ctx->Attrs()).out);
}

template <typename T>
struct DiagEmbedKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const EmbedGeometry g = Resolve(kOp, input->dims(), ctx.op().Attrs());
    const int offset = ctx.Attr<int>("offset");
    DenseTensor out(g.out, input->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    std::fill(o, o + out.numel(), T(0));
    const int rank = g.out.size();
    std::vector<int64_t> stride(rank, 1);
    for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * g.out[d + 1];
    // Out's strides of Input's leading dims, in order.
    std::vector<int64_t> batch_stride, batch_dims;
    for (int d = 0; d < rank; ++d) {
      if (d == g.dim1 || d == g.dim2) continue;
      batch_stride.push_back(stride[d]);
      batch_dims.push_back(g.out[d]);
    }
    const int64_t n = input->dims()[input->dims().size() - 1];
    const int64_t batches = n == 0 ? 0 : input->numel() / n;
    const int64_t row0 = offset < 0 ? -offset : 0, col0 = offset > 0 ? offset : 0;
    const int64_t diag_step = stride[g.dim1] + stride[g.dim2];
    const int64_t diag_start = row0 * stride[g.dim1] + col0 * stride[g.dim2];
    const T* in = input->data<T>();
    for (int64_t b = 0; b < batches; ++b) {
      int64_t base = 0;
      for (int64_t k = static_cast<int64_t>(batch_dims.size()) - 1, rest = b; k >= 0; --k) {
        base += (rest % batch_dims[k]) * batch_stride[k];
        rest /= batch_dims[k];
      }
      for (int64_t i = 0; i < n; ++i) o[base + diag_start + i * diag_step] = in[b * n + i];
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void DiagEmbedGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("Input")) return;
  g->AddOp("diagonal", {{"Input", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("Input")}},
           {{"offset", g->Attr<int>("offset")},
            {"axis1", g->Attr<int>("dim1")},
            {"axis2", g->Attr<int>("dim2")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterDiagEmbedOp) {
  framework::RegisterOp<DiagEmbedOp, DiagEmbedOpMaker>(kOp)
      .InferShape(DiagEmbedInferShape)
      .InferVarType(OutputDataTypeOf("Input", "Out"))
      .GradOpMaker(DiagEmbedGradMaker);
  RegisterPlainCpuNumericKernels<DiagEmbedKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

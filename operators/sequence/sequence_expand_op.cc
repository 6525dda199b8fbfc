// sequence_expand: repeats each sequence (or row) of X as many times as the matching
// sequence of Y's LoD has rows, and sequence_expand_grad, its fused backward.
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "sequence_expand";
constexpr char kGradOp[] = "sequence_expand_grad";

class SequenceExpandOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Tensor of rank >= 2 (viewed as rows), with a LoD of at most 1 level or "
                  "none (then each row is a sequence).");
    AddInput("Y", "LoD tensor whose LoD level `ref_level` gives the repeat counts (only its "
                  "LoD is read).")
        .AsNoNeedBuffer();
    AddOutput("Out", "X's sequences repeated; LoD: one entry per repeat when X has a LoD, "
                     "none otherwise.");
    AddAttr<int>("ref_level", "The level of Y's LoD to follow; -1 is the last.").SetDefault(-1);
    AddComment(R"DOC(
Sequence expand. With r the offsets of level ref_level of Y's LoD and x the offsets of X's
LoD (x_i = i without a LoD), sequence i of X, rows X[x_i : x_{i+1}], is written
$$n_i = r_{i+1} - r_i$$
times in a row into Out. X must have as many sequences as that level has. Example: X =
[[a], [b], [c]] without LoD, Y's LoD [[0, 2, 3, 6]] -> Out = [[a], [a], [b], [c], [c], [c]].
With X's LoD [[0, 2, 3]] and Y's LoD [[0, 2, 3]], X = [[a], [b], [c]] -> Out = [[a], [b],
[a], [b], [c]], Out's LoD [[0, 2, 4, 5]].

Gradient, by the fused op sequence_expand_grad: dX over sequence i is the sum of dOut over
its n_i copies (zero when n_i = 0).
)DOC");
  }
};

class SequenceExpandOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

void SequenceExpandInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckMinRank(ctx->OpType(), "X", x, 2);
  if (ctx->IsRuntime()) return;  // The size comes from the LoDs: the kernel sets it.
  std::vector<int64_t> out = x.ToVector();
  out[0] = -1;
  ctx->SetOutputDim("Out", DDim(out));
  ctx->ShareLoD("X", "Out");
}

// What the forward and backward kernels share: X's sequence offsets and the repeat offsets.
struct Expansion {
  std::vector<size_t> x_offsets;
  std::vector<size_t> ref;
};

Expansion CheckExpansion(const std::string& op, const DenseTensor& x, const DenseTensor& y,
                         int ref_level) {
  CheckMinRank(op, "X", x.dims(), 2);
  CheckOptionalLoD(op, "X", x, 1);
  SequenceOffsets(op, "Y", y, y.lod().size() + 1);
  const int levels = static_cast<int>(y.lod().size());
  PL_ENFORCE(ref_level >= -1 && ref_level < levels,
             errors::InvalidArgument("op `%s` attribute `ref_level`: expected -1 or a value in "
                                     "[0, %d) (Y's LoD levels), received %d",
                                     op, levels, ref_level));
  Expansion e;
  e.ref = y.lod()[ref_level == -1 ? levels - 1 : ref_level];
  if (!x.lod().empty()) {
    e.x_offsets = x.lod()[0];
  } else {
    e.x_offsets.resize(static_cast<size_t>(x.dims()[0]) + 1);
    std::iota(e.x_offsets.begin(), e.x_offsets.end(), size_t{0});
  }
  PL_ENFORCE(e.x_offsets.size() == e.ref.size(),
             errors::InvalidArgument("op `%s` input `X`: expected %zu sequences (%s) to match "
                                     "level %d of Y's LoD, received %zu",
                                     op, e.ref.size() - 1,
                                     x.lod().empty() ? "rows, as X has no LoD" : "X's LoD",
                                     ref_level, e.x_offsets.size() - 1));
  return e;
}

template <typename T>
struct SequenceExpandKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const Expansion e = CheckExpansion(ctx.Type(), *x, *ctx.Input("Y"), ctx.Attr<int>("ref_level"));
    const int64_t w = RowWidth(x->dims());
    std::vector<size_t> out_lod = {0};
    for (size_t i = 0; i + 1 < e.ref.size(); ++i) {
      const size_t len = e.x_offsets[i + 1] - e.x_offsets[i];
      for (size_t j = e.ref[i]; j < e.ref[i + 1]; ++j) out_lod.push_back(out_lod.back() + len);
    }
    std::vector<int64_t> dims = x->dims().ToVector();
    dims[0] = static_cast<int64_t>(out_lod.back());
    DenseTensor out(DDim(dims), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (size_t i = 0; i + 1 < e.ref.size(); ++i) {
      const int64_t n = static_cast<int64_t>((e.x_offsets[i + 1] - e.x_offsets[i]) * w);
      for (size_t j = e.ref[i]; j < e.ref[i + 1]; ++j) {
        if (n > 0) std::memcpy(o, in + e.x_offsets[i] * w, sizeof(T) * n);
        o += n;
      }
    }
    if (!x->lod().empty()) out.set_lod({out_lod});
    *ctx.Output("Out") = std::move(out);
  }
};

// ---- sequence_expand_grad ----

void SequenceExpandGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("X@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  ctx->ShareLoD("X", "X@GRAD");
}

template <typename T>
struct SequenceExpandGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const Expansion e = CheckExpansion(ctx.Type(), *x, *ctx.Input("Y"), ctx.Attr<int>("ref_level"));
    const int64_t w = RowWidth(x->dims());
    int64_t rows = 0;
    for (size_t i = 0; i + 1 < e.ref.size(); ++i) {
      rows += static_cast<int64_t>((e.ref[i + 1] - e.ref[i]) * (e.x_offsets[i + 1] - e.x_offsets[i]));
    }
    std::vector<int64_t> want = x->dims().ToVector();
    want[0] = rows;
    PL_ENFORCE(dout->dims() == DDim(want),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s (Out's), "
                                       "received %s",
                                       ctx.Type(), DDim(want).ToString(), dout->dims().ToString()));
    DenseTensor dx(x->dims(), dout->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    if (dx.numel() > 0) std::memset(g, 0, sizeof(T) * dx.numel());
    const T* d = dout->data<T>();
    for (size_t i = 0; i + 1 < e.ref.size(); ++i) {
      const int64_t n = static_cast<int64_t>((e.x_offsets[i + 1] - e.x_offsets[i]) * w);
      T* dst = g + e.x_offsets[i] * w;
      for (size_t j = e.ref[i]; j < e.ref[i + 1]; ++j) {
        for (int64_t k = 0; k < n; ++k) dst[k] += d[k];
        d += n;
      }
    }
    dx.set_lod(x->lod());
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSequenceExpandOp) {
  const framework::FusedGradDecl grad{
      {"X", "Y"},
      {"Out"},
      {"X"},
      R"DOC($$dX[x_i : x_{i+1}] = \sum_{j=0}^{n_i - 1} dOut_{i,j}$$
where dOut_{i,j} is the j-th copy of sequence i in Out; X@GRAD has X's shape and LoD.)DOC"};
  framework::RegisterOp<SequenceExpandOp, SequenceExpandOpMaker>(kOp)
      .InferShape(SequenceExpandInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuNumericKernels<SequenceExpandKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad)
      .InferShape(SequenceExpandGradInferShape)
      .InferVarType(OutputDataTypeOf("Out@GRAD", "X@GRAD"));
  RegisterPlainCpuNumericKernels<SequenceExpandGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like

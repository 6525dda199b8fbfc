// sequence_conv: a 1-D convolution along each sequence of a LoD tensor (the text CNNs of
// fluid's `sequence_conv_pool`), and sequence_conv_grad, its fused backward; and
// fusion_seqconv_eltadd_relu, relu(sequence_conv + Bias) as PaddlePaddle's
// seqconv_eltadd_relu_fuse_pass makes it (inference only: no gradient).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/math/blas.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "sequence_conv";
constexpr char kGradOp[] = "sequence_conv_grad";

class SequenceConvOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "LoD tensor [T, D] (one LoD level): T rows in sequences.");
    AddInput("PaddingData",
             "[up_pad + down_pad, D]: the rows read outside a sequence when paddingTrainable "
             "(up_pad = max(0, -contextStart), down_pad = max(0, contextStart + "
             "contextLength - 1)).")
        .AsDispensable();
    AddInput("Filter", "[contextLength * D, M].");
    AddOutput("Out", "[T, M], with X's LoD.");
    AddAttr<bool>("paddingTrainable",
                  "Whether rows outside a sequence come from PaddingData (else they are 0).")
        .SetDefault(false);
    AddAttr<int>("contextLength", "Rows in each window (> 0).").GreaterThan(0);
    AddAttr<int>("contextStart", "Offset of a window's first row from its output row.")
        .SetDefault(0);
    AddAttr<int>("contextStride", "Step between windows; only 1 is supported.")
        .SetDefault(1)
        .InEnum({1});
    AddComment(R"DOC(
Sequence convolution: within each sequence (X's LoD), output row r sees the window of rows
r + contextStart .. r + contextStart + contextLength - 1 of its own sequence, concatenated:
$$Out_r = \sum_{j=0}^{contextLength-1} x_{r + contextStart + j} \, Filter[jD : (j+1)D, :]$$
where a row outside the sequence is 0, or with paddingTrainable a row of PaddingData: row
p + up_pad for the p-th row before the sequence (p < 0) and row up_pad + q for the q-th
row after it. Example: one sequence X = [[1], [2], [3]], contextStart -1,
contextLength 3, Filter = [[1], [10], [100]] -> Out = [[210], [321], [32]].

Gradient, by the fused op sequence_conv_grad: with Col the [T, contextLength D] matrix of
windows, dFilter = Col^T dOut, and dCol = dOut Filter^T is added back to the rows of X (and
of PaddingData when trainable) each window entry came from.
)DOC");
  }
};

// The geometry of one sequence_conv: attributes checked against X and Filter.
struct SeqConvShape {
  int64_t rows = 0, width = 0, out_width = 0;
  int context_length = 0, context_start = 0, up_pad = 0, down_pad = 0;
  bool trainable = false;
};

SeqConvShape ResolveSeqConv(const std::string& op, const framework::AttributeMap& attrs,
                            const DDim& x, const DDim& filter, const DDim* padding) {
  auto attr = [&](const char* name) { return std::get<int>(attrs.at(name)); };
  SeqConvShape s;
  s.context_length = attr("contextLength");
  s.context_start = attr("contextStart");
  s.trainable = attrs.count("paddingTrainable") && std::get<bool>(attrs.at("paddingTrainable"));
  s.up_pad = std::max(0, -s.context_start);
  s.down_pad = std::max(0, s.context_start + s.context_length - 1);
  PL_ENFORCE(x.size() == 2, errors::InvalidArgument("op `%s` input `X`: expected rank 2 [T, D], "
                                                    "received %s",
                                                    op, x.ToString()));
  PL_ENFORCE(filter.size() == 2,
             errors::InvalidArgument("op `%s` input `Filter`: expected rank 2 [contextLength * "
                                     "D, M], received %s",
                                     op, filter.ToString()));
  s.rows = x[0];
  s.width = x[1];
  s.out_width = filter[1];
  if (s.width >= 0 && filter[0] >= 0) {
    PL_ENFORCE(filter[0] == s.context_length * s.width,
               errors::InvalidArgument("op `%s` input `Filter`: expected %lld rows "
                                       "(contextLength %d x X's width %lld), received %s",
                                       op, static_cast<long long>(s.context_length * s.width),
                                       s.context_length, static_cast<long long>(s.width),
                                       filter.ToString()));
  }
  if (s.trainable) {
    PL_ENFORCE(padding != nullptr,
               errors::NotFound("op `%s` input `PaddingData`: required when paddingTrainable "
                                "is set",
                                op));
    const bool rows_ok = (*padding)[0] < 0 || (*padding)[0] == s.up_pad + s.down_pad;
    const bool width_ok = s.width < 0 || (*padding)[1] < 0 || (*padding)[1] == s.width;
    PL_ENFORCE(padding->size() == 2 && rows_ok && width_ok,
               errors::InvalidArgument("op `%s` input `PaddingData`: expected shape [%d, %lld] "
                                       "(up_pad %d + down_pad %d rows of X's width), received %s",
                                       op, s.up_pad + s.down_pad, static_cast<long long>(s.width),
                                       s.up_pad, s.down_pad, padding->ToString()));
  }
  return s;
}

class SequenceConvOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

void SequenceConvInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Filter");
  ctx->RequireOutput("Out");
  const DDim padding = ctx->HasInput("PaddingData") ? ctx->GetInputDim("PaddingData") : DDim();
  const SeqConvShape s =
      ResolveSeqConv(ctx->OpType(), ctx->Attrs(), ctx->GetInputDim("X"), ctx->GetInputDim("Filter"),
                     ctx->HasInput("PaddingData") ? &padding : nullptr);
  ctx->SetOutputDim("Out", DDim{s.rows, s.out_width});
  ctx->ShareLoD("X", "Out");
}

// Where entry (r, j) of a window reads from: X's row, PaddingData's row, or nothing (-1).
struct WindowSource {
  bool from_padding;
  int64_t row;
};

WindowSource SourceOf(const SeqConvShape& s, int64_t begin, int64_t len, int64_t r, int j) {
  const int64_t at = r + s.context_start + j;  // Within the sequence.
  if (at >= 0 && at < len) return {false, begin + at};
  if (!s.trainable) return {false, -1};
  return {true, at < 0 ? at + s.up_pad : s.up_pad + (at - len)};
}

// Calls fn(output row, window entry j, source) for every window entry that reads a row, in a
// fixed order: sequence by sequence, row by row, entry by entry.
template <typename Fn>
void ForEachWindowEntry(const SeqConvShape& s, const std::vector<size_t>& lod, Fn&& fn) {
  for (size_t i = 0; i + 1 < lod.size(); ++i) {
    const int64_t begin = static_cast<int64_t>(lod[i]);
    const int64_t len = static_cast<int64_t>(lod[i + 1]) - begin;
    for (int64_t r = 0; r < len; ++r) {
      for (int j = 0; j < s.context_length; ++j) {
        const WindowSource src = SourceOf(s, begin, len, r, j);
        if (src.row >= 0) fn(begin + r, j, src);
      }
    }
  }
}

// The [T, contextLength * D] matrix of windows of X.
template <typename T>
std::vector<T> WindowMatrix(const SeqConvShape& s, const std::vector<size_t>& lod, const T* x,
                            const T* padding) {
  const int64_t cw = s.context_length * s.width;
  std::vector<T> col(static_cast<size_t>(s.rows * cw), T(0));
  ForEachWindowEntry(s, lod, [&](int64_t row, int j, const WindowSource& src) {
    const T* from = (src.from_padding ? padding : x) + src.row * s.width;
    std::memcpy(col.data() + row * cw + j * s.width, from, sizeof(T) * s.width);
  });
  return col;
}

SeqConvShape ResolveAtRun(const ExecutionContext& ctx) {
  const DenseTensor* padding = ctx.HasInput("PaddingData") ? ctx.Input("PaddingData") : nullptr;
  return ResolveSeqConv(ctx.Type(), ctx.op().Attrs(), ctx.Input("X")->dims(),
                        ctx.Input("Filter")->dims(), padding ? &padding->dims() : nullptr);
}

template <typename T>
struct SequenceConvKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const SeqConvShape s = ResolveAtRun(ctx);
    const std::vector<size_t>& lod = SequenceOffsets(ctx.Type(), "X", *x, 1);
    const T* padding = s.trainable ? ctx.Input("PaddingData")->template data<T>() : nullptr;
    const std::vector<T> col = WindowMatrix(s, lod, x->data<T>(), padding);
    DenseTensor out(DDim{s.rows, s.out_width}, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const int64_t cw = s.context_length * s.width;
    if (out.numel() > 0) {
      math::Gemm<T>(ctx.device_context<platform::CPUDeviceContext>(), false, false, s.rows,
                    s.out_width, cw, T(1), col.data(), cw, ctx.Input("Filter")->data<T>(),
                    s.out_width, T(0), o, s.out_width);
    }
    out.set_lod(x->lod());
    *ctx.Output("Out") = std::move(out);
  }
};

// ---- fusion_seqconv_eltadd_relu ----

class FusionSeqConvEltAddReluOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[T, D] with a level-1 LoD (one sequence per offset pair).");
    AddInput("Filter", "[contextLength * D, M].");
    AddInput("Bias", "[1, M] (or [M]), added to every row.");
    AddOutput("Out", "[T, M], with X's LoD.");
    AddOutput("ColMat", "[T, contextLength * D]: the windows.").AsIntermediate().AsDispensable();
    AddAttr<int>("contextLength", "Rows per window.").GreaterThan(0);
    AddAttr<int>("contextStart", "Offset of a window's first row from the output row.")
        .SetDefault(0);
    AddAttr<int>("contextStride", "Only 1.").SetDefault(1);
    AddComment(R"DOC(
sequence_conv with zero padding, then the bias and relu:
$$Out = \max(Col \, Filter + Bias, 0)$$
with Col the [T, contextLength D] matrix of windows: row r holds the rows r + contextStart
... r + contextStart + contextLength - 1 of r's own sequence, zeros outside it.
)DOC");
  }
};

constexpr char kFusedOp[] = "fusion_seqconv_eltadd_relu";

void FusionSeqConvEltAddReluInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Filter", "Bias"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Out");
  PL_ENFORCE(ctx->Attr<int>("contextStride") == 1,
             errors::InvalidArgument("op `%s` attribute `contextStride`: expected 1, received %d",
                                     kFusedOp, ctx->Attr<int>("contextStride")));
  const SeqConvShape s = ResolveSeqConv(ctx->OpType(), ctx->Attrs(), ctx->GetInputDim("X"),
                                        ctx->GetInputDim("Filter"), nullptr);
  const DDim b = ctx->GetInputDim("Bias");
  const int64_t b_width = b.size() > 0 ? b[b.size() - 1] : -1;
  PL_ENFORCE((b.size() == 1 || (b.size() == 2 && (b[0] < 0 || b[0] == 1))) &&
                 (b_width < 0 || s.out_width < 0 || b_width == s.out_width),
             errors::InvalidArgument("op `%s` input `Bias`: expected [1, %lld], received shape "
                                     "%s",
                                     kFusedOp, static_cast<long long>(s.out_width), b.ToString()));
  ctx->SetOutputDim("Out", DDim{s.rows, s.out_width});
  ctx->ShareLoD("X", "Out");
  if (ctx->HasOutput("ColMat")) {
    ctx->SetOutputDim("ColMat", DDim{s.rows, s.width < 0 ? -1 : s.context_length * s.width});
  }
}

template <typename T>
struct FusionSeqConvEltAddReluKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const SeqConvShape s = ResolveAtRun(ctx);
    const std::vector<size_t>& lod = SequenceOffsets(ctx.Type(), "X", *x, 1);
    const int64_t cw = s.context_length * s.width;
    DenseTensor col(DDim{s.rows, cw}, x->dtype());
    T* c = col.mutable_data<T>(ctx.GetPlace());
    const std::vector<T> windows = WindowMatrix<T>(s, lod, x->data<T>(), nullptr);
    std::copy(windows.begin(), windows.end(), c);
    DenseTensor out(DDim{s.rows, s.out_width}, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    if (out.numel() > 0) {
      math::Gemm<T>(ctx.device_context<platform::CPUDeviceContext>(), false, false, s.rows,
                    s.out_width, cw, T(1), c, cw, ctx.Input("Filter")->data<T>(), s.out_width, T(0),
                    o, s.out_width);
    }
    const T* b = ctx.Input("Bias")->data<T>();
    for (int64_t r = 0; r < s.rows; ++r) {
      for (int64_t j = 0; j < s.out_width; ++j) {
        const T v = o[r * s.out_width + j] + b[j];
        o[r * s.out_width + j] = v > T(0) ? v : T(0);
      }
    }
    out.set_lod(x->lod());
    *ctx.Output("Out") = std::move(out);
    if (ctx.HasOutput("ColMat")) *ctx.Output("ColMat") = std::move(col);
  }
};

// ---- sequence_conv_grad ----

void SequenceConvGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Filter");
  ctx->RequireInput("Out@GRAD");
  const DDim x = ctx->GetInputDim("X");
  const DDim filter = ctx->GetInputDim("Filter");
  const DDim dout = ctx->GetInputDim("Out@GRAD");
  const bool ok = dout.size() == 2 && (x[0] < 0 || dout[0] < 0 || x[0] == dout[0]) &&
                  (filter[1] < 0 || dout[1] < 0 || filter[1] == dout[1]);
  PL_ENFORCE(ok, errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape [%lld, %lld] "
                                         "(X's rows, Filter's columns), received %s",
                                         ctx->OpType(), static_cast<long long>(x[0]),
                                         static_cast<long long>(filter[1]), dout.ToString()));
  if (ctx->HasOutput("X@GRAD")) {
    ctx->SetOutputDim("X@GRAD", x);
    ctx->ShareLoD("X", "X@GRAD");
  }
  if (ctx->HasOutput("Filter@GRAD")) ctx->SetOutputDim("Filter@GRAD", filter);
  if (ctx->HasOutput("PaddingData@GRAD") && ctx->HasInput("PaddingData")) {
    ctx->SetOutputDim("PaddingData@GRAD", ctx->GetInputDim("PaddingData"));
  }
}

template <typename T>
struct SequenceConvGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const SeqConvShape s = ResolveAtRun(ctx);
    PL_ENFORCE(
        dout->dims() == DDim({s.rows, s.out_width}),
        errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape [%lld, %lld], "
                                "received %s",
                                ctx.Type(), static_cast<long long>(s.rows),
                                static_cast<long long>(s.out_width), dout->dims().ToString()));
    const std::vector<size_t>& lod = SequenceOffsets(ctx.Type(), "X", *x, 1);
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const int64_t cw = s.context_length * s.width;
    const T* padding = s.trainable ? ctx.Input("PaddingData")->template data<T>() : nullptr;
    if (DenseTensor* dfilter = ctx.Output("Filter@GRAD")) {
      const std::vector<T> col = WindowMatrix(s, lod, x->data<T>(), padding);
      DenseTensor g(filter->dims(), filter->dtype());
      T* gd = g.mutable_data<T>(ctx.GetPlace());
      if (g.numel() > 0) std::memset(gd, 0, sizeof(T) * g.numel());
      if (g.numel() > 0 && s.rows > 0) {
        math::Gemm<T>(dev, true, false, cw, s.out_width, s.rows, T(1), col.data(), cw,
                      dout->data<T>(), s.out_width, T(0), gd, s.out_width);
      }
      *dfilter = std::move(g);
    }
    DenseTensor* dx = ctx.Output("X@GRAD");
    // Untrainable padding is never read: its gradient is 0.
    DenseTensor* dpad = ctx.HasInput("PaddingData") ? ctx.Output("PaddingData@GRAD") : nullptr;
    if (dx == nullptr && dpad == nullptr) return;
    std::vector<T> dcol(static_cast<size_t>(s.rows * cw), T(0));
    if (!dcol.empty() && s.out_width > 0) {
      math::Gemm<T>(dev, false, true, s.rows, cw, s.out_width, T(1), dout->data<T>(), s.out_width,
                    filter->data<T>(), s.out_width, T(0), dcol.data(), cw);
    }
    DenseTensor gx(x->dims(), x->dtype());
    DenseTensor gpad(dpad != nullptr ? ctx.Input("PaddingData")->dims() : DDim{0, s.width},
                     x->dtype());
    T* gxd = gx.mutable_data<T>(ctx.GetPlace());
    T* gpd = gpad.mutable_data<T>(ctx.GetPlace());
    std::fill(gxd, gxd + gx.numel(), T(0));
    std::fill(gpd, gpd + gpad.numel(), T(0));
    ForEachWindowEntry(s, lod, [&](int64_t row, int j, const WindowSource& src) {
      T* to = (src.from_padding ? gpd : gxd) + src.row * s.width;
      const T* from = dcol.data() + row * cw + j * s.width;
      for (int64_t k = 0; k < s.width; ++k) to[k] += from[k];
    });
    if (dx != nullptr) {
      gx.set_lod(x->lod());
      *dx = std::move(gx);
    }
    if (dpad != nullptr) *dpad = std::move(gpad);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSequenceConvOp) {
  const framework::FusedGradDecl grad{{"X", "Filter", "PaddingData"},
                                      {"Out"},
                                      {"X", "Filter", "PaddingData"},
                                      R"DOC($$dFilter = Col^T dOut, \quad dCol = dOut \, Filter^T$$
with Col the [T, contextLength D] matrix of windows; each entry of dCol is added to the row
of X (or of PaddingData, when trainable) its window entry was read from. PaddingData@GRAD is
0 unless paddingTrainable is set.)DOC"};
  framework::RegisterOp<SequenceConvOp, SequenceConvOpMaker>(kOp)
      .InferShape(SequenceConvInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<SequenceConvKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(SequenceConvGradInferShape);
  RegisterPlainCpuFloatKernels<SequenceConvGradKernel>(kGradOp);

  framework::RegisterOp<SequenceConvOp, FusionSeqConvEltAddReluOpMaker>(kFusedOp)
      .InferShape(FusionSeqConvEltAddReluInferShape)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<FusionSeqConvEltAddReluKernel>(kFusedOp);
}

}  // namespace operators
}  // namespace paddle_like

// frame (paddle.signal.frame) slices a signal into overlapping frames; overlap_add
// (paddle.signal.overlap_add) sums frames back into a signal. Each one's backward is the other
// (fused, reading the forward input's shape).
#include <algorithm>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

class FrameOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The signal: [..., seq_length] (axis -1) or [seq_length, ...] (axis 0).");
    AddOutput("Out",
              "The frames: [..., frame_length, num_frames] (axis -1) or [num_frames, "
              "frame_length, ...] (axis 0).");
    AddAttr<int>("frame_length", "Samples per frame, in [1, seq_length].");
    AddAttr<int>("hop_length", "Samples between the starts of two frames (>= 1).");
    AddAttr<int>("axis", "The time axis: 0 or -1.").SetDefault(-1);
    AddComment(R"DOC(
Frames of a signal: with n = 1 + \lfloor (seq\_length - frame\_length) / hop\_length \rfloor,
$$Out[..., j, i] = X[..., i \cdot hop\_length + j] \quad (axis = -1), \qquad
Out[i, j, ...] = X[i \cdot hop\_length + j, ...] \quad (axis = 0)$$
for frames i < n and offsets j < frame_length. Samples past the last whole frame are left out.

Gradient, by the fused op frame_grad: the overlap-add of dOut, zero past the last frame.
)DOC");
  }
};

class OverlapAddOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X",
             "The frames: [..., frame_length, num_frames] (axis -1) or [num_frames, "
             "frame_length, ...] (axis 0).");
    AddOutput("Out", "The signal: [..., seq_length] (axis -1) or [seq_length, ...] (axis 0).");
    AddAttr<int>("hop_length", "Samples between the starts of two frames (>= 1).");
    AddAttr<int>("axis", "The time axis: 0 or -1.").SetDefault(-1);
    AddComment(R"DOC(
Overlap-add: with seq\_length = (num\_frames - 1) hop\_length + frame\_length,
$$Out[..., t] = \sum_{i, j \,:\, i \cdot hop\_length + j = t} X[..., j, i] \quad (axis = -1)$$
(axis = 0: X[i, j, ...] into Out[t, ...]); the frames are added in order. A hop longer
than the frames leaves zeros between them (PaddlePaddle refuses it).

Gradient, by the fused op overlap_add_grad: the frames of dOut.
)DOC");
  }
};

class SignalOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx,
                         ctx.inputs.count("X") && !ctx.inputs.count("Out@GRAD") ? "X" : "Out@GRAD");
  }
};

// A signal as [outer, seq, inner] around its time axis, and its frames as [outer, a, b, inner]
// with (a, b) = (frame_length, num_frames) for axis -1 and (num_frames, frame_length) for 0.
struct SignalLayout {
  bool last = true;  // axis -1.
  int64_t outer = 1, seq = 0, inner = 1, frame = 0, frames = 0, hop = 1;

  // Element offsets of sample t of line (o, r) and of element (frame i, offset j).
  int64_t Sample(int64_t o, int64_t t, int64_t r) const { return (o * seq + t) * inner + r; }
  int64_t Frame(int64_t o, int64_t i, int64_t j, int64_t r) const {
    return last ? (o * frame + j) * frames + i : ((o * frames + i) * frame + j) * inner + r;
  }
  DDim SignalDims(const DDim& frames_dims) const;
};

int CheckedAxis(const std::string& op, int axis, int hop) {
  PL_ENFORCE(
      axis == 0 || axis == -1,
      errors::InvalidArgument("op `%s` attribute `axis`: expected 0 or -1, received %d", op, axis));
  PL_ENFORCE(hop >= 1, errors::InvalidArgument(
                           "op `%s` attribute `hop_length`: expected >= 1, received %d", op, hop));
  return axis;
}

// frame: the layout of signal `x` (seq may be -1 at program-build time).
SignalLayout FrameLayout(const std::string& op, const DDim& x, int frame_length, int hop,
                         int axis) {
  CheckedAxis(op, axis, hop);
  PL_ENFORCE(x.size() >= 1,
             errors::InvalidArgument("op `%s` input `X`: expected rank >= 1, received %s", op,
                                     x.ToString()));
  SignalLayout l;
  l.last = axis == -1;
  l.hop = hop;
  l.seq = l.last ? x[x.size() - 1] : x[0];
  l.outer = l.last ? framework::Product(x, 0, x.size() - 1) : 1;
  l.inner = l.last ? 1 : framework::Product(x, 1, x.size());
  PL_ENFORCE(
      frame_length >= 1 && (l.seq < 0 || frame_length <= l.seq),
      errors::InvalidArgument("op `%s` attribute `frame_length`: expected a value in [1, "
                              "%lld] (X %s, axis %d), received %d",
                              op, static_cast<long long>(l.seq), x.ToString(), axis, frame_length));
  l.frame = frame_length;
  l.frames = l.seq < 0 ? -1 : 1 + (l.seq - frame_length) / hop;
  return l;
}

DDim FrameDims(const DDim& x, const SignalLayout& l) {
  std::vector<int64_t> d = x.ToVector();
  if (l.last) {
    d.pop_back();
    d.push_back(l.frame);
    d.push_back(l.frames);
  } else {
    d.erase(d.begin());
    d.insert(d.begin(), {l.frames, l.frame});
  }
  return DDim(d);
}

// overlap_add: the layout of frames `x`.
SignalLayout OverlapAddLayout(const std::string& op, const DDim& x, int hop, int axis) {
  CheckedAxis(op, axis, hop);
  PL_ENFORCE(x.size() >= 2,
             errors::InvalidArgument("op `%s` input `X`: expected rank >= 2 (frames), received %s",
                                     op, x.ToString()));
  SignalLayout l;
  l.last = axis == -1;
  l.hop = hop;
  const int r = x.size();
  l.frame = l.last ? x[r - 2] : x[1];
  l.frames = l.last ? x[r - 1] : x[0];
  l.outer = l.last ? framework::Product(x, 0, r - 2) : 1;
  l.inner = l.last ? 1 : framework::Product(x, 2, r);
  l.seq = l.frame < 0 || l.frames < 0 ? -1 : (l.frames - 1) * hop + l.frame;
  return l;
}

DDim SignalLayout::SignalDims(const DDim& frames_dims) const {
  std::vector<int64_t> d = frames_dims.ToVector();
  if (last) {
    d.resize(d.size() - 2);
    d.push_back(seq);
  } else {
    d.erase(d.begin(), d.begin() + 2);
    d.insert(d.begin(), seq);
  }
  return DDim(d);
}

// out = frames of `signal` (layout l).
template <typename T>
void Slice(const SignalLayout& l, const T* signal, T* out) {
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t i = 0; i < l.frames; ++i) {
      for (int64_t j = 0; j < l.frame; ++j) {
        for (int64_t r = 0; r < l.inner; ++r) {
          out[l.Frame(o, i, j, r)] = signal[l.Sample(o, i * l.hop + j, r)];
        }
      }
    }
  }
}

// signal = overlap-add of `frames` (layout l); signal holds outer * seq * inner elements.
template <typename T>
void AddUp(const SignalLayout& l, const T* frames, T* signal) {
  std::fill(signal, signal + l.outer * l.seq * l.inner, T(0));
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t i = 0; i < l.frames; ++i) {
      for (int64_t j = 0; j < l.frame; ++j) {
        for (int64_t r = 0; r < l.inner; ++r) {
          signal[l.Sample(o, i * l.hop + j, r)] += frames[l.Frame(o, i, j, r)];
        }
      }
    }
  }
}

// ---------------------------------------------------------------- frame

void FrameInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const SignalLayout l = FrameLayout(ctx->OpType(), x, ctx->Attr<int>("frame_length"),
                                     ctx->Attr<int>("hop_length"), ctx->Attr<int>("axis"));
  ctx->SetOutputDim("Out", FrameDims(x, l));
}

template <typename T>
struct FrameKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const SignalLayout l = FrameLayout(ctx.Type(), x->dims(), ctx.Attr<int>("frame_length"),
                                       ctx.Attr<int>("hop_length"), ctx.Attr<int>("axis"));
    DenseTensor out(FrameDims(x->dims(), l), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    if (out.numel() > 0) Slice(l, x->data<T>(), o);
    *ctx.Output("Out") = std::move(out);
  }
};

void FrameGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct FrameGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const SignalLayout l = FrameLayout(ctx.Type(), x->dims(), ctx.Attr<int>("frame_length"),
                                       ctx.Attr<int>("hop_length"), ctx.Attr<int>("axis"));
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Out", FrameDims(x->dims(), l));
    DenseTensor dx(x->dims(), dout->dtype());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    // X's whole length: samples past the last frame get 0.
    std::fill(d, d + dx.numel(), T(0));
    if (dout->numel() > 0) AddUp(l, dout->data<T>(), d);
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

// ---------------------------------------------------------------- overlap_add

void OverlapAddInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const SignalLayout l =
      OverlapAddLayout(ctx->OpType(), x, ctx->Attr<int>("hop_length"), ctx->Attr<int>("axis"));
  ctx->SetOutputDim("Out", l.SignalDims(x));
}

template <typename T>
struct OverlapAddKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const SignalLayout l =
        OverlapAddLayout(ctx.Type(), x->dims(), ctx.Attr<int>("hop_length"), ctx.Attr<int>("axis"));
    DenseTensor out(l.SignalDims(x->dims()), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    std::fill(o, o + out.numel(), T(0));
    if (x->numel() > 0) AddUp(l, x->data<T>(), o);
    *ctx.Output("Out") = std::move(out);
  }
};

void OverlapAddGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct OverlapAddGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const SignalLayout l =
        OverlapAddLayout(ctx.Type(), x->dims(), ctx.Attr<int>("hop_length"), ctx.Attr<int>("axis"));
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Out", l.SignalDims(x->dims()));
    DenseTensor dx(x->dims(), dout->dtype());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    if (dx.numel() > 0) Slice(l, dout->data<T>(), d);
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterFrameOverlapAddOps) {
  const framework::FusedGradDecl frame_grad{
      {"X"},
      {"Out"},
      {"X"},
      R"DOC($$dX[..., t] = \sum_{i, j \,:\, i \cdot hop\_length + j = t} dOut[..., j, i]$$
(0 past the last frame))DOC",
      {"X"}};
  framework::RegisterOp<SignalOp, FrameOpMaker>("frame")
      .InferShape(FrameInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(frame_grad));
  RegisterPlainCpuFloatKernels<FrameKernel>("frame");
  framework::RegisterFusedGradOp("frame", frame_grad).InferShape(FrameGradInferShape);
  RegisterPlainCpuFloatKernels<FrameGradKernel>("frame_grad");

  const framework::FusedGradDecl overlap_add_grad{
      {"X"},
      {"Out"},
      {"X"},
      R"DOC($$dX[..., j, i] = dOut[..., i \cdot hop\_length + j]$$)DOC",
      {"X"}};
  framework::RegisterOp<SignalOp, OverlapAddOpMaker>("overlap_add")
      .InferShape(OverlapAddInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(overlap_add_grad));
  RegisterPlainCpuFloatKernels<OverlapAddKernel>("overlap_add");
  framework::RegisterFusedGradOp("overlap_add", overlap_add_grad)
      .InferShape(OverlapAddGradInferShape);
  RegisterPlainCpuFloatKernels<OverlapAddGradKernel>("overlap_add_grad");
}

}  // namespace operators
}  // namespace paddle_like

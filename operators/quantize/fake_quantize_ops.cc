// The simulated-quantization ops of PaddleSlim's quantized programs, computed in floating
// point exactly as PaddlePaddle's CPU kernels compute them:
// - quantize_linear / dequantize_linear (the "QDQ" pairs of models exported since 2.3);
// - fake_quantize_dequantize_{abs_max, moving_average_abs_max} and
//   fake_channel_wise_quantize_dequantize_abs_max (quantization-aware training);
// - fake_quantize_{abs_max, moving_average_abs_max, range_abs_max},
//   fake_channel_wise_quantize_abs_max,
//   fake_dequantize_max_abs and fake_channel_wise_dequantize_max_abs (older int8 programs);
// - moving_average_abs_max_scale (an observer: Out = X, and the running scale).
//
// With scale s and qmax = 2^(bit_length - 1) - 1, a value is quantized as
//   round_type 0: clamp(round_half_even(qmax / s * x), -qmax - 1, qmax)
//   round_type 1: round_half_away(qmax / s * clip(x, -s, s))
// and dequantized as q * s / qmax. A scale at or below 1e-30 divides as s + 1e-6. Scales come
// from an input, or from max |X| (per tensor or per channel), or from a moving average of it
// (state = rate * state + 1, accum = rate * accum + max |X|, scale = accum / state) when
// training (is_test false). The quantize-dequantize ops pass the gradient straight through.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/data_transform.h"
#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

// ---------------------------------------------------------------- the arithmetic

template <typename T>
T InverseScale(T s) {
  return s <= static_cast<T>(1e-30) ? T(1) / (s + static_cast<T>(1e-6)) : T(1) / s;
}

// One value quantized with scale s (inv_s = InverseScale(s)), in PaddlePaddle's order of
// operations: (qmax * inv_s) * x.
template <typename T>
T Quantize(T x, T s, T inv_s, T qmax, int round_type) {
  if (round_type == 0) {
    const T q = std::nearbyint(qmax * inv_s * x);  // Ties to even.
    return std::min(std::max(q, -qmax - T(1)), qmax);
  }
  const T clipped = x < -s ? -s : (x > s ? s : x);
  return std::round(qmax * inv_s * clipped);  // Ties away from zero.
}

// X seen as [outer, channels, inner] around `axis` (axis < 0: one channel, the whole tensor).
struct ChannelView {
  int64_t outer = 1, channels = 1, inner = 1;
};

ChannelView ChannelsOf(const std::string& op, const DDim& dims, int axis) {
  ChannelView v;
  if (axis < 0) {
    v.inner = dims.numel();
    return v;
  }
  PL_ENFORCE(axis < dims.size(),
             errors::InvalidArgument("op `%s` attribute `quant_axis`: expected a dim of input "
                                     "`X` %s, received %d",
                                     op, dims.ToString(), axis));
  for (int i = 0; i < axis; ++i) v.outer *= dims[i];
  v.channels = dims[axis];
  for (int i = axis + 1; i < dims.size(); ++i) v.inner *= dims[i];
  return v;
}

// fn(channel, flat index) for every element.
template <typename Fn>
void ForEachElement(const ChannelView& v, Fn&& fn) {
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t c = 0; c < v.channels; ++c) {
      const int64_t base = (o * v.channels + c) * v.inner;
      for (int64_t i = 0; i < v.inner; ++i) fn(c, base + i);
    }
  }
}

// max |x| of each channel.
template <typename T>
std::vector<T> AbsMaxPerChannel(const T* x, const ChannelView& v) {
  std::vector<T> m(static_cast<size_t>(v.channels), T(0));
  ForEachElement(v, [&](int64_t c, int64_t i) { m[c] = std::max(m[c], std::abs(x[i])); });
  return m;
}

int QmaxOf(const std::string& op, int bit_length) {
  PL_ENFORCE(bit_length >= 1 && bit_length <= 16,
             errors::InvalidArgument("op `%s` attribute `bit_length`: expected a value in [1, "
                                     "16], received %d",
                                     op, bit_length));
  return (1 << (bit_length - 1)) - 1;
}

void CheckRoundType(const std::string& op, int round_type) {
  PL_ENFORCE(round_type == 0 || round_type == 1,
             errors::InvalidArgument("op `%s` attribute `round_type`: expected 0 (ties to even) "
                                     "or 1 (ties away from zero), received %d",
                                     op, round_type));
}

// Out = Quantize(X) per channel (dequantized back when `dequantize`), with the given scales.
template <typename T>
void QuantizeTensor(const T* x, const ChannelView& v, const std::vector<T>& scales, T qmax,
                    int round_type, bool dequantize, T* out) {
  std::vector<T> inv(scales.size());
  for (size_t c = 0; c < scales.size(); ++c) inv[c] = InverseScale(scales[c]);
  ForEachElement(v, [&](int64_t c, int64_t i) {
    const T q = Quantize(x[i], scales[c], inv[c], qmax, round_type);
    out[i] = dequantize ? q * scales[c] / qmax : q;
  });
}

// The scale values of a tensor, as T, with the count checked.
template <typename T>
std::vector<T> ScaleValues(const ExecutionContext& ctx, const char* slot, const DenseTensor& held,
                           int64_t want) {
  // An output's held scales are not moved to the kernel's place as inputs are: in a GPU
  // program they may still be in device memory.
  const DenseTensor s = framework::OnCpu(held);
  PL_ENFORCE(
      s.numel() == want,
      errors::InvalidArgument("op `%s` input `%s`: expected %lld scale value(s), received "
                              "shape %s",
                              ctx.Type(), slot, static_cast<long long>(want), s.dims().ToString()));
  std::vector<T> out(static_cast<size_t>(want));
  platform::VisitDataType(s.dtype(), [&](auto tag) {
    using S = decltype(tag);
    if constexpr (std::is_arithmetic_v<S>) {
      const S* p = s.data<S>();
      for (int64_t i = 0; i < want; ++i) out[i] = static_cast<T>(p[i]);
    } else {
      PL_THROW(
          errors::InvalidArgument("op `%s` input `%s`: expected a float or integer scale, "
                                  "received %s",
                                  ctx.Type(), slot, DataTypeName(s.dtype())));
    }
  });
  return out;
}

// A 1-element tensor of `value`.
template <typename T>
DenseTensor Scalar(T value, const platform::Place& place) {
  DenseTensor t(DDim{1}, platform::ToDataType<T>());
  *t.mutable_data<T>(place) = value;
  return t;
}

template <typename T>
DenseTensor FromVector(const std::vector<T>& values, const platform::Place& place) {
  DenseTensor t(DDim{static_cast<int64_t>(values.size())}, platform::ToDataType<T>());
  std::copy(values.begin(), values.end(), t.mutable_data<T>(place));
  return t;
}

// Training's moving-average scale: updates OutState, OutAccum and OutScale from the dispensable
// InState / InAccum (0 when absent) and returns the new scale.
template <typename T>
T MovingAverageScale(const ExecutionContext& ctx, T cur, float rate) {
  const auto read = [&](const char* slot) {
    const DenseTensor* t = ctx.Input(slot);
    return t == nullptr ? T(0) : ScaleValues<T>(ctx, slot, *t, 1)[0];
  };
  const T r = static_cast<T>(rate);
  const T state = r * read("InState") + T(1);
  const T accum = r * read("InAccum") + cur;
  const T scale = accum / state;
  if (DenseTensor* o = ctx.Output("OutState")) *o = Scalar(state, ctx.GetPlace());
  if (DenseTensor* o = ctx.Output("OutAccum")) *o = Scalar(accum, ctx.GetPlace());
  if (DenseTensor* o = ctx.Output("OutScale")) *o = Scalar(scale, ctx.GetPlace());
  return scale;
}

// Out = X * s_c / divisor in the scale's dtype, for any numeric X (PaddlePaddle's order of
// operations).
template <typename T, typename Scale>
void Dequantize(const ExecutionContext& ctx, const ChannelView& v, Scale&& scale_of, T divisor,
                DenseTensor* out) {
  const DenseTensor* x = ctx.Input("X");
  T* o = out->mutable_data<T>(ctx.GetPlace());
  platform::VisitDataType(x->dtype(), [&](auto tag) {
    using X = decltype(tag);
    if constexpr (std::is_arithmetic_v<X>) {
      const X* in = x->data<X>();
      ForEachElement(
          v, [&](int64_t c, int64_t i) { o[i] = static_cast<T>(in[i]) * scale_of(c) / divisor; });
    } else {
      PL_THROW(
          errors::InvalidArgument("op `%s` input `X`: expected float or integer values, "
                                  "received %s",
                                  ctx.Type(), DataTypeName(x->dtype())));
    }
  });
}

// ---------------------------------------------------------------- op classes and makers

// The kernel computes in X's floating dtype; a dequantize op with integer X (int8 weights)
// computes in its scale's dtype.
class QuantOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    if (ctx.inputs.count("Out@GRAD")) return InputDataType(ctx, "Out@GRAD");
    const DataType x = InputDataType(ctx, "X");
    if (platform::IsFloatingPoint(x)) return x;
    for (const char* slot : {"Scale", "Scales"}) {
      if (ctx.inputs.count(slot)) return InputDataType(ctx, slot);
    }
    return x;
  }
};

class QuantMakerBase : public OpProtoAndCheckerMaker {
 protected:
  void AddTrainingStateSlots() {
    AddInput("InAccum", "Running sum of max |X| (training).").AsDispensable();
    AddInput("InState", "Running count (training).").AsDispensable();
    AddOutput("OutState", "Updated count (training).").AsDispensable();
    AddOutput("OutAccum", "Updated sum (training).").AsDispensable();
  }
  void AddBitLength() {
    AddAttr<int>("bit_length", "Bits of the quantized values (qmax = 2^(bits - 1) - 1).")
        .SetDefault(8);
  }
  void AddRoundType(int def) {
    AddAttr<int>("round_type",
                 "0: round half to even, clamp to [-qmax - 1, qmax]; 1: clip "
                 "to [-s, s], round half away from zero.")
        .SetDefault(def)
        .InEnum({0, 1});
  }
};

constexpr char kArithmeticDoc[] = R"DOC(
With scale s and qmax = 2^{bit\_length - 1} - 1:
$$q = \begin{cases} \mathrm{clamp}(\mathrm{round\_even}(\frac{qmax}{s} x), -qmax - 1, qmax) & round\_type = 0 \\ \mathrm{round\_away}(\frac{qmax}{s} \mathrm{clip}(x, -s, s)) & round\_type = 1 \end{cases}, \qquad x' = \frac{q \cdot s}{qmax}$$
A scale at or below 1e-30 divides as s + 1e-6.
)DOC";

// quantize_linear and dequantize_linear.
template <bool kQuantize>
class LinearQuantMaker : public QuantMakerBase {
 public:
  void Make() override {
    AddInput("X", kQuantize ? "The values to quantize." : "The quantized values (float or int8).");
    AddInput("Scale", "One scale, or one per channel along quant_axis.");
    AddInput("ZeroPoint", "Zero points (symmetric quantization: not read).").AsDispensable();
    AddTrainingStateSlots();
    AddOutput("Y", kQuantize ? "The quantized values (as floats), X's shape."
                             : "The dequantized values, X's shape, in Scale's dtype.");
    AddOutput("OutScale", "The scale used (training).").AsDispensable();
    AddAttr<int>("quant_axis", "The channel dim of per-channel scales; -1: one scale.")
        .SetDefault(0);
    AddBitLength();
    AddAttr<int>("qmin", "Lowest quantized value (the kernels clamp to -qmax - 1).")
        .SetDefault(-128);
    AddAttr<int>("qmax",
                 "Highest quantized value; with bit_length other than 8 and the "
                 "default 127, 2^(bit_length - 1) - 1 (programs saved before qmax).")
        .SetDefault(127);
    AddRoundType(0);
    AddAttr<bool>("is_test", "Use Scale; otherwise compute it from X (training).").SetDefault(true);
    AddAttr<bool>("only_observer", "Y = X (only the scale is tracked).").SetDefault(false);
    if (kQuantize) {
      AddComment(std::string(R"DOC(
quantize_linear: $$Y = q(X)$$ per tensor (quant_axis < 0) or per channel.
)DOC") + kArithmeticDoc +
                 R"DOC(
When training (is_test false) the scale is max |X| per channel, or per tensor its moving
average (rate 0.9), written to OutScale.
)DOC");
    } else {
      AddComment(R"DOC(
dequantize_linear: $$Y = \frac{X \cdot s}{qmax}$$ per tensor (quant_axis < 0) or per channel,
qmax as in quantize_linear. X may hold int8 values.
)DOC");
    }
  }
};

// Effective qmax of the linear ops: `qmax`, or bit_length's when a program predating qmax
// left it at its default.
int LinearQmax(const ExecutionContext& ctx) {
  const int bits = ctx.Attr<int>("bit_length");
  const int from_bits = QmaxOf(ctx.Type(), bits);
  const int qmax = ctx.Attr<int>("qmax");
  if (qmax == 127 && bits != 8) return from_bits;
  PL_ENFORCE(qmax > 0, errors::InvalidArgument("op `%s` attribute `qmax`: expected a positive "
                                               "value, received %d",
                                               ctx.Type(), qmax));
  return qmax;
}

// ---------------------------------------------------------------- shape inference

void SameAsXInferShape(InferShapeContext* ctx, const char* out) {
  ctx->RequireInput("X");
  ctx->SetOutputDim(out, ctx->GetInputDim("X"));
  ctx->ShareLoD("X", out);
}

void ScalarStateInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"OutState", "OutAccum"}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDim(slot, DDim{1});
  }
}

// ---------------------------------------------------------------- kernels

template <bool kQuantize>
struct LinearQuantKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x = ctx.Input("X");
      const int axis = ctx.Attr<int>("quant_axis");
      const int round_type = ctx.Attr<int>("round_type");
      CheckRoundType(ctx.Type(), round_type);
      const T qmax = static_cast<T>(LinearQmax(ctx));
      const ChannelView v = ChannelsOf(ctx.Type(), x->dims(), axis);
      DenseTensor y(x->dims(), kQuantize ? x->dtype() : platform::ToDataType<T>());
      y.set_lod(x->lod());
      if (ctx.Attr<bool>("only_observer")) {
        CopyTensor(*x, ctx.GetPlace(), &y);
        y.set_lod(x->lod());
        *ctx.Output("Y") = std::move(y);
        return;
      }
      if constexpr (kQuantize) {
        T* out = y.mutable_data<T>(ctx.GetPlace());
        const T* in = x->data<T>();
        std::vector<T> scales;
        if (ctx.Attr<bool>("is_test")) {
          scales = ScaleValues<T>(ctx, "Scale", *ctx.Input("Scale"), v.channels);
        } else if (axis < 0) {
          scales = {MovingAverageScale(ctx, AbsMaxPerChannel(in, v)[0], 0.9f)};
        } else {
          scales = AbsMaxPerChannel(in, v);
          if (DenseTensor* o = ctx.Output("OutScale")) *o = FromVector(scales, ctx.GetPlace());
        }
        QuantizeTensor(in, v, scales, qmax, round_type, false, out);
      } else {
        const std::vector<T> scales = ScaleValues<T>(ctx, "Scale", *ctx.Input("Scale"), v.channels);
        Dequantize<T>(
            ctx, v, [&](int64_t c) { return scales[c]; }, qmax, &y);
      }
      *ctx.Output("Y") = std::move(y);
    }
  };
};

// The fake quantize ops with one scale per tensor: abs_max (the scale from X) and
// moving_average_abs_max (InScale when is_test, else the moving average).
template <bool kMovingAverage, bool kDequantize>
struct TensorQuantKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x = ctx.Input("X");
      const int round_type = ctx.Attr<int>("round_type");
      CheckRoundType(ctx.Type(), round_type);
      const T qmax = static_cast<T>(QmaxOf(ctx.Type(), ctx.Attr<int>("bit_length")));
      const ChannelView v = ChannelsOf(ctx.Type(), x->dims(), -1);
      const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
      T scale;
      if (kMovingAverage && ctx.Attr<bool>("is_test")) {
        scale = ScaleValues<T>(ctx, "InScale", *ctx.Input("InScale"), 1)[0];
        // OutScale is usually InScale's own variable; otherwise it gets a copy.
        if (ctx.OutputVar("OutScale") != ctx.InputVar("InScale")) {
          if (DenseTensor* o = ctx.Output("OutScale")) *o = Scalar(scale, ctx.GetPlace());
        }
      } else if (kMovingAverage) {
        scale = MovingAverageScale(ctx, AbsMaxPerChannel(in, v)[0], ctx.Attr<float>("moving_rate"));
      } else {
        scale = AbsMaxPerChannel(in, v)[0];
        if (DenseTensor* o = ctx.Output("OutScale")) *o = Scalar(scale, ctx.GetPlace());
      }
      DenseTensor out(x->dims(), x->dtype());
      out.set_lod(x->lod());
      QuantizeTensor(in, v, {scale}, qmax, round_type, kDequantize,
                     out.mutable_data<T>(ctx.GetPlace()));
      *ctx.Output("Out") = std::move(out);
    }
  };
};

// fake_quantize_range_abs_max: one scale per tensor, InScale when is_test; when training, the
// largest max |X| of the last window_size steps (PaddlePaddle's FindRangeAbsMax). The window
// is OutScales' variable, written at Iter % window_size; the scale is recomputed over the
// window only when the value leaving it was the current scale.
template <typename T>
struct RangeAbsMaxKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const DenseTensor* x = ctx.Input("X");
    const int round_type = ctx.Attr<int>("round_type");
    CheckRoundType(op, round_type);
    const T qmax = static_cast<T>(QmaxOf(op, ctx.Attr<int>("bit_length")));
    const ChannelView v = ChannelsOf(op, x->dims(), -1);
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    const T last = ScaleValues<T>(ctx, "InScale", *ctx.Input("InScale"), 1)[0];
    T scale = last;
    if (!ctx.Attr<bool>("is_test")) {
      const int window_size = ctx.Attr<int>("window_size");
      PL_ENFORCE(window_size > 0,
                 errors::InvalidArgument("op `%s` attribute `window_size`: expected a positive "
                                         "count, received %d",
                                         op, window_size));
      PL_ENFORCE(ctx.HasInput("Iter"),
                 errors::NotFound("op `%s` input `Iter`: required when training (is_test "
                                  "false)",
                                  op));
      const DenseTensor iter_tensor = framework::OnCpu(*ctx.Input("Iter"));
      PL_ENFORCE(iter_tensor.numel() == 1 && iter_tensor.dtype() == DataType::INT64,
                 errors::InvalidArgument("op `%s` input `Iter`: expected one int64 step, "
                                         "received %s of shape %s",
                                         op, DataTypeName(iter_tensor.dtype()),
                                         iter_tensor.dims().ToString()));
      const int64_t it = iter_tensor.data<int64_t>()[0];
      // The window so far: OutScales' values when it holds a window of this size, else zeros.
      std::vector<T> window(static_cast<size_t>(window_size), T(0));
      const framework::Variable* held = ctx.OutputVar("OutScales");
      if (held != nullptr && held->GetIf<DenseTensor>() != nullptr &&
          held->GetIf<DenseTensor>()->initialized() &&
          held->GetIf<DenseTensor>()->numel() == window_size) {
        window = ScaleValues<T>(ctx, "OutScales", *held->GetIf<DenseTensor>(), window_size);
      }
      const T cur = AbsMaxPerChannel(in, v)[0];
      const size_t slot = static_cast<size_t>(((it % window_size) + window_size) % window_size);
      const T removed = window[slot];
      window[slot] = cur;
      if (scale < cur) {
        scale = cur;
      } else if (std::abs(removed - scale) < T(1e-6)) {
        const int64_t size = std::min<int64_t>(std::max<int64_t>(it, 1), window_size);
        scale = *std::max_element(window.begin(), window.begin() + size);
      }
      if (DenseTensor* o = ctx.Output("OutScales")) *o = FromVector(window, ctx.GetPlace());
    }
    if (ctx.OutputVar("OutScale") != ctx.InputVar("InScale")) {
      if (DenseTensor* o = ctx.Output("OutScale")) *o = Scalar(scale, ctx.GetPlace());
    } else if (!ctx.Attr<bool>("is_test")) {
      *ctx.Output("OutScale") = Scalar(scale, ctx.GetPlace());
    }
    DenseTensor out(x->dims(), x->dtype());
    out.set_lod(x->lod());
    QuantizeTensor(in, v, {scale}, qmax, round_type, false, out.mutable_data<T>(ctx.GetPlace()));
    *ctx.Output("Out") = std::move(out);
  }
};

// fake_channel_wise_quantize(_dequantize)_abs_max: one scale per channel of quant_axis (0 or
// 1), from X; fake_channel_wise_quantize_abs_max with is_test reads the scales OutScale holds.
template <bool kDequantize>
struct ChannelQuantKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x = ctx.Input("X");
      const int round_type = ctx.Attr<int>("round_type");
      CheckRoundType(ctx.Type(), round_type);
      const int axis = ctx.Attr<int>("quant_axis");
      PL_ENFORCE(axis == 0 || axis == 1,
                 errors::InvalidArgument("op `%s` attribute `quant_axis`: expected 0 or 1, "
                                         "received %d",
                                         ctx.Type(), axis));
      const T qmax = static_cast<T>(QmaxOf(ctx.Type(), ctx.Attr<int>("bit_length")));
      const ChannelView v = ChannelsOf(ctx.Type(), x->dims(), axis);
      const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
      std::vector<T> scales;
      if (!kDequantize && ctx.HasAttr("is_test") && ctx.Attr<bool>("is_test")) {
        const framework::Variable* held = ctx.OutputVar("OutScale");
        PL_ENFORCE(held != nullptr && held->GetIf<DenseTensor>() != nullptr &&
                       held->GetIf<DenseTensor>()->initialized(),
                   errors::PreconditionNotMet("op `%s` output `OutScale`: with is_test the "
                                              "scales are read from it, but variable `%s` holds "
                                              "none",
                                              ctx.Type(), ctx.OutputName("OutScale")));
        scales = ScaleValues<T>(ctx, "OutScale", *held->GetIf<DenseTensor>(), v.channels);
      } else {
        scales = AbsMaxPerChannel(in, v);
        if (DenseTensor* o = ctx.Output("OutScale")) *o = FromVector(scales, ctx.GetPlace());
      }
      DenseTensor out(x->dims(), x->dtype());
      out.set_lod(x->lod());
      QuantizeTensor(in, v, scales, qmax, round_type, kDequantize,
                     out.mutable_data<T>(ctx.GetPlace()));
      *ctx.Output("Out") = std::move(out);
    }
  };
};

template <typename T>
struct FakeDequantizeKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const T s = ScaleValues<T>(ctx, "Scale", *ctx.Input("Scale"), 1)[0];
    const T max_range = static_cast<T>(ctx.Attr<float>("max_range"));
    PL_ENFORCE(max_range > T(0),
               errors::InvalidArgument("op `%s` attribute `max_range`: expected "
                                       "a positive value, received %g",
                                       ctx.Type(), static_cast<double>(max_range)));
    DenseTensor out(x->dims(), platform::ToDataType<T>());
    out.set_lod(x->lod());
    Dequantize<T>(
        ctx, ChannelsOf(ctx.Type(), x->dims(), -1), [s](int64_t) { return s; }, max_range, &out);
    *ctx.Output("Out") = std::move(out);
  }
};

// fake_channel_wise_dequantize_max_abs: one scale tensor (per channel of quant_axis 0 or 1)
// or two (per channel of dim x_num_col_dims, times one overall scale), each with its bits.
template <typename T>
struct ChannelDequantizeKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const std::vector<const DenseTensor*> scales = ctx.MultiInput("Scales");
    const std::vector<int> bits = ctx.Attr<std::vector<int>>("quant_bits");
    PL_ENFORCE((scales.size() == 1 || scales.size() == 2) && bits.size() >= scales.size(),
               errors::InvalidArgument("op `%s` input `Scales`: expected 1 or 2 tensors with as "
                                       "many `quant_bits`, received %zu and %zu",
                                       ctx.Type(), scales.size(), bits.size()));
    T max_range = T(1);
    for (size_t k = 0; k < scales.size(); ++k)
      max_range *= static_cast<T>(QmaxOf(ctx.Type(), bits[k]));
    DenseTensor out(x->dims(), platform::ToDataType<T>());
    out.set_lod(x->lod());
    if (scales.size() == 1) {
      const int axis = ctx.Attr<int>("quant_axis");
      PL_ENFORCE(axis == 0 || axis == 1,
                 errors::InvalidArgument("op `%s` attribute `quant_axis`: expected 0 or 1, "
                                         "received %d",
                                         ctx.Type(), axis));
      const ChannelView v = ChannelsOf(ctx.Type(), x->dims(), axis);
      const std::vector<T> s = ScaleValues<T>(ctx, "Scales", *scales[0], v.channels);
      Dequantize<T>(
          ctx, v, [&](int64_t c) { return s[c]; }, max_range, &out);
    } else {
      const int col = ctx.Attr<int>("x_num_col_dims");
      // The channel dim: x_num_col_dims when above 1, else dim 1.
      const int axis = col > 1 ? col : 1;
      const ChannelView v = ChannelsOf(ctx.Type(), x->dims(), axis);
      const std::vector<T> s = ScaleValues<T>(ctx, "Scales", *scales[0], v.channels);
      const T overall = ScaleValues<T>(ctx, "Scales", *scales[1], 1)[0];
      Dequantize<T>(
          ctx, v, [&](int64_t c) { return s[c] * overall; }, max_range, &out);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct ObserverKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    if (!ctx.Attr<bool>("is_test")) {
      const ChannelView v = ChannelsOf(ctx.Type(), x->dims(), -1);
      MovingAverageScale(ctx, AbsMaxPerChannel(x->numel() > 0 ? x->data<T>() : nullptr, v)[0],
                         ctx.Attr<float>("moving_rate"));
    }
    if (DenseTensor* out = ctx.Output("Out")) {
      if (out != x) {
        DenseTensor copy;
        CopyTensor(*x, ctx.GetPlace(), &copy);
        copy.set_lod(x->lod());
        *out = std::move(copy);
      }
    }
  }
};

// The straight-through estimator: dX = dOut.
void StraightThroughGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp("scale", {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
           {{"scale", 1.0f}, {"bias", 0.0f}, {"bias_after_scale", true}});
}

// ---------------------------------------------------------------- the fake ops' makers

template <bool kMovingAverage, bool kDequantize>
class TensorQuantMaker : public QuantMakerBase {
 public:
  void Make() override {
    AddInput("X", "The values.");
    if (kMovingAverage) {
      AddInput("InScale", "The scale (read when is_test).");
      AddTrainingStateSlots();
    }
    AddOutput("Out", kDequantize ? "X quantized and dequantized, X's shape."
                                 : "X quantized (as floats), X's shape.");
    AddOutput("OutScale", "The scale used.");
    if (kMovingAverage) {
      AddAttr<float>("moving_rate", "Decay of the moving average (training).").SetDefault(0.9f);
      AddAttr<bool>("is_test", "Use InScale; otherwise update the moving average.")
          .SetDefault(false);
    }
    AddBitLength();
    AddRoundType(1);
    const std::string scale =
        kMovingAverage ? "s = InScale (is_test) or the moving average of max |X|" : "s = max |X|";
    AddComment(
        std::string("Simulated quantization with one scale per tensor, ") + scale +
        ":\n$$Out = " + (kDequantize ? "x'" : "q") + "$$\n" + kArithmeticDoc +
        (kDequantize ? "\nGradient (straight through): $$dX = dOut$$\n" : "\nNo gradient.\n"));
  }
};

template <bool kDequantize>
class ChannelQuantMaker : public QuantMakerBase {
 public:
  void Make() override {
    AddInput("X", "The values (weights).");
    AddOutput("Out", kDequantize ? "X quantized and dequantized, X's shape."
                                 : "X quantized (as floats), X's shape.");
    AddOutput("OutScale", "max |X| of each channel along quant_axis.");
    AddBitLength();
    AddRoundType(1);
    AddAttr<int>("quant_axis", "The channel dim, 0 or 1.").SetDefault(0).InEnum({0, 1});
    if (!kDequantize) {
      AddAttr<bool>("is_test", "Read the scales OutScale holds instead of computing them.")
          .SetDefault(false);
    }
    AddComment(
        std::string(
            "Simulated quantization with one scale per channel, s_c = max |X_c|:\n$$Out = ") +
        (kDequantize ? "x'" : "q") + "$$\n" + kArithmeticDoc +
        (kDequantize ? "\nGradient (straight through): $$dX = dOut$$\n" : "\nNo gradient.\n"));
  }
};

class FakeDequantizeMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The quantized values (float or integer).");
    AddInput("Scale", "One scale.");
    AddOutput("Out", "X's shape, in Scale's dtype.");
    AddAttr<float>("max_range", "The quantized range, e.g. 127.");
    AddComment(R"DOC(
Dequantization with one scale: $$Out = \frac{X \cdot Scale}{max\_range}$$
)DOC");
  }
};

class ChannelDequantizeMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The quantized values (float or integer).");
    AddInput("Scales", "One per-channel scale tensor, or that and a 1-element overall scale.")
        .AsDuplicable();
    AddOutput("Out", "X's shape, in the scales' dtype.");
    AddAttr<std::vector<int>>("quant_bits", "Bits of each scale (qmax = 2^(bits - 1) - 1).")
        .SetDefault({8});
    AddAttr<int>("quant_axis", "The channel dim with one scale tensor, 0 or 1.").SetDefault(0);
    AddAttr<int>("x_num_col_dims", "With two scales, the channel dim (1 when <= 1).").SetDefault(1);
    AddComment(R"DOC(
Per-channel dequantization. One scale tensor (channels along quant_axis):
$$Out = \frac{X \cdot s_c}{qmax_0}$$
two (channels along x_num_col_dims, and an overall scale t):
$$Out = \frac{X \cdot s_c \cdot t}{qmax_0 \, qmax_1}$$
)DOC");
  }
};

class RangeAbsMaxMaker : public QuantMakerBase {
 public:
  void Make() override {
    AddInput("X", "The values.");
    AddInput("InScale", "The last scale (the scale itself when is_test).");
    AddInput("Iter", "int64 [1]: the training step, which picks the window's slot (training).")
        .AsDispensable();
    AddOutput("Out", "X quantized (as floats), X's shape.");
    AddOutput("OutScale", "The scale used.");
    AddOutput("OutScales",
              "[window_size]: the window of recent max |X| (training; read and "
              "written).")
        .AsDispensable();
    AddAttr<int>("window_size", "Steps the training scale looks back over.").SetDefault(10000);
    AddBitLength();
    AddAttr<bool>("is_test", "Use InScale; otherwise update the window.").SetDefault(false);
    AddRoundType(1);
    AddComment(std::string("Simulated quantization with one scale per tensor: s = InScale when "
                           "is_test, else the largest max |X| over the last window_size "
                           "steps:\n$$Out = q$$\n") +
               kArithmeticDoc + "\nNo gradient.\n");
  }
};

class ObserverMaker : public QuantMakerBase {
 public:
  void Make() override {
    AddInput("X", "The values observed.");
    AddTrainingStateSlots();
    AddOutput("Out", "X, unchanged.").AsDispensable();
    AddOutput("OutScale", "The moving average of max |X| (training).");
    AddAttr<float>("moving_rate", "Decay of the moving average.").SetDefault(0.9f);
    AddAttr<bool>("is_test", "Only copy X (the scale is left as it is).").SetDefault(false);
    AddComment(R"DOC(
An observer: $$Out = X$$ and, when training, OutScale = accum / state with
state = rate * state + 1 and accum = rate * accum + max |X|.

Gradient (straight through): $$dX = dOut$$
)DOC");
  }
};

void QuantInferVarType(framework::VarTypeInferenceContext* ctx, const char* out,
                       const char* dtype_from) {
  ctx->SetOutputDataType(out, ctx->GetInputDataType(dtype_from));
}

}  // namespace

PL_REGISTER_OPS(RegisterFakeQuantizeOps) {
  framework::RegisterOp<QuantOp, LinearQuantMaker<true>>("quantize_linear")
      .InferShape([](InferShapeContext* ctx) {
        SameAsXInferShape(ctx, "Y");
        ScalarStateInferShape(ctx);
      });
  RegisterPlainCpuFloatKernels<LinearQuantKernel<true>::Kernel>("quantize_linear");
  framework::RegisterOp<QuantOp, LinearQuantMaker<false>>("dequantize_linear")
      .InferShape([](InferShapeContext* ctx) { SameAsXInferShape(ctx, "Y"); })
      .InferVarType(
          [](framework::VarTypeInferenceContext* ctx) { QuantInferVarType(ctx, "Y", "Scale"); });
  RegisterPlainCpuFloatKernels<LinearQuantKernel<false>::Kernel>("dequantize_linear");

  const auto tensor_shape = [](InferShapeContext* ctx) {
    SameAsXInferShape(ctx, "Out");
    if (ctx->HasOutput("OutScale")) ctx->SetOutputDim("OutScale", DDim{1});
    ScalarStateInferShape(ctx);
  };
  framework::RegisterOp<QuantOp, TensorQuantMaker<true, true>>(
      "fake_quantize_dequantize_moving_average_abs_max")
      .InferShape(tensor_shape)
      .GradOpMaker(StraightThroughGradMaker);
  RegisterPlainCpuFloatKernels<TensorQuantKernel<true, true>::Kernel>(
      "fake_quantize_dequantize_moving_average_abs_max");
  framework::RegisterOp<QuantOp, TensorQuantMaker<true, false>>(
      "fake_quantize_moving_average_abs_max")
      .InferShape(tensor_shape);
  RegisterPlainCpuFloatKernels<TensorQuantKernel<true, false>::Kernel>(
      "fake_quantize_moving_average_abs_max");
  framework::RegisterOp<QuantOp, TensorQuantMaker<false, true>>("fake_quantize_dequantize_abs_max")
      .InferShape(tensor_shape)
      .GradOpMaker(StraightThroughGradMaker);
  RegisterPlainCpuFloatKernels<TensorQuantKernel<false, true>::Kernel>(
      "fake_quantize_dequantize_abs_max");
  framework::RegisterOp<QuantOp, TensorQuantMaker<false, false>>("fake_quantize_abs_max")
      .InferShape(tensor_shape);
  framework::RegisterOp<QuantOp, RangeAbsMaxMaker>("fake_quantize_range_abs_max")
      .InferShape([](InferShapeContext* ctx) {
        SameAsXInferShape(ctx, "Out");
        if (ctx->HasOutput("OutScale")) ctx->SetOutputDim("OutScale", DDim{1});
        if (ctx->HasOutput("OutScales")) {
          ctx->SetOutputDim("OutScales", DDim{ctx->Attr<int>("window_size")});
        }
      });
  RegisterPlainCpuFloatKernels<RangeAbsMaxKernel>("fake_quantize_range_abs_max");
  RegisterPlainCpuFloatKernels<TensorQuantKernel<false, false>::Kernel>("fake_quantize_abs_max");

  const auto channel_shape = [](InferShapeContext* ctx) {
    SameAsXInferShape(ctx, "Out");
    const DDim x = ctx->GetInputDim("X");
    const int axis = ctx->Attr<int>("quant_axis");
    if (ctx->HasOutput("OutScale") && axis < x.size()) {
      ctx->SetOutputDim("OutScale", DDim{x[axis]});
    }
  };
  framework::RegisterOp<QuantOp, ChannelQuantMaker<true>>(
      "fake_channel_wise_quantize_dequantize_abs_max")
      .InferShape(channel_shape)
      .GradOpMaker(StraightThroughGradMaker);
  RegisterPlainCpuFloatKernels<ChannelQuantKernel<true>::Kernel>(
      "fake_channel_wise_quantize_dequantize_abs_max");
  framework::RegisterOp<QuantOp, ChannelQuantMaker<false>>("fake_channel_wise_quantize_abs_max")
      .InferShape(channel_shape)
      .Checkpoint("fake_channel_wise_quantize_abs_max with quant_axis",
                  framework::OpVersionDesc().NewAttr("quant_axis",
                                                     "the channel dim of the scales (0 or 1)", 0));
  RegisterPlainCpuFloatKernels<ChannelQuantKernel<false>::Kernel>(
      "fake_channel_wise_quantize_abs_max");

  framework::RegisterOp<QuantOp, FakeDequantizeMaker>("fake_dequantize_max_abs")
      .InferShape([](InferShapeContext* ctx) { SameAsXInferShape(ctx, "Out"); })
      .InferVarType(
          [](framework::VarTypeInferenceContext* ctx) { QuantInferVarType(ctx, "Out", "Scale"); });
  RegisterPlainCpuFloatKernels<FakeDequantizeKernel>("fake_dequantize_max_abs");
  framework::RegisterOp<QuantOp, ChannelDequantizeMaker>("fake_channel_wise_dequantize_max_abs")
      .InferShape([](InferShapeContext* ctx) { SameAsXInferShape(ctx, "Out"); })
      .InferVarType(
          [](framework::VarTypeInferenceContext* ctx) { QuantInferVarType(ctx, "Out", "Scales"); });
  RegisterPlainCpuFloatKernels<ChannelDequantizeKernel>("fake_channel_wise_dequantize_max_abs");

  framework::RegisterOp<QuantOp, ObserverMaker>("moving_average_abs_max_scale")
      .InferShape([](InferShapeContext* ctx) {
        ctx->RequireInput("X");
        if (ctx->HasOutput("Out")) {
          ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
          ctx->ShareLoD("X", "Out");
        }
        if (ctx->HasOutput("OutScale")) ctx->SetOutputDim("OutScale", DDim{1});
        ScalarStateInferShape(ctx);
      })
      .GradOpMaker(StraightThroughGradMaker)
      .Checkpoint("moving_average_abs_max_scale: Out left out of saved inference programs",
                  framework::OpVersionDesc().BugfixWithBehaviorChanged(
                      "output Out was removed, so that inference programs drop the op"))
      .Checkpoint("moving_average_abs_max_scale: Out again, dispensable",
                  framework::OpVersionDesc().NewOutput("Out", "X, unchanged"));
  RegisterPlainCpuFloatKernels<ObserverKernel>("moving_average_abs_max_scale");
}

}  // namespace operators
}  // namespace paddle_like

// The int8 conversions of PaddlePaddle's quantized inference programs (inference only: no
// gradient):
// - quantize, dequantize and requantize: the conversions that PaddlePaddle's int8 passes put
//   around its int8 kernels (there, oneDNN reorders), with a scale and an optional shift (a
//   zero point that makes the values unsigned);
// - dequantize_abs_max and dequantize_log: the weights of PaddleSlim's post-training
//   quantization stored as int8, linearly (X s / max_range) or through a table of 128 values.
// The arithmetic is in float; a quantized value is saturated to its type's range after rounding
// half to even (oneDNN's rounding).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

// v rounded half to even and saturated to Q's range.
template <typename Q>
Q Saturate(float v) {
  const float r = std::nearbyint(v);  // The default rounding mode: half to even.
  constexpr float lo = static_cast<float>(std::numeric_limits<Q>::min());
  constexpr float hi = static_cast<float>(std::numeric_limits<Q>::max());
  return static_cast<Q>(r < lo ? lo : (r > hi ? hi : r));
}

// Calls fn(const Q*) with X's values as int8 or uint8; InvalidArgumentError naming the op and
// slot for any other type.
template <typename Fn>
void VisitInt8(const std::string& op, const char* slot, const DenseTensor& x, Fn&& fn) {
  if (x.dtype() == DataType::INT8) {
    fn(x.data<int8_t>());
  } else if (x.dtype() == DataType::UINT8) {
    fn(x.data<uint8_t>());
  } else {
    PL_THROW(errors::InvalidArgument("op `%s` input `%s`: expected int8 or uint8, received %s", op,
                                     slot, platform::DataTypeName(x.dtype())));
  }
}

float PositiveScale(const ExecutionContext& ctx, const char* attr) {
  const float s = ctx.Attr<float>(attr);
  PL_ENFORCE(s > 0.0f && std::isfinite(s),
             errors::InvalidArgument("op `%s` attribute `%s`: expected a positive scale, "
                                     "received %g",
                                     ctx.Type(), attr, static_cast<double>(s)));
  return s;
}

// An op whose kernel is chosen by its float side: Input's type when it is floating point
// (quantize), else float32 (dequantize, requantize, the weight decoders).
class Int8ConversionOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    const char* slot = ctx.inputs.count("Input") ? "Input" : "X";
    const DataType t = InputDataType(ctx, slot);
    return platform::IsFloatingPoint(t) ? t : DataType::FLOAT32;
  }
};

// ---- quantize ----

class QuantizeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "Float values.");
    AddOutput("Output",
              "Input's quantized values: int8, or uint8 when shifted or "
              "non-negative.");
    AddAttr<bool>("is_negative_input",
                  "Whether Input may hold negative values (int8 output "
                  "when unshifted); else uint8.")
        .SetDefault(false);
    AddAttr<float>("Scale", "The scale s.").SetDefault(1.0f);
    AddAttr<float>("Shift", "The shift z (a zero point; 0 or in [0, 255]).").SetDefault(0.0f);
    AddAttr<std::string>("output_format",
                         "oneDNN's memory format of Output in PaddlePaddle; "
                         "no effect here (Output is row-major).")
        .SetDefault("NHWC");
    AddAttr<bool>("bfloat16", "Convert to bfloat16 instead (s and z unused).").SetDefault(false);
    AddComment(R"DOC(
$$Output = \mathrm{sat}(\mathrm{round}(Input \cdot s + z))$$
rounding half to even and saturating to int8 when Input may be negative and z = 0, else to
uint8. With bfloat16, Output is Input converted to bfloat16.
)DOC");
  }
};

DataType QuantizedType(bool bfloat16, bool negative, float shift) {
  if (bfloat16) return DataType::BFLOAT16;
  return negative && shift == 0.0f ? DataType::INT8 : DataType::UINT8;
}

template <typename T>
struct QuantizeKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* in = ctx.Input("Input");
    const float shift = ctx.Attr<float>("Shift");
    PL_ENFORCE(shift >= 0.0f && shift <= 255.0f,
               errors::InvalidArgument("op `%s` attribute `Shift`: expected a value in [0, 255], "
                                       "received %g",
                                       ctx.Type(), static_cast<double>(shift)));
    const DataType type =
        QuantizedType(ctx.Attr<bool>("bfloat16"), ctx.Attr<bool>("is_negative_input"), shift);
    DenseTensor out(in->dims(), type);
    out.set_lod(in->lod());
    const T* x = in->data<T>();
    const int64_t n = in->numel();
    if (type == DataType::BFLOAT16) {
      platform::bfloat16* o = out.mutable_data<platform::bfloat16>(ctx.GetPlace());
      for (int64_t i = 0; i < n; ++i) o[i] = platform::bfloat16(static_cast<float>(x[i]));
    } else {
      const float s = PositiveScale(ctx, "Scale");
      if (type == DataType::INT8) {
        int8_t* o = out.mutable_data<int8_t>(ctx.GetPlace());
        for (int64_t i = 0; i < n; ++i) o[i] = Saturate<int8_t>(static_cast<float>(x[i]) * s);
      } else {
        uint8_t* o = out.mutable_data<uint8_t>(ctx.GetPlace());
        for (int64_t i = 0; i < n; ++i) {
          o[i] = Saturate<uint8_t>(static_cast<float>(x[i]) * s + shift);
        }
      }
    }
    *ctx.Output("Output") = std::move(out);
  }
};

// ---- dequantize ----

class DequantizeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "int8 or uint8 values (or bfloat16).");
    AddOutput("Output", "float32 values.");
    AddAttr<float>("Scale", "The scale s.").SetDefault(1.0f);
    AddAttr<float>("Shift", "The shift z (a zero point).").SetDefault(0.0f);
    AddComment(R"DOC(
$$Output = (Input - z) / s$$
in float32; a bfloat16 Input is converted without s and z.
)DOC");
  }
};

struct DequantizeKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* in = ctx.Input("Input");
    DenseTensor out(in->dims(), DataType::FLOAT32);
    out.set_lod(in->lod());
    float* o = out.mutable_data<float>(ctx.GetPlace());
    const int64_t n = in->numel();
    if (in->dtype() == DataType::BFLOAT16) {
      const platform::bfloat16* x = in->data<platform::bfloat16>();
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<float>(x[i]);
    } else {
      const float s = PositiveScale(ctx, "Scale");
      const float z = ctx.Attr<float>("Shift");
      VisitInt8(ctx.Type(), "Input", *in, [&](auto* x) {
        for (int64_t i = 0; i < n; ++i) o[i] = (static_cast<float>(x[i]) - z) / s;
      });
    }
    *ctx.Output("Output") = std::move(out);
  }
};

// ---- requantize ----

class RequantizeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "int8 or uint8 values quantized with Scale_in and Shift_in.");
    AddOutput("Output",
              "The same values quantized with Scale_out and Shift_out: uint8 when "
              "Shift_out is not 0, else Input's type.");
    AddAttr<float>("Scale_in", "Input's scale s_in.").SetDefault(1.0f);
    AddAttr<float>("Scale_out", "Output's scale s_out.").SetDefault(1.0f);
    AddAttr<float>("Shift_in", "Input's shift z_in.").SetDefault(0.0f);
    AddAttr<float>("Shift_out", "Output's shift z_out.").SetDefault(0.0f);
    AddComment(R"DOC(
$$Output = \mathrm{sat}\left(\mathrm{round}\left((Input - z_{in}) \frac{s_{out}}{s_{in}} +
z_{out}\right)\right)$$
rounding half to even, saturating to Output's type.
)DOC");
  }
};

struct RequantizeKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* in = ctx.Input("Input");
    const float ratio = PositiveScale(ctx, "Scale_out") / PositiveScale(ctx, "Scale_in");
    const float z_in = ctx.Attr<float>("Shift_in"), z_out = ctx.Attr<float>("Shift_out");
    const DataType type = z_out != 0.0f ? DataType::UINT8 : in->dtype();
    DenseTensor out(in->dims(), type);
    out.set_lod(in->lod());
    const int64_t n = in->numel();
    VisitInt8(ctx.Type(), "Input", *in, [&](auto* x) {
      auto convert = [&](auto* o) {
        using Q = std::remove_pointer_t<decltype(o)>;
        for (int64_t i = 0; i < n; ++i) {
          o[i] = Saturate<Q>((static_cast<float>(x[i]) - z_in) * ratio + z_out);
        }
      };
      if (type == DataType::INT8) {
        convert(out.mutable_data<int8_t>(ctx.GetPlace()));
      } else {
        convert(out.mutable_data<uint8_t>(ctx.GetPlace()));
      }
    });
    *ctx.Output("Output") = std::move(out);
  }
};

// ---- dequantize_abs_max, dequantize_log ----

class DequantizeAbsMaxOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "int8 (or uint8) quantized values.");
    AddInput("Scale", "[1]: the scale s (the values' max |.| before quantization).");
    AddOutput("Out", "float32 values, X's shape.");
    AddAttr<float>("max_range", "The quantized range r (127 for 8 bits).");
    AddComment(R"DOC(
$$Out = X \cdot s / r$$
)DOC");
  }
};

struct DequantizeAbsMaxKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* scale = ctx.Input("Scale");
    PL_ENFORCE(scale->numel() == 1 && scale->dtype() == DataType::FLOAT32,
               errors::InvalidArgument("op `%s` input `Scale`: expected one float32 value, "
                                       "received %s of shape %s",
                                       ctx.Type(), platform::DataTypeName(scale->dtype()),
                                       scale->dims().ToString()));
    const float r = PositiveScale(ctx, "max_range");
    const float s = scale->data<float>()[0];
    DenseTensor out(x->dims(), DataType::FLOAT32);
    out.set_lod(x->lod());
    float* o = out.mutable_data<float>(ctx.GetPlace());
    VisitInt8(ctx.Type(), "X", *x, [&](auto* q) {
      for (int64_t i = 0; i < x->numel(); ++i) o[i] = static_cast<float>(q[i]) * s / r;
    });
    *ctx.Output("Out") = std::move(out);
  }
};

class DequantizeLogOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "int8 codes.");
    AddInput("Dict", "[128]: the magnitudes the codes stand for.");
    AddOutput("Out", "float32 values, X's shape.");
    AddComment(R"DOC(
A code q >= 0 stands for Dict[q], a negative one for -Dict[q + 128]:
$$Out = \begin{cases} Dict[X] & X \ge 0 \\ -Dict[X + 128] & X < 0 \end{cases}$$
)DOC");
  }
};

struct DequantizeLogKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dict = ctx.Input("Dict");
    PL_ENFORCE(x->dtype() == DataType::INT8,
               errors::InvalidArgument("op `%s` input `X`: expected int8 codes, received %s",
                                       ctx.Type(), platform::DataTypeName(x->dtype())));
    PL_ENFORCE(dict->numel() == 128 && dict->dtype() == DataType::FLOAT32,
               errors::InvalidArgument("op `%s` input `Dict`: expected 128 float32 values, "
                                       "received %s of shape %s",
                                       ctx.Type(), platform::DataTypeName(dict->dtype()),
                                       dict->dims().ToString()));
    const int8_t* q = x->data<int8_t>();
    const float* d = dict->data<float>();
    DenseTensor out(x->dims(), DataType::FLOAT32);
    out.set_lod(x->lod());
    float* o = out.mutable_data<float>(ctx.GetPlace());
    for (int64_t i = 0; i < x->numel(); ++i) o[i] = q[i] < 0 ? -d[q[i] + 128] : d[q[i]];
    *ctx.Output("Out") = std::move(out);
  }
};

void SameShapeInferShape(InferShapeContext* ctx, const char* in, const char* out) {
  ctx->RequireInput(in);
  ctx->RequireOutput(out);
  ctx->SetOutputDim(out, ctx->GetInputDim(in));
  ctx->ShareLoD(in, out);
}

// The kernels whose float side is float32 by definition (their outputs are float32 in
// PaddlePaddle whatever the program says), so they have no double kernel.
template <typename Kernel>
void RegisterFloat32Kernel(const char* op) {
  framework::RegisterKernel(op, DeviceType::kCPU, DataType::FLOAT32, LibraryType::kPlain,
                            &Kernel::Compute);
}

}  // namespace

PL_REGISTER_OPS(RegisterInt8InferenceOps) {
  framework::RegisterOp<Int8ConversionOp, QuantizeOpMaker>("quantize")
      .InferShape([](InferShapeContext* ctx) { SameShapeInferShape(ctx, "Input", "Output"); })
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        const auto& a = ctx->Attrs();
        ctx->SetOutputDataType("Output", QuantizedType(std::get<bool>(a.at("bfloat16")),
                                                       std::get<bool>(a.at("is_negative_input")),
                                                       std::get<float>(a.at("Shift"))));
      })
      .GradOpMaker(framework::NoGradient)
      .Checkpoint("add attribute [bfloat16]",
                  framework::OpVersionDesc().NewAttr(
                      "bfloat16", "convert float32 to bfloat16 instead of quantizing", false))
      .Checkpoint("add attribute [Shift]",
                  framework::OpVersionDesc().NewAttr(
                      "Shift", "quantize to uint8 with this zero point when not 0", 0.0f));
  RegisterPlainCpuFloatKernels<QuantizeKernel>("quantize");

  framework::RegisterOp<Int8ConversionOp, DequantizeOpMaker>("dequantize")
      .InferShape([](InferShapeContext* ctx) { SameShapeInferShape(ctx, "Input", "Output"); })
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        ctx->SetOutputDataType("Output", DataType::FLOAT32);
      })
      .GradOpMaker(framework::NoGradient)
      .Checkpoint("add attribute [Shift]",
                  framework::OpVersionDesc().NewAttr(
                      "Shift", "dequantize uint8 with this zero point when not 0", 0.0f));
  RegisterFloat32Kernel<DequantizeKernel>("dequantize");

  framework::RegisterOp<Int8ConversionOp, RequantizeOpMaker>("requantize")
      .InferShape([](InferShapeContext* ctx) { SameShapeInferShape(ctx, "Input", "Output"); })
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        const bool shifted = std::get<float>(ctx->Attrs().at("Shift_out")) != 0.0f;
        ctx->SetOutputDataType("Output",
                               shifted ? DataType::UINT8 : ctx->GetInputDataType("Input"));
      })
      .GradOpMaker(framework::NoGradient)
      .Checkpoint("add attributes [Shift_in, Shift_out]",
                  framework::OpVersionDesc()
                      .NewAttr("Shift_in", "Input's zero point", 0.0f)
                      .NewAttr("Shift_out", "Output's zero point", 0.0f));
  RegisterFloat32Kernel<RequantizeKernel>("requantize");

  auto same_as_x = [](InferShapeContext* ctx) { SameShapeInferShape(ctx, "X", "Out"); };
  auto float_out = [](framework::VarTypeInferenceContext* ctx) {
    ctx->SetOutputDataType("Out", DataType::FLOAT32);
  };
  framework::RegisterOp<Int8ConversionOp, DequantizeAbsMaxOpMaker>("dequantize_abs_max")
      .InferShape(same_as_x)
      .InferVarType(float_out)
      .GradOpMaker(framework::NoGradient);
  RegisterFloat32Kernel<DequantizeAbsMaxKernel>("dequantize_abs_max");
  framework::RegisterOp<Int8ConversionOp, DequantizeLogOpMaker>("dequantize_log")
      .InferShape(same_as_x)
      .InferVarType(float_out)
      .GradOpMaker(framework::NoGradient);
  RegisterFloat32Kernel<DequantizeLogKernel>("dequantize_log");
}

}  // namespace operators
}  // namespace paddle_like

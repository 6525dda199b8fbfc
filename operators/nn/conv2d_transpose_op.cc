// conv2d_transpose and depthwise_conv2d_transpose: the transposed 2-D convolution (the
// adjoint of conv2d with the same filter), as PaddlePaddle's decoders and upsampling heads
// use it; fused backward ops conv2d_transpose_grad (depthwise_conv2d_transpose_grad).
//
// With C the convolution that ResolveConv2dTranspose describes (its input is this op's
// output), the three computations are C's, swapped (conv_nchw.h):
//   Output = C's input gradient of Input,  dInput = C(dOutput),
//   dFilter = C's filter gradient with C's input dOutput and C's output gradient Input.
#include <string>
#include <vector>

#include "operators/common.h"
#include "operators/nn/conv_nchw.h"
#include "operators/nn/conv_pool_shape.h"
#include "operators/onednn_precision_attrs.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

using platform::CPUDeviceContext;

class Conv2dTransposeAttrMaker : public OneDNNPrecisionAttrMaker {
 protected:
  void AddConvTransposeAttrs() {
    AddAttr<std::vector<int>>("output_padding",
                              "Extra rows/columns [h, w] added at the bottom/right of the "
                              "output, each in [0, max(stride, dilation)); empty = none.")
        .SetDefault(std::vector<int>{});
    AddAttr<std::vector<int>>("output_size",
                              "Output [H_out, W_out], each within [natural, natural + stride); "
                              "empty = the natural size. Overrides output_padding.")
        .SetDefault(std::vector<int>{});
    AddAttr<int>("groups", "Input and output channels are split into `groups` groups.")
        .SetDefault(1);
    AddAttr<std::vector<int>>("strides", "[stride_h, stride_w], each >= 1.")
        .SetDefault(std::vector<int>{1, 1});
    AddAttr<std::vector<int>>("paddings",
                              "[pad_h, pad_w] (both sides) or [top, bottom, left, right], "
                              "cropped from the full output.")
        .SetDefault(std::vector<int>{0, 0});
    AddAttr<std::string>("padding_algorithm",
                         "EXPLICIT (use `paddings`), SAME (the paddings conv2d would take over "
                         "Input, for ceil(in / stride) outputs; dilations become 1) or VALID (no "
                         "padding).")
        .SetDefault("EXPLICIT")
        .InEnum({"EXPLICIT", "SAME", "VALID"});
    AddAttr<std::vector<int>>("dilations", "[dilation_h, dilation_w], each >= 1.")
        .SetDefault(std::vector<int>{1, 1});
    AddAttr<std::string>("data_format", "NCHW or NHWC for Input and Output; AnyLayout = NCHW. "
                                        "Filter is always [C_in, C_out / groups, kh, kw].")
        .SetDefault("NCHW")
        .InEnum({"NCHW", "NHWC", "AnyLayout"});
    AddAttr<bool>("use_cudnn", "Prefer a cuDNN kernel when one is registered.")
        .SetDefault(true)
        .AsExtra();
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddOneDNNPrecisionAttrs(/*use_quantizer=*/false, /*force_fp32_output=*/true);
  }
};

class Conv2dTransposeOpMaker : public Conv2dTransposeAttrMaker {
 public:
  void Make() override {
    AddInput("Input", "Images [N, C_in, H, W] (NHWC: [N, H, W, C_in]).");
    AddInput("Filter", "Filters [C_in, C_out / groups, kh, kw].");
    // PaddlePaddle's PIR op takes output_size as values computed when the program runs
    // (ENet's decoder passes its encoder's size); its ProgramDesc op has no such input.
    AddInput("OutputSizeTensorList",
             "Optional one-element int32/int64 tensors [H_out, W_out]; override `output_size`.")
        .AsDuplicable()
        .AsDispensable();
    AddInput("Bias", "Optional [C_out], added to every value of its output channel (the form "
                     "PaddlePaddle's oneDNN passes fuse an elementwise_add bias into).")
        .AsDispensable();
    AddOutput("Output", "Result [N, C_out, H_out, W_out] (NHWC: [N, H_out, W_out, C_out]).");
    AddConvTransposeAttrs();
    AddComment(R"DOC(
Transposed 2-D convolution, as in PaddlePaddle's conv2d_transpose; depthwise_conv2d_transpose
is the same op, which PaddlePaddle programs use when groups == C_in.

Every input pixel scatters the filter, scaled, into the output. With G = groups,
C_g = C_in / G input channels per group, M_g = C_out / G output channels per group, and
input channel c in group g = floor(c / C_g):
$$Output[n, g M_g + m, y s_h - p_{top} + i d_h, x s_w - p_{left} + j d_w] \mathrel{+}=
  Filter[c, m, i, j] \cdot Input[n, c, y, x]$$
summed over c in group g, all input pixels (y, x) and taps (i, j); positions outside the
output (the paddings) are dropped. With Bias, Bias[o] is added to every value of output
channel o; such a fused op is an inference form and has no gradient op. The output size is
$$H_{out} = (H - 1) s_h - p_{top} - p_{bottom} + d_h (kh - 1) + 1$$
plus output_padding, or `output_size` when given (within [H_out, H_out + s_h)); likewise
W_out. Example: Input [1, 2, 4, 5], Filter [2, 3, 3, 3], strides 2, paddings 1 give
Output [1, 3, 7, 9]. This is the input gradient of conv2d with the same filter and
attributes, so conv2d_transpose undoes the shape change of such a conv2d.

Gradient, by the fused op conv2d_transpose_grad (first order only): dInput is conv2d of
dOutput with Filter; dFilter correlates dOutput with Input, summed over the batch in a fixed
order.
)DOC");
  }
};

class Conv2dTransposeGradOpMaker : public Conv2dTransposeAttrMaker {
 public:
  void Make() override {
    AddInput("Input", "The forward op's Input.");
    AddInput("Filter", "The forward op's Filter.");
    AddInput("Output@GRAD", "Gradient of the forward op's Output.");
    AddOutput("Input@GRAD", "Gradient of Input, with Input's shape.").AsDispensable();
    AddOutput("Filter@GRAD", "Gradient of Filter, with Filter's shape.").AsDispensable();
    AddConvTransposeAttrs();
    AddComment(R"DOC(
Gradient of conv2d_transpose (fused kernel, not differentiable again). With the notation of
conv2d_transpose and q = (y s_h - p_top + i d_h, x s_w - p_left + j d_w):
$$dInput[n, c, y, x] = \sum_{m, i, j} Filter[c, m, i, j] \cdot dOutput[n, g M_g + m, q]$$
$$dFilter[c, m, i, j] = \sum_{n} \sum_{y, x} Input[n, c, y, x] \cdot dOutput[n, g M_g + m, q]$$
where positions q outside dOutput contribute 0; images are added in order n = 0, 1, ...
)DOC");
  }
};

class Conv2dTransposeOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// Adds bias[c] to every value of output channel c.
template <typename T>
void AddChannelBias(const T* bias, bool channel_last, const framework::DDim& dims, T* out) {
  const int64_t n = dims[0], c = channel_last ? dims[3] : dims[1];
  const int64_t hw = dims[1] * dims[2] * dims[3] / c;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t i = 0; i < c * hw; ++i) {
      const int64_t channel = channel_last ? i % c : i / hw;
      out[b * c * hw + i] += bias[channel];
    }
  }
}

void Conv2dTransposeInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Filter");
  ctx->RequireOutput("Output");
  CheckNoConvFusion(ctx->OpType(), ctx->Attrs());
  const bool sized_at_run_time = ctx->HasInput("OutputSizeTensorList");
  framework::AttributeMap without_size;  // Copied only where the size is read at run time.
  if (sized_at_run_time) {
    without_size = ctx->Attrs();
    without_size["output_size"] = std::vector<int>{};
  }
  const Conv2dGeometry g =
      ResolveConv2dTranspose(ctx->OpType(), ctx->GetInputDim("Input"), ctx->GetInputDim("Filter"),
                             sized_at_run_time ? without_size : ctx->Attrs());
  if (ctx->HasInput("Bias")) {
    CheckConvTransposeBias(ctx->OpType(), ctx->GetInputDim("Bias"), g.in_c);
  }
  if (!sized_at_run_time) {
    ctx->SetOutputDim("Output", g.InputDims());
  } else if (!ctx->IsRuntime()) {  // At run time the kernel sets them.
    std::vector<int64_t> dims = g.InputDims().ToVector();
    const int h = g.channel_last ? 1 : 2;
    dims[h] = dims[h + 1] = -1;
    ctx->SetOutputDim("Output", framework::DDim(dims));
  }
}

void Conv2dTransposeGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Filter");
  ctx->RequireInput("Output@GRAD");
  const Conv2dGeometry g = ResolveConv2dTransposeGrad(
      ctx->OpType(), ctx->GetInputDim("Input"), ctx->GetInputDim("Filter"),
      ctx->GetInputDim("Output@GRAD"), ctx->Attrs());
  ConvGradInferShape(ctx, g.InputDims());
}

template <typename T>
struct Conv2dTransposeKernel {
  static void Compute(const ExecutionContext& ctx) { Conv2dTransposePlainCompute<T>(ctx); }
};

template <typename T>
struct Conv2dTransposeGradKernel {
  static void Compute(const ExecutionContext& ctx) { Conv2dTransposeGradPlainCompute<T>(ctx); }
};

}  // namespace

// Bias: the oneDNN-style fusion, as PaddlePaddle's passes write it.
void CheckConvTransposeBias(const std::string& op, const framework::DDim& bias,
                            int64_t out_channels) {
  PL_ENFORCE(bias.size() == 1 && (bias[0] < 0 || out_channels < 0 || bias[0] == out_channels),
             errors::InvalidArgument(
                 "op `%s` input `Bias`: expected shape [%lld] (one value per output channel), "
                 "received %s",
                 op, static_cast<long long>(out_channels), bias.ToString()));
}

template <typename T>
void Conv2dTransposePlainCompute(const ExecutionContext& ctx, math::GemmFn<T> gemm) {
  const std::string& op = ctx.Type();
  const DenseTensor* input = ctx.Input("Input");
  const DenseTensor* filter = ctx.Input("Filter");
  const DenseTensor* bias = ctx.HasInput("Bias") ? ctx.Input("Bias") : nullptr;
  const Conv2dGeometry g = ResolveConv2dTransposeAt(ctx);
  if (bias != nullptr) CheckConvTransposeBias(op, bias->dims(), g.in_c);
  // A fresh buffer: Output may be the variable of an operand.
  DenseTensor fresh(g.InputDims(), input->dtype());
  T* out = fresh.mutable_data<T>(ctx.GetPlace());
  if (fresh.numel() > 0) {
    const auto& dev = ctx.device_context<CPUDeviceContext>();
    std::vector<T> in_storage;
    const T* x = NchwData(*input, g.channel_last, &in_storage);
    if (g.channel_last) {
      std::vector<T> nchw(static_cast<size_t>(fresh.numel()));
      ConvInputGradNchw(dev, g, filter->data<T>(), x, nchw.data(), gemm);
      StoreFromNchw(nchw, true, fresh.dims(), out);
    } else {
      ConvInputGradNchw(dev, g, filter->data<T>(), x, out, gemm);
    }
    if (bias != nullptr) AddChannelBias(bias->data<T>(), g.channel_last, fresh.dims(), out);
  }
  *ctx.Output("Output") = std::move(fresh);
}

template void Conv2dTransposePlainCompute<float>(const ExecutionContext& ctx,
                                                math::GemmFn<float> gemm);
template void Conv2dTransposePlainCompute<double>(const ExecutionContext& ctx,
                                                 math::GemmFn<double> gemm);

template <typename T>
void Conv2dTransposeGradPlainCompute(const ExecutionContext& ctx) {
  const DenseTensor* input = ctx.Input("Input");
  const DenseTensor* filter = ctx.Input("Filter");
  const DenseTensor* dout = ctx.Input("Output@GRAD");
  const Conv2dGeometry g = ResolveConv2dTransposeGrad(ctx);
  const auto& dev = ctx.device_context<CPUDeviceContext>();
  std::vector<T> dout_storage, in_storage;
  const T* dy = NchwData(*dout, g.channel_last, &dout_storage);
  DenseTensor* dinput = ctx.Output("Input@GRAD");
  DenseTensor* dfilter = ctx.Output("Filter@GRAD");
  // Fresh buffers, moved into place at the end: an output may be an input's variable.
  DenseTensor input_grad, filter_grad;
  if (dinput != nullptr) {
    input_grad = DenseTensor(input->dims(), input->dtype());
    T* dst = input_grad.mutable_data<T>(ctx.GetPlace());
    if (g.channel_last) {
      std::vector<T> nchw(static_cast<size_t>(input->numel()));
      ConvForwardNchw(dev, g, dy, filter->data<T>(), nchw.data());
      StoreFromNchw(nchw, true, input->dims(), dst);
    } else {
      ConvForwardNchw(dev, g, dy, filter->data<T>(), dst);
    }
  }
  if (dfilter != nullptr) {
    filter_grad = DenseTensor(filter->dims(), filter->dtype());
    ConvFilterGradNchw(dev, g, dy, NchwData(*input, g.channel_last, &in_storage),
                       filter_grad.mutable_data<T>(ctx.GetPlace()));
  }
  if (dinput != nullptr) *dinput = std::move(input_grad);
  if (dfilter != nullptr) *dfilter = std::move(filter_grad);
}

template void Conv2dTransposeGradPlainCompute<float>(const ExecutionContext& ctx);
template void Conv2dTransposeGradPlainCompute<double>(const ExecutionContext& ctx);

PL_REGISTER_OPS(RegisterConv2dTransposeOp) {
  for (const std::string type : {"conv2d_transpose", "depthwise_conv2d_transpose"}) {
    auto registrar = framework::RegisterOp<Conv2dTransposeOp, Conv2dTransposeOpMaker>(type);
    registrar.InferShape(Conv2dTransposeInferShape)
        .GradOpMaker(ConvFusedGradMaker)
        .Checkpoint("output_padding",
                    framework::OpVersionDesc().NewAttr(
                        "output_padding", "extra rows/columns at the bottom/right of the output",
                        std::vector<int>{}));
    if (type == "conv2d_transpose") {
      registrar.Checkpoint(
          "oneDNN precision attributes",
          framework::OpVersionDesc()
              .NewAttr("force_fp32_output", "oneDNN int8 option", false)
              .NewAttr("mkldnn_data_type", "oneDNN precision hint", std::string("float32")));
    }
    RegisterPlainCpuFloatKernels<Conv2dTransposeKernel>(type);
    const std::string grad = type + "_grad";
    framework::RegisterOp<Conv2dTransposeOp, Conv2dTransposeGradOpMaker>(grad).InferShape(
        Conv2dTransposeGradInferShape);
    RegisterPlainCpuFloatKernels<Conv2dTransposeGradKernel>(grad);
  }
}

}  // namespace operators
}  // namespace paddle_like

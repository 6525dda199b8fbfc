// conv2d and depthwise_conv2d: 2-D convolution (cross-correlation) with strides, paddings,
// dilations and groups; fused backward op conv2d_grad (depthwise_conv2d_grad).
//
// Plain CPU kernels (conv_nchw.h): per image and group, im2col and one GEMM (a direct loop
// for depthwise groups with one input channel each). NHWC tensors are copied to NCHW and back.
#include <vector>

#include "operators/common.h"
#include "operators/nn/conv_fusion.h"
#include "operators/nn/conv_nchw.h"
#include "operators/nn/conv_pool_shape.h"
#include "operators/onednn_precision_attrs.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

using platform::CPUDeviceContext;

// The attributes conv2d and conv2d_grad share.
class Conv2dAttrMaker : public OneDNNPrecisionAttrMaker {
 protected:
  void AddConvAttrs() {
    AddAttr<std::vector<int>>("strides", "[stride_h, stride_w], each >= 1.")
        .SetDefault(std::vector<int>{1, 1});
    AddAttr<std::vector<int>>("paddings",
                              "[pad_h, pad_w] (both sides) or [top, bottom, left, right].")
        .SetDefault(std::vector<int>{0, 0});
    AddAttr<std::string>("padding_algorithm",
                         "EXPLICIT (use `paddings`), SAME (out = ceil(in / stride), dilations "
                         "become 1) or VALID (no padding).")
        .SetDefault("EXPLICIT")
        .InEnum({"EXPLICIT", "SAME", "VALID"});
    AddAttr<std::vector<int>>("dilations", "[dilation_h, dilation_w], each >= 1.")
        .SetDefault(std::vector<int>{1, 1});
    AddAttr<int>("groups", "Input and output channels are split into `groups` groups; group g "
                           "of the output sees only group g of the input.")
        .SetDefault(1);
    AddAttr<std::string>("data_format", "NCHW or NHWC for Input and Output; AnyLayout = NCHW. "
                                        "Filter is always [C_out, C_in / groups, kh, kw].")
        .SetDefault("NCHW")
        .InEnum({"NCHW", "NHWC", "AnyLayout"});
    AddAttr<bool>("use_cudnn", "Prefer a cuDNN kernel when one is registered.")
        .SetDefault(true)
        .AsExtra();
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("use_addto", "PaddlePaddle's in-place gradient accumulation on GPUs; no effect.")
        .SetDefault(false)
        .AsExtra();
  }
};

class Conv2dOpMaker : public Conv2dAttrMaker {
 public:
  void Make() override {
    AddInput("Input", "Images [N, C_in, H, W] (NHWC: [N, H, W, C_in]).");
    AddInput("Filter", "Filters [C_out, C_in / groups, kh, kw].");
    AddInput("Bias", "Fused bias [C_out], added per output channel.").AsDispensable();
    AddInput("ResidualData",
             "Fused residual with Output's shape, added when fuse_residual_connection is set.")
        .AsDispensable();
    AddOutput("Output", "Result [N, C_out, H_out, W_out] (NHWC: [N, H_out, W_out, C_out]).");
    AddConvAttrs();
    AddAttr<std::string>("fuse_activation",
                         "Activation applied last (operators/activation/fused_activation.h): "
                         "\"\" (none), relu, leaky_relu, relu6, clip, swish, hard_swish, "
                         "hard_sigmoid, sigmoid, tanh, gelu, gelu_tanh.")
        .SetDefault("")
        .AsExtra();
    AddAttr<float>("fuse_alpha", "First parameter of fuse_activation.").SetDefault(0.0f).AsExtra();
    AddAttr<float>("fuse_beta", "Second parameter of fuse_activation.").SetDefault(0.0f).AsExtra();
    AddAttr<bool>("fuse_residual_connection", "Add ResidualData before the activation.")
        .SetDefault(false)
        .AsExtra();
    // PaddlePaddle's other extra attributes, declared with their types so that a damaged
    // value is refused as PaddlePaddle refuses it. fuse_relu is read as fuse_activation relu;
    // fuse_relu_before_depthwise_conv set is refused (conv_fusion.h); the rest tune oneDNN's
    // int8 and cuDNN's search in PaddlePaddle and change nothing in a float kernel.
    AddAttr<bool>("is_test", "Inference only (PaddlePaddle's oneDNN kernels).")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("fuse_relu", "Old form of fuse_activation = relu.").SetDefault(false).AsExtra();
    AddAttr<bool>("fuse_relu_before_depthwise_conv", "Relu of the input inside the convolution.")
        .SetDefault(false)
        .AsExtra();
    AddOneDNNPrecisionAttrs(/*use_quantizer=*/true, /*force_fp32_output=*/true);
    AddAttr<float>("Scale_in", "oneDNN int8 input scale; no effect here.")
        .SetDefault(1.0f)
        .AsExtra();
    AddAttr<float>("Scale_out", "oneDNN int8 output scale; no effect here.")
        .SetDefault(1.0f)
        .AsExtra();
    AddAttr<float>("Scale_in_eltwise", "oneDNN int8 residual scale; no effect here.")
        .SetDefault(1.0f)
        .AsExtra();
    AddAttr<std::vector<float>>("Scale_weights", "oneDNN int8 filter scales; no effect here.")
        .SetDefault(std::vector<float>{1.0f})
        .AsExtra();
    AddAttr<int>("workspace_size_MB", "cuDNN workspace limit in PaddlePaddle; no effect here.")
        .SetDefault(512)
        .AsExtra();
    AddAttr<bool>("exhaustive_search", "cuDNN algorithm search in PaddlePaddle "
                                       "(FLAGS_cudnn_exhaustive_search here).")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
2-D convolution (cross-correlation), as in PaddlePaddle's conv2d; depthwise_conv2d is the
same op, which PaddlePaddle programs use when groups == C_in.

With G = groups, C_g = C_in / G input channels per group and output channel m in group
g = floor(m / (C_out / G)):
$$Output[n, m, y, x] = \sum_{c=0}^{C_g-1} \sum_{i=0}^{kh-1} \sum_{j=0}^{kw-1}
  Filter[m, c, i, j] \cdot Input[n, g C_g + c, y s_h - p_{top} + i d_h, x s_w - p_{left} + j d_w]$$
where pixels outside the input are 0 (padding). A conv fused by the inference passes then
computes Output = act(Output + Bias[m] + ResidualData) (operators/nn/conv_fusion.h); it has
no gradient.
$$H_{out} = \lfloor (H + p_{top} + p_{bottom} - (d_h (kh - 1) + 1)) / s_h \rfloor + 1$$
and likewise W_out. `paddings` [p_h, p_w] pad both sides; four values are
[top, bottom, left, right]. padding_algorithm SAME pads so that H_out = ceil(H / s_h)
(pad_sum = max((H_out - 1) s_h + kh - H, 0), top = floor(pad_sum / 2)) and sets dilations
to 1; VALID pads nothing. Example: Input [1, 3, 32, 32], Filter [16, 3, 3, 3], strides
[2, 2], paddings [1, 1] give Output [1, 16, 16, 16].

Gradient, by the fused op conv2d_grad (first order only): dInput is the transposed
convolution of dOutput with Filter; dFilter correlates Input with dOutput, summed over the
batch in a fixed order.
)DOC");
  }
};

class Conv2dGradOpMaker : public Conv2dAttrMaker {
 public:
  void Make() override {
    AddInput("Input", "The forward op's Input.");
    AddInput("Filter", "The forward op's Filter.");
    AddInput("Output@GRAD", "Gradient of the forward op's Output.");
    AddOutput("Input@GRAD", "Gradient of Input, with Input's shape.").AsDispensable();
    AddOutput("Filter@GRAD", "Gradient of Filter, with Filter's shape.").AsDispensable();
    AddConvAttrs();
    AddComment(R"DOC(
Gradient of conv2d (fused kernel, not differentiable again). With the notation of conv2d,
q = (y s_h - p_top + i d_h, x s_w - p_left + j d_w) the input pixel a tap reads:
$$dInput[n, g C_g + c, q] \mathrel{+}= \sum_{m \in g} \sum_{y, x}
  Filter[m, c, i, j] \cdot dOutput[n, m, y, x]$$
$$dFilter[m, c, i, j] = \sum_{n=0}^{N-1} \sum_{y, x}
  Input[n, g C_g + c, q] \cdot dOutput[n, m, y, x]$$
computed per image with im2col and GEMM (col2im for dInput); dFilter adds the images in
order n = 0, 1, ..., so results are reproducible.
)DOC");
  }
};

class Conv2dOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void Conv2dInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Filter");
  ctx->RequireOutput("Output");
  const Conv2dGeometry g = ResolveConv2d(ctx->OpType(), ctx->GetInputDim("Input"),
                                         ctx->GetInputDim("Filter"), ctx->Attrs());
  const framework::DDim bias = ctx->HasInput("Bias") ? ctx->GetInputDim("Bias") : framework::DDim();
  const framework::DDim residual =
      ctx->HasInput("ResidualData") ? ctx->GetInputDim("ResidualData") : framework::DDim();
  ResolveConvFusion(ctx->OpType(), ctx->Attrs(), g, ctx->HasInput("Bias") ? &bias : nullptr,
                    ctx->HasInput("ResidualData") ? &residual : nullptr);
  ctx->SetOutputDim("Output", g.OutputDims());
}

void Conv2dGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Filter");
  ctx->RequireInput("Output@GRAD");
  const Conv2dGeometry g = ResolveConv2d(ctx->OpType(), ctx->GetInputDim("Input"),
                                         ctx->GetInputDim("Filter"), ctx->Attrs());
  ConvGradInferShape(ctx, g.OutputDims());
}

template <typename T>
struct Conv2dKernel {
  static void Compute(const ExecutionContext& ctx) { Conv2dPlainCompute<T>(ctx); }
};

template <typename T>
struct Conv2dGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* dout = ctx.Input("Output@GRAD");
    const Conv2dGeometry g = ResolveConv2dGrad(ctx);
    const auto& dev = ctx.device_context<CPUDeviceContext>();
    std::vector<T> dout_storage, in_storage;
    const T* dy = NchwData(*dout, g.channel_last, &dout_storage);
    // Both gradients go to fresh buffers and are moved into place only at the end: an output
    // variable may be one of the inputs (Input@GRAD over Input), which the second gradient
    // still reads.
    DenseTensor* dinput = ctx.Output("Input@GRAD");
    DenseTensor* dfilter = ctx.Output("Filter@GRAD");
    DenseTensor input_grad, filter_grad;
    if (dinput != nullptr) {
      input_grad = DenseTensor(input->dims(), input->dtype());
      T* dst = input_grad.mutable_data<T>(ctx.GetPlace());
      if (g.channel_last) {
        std::vector<T> nchw(static_cast<size_t>(input->numel()));
        ConvInputGradNchw(dev, g, filter->data<T>(), dy, nchw.data());
        StoreFromNchw(nchw, true, input->dims(), dst);
      } else {
        ConvInputGradNchw(dev, g, filter->data<T>(), dy, dst);
      }
    }
    if (dfilter != nullptr) {
      filter_grad = DenseTensor(filter->dims(), filter->dtype());
      ConvFilterGradNchw(dev, g, NchwData(*input, g.channel_last, &in_storage), dy,
                         filter_grad.mutable_data<T>(ctx.GetPlace()));
    }
    if (dinput != nullptr) *dinput = std::move(input_grad);
    if (dfilter != nullptr) *dfilter = std::move(filter_grad);
  }
};

}  // namespace

template <typename T>
void Conv2dPlainCompute(const ExecutionContext& ctx, math::GemmFn<T> gemm) {
  const std::string& op = ctx.Type();
  const DenseTensor* input = ctx.Input("Input");
  const DenseTensor* filter = ctx.Input("Filter");
  const Conv2dGeometry g = ResolveConv2d(op, input->dims(), filter->dims(), ctx.op().Attrs());
  const DenseTensor* bias = ctx.HasInput("Bias") ? ctx.Input("Bias") : nullptr;
  const DenseTensor* residual = ctx.HasInput("ResidualData") ? ctx.Input("ResidualData") : nullptr;
  const ConvFusion fusion =
      ResolveConvFusion(op, ctx.op().Attrs(), g, bias ? &bias->dims() : nullptr,
                        residual ? &residual->dims() : nullptr);
  DenseTensor* output = ctx.Output("Output");
  // The result cannot be written over an operand: use a fresh buffer then.
  DenseTensor fresh;
  DenseTensor* target =
      (output == input || output == filter || output == bias || output == residual) ? &fresh
                                                                                    : output;
  target->Resize(g.OutputDims());
  target->set_dtype(input->dtype());
  T* out = target->mutable_data<T>(ctx.GetPlace());
  if (target->numel() > 0) {
    const auto& dev = ctx.device_context<CPUDeviceContext>();
    std::vector<T> in_storage;
    const T* x = NchwData(*input, g.channel_last, &in_storage);
    if (g.channel_last) {
      std::vector<T> nchw(static_cast<size_t>(target->numel()));
      ConvForwardNchw(dev, g, x, filter->data<T>(), nchw.data(), gemm);
      StoreFromNchw(nchw, true, target->dims(), out);
    } else {
      ConvForwardNchw(dev, g, x, filter->data<T>(), out, gemm);
    }
    if (fusion.any()) {
      ApplyConvFusion(fusion, g, fusion.bias ? bias->data<T>() : static_cast<const T*>(nullptr),
                      fusion.residual ? residual->data<T>() : static_cast<const T*>(nullptr), out);
    }
  }
  if (target == &fresh) *output = std::move(fresh);
}

template void Conv2dPlainCompute<float>(const ExecutionContext& ctx, math::GemmFn<float> gemm);
template void Conv2dPlainCompute<double>(const ExecutionContext& ctx, math::GemmFn<double> gemm);

PL_REGISTER_OPS(RegisterConv2dOp) {
  for (const std::string type : {"conv2d", "depthwise_conv2d"}) {
    framework::RegisterOp<Conv2dOp, Conv2dOpMaker>(type)
        .InferShape(Conv2dInferShape)
        .GradOpMaker(ConvFusedGradMaker)
        .Checkpoint("PaddlePaddle 2.0: extra attribute `use_addto`",
                    framework::OpVersionDesc().NewAttr(
                        "use_addto",
                        "only changes how GPU kernels accumulate gradients", false));
    RegisterPlainCpuFloatKernels<Conv2dKernel>(type);
    const std::string grad = type + "_grad";
    framework::RegisterOp<Conv2dOp, Conv2dGradOpMaker>(grad).InferShape(Conv2dGradInferShape);
    RegisterPlainCpuFloatKernels<Conv2dGradKernel>(grad);
  }
}

}  // namespace operators
}  // namespace paddle_like

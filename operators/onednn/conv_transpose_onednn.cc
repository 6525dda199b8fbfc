// dnnl::deconvolution_forward for conv2d_transpose / depthwise_conv2d_transpose, float32,
// with the fused Bias.
//
// The geometry is the plain kernel's (ResolveConv2dTranspose describes the convolution whose
// input gradient this op is), so the descriptors are that convolution's with source and
// destination swapped. Formats follow conv2d's rule (conv_pool_onednn.cc): the primitive
// picks them when the op's input has 8 or more channels per group (or is depthwise with 8
// or more), and its output may stay in the primitive's layout where the executor allows
// it. The filter, [C_in, C_out / groups, kh, kw] in PaddlePaddle, is oneDNN's iohw (giohw
// with groups), packed once per filter value (PackedFilter). Where oneDNN has only its
// scalar reference implementation, or refuses the geometry, the plain kernel runs.
#include <algorithm>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/op_registry.h"
#include "operators/nn/conv_pool_shape.h"
#include "operators/onednn/channel_runs.h"
#include "operators/onednn/conv_pool_onednn_util.h"
#include "operators/onednn/onednn_gemm.h"
#include "operators/onednn/onednn_memory.h"
#include "operators/op_family.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::memory;
using framework::DenseTensor;
using framework::ExecutionContext;
using Tag = memory::format_tag;

class Conv2dTransposeOneDNN final : public framework::OpKernel {
 public:
  void Prepare(const ExecutionContext& ctx) override {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    g_ = ResolveConv2dTransposeAt(ctx);
    has_bias_ = ctx.HasInput("Bias");
    primitive_.reset();
    output_layout_.reset();
    plain_ = true;
    if (g_.InputDims().numel() == 0) return;
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    try {
      const auto f32 = memory::data_type::f32;
      const OneDNNConvDescs c = MakeOneDNNTransposedConvDescs(g_);
      // This op's input is the convolution's output and the other way round.
      src_user_ = c.dst;
      dst_user_ = c.src;
      weights_user_ =
          g_.groups == 1
              ? memory::desc({g_.in_c, g_.out_c, g_.kernel_h, g_.kernel_w}, f32, Tag::iohw)
              : memory::desc({g_.groups, g_.in_c / g_.groups, g_.out_c / g_.groups, g_.kernel_h,
                              g_.kernel_w},
                             f32, Tag::giohw);
      // Blocked formats where both sides fill oneDNN's channel blocks (8 or more channels
      // per group, or depthwise with 8 or more channels); otherwise the user's layout, which
      // oneDNN computes through GEMM: PP-OCRv3's last layer, 24 -> 1 channel, takes 0.31 ms
      // that way against 3.2 ms with its one output channel padded to a 16-channel block
      // (tests/benchmarks/conv_transpose_benchmark).
      const int64_t in_per_group = g_.out_c / g_.groups, out_per_group = g_.in_c / g_.groups;
      const bool blocked = (in_per_group >= 8 && out_per_group >= 8) ||
                           (in_per_group == 1 && out_per_group == 1 && g_.out_c >= 8);
      const memory::desc src = blocked ? memory::desc(src_user_.dims(), f32, Tag::any) : src_user_;
      const memory::desc dst = blocked ? memory::desc(dst_user_.dims(), f32, Tag::any) : dst_user_;
      const memory::desc weights(weights_user_.dims(), f32, Tag::any);
      const auto kind = dnnl::prop_kind::forward_inference;
      const auto alg = dnnl::algorithm::deconvolution_direct;
      const dnnl::deconvolution_forward::desc desc(kind, alg, src, weights, dst, c.strides,
                                                   c.dilates, c.pad_l, c.pad_r);
      pd_ = dnnl::deconvolution_forward::primitive_desc(desc, dev.engine());
      // oneDNN's scalar reference code: the plain kernel is faster.
      if (std::string(pd_.impl_info_str()).rfind("ref", 0) == 0) return;
      // The bias is added by AddChannelBias: oneDNN's deconvolution adds its own in scalar
      // code (4.5x the time of PP-OCRv3's 24 -> 24 upsampling itself), and with a binary
      // post-op or a binary primitive on the padded blocked output it takes its reference
      // implementation (25-60x; tests/benchmarks/conv_transpose_benchmark).
      own_bias_ = has_bias_ && ChannelRuns::Fits(pd_.dst_desc());
      if (has_bias_ && !own_bias_) {
        pd_ = dnnl::deconvolution_forward::primitive_desc(
            dnnl::deconvolution_forward::desc(kind, alg, src, weights, BiasDesc(), dst,
                                              c.strides, c.dilates, c.pad_l, c.pad_r),
            dev.engine());
      }
      primitive_ = std::make_unique<dnnl::deconvolution_forward>(pd_);
    } catch (const dnnl::error&) {
      return;  // A geometry oneDNN does not take (negative padding, say): the plain kernel.
    }
    plain_ = false;
    output_layout_ = OutputLayout(true, pd_.dst_desc(), dst_user_);
    weights_.Reset(weights_user_, pd_.weights_desc(), dev.engine());
    args_.clear();
  }

  void Compute(const ExecutionContext& ctx) override {
    // Sizes read when the program runs may change with the same input shapes.
    if (ctx.HasInput("OutputSizeTensorList") &&
        ResolveConv2dTransposeAt(ctx).InputDims() != g_.InputDims()) {
      Prepare(ctx);
    }
    if (plain_) {
      ctx.WithPlainInputs(
          [](const ExecutionContext& plain) {
            Conv2dTransposePlainCompute<float>(plain, &OneDNNGemm);
          });
      return;
    }
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* bias = has_bias_ ? ctx.Input("Bias") : nullptr;
    DenseTensor* output = ctx.Output("Output");
    DenseTensor fresh;
    DenseTensor* target =
        OutputTarget(output, {input, filter, bias}, &fresh, g_.InputDims(),
                     ctx.OutputMayBeOpaque("Output") ? output_layout_ : nullptr);
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    try {
      const dnnl::engine& engine = dev.engine();
      const ScratchMemory src =
          ToFormat(KeptInputMemory(&src_mem_, *input, src_user_, engine), pd_.src_desc(), dev);
      args_[DNNL_ARG_SRC] = src;
      args_[DNNL_ARG_WEIGHTS] = weights_.Get(ctx, "Filter", dev);
      args_[DNNL_ARG_DST] =
          dst_.Bind(DescOf(*target, dst_user_), OutputData(target), pd_.dst_desc(), engine);
      if (bias != nullptr && !own_bias_) {
        args_[DNNL_ARG_BIAS] = bias_mem_.Over(BiasDesc(), bias->data<float>(), engine);
      }
      Execute(*primitive_, dev.stream(), args_);
      dev.stream().wait();
      if (own_bias_) AddChannelBias(args_[DNNL_ARG_DST], bias->data<float>(), dev);
      dst_.Store(dev);
      dev.stream().wait();
    } catch (const dnnl::error& e) {
      throw errors::Fatal("op `%s`: oneDNN deconvolution failed for Input %s, Filter %s: %s",
                          ctx.Type(), input->dims().ToString(), filter->dims().ToString(),
                          e.what());
    }
    if (target == &fresh) *output = std::move(fresh);
  }

 private:
  memory::desc BiasDesc() const { return memory::desc({g_.in_c}, memory::data_type::f32, Tag::a); }

  // bias[c] added to every value of channel c of `dst` (a ChannelRuns format).
  void AddChannelBias(const memory& dst, const float* bias, const platform::OneDNNContext& dev) {
    const ChannelRuns runs(dst.get_desc());
    runs.PaddedValues(bias, 0.0f, &lanes_);
    const std::vector<float>& lanes = lanes_;
    float* data = static_cast<float*>(dst.get_data_handle());
    runs.WithRunLength([&](auto run) {
      runs.ForEach(dev, [&](int64_t offset, int64_t r) {
        float* px = data + offset;
        const float* add = lanes.data() + r * run;
        for (int64_t i = 0; i < run; ++i) px[i] += add[i];
      });
    });
  }

  Conv2dGeometry g_;
  bool has_bias_ = false;
  bool own_bias_ = false;  // Bias added by AddChannelBias, not by the primitive.
  bool plain_ = true;
  memory::desc src_user_, dst_user_, weights_user_;
  dnnl::deconvolution_forward::primitive_desc pd_;
  std::unique_ptr<dnnl::deconvolution_forward> primitive_;
  std::shared_ptr<const OneDNNLayout> output_layout_;  // Null when the primitive writes the user's.
  PackedFilter weights_;
  KeptMemory src_mem_, bias_mem_;
  KeptOutput dst_;
  std::unordered_map<int, memory> args_;  // Kept: no map nodes allocated per run.
  std::vector<float> lanes_;                // AddChannelBias's padded bias.
};

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterConvTransposeOneDNNKernels) {
  auto& registry = framework::KernelRegistry::Instance();
  for (const char* op : {"conv2d_transpose", "depthwise_conv2d_transpose"}) {
    framework::RegisterKernelClass<Conv2dTransposeOneDNN>(
        op, framework::DeviceType::kCPU, framework::DataType::FLOAT32,
        framework::LibraryType::kOneDNN);
    registry.DeclareOpaqueInputs(op, framework::LibraryType::kOneDNN, {"Input"});
  }
}

}  // namespace operators
}  // namespace paddle_like

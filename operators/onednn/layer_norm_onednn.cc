// dnnl::layer_normalization_forward / _backward for layer_norm and layer_norm_grad, float32.
//
// X is described as the 2-D [left, right] row view of begin_norm_axis: oneDNN normalises
// over the last dim. Mean and Variance ([left]) are the primitive's statistics, written in
// place into the outputs. Scale and Bias are optional (use_scale / use_shift).
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>

#include "operators/nn/layer_norm_util.h"
#include "operators/onednn/norm_onednn.h"
#include "operators/onednn/onednn_memory.h"
#include "operators/onednn/onednn_threads.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::memory;
using Flags = dnnl::normalization_flags;
using Tag = memory::format_tag;
constexpr auto kF32 = memory::data_type::f32;

// The row view and its statistics as memory descriptors.
struct RowDescs {
  memory::desc data, stat, param;
  explicit RowDescs(const RowLayout& rows)
      : data({rows.left, rows.right}, kF32, Tag::ab),
        stat({rows.left}, kF32, Tag::a),
        param({rows.right}, kF32, Tag::a) {}
};

}  // namespace

void LayerNormOneDNNKernel(const ExecutionContext& ctx) {
  const RowLayout rows = CheckLayerNormInputs(ctx);
  // Local copies share the buffers: an output that is the same variable as an input then
  // gets a fresh buffer from mutable_data, and the input values stay readable.
  const DenseTensor x = *ctx.Input("X");
  if (x.numel() == 0) {
    LayerNormPlainCompute<float>(ctx);
    return;
  }
  const DenseTensor* scale_in = ctx.Input("Scale");
  const DenseTensor* bias_in = ctx.Input("Bias");
  const DenseTensor scale = scale_in != nullptr ? *scale_in : DenseTensor();
  const DenseTensor bias = bias_in != nullptr ? *bias_in : DenseTensor();
  DenseTensor* y = ctx.Output("Y");
  DenseTensor* mean = ctx.Output("Mean");
  DenseTensor* var = ctx.Output("Variance");
  y->Resize(x.dims());
  y->set_lod(x.lod());
  mean->Resize(DDim({rows.left}));
  var->Resize(DDim({rows.left}));
  for (DenseTensor* out : {y, mean, var}) out->mutable_data<float>(ctx.GetPlace());
  const auto& dev = ctx.device_context<platform::OneDNNContext>();
  const auto threads = LimitThreadsForWork(dev, static_cast<double>(x.numel()));
  try {
    const dnnl::engine& e = dev.engine();
    const RowDescs md(rows);
    const Flags flags = (scale_in != nullptr ? Flags::use_scale : Flags::none) |
                        (bias_in != nullptr ? Flags::use_shift : Flags::none);
    // forward_training: the primitive outputs the statistics (inference would keep them).
    const dnnl::layer_normalization_forward::primitive_desc pd(
        dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_training, md.data, md.stat,
                                                ctx.Attr<float>("epsilon"), flags),
        e);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, WrapTensor(md.data, e, x)},
                                            {DNNL_ARG_DST, WrapTensor(md.data, e, *y)},
                                            {DNNL_ARG_MEAN, WrapTensor(md.stat, e, *mean)},
                                            {DNNL_ARG_VARIANCE, WrapTensor(md.stat, e, *var)}};
    if (scale_in != nullptr) args[DNNL_ARG_SCALE] = WrapTensor(md.param, e, scale);
    if (bias_in != nullptr) args[DNNL_ARG_SHIFT] = WrapTensor(md.param, e, bias);
    Execute(dnnl::layer_normalization_forward(pd), dev.stream(), args);
    dev.stream().wait();
  } catch (const dnnl::error& err) {
    throw errors::Fatal("op `%s`: oneDNN layer normalization failed for X %s as rows [%s, %s]: %s",
                        kLayerNormOp, x.dims().ToString(), std::to_string(rows.left),
                        std::to_string(rows.right), err.what());
  }
}

void LayerNormGradOneDNNKernel(const ExecutionContext& ctx) {
  const RowLayout rows = CheckLayerNormGradInputs(ctx);
  const DenseTensor x = *ctx.Input("X");
  if (x.numel() == 0) {
    LayerNormGradPlainCompute<float>(ctx);
    return;
  }
  DenseTensor* dx = ctx.Output("X@GRAD");
  DenseTensor* dscale = ctx.Output("Scale@GRAD");
  DenseTensor* dbias = ctx.Output("Bias@GRAD");
  if (dx == nullptr && dscale == nullptr && dbias == nullptr) return;
  const DenseTensor dy = *ctx.Input("Y@GRAD");
  const DenseTensor mean = *ctx.Input("Mean");
  const DenseTensor var = *ctx.Input("Variance");
  // backward_data takes no scale (gamma): with a Scale, or gradients of the parameters to
  // compute, it is prop_kind backward with use_scale and use_shift (gamma 1 without Scale,
  // scratch tensors for the gradients the op does not ask for, and a shift that the
  // primitive takes but does not read).
  const DenseTensor* scale_in = ctx.Input("Scale");
  const bool affine = scale_in != nullptr || dscale != nullptr || dbias != nullptr;
  DenseTensor scale, shift;
  if (affine) {
    scale = scale_in != nullptr ? *scale_in : FilledTensor(rows.right, 1.0f);
    shift = FilledTensor(rows.right, 0.0f);
  }
  DenseTensor dx_scratch, dscale_scratch, dbias_scratch;
  DenseTensor* dx_target = TargetOrScratch(dx, x.dims(), &dx_scratch);
  if (dx != nullptr) dx->set_lod(x.lod());
  DenseTensor* dscale_target = nullptr;
  DenseTensor* dbias_target = nullptr;
  if (affine) {
    dscale_target = TargetOrScratch(dscale, DDim({rows.right}), &dscale_scratch);
    dbias_target = TargetOrScratch(dbias, DDim({rows.right}), &dbias_scratch);
  }
  const auto& dev = ctx.device_context<platform::OneDNNContext>();
  try {
    const dnnl::engine& e = dev.engine();
    const RowDescs md(rows);
    const float epsilon = ctx.Attr<float>("epsilon");
    const Flags flags = affine ? Flags::use_scale | Flags::use_shift : Flags::none;
    const dnnl::layer_normalization_forward::primitive_desc hint(
        dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_training, md.data, md.stat,
                                                epsilon, flags),
        e);
    const dnnl::layer_normalization_backward::primitive_desc pd(
        dnnl::layer_normalization_backward::desc(
            affine ? dnnl::prop_kind::backward : dnnl::prop_kind::backward_data, md.data, md.data,
            md.stat, epsilon, flags),
        e, hint);
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, WrapTensor(md.data, e, x)},
        {DNNL_ARG_DIFF_DST, WrapTensor(md.data, e, dy)},
        {DNNL_ARG_MEAN, WrapTensor(md.stat, e, mean)},
        {DNNL_ARG_VARIANCE, WrapTensor(md.stat, e, var)},
        {DNNL_ARG_DIFF_SRC, WrapTensor(md.data, e, *dx_target)}};
    if (affine) {
      args[DNNL_ARG_SCALE] = WrapTensor(md.param, e, scale);
      args[DNNL_ARG_SHIFT] = WrapTensor(md.param, e, shift);
      args[DNNL_ARG_DIFF_SCALE] = WrapTensor(md.param, e, *dscale_target);
      args[DNNL_ARG_DIFF_SHIFT] = WrapTensor(md.param, e, *dbias_target);
    }
    Execute(dnnl::layer_normalization_backward(pd), dev.stream(), args);
    dev.stream().wait();
  } catch (const dnnl::error& err) {
    throw errors::Fatal(
        "op `%s`: oneDNN layer normalization backward failed for X %s as rows [%s, %s]: %s",
        kLayerNormGradOp, x.dims().ToString(), std::to_string(rows.left),
        std::to_string(rows.right), err.what());
  }
}

}  // namespace operators
}  // namespace paddle_like

// Geometry of conv2d and pool2d, shared by shape inference and by every kernel (plain and
// library): the attributes are checked and the paddings resolved in one place.
//
// Padding rules (PaddlePaddle's UpdatePaddingAndDilation):
//   paddings [p_h, p_w] mean [p_h, p_h, p_w, p_w]; four values are [top, bottom, left, right];
//   padding_algorithm "SAME": out = ceil(in / stride),
//     pad_sum = max((out - 1) * stride + k - in, 0), top/left = pad_sum / 2, the rest
//     bottom/right; conv2d dilations become 1;
//   padding_algorithm "VALID": no padding.
// Unknown dims (-1, at program-build time) give unknown output dims.
//
// The plain CPU kernels are declared here too, so library kernels (oneDNN) can compute the
// cases their primitives do not cover with the same code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/attribute.h"
#include "framework/ddim.h"
#include "framework/grad_op_maker.h"
#include "framework/shape_inference.h"
#include "framework/operator.h"
#include "operators/math/blas.h"
#include "operators/math/im2col.h"

namespace paddle_like {
namespace operators {

struct Conv2dGeometry {
  bool channel_last = false;  // data_format "NHWC".
  int64_t batch = 0, in_c = 0, in_h = 0, in_w = 0;
  int64_t out_c = 0, out_h = 0, out_w = 0;
  int64_t groups = 1;
  int64_t kernel_h = 0, kernel_w = 0;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;

  // [N, C_out, H_out, W_out], or [N, H_out, W_out, C_out] for NHWC.
  framework::DDim OutputDims() const;
  // [N, C_in, H, W], or [N, H, W, C_in] for NHWC.
  framework::DDim InputDims() const;
  math::Conv2dWindow Window() const;
};

// Checks Input ([N, C, H, W] or [N, H, W, C]) and Filter ([C_out, C / groups, kh, kw])
// against the attributes of conv2d `op` and resolves the geometry. InvalidArgumentError
// names the op, the slot or attribute and the shapes.
Conv2dGeometry ResolveConv2d(const std::string& op, const framework::DDim& input,
                             const framework::DDim& filter, const framework::AttributeMap& attrs);

// conv2d_transpose: Input [N, C_in, H, W] (or NHWC) and Filter [C_in, C_out / groups, kh, kw].
// Its output is the input gradient of the convolution returned, so the result describes
// that convolution: g.in_* is the transpose's output (C_out channels, InputDims()) and g.out_*
// its input (C_in channels). Output size per axis (PaddlePaddle's rule):
//   (in - 1) * stride - pad0 - pad1 + dilation * (k - 1) + 1,
// replaced by `output_size` when given (it must lie in [that, that + stride)), else plus
// `output_padding` (each in [0, max(stride, dilation))). SAME/VALID paddings are computed
// from the transpose's input size as for conv2d.
Conv2dGeometry ResolveConv2dTranspose(const std::string& op, const framework::DDim& input,
                                      const framework::DDim& filter,
                                      const framework::AttributeMap& attrs);

// ResolveConv2dTranspose for a kernel: the op's Input, Filter and attributes, with
// `output_size` taken from the optional input OutputSizeTensorList (one-element int tensors,
// which PaddlePaddle's PIR op computes when the program runs) where the op has it.
Conv2dGeometry ResolveConv2dTransposeAt(const framework::ExecutionContext& ctx);

// The geometry of a conv2d_grad / conv2d_transpose_grad kernel's op (and their depthwise
// forms) from its Input, Filter and attributes, with Output@GRAD checked against the forward
// output's dims.
Conv2dGeometry ResolveConv2dGrad(const framework::ExecutionContext& ctx);
Conv2dGeometry ResolveConv2dTransposeGrad(const framework::ExecutionContext& ctx);
// conv2d_transpose_grad's geometry from its shapes: the forward's, with the output size that
// Output@GRAD (`dout`) has when no attribute fixes it (the forward op may have been sized at
// run time by OutputSizeTensorList, which the backward does not read).
Conv2dGeometry ResolveConv2dTransposeGrad(const std::string& op, const framework::DDim& input,
                                          const framework::DDim& filter,
                                          const framework::DDim& dout,
                                          const framework::AttributeMap& attrs);

// InvalidArgumentError naming `op` unless conv2d_transpose's optional Bias `bias` is
// [out_channels] (unknown dims, -1, match anything).
void CheckConvTransposeBias(const std::string& op, const framework::DDim& bias,
                            int64_t out_channels);

// The grad ops of conv2d and conv2d_transpose (and their depthwise forms): one fused op
// `<forward>_grad` reading Input, Filter and Output@GRAD, writing Input@GRAD and Filter@GRAD.
void ConvFusedGradMaker(framework::GradOpBuilder* g);
// Their shape inference: Output@GRAD must have the forward output's dims `expected` (unknown
// dims match anything); the gradients take Input's and Filter's dims.
void ConvGradInferShape(framework::InferShapeContext* ctx, const framework::DDim& expected);

// UnimplementedError when `attrs` ask for a fusion (fuse_relu, fuse_activation,
// fuse_residual_connection, ...) that conv2d here does not perform.
void CheckNoConvFusion(const std::string& op, const framework::AttributeMap& attrs);

struct Pool2dGeometry {
  bool channel_last = false;
  bool is_max = true;
  bool exclusive = true;  // avg: divide by the number of non-padding elements.
  bool adaptive = false;  // Window i covers [floor(i * in / out), ceil((i + 1) * in / out)).
  int64_t batch = 0, channels = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 0, kernel_w = 0, stride_h = 1, stride_w = 1;
  // As resolved from the attributes; with ceil_mode the last windows may reach further.
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;

  framework::DDim OutputDims() const;
  // The input range [*begin, *end) of output row (rows) or column `o`'s window, clipped to
  // the image (empty when it lies in the padding).
  void Window(bool rows, int64_t o, int64_t* begin, int64_t* end) const;
  // The divisor extent of a non-exclusive average along rows or columns for output `o`:
  // the window clipped to the input plus the leading padding, counted from its unclipped
  // start. PaddlePaddle (like PyTorch) clips at in + pad_top (pad_left) on both ends, so a
  // window that ceil_mode or a larger trailing padding lets reach further counts less.
  int64_t AvgExtent(bool rows, int64_t o) const;
  // True when a non-exclusive average's divisor is not the full kernel somewhere (AvgExtent
  // short of it): oneDNN's include-padding average divides by the kernel everywhere.
  bool HasShortAvgWindow() const;
  // True when some window covers only padding (its result is 0 by convention).
  bool HasEmptyWindow() const;
  // An adaptive pooling whose output sizes divide the input sizes has equal, disjoint windows
  // in / out wide: it is the fixed pooling AsFixedWindows() returns (kernel = stride = in / out,
  // no padding), which kernels without an adaptive mode can run.
  bool HasUniformAdaptiveWindows() const;
  Pool2dGeometry AsFixedWindows() const;
  // Max pooling over windows that tile the input from its corner (stride = window, no
  // padding reached; rows and columns past the last window are in none): each element is in
  // at most one window.
  bool IsDisjointMax() const;
  // The same over 2x2 windows, most CNNs' pooling, which the plain kernels have a fast path
  // for.
  bool IsDisjointMax2x2() const;
};

Pool2dGeometry ResolvePool2d(const std::string& op, const framework::DDim& x,
                             const framework::AttributeMap& attrs);

// InvalidArgumentError naming `op` and input `slot` unless `received` equals `expected`
// (the grad ops check Output@GRAD, Out and Out@GRAD against the forward geometry).
void CheckGradInputShape(const std::string& op, const char* slot, const framework::DDim& expected,
                         const framework::DDim& received);

// The data of `t` in NCHW order: t's own buffer, or a copy in `storage` when `channel_last`
// (t is then [N, H, W, C]). T = float or double.
template <typename T>
const T* NchwData(const framework::DenseTensor& t, bool channel_last, std::vector<T>* storage);

// The plain CPU kernels (defined in conv2d_op.cc, conv2d_transpose_op.cc and pool2d_op.cc;
// T = float or double).
// The plain kernels' computations, which run their products through `gemm`.
template <typename T>
void Conv2dPlainCompute(const framework::ExecutionContext& ctx,
                        math::GemmFn<T> gemm = &math::Gemm<T>);
template <typename T>
void Conv2dTransposePlainCompute(const framework::ExecutionContext& ctx,
                                 math::GemmFn<T> gemm = &math::Gemm<T>);  // conv2d_transpose_op.cc
template <typename T>
void Conv2dTransposeGradPlainCompute(const framework::ExecutionContext& ctx);  // the same
template <typename T>
void Pool2dPlainCompute(const framework::ExecutionContext& ctx);
template <typename T>
void Pool2dGradPlainCompute(const framework::ExecutionContext& ctx);

// `out` = [channels] sums of NCHW (or NHWC) data over images and each image's `plane`
// positions, in double, in order (fused_relu_pool2d_grad's ChannelSum; pool2d_op.cc).
template <typename T>
void WriteChannelSums(const T* data, bool channel_last, int64_t batch, int64_t channels,
                      int64_t plane, framework::DenseTensor* out);

}  // namespace operators
}  // namespace paddle_like

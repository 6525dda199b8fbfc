// The three computations of a 2-D convolution on NCHW data, shared by conv2d and
// conv2d_transpose (whose forward is conv2d's input gradient and whose input gradient is
// conv2d's forward). `g` describes the convolution: g.in_* is its input, g.out_* its output.
// Work is split over images (or groups) and the CPU context's threads with a split that
// depends only on the sizes and the thread count, so results are reproducible.
// T = float or double. Each runs its products through `gemm`, math::Gemm unless a caller
// brings a faster one for its type (the oneDNN kernels bring oneDNN's sgemm).
#pragma once

#include <vector>

#include "framework/ddim.h"
#include "operators/math/blas.h"
#include "operators/nn/conv_pool_shape.h"
#include "platform/device_context.h"

namespace paddle_like {
namespace operators {

// out [N, C_out, H_out, W_out] = conv(in [N, C_in, H, W], filter [C_out, C_in / groups, kh, kw]).
template <typename T>
void ConvForwardNchw(const platform::CPUDeviceContext& dev, const Conv2dGeometry& g, const T* in,
                     const T* filter, T* out, math::GemmFn<T> gemm = &math::Gemm<T>);

// din [N, C_in, H, W] from dout [N, C_out, H_out, W_out] (overwritten, not accumulated).
template <typename T>
void ConvInputGradNchw(const platform::CPUDeviceContext& dev, const Conv2dGeometry& g,
                       const T* filter, const T* dout, T* din,
                       math::GemmFn<T> gemm = &math::Gemm<T>);

// din [N, H, W, C_in] (channel-last) from dout [N, H_out, W_out, C_out] (channel-last) and
// filter [C_out, C_in, kh, kw], for an ungrouped convolution (g.groups == 1; g.channel_last
// is ignored: both are read and written channel-last). Per image one GEMM, dcol [H_out W_out,
// kh kw C_in] = dOutput [H_out W_out, C_out] * Filter as [C_out, kh kw C_in], then each row
// of dcol is added into the window it came from: with dilation_w 1 a window row's kw taps
// are kw * C_in contiguous floats in both, so the adds run over long rows (NCHW's col2im adds
// rows of W_out).
template <typename T>
void ConvInputGradNhwc(const platform::CPUDeviceContext& dev, const Conv2dGeometry& g,
                       const T* filter, const T* dout, T* din,
                       math::GemmFn<T> gemm = &math::Gemm<T>);

// dfilter [C_out, C_in / groups, kh, kw]; images are added in order n = 0, 1, ...
template <typename T>
void ConvFilterGradNchw(const platform::CPUDeviceContext& dev, const Conv2dGeometry& g,
                        const T* in, const T* dout, T* dfilter,
                        math::GemmFn<T> gemm = &math::Gemm<T>);

// Writes `nchw` (logical dims [N, C, H, W]) into `dst` of dims `dims` (NCHW, or NHWC when
// `channel_last`).
template <typename T>
void StoreFromNchw(const std::vector<T>& nchw, bool channel_last, const framework::DDim& dims,
                   T* dst);

}  // namespace operators
}  // namespace paddle_like

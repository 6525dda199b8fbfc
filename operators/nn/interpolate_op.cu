// CUDA kernels of the interpolation ops (nearest, linear, bilinear and trilinear _interp and
// _interp_v2) and their fused grad ops, float and double, on the CPU kernels' geometry
// (interpolate_util.h): the host resolves the size and ratios and builds each axis's taps,
// which the kernels read, so both devices sample the same pixels with the same weights.
//
// The forward sums each output pixel's taps in the CPU kernel's order (depth, height, width).
// The grad is a gather, deterministic without atomics: each input-gradient element sums, in
// increasing output order and then tap order (the order in which the CPU kernel adds them),
// the output-gradient elements whose taps read it, found through each axis's reader ranges.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/nn/interpolate_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DataType;
using framework::DDim;
using framework::DenseTensor;
using framework::ExecutionContext;
using interp::AxisTaps;
using interp::InterpGeometry;

// Device views of the per-axis tables: taps[a] has out[a] entries (1 for a missing axis),
// ranges[a] 2 * in[a] values.
struct AxisTables {
  const AxisTaps* taps[3];
  const int64_t* ranges[3];
};

// The taps and reader ranges of the three axes, uploaded in one buffer that `storage` keeps.
AxisTables UploadTables(const ExecutionContext& ctx, const InterpGeometry& g, bool ranges,
                        DenseTensor* storage) {
  std::vector<AxisTaps> taps[3];
  std::vector<int64_t> reader[3];
  size_t bytes = 0;
  for (int a = 0; a < 3; ++a) {
    taps[a] = interp::AxisTapsOf(g, a);
    if (ranges) reader[a] = interp::ReaderRanges(taps[a], g.in[a]);
    bytes += taps[a].size() * sizeof(AxisTaps) + reader[a].size() * sizeof(int64_t);
  }
  // AxisTaps is 8-byte aligned, so every part starts aligned.
  std::vector<uint8_t> host(bytes);
  size_t offsets[6];
  size_t at = 0;
  for (int a = 0; a < 3; ++a) {
    offsets[a] = at;
    std::memcpy(host.data() + at, taps[a].data(), taps[a].size() * sizeof(AxisTaps));
    at += taps[a].size() * sizeof(AxisTaps);
  }
  for (int a = 0; a < 3; ++a) {
    offsets[3 + a] = at;
    if (!reader[a].empty()) {
      std::memcpy(host.data() + at, reader[a].data(), reader[a].size() * sizeof(int64_t));
    }
    at += reader[a].size() * sizeof(int64_t);
  }
  *storage = DenseTensor(DDim({static_cast<int64_t>(bytes)}), DataType::UINT8);
  uint8_t* dev = storage->mutable_data<uint8_t>(ctx.GetPlace());
  platform::Copy(ctx.GetPlace(), dev, platform::CPUPlace(), host.data(), bytes);
  AxisTables t;
  for (int a = 0; a < 3; ++a) {
    t.taps[a] = reinterpret_cast<const AxisTaps*>(dev + offsets[a]);
    t.ranges[a] = ranges ? reinterpret_cast<const int64_t*>(dev + offsets[3 + a]) : nullptr;
  }
  return t;
}

// Splits a flat index of an image of spatial size dims into (b, ch, d, y, x).
__device__ void Split(const InterpGeometry& g, const int64_t* dims, int64_t k, int64_t* b,
                      int64_t* ch, int64_t* d, int64_t* y, int64_t* x) {
  if (g.channel_last) {
    *ch = k % g.c;
    k /= g.c;
  }
  *x = k % dims[2];
  k /= dims[2];
  *y = k % dims[1];
  k /= dims[1];
  *d = k % dims[0];
  k /= dims[0];
  if (!g.channel_last) {
    *ch = k % g.c;
    k /= g.c;
  }
  *b = k;
}

template <typename T>
__global__ void InterpForward(InterpGeometry g, AxisTables tables, const T* in, int64_t n, T* out) {
  const int64_t in_pixels = g.InPixels();
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    int64_t b, ch, od, oy, ox;
    Split(g, g.out, k, &b, &ch, &od, &oy, &ox);
    const AxisTaps td = tables.taps[0][od], ty = tables.taps[1][oy], tx = tables.taps[2][ox];
    T sum = T(0);
    for (int i = 0; i < td.count; ++i)
      for (int j = 0; j < ty.count; ++j)
        for (int l = 0; l < tx.count; ++l) {
          const int64_t p = (td.index[i] * g.in[1] + ty.index[j]) * g.in[2] + tx.index[l];
          const float w = td.weight[i] * ty.weight[j] * tx.weight[l];
          sum += in[g.Offset(b, ch, p, in_pixels)] * T(w);
        }
    out[k] = sum;
  }
}

template <typename T>
__global__ void InterpBackward(InterpGeometry g, AxisTables tables, const T* dout, int64_t n,
                               T* dx) {
  const int64_t out_pixels = g.OutPixels();
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    int64_t b, ch, id, iy, ix;
    Split(g, g.in, k, &b, &ch, &id, &iy, &ix);
    const int64_t* rd = tables.ranges[0] + 2 * id;
    const int64_t* ry = tables.ranges[1] + 2 * iy;
    const int64_t* rx = tables.ranges[2] + 2 * ix;
    T sum = T(0);
    for (int64_t od = rd[0]; od < rd[1]; ++od) {
      const AxisTaps td = tables.taps[0][od];
      for (int64_t oy = ry[0]; oy < ry[1]; ++oy) {
        const AxisTaps ty = tables.taps[1][oy];
        for (int64_t ox = rx[0]; ox < rx[1]; ++ox) {
          const AxisTaps tx = tables.taps[2][ox];
          const T g_out = dout[g.Offset(b, ch, (od * g.out[1] + oy) * g.out[2] + ox, out_pixels)];
          for (int i = 0; i < td.count; ++i) {
            if (td.index[i] != id) continue;
            for (int j = 0; j < ty.count; ++j) {
              if (ty.index[j] != iy) continue;
              for (int l = 0; l < tx.count; ++l) {
                if (tx.index[l] != ix) continue;
                sum += g_out * T(td.weight[i] * ty.weight[j] * tx.weight[l]);
              }
            }
          }
        }
      }
    }
    dx[k] = sum;
  }
}

template <typename T>
struct InterpCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const InterpGeometry g = interp::ResolveInterp(ctx, x.dims());
    DenseTensor* out = ctx.Output("Out");
    out->Resize(g.OutDims());
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const int64_t n = out->numel();
    if (n == 0) return;
    if (g.SameSize()) {
      platform::Copy(ctx.GetPlace(), o, x.place(), x.data<T>(), sizeof(T) * n);
      return;
    }
    if (g.InPixels() == 0) {  // Nothing to sample from.
      platform::SetZero(ctx.GetPlace(), o, sizeof(T) * n);
      return;
    }
    DenseTensor storage;
    const AxisTables tables = UploadTables(ctx, g, false, &storage);
    InterpForward<T>
        <<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(g, tables, x.data<T>(), n, o);
    cuda::CheckLaunch(ctx);
  }
};

template <typename T>
struct InterpGradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DDim x_dims = ctx.Input("X")->dims();
    const DenseTensor dout = *ctx.Input("Out@GRAD");
    const InterpGeometry g = interp::ResolveInterp(ctx, x_dims);
    PL_ENFORCE(dout.dims() == g.OutDims(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), g.OutDims().ToString(), dout.dims().ToString()));
    DenseTensor* dx = ctx.Output("X@GRAD");
    dx->Resize(x_dims);
    T* o = dx->mutable_data<T>(ctx.GetPlace());
    const int64_t n = dx->numel();
    if (n == 0) return;
    if (g.SameSize()) {
      platform::Copy(ctx.GetPlace(), o, dout.place(), dout.data<T>(), sizeof(T) * n);
      return;
    }
    DenseTensor storage;
    const AxisTables tables = UploadTables(ctx, g, true, &storage);
    InterpBackward<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
        g, tables, dout.data<T>(), n, o);
    cuda::CheckLaunch(ctx);
  }
};

}  // namespace

CudaKernelTable InterpolateCudaKernels() {
  CudaKernelTable table;
  for (const char* method : {"nearest", "linear", "bilinear", "bicubic", "trilinear"}) {
    for (const char* version : {"_interp", "_interp_v2"}) {
      const std::string type = std::string(method) + version;
      AddCudaKernels<InterpCudaKernel, float, double>(&table, type);
      AddCudaKernels<InterpGradCudaKernel, float, double>(&table, type + "_grad");
    }
  }
  return table;
}

}  // namespace operators
}  // namespace paddle_like

// CUDA kernels of softmax_with_cross_entropy and its grad, one thread per row (each
// position outside the class dim), with the CPU kernel's formulas and double accumulators.
// Hard labels are checked on the host first: an out-of-range label is a typed error, never an
// out-of-bounds read on the device.
#include "framework/data_transform.h"
#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/loss/cross_entropy_util.h"
#include "operators/softmax/softmax_op.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DataType;
using framework::DenseTensor;
using framework::ExecutionContext;

struct Rows {
  int64_t outer, n, inner;
  bool soft, use_softmax;
  int64_t ignore;
};

// Hard labels as int32 or int64 on the device.
struct DeviceLabels {
  const int32_t* i32 = nullptr;
  const int64_t* i64 = nullptr;
  __device__ int64_t operator[](int64_t i) const { return i32 != nullptr ? i32[i] : i64[i]; }
};

template <typename T>
__device__ double TolerableLogOf(T v) {
  const double l = log(static_cast<double>(v));
  if (isinf(l)) return l > 0 ? 1e20 : -1e20;
  return l;
}

template <typename T>
__global__ void ForwardRows(const T* x, const T* soft_label, DeviceLabels hard, Rows r, T* sm,
                            T* loss) {
  const int64_t rows = r.outer * r.inner;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t pos = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; pos < rows;
       pos += step) {
    const int64_t o = pos / r.inner, i = pos % r.inner;
    const int64_t base = o * r.n * r.inner + i;
    double lse = 0;
    if (r.use_softmax && r.n > 0) {
      T max = x[base];
      for (int64_t j = 1; j < r.n; ++j) {
        const T v = x[base + j * r.inner];
        max = max > v ? max : v;
      }
      double sum = 0;
      for (int64_t j = 0; j < r.n; ++j) {
        sum += exp(static_cast<double>(x[base + j * r.inner] - max));
      }
      lse = static_cast<double>(max) + log(sum);
      for (int64_t j = 0; j < r.n; ++j) {
        const double v = static_cast<double>(x[base + j * r.inner]);
        sm[base + j * r.inner] = static_cast<T>(exp(v - lse));
      }
    } else {
      for (int64_t j = 0; j < r.n; ++j) sm[base + j * r.inner] = x[base + j * r.inner];
    }
    auto log_p = [&](int64_t j) -> double {
      const T v = x[base + j * r.inner];
      return r.use_softmax ? static_cast<double>(v) - lse : TolerableLogOf(v);
    };
    if (r.soft) {
      double acc = 0;
      for (int64_t j = 0; j < r.n; ++j) {
        acc -= static_cast<double>(soft_label[base + j * r.inner]) * log_p(j);
      }
      loss[pos] = static_cast<T>(acc);
    } else {
      const int64_t lbl = hard[pos];
      loss[pos] = lbl == r.ignore ? T(0) : static_cast<T>(-log_p(lbl));
    }
  }
}

template <typename T>
__global__ void BackwardRows(const T* p, const T* soft_label, DeviceLabels hard, const T* dloss,
                             Rows r, T* dx) {
  const int64_t rows = r.outer * r.inner;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t pos = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; pos < rows;
       pos += step) {
    const int64_t o = pos / r.inner, i = pos % r.inner;
    const int64_t base = o * r.n * r.inner + i;
    const T g = dloss[pos];
    if (r.soft) {
      if (r.use_softmax) {
        T label_sum = 0;
        for (int64_t j = 0; j < r.n; ++j) label_sum += soft_label[base + j * r.inner];
        for (int64_t j = 0; j < r.n; ++j) {
          const int64_t k = base + j * r.inner;
          dx[k] = (p[k] * label_sum - soft_label[k]) * g;
        }
      } else {
        for (int64_t j = 0; j < r.n; ++j) {
          const int64_t k = base + j * r.inner;
          dx[k] = -soft_label[k] / p[k] * g;
        }
      }
      continue;
    }
    const int64_t lbl = hard[pos];
    if (lbl == r.ignore) {
      for (int64_t j = 0; j < r.n; ++j) dx[base + j * r.inner] = T(0);
    } else if (r.use_softmax) {
      for (int64_t j = 0; j < r.n; ++j) dx[base + j * r.inner] = p[base + j * r.inner] * g;
      dx[base + lbl * r.inner] -= g;
    } else {
      for (int64_t j = 0; j < r.n; ++j) dx[base + j * r.inner] = T(0);
      dx[base + lbl * r.inner] = -g / p[base + lbl * r.inner];
    }
  }
}

// The rows of `x_slot` and the checked labels (hard ones read back to the host to check).
template <typename T>
Rows PrepareRows(const ExecutionContext& ctx, const char* x_slot, DeviceLabels* hard) {
  const DenseTensor* x = ctx.Input(x_slot);
  const DenseTensor* label = ctx.Input("Label");
  const SoftmaxDims d = GetSoftmaxDims(ctx.Type(), x->dims(), ctx.Attr<int>("axis"));
  Rows r{d.outer, d.n, d.inner, ctx.Attr<bool>("soft_label"), ctx.Attr<bool>("use_softmax"),
         ctx.Attr<int>("ignore_index")};
  if (r.soft) {
    CheckSoftLabelType(ctx.Type(), *label, platform::ToDataType<T>());
    return r;
  }
  const DenseTensor host = framework::OnCpu(*label);
  const IntLabels labels(host, ctx.Type(), "Label");
  for (int64_t pos = 0; pos < r.outer * r.inner; ++pos) {
    CheckHardLabel(ctx.Type(), labels[pos], r.n, r.ignore, pos);
  }
  if (label->dtype() == DataType::INT32) {
    hard->i32 = label->data<int32_t>();
  } else {
    hard->i64 = label->data<int64_t>();
  }
  return r;
}

template <typename T>
struct SoftmaxWithCrossEntropyCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* logits = ctx.Input("Logits");
    DeviceLabels hard;
    const Rows r = PrepareRows<T>(ctx, "Logits", &hard);
    const T* soft_label = r.soft ? ctx.Input("Label")->data<T>() : nullptr;
    DenseTensor sm_out(logits->dims(), logits->dtype());
    DenseTensor loss_out(ctx.Output("Loss")->dims(), logits->dtype());
    T* sm = sm_out.mutable_data<T>(ctx.GetPlace());
    T* loss = loss_out.mutable_data<T>(ctx.GetPlace());
    const int64_t rows = r.outer * r.inner;
    if (rows > 0) {
      ForwardRows<T><<<cuda::Blocks(rows), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          logits->data<T>(), soft_label, hard, r, sm, loss);
      cuda::CheckLaunch(ctx);
    }
    sm_out.set_lod(logits->lod());
    loss_out.set_lod(logits->lod());
    *ctx.Output("Softmax") = std::move(sm_out);
    *ctx.Output("Loss") = std::move(loss_out);
  }
};

template <typename T>
struct SoftmaxWithCrossEntropyGradCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* softmax = ctx.Input("Softmax");
    const DenseTensor* dloss = ctx.Input("Loss@GRAD");
    DeviceLabels hard;
    const Rows r = PrepareRows<T>(ctx, "Softmax", &hard);
    PL_ENFORCE(dloss->numel() == r.outer * r.inner,
               errors::InvalidArgument("op `%s` input `Loss@GRAD`: expected %lld elements, "
                                       "received shape %s",
                                       ctx.Type(), static_cast<long long>(r.outer * r.inner),
                                       dloss->dims().ToString()));
    const T* soft_label = r.soft ? ctx.Input("Label")->data<T>() : nullptr;
    DenseTensor dx_out(softmax->dims(), softmax->dtype());
    T* dx = dx_out.mutable_data<T>(ctx.GetPlace());
    const int64_t rows = r.outer * r.inner;
    if (rows > 0) {
      BackwardRows<T><<<cuda::Blocks(rows), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          softmax->data<T>(), soft_label, hard, dloss->data<T>(), r, dx);
      cuda::CheckLaunch(ctx);
    }
    dx_out.set_lod(softmax->lod());
    *ctx.Output("Logits@GRAD") = std::move(dx_out);
  }
};

}  // namespace

CudaKernelTable LossCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<SoftmaxWithCrossEntropyCudaKernel, float, double>(
      &table, "softmax_with_cross_entropy");
  AddCudaKernels<SoftmaxWithCrossEntropyGradCudaKernel, float, double>(
      &table, "softmax_with_cross_entropy_grad");
  return table;
}

}  // namespace operators
}  // namespace paddle_like

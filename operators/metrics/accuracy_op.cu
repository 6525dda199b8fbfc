// CUDA kernel of accuracy (float and double Out, int32 or int64 Indices and Label, checked as
// on the CPU): one block counts the samples whose label is among their indices. The count is
// an integer, so the order of the sum does not matter; Accuracy = Correct / Total in float,
// the CPU's division.
#include <cstdint>

#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/loss/cross_entropy_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DataType;
using framework::DenseTensor;
using framework::ExecutionContext;

constexpr int kBlock = 256;  // A power of two for the tree reduction.

// An int32 or int64 tensor's values on the device, read as int64.
struct DeviceInts {
  const int32_t* i32 = nullptr;
  const int64_t* i64 = nullptr;
  __device__ int64_t operator[](int64_t i) const { return i32 != nullptr ? i32[i] : i64[i]; }
};

DeviceInts DeviceIntsOf(const DenseTensor& t, const char* slot) {
  IntLabels check(t, "accuracy", slot);  // The CPU kernel's dtype check and error.
  static_cast<void>(check);
  DeviceInts d;
  if (t.numel() == 0) return d;
  if (t.dtype() == DataType::INT32) {
    d.i32 = t.data<int32_t>();
  } else {
    d.i64 = t.data<int64_t>();
  }
  return d;
}

__global__ void CountHits(DeviceInts indices, DeviceInts label, int64_t n, int64_t k,
                          float* accuracy, int32_t* correct, int32_t* total) {
  __shared__ long long partial[kBlock];
  long long hits = 0;
  for (int64_t i = threadIdx.x; i < n; i += kBlock) {
    for (int64_t j = 0; j < k; ++j) {
      if (indices[i * k + j] == label[i]) {
        ++hits;
        break;
      }
    }
  }
  partial[threadIdx.x] = hits;
  __syncthreads();
  for (int width = kBlock / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) partial[threadIdx.x] += partial[threadIdx.x + width];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    *accuracy = n == 0 ? 0.0f : static_cast<float>(partial[0]) / static_cast<float>(n);
    *correct = static_cast<int32_t>(partial[0]);
    *total = static_cast<int32_t>(n);
  }
}

template <typename T>
struct AccuracyCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor indices = *ctx.Input("Indices");
    const DenseTensor label = *ctx.Input("Label");
    const DeviceInts idx = DeviceIntsOf(indices, "Indices");
    const DeviceInts lab = DeviceIntsOf(label, "Label");
    const int64_t n = indices.dims()[0];
    const int64_t k = indices.dims()[1];
    const auto place = ctx.GetPlace();
    float* accuracy = ctx.Output("Accuracy")->mutable_data<float>(place);
    int32_t* correct = ctx.Output("Correct")->mutable_data<int32_t>(place);
    int32_t* total = ctx.Output("Total")->mutable_data<int32_t>(place);
    CountHits<<<1, kBlock, 0, cuda::Stream(ctx)>>>(idx, lab, n, k, accuracy, correct, total);
    cuda::CheckLaunch(ctx);
  }
};

}  // namespace

CudaKernelTable MetricsCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<AccuracyCudaKernel, float, double>(&table, "accuracy");
  return table;
}

}  // namespace operators
}  // namespace paddle_like

// CUDA kernels of the detection ops that decode and encode boxes, float and double: yolo_box
// (one thread per anchor cell) and box_coder (one thread per output box). The formulas are
// the CPU kernels' own (yolo_box_util.h, box_coder_util.h), and the host resolves the shapes
// and attributes with the CPU kernels' checks. prior_box and density_prior_box run their CPU
// kernels on every device (prior_box_op.cc); the NMS ops stay on the CPU.
#include <cstdint>
#include <vector>

#include "operators/cuda/cuda_kernel_table.h"
#include "operators/cuda/cuda_util.h"
#include "operators/detection/box_coder_util.h"
#include "operators/detection/yolo_box_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DataType;
using framework::DDim;
using framework::DenseTensor;
using framework::ExecutionContext;

// ImgSize (int32 or int64, [N, 2]) is read on the device, where the executor put it (as it
// does every input of a CUDA kernel): no round trip through the host.
template <typename T, typename I>
__global__ void YoloBoxRows(yolo::YoloBoxParams p, const T* x, const I* img_size,
                            const int* anchors, int64_t n, T* boxes, T* scores) {
  const int64_t box_count = p.BoxCount(), stride = p.Stride();
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    const int64_t b = k / box_count, a = (k % box_count) / stride, cell = k % stride;
    yolo::DecodeYoloRow(p, x + b * p.ImageSize(), a, cell, static_cast<int64_t>(img_size[2 * b]),
                        static_cast<int64_t>(img_size[2 * b + 1]), anchors[2 * a],
                        anchors[2 * a + 1], boxes + k * 4, scores + k * p.classes);
  }
}

template <typename T>
struct YoloBoxCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const yolo::YoloBoxParams p = yolo::ResolveYoloBox(ctx);
    const platform::Place place = ctx.GetPlace();
    const DenseTensor& x = *ctx.Input("X");
    const DenseTensor& img_size = *ctx.Input("ImgSize");
    const std::vector<int>& anchors = ctx.Attr<std::vector<int>>("anchors");
    const int64_t box_count = p.BoxCount(), n = p.n * box_count;
    DenseTensor* boxes = ctx.Output("Boxes");
    DenseTensor* scores = ctx.Output("Scores");
    boxes->Resize(DDim{p.n, box_count, 4});
    scores->Resize(DDim{p.n, box_count, p.classes});
    T* bx = boxes->mutable_data<T>(place);
    T* sc = scores->mutable_data<T>(place);
    if (n == 0) return;
    DenseTensor anchor_storage(DDim{static_cast<int64_t>(anchors.size())}, DataType::INT32);
    int* dev_anchors = anchor_storage.mutable_data<int>(place);
    platform::Copy(place, dev_anchors, platform::CPUPlace(), anchors.data(),
                   anchors.size() * sizeof(int));
    if (img_size.dtype() == DataType::INT32) {
      YoloBoxRows<T, int32_t><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          p, x.data<T>(), img_size.data<int32_t>(), dev_anchors, n, bx, sc);
    } else {
      YoloBoxRows<T, int64_t><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
          p, x.data<T>(), img_size.data<int64_t>(), dev_anchors, n, bx, sc);
    }
    cuda::CheckLaunch(ctx);
  }
};

template <typename T>
__global__ void BoxCoderBoxes(box_coder::BoxCoderParams c, const T* prior, const T* prior_var,
                              const T* target, int64_t n, T* out) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    box_coder::CodeBox(c, prior, prior_var, target, k / c.cols, k % c.cols, out + k * 4);
  }
}

template <typename T>
struct BoxCoderCudaKernel {
  static void Compute(const ExecutionContext& ctx) {
    const box_coder::BoxCoderParams c = box_coder::ResolveBoxCoder(ctx);
    const platform::Place place = ctx.GetPlace();
    const DenseTensor& prior = *ctx.Input("PriorBox");
    const DenseTensor& target = *ctx.Input("TargetBox");
    const DenseTensor* var = ctx.HasInput("PriorBoxVar") ? ctx.Input("PriorBoxVar") : nullptr;
    DenseTensor* out = ctx.Output("OutputBox");
    out->Resize(DDim{c.rows, c.cols, 4});
    T* o = out->mutable_data<T>(place);
    const int64_t n = c.rows * c.cols;
    if (n == 0) return;
    const T* v = var != nullptr && var->numel() > 0 ? var->data<T>() : nullptr;
    BoxCoderBoxes<T><<<cuda::Blocks(n), cuda::kThreads, 0, cuda::Stream(ctx)>>>(
        c, prior.data<T>(), v, target.data<T>(), n, o);
    cuda::CheckLaunch(ctx);
  }
};

}  // namespace

CudaKernelTable DetectionCudaKernels() {
  CudaKernelTable table;
  AddCudaKernels<YoloBoxCudaKernel, float, double>(&table, "yolo_box");
  AddCudaKernels<BoxCoderCudaKernel, float, double>(&table, "box_coder");
  return table;
}

}  // namespace operators
}  // namespace paddle_like

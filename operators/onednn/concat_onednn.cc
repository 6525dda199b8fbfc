// dnnl::concat for `concat` of float32 tensors, along any axis (attribute or AxisTensor,
// negative values counting from the end, as the plain kernel reads it: KernelAxis).
//
// Inputs with no elements add nothing and are left out of the primitive. An empty Out, an
// input of another dtype (which the plain kernel rejects) and row-major outputs below
// kMinNumel elements go to the plain kernel (RunPlainKernel): in
// tests/benchmarks/onednn_misc_benchmark (2 threads, three inputs on axis 1) [64, 100] takes
// 3.72 us plain and 7.09 us on oneDNN, [64, 500] 9.86 and 9.70 us, [64, 2000] 99.7 and 34.2 us.
//
// Inputs are read in the layout they come in (a convolution's blocked output is reordered
// straight into its place in Out). Concatenating 4-D tensors along the channels with at
// least one input in a oneDNN layout, Out is written channel-last (nhwc) where the executor
// lets it keep that layout: the format oneDNN's 1x1 and depthwise convolutions, batch norm
// and pooling read without a reorder on AVX-512, so that a DenseNet's dense block (concat,
// batch norm, relu, 1x1 convolution) runs without one; row-major there cost a reorder to
// NCHW before the concat and one back after it (DenseNet-121 at batch 1 on 2 threads:
// docs/benchmarks.md, "Concatenated feature maps kept channel-last").
//
// Out is written to a fresh tensor that replaces it at the end, so it may be one of the
// inputs; it takes X[0]'s LoD unless the axis is 0, as in the plain kernel.
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <vector>

#include "operators/common.h"
#include "operators/onednn/onednn_layout.h"
#include "operators/onednn/onednn_memory.h"
#include "operators/onednn/onednn_threads.h"
#include "operators/onednn/plain_fallback.h"
#include "operators/op_family.h"
#include "operators/tensor/concat_split_util.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::memory;

constexpr int64_t kMinNumel = int64_t{1} << 17;

void ConcatOneDNNKernel(const ExecutionContext& ctx) {
  const std::vector<const DenseTensor*> xs = ctx.MultiInput("X");
  bool any_opaque = false;
  for (const DenseTensor* t : xs) {
    if (t->dtype() != DataType::FLOAT32) {
      RunPlainKernel(ctx);
      return;
    }
    any_opaque = any_opaque || OneDNNLayoutOf(*t) != nullptr;
  }
  const int axis = KernelAxis(ctx, xs[0]->dims().size());
  std::vector<DDim> dims;
  for (const DenseTensor* t : xs) dims.push_back(t->dims());
  const DDim out_dims = ConcatDims("concat", dims, axis);
  if (out_dims.numel() == 0 || (!any_opaque && BelowOneDNNThreshold(out_dims.numel(), kMinNumel))) {
    RunPlainKernel(ctx);
    return;
  }
  const auto& dev = ctx.device_context<platform::OneDNNContext>();
  std::vector<memory::desc> mds;
  std::unordered_map<int, memory> args;
  for (const DenseTensor* t : xs) {
    if (t->numel() == 0) continue;
    memory m = InputMemory(*t, RowMajorDesc(t->dims()), dev.engine());
    mds.push_back(m.get_desc());
    args.emplace(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(mds.size() - 1), std::move(m));
  }
  const memory::desc user_md = RowMajorDesc(out_dims);
  const bool channel_last =
      any_opaque && out_dims.size() == 4 && axis == 1 && ctx.OutputMayBeOpaque("Out");
  const memory::desc dst_md =
      channel_last
          ? memory::desc(out_dims.ToVector(), memory::data_type::f32, memory::format_tag::acdb)
          : user_md;
  DenseTensor fresh(out_dims, DataType::FLOAT32);
  fresh.set_opaque_layout(OutputLayout(channel_last, dst_md, user_md));
  args.emplace(DNNL_ARG_DST,
               memory(dst_md, dev.engine(), fresh.mutable_data<float>(ctx.GetPlace())));
  const auto threads = LimitThreadsForWork(dev, static_cast<double>(out_dims.numel()));
  try {
    const dnnl::concat::primitive_desc pd(dst_md, axis, mds, dev.engine());
    Execute(dnnl::concat(pd), dev.stream(), args);
    dev.stream().wait();
  } catch (const dnnl::error& e) {
    throw errors::Fatal("op `concat`: oneDNN concat of %zu inputs into %s along axis %d failed: %s",
                        mds.size(), out_dims.ToString(), axis, e.what());
  }
  if (axis != 0) fresh.set_lod(xs[0]->lod());
  *ctx.Output("Out") = std::move(fresh);
}

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterConcatOneDNNKernels) {
  // oneDNN concat moves f32 (and narrower) data; float64 and the integer types stay plain.
  framework::RegisterKernel("concat", DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                            ConcatOneDNNKernel);
  framework::KernelRegistry::Instance().DeclareOpaqueInputs("concat", LibraryType::kOneDNN, {"X"});
}

}  // namespace operators
}  // namespace paddle_like

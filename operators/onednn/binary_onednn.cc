// dnnl::binary for elementwise_add, _sub, _mul and _div (forward), float32.
//
// Broadcasting follows the plain kernel's `axis` rule (math::ComputeBroadcastDims): Y is
// described with Out's rank and 1s where it broadcasts, which the primitive broadcasts
// itself. The primitive broadcasts src1 only, so when X would broadcast (X smaller than Y
// in some dim) the plain kernel runs (RunPlainKernel), as it does for 0-D or empty
// tensors, an input of another dtype (which it rejects) and outputs below kMinNumel
// elements. The ops are memory-bound and the plain loop vectorises, so the primitive only
// pays off on large tensors: in tests/benchmarks/onednn_misc_benchmark (2 threads)
// [64, 20, 24, 24] + [20] takes 88.8 us plain and 97.1 us on oneDNN, [64, 64, 56, 56] + [64]
// 2147 and 1981 us; [64, 500] + [500] 3.1 and 6.8 us.
//
// Out may be X (the primitive's in-place pair); Out that is Y gets a fresh buffer, moved
// into Out at the end with X's LoD. Otherwise Out keeps the LoD shape inference gave it.
#include <oneapi/dnnl/dnnl.hpp>

#include "operators/common.h"
#include "operators/math/broadcast.h"
#include "operators/onednn/onednn_memory.h"
#include "operators/onednn/plain_fallback.h"
#include "operators/op_family.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::algorithm;
using dnnl::memory;

constexpr int64_t kMinNumel = int64_t{1} << 22;

template <algorithm kAlg>
void BinaryOneDNNKernel(const ExecutionContext& ctx) {
  const DenseTensor* x = ctx.Input("X");
  const DenseTensor* y = ctx.Input("Y");
  if (x->dtype() != DataType::FLOAT32 || y->dtype() != DataType::FLOAT32) {
    RunPlainKernel(ctx);
    return;
  }
  const math::BroadcastDims bd =
      math::ComputeBroadcastDims(ctx.Type(), x->dims(), y->dims(), ctx.Attr<int>("axis"));
  const int64_t n = bd.out.numel();
  if (bd.x != bd.out || bd.out.size() == 0 || n == 0 || BelowOneDNNThreshold(n, kMinNumel)) {
    RunPlainKernel(ctx);
    return;
  }
  DenseTensor* out = ctx.Output("Out");
  const framework::LoD lod = x->lod();
  const auto& dev = ctx.device_context<platform::OneDNNContext>();
  const memory::desc x_md = RowMajorDesc(bd.out);
  const memory::desc y_md = RowMajorDesc(bd.y);
  // Wrap the inputs before Out gets a buffer: Out may be X, whose buffer then stays.
  const memory src0 = WrapTensor(x_md, dev.engine(), *x);
  const memory src1 = WrapTensor(y_md, dev.engine(), *y);
  DenseTensor fresh;
  DenseTensor* target = out == y ? &fresh : out;
  target->Resize(bd.out);
  float* o = target->mutable_data<float>(ctx.GetPlace());
  try {
    const dnnl::binary::primitive_desc pd(dnnl::binary::desc(kAlg, x_md, y_md, x_md), dev.engine());
    dnnl::binary(pd).execute(dev.stream(), {{DNNL_ARG_SRC_0, src0},
                                            {DNNL_ARG_SRC_1, src1},
                                            {DNNL_ARG_DST, memory(x_md, dev.engine(), o)}});
    dev.stream().wait();
  } catch (const dnnl::error& e) {
    throw errors::Fatal("op `%s`: oneDNN binary failed for X %s, Y %s (axis %d): %s", ctx.Type(),
                        x->dims().ToString(), y->dims().ToString(), ctx.Attr<int>("axis"),
                        e.what());
  }
  if (target == &fresh) {
    fresh.set_lod(lod);
    *out = std::move(fresh);
  }
}

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterBinaryOneDNNKernels) {
  // float64 stays on the plain kernels (no f64 binary primitive).
  struct Entry {
    const char* type;
    framework::KernelFn fn;
  };
  const Entry entries[] = {
      {"elementwise_add", BinaryOneDNNKernel<algorithm::binary_add>},
      {"elementwise_sub", BinaryOneDNNKernel<algorithm::binary_sub>},
      {"elementwise_mul", BinaryOneDNNKernel<algorithm::binary_mul>},
      {"elementwise_div", BinaryOneDNNKernel<algorithm::binary_div>},
  };
  for (const Entry& e : entries) {
    framework::RegisterKernel(e.type, DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                              e.fn);
    // dnnl::binary computes dst over src0 (and the plain kernel it hands small inputs to
    // over either input).
    framework::KernelRegistry::Instance().DeclareInPlace(e.type, LibraryType::kOneDNN,
                                                         {{"X", "Out"}});
  }
}

}  // namespace operators
}  // namespace paddle_like

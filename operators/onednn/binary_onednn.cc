// dnnl::binary for elementwise_add, _sub, _mul and _div (forward), float32.
//
// Broadcasting follows the plain kernel's `axis` rule (math::ComputeBroadcastDims): Y is
// described with Out's rank and 1s where it broadcasts, which the primitive broadcasts
// itself. The primitive broadcasts src1 only, so when X would broadcast (X smaller than Y
// in some dim) the plain kernel runs (RunPlainKernel), as it does for 0-D or empty
// tensors and an input of another dtype (which it rejects).
//
// X in a oneDNN blocked layout (the output of a convolution) is computed in that layout and
// Out takes it where the executor allows. Row-major X of fewer than kMinNumel elements goes
// to the plain kernel: the ops are memory-bound and the plain loop vectorises, so on
// row-major data the primitive only pays off on large tensors: in
// tests/benchmarks/onednn_misc_benchmark (2 threads) [64, 20, 24, 24] + [20] takes 88.8 us
// plain and 97.1 us on oneDNN, [64, 64, 56, 56] + [64] 2147 and 1981 us; [64, 500] + [500]
// 3.1 and 6.8 us.
//
// Out may be X (the primitive's in-place pair); Out that is Y, or X changing arrangement,
// gets a fresh buffer, moved into Out at the end. Out gets X's LoD.
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <utility>

#include "operators/common.h"
#include "operators/math/broadcast.h"
#include "operators/onednn/conv_pool_onednn_util.h"
#include "operators/onednn/onednn_layout.h"
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
  // X in a blocked layout is computed in it, whatever its size: handing it to the plain
  // kernel would cost a reorder of X and one of Out back for the next oneDNN op, more than
  // the primitive (an SE block's channel scaling, x * y[c], between two convolutions).
  const bool x_blocked = OneDNNLayoutOf(*x) != nullptr;
  if (bd.x != bd.out || bd.out.size() == 0 || n == 0 ||
      (!x_blocked && BelowOneDNNThreshold(n, kMinNumel))) {
    RunPlainKernel(ctx);
    return;
  }
  DenseTensor* out = ctx.Output("Out");
  const framework::LoD lod = x->lod();
  const auto& dev = ctx.device_context<platform::OneDNNContext>();
  const memory::desc x_user = RowMajorDesc(bd.out);
  // Wrap the inputs before Out gets a buffer: Out may be X or Y.
  const memory src0 = InputMemory(*x, x_user, dev.engine());
  const memory src1 = InputMemory(*y, RowMajorDesc(bd.y), dev.engine());
  const memory::desc dst_md = src0.get_desc();
  std::unique_ptr<dnnl::binary::primitive_desc> pd;
  try {
    pd = std::make_unique<dnnl::binary::primitive_desc>(
        dnnl::binary::desc(kAlg, dst_md, src1.get_desc(), dst_md), dev.engine());
  } catch (const dnnl::error&) {
    // A broadcast the primitive does not implement for X's blocked format: the plain kernel
    // computes it on row-major copies.
    RunPlainKernel(ctx);
    return;
  }
  DenseTensor fresh;
  std::shared_ptr<const OneDNNLayout> layout =
      OutputLayout(ctx.OutputMayBeOpaque("Out"), dst_md, x_user);
  // Out that is X and keeps X's arrangement is computed in place (dst may be src0);
  // otherwise an aliased Out gets a fresh buffer, moved into it at the end.
  const bool in_place = out == x && (layout ? layout->desc() == dst_md : dst_md == x_user);
  DenseTensor* target = in_place ? OutputTarget(out, {y}, &fresh, bd.out, std::move(layout))
                                 : OutputTarget(out, {x, y}, &fresh, bd.out, std::move(layout));
  try {
    const PrimitiveOutput dst(DescOf(*target, x_user), OutputData(target), pd->dst_desc(),
                              dev.engine());
    dnnl::binary(*pd).execute(dev.stream(), {{DNNL_ARG_SRC_0, src0},
                                             {DNNL_ARG_SRC_1, src1},
                                             {DNNL_ARG_DST, dst.mem()}});
    dst.Store(dev);
    dev.stream().wait();
  } catch (const dnnl::error& e) {
    throw errors::Fatal("op `%s`: oneDNN binary failed for X %s, Y %s (axis %d): %s", ctx.Type(),
                        x->dims().ToString(), y->dims().ToString(), ctx.Attr<int>("axis"),
                        e.what());
  }
  target->set_lod(lod);
  if (target == &fresh) *out = std::move(fresh);
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
    auto& registry = framework::KernelRegistry::Instance();
    registry.DeclareInPlace(e.type, LibraryType::kOneDNN, {{"X", "Out"}});
    // Blocked inputs stay blocked (Y is converted to row-major where its dims need it).
    registry.DeclareOpaqueInputs(e.type, LibraryType::kOneDNN, {"X", "Y"});
  }
}

}  // namespace operators
}  // namespace paddle_like

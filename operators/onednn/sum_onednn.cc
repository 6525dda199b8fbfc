// dnnl::sum for `sum` of two or more dense float32 tensors of one shape.
//
// SelectedRows inputs or a SelectedRows Out, a single input (a copy), empty tensors and
// inputs that the plain kernel would reject (another dtype) go to the plain kernel
// (RunPlainKernel), as do inputs below kMinNumel elements: in
// tests/benchmarks/onednn_misc_benchmark (2 threads) two [64, 100] inputs take 3.98 us plain
// and 4.63 us on oneDNN, two [64, 500] 11.0 and 7.08 us (four: 6.94 / 7.05 and 18.9 / 12.5).
// oneDNN adds in input order, in float, like the plain kernel.
//
// Out may be one of the inputs (backward programs accumulate gradients in place). The
// primitive may write over src0 only: Out that is X[0] and no other input is summed in
// place; any other aliasing gets a fresh buffer, moved into Out at the end. Out keeps the
// LoD shape inference gave it (X[0]'s).
#include <algorithm>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <vector>

#include "framework/selected_rows.h"
#include "operators/common.h"
#include "operators/onednn/onednn_memory.h"
#include "operators/onednn/plain_fallback.h"
#include "operators/op_family.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::memory;
using framework::SelectedRows;

constexpr int64_t kMinNumel = int64_t{1} << 13;

// Whether every input and Out are dense float32 tensors of the first input's size.
bool AllDenseFloat(const ExecutionContext& ctx) {
  if (ctx.OutputVar("Out")->IsType<SelectedRows>()) return false;
  int64_t numel = -1;
  for (size_t i = 0; i < ctx.InputSize("X"); ++i) {
    if (ctx.InputVar("X", i)->IsType<SelectedRows>()) return false;
    const DenseTensor* t = ctx.Input("X", i);
    if (t->dtype() != DataType::FLOAT32) return false;
    if (numel >= 0 && t->numel() != numel) return false;
    numel = t->numel();
  }
  return true;
}

void SumOneDNNKernel(const ExecutionContext& ctx) {
  const size_t n = ctx.InputSize("X");
  if (n < 2 || !AllDenseFloat(ctx) || ctx.Input("X")->numel() == 0 ||
      BelowOneDNNThreshold(ctx.Input("X")->numel(), kMinNumel)) {
    RunPlainKernel(ctx);
    return;
  }
  const std::vector<const DenseTensor*> xs = ctx.MultiInput("X");
  DenseTensor* out = ctx.Output("Out");
  bool in_place = out == xs[0];
  for (size_t i = 1; i < n; ++i) in_place &= out != xs[i];
  const bool aliased = std::find(xs.begin(), xs.end(), out) != xs.end();
  // Read the inputs' buffers before Out gets its own.
  const memory::desc md = RowMajorDesc(DDim({xs[0]->numel()}));
  const auto& dev = ctx.device_context<platform::OneDNNContext>();
  std::vector<memory> srcs;
  for (const DenseTensor* t : xs) srcs.push_back(WrapTensor(md, dev.engine(), *t));
  DenseTensor fresh;
  DenseTensor* target = aliased && !in_place ? &fresh : out;
  const framework::LoD lod = out->lod();
  const DDim dims = xs[0]->dims();
  target->Resize(dims);
  float* o = target->mutable_data<float>(ctx.GetPlace());
  try {
    const dnnl::sum::primitive_desc pd(md, std::vector<float>(n, 1.0f),
                                       std::vector<memory::desc>(n, md), dev.engine());
    std::unordered_map<int, memory> args = {{DNNL_ARG_DST, memory(md, dev.engine(), o)}};
    for (size_t i = 0; i < n; ++i) {
      args.emplace(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), srcs[i]);
    }
    Execute(dnnl::sum(pd), dev.stream(), args);
    dev.stream().wait();
  } catch (const dnnl::error& e) {
    throw errors::Fatal("op `sum`: oneDNN sum of %zu inputs of shape %s failed: %s", n,
                        dims.ToString(), e.what());
  }
  if (target == &fresh) {
    fresh.set_lod(lod);
    *out = std::move(fresh);
  }
}

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterSumOneDNNKernels) {
  // No f64 sum primitive: float64 (and the integer types) stay on the plain kernels.
  framework::RegisterKernel("sum", DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                            SumOneDNNKernel);
}

}  // namespace operators
}  // namespace paddle_like

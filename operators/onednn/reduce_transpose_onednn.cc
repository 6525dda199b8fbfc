// dnnl::reduction for reduce_sum, reduce_mean and mean, dnnl::reorder for transpose2, float32.
//
// A reduction whose reduced dims are X's innermost block (size-1 dims aside: any rank, negative
// dims, keep_dim, 0-D outputs) is one primitive over X seen as [rows, cols] -> [rows, 1]. A
// full reduction (mean, reduce_all) is split into rows too, so that both threads sum, and the
// row sums are added here in double. The primitive sums each row in float on one thread, where
// the plain kernels sum in double and round once: for values of one sign the results differ by
// at most the row length times 2^-24 relative. The rows are split between threads, never one
// row, so the bits do not depend on the thread count (tests/onednn_reduce_transpose_test
// checks 1, 2 and 4 threads).
//
// The plain kernels run instead (plain_fallback.h) for what the primitive does not do well or
// at all: reduced dims that are not innermost (oneDNN 2.6 has only a slow reference
// implementation there), a reduce_sum out_dtype other than float32, an empty X (sums of 0,
// means of NaN), and inputs or rows below the thresholds measured by
// tests/benchmarks/reduce_benchmark (docs/benchmarks.md).
//
// transpose2 reads X through strides permuted to Out's dims and writes Out densely; XShape
// and Out's LoD are what the plain kernel leaves (an XShape with no elements, no LoD).
// Primitives are created per call; oneDNN's primitive cache makes repeated shapes cheap.
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

#include "operators/common.h"
#include "operators/math/reduce.h"
#include "operators/onednn/onednn_layout.h"
#include "operators/onednn/onednn_memory.h"
#include "operators/onednn/plain_fallback.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::algorithm;
using dnnl::memory;

// Smallest X (in elements) each op hands to oneDNN, and the shortest rows a reduction sums
// (its JIT kernel is slower than the plain loop on rows of 1024 and fewer elements).
constexpr int64_t kReduceMin = int64_t{1} << 17;
constexpr int64_t kRowMin = 2048;
constexpr int64_t kTransposeMin = int64_t{1} << 12;

// Row-major strides of `dims`.
memory::dims DenseStrides(const memory::dims& dims) {
  memory::dims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

memory::desc Dense(const memory::dims& dims) {
  return memory::desc(dims, memory::data_type::f32, DenseStrides(dims));
}

// X as `rows` rows of `cols` elements, each row summed into one value.
struct RowView {
  int64_t rows = 1, cols = 1;
  bool all = true;  // Every dim is reduced: the row sums are summed again.
};

// The rows of the reduction of X (`dims`) over the dims flagged in `reduced` when those form
// X's innermost block (size-1 dims aside); false otherwise (oneDNN 2.6 has only a reference
// implementation for other reductions, 30 to 60 times slower than the plain kernel). A full
// reduction is split after X's first dim that is not 1, unless the rows would get shorter than
// kRowMin: one row would run on one thread.
bool InnermostRows(const DDim& dims, const std::vector<bool>& reduced, RowView* v) {
  for (int i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;
    if (!reduced[i]) {
      if (v->cols > 1) return false;  // A kept dim inside the reduced ones.
      v->rows *= dims[i];
      v->all = false;
    } else {
      v->cols *= dims[i];
    }
  }
  if (v->all) {
    for (int i = 0; i < dims.size(); ++i) {
      if (dims[i] == 1) continue;
      if (dims[i] < v->cols && v->cols / dims[i] >= kRowMin) {
        v->rows = dims[i];
        v->cols /= dims[i];
      }
      break;
    }
  }
  return true;
}

// Out (of `out_dims`) = X summed (`mean` false) or averaged over the dims flagged in
// `reduced`, on the primitive, or on the plain kernel where it does not pay off. A reduction
// over size-1 dims only is a copy for the plain kernel (the primitive refuses it); it is also
// the only one where Out may be X.
void RunReduction(const ExecutionContext& ctx, bool mean, const std::vector<bool>& reduced,
                  const DDim& out_dims) {
  const DenseTensor* x = ctx.Input("X");
  RowView v;
  // An empty X gives sums of 0 and means of NaN.
  if (x->numel() == 0 || !InnermostRows(x->dims(), reduced, &v) || v.cols == 1 ||
      BelowOneDNNThreshold(x->numel(), kReduceMin) || BelowOneDNNThreshold(v.cols, kRowMin)) {
    RunPlainKernel(ctx);
    return;
  }
  DenseTensor* out = ctx.Output("Out");
  out->Resize(out_dims);
  float* o = out->mutable_data<float>(ctx.GetPlace());
  // A split full reduction sums its rows here, in double and in order.
  std::vector<float> row_sums(v.all && v.rows > 1 ? static_cast<size_t>(v.rows) : 0);
  const bool split = !row_sums.empty();
  const auto& dev = ctx.device_context<platform::OneDNNContext>();
  try {
    const memory::desc src_md = Dense({v.rows, v.cols}), dst_md = Dense({v.rows, 1});
    const algorithm alg = mean && !split ? algorithm::reduction_mean : algorithm::reduction_sum;
    const dnnl::reduction::primitive_desc pd(
        dnnl::reduction::desc(alg, src_md, dst_md, 0.0f, 0.0f), dev.engine());
    const memory src = WrapTensor(src_md, dev.engine(), *x);
    const memory dst(dst_md, dev.engine(), split ? row_sums.data() : o);
    Execute(dnnl::reduction(pd), dev.stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    dev.stream().wait();
  } catch (const dnnl::error& e) {
    throw errors::Fatal("op `%s`: oneDNN reduction failed for X %s: %s", ctx.Type(),
                        x->dims().ToString(), e.what());
  }
  if (split) {
    double sum = 0;
    for (float s : row_sums) sum += s;
    o[0] = static_cast<float>(mean ? sum / static_cast<double>(x->numel()) : sum);
  }
}

template <bool kMean>
void ReduceOneDNNKernel(const ExecutionContext& ctx) {
  const DenseTensor* x = ctx.Input("X");
  // reduce_sum's out_dtype may ask for float64 sums (reduce_mean ignores it).
  const int out_dtype = ctx.Attr<int>("out_dtype");
  if (!kMean && out_dtype >= 0 && static_cast<DataType>(out_dtype) != DataType::FLOAT32) {
    RunPlainKernel(ctx);
    return;
  }
  const math::ReduceShape shape = math::ComputeReduceShape(
      ctx.Type(), x->dims(), ctx.Attr<std::vector<int>>("dim"), ctx.Attr<bool>("keep_dim"),
      ctx.Attr<bool>("reduce_all"));
  RunReduction(ctx, kMean, shape.reduced, shape.out);
}

void MeanOneDNNKernel(const ExecutionContext& ctx) {
  const std::vector<bool> all(static_cast<size_t>(ctx.Input("X")->dims().size()), true);
  RunReduction(ctx, true, all, DDim());
}

void Transpose2OneDNNKernel(const ExecutionContext& ctx) {
  const DenseTensor* x = ctx.Input("X");
  DenseTensor* out = ctx.Output("Out");
  // The plain kernel refuses an Out that is X, and copies 0-D and empty tensors trivially.
  if (out == x || x->dims().size() == 0 || x->numel() == 0 ||
      BelowOneDNNThreshold(x->numel(), kTransposeMin)) {
    RunPlainKernel(ctx);
    return;
  }
  const DDim in_dims = x->dims();
  const int rank = in_dims.size();
  const std::vector<int> axis =
      CheckedTransposeAxis(ctx.Attr<std::vector<int>>("axis"), rank);
  const memory::dims in_strides = DenseStrides(in_dims.ToVector());
  // X seen with Out's dims: Out's dim i walks X's dim axis[i].
  memory::dims out_dims(rank), src_strides(rank);
  for (int i = 0; i < rank; ++i) {
    out_dims[i] = in_dims[axis[i]];
    src_strides[i] = in_strides[axis[i]];
  }
  out->set_lod({});
  float* o = out->mutable_data<float>(ctx.GetPlace());
  if (DenseTensor* xshape = ctx.Output("XShape")) xshape->mutable_data<float>(ctx.GetPlace());
  const auto& dev = ctx.device_context<platform::OneDNNContext>();
  try {
    memory src =
        WrapTensor(memory::desc(out_dims, memory::data_type::f32, src_strides), dev.engine(), *x);
    memory dst(Dense(out_dims), dev.engine(), o);
    Reorder(src, dst, dev);
    dev.stream().wait();
  } catch (const dnnl::error& e) {
    throw errors::Fatal("op `%s`: oneDNN reorder failed for X %s, axis %s: %s", ctx.Type(),
                        in_dims.ToString(), ListToString(axis), e.what());
  }
}

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterReduceOneDNNKernels) {
  // oneDNN's CPU reductions have no f64: float64 stays on the plain kernels.
  framework::RegisterKernel("reduce_sum", DeviceType::kCPU, DataType::FLOAT32,
                            LibraryType::kOneDNN, ReduceOneDNNKernel<false>);
  framework::RegisterKernel("reduce_mean", DeviceType::kCPU, DataType::FLOAT32,
                            LibraryType::kOneDNN, ReduceOneDNNKernel<true>);
  framework::RegisterKernel("mean", DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                            MeanOneDNNKernel);
  framework::RegisterKernel("transpose2", DeviceType::kCPU, DataType::FLOAT32,
                            LibraryType::kOneDNN, Transpose2OneDNNKernel);
}

}  // namespace operators
}  // namespace paddle_like

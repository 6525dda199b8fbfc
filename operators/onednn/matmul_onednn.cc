// dnnl::matmul for matmul_v2 and mul, float32.
//
// Transposes are expressed as strides, and broadcast batch dims as size-1 dims of src or
// weights, which the primitive broadcasts itself. Primitives are created per call; oneDNN's
// primitive cache makes repeated shapes cheap.
#include "operators/onednn/matmul_onednn.h"

#include <algorithm>

#include "operators/matmul/matmul_shape.h"
#include "operators/onednn/plain_fallback.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::memory;
using framework::DenseTensor;
using framework::ExecutionContext;

// Row-major strides of `dims`, except that the last two dims swap their strides when
// `transposed` (the data is stored as [..., cols, rows]).
memory::dims MatrixStrides(const memory::dims& dims, bool transposed) {
  const size_t r = dims.size();
  memory::dims strides(r);
  const memory::dim rows = dims[r - 2], cols = dims[r - 1];
  strides[r - 1] = transposed ? rows : 1;
  strides[r - 2] = transposed ? 1 : cols;
  memory::dim s = rows * cols;
  for (size_t i = r - 2; i-- > 0;) {
    strides[i] = s;
    s *= dims[i];
  }
  return strides;
}

// The output buffer: Out itself, or a fresh tensor when Out is one of the operands.
float* OutputBuffer(const ExecutionContext& ctx, const framework::DDim& dims, DenseTensor* fresh,
                    DenseTensor** target) {
  DenseTensor* out = ctx.Output("Out");
  *target = (out == ctx.Input("X") || out == ctx.Input("Y")) ? fresh : out;
  (*target)->Resize(dims);
  return (*target)->mutable_data<float>(ctx.GetPlace());
}

// Handles the sizes oneDNN has no use for; returns true when Out is complete.
bool TrivialProduct(int64_t out_numel, int64_t K, float* o) {
  if (out_numel == 0) return true;
  if (K > 0) return false;
  std::fill(o, o + out_numel, 0.0f);  // An empty sum.
  return true;
}

}  // namespace

void RunOneDNNMatmul(const char* op, const ExecutionContext& ctx, const MatmulOperand& src,
                     const MatmulOperand& weights, const memory::dims& dst_dims, float* dst) {
  const auto& dev = ctx.device_context<platform::OneDNNContext>();
  try {
    const auto f32 = memory::data_type::f32;
    const memory::desc src_md(src.dims, f32, MatrixStrides(src.dims, src.transposed));
    const memory::desc w_md(weights.dims, f32, MatrixStrides(weights.dims, weights.transposed));
    const memory::desc dst_md(dst_dims, f32, MatrixStrides(dst_dims, false));
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, w_md, dst_md), dev.engine());
    // oneDNN takes non-const handles; src and weights are only read.
    memory src_mem(src_md, dev.engine(), const_cast<float*>(src.data));
    memory w_mem(w_md, dev.engine(), const_cast<float*>(weights.data));
    memory dst_mem(dst_md, dev.engine(), dst);
    dnnl::matmul(pd).execute(
        dev.stream(),
        {{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_WEIGHTS, w_mem}, {DNNL_ARG_DST, dst_mem}});
    dev.stream().wait();
  } catch (const dnnl::error& e) {
    throw errors::Fatal("op `%s`: oneDNN matmul failed for src %s, weights %s: %s", op,
                        framework::DDim(src.dims).ToString(),
                        framework::DDim(weights.dims).ToString(), e.what());
  }
}

void MatmulV2OneDNNKernel(const ExecutionContext& ctx) {
  const DenseTensor* x = ctx.Input("X");
  const DenseTensor* y = ctx.Input("Y");
  CheckOperandTypes("matmul_v2", *x, *y, framework::DataType::FLOAT32);
  const MatmulV2Shape s = AnalyzeMatmulV2("matmul_v2", x->dims(), y->dims(),
                                          ctx.Attr<bool>("trans_x"), ctx.Attr<bool>("trans_y"));
  if (BelowOneDNNThreshold(s.out_dims.numel() * s.K, kOneDNNMatmulMinWork)) {
    RunPlainKernel(ctx);
    return;
  }
  DenseTensor fresh, *target = nullptr;
  float* o = OutputBuffer(ctx, s.out_dims, &fresh, &target);
  if (!TrivialProduct(s.out_dims.numel(), s.K, o)) {
    memory::dims src(s.x_batch.begin(), s.x_batch.end());
    memory::dims w(s.y_batch.begin(), s.y_batch.end());
    memory::dims dst(s.batch.begin(), s.batch.end());
    src.insert(src.end(), {s.M, s.K});
    w.insert(w.end(), {s.K, s.N});
    dst.insert(dst.end(), {s.M, s.N});
    RunOneDNNMatmul("matmul_v2", ctx, {src, s.trans_x, x->data<float>()},
                    {w, s.trans_y, y->data<float>()}, dst, o);
  }
  if (target == &fresh) *ctx.Output("Out") = std::move(fresh);
}

void MulOneDNNKernel(const ExecutionContext& ctx) {
  const DenseTensor* x = ctx.Input("X");
  const DenseTensor* y = ctx.Input("Y");
  CheckOperandTypes("mul", *x, *y, framework::DataType::FLOAT32);
  const MulShape s = AnalyzeMul("mul", x->dims(), y->dims(), ctx.Attr<int>("x_num_col_dims"),
                                ctx.Attr<int>("y_num_col_dims"));
  if (BelowOneDNNThreshold(s.M * s.N * s.K, kOneDNNMatmulMinWork)) {
    RunPlainKernel(ctx);
    return;
  }
  const framework::LoD lod = x->lod();
  DenseTensor fresh, *target = nullptr;
  float* o = OutputBuffer(ctx, s.out_dims, &fresh, &target);
  if (!TrivialProduct(s.out_dims.numel(), s.K, o)) {
    RunOneDNNMatmul("mul", ctx, {{s.M, s.K}, false, x->data<float>()},
                    {{s.K, s.N}, false, y->data<float>()}, {s.M, s.N}, o);
  }
  target->set_lod(lod);
  if (target == &fresh) *ctx.Output("Out") = std::move(fresh);
}

}  // namespace operators
}  // namespace paddle_like

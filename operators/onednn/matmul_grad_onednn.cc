// dnnl::matmul for PaddlePaddle's fused grad ops mul_grad and matmul_v2_grad, float32.
//
// Each gradient is one matmul of Out@GRAD with the other operand; transposes are strides
// (no copies). Only the requested gradients are computed (X@GRAD and Y@GRAD are
// dispensable). Each is written into its output's buffer where that holds none of the inputs
// (a coalesced gradient's place stays in use), else into a fresh tensor that replaces the
// output once both are computed, so an output may be any of the inputs. LoD as in the plain
// kernels: mul_grad's X@GRAD takes X's, nothing else carries one.
//
// matmul_v2_grad covers 1-D operands (read as [1, K] and [K, 1], as the forward does) and
// the gradient of an operand with every batch dim of Out (the other operand may broadcast:
// the primitive does that itself), plus an unbatched Y of a batched, untransposed X (the
// fc layer of a sequence model): dY is then one product of X and Out@GRAD flattened to
// [batches * M, ...]. Any other gradient of a broadcast operand would have to be summed
// over the broadcast batches: the plain kernel does that (RunPlainKernel).
//
// Below kOneDNNMatmulMinWork multiply-adds (matmul_onednn.h) the plain kernels run instead;
// mul_grad of [64, 800] x [800, 500] takes 1491 us plain and 366 us on oneDNN.
#include <algorithm>

#include "operators/common.h"
#include "operators/matmul/matmul_shape.h"
#include "operators/onednn/matmul_onednn.h"
#include "operators/onednn/onednn_layout.h"
#include "operators/onednn/plain_fallback.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::memory;

// A gradient of `dims` into `out` (OutputTarget: `out` itself, whose buffer stays where it
// may be written, such as a coalesced gradient's place; `fresh` when `out` is one of the
// operands, moved into `out` by the caller once every result that reads them is computed):
// zeros when the contracted length is 0 (an empty sum), else what `product` writes.
template <typename Product>
void WriteGrad(DenseTensor* out, std::initializer_list<const DenseTensor*> operands,
               DenseTensor* fresh, const DDim& dims, int64_t contracted, Product&& product) {
  DenseTensor* target = OutputTarget(out, operands, fresh, dims);
  target->set_lod({});
  float* p = OutputData(target);
  if (dims.numel() == 0) return;
  if (contracted == 0) {
    std::fill(p, p + dims.numel(), 0.0f);
  } else {
    product(p);
  }
}

// `batch` followed by a rows x cols matrix.
memory::dims Dims(const std::vector<int64_t>& batch, int64_t rows, int64_t cols) {
  memory::dims d(batch.begin(), batch.end());
  d.insert(d.end(), {rows, cols});
  return d;
}

void MulGradOneDNNKernel(const ExecutionContext& ctx) {
  const char* op = "mul_grad";
  const DenseTensor* x = ctx.Input("X");
  const DenseTensor* y = ctx.Input("Y");
  const DenseTensor* dout = ctx.Input("Out@GRAD");
  CheckOperandTypes(op, *x, *y, DataType::FLOAT32);
  const MulShape s = AnalyzeMul(op, x->dims(), y->dims(), ctx.Attr<int>("x_num_col_dims"),
                                ctx.Attr<int>("y_num_col_dims"));
  PL_ENFORCE(dout->numel() == s.M * s.N,
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s", op,
                                     s.out_dims.ToString(), dout->dims().ToString()));
  if (BelowOneDNNThreshold(s.M * s.N * s.K, kOneDNNMatmulMinWork)) {
    RunPlainKernel(ctx);
    return;
  }
  DenseTensor* dx = ctx.Output("X@GRAD");
  DenseTensor* dy = ctx.Output("Y@GRAD");
  const framework::LoD x_lod = x->lod();
  const int64_t M = s.M, N = s.N, K = s.K;
  DenseTensor gx, gy;
  if (dy != nullptr) {
    // dY [K, N] = X^T (X stored [M, K]) * dOut [M, N].
    WriteGrad(dy, {x, y, dout}, &gy, y->dims(), M, [&](float* c) {
      RunOneDNNMatmul(op, ctx, {{K, M}, true, x->data<float>()},
                      {{M, N}, false, dout->data<float>()}, {K, N}, c);
    });
  }
  if (dx != nullptr) {
    // dX [M, K] = dOut [M, N] * Y^T (Y stored [K, N]).
    WriteGrad(dx, {x, y, dout, dy}, &gx, x->dims(), N, [&](float* c) {
      RunOneDNNMatmul(op, ctx, {{M, N}, false, dout->data<float>()},
                      {{N, K}, true, y->data<float>()}, {M, K}, c);
    });
  }
  if (gy.initialized()) *dy = std::move(gy);
  if (gx.initialized()) *dx = std::move(gx);
  if (dx != nullptr) dx->set_lod(x_lod);
}

void MatmulV2GradOneDNNKernel(const ExecutionContext& ctx) {
  const char* op = "matmul_v2_grad";
  const DenseTensor* x = ctx.Input("X");
  const DenseTensor* y = ctx.Input("Y");
  const DenseTensor* dout = ctx.Input("Out@GRAD");
  CheckOperandTypes(op, *x, *y, DataType::FLOAT32);
  const MatmulV2Shape s = AnalyzeMatmulV2(op, x->dims(), y->dims(), ctx.Attr<bool>("trans_x"),
                                          ctx.Attr<bool>("trans_y"));
  PL_ENFORCE(dout->numel() == s.out_dims.numel(),
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s", op,
                                     s.out_dims.ToString(), dout->dims().ToString()));
  DenseTensor* dx = ctx.Output("X@GRAD");
  DenseTensor* dy = ctx.Output("Y@GRAD");
  const int64_t M = s.M, N = s.N, K = s.K, B = s.BatchCount();
  const bool tx = s.trans_x, ty = s.trans_y;
  // dY of an unbatched Y under a batched X: one product over the flattened batches.
  const bool flat_dy =
      s.y_batch != s.batch && !tx &&
      std::all_of(s.y_batch.begin(), s.y_batch.end(), [](int64_t d) { return d == 1; });
  // A gradient that must be summed over broadcast batches goes to the plain kernel.
  const bool covered =
      (dx == nullptr || s.x_batch == s.batch) && (dy == nullptr || s.y_batch == s.batch || flat_dy);
  if (!covered || BelowOneDNNThreshold(B * M * N * K, kOneDNNMatmulMinWork)) {
    RunPlainKernel(ctx);
    return;
  }
  const std::vector<int64_t>&b = s.batch, &xb = s.x_batch, &yb = s.y_batch;
  // The data pointers are read only when the product is computed, i.e. nothing is empty.
  const auto X = [&] { return x->data<float>(); };
  const auto Y = [&] { return y->data<float>(); };
  const auto G = [&] { return dout->data<float>(); };
  DenseTensor gx, gy;
  if (dx != nullptr) {
    // !tx: dX [M, K] = dOut [M, N] * op(Y)^T;  tx: dX [K, M] = op(Y) [K, N] * dOut^T.
    WriteGrad(dx, {x, y, dout}, &gx, x->dims(), N, [&](float* c) {
      if (!tx) {
        RunOneDNNMatmul(op, ctx, {Dims(b, M, N), false, G()}, {Dims(yb, N, K), !ty, Y()},
                        Dims(b, M, K), c);
      } else {
        RunOneDNNMatmul(op, ctx, {Dims(yb, K, N), ty, Y()}, {Dims(b, N, M), true, G()},
                        Dims(b, K, M), c);
      }
    });
  }
  if (dy != nullptr && flat_dy) {
    // Y's matrix broadcast to every batch: sum over batches and rows at once, with X and
    // dOut read as [B * M, K] and [B * M, N].
    const int64_t R = B * M;
    WriteGrad(dy, {x, y, dout, dx}, &gy, y->dims(), R, [&](float* c) {
      if (!ty) {
        RunOneDNNMatmul(op, ctx, {{K, R}, true, X()}, {{R, N}, false, G()}, {K, N}, c);
      } else {
        RunOneDNNMatmul(op, ctx, {{N, R}, true, G()}, {{R, K}, false, X()}, {N, K}, c);
      }
    });
  } else if (dy != nullptr) {
    // !ty: dY [K, N] = op(X)^T * dOut;  ty: dY [N, K] = dOut^T * op(X).
    WriteGrad(dy, {x, y, dout, dx}, &gy, y->dims(), M, [&](float* c) {
      if (!ty) {
        RunOneDNNMatmul(op, ctx, {Dims(xb, K, M), !tx, X()}, {Dims(b, M, N), false, G()},
                        Dims(b, K, N), c);
      } else {
        RunOneDNNMatmul(op, ctx, {Dims(b, N, M), true, G()}, {Dims(xb, M, K), tx, X()},
                        Dims(b, N, K), c);
      }
    });
  }
  if (gx.initialized()) *dx = std::move(gx);
  if (gy.initialized()) *dy = std::move(gy);
}

}  // namespace

PL_REGISTER_BACKEND_KERNELS(RegisterMatmulGradOneDNNKernels) {
  // No f64 matmul primitive: float64 stays on the plain kernels.
  // oneDNN splits the products' sums (its GEMM may partition K) across threads in an order of its own (it may differ with
  // the thread count and the machine): not deterministic, so deterministic mode
  // (FLAGS_cpu_deterministic, KernelInfo::deterministic) runs the plain kernels instead.
  framework::RegisterKernel("mul_grad", DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                            MulGradOneDNNKernel, false);
  framework::RegisterKernel("matmul_v2_grad", DeviceType::kCPU, DataType::FLOAT32,
                            LibraryType::kOneDNN, MatmulV2GradOneDNNKernel, false);
}

}  // namespace operators
}  // namespace paddle_like

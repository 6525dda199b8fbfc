// Shape rules of the matrix ops, shared by their shape inference and their kernels (plain
// and oneDNN). Errors name the op, both input slots and both shapes. At build time dims may
// be -1 (unknown); checks that need them are then skipped and unknown dims propagate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/attribute.h"
#include "framework/ddim.h"
#include "framework/dense_tensor.h"

namespace paddle_like {
namespace operators {

// matmul_v2 under numpy matmul semantics. A 1-D X is treated as [1, K] and a 1-D Y as [K, 1]
// (their trans flags are then ignored); those unit dims are dropped from Out. Batch dims
// (all but the last two) broadcast right-aligned.
struct MatmulV2Shape {
  int64_t M = 0, N = 0, K = 0;
  bool trans_x = false, trans_y = false;  // Effective flags (false for 1-D inputs).
  std::vector<int64_t> batch;             // Broadcast batch dims of Out.
  std::vector<int64_t> x_batch, y_batch;  // Batch dims of X and Y, left-padded with 1s.
  framework::DDim out_dims;

  int64_t BatchCount() const;
  // Element offsets of the X and Y matrix used by each Out batch (row-major batch order).
  void BatchOffsets(std::vector<int64_t>* x_offsets, std::vector<int64_t>* y_offsets) const;
};

MatmulV2Shape AnalyzeMatmulV2(const std::string& op, const framework::DDim& x,
                              const framework::DDim& y, bool trans_x, bool trans_y);

// matmul (1.x): a 1-D X is read as [1, K] and a 1-D Y as [K, 1], and the trans flags then
// apply to those matrices; batch dims (all but the last two) are flattened, and X and Y must
// hold the same number of matrices unless one of them is a single matrix. Out takes the batch
// dims of the batched operand (X's first) and [M, N]; an M of 1 from a 1-D X and an N of 1
// from a 1-D Y are dropped, and an Out left with no dims is [1].
struct MatmulV1Shape {
  framework::DDim x, y;  // The operands as matmul_v2 reads them: [rows, cols] or [B, rows, cols].
  MatmulV2Shape v2;      // AnalyzeMatmulV2 of x and y with the trans flags.
  framework::DDim out_dims;
};

MatmulV1Shape AnalyzeMatmulV1(const std::string& op, const framework::DDim& x,
                              const framework::DDim& y, bool trans_x, bool trans_y);
// AnalyzeMatmulV1 with the flags of a matmul op's attributes (transpose_X, transpose_Y),
// refusing the oneDNN fusions (fused_reshape_*, fused_transpose_*) and head_number != 1 that
// PaddlePaddle's passes may have written with an UnimplementedError.
MatmulV1Shape AnalyzeMatmulV1Op(const std::string& op, const framework::DDim& x,
                                const framework::DDim& y, const framework::AttributeMap& attrs);

// mul: X flattened to [M, K] at x_num_col_dims, Y to [K, N] at y_num_col_dims;
// Out dims = X.dims[:x_num_col_dims] + Y.dims[y_num_col_dims:].
struct MulShape {
  int64_t M = 0, N = 0, K = 0;
  framework::DDim out_dims;
};

MulShape AnalyzeMul(const std::string& op, const framework::DDim& x, const framework::DDim& y,
                    int x_num_col_dims, int y_num_col_dims);

// InvalidArgumentError naming the op and slot unless X and Y hold `dtype` (the kernel's type;
// integer inputs are not cast to it by the executor).
void CheckOperandTypes(const std::string& op, const framework::DenseTensor& x,
                       const framework::DenseTensor& y, platform::DataType dtype);

}  // namespace operators
}  // namespace paddle_like

#include "operators/matmul/matmul_shape.h"

#include <algorithm>

#include "platform/enforce.h"

namespace paddle_like {
namespace operators {

using framework::DDim;

namespace {
const char* Bool(bool b) { return b ? "true" : "false"; }
}  // namespace

int64_t MatmulV2Shape::BatchCount() const {
  int64_t n = 1;
  for (int64_t d : batch) n *= d;
  return n;
}

void MatmulV2Shape::BatchOffsets(std::vector<int64_t>* x_offsets,
                                 std::vector<int64_t>* y_offsets) const {
  const int rank = static_cast<int>(batch.size());
  // Strides of the X and Y matrices over their own batch dims; 0 where they broadcast.
  std::vector<int64_t> x_stride(rank, 0), y_stride(rank, 0);
  int64_t xs = M * K, ys = K * N;
  for (int i = rank - 1; i >= 0; --i) {
    if (x_batch[i] != 1) x_stride[i] = xs;
    if (y_batch[i] != 1) y_stride[i] = ys;
    xs *= x_batch[i];
    ys *= y_batch[i];
  }
  const int64_t count = BatchCount();
  x_offsets->assign(count, 0);
  y_offsets->assign(count, 0);
  std::vector<int64_t> idx(rank, 0);
  int64_t xo = 0, yo = 0;
  for (int64_t b = 0; b < count; ++b) {
    (*x_offsets)[b] = xo;
    (*y_offsets)[b] = yo;
    for (int i = rank - 1; i >= 0; --i) {  // Odometer step over the Out batch dims.
      xo += x_stride[i];
      yo += y_stride[i];
      if (++idx[i] < batch[i]) break;
      xo -= x_stride[i] * batch[i];
      yo -= y_stride[i] * batch[i];
      idx[i] = 0;
    }
  }
}

MatmulV2Shape AnalyzeMatmulV2(const std::string& op, const DDim& x, const DDim& y, bool trans_x,
                              bool trans_y) {
  PL_ENFORCE(x.size() >= 1, errors::InvalidArgument("op `%s` input `X`: expected a tensor of rank "
                                                    ">= 1, received shape %s",
                                                    op, x.ToString()));
  PL_ENFORCE(y.size() >= 1, errors::InvalidArgument("op `%s` input `Y`: expected a tensor of rank "
                                                    ">= 1, received shape %s",
                                                    op, y.ToString()));
  std::vector<int64_t> xd = x.ToVector(), yd = y.ToVector();
  MatmulV2Shape s;
  s.trans_x = trans_x && xd.size() > 1;
  s.trans_y = trans_y && yd.size() > 1;
  if (xd.size() == 1) xd.insert(xd.begin(), 1);
  if (yd.size() == 1) yd.push_back(1);
  const size_t xr = xd.size(), yr = yd.size();
  s.M = s.trans_x ? xd[xr - 1] : xd[xr - 2];
  const int64_t kx = s.trans_x ? xd[xr - 2] : xd[xr - 1];
  const int64_t ky = s.trans_y ? yd[yr - 1] : yd[yr - 2];
  s.N = s.trans_y ? yd[yr - 2] : yd[yr - 1];
  PL_ENFORCE(kx < 0 || ky < 0 || kx == ky,
             errors::InvalidArgument(
                 "op `%s` inputs `X` and `Y`: expected equal contracted dims, received X shape "
                 "%s (trans_x=%s, K=%lld) and Y shape %s (trans_y=%s, K=%lld)",
                 op, x.ToString(), Bool(trans_x), static_cast<long long>(kx), y.ToString(),
                 Bool(trans_y), static_cast<long long>(ky)));
  s.K = kx >= 0 ? kx : ky;

  const size_t rank = std::max(xr, yr) - 2;
  s.x_batch.assign(rank, 1);
  s.y_batch.assign(rank, 1);
  std::copy(xd.begin(), xd.end() - 2, s.x_batch.end() - (xr - 2));
  std::copy(yd.begin(), yd.end() - 2, s.y_batch.end() - (yr - 2));
  s.batch.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t a = s.x_batch[i], b = s.y_batch[i];
    PL_ENFORCE(a == b || a == 1 || b == 1 || a < 0 || b < 0,
               errors::InvalidArgument("op `%s` inputs `X` and `Y`: expected broadcastable batch "
                                       "dims, received X shape %s and Y shape %s",
                                       op, x.ToString(), y.ToString()));
    if (a == 1) {
      s.batch[i] = b;
    } else if (b == 1) {
      s.batch[i] = a;
    } else {
      s.batch[i] = std::max(a, b);  // Equal, or one unknown (-1) at build time.
    }
  }
  std::vector<int64_t> out = s.batch;
  if (x.size() > 1) out.push_back(s.M);
  if (y.size() > 1) out.push_back(s.N);
  s.out_dims = DDim(out);
  return s;
}

namespace {

// [rows, cols] for a 1-D or 2-D operand (1-D: `vector_as`), [B, rows, cols] above, with B
// the product of the batch dims (-1 when one is unknown).
DDim AsMatmulV2Operand(const DDim& d, const DDim& vector_as) {
  if (d.size() == 1) return vector_as;
  if (d.size() == 2) return d;
  int64_t batches = 1;
  for (int i = 0; i + 2 < d.size(); ++i) batches = d[i] < 0 || batches < 0 ? -1 : batches * d[i];
  return DDim{batches, d[d.size() - 2], d[d.size() - 1]};
}

}  // namespace

MatmulV1Shape AnalyzeMatmulV1(const std::string& op, const DDim& x, const DDim& y, bool trans_x,
                              bool trans_y) {
  PL_ENFORCE(x.size() >= 1, errors::InvalidArgument("op `%s` input `X`: expected a tensor of rank "
                                                    ">= 1, received shape %s",
                                                    op, x.ToString()));
  PL_ENFORCE(y.size() >= 1, errors::InvalidArgument("op `%s` input `Y`: expected a tensor of rank "
                                                    ">= 1, received shape %s",
                                                    op, y.ToString()));
  MatmulV1Shape s;
  s.x = AsMatmulV2Operand(x, x.size() == 1 ? DDim{1, x[0]} : x);
  s.y = AsMatmulV2Operand(y, y.size() == 1 ? DDim{y[0], 1} : y);
  if (s.x.size() == 3 && s.y.size() == 3 && s.x[0] >= 0 && s.y[0] >= 0) {
    PL_ENFORCE(s.x[0] == s.y[0],
               errors::InvalidArgument("op `%s` inputs `X` %s and `Y` %s: expected the same number "
                                       "of matrices (%lld vs %lld); matmul does not broadcast",
                                       op, x.ToString(), y.ToString(),
                                       static_cast<long long>(s.x[0]),
                                       static_cast<long long>(s.y[0])));
  }
  // The 1-D operands are matrices here, so their trans flags apply (unlike matmul_v2's).
  s.v2 = AnalyzeMatmulV2(op, s.x, s.y, trans_x, trans_y);
  std::vector<int64_t> out;
  if (x.size() > 2) {
    out.assign(x.data(), x.data() + x.size() - 2);
  } else if (y.size() > 2) {
    out.assign(y.data(), y.data() + y.size() - 2);
  }
  const int64_t m = s.v2.out_dims[s.v2.out_dims.size() - 2];
  const int64_t n = s.v2.out_dims[s.v2.out_dims.size() - 1];
  out.push_back(m);
  out.push_back(n);
  if (x.size() == 1 && m == 1) out.erase(out.end() - 2);
  if (y.size() == 1 && n == 1) out.pop_back();
  if (out.empty()) out.push_back(1);
  s.out_dims = DDim(out);
  return s;
}

MulShape AnalyzeMul(const std::string& op, const DDim& x, const DDim& y, int x_num_col_dims,
                    int y_num_col_dims) {
  PL_ENFORCE(x_num_col_dims >= 1 && x_num_col_dims < x.size(),
             errors::InvalidArgument("op `%s` attribute `x_num_col_dims`: expected a value in "
                                     "[1, %d) (input `X` has shape %s), received %d",
                                     op, x.size(), x.ToString(), x_num_col_dims));
  PL_ENFORCE(y_num_col_dims >= 1 && y_num_col_dims < y.size(),
             errors::InvalidArgument("op `%s` attribute `y_num_col_dims`: expected a value in "
                                     "[1, %d) (input `Y` has shape %s), received %d",
                                     op, y.size(), y.ToString(), y_num_col_dims));
  // Both are below the ranks now, so the sum cannot overflow.
  PL_ENFORCE(x_num_col_dims + (y.size() - y_num_col_dims) <= DDim::kMaxRank,
             errors::InvalidArgument("op `%s` attributes `x_num_col_dims` and `y_num_col_dims`: "
                                     "expected Out of rank at most %d (X.dims[:%d] + "
                                     "Y.dims[%d:]), received X shape %s and Y shape %s",
                                     op, DDim::kMaxRank, x_num_col_dims, y_num_col_dims,
                                     x.ToString(), y.ToString()));
  const DDim x2 = framework::FlattenTo2D(x, x_num_col_dims);
  const DDim y2 = framework::FlattenTo2D(y, y_num_col_dims);
  PL_ENFORCE(x2[1] < 0 || y2[0] < 0 || x2[1] == y2[0],
             errors::InvalidArgument(
                 "op `%s` inputs `X` and `Y`: expected X flattened to [M, K] and Y to [K, N] with "
                 "equal K, received X shape %s (x_num_col_dims=%d, flattened %s) and Y shape %s "
                 "(y_num_col_dims=%d, flattened %s)",
                 op, x.ToString(), x_num_col_dims, x2.ToString(), y.ToString(), y_num_col_dims,
                 y2.ToString()));
  MulShape s;
  s.M = x2[0];
  s.K = x2[1] >= 0 ? x2[1] : y2[0];
  s.N = y2[1];
  std::vector<int64_t> out(x.data(), x.data() + x_num_col_dims);
  out.insert(out.end(), y.data() + y_num_col_dims, y.data() + y.size());
  s.out_dims = DDim(out);
  return s;
}

MatmulV1Shape AnalyzeMatmulV1Op(const std::string& op, const DDim& x, const DDim& y,
                                const framework::AttributeMap& attrs) {
  for (const char* name : {"fused_reshape_X", "fused_reshape_Y", "fused_transpose_X",
                           "fused_transpose_Y", "fused_reshape_Out", "fused_transpose_Out"}) {
    auto it = attrs.find(name);
    if (it == attrs.end()) continue;
    const auto* v = std::get_if<std::vector<int>>(&it->second);
    PL_ENFORCE(v == nullptr || v->empty(),
               errors::Unimplemented("op `%s` attribute `%s`: oneDNN-fused reshapes and "
                                     "transposes are not implemented, received %s",
                                     op, name, framework::AttrToString(it->second)));
  }
  auto it = attrs.find("head_number");
  if (it != attrs.end()) {
    const int* heads = std::get_if<int>(&it->second);
    PL_ENFORCE(heads == nullptr || *heads == 1,
               errors::Unimplemented("op `%s` attribute `head_number`: only 1 is implemented, "
                                     "received %s",
                                     op, framework::AttrToString(it->second)));
  }
  return AnalyzeMatmulV1(op, x, y, std::get<bool>(attrs.at("transpose_X")),
                         std::get<bool>(attrs.at("transpose_Y")));
}

void CheckOperandTypes(const std::string& op, const framework::DenseTensor& x,
                       const framework::DenseTensor& y, platform::DataType dtype) {
  for (const auto& [slot, t] : {std::pair{"X", &x}, std::pair{"Y", &y}}) {
    PL_ENFORCE(t->dtype() == dtype,
               errors::InvalidArgument("op `%s` input `%s`: expected %s (the kernel's type), "
                                       "received %s",
                                       op, slot, platform::DataTypeName(dtype),
                                       platform::DataTypeName(t->dtype())));
  }
}

}  // namespace operators
}  // namespace paddle_like

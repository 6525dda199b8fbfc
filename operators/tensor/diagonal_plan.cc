#include "operators/tensor/diagonal_plan.h"

#include <algorithm>

#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

DiagonalPlan PlanDiagonal(const std::string& op, const DiagonalNames& names, const DDim& in,
                          int64_t offset, int axis1, int axis2) {
  PL_ENFORCE(in.size() >= 2, errors::InvalidArgument("op `%s` input `%s`: expected rank >= 2, "
                                                     "received shape %s",
                                                     op, names.input, in.ToString()));
  const int a1 =
      NormalizeAxis(op, std::string("attribute `") + names.axis1 + "`", axis1, in.size());
  const int a2 =
      NormalizeAxis(op, std::string("attribute `") + names.axis2 + "`", axis2, in.size());
  PL_ENFORCE(a1 != a2, errors::InvalidArgument("op `%s` attributes `%s` and `%s`: expected two "
                                               "different dims, both name dim %d",
                                               op, names.axis1, names.axis2, a1));
  std::vector<int64_t> strides(in.size(), 1);
  for (int d = in.size() - 2; d >= 0; --d) strides[d] = strides[d + 1] * in[d + 1];
  DiagonalPlan p;
  for (int d = 0; d < in.size(); ++d) {
    if (d == a1 || d == a2) continue;
    p.rest_dims.push_back(in[d]);
    p.rest_strides.push_back(strides[d]);
  }
  const int64_t k = offset, row0 = std::max<int64_t>(-k, 0), col0 = std::max<int64_t>(k, 0);
  if (in[a1] >= 0 && in[a2] >= 0) {
    p.length = std::max<int64_t>(0, std::min(in[a1] - row0, in[a2] - col0));
  } else {
    p.length = -1;
  }
  p.start = row0 * strides[a1] + col0 * strides[a2];
  p.step = strides[a1] + strides[a2];
  return p;
}

}  // namespace operators
}  // namespace paddle_like

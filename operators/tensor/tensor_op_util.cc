#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

std::vector<int64_t> ReadIntValues(const DenseTensor& t, const std::string& op,
                                   const std::string& slot) {
  PL_ENFORCE(t.dtype() == DataType::INT32 || t.dtype() == DataType::INT64,
             errors::InvalidArgument("op `%s` input `%s`: expected an int32 or int64 tensor, "
                                     "received %s",
                                     op, slot, platform::DataTypeName(t.dtype())));
  PL_ENFORCE(
      t.place().is_cpu(),
      errors::InvalidArgument("op `%s` input `%s`: expected a CPU tensor, received one on %s", op,
                              slot, t.place().ToString()));
  std::vector<int64_t> values(static_cast<size_t>(t.numel()));
  if (t.dtype() == DataType::INT32) {
    const int32_t* p = t.data<int32_t>();
    for (size_t i = 0; i < values.size(); ++i) values[i] = p[i];
  } else {
    const int64_t* p = t.data<int64_t>();
    for (size_t i = 0; i < values.size(); ++i) values[i] = p[i];
  }
  return values;
}

std::vector<int> CheckedTransposeAxis(const std::vector<int>& axis, int rank) {
  constexpr char kOp[] = "transpose2";
  PL_ENFORCE(rank >= 0 && axis.size() == static_cast<size_t>(rank),
             errors::InvalidArgument("op `%s` attribute `axis`: expected %d entries (the rank of "
                                     "input `X`), received %zu: %s",
                                     kOp, rank, axis.size(), ListToString(axis)));
  std::vector<int> resolved(axis.size());
  std::vector<bool> seen(axis.size(), false);
  for (size_t i = 0; i < axis.size(); ++i) {
    const int a = axis[i] < 0 ? axis[i] + rank : axis[i];
    PL_ENFORCE(a >= 0 && a < rank && !seen[a],
               errors::InvalidArgument("op `%s` attribute `axis`: expected a permutation of "
                                       "[0, %d), received %s",
                                       kOp, rank, ListToString(axis)));
    seen[a] = true;
    resolved[i] = a;
  }
  return resolved;
}

void CheckShapeValues(const std::string& op, const std::string& origin,
                      const std::vector<int64_t>& shape, bool allow_unknown) {
  PL_ENFORCE(shape.size() <= static_cast<size_t>(DDim::kMaxRank),
             errors::InvalidArgument("op `%s` %s: expected at most %d dims, received %zu", op,
                                     origin, DDim::kMaxRank, shape.size()));
  for (int64_t d : shape) {
    PL_ENFORCE(d >= 0 || (allow_unknown && d == -1),
               errors::InvalidArgument("op `%s` %s: expected dims >= 0%s, received %s", op, origin,
                                       allow_unknown ? " (or -1 before run time)" : "",
                                       ListToString(shape)));
  }
  // Rank and signs are fine: what is left for ShapeProblem to find is an overflowing product.
  PL_ENFORCE(framework::ShapeProblem(shape, allow_unknown).empty(),
             errors::InvalidArgument("op `%s` %s: expected dims whose product fits in int64, "
                                     "received %s",
                                     op, origin, ListToString(shape)));
}

DDim UnknownDims(const std::string& op, const std::string& origin, int64_t rank) {
  PL_ENFORCE(rank >= 0 && rank <= DDim::kMaxRank,
             errors::InvalidArgument("op `%s` %s: expected at most %d dims, received %lld", op,
                                     origin, DDim::kMaxRank, static_cast<long long>(rank)));
  return DDim(std::vector<int64_t>(static_cast<size_t>(rank), -1));
}

}  // namespace operators
}  // namespace paddle_like

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
  PL_ENFORCE(static_cast<int>(axis.size()) == rank,
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

}  // namespace operators
}  // namespace paddle_like

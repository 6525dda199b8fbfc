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

}  // namespace operators
}  // namespace paddle_like

#include "operators/loss/cross_entropy_util.h"

namespace paddle_like {
namespace operators {

IntLabels::IntLabels(const DenseTensor& t, const std::string& op, const std::string& slot) {
  if (t.dtype() == DataType::INT32) {
    i32_ = t.data<int32_t>();
  } else if (t.dtype() == DataType::INT64) {
    i64_ = t.data<int64_t>();
  } else {
    PL_THROW(errors::InvalidArgument(
        "op `%s` input `%s`: expected int64 or int32 class indices (hard labels), received %s", op,
        slot, platform::DataTypeName(t.dtype())));
  }
}

void CheckHardLabel(const std::string& op, int64_t label, int64_t num_classes, int64_t ignore_index,
                    int64_t position) {
  if (label == ignore_index) return;
  PL_ENFORCE(label >= 0 && label < num_classes,
             errors::InvalidArgument(
                 "op `%s` input `Label`: expected class indices in [0, %lld) "
                 "or ignore_index %lld, received %lld at element %lld",
                 op, static_cast<long long>(num_classes), static_cast<long long>(ignore_index),
                 static_cast<long long>(label), static_cast<long long>(position)));
}

void CheckSoftLabelType(const std::string& op, const DenseTensor& label, DataType expected) {
  PL_ENFORCE(label.dtype() == expected,
             errors::InvalidArgument("op `%s` input `Label`: soft_label is true, so expected a "
                                     "%s distribution, received %s",
                                     op, platform::DataTypeName(expected),
                                     platform::DataTypeName(label.dtype())));
}

framework::DDim WithDimOne(const framework::DDim& dims, int axis) {
  framework::DDim out = dims;
  out[axis] = 1;
  return out;
}

}  // namespace operators
}  // namespace paddle_like

// Helpers shared by the cross-entropy ops (cross_entropy, cross_entropy2,
// softmax_with_cross_entropy): reading integer labels, checking them, and the clamped
// logarithm PaddlePaddle uses so that -log(0) stays finite.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "operators/common.h"

namespace paddle_like {
namespace operators {

// Read access to hard labels stored as int32 or int64, without a copy.
class IntLabels {
 public:
  IntLabels() = default;  // No labels (soft labels are read directly).
  // Throws InvalidArgumentError naming `op` and `slot` when `t` is not int32 or int64.
  IntLabels(const DenseTensor& t, const std::string& op, const std::string& slot);
  int64_t operator[](int64_t i) const { return i32_ != nullptr ? i32_[i] : i64_[i]; }

 private:
  const int32_t* i32_ = nullptr;
  const int64_t* i64_ = nullptr;
};

// Throws InvalidArgumentError naming `op` and input `Label` unless `label` is in
// [0, num_classes) or equals `ignore_index`. `position` is the label's element index.
void CheckHardLabel(const std::string& op, int64_t label, int64_t num_classes, int64_t ignore_index,
                    int64_t position);

// Throws InvalidArgumentError naming `op` and input `Label` when a soft label does not have
// the kernel's floating dtype `expected`.
void CheckSoftLabelType(const std::string& op, const DenseTensor& label, DataType expected);

// log(x) with infinities replaced by +-1e20, as PaddlePaddle's TolerableValue does: the
// loss of a probability 0 is 1e20 instead of inf. NaN stays NaN.
template <typename T>
T TolerableLog(T x) {
  const T v = std::log(x);
  const T kApproInf = static_cast<T>(1e20);
  if (std::isinf(v)) return v > 0 ? kApproInf : -kApproInf;
  return v;
}

// The dims of Loss/Y: `dims` with dim `axis` set to 1.
framework::DDim WithDimOne(const framework::DDim& dims, int axis);

}  // namespace operators
}  // namespace paddle_like

// Helpers shared by the tensor ops (fill_constant, cast, reshape2, transpose2, assign) and
// by their kernels on other devices.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "operators/common.h"

namespace paddle_like {
namespace operators {

// Converts one element between the element types paddle_like holds: 16-bit floats go
// through float, anything to bool is `v != 0`, the rest is static_cast.
template <typename To, typename From>
To ConvertElement(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, platform::float16> ||
                       std::is_same_v<From, platform::bfloat16>) {
    return ConvertElement<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, platform::float16> ||
                       std::is_same_v<To, platform::bfloat16>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else {
    return static_cast<To>(v);
  }
}

// One element of a Scalar-list attribute (`values` of assign_value and set_value) as T.
template <typename T>
T ScalarAs(const framework::Scalar& s) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    using R = typename T::value_type;
    if (s.type == framework::Scalar::Type::COMPLEX128) {
      return T(static_cast<R>(s.c_real), static_cast<R>(s.c_imag));
    }
  }
  if (s.type == framework::Scalar::Type::BOOLEAN) return ConvertElement<T>(s.b);
  if (s.type == framework::Scalar::Type::LONG) return ConvertElement<T>(s.i);
  return ConvertElement<T>(s.ToDouble());
}

// Whether a data_format attribute value puts the channels last: true for NHWC, false for
// NCHW; InvalidArgumentError naming `op` and attribute `attr` for anything else.
bool ChannelLastFormat(const std::string& op, const char* attr, const std::string& format);

// X as [outer, n, inner] around `axis` (the lines an op reduces, searches or sorts along
// it); a 0-D X is one line of one value. InvalidArgumentError naming `op` and its attribute
// `axis` outside [-rank, rank).
struct LineView {
  int64_t outer = 1, n = 1, inner = 1;
  int axis = 0;
};
LineView ViewAround(const std::string& op, const DDim& x, int axis);

// The values of an int32 or int64 tensor (a shape given as a tensor), copied to the host
// first when it lives on a device. Errors name `op` and `slot`.
std::vector<int64_t> ReadIntValues(const DenseTensor& t, const std::string& op,
                                   const std::string& slot);

// fill_constant's host side, shared by its CPU and CUDA kernels: resizes Out to the shape
// given by ShapeTensor or ShapeTensorList when one is (read on the host wherever it lives),
// and returns the fill value (ValueTensor, else str_value, else value) converted to T.
// InvalidArgumentError naming the op and the source for a bad shape or a value outside T's
// range. Defined for float, double, int32_t, int64_t, bool and the complex types (the value
// as the real part).
template <typename T>
T PrepareFillConstant(const ExecutionContext& ctx);

// fill_any_like's value: attribute `value` converted to T, shared by its CPU and CUDA kernels.
// bool stores value != 0; integer types take a finite value in their range (fractions
// truncated toward zero), else InvalidArgumentError naming the op.
template <typename T>
T FillAnyLikeValue(const ExecutionContext& ctx) {
  const float value = ctx.Attr<float>("value");
  if constexpr (std::is_same_v<T, bool>) {
    return value != 0.0f;
  } else if constexpr (std::is_integral_v<T>) {
    // max() + 1 (2^31, 2^63, 256, ...) is exact as a double; every double below it fits T.
    const double v = value;
    const double lo = static_cast<double>(std::numeric_limits<T>::min());
    const double past_hi = static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
    PL_ENFORCE(
        std::isfinite(v) && v >= lo && v < past_hi,
        errors::InvalidArgument("op `%s` attribute `value`: expected a finite value in "
                                "the range of %s, received %g",
                                ctx.Type(), platform::DataTypeName(platform::ToDataType<T>()), v));
    return static_cast<T>(v);
  } else {
    return static_cast<T>(value);
  }
}

// `axis` with the rank added when negative; InvalidArgumentError naming `op` and `origin`
// ("attribute `axis`", "input `AxisTensor`") unless rank >= 1 and -rank <= axis < rank.
int NormalizeAxis(const std::string& op, const std::string& origin, int64_t axis, int rank);

// The values of the one-element int32/int64 tensors of the duplicable input `list_slot`, in
// order (starts, ends, a shape given one tensor per entry).
std::vector<int64_t> ReadOneElementInts(const ExecutionContext& ctx, const std::string& list_slot);

// ReadOneElementInts of sizes: each checked > 0 and within int (an attribute's type).
std::vector<int> ReadSizes(const ExecutionContext& ctx, const std::string& list_slot);

// An int list an op may take three ways, in this order of precedence: the 1-D int32/int64
// tensor input `tensor_slot`, the list of one-element tensors `list_slot`, the ints
// attribute `attr`. `origin` is set to the source ("input `Shape`", ...) for messages.
std::vector<int64_t> ReadIntList(const ExecutionContext& ctx, const std::string& tensor_slot,
                                 const std::string& list_slot, const std::string& attr,
                                 std::string* origin);

// transpose2's `axis` with negative entries resolved; InvalidArgumentError naming the op and
// attribute unless it permutes [0, rank).
std::vector<int> CheckedTransposeAxis(const std::vector<int>& axis, int rank);

// InvalidArgumentError "op `<op>` <origin>: expected ..." unless `shape` (an attribute or the
// values of a shape tensor, as given in a program) can be a tensor's shape: at most
// DDim::kMaxRank dims, each >= 0 (or -1 when `allow_unknown`, at build time), and non-zero
// dims whose product fits in int64 (framework::ShapeProblem), so that numel() and every
// size computed from it cannot overflow.
void CheckShapeValues(const std::string& op, const std::string& origin,
                      const std::vector<int64_t>& shape, bool allow_unknown);

// `rank` unknown dims (-1): the build-time shape of an output whose dims come from a tensor
// of `rank` values. InvalidArgumentError naming `op` and `origin` unless
// 0 <= rank <= DDim::kMaxRank (checked before anything is allocated).
DDim UnknownDims(const std::string& op, const std::string& origin, int64_t rank);

// "[2, 3, -1]"; a list longer than 32 values shows its first 32 and its length
// ("[0, 1, ..., 31, ... (40 values)]"), so that a message about a hostile list stays small.
template <typename T>
std::string ListToString(const std::vector<T>& v) {
  constexpr size_t kMaxShown = 32;
  const size_t shown = std::min(v.size(), kMaxShown);
  std::string s = "[";
  for (size_t i = 0; i < shown; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  if (shown < v.size()) s += ", ... (" + std::to_string(v.size()) + " values)";
  return s + "]";
}

}  // namespace operators
}  // namespace paddle_like

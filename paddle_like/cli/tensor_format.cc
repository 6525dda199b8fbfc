#include "paddle_like/cli/tensor_format.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace paddle_like {
namespace cli {

using framework::DDim;
using framework::DenseTensor;
using platform::DataType;

double ValueAt(const DenseTensor& t, int64_t i) {
  const void* p = t.raw_data();
  switch (t.dtype()) {
    case DataType::BOOL: return static_cast<const bool*>(p)[i] ? 1 : 0;
    case DataType::INT8: return static_cast<const int8_t*>(p)[i];
    case DataType::UINT8: return static_cast<const uint8_t*>(p)[i];
    case DataType::INT16: return static_cast<const int16_t*>(p)[i];
    case DataType::INT32: return static_cast<const int32_t*>(p)[i];
    case DataType::INT64: return static_cast<double>(static_cast<const int64_t*>(p)[i]);
    case DataType::FLOAT16:
      return static_cast<float>(static_cast<const platform::float16*>(p)[i]);
    case DataType::BFLOAT16:
      return static_cast<float>(static_cast<const platform::bfloat16*>(p)[i]);
    case DataType::FLOAT32: return static_cast<const float*>(p)[i];
    case DataType::FLOAT64: return static_cast<const double*>(p)[i];
    default: return 0;
  }
}

namespace {
std::string FormatValue(const DenseTensor& t, int64_t i) {
  if (t.dtype() == DataType::BOOL) return ValueAt(t, i) != 0 ? "true" : "false";
  if (t.dtype() == DataType::INT64) {
    return std::to_string(static_cast<const int64_t*>(t.raw_data())[i]);
  }
  char buf[64];
  if (platform::IsComplex(t.dtype())) {  // NumPy's style: (a+bj).
    const std::complex<double> v =
        t.dtype() == DataType::COMPLEX64
            ? std::complex<double>(static_cast<const std::complex<float>*>(t.raw_data())[i])
            : static_cast<const std::complex<double>*>(t.raw_data())[i];
    std::snprintf(buf, sizeof(buf), "(%.6g%+.6gj)", v.real(), v.imag());
    return buf;
  }
  std::snprintf(buf, sizeof(buf), "%.6g", ValueAt(t, i));
  return buf;
}

}  // namespace

std::string FormatValues(const DenseTensor& t) {
  constexpr int64_t kNested = 16, kHead = 8;
  const int64_t n = t.numel();
  const DDim& d = t.dims();
  if (n <= kNested) {
    std::string s;
    int64_t index = 0;
    // Walks the dims recursively by building brackets around each row.
    std::vector<int64_t> counter(static_cast<size_t>(d.size()), 0);
    if (d.size() == 0) return FormatValue(t, 0);
    if (n == 0) return std::string(static_cast<size_t>(d.size()), '[') +
                       std::string(static_cast<size_t>(d.size()), ']');
    s.append(static_cast<size_t>(d.size()), '[');
    while (true) {
      s += FormatValue(t, index++);
      int k = d.size() - 1;
      while (k >= 0 && ++counter[k] == d[k]) {
        counter[k] = 0;
        s += ']';
        --k;
      }
      if (k < 0) return s;
      s += ", ";
      s.append(static_cast<size_t>(d.size() - 1 - k), '[');
    }
  }
  std::string s = "[";
  for (int64_t i = 0; i < kHead; ++i) s += FormatValue(t, i) + ", ";
  return s + "...] (" + std::to_string(n) + " values)";
}

std::string OutputFileName(const std::string& name) {
  std::string f = name;
  std::replace(f.begin(), f.end(), '/', '_');
  return f + ".npy";
}

}  // namespace cli
}  // namespace paddle_like

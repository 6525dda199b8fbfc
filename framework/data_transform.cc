#include "framework/data_transform.h"

#include <atomic>

namespace paddle_like {
namespace framework {

namespace {
std::atomic<int64_t> g_transforms{0};
}  // namespace

void TransformTensor(const DenseTensor& in, DataType dtype, const platform::Place& place,
                     DenseTensor* out) {
  ++g_transforms;
  if (!in.is_plain()) {
    DenseTensor plain = PlainTensor(in);
    if (plain.dtype() == dtype && place == plain.place()) {
      *out = std::move(plain);
    } else {
      TransformTensor(plain, dtype, place, out);
      --g_transforms;  // Counted once for the whole conversion.
    }
    return;
  }
  if (in.dtype() == dtype) {
    CopyTensor(in, place, out);
    return;
  }
  if (in.place().is_cpu()) {
    DenseTensor cast;
    CastTensor(in, dtype, &cast);
    if (place.is_cpu()) {
      *out = std::move(cast);
    } else {
      CopyTensor(cast, place, out);
    }
    return;
  }
  DenseTensor host;
  CopyTensor(in, platform::CPUPlace(), &host);
  TransformTensor(host, dtype, place, out);
  --g_transforms;  // Counted once for the whole conversion.
}

int64_t DataTransformCount() { return g_transforms.load(); }

DenseTensor OnCpu(const DenseTensor& t) {
  if (t.place().is_cpu()) return t;
  DenseTensor host;
  CopyTensor(t, platform::CPUPlace(), &host);
  return host;
}

}  // namespace framework
}  // namespace paddle_like

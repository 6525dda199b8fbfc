// KernelKey: what a kernel is registered for, and what an op asks for when it runs.
#pragma once

#include <string>

#include "platform/data_type.h"
#include "platform/place.h"

namespace paddle_like {
namespace framework {

using platform::DataType;
using platform::DeviceType;

enum class LibraryType { kPlain = 0, kOneDNN = 1, kCUDNN = 2 };
// kAny: the kernel accepts any layout (most kernels: the layout is an attribute).
enum class DataLayout { kAny = 0, kNCHW = 1, kNHWC = 2, kOneDNN = 3 };

const char* LibraryTypeName(LibraryType library);
const char* DataLayoutName(DataLayout layout);
const char* DeviceTypeName(DeviceType device);

struct KernelKey {
  DeviceType device = DeviceType::kCPU;
  DataType dtype = DataType::FLOAT32;
  LibraryType backend = LibraryType::kPlain;  // Which kernel library: plain, oneDNN, cuDNN.
  DataLayout layout = DataLayout::kAny;

  bool operator==(const KernelKey& o) const {
    return device == o.device && dtype == o.dtype && backend == o.backend && layout == o.layout;
  }
  bool operator!=(const KernelKey& o) const { return !(*this == o); }
  // "{CPU, float32, PLAIN, ANY}"
  std::string ToString() const;
};

}  // namespace framework
}  // namespace paddle_like

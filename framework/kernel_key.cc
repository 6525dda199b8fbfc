#include "framework/kernel_key.h"

namespace paddle_like {
namespace framework {

const char* LibraryTypeName(LibraryType library) {
  switch (library) {
    case LibraryType::kPlain: return "PLAIN";
    case LibraryType::kOneDNN: return "ONEDNN";
    case LibraryType::kCUDNN: return "CUDNN";
  }
  return "?";
}

const char* DataLayoutName(DataLayout layout) {
  switch (layout) {
    case DataLayout::kAny: return "ANY";
    case DataLayout::kNCHW: return "NCHW";
    case DataLayout::kNHWC: return "NHWC";
    case DataLayout::kOneDNN: return "ONEDNN";
  }
  return "?";
}

const char* DeviceTypeName(DeviceType device) {
  return device == DeviceType::kCPU ? "CPU" : "CUDA";
}

std::string KernelKey::ToString() const {
  return std::string("{") + DeviceTypeName(device) + ", " + platform::DataTypeName(dtype) + ", " +
         LibraryTypeName(backend) + ", " + DataLayoutName(layout) + "}";
}

}  // namespace framework
}  // namespace paddle_like

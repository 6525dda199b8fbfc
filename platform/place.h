// Where a tensor lives and where a kernel runs: the CPU or one CUDA device.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace paddle_like {
namespace platform {

enum class DeviceType { kCPU = 0, kCUDA = 1 };

class Place {
 public:
  Place() = default;
  Place(DeviceType type, int device_id) : type_(type), device_id_(device_id) {}

  DeviceType type() const { return type_; }
  int device_id() const { return device_id_; }
  bool is_cpu() const { return type_ == DeviceType::kCPU; }
  bool is_gpu() const { return type_ == DeviceType::kCUDA; }

  bool operator==(const Place& o) const { return type_ == o.type_ && device_id_ == o.device_id_; }
  bool operator!=(const Place& o) const { return !(*this == o); }
  bool operator<(const Place& o) const {
    return type_ != o.type_ ? type_ < o.type_ : device_id_ < o.device_id_;
  }
  std::string ToString() const;

 private:
  DeviceType type_ = DeviceType::kCPU;
  int device_id_ = 0;
};

struct CPUPlace : public Place {
  CPUPlace() : Place(DeviceType::kCPU, 0) {}
};

struct CUDAPlace : public Place {
  explicit CUDAPlace(int device_id = 0) : Place(DeviceType::kCUDA, device_id) {}
};

std::ostream& operator<<(std::ostream& os, const Place& place);

}  // namespace platform
}  // namespace paddle_like

template <>
struct std::hash<paddle_like::platform::Place> {
  size_t operator()(const paddle_like::platform::Place& p) const {
    return static_cast<size_t>(p.type()) * 1024 + static_cast<size_t>(p.device_id());
  }
};

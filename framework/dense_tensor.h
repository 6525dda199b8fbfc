// DenseTensor: a dense, row-major tensor with dims, dtype, place, LoD and a shared buffer.
//
// Copying a DenseTensor shares its buffer (ShareDataWith semantics); use CopyTensor for a
// deep copy. mutable_data() (re)allocates when the buffer is absent, too small, on another
// place or of another dtype. Not thread-safe: a tensor has one writer at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "framework/ddim.h"
#include "platform/allocator.h"
#include "platform/data_type.h"
#include "platform/enforce.h"
#include "platform/place.h"

namespace paddle_like {
namespace framework {

using platform::DataType;
using platform::Place;

// Level-of-detail offsets, as in PaddlePaddle (sequence boundaries for variable-length data).
using LoD = std::vector<std::vector<size_t>>;

// Why `lod` cannot describe a tensor of `height` rows (dims[0]), or "" when it can
// (PaddlePaddle's rule): each level holds at least 2 offsets, starts at 0 and never
// decreases; each level ends at the size of the next level minus 1; the last level ends at
// `height`.
std::string LoDProblem(const LoD& lod, int64_t height);

class DenseTensor {
 public:
  DenseTensor() = default;
  DenseTensor(const DDim& dims, DataType dtype) : dims_(dims), dtype_(dtype) {}

  const DDim& dims() const { return dims_; }
  // Sets dims without touching the buffer; the next mutable_data() grows it if needed.
  DenseTensor& Resize(const DDim& dims) {
    dims_ = dims;
    return *this;
  }
  int64_t numel() const { return dims_.numel(); }
  DataType dtype() const { return dtype_; }
  // Changes the element type label only (for deserialisation before allocation).
  void set_dtype(DataType dtype) { dtype_ = dtype; }
  const Place& place() const { return place_; }
  const LoD& lod() const { return lod_; }
  void set_lod(const LoD& lod) { lod_ = lod; }

  // True once memory is held for the current dims.
  bool initialized() const { return holder_ != nullptr; }
  size_t memory_size() const { return holder_ ? holder_->size() - offset_ : 0; }

  void* mutable_data(const Place& place, DataType dtype);
  template <typename T>
  T* mutable_data(const Place& place) {
    return static_cast<T*>(mutable_data(place, platform::ToDataType<T>()));
  }
  template <typename T>
  T* mutable_data() {
    return mutable_data<T>(place_);
  }

  // Typed read access; throws PreconditionNotMetError if uninitialized or of another dtype.
  template <typename T>
  const T* data() const {
    CheckAccess(platform::ToDataType<T>());
    return reinterpret_cast<const T*>(raw_data());
  }
  template <typename T>
  T* data() {
    CheckAccess(platform::ToDataType<T>());
    return reinterpret_cast<T*>(raw_data());
  }
  const void* raw_data() const {
    return holder_ ? static_cast<const char*>(holder_->ptr()) + offset_ : nullptr;
  }
  void* raw_data() { return holder_ ? static_cast<char*>(holder_->ptr()) + offset_ : nullptr; }

  // Makes this tensor view `other`'s buffer (dims, dtype, place, LoD too).
  void ShareDataWith(const DenseTensor& other) { *this = other; }
  // Releases the buffer (used by the executor to free dead temporaries).
  void clear() {
    holder_.reset();
    offset_ = 0;
  }
  const platform::AllocationPtr& holder() const { return holder_; }

 private:
  void CheckAccess(DataType requested) const;

  DDim dims_;
  DataType dtype_ = DataType::FLOAT32;
  Place place_;
  LoD lod_;
  platform::AllocationPtr holder_;
  size_t offset_ = 0;
};

// Deep copy of `src` into `dst` on `dst_place` (same dims, dtype and LoD).
void CopyTensor(const DenseTensor& src, const Place& dst_place, DenseTensor* dst);
// Converts `src` to `dtype` into `dst` (CPU tensors).
void CastTensor(const DenseTensor& src, DataType dtype, DenseTensor* dst);

}  // namespace framework
}  // namespace paddle_like

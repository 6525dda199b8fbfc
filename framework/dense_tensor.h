// DenseTensor: a dense tensor with dims, dtype, place, LoD and a shared buffer, row-major
// unless it carries an opaque layout (below).
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

// "[[0, 2, 5]]": the offsets of each level, for messages and printed outputs.
std::string LoDToString(const LoD& lod);

// A kernel library's own arrangement of a tensor's elements, such as a oneDNN memory
// descriptor with blocked channels. The library implements it (operators/onednn/
// onednn_layout.h); the framework only asks for the size and for a row-major copy. The
// tensor's dims stay the logical, row-major dims.
class OpaqueLayout {
 public:
  virtual ~OpaqueLayout() = default;
  // "oneDNN aBcd8b": for profiles and messages.
  virtual std::string ToString() const = 0;
  // The buffer size the layout needs (padding included).
  virtual size_t bytes() const = 0;
  // Writes the elements of `src`, arranged in this layout, into `dst` in row-major order.
  virtual void ToPlain(const void* src, void* dst) const = 0;
  // The layout of `count` indices of dim 0 from `begin` on, when they lie in one run of the
  // buffer starting at byte `*byte_offset` (dim 0 outermost and not blocked); else null.
  virtual std::shared_ptr<const OpaqueLayout> Rows(int64_t begin, int64_t count,
                                                   size_t* byte_offset) const {
    (void)begin, (void)count, (void)byte_offset;
    return nullptr;
  }
};

class DenseTensor {
 public:
  DenseTensor() = default;
  DenseTensor(const DDim& dims, DataType dtype) : dims_(dims), dtype_(dtype) {}

  const DDim& dims() const { return dims_; }
  // Sets dims without touching the buffer; the next mutable_data() grows it if needed. The
  // tensor becomes row-major again (a layout describes the data of one shape).
  DenseTensor& Resize(const DDim& dims) {
    dims_ = dims;
    layout_.reset();
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

  // Row-major data (no opaque layout): what data<T>() reads.
  bool is_plain() const { return layout_ == nullptr; }
  const std::shared_ptr<const OpaqueLayout>& opaque_layout() const { return layout_; }
  // Declares the layout of the data the next mutable_data() is written in (after Resize).
  void set_opaque_layout(std::shared_ptr<const OpaqueLayout> layout) { layout_ = std::move(layout); }
  // Bytes the data takes in its layout: numel * element size when plain.
  size_t data_bytes() const {
    if (layout_ != nullptr) return layout_->bytes();
    const int64_t n = dims_.numel();
    return n > 0 ? static_cast<size_t>(n) * platform::SizeOf(dtype_) : 0;
  }

  void* mutable_data(const Place& place, DataType dtype);
  template <typename T>
  T* mutable_data(const Place& place) {
    return static_cast<T*>(mutable_data(place, platform::ToDataType<T>()));
  }
  template <typename T>
  T* mutable_data() {
    return mutable_data<T>(place_);
  }

  // Typed access to row-major data; PreconditionNotMetError if uninitialized, of another
  // dtype, or in an opaque layout (convert with PlainTensor; library kernels that read their
  // own layout use raw_data()).
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
  // Makes this tensor (keeping its dims and dtype) view `buffer`'s data from byte
  // `byte_offset` on (coalesce_tensor's outputs). OutOfRangeError when the view would pass
  // the end of buffer's data. As with ShareDataWith, mutable_data() then allocates anew;
  // only a kernel declared to write into its input's buffer (an in-place collective) writes
  // through raw_data(), and the view sees that.
  void ShareDataWithOffset(const DenseTensor& buffer, size_t byte_offset);
  // Makes this tensor (keeping its dims, dtype and LoD) hold `allocation` from its start, in
  // row-major layout: memory that something else provides (a communicator's shared memory,
  // which other processes read). OutOfRangeError when it is smaller than the data.
  void ResetHolder(platform::AllocationPtr allocation);
  // Makes this tensor view indices [begin, begin + count) of dim 0 of `src` (a batch slice),
  // in src's layout. False, leaving this tensor as it was, when src's opaque layout does not
  // keep those indices together; OutOfRangeError when they pass src's dim 0.
  bool ShareRowsWith(const DenseTensor& src, int64_t begin, int64_t count);
  // In-place execution (the executor's memory plan): takes `donor`'s buffer, dtype and
  // place, and lets the next mutable_data() of exactly the donor's type and byte size write
  // into it although `donor` still holds it, which is otherwise never done. Granted only for
  // an input nothing reads after the op, to an output of a kernel that declares the pair
  // (KernelInfo::inplace); EndInPlace withdraws it. Copies of this tensor get no grant.
  // With `holders` > 0 the grant lasts, but holds only while exactly that many tensors hold
  // the buffer: coalesce_tensor's views, written in place until someone else (a fetched
  // copy, a collective still reading the buffer) holds it too.
  void ShareBufferInPlace(const DenseTensor& donor, long holders = 0);
  void EndInPlace() { inplace_bytes_ = InPlaceGrant(); }
  // Releases the buffer (used by the executor to free dead temporaries).
  void clear() {
    holder_.reset();
    offset_ = 0;
    layout_.reset();
    inplace_bytes_ = InPlaceGrant();
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
  std::shared_ptr<const OpaqueLayout> layout_;  // Null: row-major.
  // The byte size ShareBufferInPlace granted (0: none) and the holders it asks for (0: any).
  // Never copied with the tensor.
  struct InPlaceGrant {
    size_t value = 0;
    long holders = 0;
    InPlaceGrant() = default;
    InPlaceGrant(const InPlaceGrant&) {}
    InPlaceGrant& operator=(const InPlaceGrant&) {
      value = 0;
      holders = 0;
      return *this;
    }
  };
  InPlaceGrant inplace_bytes_;
};

// `src` as row-major data: `src` itself (sharing its buffer) when it is plain, else a
// converted copy (CPU tensors).
DenseTensor PlainTensor(const DenseTensor& src);

// Deep copy of `src` into `dst` on `dst_place` (same dims, dtype, LoD and layout).
void CopyTensor(const DenseTensor& src, const Place& dst_place, DenseTensor* dst);
// Converts `src` to `dtype` into `dst` (CPU tensors, row-major results).
void CastTensor(const DenseTensor& src, DataType dtype, DenseTensor* dst);

}  // namespace framework
}  // namespace paddle_like

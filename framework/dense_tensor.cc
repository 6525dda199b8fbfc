#include "framework/dense_tensor.h"

#include "platform/checked_math.h"

namespace paddle_like {
namespace framework {

std::string LoDToString(const LoD& lod) {
  std::string s = "[";
  for (size_t l = 0; l < lod.size(); ++l) {
    s += l ? ", [" : "[";
    for (size_t i = 0; i < lod[l].size(); ++i) {
      s += (i ? ", " : "") + std::to_string(lod[l][i]);
    }
    s += "]";
  }
  return s + "]";
}

std::string LoDProblem(const LoD& lod, int64_t height) {
  for (size_t l = 0; l < lod.size(); ++l) {
    const auto& level = lod[l];
    if (level.size() < 2) {
      return platform::Sprintf("LoD level %zu has %zu offsets, expected at least 2", l,
                               level.size());
    }
    if (level.front() != 0) {
      return platform::Sprintf("LoD level %zu starts at %zu, expected 0", l, level.front());
    }
    for (size_t i = 1; i < level.size(); ++i) {
      if (level[i] < level[i - 1]) {
        return platform::Sprintf("LoD level %zu decreases at offset %zu (%zu after %zu)", l, i,
                                 level[i], level[i - 1]);
      }
    }
    const size_t expected_end = l + 1 < lod.size() ? lod[l + 1].size() - 1
                                                   : static_cast<size_t>(height < 0 ? 0 : height);
    if (level.back() != expected_end) {
      return platform::Sprintf("LoD level %zu ends at %zu, expected %zu (%s)", l, level.back(),
                               expected_end,
                               l + 1 < lod.size() ? "the next level's size minus 1"
                                                  : "the tensor's first dim");
    }
  }
  return "";
}

void* DenseTensor::mutable_data(const Place& place, DataType dtype) {
  const int64_t n = dims_.numel();
  PL_ENFORCE(n >= 0, errors::PreconditionNotMet(
                         "cannot allocate a tensor of unknown shape %s", dims_.ToString()));
  int64_t signed_bytes = 0;
  PL_ENFORCE(platform::CheckedMul(n, static_cast<int64_t>(platform::SizeOf(dtype)), &signed_bytes),
             errors::OutOfRange("cannot allocate a %s tensor of shape %s: its size in bytes "
                                "exceeds int64",
                                platform::DataTypeName(dtype), dims_.ToString()));
  const size_t bytes = layout_ != nullptr ? layout_->bytes() : static_cast<size_t>(signed_bytes);
  // A buffer shared with another tensor is never written through (outputs own their
  // memory), except under an in-place grant for exactly this type and size.
  const bool granted =
      inplace_bytes_.value != 0 && inplace_bytes_.value == bytes &&
      (inplace_bytes_.holders == 0 || holder_.use_count() == inplace_bytes_.holders);
  if (holder_ == nullptr || (holder_.use_count() > 1 && !granted) ||
      holder_->place() != place || dtype_ != dtype || holder_->size() < bytes + offset_) {
    holder_ = platform::Alloc(place, bytes);
    offset_ = 0;
  }
  place_ = place;
  dtype_ = dtype;
  return raw_data();
}

void DenseTensor::ShareDataWithOffset(const DenseTensor& buffer, size_t byte_offset) {
  PL_ENFORCE(buffer.initialized() && buffer.is_plain(),
             errors::PreconditionNotMet("cannot view a tensor that holds no row-major data"));
  const size_t bytes = data_bytes();
  PL_ENFORCE(byte_offset <= buffer.memory_size() && bytes <= buffer.memory_size() - byte_offset,
             errors::OutOfRange("a view of %zu bytes at byte %zu passes the end of a buffer of "
                                "%zu bytes",
                                bytes, byte_offset, buffer.memory_size()));
  holder_ = buffer.holder_;
  offset_ = buffer.offset_ + byte_offset;
  place_ = buffer.place_;
  layout_.reset();
  inplace_bytes_.value = 0;
}

void DenseTensor::ResetHolder(platform::AllocationPtr allocation) {
  PL_ENFORCE(allocation != nullptr && allocation->size() >= data_bytes(),
             errors::OutOfRange("a buffer of %zu bytes cannot hold a %s tensor of shape %s",
                                allocation == nullptr ? size_t{0} : allocation->size(),
                                platform::DataTypeName(dtype_), dims_.ToString()));
  place_ = allocation->place();
  holder_ = std::move(allocation);
  offset_ = 0;
  layout_.reset();
  inplace_bytes_ = InPlaceGrant();
}

bool DenseTensor::ShareRowsWith(const DenseTensor& src, int64_t begin, int64_t count) {
  PL_ENFORCE(src.initialized() && src.dims().size() >= 1,
             errors::PreconditionNotMet("cannot view rows of a tensor without data or dims"));
  const int64_t rows = src.dims()[0];
  PL_ENFORCE(begin >= 0 && count >= 0 && begin <= rows && count <= rows - begin,
             errors::OutOfRange("rows [%lld, %lld) of a tensor of dims %s", (long long)begin,
                                (long long)(begin + count), src.dims().ToString()));
  std::vector<int64_t> dims = src.dims().ToVector();
  dims[0] = count;
  size_t byte_offset = 0;
  std::shared_ptr<const OpaqueLayout> layout;
  if (!src.is_plain()) {
    layout = src.layout_->Rows(begin, count, &byte_offset);
    if (layout == nullptr) return false;
  } else {
    const int64_t row_elements = rows == 0 ? 0 : src.numel() / rows;
    byte_offset = static_cast<size_t>(begin * row_elements) * platform::SizeOf(src.dtype_);
  }
  *this = src;
  dims_ = DDim(dims);
  offset_ = src.offset_ + byte_offset;
  layout_ = std::move(layout);
  lod_.clear();
  return true;
}

void DenseTensor::ShareBufferInPlace(const DenseTensor& donor, long holders) {
  holder_ = donor.holder_;
  offset_ = donor.offset_;
  dtype_ = donor.dtype_;
  place_ = donor.place_;
  layout_.reset();
  inplace_bytes_.value = donor.data_bytes();  // In the donor's layout, row-major or not.
  inplace_bytes_.holders = holders;
}

void DenseTensor::CheckAccess(DataType requested) const {
  PL_ENFORCE(holder_ != nullptr,
             errors::PreconditionNotMet("tensor of shape %s holds no data yet", dims_.ToString()));
  PL_ENFORCE(requested == dtype_,
             errors::PreconditionNotMet("tensor holds %s data but %s was requested",
                                        platform::DataTypeName(dtype_),
                                        platform::DataTypeName(requested)));
  PL_ENFORCE(layout_ == nullptr,
             errors::PreconditionNotMet("tensor of shape %s holds its data in %s, not row-major "
                                        "(convert it with PlainTensor)",
                                        dims_.ToString(), layout_->ToString()));
}

DenseTensor PlainTensor(const DenseTensor& src) {
  if (src.is_plain()) return src;
  PL_ENFORCE(src.initialized() && src.place().is_cpu(),
             errors::PreconditionNotMet("cannot convert a tensor in %s to row-major: %s",
                                        src.opaque_layout()->ToString(),
                                        src.initialized() ? "it is not on the CPU" : "it holds no data"));
  DenseTensor out(src.dims(), src.dtype());
  out.set_lod(src.lod());
  void* p = out.mutable_data(src.place(), src.dtype());
  if (out.numel() > 0) src.opaque_layout()->ToPlain(src.raw_data(), p);
  return out;
}

void CopyTensor(const DenseTensor& src, const Place& dst_place, DenseTensor* dst) {
  PL_ENFORCE(src.initialized(),
             errors::PreconditionNotMet("cannot copy an uninitialized tensor"));
  if (&src == dst) return;
  DenseTensor out(src.dims(), src.dtype());
  out.set_opaque_layout(src.opaque_layout());
  void* p = out.mutable_data(dst_place, src.dtype());
  platform::Copy(dst_place, p, src.place(), src.raw_data(), src.data_bytes());
  out.set_lod(src.lod());
  *dst = std::move(out);
}

namespace {
template <typename To, typename From>
To ConvertValue(From v) {
  if constexpr (std::is_same_v<From, platform::float16> || std::is_same_v<From, platform::bfloat16>) {
    return ConvertValue<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, platform::float16> ||
                       std::is_same_v<To, platform::bfloat16>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else {
    return static_cast<To>(v);
  }
}
}  // namespace

void CastTensor(const DenseTensor& src_any_layout, DataType dtype, DenseTensor* dst) {
  PL_ENFORCE(src_any_layout.place().is_cpu(),
             errors::Unimplemented("casting a tensor on %s", src_any_layout.place().ToString()));
  const DenseTensor src = PlainTensor(src_any_layout);
  DenseTensor out(src.dims(), dtype);
  out.set_lod(src.lod());
  const int64_t n = src.numel();
  platform::VisitDataType(src.dtype(), [&](auto from_tag) {
    using From = decltype(from_tag);
    const From* in = src.data<From>();
    platform::VisitDataType(dtype, [&](auto to_tag) {
      using To = decltype(to_tag);
      To* o = out.mutable_data<To>(platform::CPUPlace());
      for (int64_t i = 0; i < n; ++i) o[i] = ConvertValue<To>(in[i]);
    });
  });
  *dst = std::move(out);
}

}  // namespace framework
}  // namespace paddle_like

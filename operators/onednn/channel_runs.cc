#include "operators/onednn/channel_runs.h"

#include <algorithm>
#include <type_traits>

namespace paddle_like {
namespace operators {

bool ChannelRuns::Fits(const dnnl::memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  if (d.format_kind != dnnl_blocked || d.ndims < 2 || d.ndims > 5) return false;
  const dnnl_blocking_desc_t& b = d.format_desc.blocking;
  if (b.inner_nblks == 1) return b.inner_idxs[0] == 1 && b.inner_blks[0] > 1;
  return b.inner_nblks == 0 && b.strides[1] == 1 && d.dims[1] > 1;
}

ChannelRuns::ChannelRuns(const dnnl::memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  const dnnl_blocking_desc_t& b = d.format_desc.blocking;
  channels_ = d.dims[1];
  if (b.inner_nblks == 1) {
    run_ = b.inner_blks[0];
    runs_ = d.padded_dims[1] / run_;
    run_stride_ = b.strides[1];
  } else {
    run_ = channels_;
    runs_ = 1;
  }
  offset0_ = d.offset0;
  spatial_ = d.ndims - 2;
  for (int i = 0; i < d.ndims; ++i) {
    dims_[i] = d.dims[i];
    strides_[i] = b.strides[i];
  }
  for (int i = 2; i < d.ndims; ++i) positions_ *= d.dims[i];
}

void ChannelRuns::PaddedValues(const float* values, float pad,
                               std::vector<float>* table) const {
  table->assign(static_cast<size_t>(run_ * runs_), pad);
  std::copy(values, values + channels_, table->begin());
}

namespace {

using Tag = dnnl::memory::format_tag;

// Channels per block of `md` when it is exactly the dense channel-blocked format of its dims
// (8 or 16), its channel count when it is the dense channel-last one, else 0.
int64_t ChannelRunFormat(const dnnl::memory::desc& md, bool* channel_last) {
  if (md.data_type() != dnnl::memory::data_type::f32) return 0;
  const dnnl::memory::dims dims = md.dims();
  const auto is = [&](Tag tag) { return md == dnnl::memory::desc(dims, md.data_type(), tag); };
  const int rank = static_cast<int>(dims.size());
  const Tag last[] = {Tag::acb, Tag::acdb, Tag::acdeb};
  const Tag by8[] = {Tag::aBc8b, Tag::aBcd8b, Tag::aBcde8b};
  const Tag by16[] = {Tag::aBc16b, Tag::aBcd16b, Tag::aBcde16b};
  if (rank < 3 || rank > 5) return 0;
  *channel_last = is(last[rank - 3]);
  if (*channel_last) return dims[1];
  if (is(by8[rank - 3])) return 8;
  if (is(by16[rank - 3])) return 16;
  return 0;
}

// Copies `len` floats; `len` a compile-time constant where it is a whole block.
template <typename Len>
inline void CopyRun(const float* src, float* dst, Len len) {
  for (int64_t i = 0; i < len; ++i) dst[i] = src[i];
}

}  // namespace

bool CopyBetweenChannelRuns(const dnnl::memory& from, const dnnl::memory& to,
                            const platform::CPUDeviceContext& dev) {
  const dnnl::memory::desc from_md = from.get_desc(), to_md = to.get_desc();
  if (!ChannelRuns::Fits(from_md) || !ChannelRuns::Fits(to_md) || from_md.dims() != to_md.dims()) {
    return false;
  }
  bool from_last = false, to_last = false;
  const int64_t from_run = ChannelRunFormat(from_md, &from_last);
  const int64_t to_run = ChannelRunFormat(to_md, &to_last);
  if (from_run == 0 || to_run == 0 || from_last == to_last) return false;
  const dnnl::memory::dims dims = from_md.dims();
  const int64_t channels = dims[1];
  int64_t positions = 1;
  for (size_t i = 2; i < dims.size(); ++i) positions *= dims[i];
  // Element offsets: the blocked side is [n][block][position][lane], the channel-last one
  // [n][position][channel].
  const int64_t block = from_last ? to_run : from_run;
  const int64_t blocks = (channels + block - 1) / block;
  const int64_t blocked_image = blocks * block * positions;
  const int64_t last_image = channels * positions;
  const float* src = static_cast<const float*>(from.get_data_handle());
  float* dst = static_cast<float*>(to.get_data_handle());
  const int64_t images = dims[0];
  dev.ParallelFor(images * positions, 4096, [&](int64_t begin, int64_t end) {
    int64_t n = begin / positions, p = begin % positions;
    for (int64_t i = begin; i < end; ++i, ++p) {
      if (p == positions) p = 0, ++n;
      const int64_t blocked_at = n * blocked_image + p * block;
      const int64_t last_at = n * last_image + p * channels;
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t len = std::min(block, channels - b * block);
        const int64_t blocked_offset = blocked_at + b * block * positions;
        const int64_t last_offset = last_at + b * block;
        const float* in = src + (from_last ? last_offset : blocked_offset);
        float* out = dst + (from_last ? blocked_offset : last_offset);
        if (len == 16) {
          CopyRun(in, out, std::integral_constant<int64_t, 16>{});
        } else if (len == 8) {
          CopyRun(in, out, std::integral_constant<int64_t, 8>{});
        } else {
          CopyRun(in, out, len);
        }
        if (from_last) {
          for (int64_t j = len; j < block; ++j) out[j] = 0.f;  // oneDNN reads 0 there.
        }
      }
    }
  });
  return true;
}

}  // namespace operators
}  // namespace paddle_like

#include "operators/onednn/channel_runs.h"

#include <algorithm>
#include <cstring>
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

// Copies `len` floats from each of `count` runs `in_step` apart to runs `out_step` apart,
// then sets the `pad` floats after each copied run to 0. `len` is a compile-time constant
// where it is a whole block, so that each copy is a few vector moves.
template <typename Len>
void CopyRuns(const float* in, int64_t in_step, float* out, int64_t out_step, int64_t count,
              Len len, int64_t pad) {
  for (int64_t i = 0; i < count; ++i, in += in_step, out += out_step) {
    std::memcpy(out, in, static_cast<size_t>(len) * sizeof(float));
    for (int64_t j = 0; j < pad; ++j) out[len + j] = 0.f;
  }
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
  // Over ranges of positions of all images; in each image's part of a range, block by block.
  dev.ParallelFor(images * positions, 4096, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin / positions; n * positions < end; ++n) {
      const int64_t first = std::max(begin - n * positions, int64_t{0});
      const int64_t count = std::min(end - n * positions, positions) - first;
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t len = std::min(block, channels - b * block);
        const int64_t blocked_offset = n * blocked_image + b * block * positions + first * block;
        const int64_t last_offset = n * last_image + first * channels + b * block;
        const float* in = src + (from_last ? last_offset : blocked_offset);
        float* out = dst + (from_last ? blocked_offset : last_offset);
        const int64_t in_step = from_last ? channels : block;
        const int64_t out_step = from_last ? block : channels;
        const int64_t pad = from_last ? block - len : 0;  // oneDNN reads 0 in the padding.
        if (len == 16) {
          CopyRuns(in, in_step, out, out_step, count, std::integral_constant<int64_t, 16>{}, pad);
        } else if (len == 8) {
          CopyRuns(in, in_step, out, out_step, count, std::integral_constant<int64_t, 8>{}, pad);
        } else {
          CopyRuns(in, in_step, out, out_step, count, len, pad);
        }
      }
    }
  });
  return true;
}

}  // namespace operators
}  // namespace paddle_like

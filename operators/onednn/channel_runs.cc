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
  blocked_ = b.inner_nblks == 1;
  int64_t packed_stride = run_;  // What each outer stride is when nothing lies between.
  packed_ = offset0_ == 0;
  for (int i = d.ndims - 1; i >= 2; --i) {
    packed_ = packed_ && strides_[i] == packed_stride;
    packed_stride *= dims_[i];
  }
  if (blocked_) {
    packed_ = packed_ && run_stride_ == packed_stride;
    packed_stride *= runs_;
  }
  packed_ = packed_ && strides_[0] == packed_stride;
}

void ChannelRuns::PaddedValues(const float* values, float pad,
                               std::vector<float>* table) const {
  table->assign(static_cast<size_t>(run_ * runs_), pad);
  std::copy(values, values + channels_, table->begin());
}

namespace {

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

bool CopyBetweenChannelRuns(const dnnl::memory::desc& from_md, const void* from,
                            const dnnl::memory::desc& to_md, void* to,
                            const platform::CPUDeviceContext& dev) {
  const auto f32 = dnnl::memory::data_type::f32;
  if (from_md.data_type() != f32 || to_md.data_type() != f32 || !ChannelRuns::Fits(from_md) ||
      !ChannelRuns::Fits(to_md) || from_md.dims() != to_md.dims()) {
    return false;
  }
  const ChannelRuns from_runs(from_md), to_runs(to_md);
  if (!from_runs.packed() || !to_runs.packed() || from_runs.blocked() == to_runs.blocked()) {
    return false;
  }
  const bool from_last = to_runs.blocked();
  const ChannelRuns& blocked = from_last ? to_runs : from_runs;
  const int64_t channels = blocked.channels(), positions = blocked.positions();
  const int64_t block = blocked.run(), blocks = blocked.runs();
  // Element offsets: the blocked side is [n][block][position][lane], the channel-last one
  // [n][position][channel].
  const int64_t blocked_image = blocks * block * positions;
  const int64_t last_image = channels * positions;
  const float* src = static_cast<const float*>(from);
  float* dst = static_cast<float*>(to);
  const int64_t images = from_md.dims()[0];
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

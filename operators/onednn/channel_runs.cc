#include "operators/onednn/channel_runs.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "platform/enforce.h"

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
  span_ = channels_ > 0 ? channels_ * ((kMinSpan + channels_ - 1) / channels_) : 1;
}

dnnl::memory::desc ChannelRuns::PackedDesc(const dnnl::memory::dims& dims) const {
  using Tag = dnnl::memory::format_tag;
  const size_t rank = dims.size();
  const Tag last[] = {Tag::acb, Tag::acdb, Tag::acdeb};
  const Tag by8[] = {Tag::aBc8b, Tag::aBcd8b, Tag::aBcde8b};
  const Tag by16[] = {Tag::aBc16b, Tag::aBcd16b, Tag::aBcde16b};
  PL_ENFORCE(rank >= 3 && rank <= 5 && (!blocked_ || run_ == 8 || run_ == 16),
             errors::Unimplemented("ChannelRuns: no packed format of rank %zu in runs of %lld",
                                   rank, static_cast<long long>(run_)));
  const Tag tag = !blocked_ ? last[rank - 3] : run_ == 8 ? by8[rank - 3] : by16[rank - 3];
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, tag);
}

namespace {

// One window of max pooling's gradient for `lanes` channels: the window's elements x[ky *
// row + kx * run + i] in row-major order, the first equal to m[i] gets d[i] (with
// `relu_mask`, d[i] * (m[i] > 0 ? 1 : 0), relu_grad's product), the others 0. Four channels
// at a time in SSE2 (the compiler left the per-channel loop scalar: 1.6 ms for LeNet's first
// pooling).
// Whether `Lanes` is a run length known at compile time that whole SSE vectors cover.
template <typename Lanes>
constexpr bool kWholeVectors = false;
template <int64_t N>
constexpr bool kWholeVectors<std::integral_constant<int64_t, N>> = N % 4 == 0;

// With `sums`, each lane's gradient (what the window's maximum receives, 0 where no element
// equals m[i]) is also added to sums[i].
template <typename Lanes, typename KernelH, typename KernelW>
void MaxWindowGrad(const float* x, float* dx, int64_t row, int64_t run, KernelH kernel_h,
                   KernelW kernel_w, const float* m, const float* d, bool relu_mask, Lanes lanes,
                   float* sums) {
  int64_t i = 0;
#if defined(__SSE2__)
  for (; i + 4 <= lanes; i += 4) {
    const __m128 max = _mm_loadu_ps(m + i);
    __m128 grad = _mm_loadu_ps(d + i);
    if (relu_mask) {
      grad = _mm_mul_ps(grad, _mm_and_ps(_mm_cmpgt_ps(max, _mm_setzero_ps()), _mm_set1_ps(1.f)));
    }
    __m128 taken = _mm_setzero_ps();
    for (int64_t ky = 0; ky < kernel_h; ++ky) {
      for (int64_t kx = 0; kx < kernel_w; ++kx) {
        const int64_t at = ky * row + kx * run + i;
        // NaN equals nothing: a window with NaN for its maximum passes no gradient, as in
        // the plain kernel.
        const __m128 hit = _mm_andnot_ps(taken, _mm_cmpeq_ps(_mm_loadu_ps(x + at), max));
        _mm_storeu_ps(dx + at, _mm_and_ps(hit, grad));
        taken = _mm_or_ps(taken, hit);
      }
    }
    if (sums != nullptr) {
      _mm_storeu_ps(sums + i, _mm_add_ps(_mm_loadu_ps(sums + i), _mm_and_ps(taken, grad)));
    }
  }
  if constexpr (kWholeVectors<Lanes>) return;  // No scalar tail.
#endif
  for (; i < lanes; ++i) {
    bool taken = false;
    const float grad = relu_mask ? d[i] * (m[i] > 0.f ? 1.f : 0.f) : d[i];
    for (int64_t ky = 0; ky < kernel_h; ++ky) {
      for (int64_t kx = 0; kx < kernel_w; ++kx) {
        const int64_t at = ky * row + kx * run + i;
        const bool hit = !taken && x[at] == m[i];
        dx[at] = hit ? grad : 0.f;
        taken = taken || hit;
      }
    }
    if (sums != nullptr && taken) sums[i] += grad;
  }
}

}  // namespace

void MaxPoolGradOverChannelRuns(const ChannelRuns& x_runs, int64_t out_h, int64_t out_w,
                                int64_t kernel_h, int64_t kernel_w, const float* x,
                                const float* out, const float* dout, float* dx, bool relu_mask,
                                const platform::CPUDeviceContext& dev, float* channel_sums) {
  PL_ENFORCE(x_runs.packed() && x_runs.rank() == 4,
             errors::Unimplemented("MaxPoolGradOverChannelRuns: X must be packed, of rank 4"));
  const int64_t run = x_runs.run(), runs = x_runs.runs();
  const int64_t in_h = x_runs.dim(2), in_w = x_runs.dim(3);
  // Planes of one run of channels: X's [in_h][in_w][run], Out's [out_h][out_w][run].
  const int64_t planes = x_runs.images() * runs;
  // With channel_sums: each row of windows' sums per lane (in float: a row is a few
  // windows), added up in double below in a fixed order.
  std::vector<float> row_sums(channel_sums != nullptr ? planes * out_h * run : 0, 0.f);
  // 2x2 windows (most CNNs') with the window loops unrolled: half the time.
  const auto with_window = [&](auto body) {
    if (kernel_h == 2 && kernel_w == 2) {
      body(std::integral_constant<int64_t, 2>{}, std::integral_constant<int64_t, 2>{});
    } else {
      body(kernel_h, kernel_w);
    }
  };
  dev.ParallelFor(planes * out_h, 1, [&](int64_t begin, int64_t end) {
    with_window([&](auto kh, auto kw) {
      x_runs.WithRunLength([&](auto lanes) {
        for (int64_t row = begin; row < end; ++row) {
          const int64_t plane = row / out_h, oy = row % out_h;
          const float* xp = x + plane * in_h * in_w * run;
          float* dp = dx + plane * in_h * in_w * run;
          const float* m = out + (plane * out_h + oy) * out_w * run;
          const float* d = dout + (plane * out_h + oy) * out_w * run;
          float* sums = channel_sums != nullptr ? row_sums.data() + row * run : nullptr;
          for (int64_t ox = 0; ox < out_w; ++ox, m += run, d += run) {
            const int64_t at = (oy * kernel_h * in_w + ox * kernel_w) * run;
            MaxWindowGrad(xp + at, dp + at, in_w * run, run, kh, kw, m, d, relu_mask, lanes, sums);
          }
          // Columns past the last window, in the window's rows; rows past the last window.
          for (int64_t y = oy * kernel_h; y < (oy + 1) * kernel_h; ++y) {
            std::fill(dp + (y * in_w + out_w * kernel_w) * run, dp + (y + 1) * in_w * run, 0.f);
          }
          if (oy == out_h - 1) {
            std::fill(dp + out_h * kernel_h * in_w * run, dp + in_h * in_w * run, 0.f);
          }
        }
      });
    });
  });
  if (channel_sums == nullptr) return;
  // Channel c is lane c % run of run c / run; its rows in order of image, then row.
  for (int64_t c = 0; c < x_runs.channels(); ++c) {
    const int64_t r = c / run, lane = c % run;
    double total = 0.0;
    for (int64_t n = 0; n < x_runs.images(); ++n) {
      const float* rows = row_sums.data() + (n * runs + r) * out_h * run + lane;
      for (int64_t oy = 0; oy < out_h; ++oy) total += rows[oy * run];
    }
    channel_sums[c] = static_cast<float>(total);
  }
}

void ChannelRuns::SpanValues(const float* values, std::vector<float>* table, int64_t images) const {
  table->resize(static_cast<size_t>(span_ * images));
  for (int64_t n = 0; n < images; ++n, values += channels_) {
    for (int64_t i = 0; i < span_; i += channels_) {
      std::copy(values, values + channels_, table->begin() + n * span_ + i);
    }
  }
}

void ChannelRuns::PaddedValues(const float* values, float pad, std::vector<float>* table,
                               int64_t images) const {
  const int64_t padded = run_ * runs_;
  table->assign(static_cast<size_t>(padded * images), pad);
  for (int64_t n = 0; n < images; ++n) {
    std::copy(values + n * channels_, values + (n + 1) * channels_, table->begin() + n * padded);
  }
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

// Per-channel loops over float32 data in a oneDNN format whose channels (dim 1) lie in
// contiguous runs: the 8- or 16-channel blocks of nChw8c / nChw16c (padded past the last
// channel), or all the channels of a channel-last format. oneDNN 2.6 serves a per-channel
// broadcast on a padded blocked format only with its scalar reference code (25-60x slower
// than a loop over the runs), and on channel-last data with few channels its jit code is
// slower than the loop, so kernels that meet one compute it here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <oneapi/dnnl/dnnl.hpp>
#include <type_traits>
#include <vector>

#include "operators/onednn/onednn_threads.h"
#include "platform/device_context.h"

namespace paddle_like {
namespace operators {

class ChannelRuns {
 public:
  // Whether `md` is such a format: blocked, rank 2 to 5, no inner block but one on dim 1,
  // and channels in runs of more than one (not nchw, whose channels are strided).
  static bool Fits(const dnnl::memory::desc& md);

  explicit ChannelRuns(const dnnl::memory::desc& md);

  int64_t run() const { return run_; }    // Channels per contiguous run.
  int64_t runs() const { return runs_; }  // Runs per position (padded channels / run).
  int64_t channels() const { return channels_; }
  int rank() const { return spatial_ + 2; }
  int64_t dim(int i) const { return dims_[i]; }
  int64_t images() const { return dims_[0]; }
  int64_t positions() const { return positions_; }  // Per image (the spatial dims).
  bool blocked() const { return blocked_; }         // In channel blocks, else channel-last.
  // Whether the data is packed from offset 0: [n][block][position][lane] when blocked,
  // [n][position][channel] when channel-last.
  bool packed() const { return packed_; }

  // A packed format of the same kind (channel-last, or blocks of run() channels) for `dims`
  // of the same rank.
  dnnl::memory::desc PackedDesc(const dnnl::memory::dims& dims) const;

  // Fills `table` with `values` (one per channel) followed by `pad` up to the padded channel
  // count, so a loop over whole runs leaves the padding as it finds it (0 + 0, 0 * 0, 0 / 1).
  // With `images` > 1, `values` holds one such set per image (an SE block's scales over a
  // batch) and `table` one padded set per image, runs() * run() floats apart.
  // The caller keeps the table between runs: no allocation once it has its size.
  void PaddedValues(const float* values, float pad, std::vector<float>* table,
                    int64_t images = 1) const;

  // Packed channel-last data is one row of images() * positions() whole positions, whose
  // per-channel values repeat every channels() elements. Loops over it go span by span: a
  // span is whole positions, span() elements from the start of the data (the last may be
  // shorter), long enough for a loop over its elements to vectorise however few the
  // channels are; a run per position (20 channels: 5 SSE vectors and the loop's overhead)
  // took twice as long. `table` gets `values` repeated over one span; with `images` > 1,
  // `values` holds one set of channels() values per image and `table` one span per image.
  bool spans() const { return packed_ && !blocked_; }
  int64_t span() const { return span_; }
  int64_t elements() const { return dims_[0] * positions_ * channels_; }
  void SpanValues(const float* values, std::vector<float>* table, int64_t images = 1) const;
  // Calls fn(begin, end) with element ranges of whole spans, split over `dev`'s threads.
  template <typename Fn>
  void ForEachSpan(const platform::CPUDeviceContext& dev, Fn&& fn) const {
    const int64_t count = (elements() + span_ - 1) / span_;
    dev.ParallelFor(count, GrainOfItems(span_), [&](int64_t begin, int64_t end) {
      for (int64_t s = begin; s < end; ++s) {
        fn(s * span_, std::min(elements(), (s + 1) * span_));
      }
    });
  }

  // The same with spans that start again at each image's first element (an image's last
  // span may be shorter): fn(begin, end, n) for the elements of image n, whose values are
  // its own (SpanValues with `images`: image n's span starts n * span() into the table).
  template <typename Fn>
  void ForEachSpanOfImages(const platform::CPUDeviceContext& dev, Fn&& fn) const {
    const int64_t per_image = positions_ * channels_;
    const int64_t spans_per_image = (per_image + span_ - 1) / span_;
    dev.ParallelFor(dims_[0] * spans_per_image, GrainOfItems(span_),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t s = begin; s < end; ++s) {
                        const int64_t n = s / spans_per_image;
                        const int64_t first = n * per_image + (s % spans_per_image) * span_;
                        fn(first, std::min((n + 1) * per_image, first + span_), n);
                      }
                    });
  }

  // Calls body(n) with n = run() as a compile-time constant where it is 8 or 16 (the
  // blocks), so that the per-run loops of the callers vectorise; else as an int64_t.
  template <typename Body>
  void WithRunLength(Body&& body) const {
    if (run_ == 16) {
      body(std::integral_constant<int64_t, 16>{});
    } else if (run_ == 8) {
      body(std::integral_constant<int64_t, 8>{});
    } else {
      body(run_);
    }
  }

  // Calls fn(offset, r) for every position (the dims other than the channels) and run r, in
  // elements from the start of the data, with the positions split over `dev`'s threads (of
  // all images together: a batch of one still uses every thread).
  template <typename Fn>
  void ForEach(const platform::CPUDeviceContext& dev, Fn&& fn) const {
    auto visit = [&fn](int64_t offset, int64_t r, int64_t) { fn(offset, r); };
    dev.ParallelFor(dims_[0] * positions_, GrainOfItems(runs_ * run_),
                    [&](int64_t begin, int64_t end) { Visit(begin, end, visit); });
  }

  // The same with the image: fn(offset, r, n).
  template <typename Fn>
  void ForEachWithImage(const platform::CPUDeviceContext& dev, Fn&& fn) const {
    dev.ParallelFor(dims_[0] * positions_, GrainOfItems(runs_ * run_),
                    [&](int64_t begin, int64_t end) { Visit(begin, end, fn); });
  }

  // The same for the positions of image n only, in order, on the calling thread: for sums
  // whose order must not depend on the number of threads.
  template <typename Fn>
  void ForEachOfImage(int64_t n, Fn&& fn) const {
    auto visit = [&fn](int64_t offset, int64_t r, int64_t) { fn(offset, r); };
    Visit(n * positions_, (n + 1) * positions_, visit);
  }

 private:
  // fn(offset, r, n) for positions [begin, end) of all images together, in order.
  template <typename Fn>
  void Visit(int64_t begin, int64_t end, Fn& fn) const {
    int64_t n = begin / positions_;
    int64_t index[3] = {0, 0, 0};  // Over the spatial dims 2..rank-1.
    int64_t base = offset0_ + n * strides_[0];
    for (int64_t rest = begin % positions_, d = spatial_ - 1; d >= 0; --d) {
      index[d] = rest % dims_[2 + d];
      rest /= dims_[2 + d];
      base += index[d] * strides_[2 + d];
    }
    for (int64_t i = begin; i < end; ++i) {
      for (int64_t r = 0; r < runs_; ++r) fn(base + r * run_stride_, r, n);
      // Next position: odometer over the spatial dims, last fastest, then the next image.
      int d = spatial_ - 1;
      for (; d >= 0; --d) {
        base += strides_[2 + d];
        if (++index[d] < dims_[2 + d]) break;
        base -= strides_[2 + d] * dims_[2 + d];
        index[d] = 0;
      }
      if (d < 0) base = offset0_ + ++n * strides_[0];
    }
  }

  // Elements a span holds at least (spans()).
  static constexpr int64_t kMinSpan = 256;

  int64_t run_ = 1, runs_ = 1, channels_ = 0, run_stride_ = 0, span_ = 1;
  int64_t offset0_ = 0, positions_ = 1;
  int spatial_ = 0;
  bool blocked_ = false, packed_ = false;
  int64_t dims_[5] = {1, 1, 1, 1, 1}, strides_[5] = {0, 0, 0, 0, 0};
};

// The gradient of max pooling over windows of kernel_h x kernel_w that tile X (stride = window,
// no padding: Pool2dGeometry::IsDisjointMax) into the `out_h` x `out_w` output, rank 4, for
// X and dX in the packed format of `x_runs`, Out and dOut in the packed format of the same
// kind for the output dims (ChannelRuns::PackedDesc). Each window's gradient goes to its
// first element equal to Out in row-major order, as in the plain kernel; the rest of dX
// (padding lanes, rows and columns past the last window) is 0. oneDNN's pooling backward
// needs the forward pass's workspace, which the op does not keep, so the kernel reran the
// forward pooling for it: 0.07 + 0.08 ms in oneDNN's log for LeNet's first pooling
// ([64, 20, 24, 24] channel-last, 2 threads), where this loop takes 0.07 ms on data in cache.
// With `relu_mask` X is relu's Out and dX the gradient of relu's X: each window's gradient
// times (maximum > 0 ? 1 : 0), relu_grad's product at the element receiving it. With
// `channel_sums` (one float per channel), dX summed over images and positions per channel
// too, from the windows' gradients rather than a second pass over dX: each row of windows
// in float, the rows in double, in an order that does not depend on the threads.
void MaxPoolGradOverChannelRuns(const ChannelRuns& x_runs, int64_t out_h, int64_t out_w,
                                int64_t kernel_h, int64_t kernel_w, const float* x,
                                const float* out, const float* dout, float* dx, bool relu_mask,
                                const platform::CPUDeviceContext& dev,
                                float* channel_sums = nullptr);

// Copies float32 data `from` of format `from_md` into `to` of format `to_md` (same dims) when
// one is in packed channel blocks (nChw8c, nChw16c and their forms of other ranks) and the
// other packed channel-last, by copying each position's channels block by block (padding
// lanes of blocked `to` set to 0); false, having copied nothing, for other pairs. oneDNN
// 2.6's reorder primitive for such a pair is slower, and slower still on two threads
// (PP-LCNet's first activations, [1, 8, 112, 112] from 16-channel blocks to channel-last, 8
// of each block's 16 lanes padding: 18 us on one thread and 36 on two, against 12 and 8
// here).
bool CopyBetweenChannelRuns(const dnnl::memory::desc& from_md, const void* from,
                            const dnnl::memory::desc& to_md, void* to,
                            const platform::CPUDeviceContext& dev);

}  // namespace operators
}  // namespace paddle_like

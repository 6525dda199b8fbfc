// The convolution machinery shared by the cuDNN kernels of conv2d (conv_cudnn.cc) and of
// conv2d_transpose (conv_transpose_cudnn.cc): how a Conv2dGeometry maps onto cuDNN's buffers
// and descriptors, and the choice of cuDNN algorithms, cached per shape.
//
// A ConvPlan describes the convolution C of a geometry g (conv_pool_shape.h): x is C's input
// (g.in_*), y its output (g.out_*), w its filter [g.out_c, g.in_c / groups, kh, kw]. conv2d
// computes y from x; conv2d_transpose computes x from y (its Input is C's y, its Output C's x).
// cuDNN pads both sides of an axis equally: asymmetric paddings are applied by reading and
// writing x through a zero-padded buffer convolved without padding. NHWC tensors are copied to
// packed NCHW buffers and back (cudnnTransformTensor).
//
// Float convolutions run with CUDNN_FMA_MATH: cuDNN's default math lets Ampere and newer GPUs
// compute float data in TF32 (10-bit mantissa, ~1e-3 relative error); FMA keeps results within
// float rounding of the CPU kernels.
//
// Algorithms come from cuDNN's heuristics (cudnnGet*Algorithm_v7), or from timing every
// algorithm (cudnnFind*AlgorithmEx) when TimeAlgorithms says so. With
// FLAGS_cudnn_deterministic only algorithms cuDNN reports as deterministic are taken
// (backward ALGO_0 accumulates with atomics): UnimplementedError when there is none.
// T = float, double or float16 (accumulated in float) throughout. Nothing here is shared
// between threads except SharedAlgoChoice's map.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "framework/operator.h"
#include "operators/cuda/cudnn_util.h"
#include "operators/nn/conv_pool_shape.h"
#include "platform/flags.h"

namespace paddle_like {
namespace operators {
namespace cudnn {

// The convolution as cuDNN computes it.
struct ConvPlan {
  Conv2dGeometry g;
  bool transposed = false;       // The op is conv2d_transpose (for error messages only).
  bool explicit_pad = false;     // x lives in a zero-padded buffer convolved without padding.
  bool stage_x = false;          // x is read or written through a packed NCHW buffer.
  int64_t xh = 0, xw = 0;        // x's spatial dims as cuDNN sees them.
  int64_t pad_h = 0, pad_w = 0;  // The paddings cuDNN applies (each on both sides).
  // The rows and columns of the user's x that lie in the buffer: all of them, except where a
  // transposed convolution's output_padding reaches a stride or more past the last window
  // (dilation > stride); no window reads or writes the rest.
  int64_t seen_h = 0, seen_w = 0;

  View4d XBuffer() const { return PackedNchw(g.batch, g.in_c, xh, xw); }
  // Where the user's x (its seen part) lies in XBuffer().
  View4d XInterior() const;
  // The user's x in its own layout (NCHW or NHWC).
  View4d XUser() const { return UserLayout(g.batch, g.in_c, g.in_h, g.in_w, g.channel_last); }
  // x as a packed NCHW tensor of the user's dims.
  View4d XNchw() const { return PackedNchw(g.batch, g.in_c, g.in_h, g.in_w); }
  bool CropsX() const { return seen_h < g.in_h || seen_w < g.in_w; }
  View4d YBuffer() const { return PackedNchw(g.batch, g.out_c, g.out_h, g.out_w); }
  View4d YUser() const { return UserLayout(g.batch, g.out_c, g.out_h, g.out_w, g.channel_last); }
  // The op's operands, for error messages.
  std::string Describe() const;
  std::vector<int64_t> Key() const;
};

// `transposed`: g comes from ResolveConv2dTranspose.
ConvPlan MakeConvPlan(const Conv2dGeometry& g, bool transposed);

// The descriptors of one convolution of element type T; FatalError when cuDNN's output size
// differs from the plan's (the op's shape inference).
template <typename T>
struct ConvDescs {
  TensorDesc x, y;
  FilterDesc w;
  ConvDesc conv;

  ConvDescs(const std::string& op, const ConvPlan& p);
};

enum class ConvDirection { kForward = 0, kBackwardData = 1, kBackwardFilter = 2 };

struct AlgoChoice {
  int algo = 0;
  size_t workspace = 0;
};

// Whether the kernel of `ctx`'s op times cuDNN's algorithms (once per shape) instead of taking
// the heuristics' choice: FLAGS_cudnn_exhaustive_search, or the op's `exhaustive_search`
// attribute (conv2d and depthwise_conv2d, and their grad ops, as in PaddlePaddle; a GPU
// predictor sets it). Never under FLAGS_cudnn_deterministic: a timed choice may differ from
// one process to the next, and the rounding with it.
bool TimeAlgorithms(const framework::ExecutionContext& ctx);

// What identifies one choice of algorithm: the device, the problem (plan), direction, mode
// and element type.
std::vector<int64_t> AlgoKey(int device_id, const ConvPlan& p, ConvDirection dir, bool timed,
                             cudnnDataType_t type);

// The process's algorithm for `key`: chosen by `choose` the first time any
// kernel object asks, under a lock held while it chooses (timings are not disturbed by another
// thread's, and every asker gets the same answer). A network's convolutions of one shape and
// a predictor's clones so time cuDNN's algorithms once and run the same one.
AlgoChoice SharedAlgoChoice(const std::vector<int64_t>& key,
                            const std::function<AlgoChoice()>& choose);

// The algorithms a kernel object has used, per shape, direction and mode: its own map, read
// without a lock on every run, in front of SharedAlgoChoice (consulted on a miss only).
template <typename T>
class AlgoCache {
 public:
  template <typename ChooseFn>
  AlgoChoice Get(int device_id, const ConvPlan& p, ConvDirection dir, bool timed,
                 ChooseFn&& choose) {
    std::vector<int64_t> key = AlgoKey(device_id, p, dir, timed, DataTypeOf<T>::value);
    auto it = map_.find(key);
    if (it != map_.end()) return it->second;
    const AlgoChoice choice = SharedAlgoChoice(key, choose);
    if (map_.size() >= kMaxShapes) map_.clear();
    map_.emplace(std::move(key), choice);
    return choice;
  }

 private:
  // Shapes remembered before the cache starts again.
  static constexpr size_t kMaxShapes = 64;
  std::map<std::vector<int64_t>, AlgoChoice> map_;
};

// The descriptors of the shapes a kernel object has run, made once per shape: a run then
// only looks them up (cuDNN may keep state with a descriptor that a fresh one per call would
// lose).
template <typename T>
class ConvDescCache {
 public:
  const ConvDescs<T>& Get(const std::string& op, const ConvPlan& p) {
    std::vector<int64_t> key = p.Key();
    auto it = map_.find(key);
    if (it != map_.end()) return *it->second;
    if (map_.size() >= kMaxShapes) map_.clear();
    auto descs = std::make_unique<ConvDescs<T>>(op, p);
    return *map_.emplace(std::move(key), std::move(descs)).first->second;
  }

 private:
  static constexpr size_t kMaxShapes = 64;
  std::map<std::vector<int64_t>, std::unique_ptr<ConvDescs<T>>> map_;
};

// The algorithm for y = conv(x, w), dx from (w, dy), dw from (x, dy). The buffers are those
// of the call that follows; `timed` (TimeAlgorithms) times every algorithm, writing the
// output buffer (dx, dw or y).
template <typename T>
AlgoChoice ChooseForward(const platform::CUDADeviceContext& dev, const std::string& op,
                         const ConvPlan& p, const ConvDescs<T>& d, const T* x, const T* w, T* y,
                         bool timed);
template <typename T>
AlgoChoice ChooseBackwardData(const platform::CUDADeviceContext& dev, const std::string& op,
                              const ConvPlan& p, const ConvDescs<T>& d, const T* w, const T* dy,
                              T* dx, bool timed);
template <typename T>
AlgoChoice ChooseBackwardFilter(const platform::CUDADeviceContext& dev, const std::string& op,
                                const ConvPlan& p, const ConvDescs<T>& d, const T* x, const T* dy,
                                T* dw, bool timed);

// x (in the user's layout) as cuDNN reads it: `x` itself, or a packed NCHW copy (zero-padded
// with explicit_pad) held by `hold`.
template <typename T>
const T* StageX(const platform::CUDADeviceContext& dev, const std::string& op, const ConvPlan& p,
                const T* x, platform::AllocationPtr* hold);
// Copies the user's part of an x buffer (XBuffer()) to `dst`, a tensor of x's dims laid out as
// `dst_view` (XUser() or XNchw()); what the buffer does not hold (CropsX()) becomes 0.
template <typename T>
void UnstageX(const platform::CUDADeviceContext& dev, const std::string& op, const ConvPlan& p,
              const T* buffer, const View4d& dst_view, T* dst);
// y (in the user's layout) as a packed NCHW tensor: `y` itself, or a copy held by `hold`.
template <typename T>
const T* StageY(const platform::CUDADeviceContext& dev, const std::string& op, const ConvPlan& p,
                const T* y, platform::AllocationPtr* hold);

// The Input@GRAD and Filter@GRAD outputs of a convolution grad op (those it has): both are
// written into fresh buffers, moved into place only at the end (an output variable may be one
// of the inputs, which the other gradient still reads). run(dx, dw) computes them (a null
// pointer for one not wanted); with an empty operand they are 0 (empty sums) instead.
template <typename T, typename RunFn>
void ComputeConvGrads(const framework::ExecutionContext& ctx, const framework::DenseTensor& input,
                      const framework::DenseTensor& filter, const framework::DenseTensor& dout,
                      RunFn&& run) {
  framework::DenseTensor* dinput = ctx.Output("Input@GRAD");
  framework::DenseTensor* dfilter = ctx.Output("Filter@GRAD");
  if (dinput == nullptr && dfilter == nullptr) return;
  framework::DenseTensor input_grad, filter_grad;
  T* dx = nullptr;
  T* dw = nullptr;
  if (dinput != nullptr) {
    input_grad = framework::DenseTensor(input.dims(), input.dtype());
    dx = input_grad.mutable_data<T>(ctx.GetPlace());
  }
  if (dfilter != nullptr) {
    filter_grad = framework::DenseTensor(filter.dims(), filter.dtype());
    dw = filter_grad.mutable_data<T>(ctx.GetPlace());
  }
  if (input.numel() == 0 || filter.numel() == 0 || dout.numel() == 0) {
    const auto& dev = ctx.device_context<platform::CUDADeviceContext>();
    if (dx != nullptr) FillDevice<T>(dev, ctx.Type(), dx, input.numel(), 0);
    if (dw != nullptr) FillDevice<T>(dev, ctx.Type(), dw, filter.numel(), 0);
  } else {
    run(dx, dw);
  }
  if (dinput != nullptr) *dinput = std::move(input_grad);
  if (dfilter != nullptr) *dfilter = std::move(filter_grad);
}

}  // namespace cudnn
}  // namespace operators
}  // namespace paddle_like

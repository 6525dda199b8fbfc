#include "operators/cuda/cudnn_conv.h"

#include <algorithm>
#include <mutex>
#include <type_traits>

#include "platform/enforce.h"
#include "platform/errors.h"

namespace paddle_like {
namespace operators {
namespace cudnn {

namespace {

using platform::CheckCudnn;
using platform::CUDADeviceContext;

// The largest workspace an algorithm may use (PaddlePaddle's default
// FLAGS_conv_workspace_size_limit); algorithms that need more are passed over.
constexpr size_t kWorkspaceLimit = size_t{512} << 20;

const char* DirectionName(ConvDirection d) {
  switch (d) {
    case ConvDirection::kForward:
      return "forward";
    case ConvDirection::kBackwardData:
      return "backward-data";
    case ConvDirection::kBackwardFilter:
      return "backward-filter";
  }
  return "?";
}

// One spatial axis of x as cuDNN sees it: `extent` rows (the user's, or a buffer's), cuDNN
// padding `pad` on both sides, `seen` of the user's rows in the buffer.
struct AxisPlan {
  int64_t extent = 0, pad = 0, seen = 0;
};

// The padded rows of an axis that the windows span: in a buffer of more rows, cuDNN would size
// y larger (floor((rows - span) / stride) + 1).
int64_t WindowSpan(int64_t out, int64_t k, int64_t stride, int64_t dilation) {
  return (out - 1) * stride + dilation * (k - 1) + 1;
}

// in: x's rows; p0, p1: its paddings; out: y's rows. The op sizes conv2d's y as cuDNN does,
// but a transposed convolution's output_padding of a stride or more (allowed with dilation >
// stride) adds x rows past the windows' reach, which cuDNN would count.
bool NeedsBuffer(int64_t in, int64_t p0, int64_t p1, int64_t out, int64_t k, int64_t stride,
                 int64_t dilation) {
  return p0 != p1 || p0 + in + p1 - WindowSpan(out, k, stride, dilation) >= stride;
}

// `buffered`: x goes through a zero-padded buffer, of all the padded rows, or of as many as
// keep cuDNN's y size (span + stride - 1) when there are more.
AxisPlan PlanAxis(bool buffered, int64_t in, int64_t p0, int64_t p1, int64_t out, int64_t k,
                  int64_t stride, int64_t dilation) {
  AxisPlan a;
  if (!buffered) {
    a.extent = a.seen = in;
    a.pad = p0;
    return a;
  }
  a.extent = std::min(p0 + in + p1, WindowSpan(out, k, stride, dilation) + stride - 1);
  a.seen = std::min(in, a.extent - p0);
  return a;
}

// A view of the top-left [rows, cols] of `v`.
View4d Corner(View4d v, int64_t rows, int64_t cols) {
  v.dims[2] = rows;
  v.dims[3] = cols;
  return v;
}

// The first entry of `perf` (cuDNN's order, best first) that cuDNN can run, that is
// deterministic when `deterministic`, that does not compute in tensor-op math and whose
// workspace (asked of cuDNN by `workspace_size(algo, &bytes)`) is within kWorkspaceLimit.
template <typename PerfT, typename WorkspaceFn>
AlgoChoice PickAlgo(const std::string& op, ConvDirection dir, const ConvPlan& p,
                    const std::vector<PerfT>& perf, int count, bool deterministic,
                    WorkspaceFn&& workspace_size) {
  std::string why;
  bool nondeterministic_only = count > 0;
  for (int i = 0; i < count; ++i) {
    const PerfT& r = perf[i];
    const int algo = static_cast<int>(r.algo);
    std::string reason;
    size_t bytes = 0;
    if (r.status != CUDNN_STATUS_SUCCESS) {
      reason = cudnnGetErrorString(r.status);
    } else if (deterministic && r.determinism != CUDNN_DETERMINISTIC) {
      reason = "not deterministic";
    } else if (r.mathType == CUDNN_TENSOR_OP_MATH ||
               r.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) {
      reason = "tensor-op math";
    } else {
      const cudnnStatus_t s = workspace_size(r.algo, &bytes);
      if (s != CUDNN_STATUS_SUCCESS) {
        reason = std::string("workspace size: ") + cudnnGetErrorString(s);
      } else if (bytes > kWorkspaceLimit) {
        reason =
            platform::Sprintf("workspace of %llu bytes", static_cast<unsigned long long>(bytes));
      } else {
        return AlgoChoice{algo, bytes};
      }
    }
    if (reason != "not deterministic") nondeterministic_only = false;
    why += platform::Sprintf("%salgo %d: %s", why.empty() ? "" : "; ", algo, reason);
  }
  if (nondeterministic_only) {
    throw errors::Unimplemented(
        "op `%s`: cuDNN has no deterministic %s algorithm for %s while FLAGS_cudnn_deterministic "
        "is set (%s); run the op on the CPU (FLAGS_cpu_deterministic) instead",
        op, DirectionName(dir), p.Describe(), why);
  }
  throw errors::Unavailable("op `%s`: cuDNN offers no usable %s algorithm for %s (%s)", op,
                            DirectionName(dir), p.Describe(), why.empty() ? "none returned" : why);
}

}  // namespace

bool TimeAlgorithms(const framework::ExecutionContext& ctx) {
  if (FLAGS_cudnn_deterministic) return false;
  return FLAGS_cudnn_exhaustive_search ||
         (ctx.HasAttr("exhaustive_search") && ctx.Attr<bool>("exhaustive_search"));
}

std::vector<int64_t> AlgoKey(int device_id, const ConvPlan& p, ConvDirection dir, bool timed,
                             cudnnDataType_t type) {
  std::vector<int64_t> key = p.Key();
  key.push_back(device_id);
  // A transposed plan's geometry names the channels the other way round.
  key.push_back(p.transposed ? 1 : 0);
  key.push_back(static_cast<int64_t>(dir));
  key.push_back(FLAGS_cudnn_deterministic ? 1 : 0);
  key.push_back(timed ? 1 : 0);
  key.push_back(static_cast<int64_t>(type));
  return key;
}

AlgoChoice SharedAlgoChoice(const std::vector<int64_t>& key,
                            const std::function<AlgoChoice()>& choose) {
  static std::mutex mu;
  static auto* choices = new std::map<std::vector<int64_t>, AlgoChoice>();
  // Problems remembered before the map starts again.
  constexpr size_t kMaxProblems = 4096;
  std::lock_guard<std::mutex> lock(mu);
  auto it = choices->find(key);
  if (it != choices->end()) return it->second;
  const AlgoChoice choice = choose();
  if (choices->size() >= kMaxProblems) choices->clear();
  choices->emplace(key, choice);
  return choice;
}

View4d ConvPlan::XInterior() const {
  if (!explicit_pad) return XBuffer();
  View4d v = XBuffer();
  v.dims[2] = seen_h;
  v.dims[3] = seen_w;
  v.offset = g.pad_top * xw + g.pad_left;
  return v;
}

std::string ConvPlan::Describe() const {
  // The op's Input is C's x for conv2d, C's y for conv2d_transpose; Filter is C's w either way.
  return platform::Sprintf(
      "Input %s, Filter [%lld, %lld, %lld, %lld], groups %lld",
      (transposed ? g.OutputDims() : g.InputDims()).ToString(), static_cast<long long>(g.out_c),
      static_cast<long long>(g.in_c / g.groups), static_cast<long long>(g.kernel_h),
      static_cast<long long>(g.kernel_w), static_cast<long long>(g.groups));
}

std::vector<int64_t> ConvPlan::Key() const {
  return {g.batch, g.in_c,  xh,    xw,    g.out_c,    g.groups,   g.kernel_h,   g.kernel_w,
          g.out_h, g.out_w, pad_h, pad_w, g.stride_h, g.stride_w, g.dilation_h, g.dilation_w};
}

ConvPlan MakeConvPlan(const Conv2dGeometry& g, bool transposed) {
  ConvPlan p;
  p.g = g;
  p.transposed = transposed;
  // One buffer serves both axes: either axis may need it.
  p.explicit_pad =
      NeedsBuffer(g.in_h, g.pad_top, g.pad_bottom, g.out_h, g.kernel_h, g.stride_h, g.dilation_h) ||
      NeedsBuffer(g.in_w, g.pad_left, g.pad_right, g.out_w, g.kernel_w, g.stride_w, g.dilation_w);
  p.stage_x = p.explicit_pad || g.channel_last;
  const AxisPlan h = PlanAxis(p.explicit_pad, g.in_h, g.pad_top, g.pad_bottom, g.out_h, g.kernel_h,
                              g.stride_h, g.dilation_h);
  const AxisPlan w = PlanAxis(p.explicit_pad, g.in_w, g.pad_left, g.pad_right, g.out_w, g.kernel_w,
                              g.stride_w, g.dilation_w);
  p.xh = h.extent;
  p.xw = w.extent;
  p.pad_h = h.pad;
  p.pad_w = w.pad;
  p.seen_h = h.seen;
  p.seen_w = w.seen;
  return p;
}

template <typename T>
ConvDescs<T>::ConvDescs(const std::string& op, const ConvPlan& p) {
  const cudnnDataType_t type = DataTypeOf<T>::value;
  // float16 data is accumulated in float (cuDNN's pseudo-half configuration).
  const cudnnDataType_t compute = std::is_same_v<T, double> ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  const Conv2dGeometry& g = p.g;
  x.Set(op, type, p.XBuffer());
  y.Set(op, type, p.YBuffer());
  w.Set(op, type, g.out_c, g.in_c / g.groups, g.kernel_h, g.kernel_w);
  CheckCudnn(cudnnSetConvolution2dDescriptor(
                 conv.get(), ToInt(op, "paddings", p.pad_h), ToInt(op, "paddings", p.pad_w),
                 ToInt(op, "strides", g.stride_h), ToInt(op, "strides", g.stride_w),
                 ToInt(op, "dilations", g.dilation_h), ToInt(op, "dilations", g.dilation_w),
                 CUDNN_CROSS_CORRELATION, compute),
             "cudnnSetConvolution2dDescriptor");
  CheckCudnn(cudnnSetConvolutionGroupCount(conv.get(), ToInt(op, "groups", g.groups)),
             "cudnnSetConvolutionGroupCount");
  // No TF32 for float (see the file comment); double has no tensor-op math anyway, and
  // float16 may take tensor cores (their products of halves are exact in float).
  CheckCudnn(cudnnSetConvolutionMathType(
                 conv.get(), std::is_same<T, float>::value ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH),
             "cudnnSetConvolutionMathType");
  // cuDNN must agree with the op's shape inference, which sized y.
  int n = 0, c = 0, h = 0, wd = 0;
  CheckCudnn(cudnnGetConvolution2dForwardOutputDim(conv.get(), x.get(), w.get(), &n, &c, &h, &wd),
             "cudnnGetConvolution2dForwardOutputDim");
  PL_ENFORCE(n == g.batch && c == g.out_c && h == g.out_h && wd == g.out_w,
             errors::Fatal("op `%s`: cuDNN computes a convolution output [%d, %d, %d, %d], the "
                           "op's shape inference [%lld, %lld, %lld, %lld]",
                           op, n, c, h, wd, static_cast<long long>(g.batch),
                           static_cast<long long>(g.out_c), static_cast<long long>(g.out_h),
                           static_cast<long long>(g.out_w)));
}

template <typename T>
AlgoChoice ChooseForward(const CUDADeviceContext& dev, const std::string& op, const ConvPlan& p,
                         const ConvDescs<T>& d, const T* x, const T* w, T* y, bool timed) {
  const cudnnHandle_t h = dev.cudnn_handle();
  int max_count = 0;
  CheckCudnn(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &max_count),
             "cudnnGetConvolutionForwardAlgorithmMaxCount");
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(std::max(max_count, 1)));
  int returned = 0;
  if (timed) {
    const platform::AllocationPtr ws = dev.Temporary(kWorkspaceLimit);
    CheckCudnn(cudnnFindConvolutionForwardAlgorithmEx(h, d.x.get(), x, d.w.get(), w, d.conv.get(),
                                                      d.y.get(), y, max_count, &returned,
                                                      perf.data(), ws->ptr(), kWorkspaceLimit),
               "cudnnFindConvolutionForwardAlgorithmEx");
  } else {
    CheckCudnn(cudnnGetConvolutionForwardAlgorithm_v7(h, d.x.get(), d.w.get(), d.conv.get(),
                                                      d.y.get(), max_count, &returned, perf.data()),
               "cudnnGetConvolutionForwardAlgorithm_v7");
  }
  return PickAlgo(op, ConvDirection::kForward, p, perf, returned, FLAGS_cudnn_deterministic,
                  [&](cudnnConvolutionFwdAlgo_t algo, size_t* bytes) {
                    return cudnnGetConvolutionForwardWorkspaceSize(
                        h, d.x.get(), d.w.get(), d.conv.get(), d.y.get(), algo, bytes);
                  });
}

template <typename T>
AlgoChoice ChooseBackwardData(const CUDADeviceContext& dev, const std::string& op,
                              const ConvPlan& p, const ConvDescs<T>& d, const T* w, const T* dy,
                              T* dx, bool timed) {
  const cudnnHandle_t h = dev.cudnn_handle();
  int max_count = 0;
  CheckCudnn(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, &max_count),
             "cudnnGetConvolutionBackwardDataAlgorithmMaxCount");
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<size_t>(std::max(max_count, 1)));
  int returned = 0;
  if (timed) {
    const platform::AllocationPtr ws = dev.Temporary(kWorkspaceLimit);
    CheckCudnn(cudnnFindConvolutionBackwardDataAlgorithmEx(
                   h, d.w.get(), w, d.y.get(), dy, d.conv.get(), d.x.get(), dx, max_count,
                   &returned, perf.data(), ws->ptr(), kWorkspaceLimit),
               "cudnnFindConvolutionBackwardDataAlgorithmEx");
  } else {
    CheckCudnn(
        cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w.get(), d.y.get(), d.conv.get(),
                                                    d.x.get(), max_count, &returned, perf.data()),
        "cudnnGetConvolutionBackwardDataAlgorithm_v7");
  }
  return PickAlgo(op, ConvDirection::kBackwardData, p, perf, returned, FLAGS_cudnn_deterministic,
                  [&](cudnnConvolutionBwdDataAlgo_t algo, size_t* bytes) {
                    return cudnnGetConvolutionBackwardDataWorkspaceSize(
                        h, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), algo, bytes);
                  });
}

template <typename T>
AlgoChoice ChooseBackwardFilter(const CUDADeviceContext& dev, const std::string& op,
                                const ConvPlan& p, const ConvDescs<T>& d, const T* x, const T* dy,
                                T* dw, bool timed) {
  const cudnnHandle_t h = dev.cudnn_handle();
  int max_count = 0;
  CheckCudnn(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, &max_count),
             "cudnnGetConvolutionBackwardFilterAlgorithmMaxCount");
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(
      static_cast<size_t>(std::max(max_count, 1)));
  int returned = 0;
  if (timed) {
    const platform::AllocationPtr ws = dev.Temporary(kWorkspaceLimit);
    CheckCudnn(cudnnFindConvolutionBackwardFilterAlgorithmEx(
                   h, d.x.get(), x, d.y.get(), dy, d.conv.get(), d.w.get(), dw, max_count,
                   &returned, perf.data(), ws->ptr(), kWorkspaceLimit),
               "cudnnFindConvolutionBackwardFilterAlgorithmEx");
  } else {
    CheckCudnn(
        cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x.get(), d.y.get(), d.conv.get(),
                                                      d.w.get(), max_count, &returned, perf.data()),
        "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
  }
  return PickAlgo(op, ConvDirection::kBackwardFilter, p, perf, returned, FLAGS_cudnn_deterministic,
                  [&](cudnnConvolutionBwdFilterAlgo_t algo, size_t* bytes) {
                    return cudnnGetConvolutionBackwardFilterWorkspaceSize(
                        h, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), algo, bytes);
                  });
}

template <typename T>
const T* StageX(const CUDADeviceContext& dev, const std::string& op, const ConvPlan& p, const T* x,
                platform::AllocationPtr* hold) {
  if (!p.stage_x) return x;
  const View4d buffer = p.XBuffer();
  T* staged = TemporaryBuffer<T>(dev, buffer.numel(), hold);
  if (p.explicit_pad) FillDevice<T>(dev, op, staged, buffer.numel(), 0);
  TransformTensor<T>(dev, op, Corner(p.XUser(), p.seen_h, p.seen_w), x, 0, p.XInterior(),
                     staged);
  return staged;
}

template <typename T>
void UnstageX(const CUDADeviceContext& dev, const std::string& op, const ConvPlan& p,
              const T* buffer, const View4d& dst_view, T* dst) {
  if (p.CropsX()) FillDevice<T>(dev, op, dst, dst_view.numel(), 0);
  TransformTensor<T>(dev, op, p.XInterior(), buffer, 0, Corner(dst_view, p.seen_h, p.seen_w),
                     dst);
}

template <typename T>
const T* StageY(const CUDADeviceContext& dev, const std::string& op, const ConvPlan& p, const T* y,
                platform::AllocationPtr* hold) {
  if (!p.g.channel_last) return y;
  T* staged = TemporaryBuffer<T>(dev, p.YBuffer().numel(), hold);
  TransformTensor<T>(dev, op, p.YUser(), y, 0, p.YBuffer(), staged);
  return staged;
}

#define PL_CUDNN_CONV_INSTANTIATE(T)                                                             \
  template struct ConvDescs<T>;                                                                  \
  template AlgoChoice ChooseForward<T>(const CUDADeviceContext&, const std::string&,             \
                                       const ConvPlan&, const ConvDescs<T>&, const T*, const T*, \
                                       T*, bool);                                                \
  template AlgoChoice ChooseBackwardData<T>(const CUDADeviceContext&, const std::string&,        \
                                            const ConvPlan&, const ConvDescs<T>&, const T*,      \
                                            const T*, T*, bool);                                 \
  template AlgoChoice ChooseBackwardFilter<T>(const CUDADeviceContext&, const std::string&,      \
                                              const ConvPlan&, const ConvDescs<T>&, const T*,    \
                                              const T*, T*, bool);                               \
  template const T* StageX<T>(const CUDADeviceContext&, const std::string&, const ConvPlan&,     \
                              const T*, platform::AllocationPtr*);                               \
  template void UnstageX<T>(const CUDADeviceContext&, const std::string&, const ConvPlan&,       \
                            const T*, const View4d&, T*);                                        \
  template const T* StageY<T>(const CUDADeviceContext&, const std::string&, const ConvPlan&,     \
                              const T*, platform::AllocationPtr*);
PL_CUDNN_CONV_INSTANTIATE(float)
PL_CUDNN_CONV_INSTANTIATE(double)
PL_CUDNN_CONV_INSTANTIATE(platform::float16)
#undef PL_CUDNN_CONV_INSTANTIATE

}  // namespace cudnn
}  // namespace operators
}  // namespace paddle_like

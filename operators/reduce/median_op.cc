// median and nanmedian: the median of X over a set of axes (all of them by default) and the
// position(s) in each reduced line it came from, as PaddlePaddle computes them; their fused
// gradients send dOut back to those positions.
//
// A line is X's elements over the reduced axes, in row-major order of those axes; a position
// counts within it. Values are ranked by (value, position), so equal values keep their order.
// median: a line holding a NaN gives NaN, at the line's first NaN. nanmedian: NaNs are left
// out; a line of NaNs only gives NaN at position -1.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

// The slot names differ: PaddlePaddle declares median with lower-case ones.
struct MedianSlots {
  const char* x;
  const char* out;
  const char* index;
};
constexpr MedianSlots kMedianSlots{"x", "out", "medians"};
constexpr MedianSlots kNanmedianSlots{"X", "Out", "MedianIndex"};

template <bool kNan>
const MedianSlots& SlotsFor() {
  return kNan ? kNanmedianSlots : kMedianSlots;
}

// For the op class, shared by both ops and their grads.
const MedianSlots& SlotsOf(const std::string& type) {
  return type.rfind("nanmedian", 0) == 0 ? kNanmedianSlots : kMedianSlots;
}

constexpr char kDocCommon[] = R"DOC(
With L the line of X over the reduced axes and sigma its positions sorted by (value,
position), n = |L|:
$$Out = L_{\sigma(\lfloor n/2 \rfloor)} \;\; (n \text{ odd}), \qquad
Out = \frac{L_{\sigma(n/2 - 1)} + L_{\sigma(n/2)}}{2} \;\; (n \text{ even}, mode = avg)$$
and $$Out = L_{\sigma(n/2 - 1)}$$ for even n in mode `min`. The index output holds the
position(s) used: two per value in mode `avg` (the same one twice for odd n; a trailing dim
of 2), one in mode `min`. Integer dtypes average with integer division.

Gradient (fused op `<type>_grad`): $$dX_{p} \mathrel{+}= dOut$$ at a single position, dOut/2
at each of two, 0 elsewhere.
)DOC";

template <bool kNan>
class MedianOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    const MedianSlots& s = SlotsFor<kNan>();
    AddInput(s.x, "Input of any rank (float, double, int32, int64).");
    if (!kNan) {
      AddInput("AxisTensor", "The axes as a 1-D int tensor (not supported: use `axis`).")
          .AsDispensable();
      AddInput("AxisTensorList", "The axes as 1-element int tensors (not supported).")
          .AsDuplicable()
          .AsDispensable();
    }
    AddOutput(s.out, "The medians: X's dims without the reduced ones (1 with keepdim).");
    AddOutput(s.index,
              "int64 positions within each reduced line: Out's dims, with a trailing 2 in mode "
              "`avg`.");
    if (kNan) {
      AddAttr<std::vector<int>>("axis",
                                "Reduced axes; empty reduces all. Negative counts "
                                "from the end.")
          .SetDefault({});
    } else {
      AddAttr<std::vector<int64_t>>("axis",
                                    "Reduced axes; empty reduces all. Negative "
                                    "counts from the end.")
          .SetDefault({});
    }
    AddAttr<bool>("keepdim", "Keep the reduced dims as 1.").SetDefault(true);
    AddAttr<std::string>("mode",
                         "avg: the mean of the two middle values for an even count; "
                         "min: the lower one.")
        .SetDefault("avg")
        .InEnum({"avg", "min"});
    AddComment(std::string(kNan ? "nanmedian: the median of the non-NaN values over `axis` (NaN "
                                  "at position -1 when a line holds only NaNs).\n"
                                : "median: the median over `axis` (NaN, at the first NaN's "
                                  "position, when a line holds a NaN).\n") +
               kDocCommon);
  }
};

class MedianOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    const MedianSlots& s = SlotsOf(Type());
    return InputDataType(ctx, ctx.inputs.count(std::string(s.out) + "@GRAD")
                                  ? std::string(s.out) + "@GRAD"
                                  : std::string(s.x));
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

// Where each line lies in X and what the outputs' dims are.
struct MedianGeometry {
  DDim out, index;
  std::vector<int64_t> line_starts;   // X offset of each line's first element, in Out's order
  std::vector<int64_t> line_offsets;  // X offset of each line element from the line's start
};

template <typename AxisT>
MedianGeometry GeometryOf(const std::string& op, const char* x_slot, const DDim& x,
                          const std::vector<AxisT>& axis, bool keepdim, bool avg) {
  const int rank = x.size();
  std::vector<bool> reduced(static_cast<size_t>(rank), axis.empty());
  for (AxisT a : axis) {
    const int64_t r = std::max(rank, 1);
    PL_ENFORCE(a >= -r && a < r,
               errors::InvalidArgument("op `%s` attribute `axis`: expected values in [%d, %d) "
                                       "for input of shape %s, received %lld",
                                       op, -static_cast<int>(r), static_cast<int>(r), x.ToString(),
                                       static_cast<long long>(a)));
    if (rank == 0) continue;
    const int i = static_cast<int>(a < 0 ? a + rank : a);
    PL_ENFORCE(!reduced[i], errors::InvalidArgument("op `%s` attribute `axis`: dim %d appears "
                                                    "twice",
                                                    op, i));
    reduced[i] = true;
  }
  MedianGeometry g;
  std::vector<int64_t> out_dims;
  std::vector<int64_t> strides(static_cast<size_t>(rank), 1);
  for (int i = rank - 2; i >= 0; --i) strides[i] = strides[i + 1] * x[i + 1];
  g.line_starts = {0};
  g.line_offsets = {0};
  // Row-major over the kept (resp. reduced) dims: the last dim varies fastest.
  auto extend = [](std::vector<int64_t>* offsets, int64_t n, int64_t stride) {
    std::vector<int64_t> next;
    next.reserve(offsets->size() * static_cast<size_t>(n));
    for (int64_t base : *offsets) {
      for (int64_t j = 0; j < n; ++j) next.push_back(base + j * stride);
    }
    *offsets = std::move(next);
  };
  for (int i = 0; i < rank; ++i) {
    if (reduced[i]) {
      extend(&g.line_offsets, x[i], strides[i]);
      if (keepdim) out_dims.push_back(1);
    } else {
      extend(&g.line_starts, x[i], strides[i]);
      out_dims.push_back(x[i]);
    }
  }
  PL_ENFORCE(!g.line_offsets.empty() || g.line_starts.empty(),
             errors::InvalidArgument("op `%s` input `%s`: the reduced dims of shape %s hold no "
                                     "element",
                                     op, x_slot, x.ToString()));
  g.out = DDim(out_dims);
  if (avg) out_dims.push_back(2);
  g.index = DDim(out_dims);
  return g;
}

// The geometry from the op's attributes; `Ctx` is a shape-inference or execution context.
template <bool kNan, typename Ctx>
MedianGeometry GeometryFrom(const std::string& op, const DDim& x, const Ctx& ctx) {
  const bool keepdim = ctx.template Attr<bool>("keepdim");
  const bool avg = ctx.template Attr<std::string>("mode") == "avg";
  if constexpr (kNan) {
    return GeometryOf(op, SlotsFor<kNan>().x, x, ctx.template Attr<std::vector<int>>("axis"),
                      keepdim, avg);
  } else {
    return GeometryOf(op, SlotsFor<kNan>().x, x, ctx.template Attr<std::vector<int64_t>>("axis"),
                      keepdim, avg);
  }
}

void CheckNoAxisTensors(const std::string& op, bool axis_tensor, bool axis_tensor_list) {
  PL_ENFORCE(!axis_tensor && !axis_tensor_list,
             errors::Unimplemented("op `%s` input `%s`: axes given as tensors are not "
                                   "supported; use the attribute `axis`",
                                   op, axis_tensor ? "AxisTensor" : "AxisTensorList"));
}

template <bool kNan>
void MedianInferShape(InferShapeContext* ctx) {
  const MedianSlots& s = SlotsFor<kNan>();
  ctx->RequireInput(s.x);
  ctx->RequireOutput(s.out);
  if (!kNan)
    CheckNoAxisTensors(ctx->OpType(), ctx->HasInput("AxisTensor"), ctx->HasInput("AxisTensorList"));
  const MedianGeometry g = GeometryFrom<kNan>(ctx->OpType(), ctx->GetInputDim(s.x), *ctx);
  ctx->SetOutputDim(s.out, g.out);
  if (ctx->HasOutput(s.index)) ctx->SetOutputDim(s.index, g.index);
}

template <bool kNan>
void MedianInferVarType(framework::VarTypeInferenceContext* ctx) {
  const MedianSlots& s = SlotsFor<kNan>();
  ctx->SetOutputDataType(s.out, ctx->GetInputDataType(s.x));
  ctx->SetOutputDataType(s.index, DataType::INT64);
}

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  return false;
}

// The median of one line (`line` holds its values, `order` scratch space) and the positions
// it came from: lo == hi for a single value.
template <typename T, bool kNan>
void LineMedian(const std::vector<T>& line, bool avg, std::vector<int64_t>* order, T* value,
                int64_t* lo, int64_t* hi) {
  order->clear();
  for (int64_t j = 0; j < static_cast<int64_t>(line.size()); ++j) {
    if (!IsNan(line[j])) {
      order->push_back(j);
    } else if (!kNan) {  // median: the first NaN decides
      *value = line[j];
      *lo = *hi = j;
      return;
    }
  }
  const int64_t n = static_cast<int64_t>(order->size());
  if (n == 0) {  // nanmedian of NaNs only
    *value = std::numeric_limits<T>::quiet_NaN();
    *lo = *hi = -1;
    return;
  }
  const T* v = line.data();
  auto before = [v](int64_t a, int64_t b) { return v[a] < v[b] || (v[a] == v[b] && a < b); };
  auto mid = order->begin() + n / 2;
  std::nth_element(order->begin(), mid, order->end(), before);
  *hi = *mid;
  if (n % 2 == 1) {
    *lo = *hi;
    *value = v[*hi];
    return;
  }
  *lo = *std::max_element(order->begin(), mid, before);
  if (avg) {
    *value = static_cast<T>((v[*lo] + v[*hi]) / static_cast<T>(2));
  } else {
    *hi = *lo;
    *value = v[*lo];
  }
}

template <bool kNan>
struct MedianKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const MedianSlots& s = SlotsFor<kNan>();
      if (!kNan)
        CheckNoAxisTensors(ctx.Type(), ctx.HasInput("AxisTensor"), ctx.HasInput("AxisTensorList"));
      const DenseTensor* x_t = ctx.Input(s.x);
      const bool avg = ctx.Attr<std::string>("mode") == "avg";
      const MedianGeometry g = GeometryFrom<kNan>(ctx.Type(), x_t->dims(), ctx);
      DenseTensor out_t(g.out, x_t->dtype());
      DenseTensor idx_t(g.index, DataType::INT64);
      T* out = out_t.mutable_data<T>(ctx.GetPlace());
      int64_t* idx = idx_t.mutable_data<int64_t>(ctx.GetPlace());
      const T* x = x_t->data<T>();
      std::vector<T> line(g.line_offsets.size());
      std::vector<int64_t> order;
      order.reserve(line.size());
      for (size_t k = 0; k < g.line_starts.size(); ++k) {
        const T* start = x + g.line_starts[k];
        for (size_t j = 0; j < line.size(); ++j) line[j] = start[g.line_offsets[j]];
        int64_t lo = 0, hi = 0;
        LineMedian<T, kNan>(line, avg, &order, &out[k], &lo, &hi);
        if (avg) {
          idx[2 * k] = lo;
          idx[2 * k + 1] = hi;
        } else {
          idx[k] = lo;
        }
      }
      *ctx.Output(s.out) = std::move(out_t);
      if (DenseTensor* index = ctx.Output(s.index)) *index = std::move(idx_t);
    }
  };
};

template <bool kNan>
void MedianGradInferShape(InferShapeContext* ctx) {
  const MedianSlots& s = SlotsFor<kNan>();
  const std::string dx = std::string(s.x) + "@GRAD";
  ctx->RequireInput(s.x);
  ctx->RequireInput(s.index);
  ctx->RequireInput(std::string(s.out) + "@GRAD");
  if (ctx->HasOutput(dx)) ctx->SetOutputDim(dx, ctx->GetInputDim(s.x));
}

template <bool kNan>
struct MedianGradKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const MedianSlots& s = SlotsFor<kNan>();
      const std::string dout_slot = std::string(s.out) + "@GRAD";
      const DDim x_dims = ctx.Input(s.x)->dims();
      const DenseTensor* idx_t = ctx.Input(s.index);
      const DenseTensor* dout_t = ctx.Input(dout_slot);
      const bool avg = ctx.Attr<std::string>("mode") == "avg";
      const MedianGeometry g = GeometryFrom<kNan>(ctx.Type(), x_dims, ctx);
      const int64_t lines = static_cast<int64_t>(g.line_starts.size());
      PL_ENFORCE(idx_t->dtype() == DataType::INT64 && idx_t->numel() == lines * (avg ? 2 : 1) &&
                     dout_t->numel() == lines,
                 errors::InvalidArgument("op `%s` inputs `%s` and `%s`: expected int64 positions "
                                         "of shape %s and %lld gradients (one per line of X "
                                         "%s), received %s %s and %s",
                                         ctx.Type(), s.index, dout_slot, g.index.ToString(),
                                         static_cast<long long>(lines), x_dims.ToString(),
                                         DataTypeName(idx_t->dtype()), idx_t->dims().ToString(),
                                         dout_t->dims().ToString()));
      DenseTensor dx_t(x_dims, dout_t->dtype());
      T* dx = dx_t.mutable_data<T>(ctx.GetPlace());
      if (dx_t.numel() > 0) std::memset(dx, 0, sizeof(T) * dx_t.numel());
      const int64_t* idx = idx_t->data<int64_t>();
      const T* dout = dout_t->data<T>();
      const int64_t n = static_cast<int64_t>(g.line_offsets.size());
      auto at = [&](int64_t line, int64_t p) -> T& {
        PL_ENFORCE(p >= -1 && p < n,
                   errors::InvalidArgument("op `%s` input `%s`: expected positions in [-1, "
                                           "%lld), received %lld",
                                           ctx.Type(), s.index, static_cast<long long>(n),
                                           static_cast<long long>(p)));
        return dx[g.line_starts[line] + g.line_offsets[p]];
      };
      for (int64_t k = 0; k < lines; ++k) {
        const int64_t lo = avg ? idx[2 * k] : idx[k];
        const int64_t hi = avg ? idx[2 * k + 1] : lo;
        if (lo < 0 || hi < 0) continue;  // a line of NaNs only
        if (lo == hi) {
          at(k, lo) += dout[k];
        } else {
          at(k, lo) += dout[k] / static_cast<T>(2);
          at(k, hi) += dout[k] / static_cast<T>(2);
        }
      }
      *ctx.Output(std::string(s.x) + "@GRAD") = std::move(dx_t);
    }
  };
};

template <bool kNan>
void RegisterMedian(const std::string& type) {
  const MedianSlots& s = SlotsFor<kNan>();
  const framework::FusedGradDecl grad{
      {s.x, s.index},
      {s.out},
      {s.x},
      R"DOC($$dX_p \mathrel{+}= dOut$$ at the one position used, dOut/2 at each of two)DOC"};
  framework::RegisterOp<MedianOp, MedianOpMaker<kNan>>(type)
      .InferShape(MedianInferShape<kNan>)
      .InferVarType(MedianInferVarType<kNan>)
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuKernels<MedianKernel<kNan>::template Kernel, float, double, int32_t, int64_t>(
      type);
  framework::RegisterFusedGradOp(type, grad).InferShape(MedianGradInferShape<kNan>);
  RegisterPlainCpuKernels<MedianGradKernel<kNan>::template Kernel, float, double>(type + "_grad");
}

}  // namespace

PL_REGISTER_OPS(RegisterMedianOps) {
  RegisterMedian<false>("median");
  RegisterMedian<true>("nanmedian");
}

}  // namespace operators
}  // namespace paddle_like

// histogram: counts (or summed weights, or a density) of X's values in equal-width bins
// between min and max, as paddle.histogram computes them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "histogram";

class HistogramOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The values to count, any shape (flattened).");
    AddInput("Weight", "X's shape and type: what each value adds to its bin (else 1).")
        .AsDispensable();
    AddOutput("Out",
              "[bins]: int64 counts, or float32 sums when Weight is given or density is "
              "set.");
    AddAttr<int64_t>("bins", "The number of bins (>= 1).").SetDefault(100);
    AddAttr<float>("min",
                   "Lower end of the range (converted to X's type); min = max takes the "
                   "range from the data.")
        .SetDefault(0.0f);
    AddAttr<float>("max", "Upper end of the range (converted to X's type).").SetDefault(0.0f);
    AddAttr<bool>("density",
                  "Scale the result so that it integrates to 1 over the range (float32 "
                  "output).")
        .SetDefault(false);
    AddComment(R"DOC(
Histogram. With lo = min and hi = max in X's type (when lo = hi: the smallest and largest
value of X; when these are equal too: lo - 1 and hi + 1), each value v with lo <= v <= hi
falls into bin
$$b(v) = \min\left(\left\lfloor \frac{(v - lo) \cdot bins}{hi - lo} \right\rfloor, bins - 1\right)$$
computed in X's type (integer division for integer X), and
$$Out_k = \sum_{v : b(v) = k} w_v$$
with w_v = 1 (int64) or the value's Weight (float32). Values outside [lo, hi] and NaNs are
not counted. With density, float32
$$Out_k \leftarrow Out_k \cdot \frac{bins}{(hi - lo) \sum_j Out_j}$$
A range that is not finite or exceeds X's type is an InvalidArgumentError.
)DOC");
  }
};

class HistogramOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

int64_t CheckedBins(const std::string& op, int64_t bins) {
  PL_ENFORCE(bins >= 1, errors::InvalidArgument("op `%s` attribute `bins`: expected at least 1, "
                                                "received %lld",
                                                op, static_cast<long long>(bins)));
  return bins;
}

bool FloatOutput(bool weighted, bool density) { return weighted || density; }

void HistogramInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const int64_t bins = CheckedBins(ctx->OpType(), ctx->Attr<int64_t>("bins"));
  if (ctx->HasInput("Weight")) {
    CheckSameShape(ctx->OpType(), "Weight", ctx->GetInputDim("Weight"), "X", ctx->GetInputDim("X"));
  }
  ctx->SetOutputDim("Out", DDim{bins});
}

template <typename T>
struct HistogramKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* w = ctx.Input("Weight");
    const int64_t bins = CheckedBins(ctx.Type(), ctx.Attr<int64_t>("bins"));
    const bool density = ctx.Attr<bool>("density");
    if (w != nullptr) {
      CheckSameShape(ctx.Type(), "Weight", w->dims(), "X", x->dims());
      PL_ENFORCE(
          w->dtype() == x->dtype(),
          errors::InvalidArgument("op `%s` input `Weight`: expected X's type %s, "
                                  "received %s",
                                  ctx.Type(), DataTypeName(x->dtype()), DataTypeName(w->dtype())));
    }
    const int64_t n = x->numel();
    const T* v = n > 0 ? x->data<T>() : nullptr;
    T lo = static_cast<T>(ctx.Attr<float>("min"));
    T hi = static_cast<T>(ctx.Attr<float>("max"));
    if (lo == hi && n > 0) {
      lo = *std::min_element(v, v + n);
      hi = *std::max_element(v, v + n);
    }
    if (lo == hi) {
      lo = lo - 1;
      hi = hi + 1;
    }
    PL_ENFORCE(
        std::isfinite(static_cast<double>(lo)) && std::isfinite(static_cast<double>(hi)),
        errors::InvalidArgument("op `%s`: the range [%g, %g] is not finite (attributes "
                                "`min` and `max`, or X's values when they are equal)",
                                ctx.Type(), static_cast<double>(lo), static_cast<double>(hi)));
    PL_ENFORCE(hi >= lo, errors::InvalidArgument("op `%s` attributes `min` and `max`: expected "
                                                 "min <= max, received min %g, max %g",
                                                 ctx.Type(), static_cast<double>(lo),
                                                 static_cast<double>(hi)));
    PL_ENFORCE(static_cast<double>(hi) - static_cast<double>(lo) <
                   static_cast<double>(std::numeric_limits<T>::max()),
               errors::InvalidArgument("op `%s`: the range [%g, %g] is wider than X's type %s "
                                       "holds",
                                       ctx.Type(), static_cast<double>(lo), static_cast<double>(hi),
                                       DataTypeName(x->dtype())));
    // In X's type, as PaddlePaddle computes it (integer division for integer X).
    auto bin_of = [&](T value) {
      return std::min(static_cast<int64_t>((value - lo) * bins / (hi - lo)), bins - 1);
    };
    if (!FloatOutput(w != nullptr, density)) {
      DenseTensor out(DDim{bins}, DataType::INT64);
      int64_t* o = out.mutable_data<int64_t>(ctx.GetPlace());
      std::fill(o, o + bins, int64_t{0});
      for (int64_t i = 0; i < n; ++i) {
        if (v[i] >= lo && v[i] <= hi) ++o[bin_of(v[i])];
      }
      *ctx.Output("Out") = std::move(out);
      return;
    }
    DenseTensor out(DDim{bins}, DataType::FLOAT32);
    float* o = out.mutable_data<float>(ctx.GetPlace());
    std::fill(o, o + bins, 0.0f);
    const T* wv = w != nullptr && n > 0 ? w->data<T>() : nullptr;
    for (int64_t i = 0; i < n; ++i) {
      if (v[i] >= lo && v[i] <= hi)
        o[bin_of(v[i])] += wv != nullptr ? static_cast<float>(wv[i]) : 1.0f;
    }
    if (density) {
      float total = 0;
      for (int64_t k = 0; k < bins; ++k) total += o[k];
      const float scale = static_cast<float>(bins) / static_cast<float>(hi - lo) / total;
      for (int64_t k = 0; k < bins; ++k) o[k] *= scale;
    }
    *ctx.Output("Out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterHistogramOp) {
  framework::RegisterOp<HistogramOp, HistogramOpMaker>(kOp)
      .InferShape(HistogramInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        ctx->SetOutputDataType("Out",
                               FloatOutput(ctx->HasInput("Weight"), ctx->Attr<bool>("density"))
                                   ? DataType::FLOAT32
                                   : DataType::INT64);
      })
      .Checkpoint("add input Weight and attribute density; min and max become floats",
                  framework::OpVersionDesc()
                      .NewInput("Weight", "what each value adds to its bin")
                      .NewAttr("density", "scale the result to a density", false));
  RegisterPlainCpuNumericKernels<HistogramKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

// range: evenly spaced values in [Start, End) with step Step, from one-element tensors.
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "framework/data_transform.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "range";

class RangeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Start", "One-element tensor: the first value.");
    AddInput("End", "One-element tensor: the bound, excluded.");
    AddInput("Step", "One-element tensor: the non-zero spacing.");
    AddOutput("Out", "1-D tensor of Start's dtype.");
    AddComment(R"DOC(
Range operator.

$$Out_i = Start + i \cdot Step, \quad i = 0, \ldots, n - 1, \quad
n = \left\lceil \frac{End - Start}{Step} \right\rceil$$

Start, End and Step share one dtype (float32, float64, int32 or int64); Step = 0, or a Step
whose sign is not that of End - Start, is an error. Example: Start 1, End 7,
Step 2 -> [1, 3, 5]. No gradient.
)DOC");
  }
};

class RangeOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Start");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void RangeInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Start", "End", "Step"}) {
    ctx->RequireInput(slot);
    const DDim d = ctx->GetInputDim(slot);
    PL_ENFORCE(d.HasUnknown() || d.numel() == 1,
               errors::InvalidArgument("op `%s` input `%s`: expected one element, received "
                                       "shape %s",
                                       ctx->OpType(), slot, d.ToString()));
  }
  ctx->RequireOutput("Out");
  if (!ctx->IsRuntime()) ctx->SetOutputDim("Out", DDim({-1}));
}

template <typename T>
T ScalarOf(const ExecutionContext& ctx, const char* slot) {
  const DenseTensor* t = ctx.Input(slot);
  PL_ENFORCE(t->numel() == 1 && t->dtype() == platform::ToDataType<T>(),
             errors::InvalidArgument("op `%s` input `%s`: expected one %s element (Start's "
                                     "dtype), received %s of shape %s",
                                     ctx.Type(), slot,
                                     platform::DataTypeName(platform::ToDataType<T>()),
                                     platform::DataTypeName(t->dtype()), t->dims().ToString()));
  // Read on the host wherever it lives (the kernel runs on every device).
  return framework::OnCpu(*t).data<T>()[0];
}

template <typename T>
struct RangeKernel {
  static void Compute(const ExecutionContext& ctx) {
    const T start = ScalarOf<T>(ctx, "Start");
    const T end = ScalarOf<T>(ctx, "End");
    const T step = ScalarOf<T>(ctx, "Step");
    PL_ENFORCE(step != T(0), errors::InvalidArgument("op `%s` input `Step`: expected a non-zero "
                                                     "value, received 0",
                                                     ctx.Type()));
    PL_ENFORCE(!(start < end && step < T(0)) && !(start > end && step > T(0)),
               errors::InvalidArgument("op `%s` input `Step`: expected a step of the sign of "
                                       "End - Start, received Start %s, End %s, Step %s",
                                       ctx.Type(), std::to_string(start), std::to_string(end),
                                       std::to_string(step)));
    // The count as PaddlePaddle computes it, in T; it must be finite and fit memory.
    double count;
    if constexpr (std::is_integral_v<T>) {
      const double span = std::abs(static_cast<double>(end) - static_cast<double>(start));
      count = std::ceil(span / std::abs(static_cast<double>(step)));
    } else {
      count = static_cast<double>(std::ceil(std::abs((end - start) / step)));
    }
    PL_ENFORCE(std::isfinite(count) && count < 9.0e15,
               errors::InvalidArgument("op `%s`: expected a finite number of values, received "
                                       "Start %s, End %s, Step %s",
                                       ctx.Type(), std::to_string(start), std::to_string(end),
                                       std::to_string(step)));
    const auto n = static_cast<int64_t>(count);
    DenseTensor* out = ctx.Output("Out");
    out->Resize(DDim({n}));
    // Computed on the host (a sequence of additions in T) and copied to where Out lives.
    std::vector<T> values(static_cast<size_t>(n));
    T value = start;
    for (int64_t i = 0; i < n; ++i) {
      values[i] = value;
      value += step;
    }
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (n > 0) {
      platform::Copy(ctx.GetPlace(), o, platform::CPUPlace(), values.data(), n * sizeof(T));
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterRangeOp) {
  framework::RegisterOp<RangeOp, RangeOpMaker>(kOp)
      .InferShape(RangeInferShape)
      .InferVarType(OutputDataTypeOf("Start", "Out"));
  RegisterPlainKernelsOnEveryDevice<RangeKernel, float, double, int32_t, int64_t>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

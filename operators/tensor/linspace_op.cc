// linspace: Num evenly spaced values from Start to Stop, both included (paddle.linspace); and
// logspace: Base raised to them (paddle.logspace). No gradient.
#include <cmath>
#include <string>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "linspace";

class LinspaceOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Start", "One-element tensor: the first value.");
    AddInput("Stop", "One-element tensor: the last value.");
    AddInput("Num", "One-element int32 (or int64) tensor: how many values (> 0).");
    AddOutput("Out", "1-D [Num] of dtype `dtype`.");
    AddAttr<int>("dtype",
                 "Out's dtype (framework.proto VarType: 2 int32, 3 int64, 5 float32, "
                 "6 float64).")
        .SetDefault(5);
    AddComment(R"DOC(
Linspace operator: with step = (Stop - Start) / (Num - 1), computed in double,

$$Out_i = \begin{cases} Start + i \cdot step & i < Num / 2 \\
Stop - (Num - 1 - i) \cdot step & i \ge Num / 2 \end{cases}$$

so both ends are exact; Out = [Start] when Num = 1. Integer dtypes truncate. No gradient.
)DOC");
  }
};

class LogspaceOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Start", "One-element tensor: the first exponent.");
    AddInput("Stop", "One-element tensor: the last exponent.");
    AddInput("Num", "One-element int32 (or int64) tensor: how many values (> 0).");
    AddInput("Base", "One-element tensor: the base.");
    AddOutput("Out", "1-D [Num] of dtype `dtype`.");
    AddAttr<int>("dtype",
                 "Out's dtype (framework.proto VarType: 2 int32, 3 int64, 5 float32, "
                 "6 float64).")
        .SetDefault(5);
    AddComment(R"DOC(
Logspace operator: Start, Stop and Base are first converted to `dtype` (integers truncate);
with step = (Stop - Start) / (Num - 1), computed in double,

$$Out_i = egin{cases} Base^{Start + i \cdot step} & i < Num / 2 \
Base^{Stop - (Num - 1 - i) \cdot step} & i \ge Num / 2 \end{cases}$$

computed in double and converted to `dtype`; Out = [Base^Start] when Num = 1. Example:
Start 0, Stop 3, Num 4, Base 2 -> [1, 2, 4, 8]. No gradient.
)DOC");
  }
};

// The kernel follows the attribute `dtype`; the inputs are read on the host as doubles.
class LinspaceOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext&) const override {
    return static_cast<DataType>(Attr<int>("dtype"));
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void LinspaceInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Start", "Stop", "Num"}) ctx->RequireInput(slot);
  if (ctx->OpType() == "logspace") ctx->RequireInput("Base");
  ctx->RequireOutput("Out");
  if (ctx->IsRuntime()) return;  // The kernel sizes Out from Num.
  ctx->SetOutputDim("Out", DDim({-1}));
}

void LinspaceInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", static_cast<DataType>(ctx->Attr<int>("dtype")));
}

// Out = [map(v_0), ..., map(v_{Num-1})] for Num evenly spaced v from start to stop, the first
// half counted from start and the second from stop, so both ends are exact.
template <typename T, typename Map>
void WriteSpaced(const ExecutionContext& ctx, double start, double stop, const Map& map) {
  const int64_t num = static_cast<int64_t>(ReadScalarInput(ctx, "Num"));
  PL_ENFORCE(num > 0, errors::InvalidArgument("op `%s` input `Num`: expected a value > 0, "
                                              "received %s",
                                              ctx.Type(), std::to_string(num)));
  DenseTensor out(DDim({num}), platform::ToDataType<T>());
  T* o = out.mutable_data<T>(ctx.GetPlace());
  if (num == 1) {
    o[0] = static_cast<T>(map(start));
  } else {
    const double step = (stop - start) / static_cast<double>(num - 1);
    const int64_t half = num / 2;
    for (int64_t i = 0; i < num; ++i) {
      o[i] = static_cast<T>(map(i < half ? start + step * static_cast<double>(i)
                                         : stop - step * static_cast<double>(num - 1 - i)));
    }
  }
  *ctx.Output("Out") = std::move(out);
}

template <typename T>
struct LinspaceKernel {
  static void Compute(const ExecutionContext& ctx) {
    WriteSpaced<T>(ctx, ReadScalarInput(ctx, "Start"), ReadScalarInput(ctx, "Stop"),
                   [](double v) { return v; });
  }
};

template <typename T>
struct LogspaceKernel {
  static void Compute(const ExecutionContext& ctx) {
    // Converted to T first, as PaddlePaddle does (an integer dtype truncates them).
    const auto as_t = [&](const char* slot) {
      return static_cast<double>(static_cast<T>(ReadScalarInput(ctx, slot)));
    };
    const double base = as_t("Base");
    WriteSpaced<T>(ctx, as_t("Start"), as_t("Stop"),
                   [base](double v) { return std::pow(base, v); });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterLinspaceOp) {
  framework::RegisterOp<LinspaceOp, LinspaceOpMaker>(kOp)
      .InferShape(LinspaceInferShape)
      .InferVarType(LinspaceInferVarType)
      .GradOpMaker(framework::NoGradient)
      .Checkpoint("output dtype", framework::OpVersionDesc().NewAttr(
                                      "dtype", "Out's dtype (framework.proto VarType).", 5));
  RegisterPlainCpuKernels<LinspaceKernel, float, double, int32_t, int64_t>(kOp);
  framework::RegisterOp<LinspaceOp, LogspaceOpMaker>("logspace")
      .InferShape(LinspaceInferShape)
      .InferVarType(LinspaceInferVarType)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuKernels<LogspaceKernel, float, double, int32_t, int64_t>("logspace");
}

}  // namespace operators
}  // namespace paddle_like

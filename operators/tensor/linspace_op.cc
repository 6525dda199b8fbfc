// linspace: Num evenly spaced values from Start to Stop, both included (paddle.linspace). No
// gradient.
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
  ctx->RequireOutput("Out");
  if (ctx->IsRuntime()) return;  // The kernel sizes Out from Num.
  ctx->SetOutputDim("Out", DDim({-1}));
}

void LinspaceInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", static_cast<DataType>(ctx->Attr<int>("dtype")));
}

template <typename T>
struct LinspaceKernel {
  static void Compute(const ExecutionContext& ctx) {
    const double start = ReadScalarInput(ctx, "Start"), stop = ReadScalarInput(ctx, "Stop");
    const double num_value = ReadScalarInput(ctx, "Num");
    const int64_t num = static_cast<int64_t>(num_value);
    PL_ENFORCE(num > 0, errors::InvalidArgument("op `%s` input `Num`: expected a value > 0, "
                                                "received %s",
                                                kOp, std::to_string(num)));
    DenseTensor out(DDim({num}), platform::ToDataType<T>());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    if (num == 1) {
      o[0] = static_cast<T>(start);
    } else {
      const double step = (stop - start) / static_cast<double>(num - 1);
      const int64_t half = num / 2;
      for (int64_t i = 0; i < num; ++i) {
        o[i] = static_cast<T>(i < half ? start + step * static_cast<double>(i)
                                       : stop - step * static_cast<double>(num - 1 - i));
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void NoGrad(framework::GradOpBuilder*) {}

}  // namespace

PL_REGISTER_OPS(RegisterLinspaceOp) {
  framework::RegisterOp<LinspaceOp, LinspaceOpMaker>(kOp)
      .InferShape(LinspaceInferShape)
      .InferVarType(LinspaceInferVarType)
      .GradOpMaker(NoGrad)
      .Checkpoint("output dtype", framework::OpVersionDesc().NewAttr(
                                      "dtype", "Out's dtype (framework.proto VarType).", 5));
  RegisterPlainCpuKernels<LinspaceKernel, float, double, int32_t, int64_t>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

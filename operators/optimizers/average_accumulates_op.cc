// average_accumulates: the running sums of ModelAverage (paddle.incubate.ModelAverage), which
// averages a parameter over a sliding window of recent steps. Written over its inputs in place
// by the programs (out_* are the in_* variables).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "average_accumulates";
// Every this many updates sum_1 moves into sum_2, so that sum_1 does not grow long enough to
// lose the parameter's digits.
constexpr int64_t kMaxNumAccumulates = 16384;

class AverageAccumulatesOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("param", "The parameter averaged.");
    for (const char* s : {"in_sum_1", "in_sum_2", "in_sum_3"}) {
      AddInput(s, "A running sum, param's shape and dtype.");
    }
    AddInput("in_num_accumulates", "int64 [1]: steps in the current window.");
    AddInput("in_old_num_accumulates", "int64 [1]: steps of the previous window (in sum_3).");
    AddInput("in_num_updates", "int64 [1]: steps so far.");
    for (const char* s : {"out_sum_1", "out_sum_2", "out_sum_3"}) AddOutput(s, "The updated sum.");
    AddOutput("out_num_accumulates", "int64 [1].");
    AddOutput("out_old_num_accumulates", "int64 [1].");
    AddOutput("out_num_updates", "int64 [1].");
    AddAttr<float>("average_window", "The window as a fraction of the steps so far.")
        .SetDefault(0.0f);
    AddAttr<int64_t>("max_average_window", "The longest window.")
        .SetDefault(std::numeric_limits<int64_t>::max());
    AddAttr<int64_t>("min_average_window", "The shortest window.").SetDefault(10000);
    AddComment(R"DOC(
AverageAccumulates operator. With n the steps so far and a the steps in the current window,
per call:
    n += 1, a += 1, sum_1 += param
    if n mod 16384 = 0: sum_2 += sum_1, sum_1 = 0
    if a >= min_average_window and a >= min(max_average_window, trunc(n * average_window)):
        sum_3 = sum_1 + sum_2, sum_1 = sum_2 = 0, old_num_accumulates = a, a = 0
The average is $$\frac{sum_1 + sum_2 + sum_3}{num\_accumulates + old\_num\_accumulates}$$
Each step sees the previous ones' updates, as PaddlePaddle's kernel computes it in place (the
outputs being the inputs' variables). No gradient.
)DOC");
  }
};

class AverageAccumulatesOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "param");
  }
};

void AverageAccumulatesInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("param");
  const DDim param = ctx->GetInputDim("param");
  for (const char* s : {"in_sum_1", "in_sum_2", "in_sum_3"}) {
    ctx->RequireInput(s);
    CheckSameShape(ctx->OpType(), s, ctx->GetInputDim(s), "param", param);
  }
  for (const char* s : {"out_sum_1", "out_sum_2", "out_sum_3"}) ctx->SetOutputDim(s, param);
  for (const char* s : {"out_num_accumulates", "out_old_num_accumulates", "out_num_updates"}) {
    ctx->SetOutputDim(s, DDim{1});
  }
}

void AverageAccumulatesInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType t = ctx->GetInputDataType("param");
  for (const char* s : {"out_sum_1", "out_sum_2", "out_sum_3"}) {
    ctx->SetOutputKind(s, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(s, t);
  }
  for (const char* s : {"out_num_accumulates", "out_old_num_accumulates", "out_num_updates"}) {
    ctx->SetOutputKind(s, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(s, DataType::INT64);
  }
}

int64_t ReadCounter(const ExecutionContext& ctx, const char* slot) {
  const DenseTensor* t = ctx.Input(slot);
  PL_ENFORCE(
      t->numel() == 1 && t->dtype() == DataType::INT64,
      errors::InvalidArgument("op `%s` input `%s`: expected one int64, received %s %s", kOp, slot,
                              platform::DataTypeName(t->dtype()), t->dims().ToString()));
  return t->data<int64_t>()[0];
}

void WriteCounter(const ExecutionContext& ctx, const char* slot, int64_t v) {
  DenseTensor t(DDim{1}, DataType::INT64);
  t.mutable_data<int64_t>(ctx.GetPlace())[0] = v;
  *ctx.Output(slot) = std::move(t);
}

template <typename T>
struct AverageAccumulatesKernel {
  static void Compute(const ExecutionContext& ctx) {
    const int64_t min_window = ctx.Attr<int64_t>("min_average_window");
    const int64_t max_window = ctx.Attr<int64_t>("max_average_window");
    PL_ENFORCE(min_window <= max_window,
               errors::InvalidArgument("op `%s`: expected min_average_window <= "
                                       "max_average_window, received %lld > %lld",
                                       kOp, static_cast<long long>(min_window),
                                       static_cast<long long>(max_window)));
    const DenseTensor* param = ctx.Input("param");
    const DenseTensor* in[3] = {ctx.Input("in_sum_1"), ctx.Input("in_sum_2"),
                                ctx.Input("in_sum_3")};
    for (int k = 0; k < 3; ++k) {
      CheckSameShape(kOp, k == 0 ? "in_sum_1" : (k == 1 ? "in_sum_2" : "in_sum_3"), in[k]->dims(),
                     "param", param->dims());
    }
    int64_t updates = ReadCounter(ctx, "in_num_updates") + 1;
    int64_t accumulates = ReadCounter(ctx, "in_num_accumulates") + 1;
    int64_t old_accumulates = ReadCounter(ctx, "in_old_num_accumulates");
    // The inputs may be the outputs' variables: every new value is computed before any is
    // stored.
    const int64_t n = param->numel();
    const T* p = param->data<T>();
    const T *s1 = in[0]->data<T>(), *s2 = in[1]->data<T>(), *s3 = in[2]->data<T>();
    DenseTensor out[3] = {DenseTensor(param->dims(), param->dtype()),
                          DenseTensor(param->dims(), param->dtype()),
                          DenseTensor(param->dims(), param->dtype())};
    T* o1 = out[0].mutable_data<T>(ctx.GetPlace());
    T* o2 = out[1].mutable_data<T>(ctx.GetPlace());
    T* o3 = out[2].mutable_data<T>(ctx.GetPlace());
    const bool move_to_sum_2 = updates % kMaxNumAccumulates == 0;
    // The window n * average_window in float, truncated to an integer (PaddlePaddle's).
    const float scaled = static_cast<float>(updates) * ctx.Attr<float>("average_window");
    const int64_t window =
        scaled >= 9.2e18f ? max_window : std::min(max_window, static_cast<int64_t>(scaled));
    const bool restart = accumulates >= min_window && accumulates >= window;
    for (int64_t i = 0; i < n; ++i) {
      o1[i] = s1[i] + p[i];
      o2[i] = s2[i];
      o3[i] = s3[i];
      if (move_to_sum_2) {
        o2[i] += o1[i];
        o1[i] = T(0);
      }
      if (restart) {
        o3[i] = o1[i] + o2[i];
        o1[i] = o2[i] = T(0);
      }
    }
    if (restart) {
      old_accumulates = accumulates;
      accumulates = 0;
    }
    *ctx.Output("out_sum_1") = std::move(out[0]);
    *ctx.Output("out_sum_2") = std::move(out[1]);
    *ctx.Output("out_sum_3") = std::move(out[2]);
    WriteCounter(ctx, "out_num_updates", updates);
    WriteCounter(ctx, "out_num_accumulates", accumulates);
    WriteCounter(ctx, "out_old_num_accumulates", old_accumulates);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterAverageAccumulatesOp) {
  framework::RegisterOp<AverageAccumulatesOp, AverageAccumulatesOpMaker>(kOp)
      .InferShape(AverageAccumulatesInferShape)
      .InferVarType(AverageAccumulatesInferVarType)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<AverageAccumulatesKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

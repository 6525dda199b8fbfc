// accuracy: the fraction of samples whose label is among their top-k predicted indices.
#include <string>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/loss/cross_entropy_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "accuracy";

class AccuracyOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Out", "The top-k values of the prediction, [N, k] (only its shape is read).");
    AddInput("Indices", "The top-k class indices of the prediction, int64 or int32 [N, k].");
    AddInput("Label", "The true class of each sample, int64 or int32 [N, 1].");
    AddOutput("Accuracy", "float32 0-D: Correct / Total (0 when N = 0).");
    AddOutput("Correct", "int32 0-D: the number of samples whose label is among its indices.");
    AddOutput("Total", "int32 0-D: the number of samples N.");
    AddComment(R"DOC(
Accuracy operator (top-k).

$$Correct = \sum_{i=0}^{N-1} [\exists j < k: Indices_{ij} = Label_i], \quad
Total = N, \quad Accuracy = \frac{Correct}{Total}$$

Example: Indices [[2, 0], [1, 3]], Label [[0], [2]] -> Correct 1, Total 2, Accuracy 0.5.
Not differentiable: the op has no gradient.
)DOC");
  }
};

class AccuracyOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  // The kernel follows Out (its values are not read; the float kernels cover every input).
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Out");
  }
};

void AccuracyInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Out", "Indices", "Label"}) ctx->RequireInput(slot);
  for (const char* slot : {"Accuracy", "Correct", "Total"}) ctx->RequireOutput(slot);
  const DDim out = ctx->GetInputDim("Out");
  const DDim indices = ctx->GetInputDim("Indices");
  const DDim label = ctx->GetInputDim("Label");
  PL_ENFORCE(indices.size() == 2,
             errors::InvalidArgument("op `%s` input `Indices`: expected a 2-D tensor [N, k], "
                                     "received shape %s",
                                     ctx->OpType(), indices.ToString()));
  PL_ENFORCE(out.HasUnknown() || indices.HasUnknown() || out == indices,
             errors::InvalidArgument("op `%s` input `Out`: expected the shape of input "
                                     "`Indices` %s, received %s",
                                     ctx->OpType(), indices.ToString(), out.ToString()));
  const bool label_ok = label.size() == 2 && (label[1] == 1 || label[1] < 0) &&
                        (label[0] < 0 || indices[0] < 0 || label[0] == indices[0]);
  PL_ENFORCE(label_ok,
             errors::InvalidArgument("op `%s` input `Label`: expected shape [%lld, 1] (one label "
                                     "per row of `Indices` %s), received %s",
                                     ctx->OpType(), static_cast<long long>(indices[0]),
                                     indices.ToString(), label.ToString()));
  // 0-D, as PaddlePaddle 2.5 and later make them (1.x and 2.x before 2.5: [1]).
  for (const char* slot : {"Accuracy", "Correct", "Total"}) ctx->SetOutputDim(slot, DDim());
}

void AccuracyInferVarType(framework::VarTypeInferenceContext* ctx) {
  for (const char* slot : {"Accuracy", "Correct", "Total"}) {
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
  }
  ctx->SetOutputDataType("Accuracy", DataType::FLOAT32);
  ctx->SetOutputDataType("Correct", DataType::INT32);
  ctx->SetOutputDataType("Total", DataType::INT32);
}

template <typename T>
struct AccuracyKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* indices_t = ctx.Input("Indices");
    const DenseTensor* label_t = ctx.Input("Label");
    const IntLabels indices(*indices_t, kOp, "Indices");
    const IntLabels label(*label_t, kOp, "Label");
    const int64_t n = indices_t->dims()[0];
    const int64_t k = indices_t->dims()[1];
    int64_t correct = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < k; ++j) {
        if (indices[i * k + j] == label[i]) {
          ++correct;
          break;
        }
      }
    }
    const auto place = ctx.GetPlace();
    *ctx.Output("Accuracy")->mutable_data<float>(place) =
        n == 0 ? 0.0f : static_cast<float>(correct) / static_cast<float>(n);
    *ctx.Output("Correct")->mutable_data<int32_t>(place) = static_cast<int32_t>(correct);
    *ctx.Output("Total")->mutable_data<int32_t>(place) = static_cast<int32_t>(n);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterAccuracyOp) {
  framework::RegisterOp<AccuracyOp, AccuracyOpMaker>(kOp)
      .InferShape(AccuracyInferShape)
      .InferVarType(AccuracyInferVarType);
  RegisterPlainCpuFloatKernels<AccuracyKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

// auc: the area under the ROC curve of binary predictions, accumulated over batches in
// bucketed positive/negative counts (globally, or over a sliding window of the last
// slide_steps batches), as PaddlePaddle's auc op keeps them in its StatPos/StatNeg state.
#include <cstring>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "auc";

class AucOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Predict",
             "[N, W] probabilities; the last column is the positive class's (W = 2 for a "
             "softmax over two classes, 1 for a sigmoid). Each in [0, 1].");
    AddInput("Label", "int64 [N] or [N, 1]: > 0 positive, 0 negative, < 0 not counted.");
    AddInput("StatPos",
             "int64 state, (slide_steps + 1) (num_thresholds + 1) counts (+ 1 step counter "
             "when slide_steps > 0): positives per bucket.");
    AddInput("StatNeg", "int64 state like StatPos: negatives per bucket.");
    AddInput("InsTagWeight",
             "float32 [1]: 0 marks the batch as padding (counted in no window sum); absent "
             "= 1.")
        .AsDispensable();
    AddOutput("AUC", "float64 []: the area under the ROC curve of the counts.");
    AddOutput("StatPosOut",
              "The updated StatPos (usually the same variable): [1, num_thresholds + 1] with "
              "slide_steps 0, else flat.");
    AddOutput("StatNegOut", "The updated StatNeg (usually the same variable).");
    AddAttr<std::string>("curve", "ROC (the only curve computed).").SetDefault("ROC");
    AddAttr<int>("num_thresholds", "Buckets - 1 (> 0).").SetDefault((1 << 12) - 1).GreaterThan(0);
    AddAttr<int>("slide_steps",
                 "0: counts over every batch so far; k > 0: over the last k batches.")
        .SetDefault(1);
    AddComment(R"DOC(
AUC operator. Each sample's positive probability p falls into bucket
b = floor(p * num_thresholds); positives (Label > 0) and negatives (Label = 0) are counted
per bucket. With slide_steps = k > 0 the state holds the counts of the last k batches (a
ring of k rows, the batch's row cleared and refilled) and their sum, plus a step counter;
with k = 0 it holds running totals. From the summed counts P_b and N_b, walking the buckets
from the highest, with TP and FP the running sums:
$$AUC = \frac{1}{TP_{total} \cdot FP_{total}} \sum_b (FP_b - FP_{b-1}) \frac{TP_b + TP_{b-1}}{2}$$
(the trapezoids of the ROC curve; left unscaled when either total is 0).
Not differentiable: the op has no gradient.
)DOC");
  }
};

class AucOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Predict");
  }
  // Labels and counts are integers read as they are.
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot == "Predict" && OperatorWithKernel::CastsInput(slot, from, to);
  }
};

// Elements the StatPos/StatNeg state needs.
int64_t StateSize(int num_thresholds, int slide_steps) {
  return (1 + static_cast<int64_t>(slide_steps)) * (num_thresholds + 1) + (slide_steps > 0 ? 1 : 0);
}

// The state outputs' dims, as PaddlePaddle gives them: [1, buckets] for running totals, else
// flat.
DDim StateDims(int num_thresholds, int slide_steps) {
  if (slide_steps == 0) return DDim{1, num_thresholds + 1};
  return DDim{StateSize(num_thresholds, slide_steps)};
}

void CheckSlideSteps(const std::string& op, int slide_steps) {
  PL_ENFORCE(slide_steps >= 0, errors::InvalidArgument("op `%s` attribute `slide_steps`: "
                                                       "expected >= 0, received %d",
                                                       op, slide_steps));
}

void AucInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Predict", "Label", "StatPos", "StatNeg"}) ctx->RequireInput(slot);
  for (const char* slot : {"AUC", "StatPosOut", "StatNegOut"}) ctx->RequireOutput(slot);
  CheckSlideSteps(ctx->OpType(), ctx->Attr<int>("slide_steps"));
  const DDim predict = ctx->GetInputDim("Predict");
  PL_ENFORCE(predict.size() == 2,
             errors::InvalidArgument("op `%s` input `Predict`: expected [N, W], received %s",
                                     ctx->OpType(), predict.ToString()));
  ctx->SetOutputDim("AUC", DDim(std::vector<int64_t>{}));
  const DDim state = StateDims(ctx->Attr<int>("num_thresholds"), ctx->Attr<int>("slide_steps"));
  ctx->SetOutputDim("StatPosOut", state);
  ctx->SetOutputDim("StatNegOut", state);
}

// The area under the ROC curve of the counts per bucket (buckets 0..num_thresholds).
double AreaUnderRoc(const int64_t* pos, const int64_t* neg, int num_thresholds) {
  double area = 0, tp = 0, fp = 0;
  for (int b = num_thresholds; b >= 0; --b) {
    const double tp_prev = tp, fp_prev = fp;
    tp += static_cast<double>(pos[b]);
    fp += static_cast<double>(neg[b]);
    area += (fp > fp_prev ? fp - fp_prev : fp_prev - fp) * (tp + tp_prev) / 2.0;
  }
  return tp > 0 && fp > 0 ? area / tp / fp : area;
}

template <typename T>
struct AucKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* predict = ctx.Input("Predict");
    const DenseTensor* label = ctx.Input("Label");
    const int thresholds = ctx.Attr<int>("num_thresholds");
    const int slide = ctx.Attr<int>("slide_steps");
    CheckSlideSteps(ctx.Type(), slide);
    const DDim pd = predict->dims();
    PL_ENFORCE(pd.size() == 2 && pd[1] >= 1,
               errors::InvalidArgument("op `%s` input `Predict`: expected [N, W] with W >= 1, "
                                       "received %s",
                                       ctx.Type(), pd.ToString()));
    PL_ENFORCE(label->dtype() == DataType::INT64 && label->numel() == pd[0],
               errors::InvalidArgument("op `%s` input `Label`: expected int64 with N = %lld "
                                       "elements, received %s %s",
                                       ctx.Type(), static_cast<long long>(pd[0]),
                                       DataTypeName(label->dtype()), label->dims().ToString()));
    const int64_t size = StateSize(thresholds, slide);
    for (const char* slot : {"StatPos", "StatNeg"}) {
      const DenseTensor* s = ctx.Input(slot);
      PL_ENFORCE(s->dtype() == DataType::INT64 && s->numel() >= size,
                 errors::InvalidArgument("op `%s` input `%s`: expected int64 with at least %lld "
                                         "elements ((slide_steps + 1) x (num_thresholds + 1)%s), "
                                         "received %s %s",
                                         ctx.Type(), slot, static_cast<long long>(size),
                                         slide > 0 ? " + 1" : "", DataTypeName(s->dtype()),
                                         s->dims().ToString()));
    }
    bool padding = false;
    if (const DenseTensor* w = ctx.Input("InsTagWeight")) {
      PL_ENFORCE(
          w->numel() >= 1 && w->dtype() == DataType::FLOAT32,
          errors::InvalidArgument("op `%s` input `InsTagWeight`: expected float32 [1], "
                                  "received %s %s",
                                  ctx.Type(), DataTypeName(w->dtype()), w->dims().ToString()));
      padding = w->data<float>()[0] == 0;
    }
    const int64_t n = pd[0], width = pd[1];
    const T* p = n > 0 ? predict->data<T>() : nullptr;
    const int64_t* y = n > 0 ? label->data<int64_t>() : nullptr;
    for (int64_t i = 0; i < n; ++i) {
      const T v = p[i * width + width - 1];
      PL_ENFORCE(
          v >= T(0) && v <= T(1),
          errors::InvalidArgument("op `%s` input `Predict`: row %lld's probability is %g, "
                                  "expected a value in [0, 1]",
                                  ctx.Type(), static_cast<long long>(i), static_cast<double>(v)));
    }

    // The state, copied (the outputs own their memory even when they name the inputs).
    const DenseTensor pos_in = *ctx.Input("StatPos");
    const DenseTensor neg_in = *ctx.Input("StatNeg");
    const DDim state = StateDims(thresholds, slide);
    DenseTensor pos_out(state, DataType::INT64), neg_out(state, DataType::INT64);
    int64_t* pos = pos_out.mutable_data<int64_t>(ctx.GetPlace());
    int64_t* neg = neg_out.mutable_data<int64_t>(ctx.GetPlace());
    std::memcpy(pos, pos_in.data<int64_t>(), static_cast<size_t>(size) * 8);
    std::memcpy(neg, neg_in.data<int64_t>(), static_cast<size_t>(size) * 8);

    const int64_t buckets = thresholds + 1;
    auto count = [&](int64_t* pos_row, int64_t* neg_row) {
      for (int64_t i = 0; i < n; ++i) {
        const auto b = static_cast<uint32_t>(p[i * width + width - 1] * thresholds);
        if (y[i] > 0) {
          ++pos_row[b];
        } else if (y[i] == 0) {
          ++neg_row[b];
        }
      }
    };
    const int64_t sum_row = slide * buckets;
    if (slide == 0) {
      if (!padding) count(pos, neg);
    } else {
      // Ring row of this batch: take it out of the window sum, refill it, add it back.
      const int64_t cur = (pos[(slide + 1) * buckets] % slide) * buckets;
      for (int64_t b = 0; b < buckets; ++b) {
        pos[sum_row + b] -= pos[cur + b];
        neg[sum_row + b] -= neg[cur + b];
      }
      std::memset(pos + cur, 0, static_cast<size_t>(buckets) * 8);
      std::memset(neg + cur, 0, static_cast<size_t>(buckets) * 8);
      count(pos + cur, neg + cur);
      if (!padding) {
        for (int64_t b = 0; b < buckets; ++b) {
          pos[sum_row + b] += pos[cur + b];
          neg[sum_row + b] += neg[cur + b];
        }
      }
    }
    DenseTensor auc(DDim(std::vector<int64_t>{}), DataType::FLOAT64);
    *auc.mutable_data<double>(ctx.GetPlace()) =
        AreaUnderRoc(pos + sum_row, neg + sum_row, thresholds);
    if (slide > 0) {
      ++pos[(slide + 1) * buckets];
      ++neg[(slide + 1) * buckets];
    }
    *ctx.Output("AUC") = std::move(auc);
    *ctx.Output("StatPosOut") = std::move(pos_out);
    *ctx.Output("StatNegOut") = std::move(neg_out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterAucOp) {
  framework::RegisterOp<AucOp, AucOpMaker>(kOp)
      .InferShape(AucInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        ctx->SetOutputDataType("AUC", DataType::FLOAT64);
        ctx->SetOutputDataType("StatPosOut", DataType::INT64);
        ctx->SetOutputDataType("StatNegOut", DataType::INT64);
      })
      .Checkpoint("add input InsTagWeight",
                  framework::OpVersionDesc().NewInput(
                      "InsTagWeight", "0 marks the batch as padding, counted in no window sum"));
  RegisterPlainCpuFloatKernels<AucKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

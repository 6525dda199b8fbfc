// ctc_align: CTC greedy decoding's last step (fluid's ctc_greedy_decoder): repeated tokens
// merged and blanks dropped, for LoD sequences or for a padded batch with lengths.
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "ctc_align";

class CtcAlignOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "Token ids: a LoD tensor [T, 1], or without LoD a padded batch [N, T].");
    AddInput("InputLength", "Input's type, [N, 1]: the steps of each row of a padded Input.")
        .AsDispensable();
    AddOutput("Output",
              "The aligned tokens: [T', 1] with one LoD sequence per input sequence, "
              "or [N, T] padded with padding_value.");
    AddOutput("OutputLength", "Input's type, [N, 1]: the tokens kept per row (padded Input).")
        .AsDispensable();
    AddAttr<int>("blank", "The blank token, dropped.").SetDefault(0);
    AddAttr<bool>("merge_repeated", "Merge runs of the same token into one.").SetDefault(true);
    AddAttr<int>("padding_value", "Fills a padded Output after each row's tokens.").SetDefault(0);
    AddComment(R"DOC(
CTC alignment of each sequence x_1 .. x_n: token x_t is kept when
$$x_t \ne blank \quad \text{and not} \quad (merge\_repeated \wedge x_t = x_{t-1})$$
(x_0 taken as none). Example: [0, 1, 1, 0, 2, 2, 0, 1] with blank 0 -> [1, 2, 1]. With LoD
Input, Output keeps one sequence per input sequence; when every sequence comes out empty,
Output is [[-1]] (PaddlePaddle's convention) with all LoD offsets 0.
)DOC");
  }
};

class CtcAlignOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Input");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void CtcAlignInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireOutput("Output");
  const DDim in = ctx->GetInputDim("Input");
  PL_ENFORCE(in.size() == 2, errors::InvalidArgument("op `%s` input `Input`: expected rank 2 ([T, "
                                                     "1] with LoD or [N, T]), received %s",
                                                     kOp, in.ToString()));
  if (ctx->IsRuntime()) return;  // The kernel knows whether Input is padded.
  if (ctx->HasInput("InputLength")) {
    ctx->SetOutputDim("Output", in);
    if (ctx->HasOutput("OutputLength")) ctx->SetOutputDim("OutputLength", DDim{in[0], 1});
  } else {
    ctx->SetOutputDim("Output", DDim{-1, 1});
  }
}

// Appends the kept tokens of x[0 .. n) to `out`.
template <typename T>
void Align(const T* x, int64_t n, int64_t blank, bool merge, std::vector<T>* out) {
  bool has_prev = false;
  T prev = T(0);
  for (int64_t t = 0; t < n; ++t) {
    if (x[t] != static_cast<T>(blank) && !(merge && has_prev && x[t] == prev)) {
      out->push_back(x[t]);
    }
    prev = x[t];
    has_prev = true;
  }
}

template <typename T>
struct CtcAlignKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const int64_t blank = ctx.Attr<int>("blank");
    const bool merge = ctx.Attr<bool>("merge_repeated");
    const T* x = input->data<T>();
    DenseTensor* output = ctx.Output("Output");
    if (input->lod().empty()) {
      PL_ENFORCE(ctx.HasInput("InputLength"),
                 errors::InvalidArgument("op `%s` input `InputLength`: required for an Input "
                                         "without LoD (a padded batch), received none",
                                         kOp));
      const int64_t rows = input->dims()[0], steps = input->dims()[1];
      const std::vector<int64_t> lengths =
          ReadIntValues(*ctx.Input("InputLength"), kOp, "InputLength");
      PL_ENFORCE(static_cast<int64_t>(lengths.size()) == rows,
                 errors::InvalidArgument("op `%s` input `InputLength`: expected %lld values "
                                         "(Input's rows), received %zu",
                                         kOp, static_cast<long long>(rows), lengths.size()));
      DenseTensor out(input->dims(), input->dtype());
      DenseTensor out_len(DDim{rows, 1}, input->dtype());
      T* o = out.mutable_data<T>(ctx.GetPlace());
      T* ol = out_len.mutable_data<T>(ctx.GetPlace());
      const T pad = static_cast<T>(ctx.Attr<int>("padding_value"));
      for (int64_t r = 0; r < rows; ++r) {
        PL_ENFORCE(
            lengths[r] >= 0 && lengths[r] <= steps,
            errors::InvalidArgument("op `%s` input `InputLength`: value %lld of row %lld "
                                    "is outside [0, %lld]",
                                    kOp, static_cast<long long>(lengths[r]),
                                    static_cast<long long>(r), static_cast<long long>(steps)));
        std::vector<T> kept;
        Align(x + r * steps, lengths[r], blank, merge, &kept);
        for (int64_t t = 0; t < steps; ++t) {
          o[r * steps + t] = t < static_cast<int64_t>(kept.size()) ? kept[t] : pad;
        }
        ol[r] = static_cast<T>(kept.size());
      }
      *output = std::move(out);
      if (DenseTensor* length = ctx.Output("OutputLength")) *length = std::move(out_len);
      return;
    }
    const std::vector<size_t>& lod = SequenceOffsets(kOp, "Input", *input, 1);
    PL_ENFORCE(input->numel() == input->dims()[0],
               errors::InvalidArgument("op `%s` input `Input`: expected shape [T, 1] with LoD, "
                                       "received %s",
                                       kOp, input->dims().ToString()));
    std::vector<T> kept;
    std::vector<size_t> offsets(1, 0);
    for (size_t i = 0; i + 1 < lod.size(); ++i) {
      Align(x + lod[i], static_cast<int64_t>(lod[i + 1] - lod[i]), blank, merge, &kept);
      offsets.push_back(kept.size());
    }
    const bool none = kept.empty();
    if (none) kept.push_back(T(-1));
    DenseTensor out(DDim{static_cast<int64_t>(kept.size()), 1}, input->dtype());
    std::copy(kept.begin(), kept.end(), out.mutable_data<T>(ctx.GetPlace()));
    out.set_lod({offsets});
    *output = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterCtcAlignOp) {
  framework::RegisterOp<CtcAlignOp, CtcAlignOpMaker>(kOp)
      .InferShape(CtcAlignInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        ctx->SetOutputDataType("Output", ctx->GetInputDataType("Input"));
        if (ctx->HasOutput("OutputLength")) {
          ctx->SetOutputDataType("OutputLength", ctx->GetInputDataType("Input"));
        }
      });
  RegisterPlainCpuNumericKernels<CtcAlignKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

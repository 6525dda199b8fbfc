// searchsorted (insertion positions of values in sorted rows) and bincount (occurrences of
// non-negative integers, optionally weighted). Neither has a gradient.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

// ---------------------------------------------------------------- searchsorted

class SearchsortedOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("SortedSequence",
             "[..., M], each row sorted increasingly (a NaN after every number).");
    AddInput("Values",
             "The values to place: any shape for a 1-D SortedSequence, else "
             "SortedSequence's leading dims and any last dim.");
    AddOutput("Out", "Values' shape: each value's insertion position in its row, in [0, M].");
    AddAttr<bool>("out_int32", "int32 positions (else int64).").SetDefault(false);
    AddAttr<bool>("right", "After equal elements (else before them).").SetDefault(false);
    AddComment(R"DOC(
The position at which each value would be inserted to keep its row sorted:

$$Out = \#\{i : S_i < v\} \;\; (right = false), \qquad Out = \#\{i : S_i \le v\} \;\; (right = true)$$

A NaN counts as larger than every number (a NaN value lands after the numbers). Example:
S = [1, 2, 2, 3], v = [2, 0, 5] -> [1, 0, 4]; with right -> [3, 0, 4].
)DOC");
  }
};

class SearchsortedOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "SortedSequence");
  }
};

void CheckRows(const std::string& op, const DDim& seq, const DDim& values) {
  PL_ENFORCE(seq.size() >= 1, errors::InvalidArgument("op `%s` input `SortedSequence`: expected "
                                                      "rank >= 1, received a 0-D tensor",
                                                      op));
  if (seq.size() == 1) return;
  bool ok = values.size() == seq.size();
  for (int i = 0; ok && i + 1 < seq.size(); ++i) {
    ok = seq[i] < 0 || values[i] < 0 || seq[i] == values[i];
  }
  PL_ENFORCE(ok, errors::InvalidArgument("op `%s` input `Values`: expected the leading dims of "
                                         "SortedSequence %s and any last dim, received %s",
                                         op, seq.ToString(), values.ToString()));
}

void SearchsortedInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("SortedSequence");
  ctx->RequireInput("Values");
  ctx->RequireOutput("Out");
  CheckRows(ctx->OpType(), ctx->GetInputDim("SortedSequence"), ctx->GetInputDim("Values"));
  ctx->SetOutputDim("Out", ctx->GetInputDim("Values"));
}

// a < b with a NaN above every number.
template <typename T>
bool NanLast(T a, T b) {
  return !std::isnan(static_cast<double>(a)) && (std::isnan(static_cast<double>(b)) || a < b);
}

template <typename T>
struct SearchsortedKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* seq = ctx.Input("SortedSequence");
    const DenseTensor* values = ctx.Input("Values");
    CheckRows(ctx.Type(), seq->dims(), values->dims());
    PL_ENFORCE(values->dtype() == seq->dtype(),
               errors::InvalidArgument("op `%s` input `Values`: expected SortedSequence's dtype "
                                       "%s, received %s",
                                       ctx.Type(), DataTypeName(seq->dtype()),
                                       DataTypeName(values->dtype())));
    const int64_t m = seq->dims()[seq->dims().size() - 1];
    const int64_t rows = m == 0 ? 0 : seq->numel() / m;
    const int64_t n = values->numel();
    const int64_t per_row = seq->dims().size() == 1 || rows == 0 ? n : n / rows;
    const bool right = ctx.Attr<bool>("right");
    std::vector<int64_t> pos(static_cast<size_t>(n));
    const T* s = seq->numel() > 0 ? seq->data<T>() : nullptr;
    const T* v = n > 0 ? values->data<T>() : nullptr;
    for (int64_t i = 0; i < n; ++i) {
      const T* row = seq->dims().size() == 1 ? s : s + (per_row == 0 ? 0 : i / per_row) * m;
      const T* end = row + m;
      pos[i] = (right ? std::upper_bound(row, end, v[i], NanLast<T>)
                      : std::lower_bound(row, end, v[i], NanLast<T>)) -
               row;
    }
    DenseTensor out(values->dims(),
                    ctx.Attr<bool>("out_int32") ? DataType::INT32 : DataType::INT64);
    if (out.dtype() == DataType::INT32) {
      int32_t* o = out.mutable_data<int32_t>(ctx.GetPlace());
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<int32_t>(pos[i]);
    } else {
      std::copy(pos.begin(), pos.end(), out.mutable_data<int64_t>(ctx.GetPlace()));
    }
    *ctx.Output("Out") = std::move(out);
  }
};

// ---------------------------------------------------------------- bincount

class BincountOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "1-D int32 or int64, non-negative.");
    AddInput("Weights",
             "X's shape: the amount each element adds (float32, float64, int32 or "
             "int64).")
        .AsDispensable();
    AddOutput("Out",
              "[max(max(X) + 1, minlength)]: int64 counts, or the summed weights (float32 "
              "for float32 weights, else float64).");
    AddAttr<int>("minlength", "The least length of Out (>= 0).").SetDefault(0);
    AddComment(R"DOC(
Bincount: $$Out[k] = \sum_{i : X_i = k} w_i$$ with w_i = Weights_i, or 1 without Weights.
Example: X = [1, 3, 3, 0], minlength 6 -> [1, 1, 0, 2, 0, 0].
)DOC");
  }
};

DataType BincountOutType(bool weighted, DataType weights) {
  if (!weighted) return DataType::INT64;
  return weights == DataType::FLOAT32 ? DataType::FLOAT32 : DataType::FLOAT64;
}

// The kernel is keyed by the floating type of the sums (float64 for counts, which it writes as
// int64); X's integers and integer weights are read as they are.
class BincountOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    const bool weighted = ctx.inputs.count("Weights") && !ctx.inputs.at("Weights").empty();
    const DataType out =
        BincountOutType(weighted, weighted ? InputDataType(ctx, "Weights") : DataType::INT64);
    return out == DataType::INT64 ? DataType::FLOAT64 : out;
  }
};

void BincountInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  PL_ENFORCE(x.size() == 1, errors::InvalidArgument("op `%s` input `X`: expected a 1-D tensor, "
                                                    "received %s",
                                                    ctx->OpType(), x.ToString()));
  PL_ENFORCE(ctx->Attr<int>("minlength") >= 0,
             errors::InvalidArgument("op `%s` attribute `minlength`: expected a value >= 0, "
                                     "received %d",
                                     ctx->OpType(), ctx->Attr<int>("minlength")));
  if (!ctx->IsRuntime()) ctx->SetOutputDim("Out", DDim{-1});  // The kernel sets the length.
}

template <typename T>
void Bincount(const ExecutionContext& ctx, const DenseTensor* x, const DenseTensor* w) {
  PL_ENFORCE(w == nullptr || w->dims() == x->dims(),
             errors::InvalidArgument("op `%s` input `Weights`: expected X's shape %s, received "
                                     "%s",
                                     ctx.Type(), x->dims().ToString(), w->dims().ToString()));
  const int64_t n = x->numel();
  const T* ids = n > 0 ? x->data<T>() : nullptr;
  int64_t length = ctx.Attr<int>("minlength");
  for (int64_t i = 0; i < n; ++i) {
    PL_ENFORCE(ids[i] >= 0, errors::InvalidArgument("op `%s` input `X`: expected non-negative "
                                                    "values, received %lld at index %lld",
                                                    ctx.Type(), static_cast<long long>(ids[i]),
                                                    static_cast<long long>(i)));
    length = std::max<int64_t>(length, static_cast<int64_t>(ids[i]) + 1);
  }
  const DataType out_type =
      BincountOutType(w != nullptr, w == nullptr ? DataType::INT64 : w->dtype());
  DenseTensor out(DDim{length}, out_type);
  platform::VisitDataType(out_type, [&](auto out_tag) {
    using O = decltype(out_tag);
    if constexpr (std::is_same_v<O, int64_t> || std::is_same_v<O, float> ||
                  std::is_same_v<O, double>) {
      O* o = out.mutable_data<O>(ctx.GetPlace());
      std::fill(o, o + length, O(0));
      if (w == nullptr) {
        for (int64_t i = 0; i < n; ++i) o[ids[i]] += O(1);
        return;
      }
      platform::VisitDataType(w->dtype(), [&](auto w_tag) {
        using W = decltype(w_tag);
        if constexpr (std::is_same_v<W, float> || std::is_same_v<W, double> ||
                      std::is_same_v<W, int32_t> || std::is_same_v<W, int64_t>) {
          const W* wv = w->data<W>();
          for (int64_t i = 0; i < n; ++i) o[ids[i]] += static_cast<O>(wv[i]);
        } else {
          PL_THROW(
              errors::InvalidArgument("op `%s` input `Weights`: expected float32, float64, "
                                      "int32 or int64, received %s",
                                      ctx.Type(), DataTypeName(w->dtype())));
        }
      });
    }
  });
  *ctx.Output("Out") = std::move(out);
}

template <typename Key>
struct BincountKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* w = ctx.Input("Weights");
    PL_ENFORCE(x->dims().size() == 1,
               errors::InvalidArgument("op `%s` input `X`: expected a 1-D tensor, received %s",
                                       ctx.Type(), x->dims().ToString()));
    if (x->dtype() == DataType::INT32) {
      Bincount<int32_t>(ctx, x, w);
    } else {
      PL_ENFORCE(x->dtype() == DataType::INT64,
                 errors::InvalidArgument("op `%s` input `X`: expected int32 or int64, received %s",
                                         ctx.Type(), DataTypeName(x->dtype())));
      Bincount<int64_t>(ctx, x, w);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSearchsortedBincountOps) {
  framework::RegisterOp<SearchsortedOp, SearchsortedOpMaker>("searchsorted")
      .InferShape(SearchsortedInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        ctx->SetOutputDataType("Out",
                               ctx->Attr<bool>("out_int32") ? DataType::INT32 : DataType::INT64);
      });
  RegisterPlainCpuNumericKernels<SearchsortedKernel>("searchsorted");
  framework::RegisterOp<BincountOp, BincountOpMaker>("bincount")
      .InferShape(BincountInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        const bool weighted = ctx->HasInput("Weights");
        ctx->SetOutputDataType(
            "Out", BincountOutType(weighted,
                                   weighted ? ctx->GetInputDataType("Weights") : DataType::INT64));
      });
  RegisterPlainCpuFloatKernels<BincountKernel>("bincount");
}

}  // namespace operators
}  // namespace paddle_like

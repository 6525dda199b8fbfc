// sequence_mask: a mask of each length in X, [..., maxlen] (paddle.nn.functional.
// sequence_mask), as speech and text models build their padding masks.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "sequence_mask";

class SequenceMaskOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Lengths: an int32, int64, float32 or float64 tensor of any shape.");
    AddInput("MaxLenTensor", "int32 or int64, one element > 0: maxlen at run time.")
        .AsDispensable();
    AddOutput("Y", "X's shape + [maxlen], in out_dtype.");
    AddAttr<int>("maxlen", "The mask's last dim; negative: the largest value of X.").SetDefault(-1);
    AddAttr<int>("out_dtype",
                 "Element type of Y as a VarType number: 0 bool, 2 int32, 3 int64, "
                 "5 float32, 6 float64, 20 uint8, 21 int8.")
        .InEnum({0, 2, 3, 5, 6, 20, 21});
    AddComment(R"DOC(
Sequence mask:
$$Y[i_0, \ldots, i_{r-1}, j] = \begin{cases} 1 & j < X[i_0, \ldots, i_{r-1}] \\ 0 &
\text{otherwise} \end{cases}, \quad 0 \le j < maxlen$$
maxlen is MaxLenTensor's value when given, else the attribute, else (negative) the largest
element of X. Example: X = [1, 3], maxlen 4 -> Y = [[1, 0, 0, 0], [1, 1, 1, 0]].
)DOC");
  }
};

// The kernel follows X's element type; Y's comes from out_dtype.
class SequenceMaskOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void SequenceMaskInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Y");
  std::vector<int64_t> dims = ctx->GetInputDim("X").ToVector();
  const int maxlen = ctx->Attr<int>("maxlen");
  dims.push_back(ctx->HasInput("MaxLenTensor") || maxlen < 0 ? -1 : maxlen);
  if (ctx->IsRuntime() && dims.back() < 0) return;  // The kernel sizes Y.
  ctx->SetOutputDim("Y", DDim(dims));
}

void SequenceMaskInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Y", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Y", static_cast<DataType>(ctx->Attr<int>("out_dtype")));
}

template <typename T>
struct SequenceMaskKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const T* len = x->data<T>();
    int64_t maxlen = ctx.Attr<int>("maxlen");
    if (ctx.HasInput("MaxLenTensor")) {
      const DenseTensor* t = ctx.Input("MaxLenTensor");
      PL_ENFORCE(t->numel() == 1,
                 errors::InvalidArgument("op `%s` input `MaxLenTensor`: expected one element, "
                                         "received shape %s",
                                         kOp, t->dims().ToString()));
      maxlen = ReadIntValues(*t, kOp, "MaxLenTensor")[0];
      PL_ENFORCE(maxlen > 0, errors::InvalidArgument("op `%s` input `MaxLenTensor`: expected a "
                                                     "value > 0, received %lld",
                                                     kOp, static_cast<long long>(maxlen)));
    } else if (maxlen < 0) {
      maxlen = 0;
      for (int64_t i = 0; i < x->numel(); ++i) {
        maxlen = std::max(maxlen, static_cast<int64_t>(len[i]));
      }
    }
    std::vector<int64_t> dims = x->dims().ToVector();
    dims.push_back(maxlen);
    DenseTensor* y = ctx.Output("Y");
    y->Resize(DDim(dims));
    platform::VisitDataType(static_cast<DataType>(ctx.Attr<int>("out_dtype")), [&](auto tag) {
      using Out = decltype(tag);
      Out* o = y->mutable_data<Out>(ctx.GetPlace());
      for (int64_t i = 0; i < x->numel(); ++i) {
        for (int64_t j = 0; j < maxlen; ++j) {
          o[i * maxlen + j] = static_cast<Out>(static_cast<T>(j) < len[i] ? 1 : 0);
        }
      }
    });
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSequenceMaskOp) {
  framework::RegisterOp<SequenceMaskOp, SequenceMaskOpMaker>(kOp)
      .InferShape(SequenceMaskInferShape)
      .InferVarType(SequenceMaskInferVarType);
  RegisterPlainCpuKernels<SequenceMaskKernel, float, double, int32_t, int64_t>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

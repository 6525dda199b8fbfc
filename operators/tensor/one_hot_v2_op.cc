// one_hot_v2: integer class ids to one-hot rows (paddle.nn.functional.one_hot).
#include <cstring>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "one_hot_v2";

class OneHotV2OpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "int32 or int64 class ids of any shape.");
    AddInput("depth_tensor", "Optional one-element tensor: the depth, instead of `depth`.")
        .AsDispensable();
    AddOutput("Out", "X's dims plus one of size depth: 1 at each id, 0 elsewhere.");
    AddAttr<int>("depth", "The number of classes (>= 1).").SetDefault(-1);
    AddAttr<int>("dtype",
                 "Element type of Out as a VarType number: 5 float32 (default), "
                 "6 float64, 2 int32, 3 int64.")
        .SetDefault(static_cast<int>(DataType::FLOAT32))
        .InEnum({2, 3, 5, 6});
    AddAttr<bool>("allow_out_of_range",
                  "An id outside [0, depth) gives a row of zeros instead "
                  "of an error.")
        .SetDefault(false);
    AddComment(R"DOC(
OneHot operator (version 2).

$$Out[\ldots, c] = [X[\ldots] = c], \quad 0 \le c < depth$$

An id outside [0, depth) is an error unless allow_out_of_range, which gives its row zeros.
Not differentiable.
)DOC");
  }
};

class OneHotV2Op : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext&) const override {
    return static_cast<DataType>(Attr<int>("dtype"));
  }
  // X keeps its integer dtype: the kernel reads it as it is.
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

DDim OneHotDims(const DDim& x, int64_t depth) {
  std::vector<int64_t> dims(x.data(), x.data() + x.size());
  dims.push_back(depth);
  return DDim(dims);
}

void OneHotV2InferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  int64_t depth = -1;
  if (!ctx->HasInput("depth_tensor")) {
    depth = ctx->Attr<int>("depth");
    PL_ENFORCE(depth >= 1, errors::InvalidArgument("op `%s` attribute `depth`: expected >= 1, "
                                                   "received %lld",
                                                   kOp, static_cast<long long>(depth)));
  } else if (ctx->IsRuntime()) {
    return;  // The kernel reads depth_tensor.
  }
  ctx->SetOutputDim("Out", OneHotDims(ctx->GetInputDim("X"), depth));
}

void OneHotV2InferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", static_cast<DataType>(ctx->Attr<int>("dtype")));
}

template <typename T, typename Id>
void FillOneHot(const Id* ids, int64_t n, int64_t depth, bool allow, T* out) {
  std::memset(out, 0, sizeof(T) * static_cast<size_t>(n * depth));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = static_cast<int64_t>(ids[i]);
    if (c < 0 || c >= depth) {
      PL_ENFORCE(allow,
                 errors::InvalidArgument("op `%s` input `X`: expected ids in [0, %lld) "
                                         "(depth), received %lld at element %lld",
                                         kOp, static_cast<long long>(depth),
                                         static_cast<long long>(c), static_cast<long long>(i)));
      continue;
    }
    out[i * depth + c] = T(1);
  }
}

template <typename T>
struct OneHotV2Kernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    int64_t depth = ctx.Attr<int>("depth");
    if (ctx.HasInput("depth_tensor")) {
      depth = static_cast<int64_t>(ReadScalarInput(ctx, "depth_tensor"));
    }
    PL_ENFORCE(depth >= 1, errors::InvalidArgument("op `%s` depth: expected >= 1, received %lld",
                                                   kOp, static_cast<long long>(depth)));
    DenseTensor out(OneHotDims(x->dims(), depth), platform::ToDataType<T>());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const bool allow = ctx.Attr<bool>("allow_out_of_range");
    if (x->dtype() == DataType::INT64) {
      FillOneHot(x->data<int64_t>(), x->numel(), depth, allow, o);
    } else if (x->dtype() == DataType::INT32) {
      FillOneHot(x->data<int32_t>(), x->numel(), depth, allow, o);
    } else {
      throw errors::InvalidArgument("op `%s` input `X`: expected int32 or int64 ids, received %s",
                                    kOp, DataTypeName(x->dtype()));
    }
    *ctx.Output("Out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterOneHotV2Op) {
  framework::RegisterOp<OneHotV2Op, OneHotV2OpMaker>(kOp)
      .InferShape(OneHotV2InferShape)
      .InferVarType(OneHotV2InferVarType)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuKernels<OneHotV2Kernel, float, double, int32_t, int64_t>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

// assign_value: a constant written into the program (paddle.assign of an array, the constants
// of exported programs). PaddlePaddle 3 stores the values as scalars in `values` (op version
// 1); earlier programs in one typed list per dtype (fp32_values, int32_values, ...).
#include <complex>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"
#include "platform/allocator.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "assign_value";

class AssignValueOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("ValuesTensor",
             "Optional: a tensor whose values Out takes instead of the "
             "attributes (its dtype must be `dtype`, its element count the "
             "product of `shape`).")
        .AsDispensable();
    AddOutput("Out", "The constant, of shape `shape` and dtype `dtype`.");
    AddAttr<std::vector<int>>("shape", "Shape of Out (each dim >= 0).").SetDefault({});
    AddAttr<int>("dtype",
                 "Element type as a VarType number: 0 bool, 2 int32, 3 int64, "
                 "5 float32, 6 float64, 23 complex64, 24 complex128 (complex values come "
                 "from `values` only).")
        .SetDefault(static_cast<int>(DataType::FLOAT32))
        .InEnum({0, 2, 3, 5, 6, 23, 24});
    AddAttr<std::vector<framework::Scalar>>(
        "values",
        "The values in row-major order, as scalars (PaddlePaddle 3); when empty, "
        "the typed list of `dtype` below is read.")
        .SetDefault({});
    AddAttr<std::vector<int>>("bool_values",
                              "Values of a bool constant (0 or 1), earlier "
                              "programs.")
        .SetDefault({});
    AddAttr<std::vector<int>>("int32_values", "Values of an int32 constant, earlier programs.")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("int64_values",
                                  "Values of an int64 constant, earlier "
                                  "programs.")
        .SetDefault({});
    AddAttr<std::vector<float>>("fp32_values",
                                "Values of a float32 constant, earlier "
                                "programs.")
        .SetDefault({});
    AddAttr<std::vector<double>>("fp64_values",
                                 "Values of a float64 constant, earlier "
                                 "programs.")
        .SetDefault({});
    AddComment(R"DOC(
AssignValue operator: a constant.

$$Out = \mathrm{reshape}(values, shape) \quad \text{(as dtype)}$$

The values come from the input ValuesTensor when given, else from `values` (scalars), else
from the typed list of the dtype (`fp32_values`, `int32_values`, `int64_values`,
`bool_values`, `fp64_values`). Their count must be the product of `shape`.
)DOC");
  }
};

class AssignValueOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext&) const override {
    return static_cast<DataType>(Attr<int>("dtype"));
  }
};

void AssignValueInferShape(InferShapeContext* ctx) {
  ctx->RequireOutput("Out");
  const std::vector<int>& shape = ctx->Attr<std::vector<int>>("shape");
  for (size_t i = 0; i < shape.size(); ++i) {
    PL_ENFORCE(shape[i] >= 0,
               errors::InvalidArgument("op `%s` attribute `shape`: expected dims >= 0, "
                                       "received %d at dim %zu",
                                       kOp, shape[i], i));
  }
  ctx->SetOutputDim("Out", DDim(std::vector<int64_t>(shape.begin(), shape.end())));
}

void AssignValueInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", static_cast<DataType>(ctx->Attr<int>("dtype")));
}

// The values of the attributes as T: `values` when non-empty, else the list of T's dtype.
template <typename T>
std::vector<T> AttributeValues(const ExecutionContext& ctx, int64_t count) {
  std::vector<T> out;
  const auto& scalars = ctx.Attr<std::vector<framework::Scalar>>("values");
  const char* source = "values";
  if (!scalars.empty()) {
    for (const framework::Scalar& s : scalars) out.push_back(ScalarAs<T>(s));
  } else if constexpr (std::is_same_v<T, bool>) {
    source = "bool_values";
    for (int v : ctx.Attr<std::vector<int>>("bool_values")) out.push_back(v != 0);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    source = "int32_values";
    out = ctx.Attr<std::vector<int>>("int32_values");
  } else if constexpr (std::is_same_v<T, int64_t>) {
    source = "int64_values";
    out = ctx.Attr<std::vector<int64_t>>("int64_values");
  } else if constexpr (std::is_same_v<T, float>) {
    source = "fp32_values";
    out = ctx.Attr<std::vector<float>>("fp32_values");
  } else if constexpr (std::is_same_v<T, double>) {
    source = "fp64_values";
    out = ctx.Attr<std::vector<double>>("fp64_values");
  }
  PL_ENFORCE(static_cast<int64_t>(out.size()) == count,
             errors::InvalidArgument("op `%s` attribute `%s`: expected %lld values (the product "
                                     "of `shape`), received %zu",
                                     kOp, source, static_cast<long long>(count), out.size()));
  return out;
}

// Computes on the host and writes Out on the op's device (one copy on a GPU).
template <typename T>
struct AssignValueKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<int>& shape = ctx.Attr<std::vector<int>>("shape");
    const DDim dims(std::vector<int64_t>(shape.begin(), shape.end()));
    DenseTensor* out = ctx.Output("Out");
    if (ctx.HasInput("ValuesTensor")) {
      const DenseTensor* given = ctx.Input("ValuesTensor");
      PL_ENFORCE(given->dtype() == platform::ToDataType<T>() && given->numel() == dims.numel(),
                 errors::InvalidArgument("op `%s` input `ValuesTensor`: expected %lld values of "
                                         "%s, received %s of shape %s",
                                         kOp, static_cast<long long>(dims.numel()),
                                         DataTypeName(platform::ToDataType<T>()),
                                         DataTypeName(given->dtype()), given->dims().ToString()));
      DenseTensor result;
      framework::CopyTensor(*given, ctx.GetPlace(), &result);
      result.Resize(dims);
      *out = std::move(result);
      return;
    }
    const std::vector<T> values = AttributeValues<T>(ctx, dims.numel());
    DenseTensor result(dims, platform::ToDataType<T>());
    T* dst = result.mutable_data<T>(ctx.GetPlace());
    if (!values.empty()) {
      if constexpr (std::is_same_v<T, bool>) {
        std::vector<uint8_t> bytes(values.begin(), values.end());  // vector<bool> is packed.
        platform::Copy(ctx.GetPlace(), dst, platform::CPUPlace(), bytes.data(), bytes.size());
      } else {
        platform::Copy(ctx.GetPlace(), dst, platform::CPUPlace(), values.data(),
                       sizeof(T) * values.size());
      }
    }
    *out = std::move(result);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterAssignValueOp) {
  framework::RegisterOp<AssignValueOp, AssignValueOpMaker>(kOp)
      .InferShape(AssignValueInferShape)
      .InferVarType(AssignValueInferVarType)
      .Checkpoint("PaddlePaddle 3: the values as scalars in `values`",
                  framework::OpVersionDesc().NewAttr(
                      "values", "the values as scalars; the typed lists stay for earlier programs",
                      std::vector<framework::Scalar>{}));
  RegisterPlainKernelsOnEveryDevice<AssignValueKernel, float, double, int32_t, int64_t, bool>(kOp);
  RegisterPlainCpuKernels<AssignValueKernel, std::complex<float>, std::complex<double>>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

// fill_constant: a tensor of a given shape and dtype filled with one value;
// fill_constant_batch_size_like, whose batch dim comes from another tensor; and empty, a
// tensor of a given shape and dtype whose values are unspecified (zeros here).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <limits>

#include "framework/data_transform.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/shape_inputs.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "fill_constant";

class FillConstantOpMaker : public ShapeInputsOpMaker {
 public:
  void Make() override {
    AddInput("ValueTensor", "Optional 1-element tensor of any dtype; overrides `value`.")
        .AsDispensable();
    AddShapeInputs();
    AddOutput("Out", "The filled tensor.");
    AddAttr<int>("dtype",
                 "Element type as a VarType number: 0 bool, 2 int32, 3 int64, 5 float32, "
                 "6 float64, 23 complex64, 24 complex128 (the value is the real part).")
        .SetDefault(static_cast<int>(DataType::FLOAT32))
        .InEnum({0, 2, 3, 5, 6, 23, 24});
    AddAttr<std::vector<int64_t>>("shape", "Shape of Out (each dim >= 0 at run time).")
        .SetDefault({});
    AddAttr<float>("value", "The fill value.").SetDefault(0.0f);
    AddAttr<std::string>("str_value",
                         "The fill value as text; when non-empty it overrides `value` and keeps "
                         "int64 values exact. Accepts \"inf\", \"-inf\" and \"nan\".")
        .SetDefault("");
    AddAttr<bool>("force_cpu",
                  "Keep Out in CPU memory. The CPU kernels always do; the CUDA kernels fill "
                  "device memory, and a consumer on the CPU gets Out by a planned transfer.")
        .SetDefault(false);
    AddAttr<int>("place_type", "Place of Out: -1 = the op's place (the kernels ignore it).")
        .SetDefault(-1);
    AddComment(R"DOC(
FillConstant operator.

$$Out[i] = value \quad \text{for every index } i \text{ of a tensor of shape } shape$$

The value comes from, in order of precedence: the input ValueTensor (converted to dtype),
the attribute str_value when non-empty, the attribute value. The shape comes from the input
ShapeTensor, else ShapeTensorList, else the attribute shape. Integer dtypes require a
finite value within their range; bool stores value != 0.
Example: shape = [2, 3], dtype = 3 (int64), str_value = "7" -> [[7, 7, 7], [7, 7, 7]].
)DOC");
  }
};

class FillConstantOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  DataType IndicateDataType(const framework::RuntimeContext&) const override {
    return static_cast<DataType>(Attr<int>("dtype"));
  }
  // ValueTensor may hold any dtype; the kernel converts it.
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void FillConstantInferShape(InferShapeContext* ctx) { ShapeInputsInferShape(ctx); }

void FillConstantInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", static_cast<DataType>(ctx->Attr<int>("dtype")));
}

// A fill value before conversion to the kernel's type: integers stay exact.
struct FillValue {
  bool is_integer = false;
  int64_t i = 0;
  double d = 0;
  std::string origin;  // "input `ValueTensor`", "attribute `str_value`" ...
  std::string text;    // For messages.
};

FillValue ParseStrValue(const std::string& op, const std::string& s) {
  FillValue v;
  v.origin = "attribute `str_value`";
  v.text = "\"" + s + "\"";
  const char* begin = s.c_str();
  char* end = nullptr;
  errno = 0;
  const long long as_int = std::strtoll(begin, &end, 10);
  if (end != begin && *end == '\0' && errno == 0) {
    v.is_integer = true;
    v.i = as_int;
    return v;
  }
  // strtod also reads "inf", "-inf" and "nan".
  v.d = std::strtod(begin, &end);
  PL_ENFORCE(end != begin && *end == '\0',
             errors::InvalidArgument("op `%s` attribute `str_value`: expected a number, \"inf\", "
                                     "\"-inf\" or \"nan\", received \"%s\"",
                                     op, s));
  return v;
}

FillValue GetFillValue(const ExecutionContext& ctx) {
  FillValue v;
  if (ctx.HasInput("ValueTensor")) {
    const DenseTensor* t = ctx.Input("ValueTensor");
    PL_ENFORCE(t->numel() == 1,
               errors::InvalidArgument("op `%s` input `ValueTensor`: expected 1 element, "
                                       "received shape %s",
                                       ctx.Type(), t->dims().ToString()));
    v.origin = "input `ValueTensor`";
    const DenseTensor host = framework::OnCpu(*t);  // A device tensor is read back.
    platform::VisitDataType(host.dtype(), [&](auto tag) {
      using S = decltype(tag);
      const S s = host.data<S>()[0];
      if constexpr (std::is_integral_v<S>) {
        v.is_integer = true;
        v.i = static_cast<int64_t>(s);
        v.text = std::to_string(v.i);
      } else {
        v.d = ConvertElement<double>(s);
        v.text = std::to_string(v.d);
      }
    });
    return v;
  }
  const auto& str = ctx.Attr<std::string>("str_value");
  if (!str.empty()) return ParseStrValue(ctx.Type(), str);
  v.origin = "attribute `value`";
  v.d = ctx.Attr<float>("value");
  v.text = std::to_string(v.d);
  return v;
}

template <typename T>
T ConvertFillValue(const std::string& op, const FillValue& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v.is_integer ? v.i != 0 : v.d != 0;
  } else if constexpr (std::is_integral_v<T>) {
    const char* name = std::is_same_v<T, int32_t> ? "int32" : "int64";
    if (v.is_integer) {
      PL_ENFORCE(v.i >= std::numeric_limits<T>::min() && v.i <= std::numeric_limits<T>::max(),
                 errors::InvalidArgument("op `%s` %s: expected a value in the range of %s, "
                                         "received %s",
                                         op, v.origin, name, v.text));
      return static_cast<T>(v.i);
    }
    // -min() (2^31, 2^63) is exact as a double; every double below it fits T.
    const double lo = static_cast<double>(std::numeric_limits<T>::min());
    PL_ENFORCE(std::isfinite(v.d) && v.d >= lo && v.d < -lo,
               errors::InvalidArgument("op `%s` %s: expected a finite value in the range of %s, "
                                       "received %s",
                                       op, v.origin, name, v.text));
    return static_cast<T>(v.d);
  } else {
    return v.is_integer ? static_cast<T>(v.i) : static_cast<T>(v.d);
  }
}

}  // namespace

template <typename T>
T PrepareFillConstant(const ExecutionContext& ctx) {
  if (ctx.HasInput("ShapeTensor") || ctx.HasInput("ShapeTensorList")) {
    ctx.Output("Out")->Resize(ShapeFromInputs(ctx));
  }
  return ConvertFillValue<T>(ctx.Type(), GetFillValue(ctx));
}

template float PrepareFillConstant<float>(const ExecutionContext&);
template double PrepareFillConstant<double>(const ExecutionContext&);
template int32_t PrepareFillConstant<int32_t>(const ExecutionContext&);
template int64_t PrepareFillConstant<int64_t>(const ExecutionContext&);
template bool PrepareFillConstant<bool>(const ExecutionContext&);
template std::complex<float> PrepareFillConstant<std::complex<float>>(const ExecutionContext&);
template std::complex<double> PrepareFillConstant<std::complex<double>>(const ExecutionContext&);

namespace {

template <typename T>
struct FillConstantKernel {
  static void Compute(const ExecutionContext& ctx) {
    const T value = PrepareFillConstant<T>(ctx);
    DenseTensor* out = ctx.Output("Out");
    T* o = out->mutable_data<T>(ctx.GetPlace());
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        out->numel(), 1 << 16,
        [&](int64_t begin, int64_t end) { std::fill(o + begin, o + end, value); });
  }
};


// ---- fill_constant_batch_size_like ----

constexpr char kBatchOp[] = "fill_constant_batch_size_like";

class FillConstantBatchSizeLikeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "Tensor whose dim input_dim_idx gives the batch size (data not read).")
        .AsNoNeedBuffer();
    AddOutput("Out", "A tensor of `shape` with the batch dim taken from Input, filled.");
    AddAttr<std::vector<int>>("shape", "The output shape (dim output_dim_idx is replaced).");
    AddAttr<int>("dtype",
                 "Element type of Out as a VarType number (0 bool, 2 int32, 3 int64, 5 float32, "
                 "6 float64, 23 complex64, 24 complex128).")
        .SetDefault(static_cast<int>(DataType::FLOAT32))
        .InEnum({0, 2, 3, 5, 6, 23, 24});
    AddAttr<float>("value", "The fill value.").SetDefault(0.0f);
    AddAttr<std::string>("str_value", "The fill value as text; overrides `value` when set.")
        .SetDefault("");
    AddAttr<int>("input_dim_idx", "The dim of Input that gives the batch size.").SetDefault(0);
    AddAttr<int>("output_dim_idx", "The dim of Out that takes it.").SetDefault(0);
    AddAttr<bool>("force_cpu", "Keep Out on the CPU (the only place here).").SetDefault(false);
    AddComment(R"DOC(
FillConstantBatchSizeLike operator.

$$Out[i] = value, \quad Out.dims = shape \text{ with } shape[output\_dim\_idx] =
Input.dims[input\_dim\_idx]$$

The value is str_value when non-empty, else value, converted to dtype. Example: Input of
shape [5, 7], shape [-1, 3], value 1 -> Out [5, 3] of ones. Out takes Input's LoD when both
batch dims are 0. No gradient.
)DOC");
  }
};

class FillConstantBatchSizeLikeOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext&) const override {
    return static_cast<DataType>(Attr<int>("dtype"));
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void FillConstantBatchSizeLikeInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireOutput("Out");
  const DDim in = ctx->GetInputDim("Input");
  const std::vector<int>& shape = ctx->Attr<std::vector<int>>("shape");
  std::vector<int64_t> out(shape.begin(), shape.end());
  const int in_idx = ctx->Attr<int>("input_dim_idx");
  const int out_idx = ctx->Attr<int>("output_dim_idx");
  PL_ENFORCE(in_idx >= 0 && in_idx < in.size(),
             errors::InvalidArgument("op `%s` attribute `input_dim_idx`: expected a value in "
                                     "[0, %d) for Input of shape %s, received %d",
                                     ctx->OpType(), in.size(), in.ToString(), in_idx));
  PL_ENFORCE(out_idx >= 0 && out_idx < static_cast<int>(out.size()),
             errors::InvalidArgument("op `%s` attribute `output_dim_idx`: expected a value in "
                                     "[0, %zu) for shape %s, received %d",
                                     ctx->OpType(), out.size(), ListToString(out), out_idx));
  out[out_idx] = in[in_idx];
  CheckShapeValues(ctx->OpType(), "attribute `shape`", out, !ctx->IsRuntime());
  ctx->SetOutputDim("Out", DDim(out));
  if (in_idx == 0 && out_idx == 0) ctx->ShareLoD("Input", "Out");
}

template <typename T>
struct FillConstantBatchSizeLikeKernel {
  static void Compute(const ExecutionContext& ctx) {
    DenseTensor* out = ctx.Output("Out");
    const T value = ConvertFillValue<T>(ctx.Type(), GetFillValue(ctx));
    T* o = out->mutable_data<T>(ctx.GetPlace());
    std::fill(o, o + out->numel(), value);
  }
};

class EmptyOpMaker : public ShapeInputsOpMaker {
 public:
  void Make() override {
    AddShapeInputs();
    AddOutput("Out", "The new tensor.");
    AddAttr<std::vector<int64_t>>("shape", "Shape of Out (each dim >= 0 at run time).")
        .SetDefault({});
    AddAttr<int>("dtype",
                 "Element type as a VarType number: 0 bool, 2 int32, 3 int64, 5 float32, "
                 "6 float64, 23 complex64, 24 complex128 (the value is the real part).")
        .SetDefault(static_cast<int>(DataType::FLOAT32))
        .InEnum({0, 2, 3, 5, 6, 23, 24});
    AddComment(R"DOC(
Empty operator: a tensor of shape `shape` and dtype `dtype` whose values a program must not
rely on (paddle.empty). This kernel writes zeros, so runs stay reproducible:

$$Out[i] = 0$$

The shape comes from ShapeTensor, else ShapeTensorList, else the attribute shape. No gradient.
)DOC");
  }
};

template <typename T>
struct EmptyKernel {
  static void Compute(const ExecutionContext& ctx) {
    DenseTensor* out = ctx.Output("Out");
    if (ctx.HasInput("ShapeTensor") || ctx.HasInput("ShapeTensorList")) {
      out->Resize(ShapeFromInputs(ctx));
    }
    T* o = out->mutable_data<T>(ctx.GetPlace());
    std::fill(o, o + out->numel(), T(0));
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterFillConstantOp) {
  framework::RegisterOp<FillConstantOp, FillConstantOpMaker>(kOp)
      .InferShape(FillConstantInferShape)
      .InferVarType(FillConstantInferVarType)
      .Checkpoint("Upgrade fill_constant, add a new input [ValueTensor]",
                  framework::OpVersionDesc().NewInput("ValueTensor", "overrides `value`"))
      .Checkpoint("Upgrade fill_constant to add a new attribute [place_type]",
                  framework::OpVersionDesc().NewAttr("place_type", "place of Out", -1));
  RegisterPlainCpuKernels<FillConstantKernel, float, double, int32_t, int64_t, bool,
                          std::complex<float>, std::complex<double>>(kOp);
  framework::RegisterOp<FillConstantBatchSizeLikeOp, FillConstantBatchSizeLikeOpMaker>(kBatchOp)
      .InferShape(FillConstantBatchSizeLikeInferShape)
      .InferVarType(FillConstantInferVarType);
  RegisterPlainCpuKernels<FillConstantBatchSizeLikeKernel, float, double, int32_t, int64_t, bool,
                          std::complex<float>, std::complex<double>>(kBatchOp);
  // empty takes fill_constant's shape inputs and dtype rule.
  framework::RegisterOp<FillConstantOp, EmptyOpMaker>("empty")
      .InferShape(FillConstantInferShape)
      .InferVarType(FillConstantInferVarType);
  RegisterPlainCpuKernels<EmptyKernel, float, double, int32_t, int64_t, bool, std::complex<float>,
                          std::complex<double>>("empty");
}

}  // namespace operators
}  // namespace paddle_like

// isclose (elementwise) and allclose (all of them): whether two tensors of one shape agree
// within an absolute plus a relative tolerance, PaddlePaddle's test included: the tolerances
// are decimal strings (a float attribute would round them), or 1-element Rtol/Atol tensors.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "framework/data_transform.h"
#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

template <bool kAll>
class CloseOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "First operand (float or double).");
    AddInput("Other", "Second operand, of Input's shape and dtype.");
    AddInput("Rtol", "1-element float or double tensor overriding `rtol`.").AsDispensable();
    AddInput("Atol", "1-element float or double tensor overriding `atol`.").AsDispensable();
    AddOutput("Out", kAll ? "0-D bool: whether every element is close."
                          : "bool of Input's shape: whether each element is close.");
    AddAttr<std::string>("rtol", "Relative tolerance, a decimal number.").SetDefault("1e-5");
    AddAttr<std::string>("atol", "Absolute tolerance, a decimal number.").SetDefault("1e-8");
    AddAttr<bool>("equal_nan", "Count two NaNs as close.").SetDefault(false);
    AddComment(std::string(kAll ? "allclose: whether every element pair is close"
                                : "isclose: elementwise, whether a pair is close") +
               R"DOC(, with a = Input and b = Other:
$$|a - b| \le atol + rtol \cdot |b|$$
or a = b (equal infinities), or the two sides of the test within 1e-15 of each other (as
PaddlePaddle tests). A NaN is close to nothing, except to a NaN when equal_nan is set.
Not differentiable.
)DOC");
  }
};

class CloseOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Input");
  }
  // Rtol and Atol are read as they come.
  bool CastsInput(const std::string& slot, DataType, DataType) const override {
    return slot == "Input" || slot == "Other";
  }
};

template <bool kAll>
void CloseInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Other");
  ctx->RequireOutput("Out");
  const DDim a = ctx->GetInputDim("Input");
  const DDim b = ctx->GetInputDim("Other");
  bool same = a.size() == b.size();
  for (int i = 0; same && i < a.size(); ++i) {
    same = a[i] == b[i] || (!ctx->IsRuntime() && (a[i] < 0 || b[i] < 0));
  }
  PL_ENFORCE(same, errors::InvalidArgument("op `%s` inputs `Input` and `Other`: expected one "
                                           "shape, received %s and %s",
                                           ctx->OpType(), a.ToString(), b.ToString()));
  ctx->SetOutputDim("Out", kAll ? DDim() : a);
}

void CloseInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", DataType::BOOL);
}

// The tolerance from the tensor in `slot` when given, else from the decimal attribute.
double Tolerance(const ExecutionContext& ctx, const char* slot, const char* attr) {
  if (const DenseTensor* t = ctx.Input(slot)) {
    PL_ENFORCE(
        t->numel() == 1 && (t->dtype() == DataType::FLOAT32 || t->dtype() == DataType::FLOAT64),
        errors::InvalidArgument("op `%s` input `%s`: expected one float or double "
                                "element, received %s of shape %s",
                                ctx.Type(), slot, DataTypeName(t->dtype()), t->dims().ToString()));
    const DenseTensor host = framework::OnCpu(*t);
    return host.dtype() == DataType::FLOAT32 ? host.data<float>()[0] : host.data<double>()[0];
  }
  const std::string& text = ctx.Attr<std::string>(attr);
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  PL_ENFORCE(end != begin && *end == '\0' && errno == 0 && !std::isnan(v),
             errors::InvalidArgument("op `%s` attribute `%s`: expected a decimal number, "
                                     "received \"%s\"",
                                     ctx.Type(), attr, text));
  return v;
}

template <typename T>
bool Close(T a, T b, double rtol, double atol, bool equal_nan) {
  if (std::isnan(a) || std::isnan(b)) return equal_nan && std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  const T left = a > b ? a - b : b - a;
  const T right = static_cast<T>(atol + rtol * std::fabs(static_cast<double>(b)));
  const T diff = left > right ? left - right : right - left;
  return left <= right || diff <= static_cast<T>(1e-15);
}

template <bool kAll>
struct CloseKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* a_t = ctx.Input("Input");
      const DenseTensor* b_t = ctx.Input("Other");
      PL_ENFORCE(
          a_t->dims() == b_t->dims() && a_t->dtype() == b_t->dtype(),
          errors::InvalidArgument("op `%s` inputs `Input` and `Other`: expected one shape "
                                  "and dtype, received %s %s and %s %s",
                                  ctx.Type(), DataTypeName(a_t->dtype()), a_t->dims().ToString(),
                                  DataTypeName(b_t->dtype()), b_t->dims().ToString()));
      const double rtol = Tolerance(ctx, "Rtol", "rtol");
      const double atol = Tolerance(ctx, "Atol", "atol");
      const bool equal_nan = ctx.Attr<bool>("equal_nan");
      const T* a = a_t->data<T>();
      const T* b = b_t->data<T>();
      const int64_t n = a_t->numel();
      DenseTensor out(kAll ? DDim() : a_t->dims(), DataType::BOOL);
      bool* o = out.mutable_data<bool>(ctx.GetPlace());
      if (kAll) {
        bool all = true;
        for (int64_t i = 0; i < n && all; ++i) all = Close(a[i], b[i], rtol, atol, equal_nan);
        o[0] = all;
      } else {
        for (int64_t i = 0; i < n; ++i) o[i] = Close(a[i], b[i], rtol, atol, equal_nan);
      }
      *ctx.Output("Out") = std::move(out);
    }
  };
};

template <bool kAll>
framework::OpRegistrar RegisterClose(const std::string& type) {
  framework::OpRegistrar op = framework::RegisterOp<CloseOp, CloseOpMaker<kAll>>(type)
                                  .InferShape(CloseInferShape<kAll>)
                                  .InferVarType(CloseInferVarType)
                                  .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuKernels<CloseKernel<kAll>::template Kernel, float, double>(type);
  return op;
}

}  // namespace

PL_REGISTER_OPS(RegisterCloseOps) {
  RegisterClose<false>("isclose");
  RegisterClose<true>("allclose")
      .Checkpoint("Rtol and Atol inputs", framework::OpVersionDesc()
                                              .NewInput("Rtol", "1-element tensor overriding rtol")
                                              .NewInput("Atol", "1-element tensor overriding atol"))
      .Checkpoint(
          "rtol and atol became decimal strings (float attributes round them)",
          framework::OpVersionDesc()
              .ModifyAttr("rtol", "relative tolerance as a decimal string", std::string("1e-5"))
              .ModifyAttr("atol", "absolute tolerance as a decimal string", std::string("1e-8")));
}

}  // namespace operators
}  // namespace paddle_like

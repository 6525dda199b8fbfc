// cast: Out = X converted to another element type.
#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"
#include "platform/data_type_complex_visit.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "cast";

// bool, int32, int64, float16, float32, float64, uint8, int8, complex64, complex128 as
// VarType numbers.
const std::vector<int> kCastTypes = {0, 1, 2, 3, 4, 5, 6, 20, 21, 23, 24};

class CastOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Tensor to convert.");
    AddOutput("Out", "X converted to out_dtype, same shape and LoD.");
    AddAttr<int>("in_dtype",
                 "Element type of X as a VarType number (informational: the dtype X holds at "
                 "run time is what is converted).")
        .InEnum(kCastTypes);
    AddAttr<int>("out_dtype",
                 "Element type of Out as a VarType number: 0 bool, 1 int16, 2 int32, "
                 "3 int64, 4 float16, 5 float32, 6 float64, 20 uint8, 21 int8, 23 complex64, "
                 "24 complex128.")
        .InEnum(kCastTypes);
    AddComment(R"DOC(
Cast operator.

$$Out = \mathrm{cast}_{out\_dtype}(X)$$

Conversion to bool gives X != 0; floating to integer truncates toward zero (values outside
the target range are undefined, as in C++ and PaddlePaddle); float16 goes through float32.
Example: X = [1.7, -0.2, 0] (float32), out_dtype = 3 -> [1, 0, 0] (int64). A real value
becomes a complex one with imaginary part 0; a complex value becomes a real one by its real
part (as NumPy's astype), which the gradient mirrors: Re(dOut), or dOut + 0i.

Gradient (floating X and Out): $$dX = \mathrm{cast}_{in\_dtype}(dOut)$$
a cast op with in_dtype and out_dtype swapped, so it can be differentiated again. Integer
and bool tensors carry no gradient.
)DOC");
  }
};

class CastOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  // The kernel is chosen by the dtype X holds and converts it itself.
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void CastInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", static_cast<DataType>(ctx->Attr<int>("out_dtype")));
}

template <typename T>
constexpr bool kComplex =
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

template <typename To, typename From>
To CastValue(const From& v) {
  if constexpr (kComplex<From> && kComplex<To>) {
    return To(static_cast<typename To::value_type>(v.real()),
              static_cast<typename To::value_type>(v.imag()));
  } else if constexpr (kComplex<From>) {
    return ConvertElement<To>(v.real());
  } else if constexpr (kComplex<To>) {
    return To(ConvertElement<typename To::value_type>(v), 0);
  } else {
    return ConvertElement<To>(v);
  }
}

template <typename From>
struct CastKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    const auto to = static_cast<DataType>(ctx.Attr<int>("out_dtype"));
    // Reading X before Out is allocated keeps `cast X -> X` correct: mutable_data on a new
    // dtype gives the variable a new buffer while `in` still points at the old one.
    const DenseTensor input = *x;
    const From* in = input.data<From>();
    const int64_t n = input.numel();
    platform::VisitDataTypeOrComplex(to, [&](auto tag) {
      using To = decltype(tag);
      To* o = out->mutable_data<To>(ctx.GetPlace());
      ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
          n, 1 << 15, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) o[i] = CastValue<To>(in[i]);
          });
    });
  }
};

// dX = cast(dOut) back to X's element type. The builder asks for it only when X and Out
// are floating (other dtypes carry no gradient).
void CastGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const int in_dtype = g->Attr<int>("in_dtype");
  const int out_dtype = g->Attr<int>("out_dtype");
  g->AddOp(kOp, {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
           {{"in_dtype", out_dtype}, {"out_dtype", in_dtype}});
}

}  // namespace

PL_REGISTER_OPS(RegisterCastOp) {
  framework::RegisterOp<CastOp, CastOpMaker>(kOp)
      .InferShape(SameShapeInferShape)
      .InferVarType(CastInferVarType)
      .GradOpMaker(CastGradMaker);
  RegisterPlainCpuElementKernels<CastKernel>(kOp);
  RegisterPlainCpuKernels<CastKernel, platform::float16>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

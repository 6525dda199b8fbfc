// isnan_v2, isinf_v2 and isfinite_v2: elementwise tests of floating values (paddle.isnan,
// paddle.isinf, paddle.isfinite), bool outputs of X's shape. Integer inputs hold no NaN or
// infinity; a complex value is NaN or infinite when either part is (finite when both are).
// No gradient flows through them.
#include <cmath>
#include <complex>
#include <string>
#include <type_traits>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

template <typename T>
struct IsComplexValue : std::false_type {};
template <typename R>
struct IsComplexValue<std::complex<R>> : std::true_type {};

struct IsNan {
  static constexpr const char* kType = "isnan_v2";
  static constexpr const char* kFormula = "Out = (X \\ne X)";
  static constexpr const char* kWhat = "X is NaN";
  template <typename T>
  static bool Test(T v) {
    if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
    if constexpr (IsComplexValue<T>::value) return Test(v.real()) || Test(v.imag());
    return false;
  }
};
struct IsInf {
  static constexpr const char* kType = "isinf_v2";
  static constexpr const char* kFormula = "Out = (|X| = \\infty)";
  static constexpr const char* kWhat = "X is +inf or -inf";
  template <typename T>
  static bool Test(T v) {
    if constexpr (std::is_floating_point_v<T>) return std::isinf(v);
    if constexpr (IsComplexValue<T>::value) return Test(v.real()) || Test(v.imag());
    return false;
  }
};
struct IsFinite {
  static constexpr const char* kType = "isfinite_v2";
  static constexpr const char* kFormula = "Out = (|X| < \\infty)";
  static constexpr const char* kWhat = "X is neither NaN nor infinite";
  template <typename T>
  static bool Test(T v) {
    if constexpr (std::is_floating_point_v<T>) return std::isfinite(v);
    if constexpr (IsComplexValue<T>::value) return Test(v.real()) && Test(v.imag());
    return true;
  }
};

template <typename Tag>
class TestOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input of any shape (float, double, int32, int64, complex64, complex128).");
    AddOutput("Out", "bool, X's shape: where the test holds.");
    AddComment(std::string("Elementwise test `") + Tag::kType + "`: true where " + Tag::kWhat +
               ".\n\n$$" + Tag::kFormula + "$$\n\nNo gradient.\n");
  }
};

class TestOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void BoolOutVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", DataType::BOOL);
}

template <typename Tag>
struct TestKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x = ctx.Input("X");
      DenseTensor out(x->dims(), DataType::BOOL);
      bool* o = out.mutable_data<bool>(ctx.GetPlace());
      const T* in = x->data<T>();
      for (int64_t i = 0; i < x->numel(); ++i) o[i] = Tag::Test(in[i]);
      out.set_lod(x->lod());
      *ctx.Output("Out") = std::move(out);
    }
  };
};

template <typename Tag>
void RegisterTest() {
  framework::RegisterOp<TestOp, TestOpMaker<Tag>>(Tag::kType)
      .InferShape(SameShapeInferShape)
      .InferVarType(BoolOutVarType)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuKernels<TestKernel<Tag>::template Kernel, float, double, int32_t, int64_t,
                          std::complex<float>, std::complex<double>>(Tag::kType);
}

}  // namespace

PL_REGISTER_OPS(RegisterIsFiniteOps) {
  RegisterTest<IsNan>();
  RegisterTest<IsInf>();
  RegisterTest<IsFinite>();
}

}  // namespace operators
}  // namespace paddle_like

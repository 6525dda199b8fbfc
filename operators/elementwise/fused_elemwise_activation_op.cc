// fused_elemwise_activation: an elementwise add or multiply and an activation in one pass,
// as PaddlePaddle's fusion passes write them. The gradient is that of the two ops it fuses
// (framework/composite_grad.h), so it differentiates again where they do.
#include <cmath>
#include <string>
#include <vector>

#include "framework/composite_grad.h"
#include "operators/common.h"
#include "operators/elementwise/broadcast_binary.h"
#include "operators/math/broadcast.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "fused_elemwise_activation";

// Which two functions, in which nesting: Out = Binary(X, Unary(Y)) when the binary function
// comes first in functor_list, Out = Unary(Binary(X, Y)) when it comes second.
struct Compound {
  std::string binary;  // elementwise_add or elementwise_mul.
  std::string unary;   // scale, relu, tanh, sigmoid or gelu.
  bool unary_outer = false;
};

bool IsBinary(const std::string& f) { return f == "elementwise_add" || f == "elementwise_mul"; }
bool IsUnary(const std::string& f) {
  return f == "scale" || f == "relu" || f == "tanh" || f == "sigmoid" || f == "gelu";
}

Compound ParseCompound(const std::string& op, const std::vector<std::string>& functors) {
  auto joined = [&] {
    std::string s;
    for (const auto& f : functors) s += (s.empty() ? "" : ", ") + f;
    return "[" + s + "]";
  };
  const bool ok = functors.size() == 2 && ((IsBinary(functors[0]) && IsUnary(functors[1])) ||
                                           (IsUnary(functors[0]) && IsBinary(functors[1])));
  PL_ENFORCE(ok, errors::InvalidArgument(
                     "op `%s` attribute `functor_list`: expected two functions, one of "
                     "elementwise_add, elementwise_mul and one of scale, relu, tanh, sigmoid, "
                     "gelu, received %s",
                     op, joined()));
  Compound c;
  c.unary_outer = IsBinary(functors[1]);
  c.binary = c.unary_outer ? functors[1] : functors[0];
  c.unary = c.unary_outer ? functors[0] : functors[1];
  return c;
}

class FusedElemwiseActivationOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The first operand.");
    AddInput("Y", "The second operand, broadcast against X by the elementwise `axis` rule.");
    AddOutput("Out", "The result, of the broadcast shape of X and Y.");
    AddOutput("IntermediateOut",
              "The inner function's result: Unary(Y) (Y's shape) or Binary(X, Y) (Out's shape).")
        .AsDispensable();
    AddAttr<std::vector<std::string>>(
        "functor_list",
        "Two functions, outer first: one of elementwise_add, elementwise_mul and one of scale, "
        "relu, tanh, sigmoid, gelu.");
    AddAttr<int>("axis", "Where Y's dims start in X's (-1: aligned at the end).").SetDefault(-1);
    AddAttr<float>("scale", "The factor of the `scale` function.").SetDefault(0.0f);
    AddAttr<bool>("save_intermediate_out", "Keep IntermediateOut for the gradient.")
        .SetDefault(false);
    AddComment(R"DOC(
An elementwise binary function B (elementwise_add, elementwise_mul) and a unary function U
(scale: s x with s = `scale`; relu; tanh; sigmoid; gelu in its tanh approximation) in one
pass. With functor_list = [B, U]:
$$Out = B(X, U(Y)), \qquad IntermediateOut = U(Y)$$
and with functor_list = [U, B]:
$$Out = U(B(X, Y)), \qquad IntermediateOut = B(X, Y)$$
where
$$\mathrm{gelu}(x) = \frac{x}{2} \left(1 + \tanh\left(\sqrt{2/\pi} \, (x + 0.044715 x^3)\right)\right)$$
IntermediateOut is written whenever the program names it. Gradient: that of the two ops
it fuses (elementwise_add or elementwise_mul with the same axis, and scale, relu, tanh,
sigmoid or gelu with approximate = true), so it differentiates again.
)DOC");
  }
};

class FusedElemwiseActivationOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void FusedElemwiseActivationInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  const Compound c =
      ParseCompound(ctx->OpType(), ctx->Attr<std::vector<std::string>>("functor_list"));
  const DDim x = ctx->GetInputDim("X"), y = ctx->GetInputDim("Y");
  const DDim out = math::ComputeBroadcastDims(ctx->OpType(), x, y, ctx->Attr<int>("axis")).out;
  ctx->SetOutputDim("Out", out);
  ctx->ShareLoD("X", "Out");
  if (ctx->HasOutput("IntermediateOut")) {
    ctx->SetOutputDim("IntermediateOut", c.unary_outer ? out : y);
  }
}

// The unary function, resolved from its name once per run, not per element.
template <typename T>
struct UnaryFunction {
  enum Kind { kScale, kRelu, kTanh, kSigmoid, kGelu };
  UnaryFunction(const std::string& name, T s)
      : kind(name == "scale"     ? kScale
             : name == "relu"    ? kRelu
             : name == "tanh"    ? kTanh
             : name == "sigmoid" ? kSigmoid
                                 : kGelu),
        scale(s) {}
  T operator()(T v) const {
    switch (kind) {
      case kScale:
        return v * scale;
      case kRelu:
        return v > T(0) ? v : T(0);
      case kTanh:
        return std::tanh(v);
      case kSigmoid:
        return T(1) / (T(1) + std::exp(-v));
      default: {                                             // gelu, tanh approximation.
        const T k = static_cast<T>(0.79788456080286535588);  // sqrt(2 / pi)
        return T(0.5) * v * (T(1) + std::tanh(k * (v + static_cast<T>(0.044715) * v * v * v)));
      }
    }
  }
  Kind kind;
  T scale;
};

// out = f(x, y) over the broadcast shape of x's and y's dims.
template <typename T, typename F>
void BroadcastApply(const ExecutionContext& ctx, int axis, const F& f, const DenseTensor& x,
                    const DenseTensor& y, DenseTensor* out) {
  const math::BroadcastDims dims = math::ComputeBroadcastDims(ctx.Type(), x.dims(), y.dims(), axis);
  const math::BroadcastPlan plan = math::MakeBroadcastPlan(dims);
  DenseTensor result(dims.out, x.dtype());
  T* o = result.mutable_data<T>(ctx.GetPlace());
  const T* xp = plan.numel > 0 ? x.data<T>() : nullptr;
  const T* yp = plan.numel > 0 ? y.data<T>() : nullptr;
  RunBroadcastBinary(ctx.device_context<platform::CPUDeviceContext>(), plan, f, xp, yp, o);
  *out = std::move(result);
}

template <typename T>
DenseTensor ApplyUnary(const ExecutionContext& ctx, const UnaryFunction<T>& u,
                       const DenseTensor& in) {
  DenseTensor out(in.dims(), in.dtype());
  T* o = out.mutable_data<T>(ctx.GetPlace());
  const int64_t n = in.numel();
  if (n > 0) {
    const T* v = in.data<T>();
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n, 1 << 14, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) o[i] = u(v[i]);
        });
  }
  return out;
}

template <typename T>
struct FusedElemwiseActivationKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    CheckDataType<T>(ctx, "X", *x);
    CheckDataType<T>(ctx, "Y", *y);
    const Compound c =
        ParseCompound(ctx.Type(), ctx.Attr<std::vector<std::string>>("functor_list"));
    const UnaryFunction<T> unary(c.unary, static_cast<T>(ctx.Attr<float>("scale")));
    const int axis = ctx.Attr<int>("axis");
    const bool add = c.binary == "elementwise_add";
    auto binary = [&](const DenseTensor& a, const DenseTensor& b, DenseTensor* out) {
      if (add) {
        BroadcastApply<T>(
            ctx, axis, [](T p, T q) { return p + q; }, a, b, out);
      } else {
        BroadcastApply<T>(
            ctx, axis, [](T p, T q) { return p * q; }, a, b, out);
      }
    };
    DenseTensor intermediate, out;
    if (c.unary_outer) {
      binary(*x, *y, &intermediate);
      out = ApplyUnary(ctx, unary, intermediate);
    } else {
      intermediate = ApplyUnary(ctx, unary, *y);
      binary(*x, intermediate, &out);
    }
    *ctx.Output("Out") = std::move(out);
    if (DenseTensor* saved = ctx.Output("IntermediateOut")) *saved = std::move(intermediate);
  }
};

// The two ops it fuses, through an intermediate `t`: Out = B(X, U(Y)) or U(B(X, Y)).
void FusedElemwiseActivationGradMaker(framework::GradOpBuilder* g) {
  const Compound c = ParseCompound(kOp, g->Attr<std::vector<std::string>>("functor_list"));
  const std::string t = "fused_elemwise_activation@inner";
  auto unary = [&](const std::vector<std::string>& in, const std::vector<std::string>& out) {
    framework::AttributeMap attrs;
    if (c.unary == "scale") {
      attrs = {{"scale", g->Attr<float>("scale")}, {"bias", 0.0f}, {"bias_after_scale", true}};
    } else if (c.unary == "gelu") {
      attrs = {{"approximate", true}};
    }
    return framework::OpDesc(c.unary, {{"X", in}}, {{"Out", out}}, attrs);
  };
  auto binary = [&](const std::vector<std::string>& a, const std::vector<std::string>& b,
                    const std::vector<std::string>& out) {
    return framework::OpDesc(c.binary, {{"X", a}, {"Y", b}}, {{"Out", out}},
                             {{"axis", g->Attr<int>("axis")}});
  };
  if (c.unary_outer) {
    framework::AppendCompositeGrad(
        g, {binary(g->Input("X"), g->Input("Y"), {t}), unary({t}, g->Output("Out"))});
  } else {
    framework::AppendCompositeGrad(
        g, {unary(g->Input("Y"), {t}), binary(g->Input("X"), {t}, g->Output("Out"))});
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterFusedElemwiseActivationOp) {
  framework::RegisterOp<FusedElemwiseActivationOp, FusedElemwiseActivationOpMaker>(kOp)
      .InferShape(FusedElemwiseActivationInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        OutputDataTypeOf("X", "Out")(ctx);
        if (ctx->HasOutput("IntermediateOut")) OutputDataTypeOf("X", "IntermediateOut")(ctx);
      })
      .GradOpMaker(FusedElemwiseActivationGradMaker);
  RegisterPlainCpuFloatKernels<FusedElemwiseActivationKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

// copysign and elementwise_heaviside: binary elementwise ops with NumPy broadcasting whose
// results are pieces of their operands' signs (paddle.copysign, paddle.heaviside). Their
// gradients are written with differentiable ops (reduce_as sums each back to its input's
// shape).
#include <cmath>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/elementwise/broadcast_binary.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class CopysignOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("x", "The magnitudes.");
    AddInput("y", "The signs, x's dtype; broadcast against x.");
    AddOutput("out", "The broadcast shape of x and y, x's dtype.");
    AddComment(R"DOC(
Copysign operator, elementwise with NumPy broadcasting:

$$out = |x| \cdot \operatorname{sgn}(y), \quad \operatorname{sgn}(y) = -1 \text{ if the sign bit
of } y \text{ is set, else } 1$$

so y = -0.0 gives a negative result. Integer inputs are computed in double and converted
back. Example: x = [1, -2, 3], y = [-1, 1, -0.0] -> [-1, 2, -3].

Gradient (written with differentiable ops): dx = dout * sign(x) * copysign(sign(x), y), which is
dout * sgn(x) sgn(y) where x != 0 and 0 where x = 0; dy = 0.
)DOC");
  }
};

class HeavisideOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The step's argument.");
    AddInput("Y", "The values where X = 0, X's dtype; broadcast against X.");
    AddOutput("Out", "The broadcast shape of X and Y, X's dtype.");
    AddComment(R"DOC(
Heaviside step function, elementwise with NumPy broadcasting:

$$Out = \begin{cases} 0 & X < 0 \\ Y & X = 0 \\ 1 & X > 0 \end{cases}$$

(NaN in X gives 0). Example: X = [-1, 0, 2], Y = [0.5] -> [0, 0.5, 1].

Gradient (written with differentiable ops): dX = 0, dY = dOut where X = 0 and 0 elsewhere,
summed over the dims where Y was broadcast.
)DOC");
  }
};

class SignStepOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

BinarySlots CopysignSlots() { return BinarySlots{"x", "y", "out"}; }

// Out's dims: the broadcast of the two operands (trailing dims aligned).
template <bool kLowerCase>
void BroadcastInferShape(InferShapeContext* ctx) {
  BroadcastBinaryInferShape(ctx, -1, kLowerCase ? CopysignSlots() : BinarySlots());
}

template <typename T>
T Copysign(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(std::copysign(static_cast<double>(x), static_cast<double>(y)));
  } else {
    return std::copysign(x, y);
  }
}

template <typename T>
struct CopysignKernel {
  static void Compute(const ExecutionContext& ctx) {
    ComputeBroadcastBinary<T, T>(
        ctx, -1, [](T x, T y) { return Copysign(x, y); }, [](const T*, int64_t) {},
        CopysignSlots());
  }
};

template <typename T>
struct HeavisideKernel {
  static void Compute(const ExecutionContext& ctx) {
    ComputeBroadcastBinary<T, T>(ctx, -1,
                                 [](T x, T y) { return x == T(0) ? y : static_cast<T>(x > T(0)); });
  }
};

using Names = std::vector<std::string>;

// Appends `v` summed back to the shape of input `slot` as that input's gradient.
void ReduceTo(framework::GradOpBuilder* g, const Names& v, const std::string& slot) {
  g->AddOp("reduce_as", {{"X", v}, {"Target", g->Input(slot)}}, {{"Out", g->InputGrad(slot)}},
           {{"axis", -1}});
}

void ZeroGrad(framework::GradOpBuilder* g, const std::string& slot) {
  g->AddOp("fill_zeros_like", {{"X", g->Input(slot)}}, {{"Out", g->InputGrad(slot)}});
}

void Multiply(framework::GradOpBuilder* g, const Names& a, const Names& b, const Names& out) {
  g->AddOp("elementwise_mul", {{"X", a}, {"Y", b}}, {{"Out", out}}, {{"axis", -1}});
}

void CopysignGradMaker(framework::GradOpBuilder* g) {
  if (g->WantsInputGrad("y")) ZeroGrad(g, "y");
  if (!g->WantsInputGrad("x")) return;
  const Names sign{g->NewTemp("sign_x")}, signed_one{g->NewTemp("sign_x_with_sign_y")};
  const Names factor{g->NewTemp("copysign_factor")}, prod{g->NewTemp("dout_factor")};
  g->AddOp("sign", {{"X", g->Input("x")}}, {{"Out", sign}});
  g->AddOp("copysign", {{"x", sign}, {"y", g->Input("y")}}, {{"out", signed_one}});
  Multiply(g, sign, signed_one, factor);
  Multiply(g, g->OutputGrad("out"), factor, prod);
  ReduceTo(g, prod, "x");
}

void HeavisideGradMaker(framework::GradOpBuilder* g) {
  if (g->WantsInputGrad("X")) ZeroGrad(g, "X");
  if (!g->WantsInputGrad("Y")) return;
  const Names sign{g->NewTemp("sign_x")}, nonzero{g->NewTemp("x_nonzero")};
  const Names at_zero{g->NewTemp("x_is_zero")}, prod{g->NewTemp("dout_at_zero")};
  g->AddOp("sign", {{"X", g->Input("X")}}, {{"Out", sign}});
  g->AddOp("abs", {{"X", sign}}, {{"Out", nonzero}});
  g->AddOp("scale", {{"X", nonzero}}, {{"Out", at_zero}},
           {{"scale", -1.0f}, {"bias", 1.0f}, {"bias_after_scale", true}});
  Multiply(g, g->OutputGrad("Out"), at_zero, prod);
  ReduceTo(g, prod, "Y");
}

}  // namespace

PL_REGISTER_OPS(RegisterCopysignHeavisideOps) {
  framework::RegisterOp<SignStepOp, CopysignOpMaker>("copysign")
      .InferShape(BroadcastInferShape<true>)
      .InferVarType(OutputDataTypeOf("x", "out"))
      .GradOpMaker(CopysignGradMaker);
  RegisterPlainCpuNumericKernels<CopysignKernel>("copysign");
  framework::RegisterOp<SignStepOp, HeavisideOpMaker>("elementwise_heaviside")
      .InferShape(BroadcastInferShape<false>)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(HeavisideGradMaker);
  RegisterPlainCpuNumericKernels<HeavisideKernel>("elementwise_heaviside");
}

}  // namespace operators
}  // namespace paddle_like

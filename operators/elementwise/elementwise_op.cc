// Binary elementwise ops with broadcasting (elementwise_add, _sub, _mul, _div, _pow, _max,
// _min, _fmax, _fmin, _mod, _floordiv), for float, double, int32 and int64: one op class, one maker
// template and one kernel template, instantiated per tag of elementwise_op.h.
#include "operators/elementwise/elementwise_op.h"

#include <string>
#include <type_traits>

#include "framework/grad_forward_vars.h"
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/elementwise/broadcast_binary.h"
#include "operators/math/broadcast.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr const char kBroadcastDoc[] = R"DOC(
applied elementwise with broadcasting:
- If X and Y have the same shape, Out has that shape.
- Otherwise the input of lower rank (Y for equal ranks) is aligned to the other one
  starting at dim `axis` (axis = -1: the difference of the ranks, i.e. right alignment as
  in NumPy). Trailing size-1 dims of the aligned input are dropped when they would run
  past the end.
- Aligned dims must be equal or one of them 1; dims of size 1 broadcast on either side.
  Out has the broadcast shape and the LoD of X.

Examples (X shape, Y shape, axis -> Out shape):
  [2, 3, 4, 5], [5],       -1 -> [2, 3, 4, 5]
  [2, 3, 4, 5], [3, 4],     1 -> [2, 3, 4, 5]
  [2, 3, 4, 5], [3, 1],     1 -> [2, 3, 4, 5]
  [2, 3, 4, 5], [2, 1],     0 -> [2, 3, 4, 5]
  [2, 3],       [3, 1],     1 -> [2, 3]
  [2, 1, 4],    [3, 1],    -1 -> [2, 3, 4]
  [3],          [2, 3],    -1 -> [2, 3]
)DOC";

constexpr const char kGradDoc[] = R"DOC(
reduce_as sums a gradient of Out's shape back to the shape of X or Y, over the dims where
that input was broadcast (it aligns the input inside Out with this op's `axis` rule). The
backward ops are these forward ops (elementwise ops, reduce_as, scale), so applying the
backward pass again gives higher-order gradients.
)DOC";

template <typename Tag>
class ElementwiseOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The first operand.");
    AddInput("Y", "The second operand, same dtype as X.");
    AddOutput("Out", "The broadcast result, dtype of X.");
    AddAttr<int>("axis",
                 "Dim of the higher-rank input where the lower-rank input starts; -1 aligns "
                 "the trailing dims.")
        .SetDefault(-1);
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddAttr<std::string>("x_data_format", "Layout of X for oneDNN kernels (unused here).")
        .SetDefault("")
        .AsExtra();
    AddAttr<std::string>("y_data_format", "Layout of Y for oneDNN kernels (unused here).")
        .SetDefault("")
        .AsExtra();
    AddAttr<float>("Scale_x", "Quantization scale of X (int8 kernels only).")
        .SetDefault(1.0f)
        .AsExtra();
    AddAttr<float>("Scale_y", "Quantization scale of Y (int8 kernels only).")
        .SetDefault(1.0f)
        .AsExtra();
    AddAttr<float>("Scale_out", "Quantization scale of Out (int8 kernels only).")
        .SetDefault(1.0f)
        .AsExtra();
    const std::string grad = Tag::kGradFormula[0] == '\0'
                                 ? std::string("\nNo gradient (piecewise constant).\n")
                                 : "\nGradients:\n$$" + std::string(Tag::kGradFormula) +
                                       "$$\n" + kGradDoc;
    AddComment(std::string("Elementwise operator `") + Tag::kType + "`.\n\n$$" + Tag::kFormula +
               "$$\n" + kBroadcastDoc + grad);
  }
};

class ElementwiseOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void ElementwiseInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  const math::BroadcastDims dims = math::ComputeBroadcastDims(
      ctx->OpType(), ctx->GetInputDim("X"), ctx->GetInputDim("Y"),
      ctx->Attr<int>("axis"));
  ctx->SetOutputDim("Out", dims.out);
  ctx->ShareLoD("X", "Out");
}

// Integer division by zero is undefined behaviour: an error instead.
template <typename T>
void CheckNoZeroDivisor(const ExecutionContext& ctx, const T* y, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    PL_ENFORCE(y[k] != T(0),
               errors::InvalidArgument("op `%s` input `Y`: expected no zero in an integer "
                                       "divisor, received 0 at flat index %d",
                                       ctx.Type(), static_cast<long long>(k)));
  }
}

template <typename Tag>
struct ElementwiseCpuKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const typename Tag::template Functor<T> f{};
      const int axis = ctx.Attr<int>("axis");
      if constexpr (kDividesByY<Tag> && std::is_integral_v<T>) {
        ComputeBroadcastBinary<T, T>(
            ctx, axis, f, [&](const T* y, int64_t n) { CheckNoZeroDivisor(ctx, y, n); });
      } else {
        ComputeBroadcastBinary<T, T>(ctx, axis, f);
      }
    }
  };
};

// ---------------------------------------------------------------- gradients

using framework::GradOpBuilder;

using framework::ConjugatedIfComplex;
using framework::FindForwardVar;

// How X and Y sit inside an Out-shaped tensor: the `axis` to give reduce_as (and the
// elementwise ops that multiply an Out-shaped gradient by one input) for each side. The
// input of Out's rank needs no alignment (-1); the other one keeps the forward axis. With
// axis = -1 both sides are right-aligned, whatever the ranks.
struct SideAxes {
  int x = -1;
  int y = -1;
};

SideAxes GradAxes(const GradOpBuilder& g) {
  const int axis = g.Forward().HasAttr("axis") ? g.Attr<int>("axis") : -1;
  if (axis == -1) return {};
  // The forward rule: Y is aligned inside X unless X has the lower rank. Undeclared ranks
  // are taken as the usual case, X the full shape.
  const framework::VarDesc* x = FindForwardVar(g, g.Input("X")[0]);
  const framework::VarDesc* y = FindForwardVar(g, g.Input("Y")[0]);
  const bool x_is_big =
      x == nullptr || y == nullptr || x->GetShape().size() >= y->GetShape().size();
  return x_is_big ? SideAxes{-1, axis} : SideAxes{axis, -1};
}

// Whether `var`'s declared shape reads as Out's, unknown dims matching unknown ones: a guess
// that orders grad ops, never one that decides what they compute.
bool DeclaredLikeOut(const GradOpBuilder& g, const std::string& var) {
  const framework::VarDesc* v = FindForwardVar(g, var);
  const framework::VarDesc* out = FindForwardVar(g, g.Output("Out")[0]);
  return v != nullptr && out != nullptr && v->GetShape() == out->GetShape();
}

// Whether `var` is known at build time to have Out's shape (so nothing needs summing).
bool HasOutShape(const GradOpBuilder& g, const std::string& var) {
  return DeclaredLikeOut(g, var) && !DDim(FindForwardVar(g, var)->GetShape()).HasUnknown();
}

// The gradient of one input: reduce_as of an Out-shaped value to that input's shape.
class SideGrad {
 public:
  SideGrad(GradOpBuilder* g, const std::string& slot, int axis)
      : g_(g), slot_(slot), axis_(axis), grad_(g->InputGrad(slot)[0]) {}

  bool wanted() const { return grad_ != framework::kEmptyVarName; }
  const std::string& grad() const { return grad_; }
  // Where to write the Out-shaped value: the gradient itself when the input is known to
  // have Out's shape (Reduce then emits nothing), else a new temporary.
  std::string ValueName() {
    direct_ = HasOutShape(*g_, g_->Input(slot_)[0]);
    return direct_ ? grad_ : g_->NewTemp(slot_ + "_full");
  }
  // Emits `out` (default: the gradient) = reduce_as(value, input), unless ValueName said
  // the value is the gradient already.
  void Reduce(const std::string& value, const std::string& out = "") {
    if (direct_) return;
    g_->AddOp("reduce_as", {{"X", {value}}, {"Target", g_->Input(slot_)}},
              {{"Out", {out.empty() ? grad_ : out}}}, {{"axis", axis_}});
  }

 private:
  GradOpBuilder* g_;
  std::string slot_;
  int axis_;
  std::string grad_;
  bool direct_ = false;
};

void AddNegate(GradOpBuilder* g, const std::string& in, const std::string& out) {
  g->AddOp("scale", {{"X", {in}}}, {{"Out", {out}}},
           {{"scale", -1.0f}, {"bias", 0.0f}, {"bias_after_scale", true}});
}

// dX = reduce_as(dOut, X), dY = +-reduce_as(dOut, Y). reduce_as is a copy for equal
// shapes, and dOut itself cannot be handed on as the gradient. The input declared with Out's
// shape (a bias add's X) gets its gradient last: as dOut's last reader, its reduce_as may
// write over dOut where dOut dies there, instead of copying it.
void AddSubGradMaker(GradOpBuilder* g, bool negate_y) {
  const std::string dout = g->OutputGrad("Out")[0];
  const SideAxes axes = GradAxes(*g);
  SideGrad dx(g, "X", axes.x);
  SideGrad dy(g, "Y", axes.y);
  const auto emit_x = [&] {
    if (dx.wanted()) dx.Reduce(dout);
  };
  const auto emit_y = [&] {
    if (!dy.wanted()) return;
    if (!negate_y) {
      dy.Reduce(dout);
      return;
    }
    const std::string sum = g->NewTemp("y_sum");
    dy.Reduce(dout, sum);
    AddNegate(g, sum, dy.grad());
  };
  if (DeclaredLikeOut(*g, g->Input("X")[0])) {
    emit_y();
    emit_x();
  } else {
    emit_x();
    emit_y();
  }
}

// dX = reduce_as(dOut * conj(Y), X), dY = reduce_as(dOut * conj(X), Y) (conj: identity on
// real values).
void MulGradMaker(GradOpBuilder* g) {
  const std::string dout = g->OutputGrad("Out")[0];
  const SideAxes axes = GradAxes(*g);
  SideGrad dx(g, "X", axes.x);
  SideGrad dy(g, "Y", axes.y);
  if (dx.wanted()) {
    const std::string v = dx.ValueName();
    g->AddOp("elementwise_mul", {{"X", {dout}}, {"Y", {ConjugatedIfComplex(g, g->Input("Y")[0])}}},
             {{"Out", {v}}}, {{"axis", axes.y}});
    dx.Reduce(v);
  }
  if (dy.wanted()) {
    const std::string v = dy.ValueName();
    g->AddOp("elementwise_mul", {{"X", {dout}}, {"Y", {ConjugatedIfComplex(g, g->Input("X")[0])}}},
             {{"Out", {v}}}, {{"axis", axes.x}});
    dy.Reduce(v);
  }
}

// dX = reduce_as(dOut / conj(Y), X), dY = -reduce_as((dOut * conj(Out)) / conj(Y), Y).
void DivGradMaker(GradOpBuilder* g) {
  const std::string dout = g->OutputGrad("Out")[0];
  const SideAxes axes = GradAxes(*g);
  SideGrad dx(g, "X", axes.x);
  SideGrad dy(g, "Y", axes.y);
  if (!dx.wanted() && !dy.wanted()) return;
  const std::string y = ConjugatedIfComplex(g, g->Input("Y")[0]);
  if (dx.wanted()) {
    const std::string v = dx.ValueName();
    g->AddOp("elementwise_div", {{"X", {dout}}, {"Y", {y}}}, {{"Out", {v}}}, {{"axis", axes.y}});
    dx.Reduce(v);
  }
  if (dy.wanted()) {
    const std::string prod = g->NewTemp("dout_out");
    g->AddOp("elementwise_mul",
             {{"X", {dout}}, {"Y", {ConjugatedIfComplex(g, g->Output("Out")[0])}}},
             {{"Out", {prod}}}, {{"axis", -1}});
    const std::string quot = g->NewTemp("dout_out_y");
    g->AddOp("elementwise_div", {{"X", {prod}}, {"Y", {y}}}, {{"Out", {quot}}}, {{"axis", axes.y}});
    // The sum goes to a temporary (or is skipped): the negation writes the gradient.
    const bool same_shape = HasOutShape(*g, g->Input("Y")[0]);
    const std::string sum = same_shape ? quot : g->NewTemp("y_sum");
    if (!same_shape) dy.Reduce(quot, sum);
    AddNegate(g, sum, dy.grad());
  }
}

// max and min: a 0/1 mask of where X wins, as sign(relu(+-(X - Y))) on Out's shape;
// dX = reduce_as(dOut * mask, X), dY = reduce_as(dOut - dOut * mask, Y). Ties go to Y, as in
// PaddlePaddle.
void MaxMinGradMaker(GradOpBuilder* g, bool max) {
  const std::string dout = g->OutputGrad("Out")[0];
  const SideAxes axes = GradAxes(*g);
  SideGrad dx(g, "X", axes.x);
  SideGrad dy(g, "Y", axes.y);
  if (!dx.wanted() && !dy.wanted()) return;
  const int axis = g->Forward().HasAttr("axis") ? g->Attr<int>("axis") : -1;
  const std::string diff = g->NewTemp("x_minus_y");
  g->AddOp("elementwise_sub", {{"X", g->Input("X")}, {"Y", g->Input("Y")}}, {{"Out", {diff}}},
           {{"axis", axis}});
  std::string signed_diff = diff;
  if (!max) {
    signed_diff = g->NewTemp("y_minus_x");
    AddNegate(g, diff, signed_diff);
  }
  const std::string positive = g->NewTemp("positive_part");
  g->AddOp("relu", {{"X", {signed_diff}}}, {{"Out", {positive}}});
  const std::string mask = g->NewTemp("x_wins");
  g->AddOp("sign", {{"X", {positive}}}, {{"Out", {mask}}});
  const std::string x_part = g->NewTemp("dout_x_wins");
  g->AddOp("elementwise_mul", {{"X", {dout}}, {"Y", {mask}}}, {{"Out", {x_part}}},
           {{"axis", -1}});
  if (dx.wanted()) dx.Reduce(x_part);
  if (dy.wanted()) {
    const std::string v = dy.ValueName();
    g->AddOp("elementwise_sub", {{"X", {dout}}, {"Y", {x_part}}}, {{"Out", {v}}},
             {{"axis", -1}});
    dy.Reduce(v);
  }
}

// fmax and fmin: X wins where X >= Out (fmin: X <= Out) or Out is NaN, that is where X is the
// larger (smaller) one or ties, or where Y is NaN (PaddlePaddle's rule). The mask is that
// test cast to X's dtype; dX = reduce_as(dOut * mask, X), dY = reduce_as(dOut - dOut * mask, Y).
void FMaxFMinGradMaker(GradOpBuilder* g, bool max) {
  const std::string dout = g->OutputGrad("Out")[0];
  const SideAxes axes = GradAxes(*g);
  SideGrad dx(g, "X", axes.x);
  SideGrad dy(g, "Y", axes.y);
  if (!dx.wanted() && !dy.wanted()) return;
  const std::string compared = g->NewTemp("x_reaches_out");
  const std::string wins = g->NewTemp("x_wins");
  g->AddOp(max ? "greater_equal" : "less_equal", {{"X", g->Input("X")}, {"Y", g->Output("Out")}},
           {{"Out", {compared}}}, {{"axis", axes.x}});
  const std::string out_nan = g->NewTemp("out_is_nan");
  g->AddOp("not_equal", {{"X", g->Output("Out")}, {"Y", g->Output("Out")}}, {{"Out", {out_nan}}});
  g->AddOp("logical_or", {{"X", {compared}}, {"Y", {out_nan}}}, {{"Out", {wins}}});
  const framework::VarDesc* xv = FindForwardVar(*g, g->Input("X")[0]);
  DataType dtype = xv == nullptr ? DataType::FLOAT32 : xv->GetDataType();
  if (!platform::IsFloatingPoint(dtype)) dtype = DataType::FLOAT32;
  const std::string mask = g->NewTemp("x_wins_mask");
  g->AddOp(
      "cast", {{"X", {wins}}}, {{"Out", {mask}}},
      {{"in_dtype", static_cast<int>(DataType::BOOL)}, {"out_dtype", static_cast<int>(dtype)}});
  const std::string x_part = g->NewTemp("dout_x_wins");
  g->AddOp("elementwise_mul", {{"X", {dout}}, {"Y", {mask}}}, {{"Out", {x_part}}}, {{"axis", -1}});
  if (dx.wanted()) dx.Reduce(x_part);
  if (dy.wanted()) {
    const std::string v = dy.ValueName();
    g->AddOp("elementwise_sub", {{"X", {dout}}, {"Y", {x_part}}}, {{"Out", {v}}}, {{"axis", -1}});
    dy.Reduce(v);
  }
}

// dX = reduce_as(dOut * Y * X^(Y - 1), X), dY = reduce_as(dOut * Out * log(X), Y).
void PowGradMaker(GradOpBuilder* g) {
  const std::string dout = g->OutputGrad("Out")[0];
  const SideAxes axes = GradAxes(*g);
  SideGrad dx(g, "X", axes.x);
  SideGrad dy(g, "Y", axes.y);
  const int axis = g->Forward().HasAttr("axis") ? g->Attr<int>("axis") : -1;
  if (dx.wanted()) {
    const std::string y_minus_1 = g->NewTemp("y_minus_1");
    g->AddOp("scale", {{"X", g->Input("Y")}}, {{"Out", {y_minus_1}}},
             {{"scale", 1.0f}, {"bias", -1.0f}, {"bias_after_scale", true}});
    const std::string power = g->NewTemp("x_pow_y_minus_1");
    g->AddOp("elementwise_pow", {{"X", g->Input("X")}, {"Y", {y_minus_1}}},
             {{"Out", {power}}}, {{"axis", axis}});
    const std::string slope = g->NewTemp("slope_x");
    g->AddOp("elementwise_mul", {{"X", {power}}, {"Y", g->Input("Y")}}, {{"Out", {slope}}},
             {{"axis", axes.y}});
    const std::string v = dx.ValueName();
    g->AddOp("elementwise_mul", {{"X", {dout}}, {"Y", {slope}}}, {{"Out", {v}}}, {{"axis", -1}});
    dx.Reduce(v);
  }
  if (dy.wanted()) {
    const std::string log_x = g->NewTemp("log_x");
    g->AddOp("log", {{"X", g->Input("X")}}, {{"Out", {log_x}}});
    const std::string slope = g->NewTemp("slope_y");
    g->AddOp("elementwise_mul", {{"X", g->Output("Out")}, {"Y", {log_x}}}, {{"Out", {slope}}},
             {{"axis", axes.x}});
    const std::string v = dy.ValueName();
    g->AddOp("elementwise_mul", {{"X", {dout}}, {"Y", {slope}}}, {{"Out", {v}}}, {{"axis", -1}});
    dy.Reduce(v);
  }
}

// nullptr for the piecewise-constant ops (mod, floordiv), which have no gradient.
template <typename Tag>
framework::GradOpMakerFn ElementwiseGradMaker() {
  if constexpr (std::is_same_v<Tag, ElementwiseAddTag>) {
    return [](GradOpBuilder* g) { AddSubGradMaker(g, false); };
  } else if constexpr (std::is_same_v<Tag, ElementwiseSubTag>) {
    return [](GradOpBuilder* g) { AddSubGradMaker(g, true); };
  } else if constexpr (std::is_same_v<Tag, ElementwiseMulTag>) {
    return MulGradMaker;
  } else if constexpr (std::is_same_v<Tag, ElementwiseDivTag>) {
    return DivGradMaker;
  } else if constexpr (std::is_same_v<Tag, ElementwisePowTag>) {
    return PowGradMaker;
  } else if constexpr (std::is_same_v<Tag, ElementwiseMaxTag>) {
    return [](GradOpBuilder* g) { MaxMinGradMaker(g, true); };
  } else if constexpr (std::is_same_v<Tag, ElementwiseMinTag>) {
    return [](GradOpBuilder* g) { MaxMinGradMaker(g, false); };
  } else if constexpr (std::is_same_v<Tag, ElementwiseFMaxTag>) {
    return [](GradOpBuilder* g) { FMaxFMinGradMaker(g, true); };
  } else if constexpr (std::is_same_v<Tag, ElementwiseFMinTag>) {
    return [](GradOpBuilder* g) { FMaxFMinGradMaker(g, false); };
  } else {
    return nullptr;
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterElementwiseOps) {
  ForEachElementwise([](auto tag) {
    using Tag = decltype(tag);
    const std::string type = Tag::kType;
    // PaddlePaddle's saved programs record version 1 for these ops.
    framework::OpRegistrar op =
        framework::RegisterOp<ElementwiseOp, ElementwiseOpMaker<Tag>>(type).InferShape(
            ElementwiseInferShape);
    if (framework::GradOpMakerFn grad = ElementwiseGradMaker<Tag>()) op.GradOpMaker(grad);
    // PaddlePaddle's fmax and fmin never had Scale_y: they stay at version 0.
    if constexpr (!std::is_same_v<Tag, ElementwiseFMaxTag> &&
                  !std::is_same_v<Tag, ElementwiseFMinTag>) {
      op.Checkpoint("Register " + type + " for adding the attribute of Scale_y",
                    framework::OpVersionDesc().NewAttr(
                        "Scale_y", "quantization scale of Y (int8 kernels only)", 1.0f));
    }
    RegisterPlainCpuNumericKernels<ElementwiseCpuKernel<Tag>::template Kernel>(type);
    // The four arithmetic ops on complex values (their gradients conjugate, above).
    if constexpr (std::is_same_v<Tag, ElementwiseAddTag> ||
                  std::is_same_v<Tag, ElementwiseSubTag> ||
                  std::is_same_v<Tag, ElementwiseMulTag> ||
                  std::is_same_v<Tag, ElementwiseDivTag>) {
      RegisterPlainCpuKernels<ElementwiseCpuKernel<Tag>::template Kernel, std::complex<float>,
                              std::complex<double>>(type);
    }
    // Sums of the small integer types (uint8 images, int8 and int16 values).
    if constexpr (std::is_same_v<Tag, ElementwiseAddTag>) {
      RegisterPlainCpuKernels<ElementwiseCpuKernel<Tag>::template Kernel, uint8_t, int8_t, int16_t>(
          type);
    }
    // PaddlePaddle adds (or) and multiplies (and) bool masks, as DETR-style heads do.
    if constexpr (std::is_same_v<Tag, ElementwiseAddTag> ||
                  std::is_same_v<Tag, ElementwiseMulTag>) {
      RegisterPlainCpuKernels<ElementwiseCpuKernel<Tag>::template Kernel, bool>(type);
    }
    DeclarePlainInPlace(type, {{"X", "Out"}, {"Y", "Out"}});
  });
}

}  // namespace operators
}  // namespace paddle_like

// masked_fill: x with the positions where a bool mask is true replaced by a value
// (paddle.masked_fill), x, mask and value broadcast as in NumPy. The gradient is written with
// masked_fill itself, so it can be differentiated again.
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/broadcast.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "masked_fill";

class MaskedFillOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("x", "The values kept where mask is false.");
    AddInput("mask", "bool tensor broadcast against x.");
    AddInput("value",
             "x's dtype: the fill value (a 0-D or 1-element tensor, or any shape that "
             "broadcasts to out's).");
    AddOutput("out", "The broadcast shape of x and mask, x's dtype.");
    AddComment(R"DOC(
MaskedFill operator, elementwise with NumPy broadcasting of x, mask and value:

$$out = \begin{cases} value & mask \\ x & \lnot mask \end{cases}$$

out has the broadcast shape of x and mask; value must broadcast to it. Example:
x = [[1, 2], [3, 4]], mask = [true, false], value = 0 -> [[0, 2], [0, 4]].

Gradient (written with masked_fill and logical_not, each summed back to its input's shape):
dx = masked_fill(dout, mask, 0), dvalue = masked_fill(dout, not mask, 0).
)DOC");
  }
};

// The kernel follows x's dtype; mask stays bool and value must have x's dtype.
class MaskedFillOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "x");
  }
  bool CastsInput(const std::string& slot, DataType, DataType) const override {
    return slot == "value";
  }
};

DDim OutDims(const std::string& op, const DDim& x, const DDim& mask, const DDim& value) {
  const DDim out = math::ComputeBroadcastDims(op, x, mask, -1).out;
  // value broadcasts into out without growing it.
  const DDim with_value = math::ComputeBroadcastDims(op, out, value, -1).out;
  PL_ENFORCE(with_value.size() == out.size() && (out.numel() < 0 || with_value == out),
             errors::InvalidArgument("op `%s` input `value`: expected a shape that broadcasts to "
                                     "out's %s, received %s",
                                     op, out.ToString(), value.ToString()));
  return out;
}

void MaskedFillInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"x", "mask", "value"}) ctx->RequireInput(slot);
  ctx->RequireOutput("out");
  ctx->SetOutputDim("out", OutDims(ctx->OpType(), ctx->GetInputDim("x"), ctx->GetInputDim("mask"),
                                   ctx->GetInputDim("value")));
}

template <typename T>
struct MaskedFillKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("x");
    const DenseTensor* mask = ctx.Input("mask");
    const DenseTensor* value = ctx.Input("value");
    PL_ENFORCE(mask->dtype() == DataType::BOOL,
               errors::InvalidArgument("op `%s` input `mask`: expected dtype bool, received %s",
                                       kOp, platform::DataTypeName(mask->dtype())));
    PL_ENFORCE(value->dtype() == x->dtype(),
               errors::InvalidArgument("op `%s` input `value`: expected x's dtype %s, received %s",
                                       kOp, platform::DataTypeName(x->dtype()),
                                       platform::DataTypeName(value->dtype())));
    const DDim out_dims = OutDims(kOp, x->dims(), mask->dims(), value->dims());
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    const int64_t n = out_dims.numel();
    // Each input broadcast to out's shape (before out is written: out may share x's buffer).
    const auto expand = [&](const DenseTensor* t, const char* slot, auto* kind) {
      using V = std::remove_pointer_t<decltype(kind)>;
      std::unique_ptr<V[]> full(new V[static_cast<size_t>(n)]);
      if (n > 0) {
        const DDim aligned = math::AlignInside(kOp, "out", out_dims, slot, t->dims(), -1);
        math::BroadcastTo(dev, t->template data<V>(), aligned, out_dims, full.get());
      }
      return full;
    };
    const auto xs = expand(x, "x", static_cast<T*>(nullptr));
    const auto vs = expand(value, "value", static_cast<T*>(nullptr));
    const auto ms = expand(mask, "mask", static_cast<bool*>(nullptr));
    DenseTensor out(out_dims, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < n; ++i) o[i] = ms[i] ? vs[i] : xs[i];
    *ctx.Output("out") = std::move(out);
  }
};

void MaskedFillGradMaker(framework::GradOpBuilder* g) {
  const bool dx = g->WantsInputGrad("x"), dv = g->WantsInputGrad("value");
  if (!dx && !dv) return;
  using Names = std::vector<std::string>;
  const Names dout = g->OutputGrad("out");
  const Names zero{g->NewTemp("zero_value")};
  g->AddOp("fill_zeros_like", {{"X", g->Input("value")}}, {{"Out", zero}});
  // dout with the positions of `mask` cleared, summed back to input `slot`'s shape.
  const auto cleared = [&](const Names& mask, const std::string& slot, const char* hint) {
    const Names part{g->NewTemp(hint)};
    g->AddOp(kOp, {{"x", dout}, {"mask", mask}, {"value", zero}}, {{"out", part}});
    g->AddOp("reduce_as", {{"X", part}, {"Target", g->Input(slot)}}, {{"Out", g->InputGrad(slot)}},
             {{"axis", -1}});
  };
  if (dx) cleared(g->Input("mask"), "x", "dout_unmasked");
  if (dv) {
    const Names unmasked{g->NewTemp("mask_not")};
    g->AddOp("logical_not", {{"X", g->Input("mask")}}, {{"Out", unmasked}});
    cleared(unmasked, "value", "dout_masked");
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterMaskedFillOp) {
  framework::RegisterOp<MaskedFillOp, MaskedFillOpMaker>(kOp)
      .InferShape(MaskedFillInferShape)
      .InferVarType(OutputDataTypeOf("x", "out"))
      .GradOpMaker(MaskedFillGradMaker);
  RegisterPlainCpuKernels<MaskedFillKernel, float, double, int32_t, int64_t, bool>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

// where: elementwise choice between X and Y by a bool Condition.
#include <complex>
#include <string>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "where";

class WhereOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Condition", "bool tensor of X's shape.");
    AddInput("X", "Values taken where Condition is true.");
    AddInput("Y", "Values taken where Condition is false; X's shape and dtype.");
    AddOutput("Out", "A tensor of X's shape, dtype and LoD.");
    AddComment(R"DOC(
Where operator, elementwise (Condition, X and Y of one shape):

$$Out_i = \begin{cases} X_i & Condition_i \\ Y_i & \text{otherwise} \end{cases}$$

Gradient, written with where and fill_any_like (so it can be differentiated again):
$$dX = \mathrm{where}(Condition, dOut, 0), \quad dY = \mathrm{where}(Condition, 0, dOut)$$
)DOC");
  }
};

// The kernel follows X (Condition is bool; an integer X would otherwise lose to it).
class WhereOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

void WhereInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Condition", "X", "Y"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  for (const char* slot : {"Condition", "Y"}) {
    const DDim d = ctx->GetInputDim(slot);
    PL_ENFORCE(d.size() == x.size() && (x.HasUnknown() || d.HasUnknown() || d == x),
               errors::InvalidArgument("op `where` input `%s`: expected the shape of X %s, "
                                       "received %s",
                                       slot, x.ToString(), d.ToString()));
  }
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct WhereKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* cond = ctx.Input("Condition");
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    PL_ENFORCE(cond->dtype() == DataType::BOOL,
               errors::InvalidArgument("op `where` input `Condition`: expected dtype bool, "
                                       "received %s",
                                       platform::DataTypeName(cond->dtype())));
    PL_ENFORCE(y->dtype() == x->dtype(),
               errors::InvalidArgument("op `where` input `Y`: expected X's dtype %s, received %s",
                                       platform::DataTypeName(x->dtype()),
                                       platform::DataTypeName(y->dtype())));
    const int64_t n = x->numel();
    const bool* c = n > 0 ? cond->data<bool>() : nullptr;
    const T* xp = n > 0 ? x->data<T>() : nullptr;
    const T* yp = n > 0 ? y->data<T>() : nullptr;
    T* o = ctx.Output("Out")->mutable_data<T>(ctx.GetPlace());
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n, 1 << 14, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) o[i] = c[i] ? xp[i] : yp[i];
        });
  }
};

void WhereGradMaker(framework::GradOpBuilder* g) {
  const bool dx = g->WantsInputGrad("X");
  const bool dy = g->WantsInputGrad("Y");
  if (!dx && !dy) return;
  const std::vector<std::string> dout = g->OutputGrad("Out");
  const std::string zeros = g->NewTemp("zeros");
  g->AddOp("fill_any_like", {{"X", dout}}, {{"Out", {zeros}}},
           {{"value", 0.0f}, {"dtype", -1}});
  if (dx) {
    g->AddOp(kOp, {{"Condition", g->Input("Condition")}, {"X", dout}, {"Y", {zeros}}},
             {{"Out", g->InputGrad("X")}});
  }
  if (dy) {
    g->AddOp(kOp, {{"Condition", g->Input("Condition")}, {"X", {zeros}}, {"Y", dout}},
             {{"Out", g->InputGrad("Y")}});
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterWhereOp) {
  framework::RegisterOp<WhereOp, WhereOpMaker>(kOp)
      .InferShape(WhereInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(WhereGradMaker);
  RegisterPlainCpuElementKernels<WhereKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

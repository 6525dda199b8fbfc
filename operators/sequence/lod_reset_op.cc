// lod_reset: X's data under new sequence offsets (from Y's LoD, Y's values or an attribute),
// replacing X's LoD or appended to it; lod_reset_grad hands dOut back with X's LoD.
#include <cstring>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/op_family.h"
#include "operators/sequence/sequence_util.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "lod_reset";

class LoDResetOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor whose rows get the new offsets (rank >= 1).");
    AddInput("Y",
             "The new offsets: Y's LoD when it has one, else Y's int32/int64 values; "
             "before `target_lod`.")
        .AsDispensable();
    AddOutput("Out", "X's values and shape with the new LoD.");
    AddAttr<std::vector<int>>("target_lod", "The new level's offsets when Y is not given.")
        .SetDefault({});
    AddAttr<bool>("append", "Append the new level to X's LoD instead of replacing it.")
        .SetDefault(false);
    AddComment(R"DOC(
LoD reset: Out = X, with the LoD
$$LoD(Out) = \begin{cases} LoD(X) + [L] & append \\ [L] & \text{otherwise} \end{cases}$$
where L is Y's last LoD level if Y has a LoD (without append, Out takes Y's whole LoD), else
Y's values, else `target_lod`. L must start at 0, never decrease and end at X's rows.
Example: X of 6 rows, target_lod [0, 2, 6] -> Out with LoD [[0, 2, 6]].

Gradient, by the fused op lod_reset_grad: dX = dOut, with X's LoD.
)DOC");
  }
};

class LoDResetOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
  // Y holds offsets: an integer Y is never cast to X's type.
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot != "Y" && OperatorWithKernel::CastsInput(slot, from, to);
  }
};

void LoDResetInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CheckMinRank(ctx->OpType(), "X", x, 1);
  ctx->SetOutputDim("Out", x);
}

// Out's LoD, checked to describe X's rows.
framework::LoD NewLoD(const ExecutionContext& ctx, const DenseTensor& x) {
  const bool append = ctx.Attr<bool>("append");
  std::vector<size_t> level;
  std::string origin;
  if (ctx.HasInput("Y")) {
    const DenseTensor* y = ctx.Input("Y");
    if (!y->lod().empty()) {
      CheckOptionalLoD(kOp, "Y", *y, y->lod().size());
      if (!append) {
        const std::vector<size_t>& last = y->lod().back();
        PL_ENFORCE(static_cast<int64_t>(last.back()) == x.dims()[0],
                   errors::InvalidArgument("op `%s` input `Y`: LoD %s ends at %zu, expected X's "
                                           "%lld rows",
                                           kOp, framework::LoDToString(y->lod()), last.back(),
                                           static_cast<long long>(x.dims()[0])));
        return y->lod();
      }
      level = y->lod().back();
      origin = "input `Y` (its LoD)";
    } else {
      for (int64_t v : ReadIntValues(*y, kOp, "Y")) {
        PL_ENFORCE(v >= 0, errors::InvalidArgument("op `%s` input `Y`: offsets must be >= 0, "
                                                   "received %lld",
                                                   kOp, static_cast<long long>(v)));
        level.push_back(static_cast<size_t>(v));
      }
      origin = "input `Y`";
    }
  } else {
    for (int v : ctx.Attr<std::vector<int>>("target_lod")) {
      PL_ENFORCE(v >= 0, errors::InvalidArgument("op `%s` attribute `target_lod`: offsets must be "
                                                 ">= 0, received %d",
                                                 kOp, v));
      level.push_back(static_cast<size_t>(v));
    }
    origin = "attribute `target_lod`";
  }
  framework::LoD lod = append ? x.lod() : framework::LoD();
  lod.push_back(level);
  const std::string problem = framework::LoDProblem(lod, x.dims()[0]);
  PL_ENFORCE(problem.empty(),
             errors::InvalidArgument("op `%s` %s: the LoD %s does not fit X of shape %s%s: %s", kOp,
                                     origin, framework::LoDToString(lod), x.dims().ToString(),
                                     append ? " (appended to X's)" : "", problem));
  return lod;
}

template <typename T>
struct LoDResetKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    CheckMinRank(kOp, "X", x->dims(), 1);
    framework::LoD lod = NewLoD(ctx, *x);
    DenseTensor out(x->dims(), x->dtype());
    if (x->numel() > 0) {
      std::memcpy(out.mutable_data<T>(ctx.GetPlace()), x->data<T>(), sizeof(T) * x->numel());
    }
    out.set_lod(std::move(lod));
    *ctx.Output("Out") = std::move(out);
  }
};

void LoDResetGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Out@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  ctx->ShareLoD("X", "X@GRAD");
}

template <typename T>
struct LoDResetGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    PL_ENFORCE(dout->dims() == x->dims(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected X's shape %s, "
                                       "received %s",
                                       ctx.Type(), x->dims().ToString(), dout->dims().ToString()));
    *ctx.Output("X@GRAD") = ElementsAs<T>(*dout, *x, ctx.GetPlace());
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterLoDResetOp) {
  const framework::FusedGradDecl grad{
      {"X"}, {"Out"}, {"X"}, R"DOC($$dX = dOut$$ with X's LoD.)DOC"};
  framework::RegisterOp<LoDResetOp, LoDResetOpMaker>(kOp)
      .InferShape(LoDResetInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuNumericKernels<LoDResetKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(LoDResetGradInferShape);
  RegisterPlainCpuFloatKernels<LoDResetGradKernel>("lod_reset_grad");
}

}  // namespace operators
}  // namespace paddle_like

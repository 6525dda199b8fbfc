// diagonal (the diagonals of the 2-D slices over two dims) and trace (their sums), with fused
// backwards that write dOut back onto those diagonals (diagonal_plan.h says where they sit).
#include <algorithm>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/diagonal_plan.h"

namespace paddle_like {
namespace operators {

namespace {

template <bool kTrace>
class DiagonalOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "Rank >= 2.");
    AddOutput("Out", kTrace ? "Input's dims without axis1 and axis2 (0-D for a matrix)."
                            : "Input's dims without axis1 and axis2, then the diagonal's length.");
    AddAttr<int>("offset", "Which diagonal: 0 the main one, > 0 above it, < 0 below.")
        .SetDefault(0);
    AddAttr<int>("axis1", "The first dim of the 2-D slices (negative counts from the end).")
        .SetDefault(0);
    AddAttr<int>("axis2", "The second dim of the 2-D slices, other than axis1.").SetDefault(1);
    if (kTrace) {
      AddComment(R"DOC(
Trace: the sum of each 2-D slice's diagonal over dims axis1 and axis2,
$$Out[r] = \sum_{i} Input[r; i + \max(-k, 0), i + \max(k, 0)]$$
with k = offset and r the other dims. Example: [[1, 2], [3, 4]] -> 5; offset 1 -> 2.

Gradient, by the fused op trace_grad: dOut on each diagonal element, 0 elsewhere.
)DOC");
    } else {
      AddComment(R"DOC(
Diagonal: each 2-D slice's diagonal over dims axis1 and axis2, as a new last dim,
$$Out[r, i] = Input[r; i + \max(-k, 0), i + \max(k, 0)]$$
with k = offset and r the other dims. Example: [[1, 2], [3, 4]] -> [1, 4]; offset 1 -> [2];
offset -1 -> [3].

Gradient, by the fused op diagonal_grad: dOut written back onto the diagonals, 0 elsewhere.
)DOC");
    }
  }
};

class DiagonalOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "Input");
  }
};

DiagonalPlan PlanOf(const std::string& op, const DDim& in, const framework::AttributeMap& attrs) {
  return PlanDiagonal(op, DiagonalNames(), in, std::get<int>(attrs.at("offset")),
                      std::get<int>(attrs.at("axis1")), std::get<int>(attrs.at("axis2")));
}

template <bool kTrace>
void DiagonalInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim(
      "Out", PlanOf(ctx->OpType(), ctx->GetInputDim("Input"), ctx->Attrs()).out_dims(kTrace));
}

template <bool kTrace>
struct DiagonalKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* in = ctx.Input("Input");
      const DiagonalPlan p = PlanOf(ctx.Type(), in->dims(), ctx.op().Attrs());
      DenseTensor out(p.out_dims(kTrace), in->dtype());
      T* o = out.mutable_data<T>(ctx.GetPlace());
      if (kTrace) std::fill(o, o + out.numel(), T(0));
      const T* x = in->numel() > 0 ? in->data<T>() : nullptr;
      ForEachDiagonalElement(p, [&](int64_t at, int64_t flat, int64_t slice) {
        if (kTrace) {
          o[slice] += x[at];
        } else {
          o[flat] = x[at];
        }
      });
      *ctx.Output("Out") = std::move(out);
    }
  };
};

void DiagonalGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Out@GRAD");
  if (ctx->HasOutput("Input@GRAD")) ctx->SetOutputDim("Input@GRAD", ctx->GetInputDim("Input"));
}

template <bool kTrace>
struct DiagonalGradKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DDim dims = ctx.Input("Input")->dims();
      const DenseTensor* dout = ctx.Input("Out@GRAD");
      const DiagonalPlan p = PlanOf(ctx.Type(), dims, ctx.op().Attrs());
      const DDim want = p.out_dims(kTrace);
      PL_ENFORCE(dout->dims() == want,
                 errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                         ctx.Type(), want.ToString(), dout->dims().ToString()));
      DenseTensor dx(dims, dout->dtype());
      T* d = dx.mutable_data<T>(ctx.GetPlace());
      std::fill(d, d + dx.numel(), T(0));
      const T* g = dout->numel() > 0 ? dout->data<T>() : nullptr;
      ForEachDiagonalElement(
          p, [&](int64_t at, int64_t flat, int64_t slice) { d[at] = kTrace ? g[slice] : g[flat]; });
      *ctx.Output("Input@GRAD") = std::move(dx);
    }
  };
};

template <bool kTrace>
framework::OpRegistrar RegisterDiagonal(const std::string& type) {
  const framework::FusedGradDecl grad{
      {"Input"},
      {"Out"},
      {"Input"},
      kTrace ? R"DOC($$dInput[r; i + \max(-k, 0), i + \max(k, 0)] = dOut[r]$$, 0 elsewhere)DOC"
             : R"DOC($$dInput[r; i + \max(-k, 0), i + \max(k, 0)] = dOut[r, i]$$, 0 elsewhere)DOC"};
  framework::OpRegistrar op = framework::RegisterOp<DiagonalOp, DiagonalOpMaker<kTrace>>(type)
                                  .InferShape(DiagonalInferShape<kTrace>)
                                  .InferVarType(OutputDataTypeOf("Input", "Out"))
                                  .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuKernels<DiagonalKernel<kTrace>::template Kernel, float, double, int32_t, int64_t>(
      type);
  framework::RegisterFusedGradOp(type, grad).InferShape(DiagonalGradInferShape);
  RegisterPlainCpuFloatKernels<DiagonalGradKernel<kTrace>::template Kernel>(type + "_grad");
  return op;
}

}  // namespace

PL_REGISTER_OPS(RegisterDiagonalTraceOps) {
  RegisterDiagonal<false>("diagonal");
  // PaddlePaddle's version 1 of trace names the dims axis1 and axis2.
  RegisterDiagonal<true>("trace").Checkpoint(
      "trace: the dims as axis1 and axis2",
      framework::OpVersionDesc()
          .NewAttr("axis1", "the first dim of the 2-D slices", 0)
          .NewAttr("axis2", "the second dim of the 2-D slices", 1));
}

}  // namespace operators
}  // namespace paddle_like

// multiplex: row i of Out is row i of the candidate Ids[i] names; its fused backward sends
// each row of dOut back to that candidate.
#include <cstring>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/indexing/index_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "multiplex";

class MultiplexOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The candidates: tensors of one shape [N, ...] and dtype.").AsDuplicable();
    AddInput("Ids", "[N, 1] int32 or int64: which candidate each row comes from.");
    AddOutput("Out", "The candidates' shape.");
    AddComment(R"DOC(
Multiplex: $$Out[i] = X_{Ids[i]}[i]$$ row by row. Example: X = ([[1], [2]], [[3], [4]]),
Ids = [[1], [0]] -> [[3], [2]].

Gradient, by the fused op multiplex_grad: $$dX_k[i] = dOut[i] \text{ where } Ids[i] = k$$,
0 elsewhere.
)DOC");
  }
};

class MultiplexOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

void CheckCandidates(const std::string& op, const std::vector<DDim>& xs, const DDim& ids) {
  PL_ENFORCE(!xs.empty() && xs[0].size() >= 1,
             errors::InvalidArgument("op `%s` input `X`: expected candidates of rank >= 1", op));
  for (size_t k = 1; k < xs.size(); ++k) {
    PL_ENFORCE(xs[k] == xs[0], errors::InvalidArgument("op `%s` input `X`[%zu]: expected the "
                                                       "shape of X[0] %s, received %s",
                                                       op, k, xs[0].ToString(), xs[k].ToString()));
  }
  PL_ENFORCE(ids.size() == 2 && (ids[1] < 0 || ids[1] == 1) &&
                 (ids[0] < 0 || xs[0][0] < 0 || ids[0] == xs[0][0]),
             errors::InvalidArgument("op `%s` input `Ids`: expected [%lld, 1], received %s", op,
                                     static_cast<long long>(xs[0][0]), ids.ToString()));
}

void MultiplexInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Ids");
  ctx->RequireOutput("Out");
  const std::vector<DDim> xs = ctx->GetInputsDim("X");
  CheckCandidates(ctx->OpType(), xs, ctx->GetInputDim("Ids"));
  ctx->SetOutputDim("Out", xs[0]);
}

template <typename T>
struct MultiplexKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<const DenseTensor*> xs = ctx.MultiInput("X");
    std::vector<DDim> dims;
    for (const DenseTensor* x : xs) dims.push_back(x->dims());
    const DenseTensor* ids_t = ctx.Input("Ids");
    CheckCandidates(ctx.Type(), dims, ids_t->dims());
    const std::vector<int64_t> ids =
        ReadIndices(ctx.Type(), "Ids", *ids_t, static_cast<int64_t>(xs.size()), false);
    const int64_t rows = dims[0][0], row = rows == 0 ? 0 : dims[0].numel() / rows;
    DenseTensor out(dims[0], xs[0]->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < rows; ++i) {
      std::memcpy(o + i * row, xs[ids[i]]->template data<T>() + i * row, sizeof(T) * row);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void MultiplexGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Ids");
  ctx->RequireInput("Out@GRAD");
  const std::vector<DDim> xs = ctx->GetInputsDim("X");
  for (size_t k = 0; k < ctx->OutputSize("X@GRAD") && k < xs.size(); ++k) {
    ctx->SetOutputDim("X@GRAD", xs[k], k);
  }
}

template <typename T>
struct MultiplexGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<const DenseTensor*> xs = ctx.MultiInput("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    PL_ENFORCE(
        dout->dims() == xs[0]->dims(),
        errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                ctx.Type(), xs[0]->dims().ToString(), dout->dims().ToString()));
    const std::vector<int64_t> ids =
        ReadIndices(ctx.Type(), "Ids", *ctx.Input("Ids"), static_cast<int64_t>(xs.size()), false);
    const int64_t rows = dout->dims()[0], row = rows == 0 ? 0 : dout->numel() / rows;
    const T* g = dout->numel() > 0 ? dout->data<T>() : nullptr;
    for (size_t k = 0; k < xs.size() && k < ctx.OutputSize("X@GRAD"); ++k) {
      if (ctx.OutputName("X@GRAD", k) == framework::kEmptyVarName) continue;
      DenseTensor* grad = ctx.Output("X@GRAD", k);
      if (grad == nullptr) continue;
      DenseTensor dx(dout->dims(), dout->dtype());
      T* d = dx.mutable_data<T>(ctx.GetPlace());
      std::fill(d, d + dx.numel(), T(0));
      for (int64_t i = 0; i < rows; ++i) {
        if (ids[i] == static_cast<int64_t>(k))
          std::memcpy(d + i * row, g + i * row, sizeof(T) * row);
      }
      *grad = std::move(dx);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterMultiplexOp) {
  const framework::FusedGradDecl grad{
      {"X", "Ids"}, {"Out"}, {"X"}, R"DOC($$dX_k[i] = dOut[i] \text{ where } Ids[i] = k$$)DOC"};
  framework::RegisterOp<MultiplexOp, MultiplexOpMaker>(kOp)
      .InferShape(MultiplexInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuNumericKernels<MultiplexKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(MultiplexGradInferShape);
  RegisterPlainCpuFloatKernels<MultiplexGradKernel>("multiplex_grad");
}

}  // namespace operators
}  // namespace paddle_like

// stack: N tensors of one shape joined along a new axis; unstack (and unbind, which takes the
// number of pieces from X): the inverse. Each is the other's gradient, so higher orders come
// from the backward builder.
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/indexing/index_util.h"
#include "operators/op_family.h"
#include "operators/tensor/concat_split_util.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

class StackOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensors to stack, all of one shape and dtype.").AsDuplicable();
    AddOutput("Y", "X's dims with N (the number of inputs) inserted at `axis`.");
    AddAttr<int>("axis", "Where the new dim goes, in [-(R+1), R+1) for inputs of rank R.")
        .SetDefault(0);
    AddComment(R"DOC(
Stack operator.

$$Y[\ldots, i, \ldots] = X_i \quad \text{(new dim at } axis\text{)}$$

Example: X_0 = [1, 2], X_1 = [3, 4], axis 0 -> [[1, 2], [3, 4]]; axis 1 -> [[1, 3], [2, 4]].

Gradient, by unstack: $$dX_i = dY[\ldots, i, \ldots]$$
)DOC");
  }
};

class UnstackOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to split.");
    AddOutput("Y", "`num` tensors: X's slices along `axis`, that dim removed.").AsDuplicable();
    AddAttr<int>("axis", "The dim to split along (negative counts from the end).").SetDefault(0);
    AddAttr<int>("num", "The number of outputs, X.dims[axis].").SetDefault(0);
    AddComment(R"DOC(
Unstack operator, the inverse of stack.

$$Y_i = X[\ldots, i, \ldots] \quad \text{(position } axis\text{)}$$

Example: X [[1, 2], [3, 4]], axis 1 -> Y_0 = [1, 3], Y_1 = [2, 4].

Gradient, by stack: $$dX = \mathrm{stack}(dY_0, \ldots, dY_{n-1})$$
)DOC");
  }
};

class UnbindOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to split.");
    AddOutput("Out", "X.dims[axis] tensors: X's slices along `axis`, that dim removed.")
        .AsDuplicable();
    AddAttr<int>("axis", "The dim to split along (negative counts from the end).").SetDefault(0);
    AddComment(R"DOC(
Unbind operator (paddle.unbind): unstack with the number of outputs taken from X.

$$Out_i = X[\ldots, i, \ldots] \quad \text{(position } axis\text{)}$$

Gradient, by stack (zeros for outputs without a gradient):
$$dX = \mathrm{stack}(dOut_0, \ldots, dOut_{n-1})$$
)DOC");
  }
};

// The output slot of unstack (Y) and of unbind (Out).
const char* PiecesSlot(const std::string& op) { return op == "unbind" ? "Out" : "Y"; }

class StackOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

int StackAxis(const std::string& op, int axis, int rank) {
  return NormalizeAxis(op, "attribute `axis`", axis, rank + 1);
}

void StackInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Y");
  const std::vector<DDim> xs = ctx->GetInputsDim("X");
  for (size_t i = 1; i < xs.size(); ++i) {
    PL_ENFORCE(xs[i].size() == xs[0].size() &&
                   (xs[i] == xs[0] || xs[i].HasUnknown() || xs[0].HasUnknown()),
               errors::InvalidArgument("op `%s` input `X`: expected every tensor of shape %s (the "
                                       "first), received %s at position %zu",
                                       ctx->OpType(), xs[0].ToString(), xs[i].ToString(), i));
  }
  const int axis = StackAxis(ctx->OpType(), ctx->Attr<int>("axis"), xs[0].size());
  std::vector<int64_t> out = xs[0].ToVector();
  PL_ENFORCE(out.size() < static_cast<size_t>(DDim::kMaxRank),
             errors::InvalidArgument("op `%s` input `X`: rank %zu leaves no room for the new dim",
                                     ctx->OpType(), out.size()));
  out.insert(out.begin() + axis, static_cast<int64_t>(xs.size()));
  ctx->SetOutputDim("Y", DDim(out));
}

template <typename T>
struct StackKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<const DenseTensor*> xs = ctx.MultiInput("X");
    const DDim dims = xs[0]->dims();
    for (size_t i = 1; i < xs.size(); ++i) {
      PL_ENFORCE(xs[i]->dims() == dims && xs[i]->dtype() == xs[0]->dtype(),
                 errors::InvalidArgument("op `%s` input `X`: expected every tensor of shape %s "
                                         "and dtype %s, received %s %s at position %zu",
                                         ctx.Type(), dims.ToString(),
                                         platform::DataTypeName(xs[0]->dtype()),
                                         xs[i]->dims().ToString(),
                                         platform::DataTypeName(xs[i]->dtype()), i));
    }
    const int axis = StackAxis(ctx.Type(), ctx.Attr<int>("axis"), dims.size());
    // Each input is [outer, inner] split before `axis`; Y is [outer, n, inner].
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < dims.size(); ++d) (d < axis ? outer : inner) *= dims[d];
    DenseTensor* y = ctx.Output("Y");
    T* out = y->mutable_data<T>(ctx.GetPlace());
    const auto n = static_cast<int64_t>(xs.size());
    for (int64_t i = 0; i < n; ++i) {
      if (inner * outer == 0) break;
      // Input i fills column block i of Y's [outer, n * inner] rows.
      platform::Copy2D(ctx.GetPlace(), out + i * inner, sizeof(T) * n * inner, xs[i]->data<T>(),
                       sizeof(T) * inner, sizeof(T) * inner, static_cast<size_t>(outer));
    }
  }
};

void UnstackInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  const DDim x = ctx->GetInputDim("X");
  const int axis = NormalizeAxis(ctx->OpType(), "attribute `axis`", ctx->Attr<int>("axis"), x.size());
  const char* slot = PiecesSlot(ctx->OpType());
  const auto outputs = static_cast<int>(ctx->OutputSize(slot));
  // unbind has no `num`: the outputs alone must match the dim.
  const int num = ctx->OpType() == "unbind" ? outputs : ctx->Attr<int>("num");
  PL_ENFORCE(outputs == num && (x[axis] < 0 || x[axis] == num),
             errors::InvalidArgument("op `%s`: expected the number of outputs `%s` (%d), dim %d "
                                     "of X %s and attribute `num` (%d, unstack only) to agree",
                                     ctx->OpType(), slot, outputs, axis, x.ToString(), num));
  std::vector<int64_t> out = x.ToVector();
  out.erase(out.begin() + axis);
  for (int i = 0; i < outputs; ++i) ctx->SetOutputDim(slot, DDim(out), i);
}

template <typename T>
struct UnstackKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DDim dims = x->dims();
    const int axis = NormalizeAxis(ctx.Type(), "attribute `axis`", ctx.Attr<int>("axis"), dims.size());
    const char* slot = PiecesSlot(ctx.Type());
    const std::vector<DenseTensor*> ys = ctx.MultiOutput(slot);
    PL_ENFORCE(static_cast<int64_t>(ys.size()) == dims[axis],
               errors::InvalidArgument("op `%s` output `%s`: expected %lld outputs (dim %d of X "
                                       "%s), received %zu",
                                       ctx.Type(), slot, static_cast<long long>(dims[axis]), axis,
                                       dims.ToString(), ys.size()));
    const AxisSplit s = SplitAtAxis(dims, axis);
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    std::vector<int64_t> out_dims = dims.ToVector();
    out_dims.erase(out_dims.begin() + axis);
    for (int64_t i = 0; i < s.axis; ++i) {
      DenseTensor fresh(DDim(out_dims), x->dtype());
      T* out = fresh.mutable_data<T>(ctx.GetPlace());
      if (s.inner > 0 && s.outer > 0) {
        platform::Copy2D(ctx.GetPlace(), out, sizeof(T) * s.inner, in + i * s.inner,
                         sizeof(T) * s.axis * s.inner, sizeof(T) * s.inner,
                         static_cast<size_t>(s.outer));
      }
      if (ys[i] != nullptr) *ys[i] = std::move(fresh);
    }
  }
};

void StackGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const int n = static_cast<int>(g->Input("X").size());
  g->AddOp("unstack", {{"X", g->OutputGrad("Y")}}, {{"Y", g->InputGrad("X")}},
           {{"axis", g->Attr<int>("axis")}, {"num", n}});
}

// unstack and unbind: stack the pieces' gradients back (zeros for pieces without one).
void UnstackGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const char* slot = PiecesSlot(g->Forward().Type());
  g->AddOp("stack", {{"X", OutputGradsOrZeros(g, slot)}}, {{"Y", g->InputGrad("X")}},
           {{"axis", g->Attr<int>("axis")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterStackOps) {
  framework::RegisterOp<StackOp, StackOpMaker>("stack")
      .InferShape(StackInferShape)
      .GradOpMaker(StackGradMaker);
  RegisterPlainElementKernelsOnEveryDevice<StackKernel>("stack");
  framework::RegisterOp<StackOp, UnstackOpMaker>("unstack")
      .InferShape(UnstackInferShape)
      .GradOpMaker(UnstackGradMaker);
  RegisterPlainElementKernelsOnEveryDevice<UnstackKernel>("unstack");
  framework::RegisterOp<StackOp, UnbindOpMaker>("unbind")
      .InferShape(UnstackInferShape)
      .GradOpMaker(UnstackGradMaker);
  RegisterPlainElementKernelsOnEveryDevice<UnstackKernel>("unbind");
}

}  // namespace operators
}  // namespace paddle_like

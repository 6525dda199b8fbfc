// expand_v2: X broadcast to a given shape (NumPy rules, trailing dims aligned).
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/broadcast.h"
#include "operators/op_family.h"
#include "operators/tensor/expand_tile_shapes.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

DDim ExpandV2TargetDims(const std::string& op, const std::string& origin, const DDim& x,
                        const std::vector<int64_t>& shape, DDim* x_aligned) {
  PL_ENFORCE(shape.size() >= static_cast<size_t>(x.size()) &&
                 shape.size() <= static_cast<size_t>(DDim::kMaxRank),
             errors::InvalidArgument("op `%s` %s: expected between %d (the rank of X) and %d "
                                     "dims, received %s",
                                     op, origin, x.size(), DDim::kMaxRank, ListToString(shape)));
  const size_t lead = shape.size() - x.size();
  std::vector<int64_t> out(shape.size()), xa(shape.size(), 1);
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t want = shape[d];
    if (d < lead) {
      PL_ENFORCE(want >= 0, errors::InvalidArgument("op `%s` %s: expected a size >= 0 for the "
                                                    "new leading dim %zu, received %s",
                                                    op, origin, d, ListToString(shape)));
      out[d] = want;
      continue;
    }
    const int64_t have = x[static_cast<int>(d - lead)];
    xa[d] = have;
    PL_ENFORCE(want == -1 || want >= 0,
               errors::InvalidArgument("op `%s` %s: expected sizes >= 0 or -1, received %s", op,
                                       origin, ListToString(shape)));
    if (want == -1 || have < 0) {
      out[d] = want == -1 ? have : want;
      continue;
    }
    PL_ENFORCE(
        have == want || have == 1,
        errors::InvalidArgument("op `%s` %s: dim %zu of X is %lld, expected it to be 1 "
                                "or the target size %lld (X shape %s, target %s)",
                                op, origin, d - lead, static_cast<long long>(have),
                                static_cast<long long>(want), x.ToString(), ListToString(shape)));
    out[d] = want;
  }
  CheckShapeValues(op, origin, out, /*allow_unknown=*/true);
  if (x_aligned != nullptr) *x_aligned = DDim(xa);
  return DDim(out);
}

namespace {

constexpr char kOp[] = "expand_v2";

class ExpandV2OpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to broadcast.");
    AddInput("Shape", "1-D int32/int64 tensor; overrides the others.").AsDispensable();
    AddInput("expand_shapes_tensor", "One-element int32/int64 tensors, one per dim.")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("Out", "X broadcast to the target shape, X's dtype.");
    AddAttr<std::vector<int>>("shape", "The target shape; -1 keeps X's dim.").SetDefault({});
    AddComment(R"DOC(
ExpandV2 operator.

$$Out[i_0, \ldots, i_{r-1}] = X[\ldots, i_k \cdot [d_k \ne 1], \ldots]$$

X's dims are aligned with the trailing dims of the target shape (from Shape, else
expand_shapes_tensor, else the attribute); each aligned dim of X must equal the target's or
be 1, and -1 in the target keeps X's dim (not allowed for the leading new dims). Example:
X [[1], [2]] (2x1), shape [2, -1, 3] -> 2x2x3.

Gradient, written with reduce_as (so it can be differentiated again):
$$dX = \mathrm{reduce\_as}(dOut, X)$$
)DOC");
  }
};

class ExpandV2Op : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void ExpandV2InferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  if (ctx->HasInput("Shape") || ctx->HasInput("expand_shapes_tensor")) {
    if (ctx->IsRuntime()) return;  // The kernel reads the shape.
    if (ctx->HasInput("expand_shapes_tensor")) {
      ctx->SetOutputDim("Out", UnknownDims(ctx->OpType(), "input `expand_shapes_tensor`",
                                           ctx->InputSize("expand_shapes_tensor")));
    } else {
      const DDim s = ctx->GetInputDim("Shape");
      if (s.size() == 1 && s[0] >= 0) {
        ctx->SetOutputDim("Out", UnknownDims(ctx->OpType(), "input `Shape`", s[0]));
      }
    }
    return;
  }
  const std::vector<int>& shape = ctx->Attr<std::vector<int>>("shape");
  ctx->SetOutputDim("Out",
                    ExpandV2TargetDims(ctx->OpType(), "attribute `shape`", x,
                                       std::vector<int64_t>(shape.begin(), shape.end()), nullptr));
}

template <typename T>
struct ExpandV2Kernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    std::string origin;
    const std::vector<int64_t> shape =
        ReadIntList(ctx, "Shape", "expand_shapes_tensor", "shape", &origin);
    DDim x_aligned;
    const DDim target = ExpandV2TargetDims(ctx.Type(), origin, x->dims(), shape, &x_aligned);
    DenseTensor fresh(target, x->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    if (fresh.numel() > 0) {
      math::BroadcastTo(ctx.device_context<platform::CPUDeviceContext>(), x->data<T>(), x_aligned,
                        target, out);
    }
    *ctx.Output("Out") = std::move(fresh);
  }
};

void ExpandV2GradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp("reduce_as", {{"X", g->OutputGrad("Out")}, {"Target", g->Input("X")}},
           {{"Out", g->InputGrad("X")}}, {{"axis", -1}});
}

}  // namespace

PL_REGISTER_OPS(RegisterExpandV2Op) {
  framework::RegisterOp<ExpandV2Op, ExpandV2OpMaker>(kOp)
      .InferShape(ExpandV2InferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(ExpandV2GradMaker);
  RegisterPlainCpuElementKernels<ExpandV2Kernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

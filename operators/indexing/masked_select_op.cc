// masked_select: the elements of X where Mask is true, in row-major order of their broadcast
// shape (paddle.masked_select); and masked_select_grad, which sends Y@GRAD back to those
// elements (summed over the positions X was broadcast to).
#include <algorithm>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "masked_select";
constexpr char kGradOp[] = "masked_select_grad";

class MaskedSelectOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Tensor of any shape.");
    AddInput("Mask", "bool tensor; X and Mask broadcast against each other (numpy rules).");
    AddOutput("Y", "1-D: the selected elements, in row-major order of the broadcast shape.");
    AddComment(R"DOC(
Masked select operator. With X and Mask broadcast to one shape B:

$$Y = [\, X_b : b \in B, \; Mask_b \,]$$

in row-major order; Y's length is known only at run time.

Gradient (op `masked_select_grad`): the k-th selected position b receives $dY_k$, summed onto
the element of X that was broadcast to b; other elements get 0.
)DOC");
  }
};

class MaskedSelectGradOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The forward op's X (only its dims are read).").AsNoNeedBuffer();
    AddInput("Mask", "The forward op's Mask.");
    AddInput("Y@GRAD", "Gradient of Y.");
    AddOutput("X@GRAD", "Gradient of X.");
    AddComment(R"DOC(
Gradient of `masked_select`: $$dX_x = \sum_{k : b_k \mapsto x} dY_k$$ over the selected
positions b_k of the broadcast shape that come from element x of X.
)DOC");
  }
};

class MaskedSelectOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Y@GRAD") ? "Y@GRAD" : "X");
  }
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot != "Mask" && OperatorWithKernel::CastsInput(slot, from, to);
  }
};

// The broadcast shape of X and Mask, right-aligned; InvalidArgumentError naming both.
std::vector<int64_t> BroadcastShape(const std::string& op, const DDim& x, const DDim& mask) {
  const int rank = std::max(x.size(), mask.size());
  std::vector<int64_t> out(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    const int dx = d - (rank - x.size()), dm = d - (rank - mask.size());
    const int64_t a = dx >= 0 ? x[dx] : 1, b = dm >= 0 ? mask[dm] : 1;
    PL_ENFORCE(a == b || a == 1 || b == 1 || a < 0 || b < 0,
               errors::InvalidArgument("op `%s` inputs `X` and `Mask`: shapes %s and %s do not "
                                       "broadcast",
                                       op, x.ToString(), mask.ToString()));
    out[d] = (a == 1 || a < 0) ? b : a;
  }
  return out;
}

// Calls fn(x offset, mask offset) for every position of the broadcast shape, row-major.
template <typename Fn>
void ForEachBroadcast(const DDim& x, const DDim& mask, const std::vector<int64_t>& shape, Fn&& fn) {
  const int rank = static_cast<int>(shape.size());
  // Strides of X and Mask in the broadcast index space (0 along broadcast dims).
  std::vector<int64_t> xs(static_cast<size_t>(rank), 0), ms(static_cast<size_t>(rank), 0);
  int64_t sx = 1, sm = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int dx = d - (rank - x.size()), dm = d - (rank - mask.size());
    if (dx >= 0) {
      if (x[dx] != 1) xs[d] = sx;
      sx *= x[dx];
    }
    if (dm >= 0) {
      if (mask[dm] != 1) ms[d] = sm;
      sm *= mask[dm];
    }
  }
  int64_t total = 1;
  for (int64_t n : shape) total *= n;
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  int64_t xo = 0, mo = 0;
  for (int64_t e = 0; e < total; ++e) {
    fn(xo, mo);
    for (int d = rank - 1; d >= 0; --d) {
      xo += xs[d];
      mo += ms[d];
      if (++index[d] < shape[d]) break;
      xo -= xs[d] * shape[d];
      mo -= ms[d] * shape[d];
      index[d] = 0;
    }
  }
}

void CheckMask(const std::string& op, const DenseTensor& mask) {
  PL_ENFORCE(mask.dtype() == DataType::BOOL,
             errors::InvalidArgument("op `%s` input `Mask`: expected bool, received %s", op,
                                     platform::DataTypeName(mask.dtype())));
}

void MaskedSelectInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Mask");
  ctx->RequireOutput("Y");
  BroadcastShape(ctx->OpType(), ctx->GetInputDim("X"), ctx->GetInputDim("Mask"));
  if (ctx->IsRuntime()) return;  // The kernel sizes Y from the count.
  ctx->SetOutputDim("Y", DDim({-1}));
}

template <typename T>
struct MaskedSelectKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* mask = ctx.Input("Mask");
    CheckMask(kOp, *mask);
    const std::vector<int64_t> shape = BroadcastShape(kOp, x->dims(), mask->dims());
    const T* in = x->data<T>();
    const bool* m = mask->data<bool>();
    std::vector<T> picked;
    ForEachBroadcast(x->dims(), mask->dims(), shape, [&](int64_t xo, int64_t mo) {
      if (m[mo]) picked.push_back(in[xo]);
    });
    DenseTensor y(DDim({static_cast<int64_t>(picked.size())}), x->dtype());
    std::copy(picked.begin(), picked.end(), y.mutable_data<T>(ctx.GetPlace()));
    *ctx.Output("Y") = std::move(y);
  }
};

void MaskedSelectGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Mask", "Y@GRAD"}) ctx->RequireInput(slot);
  ctx->RequireOutput("X@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

void MaskedSelectGradInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("X@GRAD", ctx->GetInputDataType("Y@GRAD"));
}

template <typename T>
struct MaskedSelectGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DDim x = ctx.Input("X")->dims();
    const DenseTensor* mask = ctx.Input("Mask");
    const DenseTensor* dy = ctx.Input("Y@GRAD");
    CheckMask(kGradOp, *mask);
    const std::vector<int64_t> shape = BroadcastShape(kGradOp, x, mask->dims());
    const bool* m = mask->data<bool>();
    int64_t selected = 0;
    ForEachBroadcast(x, mask->dims(), shape, [&](int64_t, int64_t mo) { selected += m[mo]; });
    PL_ENFORCE(dy->numel() == selected,
               errors::InvalidArgument("op `%s` input `Y@GRAD`: expected %s elements (the "
                                       "selected ones), received shape %s",
                                       kGradOp, std::to_string(selected), dy->dims().ToString()));
    DenseTensor dx(x, dy->dtype());
    T* o = dx.mutable_data<T>(ctx.GetPlace());
    std::fill(o, o + x.numel(), T(0));
    const T* g = dy->data<T>();
    int64_t k = 0;
    ForEachBroadcast(x, mask->dims(), shape, [&](int64_t xo, int64_t mo) {
      if (m[mo]) o[xo] += g[k++];
    });
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

void MaskedSelectGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp(kGradOp,
           {{"X", g->Input("X")}, {"Mask", g->Input("Mask")}, {"Y@GRAD", g->OutputGrad("Y")}},
           {{"X@GRAD", g->InputGrad("X")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterMaskedSelectOp) {
  framework::RegisterOp<MaskedSelectOp, MaskedSelectOpMaker>(kOp)
      .InferShape(MaskedSelectInferShape)
      .InferVarType(OutputDataTypeOf("X", "Y"))
      .GradOpMaker(MaskedSelectGradMaker);
  RegisterPlainCpuKernels<MaskedSelectKernel, float, double, int32_t, int64_t, bool>(kOp);
  framework::RegisterOp<MaskedSelectOp, MaskedSelectGradOpMaker>(kGradOp)
      .InferShape(MaskedSelectGradInferShape)
      .InferVarType(MaskedSelectGradInferVarType);
  RegisterPlainCpuFloatKernels<MaskedSelectGradKernel>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like

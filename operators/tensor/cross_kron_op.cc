// cross (3-vector cross products along one dim) and kron (the Kronecker product). cross's
// gradient is written with cross itself, so it differentiates again; kron has a fused backward.
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

// PaddlePaddle's `dim` default: the first dim of size 3.
constexpr int kFirstDimOfThree = 9;

class CrossOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Any shape with a dim of size 3.");
    AddInput("Y", "X's shape and dtype.");
    AddOutput("Out", "X's shape.");
    AddAttr<int>("dim",
                 "The dim of the 3-vectors (negative counts from the end); 9: the first "
                 "dim of size 3.")
        .SetDefault(kFirstDimOfThree);
    AddComment(R"DOC(
Cross product of the 3-vectors along `dim`:

$$Out = X \times Y = (X_1 Y_2 - X_2 Y_1, \; X_2 Y_0 - X_0 Y_2, \; X_0 Y_1 - X_1 Y_0)$$

Example: X = [1, 0, 0], Y = [0, 1, 0] -> [0, 0, 1].

Gradient (cross products again, so it can be differentiated further):
$$dX = Y \times dOut, \quad dY = dOut \times X$$
)DOC");
  }
};

class KronOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Any shape.");
    AddInput("Y", "Any shape, X's dtype.");
    AddOutput("Out",
              "Rank max(rank X, rank Y); each dim the product of X's and Y's (the lower "
              "rank padded with leading 1s).");
    AddComment(R"DOC(
Kronecker product: with both inputs padded to one rank,

$$Out[i \cdot d_Y + j] = X[i] \, Y[j]$$

per dim (i indexes X, j indexes Y, d_Y Y's dims). Example: X = [[1, 2]], Y = [[1], [10]] ->
[[1, 2], [10, 20]].

Gradient, by the fused op kron_grad: $$dX[i] = \sum_j dOut[i \cdot d_Y + j] \, Y[j], \quad
dY[j] = \sum_i dOut[i \cdot d_Y + j] \, X[i]$$
)DOC");
  }
};

class BinaryTensorOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

// ---------------------------------------------------------------- cross

int CrossDim(const std::string& op, const DDim& x, const DDim& y, int dim) {
  CheckSameShape(op, "Y", y, "X", x);
  if (dim == kFirstDimOfThree) {
    for (int i = 0; i < x.size(); ++i) {
      if (x[i] == 3) return i;
    }
    PL_THROW(errors::InvalidArgument("op `%s` input `X`: expected a dim of size 3, received %s", op,
                                     x.ToString()));
  }
  const int d = NormalizeAxis(op, "attribute `dim`", dim, x.size());
  PL_ENFORCE(x[d] < 0 || x[d] == 3,
             errors::InvalidArgument("op `%s` attribute `dim`: dim %d of input `X` %s must have "
                                     "size 3",
                                     op, d, x.ToString()));
  return d;
}

void CrossInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  CrossDim(ctx->OpType(), x, ctx->GetInputDim("Y"), ctx->Attr<int>("dim"));
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct CrossKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const int d = CrossDim(ctx.Type(), x->dims(), y->dims(), ctx.Attr<int>("dim"));
    const LineView v = ViewAround(ctx.Type(), x->dims(), d);
    DenseTensor out(x->dims(), x->dtype());
    out.set_lod(x->lod());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* a = x->numel() > 0 ? x->data<T>() : nullptr;
    const T* b = x->numel() > 0 ? y->data<T>() : nullptr;
    for (int64_t outer = 0; outer < v.outer; ++outer) {
      for (int64_t i = 0; i < v.inner; ++i) {
        const int64_t p0 = outer * 3 * v.inner + i, p1 = p0 + v.inner, p2 = p1 + v.inner;
        o[p0] = a[p1] * b[p2] - a[p2] * b[p1];
        o[p1] = a[p2] * b[p0] - a[p0] * b[p2];
        o[p2] = a[p0] * b[p1] - a[p1] * b[p0];
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void CrossGradMaker(framework::GradOpBuilder* g) {
  const framework::AttributeMap attrs = {{"dim", g->Attr<int>("dim")}};
  if (g->WantsInputGrad("X")) {
    g->AddOp("cross", {{"X", g->Input("Y")}, {"Y", g->OutputGrad("Out")}},
             {{"Out", g->InputGrad("X")}}, attrs);
  }
  if (g->WantsInputGrad("Y")) {
    g->AddOp("cross", {{"X", g->OutputGrad("Out")}, {"Y", g->Input("X")}},
             {{"Out", g->InputGrad("Y")}}, attrs);
  }
}

// ---------------------------------------------------------------- kron

// X, Y and Out dims padded to one rank.
struct KronShape {
  std::vector<int64_t> x, y, out;
};

KronShape KronShapeOf(const DDim& x, const DDim& y) {
  const int rank = std::max(x.size(), y.size());
  KronShape s;
  for (int i = 0; i < rank; ++i) {
    const int xi = i - (rank - x.size()), yi = i - (rank - y.size());
    s.x.push_back(xi < 0 ? 1 : x[xi]);
    s.y.push_back(yi < 0 ? 1 : y[yi]);
    s.out.push_back(s.x.back() < 0 || s.y.back() < 0 ? -1 : s.x.back() * s.y.back());
  }
  return s;
}

void KronInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", DDim(KronShapeOf(ctx->GetInputDim("X"), ctx->GetInputDim("Y")).out));
}

// fn(out flat, x flat, y flat) for every element of Out.
template <typename Fn>
void ForEachKronElement(const KronShape& s, Fn&& fn) {
  const int rank = static_cast<int>(s.out.size());
  int64_t n = 1;
  for (int64_t d : s.out) n *= d;
  std::vector<int64_t> index(rank, 0);
  for (int64_t o = 0; o < n; ++o) {
    int64_t xf = 0, yf = 0;
    for (int d = 0; d < rank; ++d) {
      xf = xf * s.x[d] + index[d] / s.y[d];
      yf = yf * s.y[d] + index[d] % s.y[d];
    }
    fn(o, xf, yf);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < s.out[d]) break;
      index[d] = 0;
    }
  }
}

template <typename T>
struct KronKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const KronShape s = KronShapeOf(x->dims(), y->dims());
    DenseTensor out(DDim(s.out), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* a = x->numel() > 0 ? x->data<T>() : nullptr;
    const T* b = y->numel() > 0 ? y->data<T>() : nullptr;
    ForEachKronElement(s, [&](int64_t oi, int64_t xi, int64_t yi) { o[oi] = a[xi] * b[yi]; });
    *ctx.Output("Out") = std::move(out);
  }
};

void KronGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Y", "Out@GRAD"}) ctx->RequireInput(slot);
  if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  if (ctx->HasOutput("Y@GRAD")) ctx->SetOutputDim("Y@GRAD", ctx->GetInputDim("Y"));
}

template <typename T>
struct KronGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const KronShape s = KronShapeOf(x->dims(), y->dims());
    PL_ENFORCE(
        dout->dims() == DDim(s.out),
        errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                ctx.Type(), DDim(s.out).ToString(), dout->dims().ToString()));
    DenseTensor dx(x->dims(), x->dtype()), dy(y->dims(), y->dtype());
    T* gx = dx.mutable_data<T>(ctx.GetPlace());
    T* gy = dy.mutable_data<T>(ctx.GetPlace());
    std::fill(gx, gx + dx.numel(), T(0));
    std::fill(gy, gy + dy.numel(), T(0));
    const T* a = x->numel() > 0 ? x->data<T>() : nullptr;
    const T* b = y->numel() > 0 ? y->data<T>() : nullptr;
    const T* g = dout->numel() > 0 ? dout->data<T>() : nullptr;
    ForEachKronElement(s, [&](int64_t oi, int64_t xi, int64_t yi) {
      gx[xi] += g[oi] * b[yi];
      gy[yi] += g[oi] * a[xi];
    });
    if (DenseTensor* o = ctx.Output("X@GRAD")) *o = std::move(dx);
    if (DenseTensor* o = ctx.Output("Y@GRAD")) *o = std::move(dy);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterCrossKronOps) {
  framework::RegisterOp<BinaryTensorOp, CrossOpMaker>("cross")
      .InferShape(CrossInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(CrossGradMaker);
  RegisterPlainCpuNumericKernels<CrossKernel>("cross");

  const framework::FusedGradDecl kron_grad{
      {"X", "Y"},
      {"Out"},
      {"X", "Y"},
      R"DOC($$dX[i] = \sum_j dOut[i d_Y + j] Y[j], \quad dY[j] = \sum_i dOut[i d_Y + j] X[i]$$)DOC"};
  framework::RegisterOp<BinaryTensorOp, KronOpMaker>("kron")
      .InferShape(KronInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(kron_grad));
  RegisterPlainCpuNumericKernels<KronKernel>("kron");
  framework::RegisterFusedGradOp("kron", kron_grad).InferShape(KronGradInferShape);
  RegisterPlainCpuFloatKernels<KronGradKernel>("kron_grad");
}

}  // namespace operators
}  // namespace paddle_like

// dot (row-wise inner products, paddle.dot) and mv (matrix times vector, paddle.mv), with
// fused backwards.
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class DotOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N] or [B, N].");
    AddInput("Y", "X's shape.");
    AddOutput("Out", "[] (0-D) for vectors, [B] for matrices: one inner product per row.");
    AddComment(R"DOC(
Dot product of the last dim: $$Out[b] = \sum_{n} X[b, n] \, Y[b, n]$$
Example: X = [1, 2, 3], Y = [4, 5, 6] -> 32.

Gradient, by the fused op dot_grad: dX[b, n] = dOut[b] Y[b, n], dY[b, n] = dOut[b] X[b, n].
)DOC");
  }
};

class MvOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[M, N].");
    AddInput("Vec", "[N].");
    AddOutput("Out", "[M].");
    AddComment(R"DOC(
Matrix-vector product: $$Out[m] = \sum_{n} X[m, n] \, Vec[n]$$
Example: X = [[1, 2], [3, 4]], Vec = [1, 1] -> [3, 7].

Gradient, by the fused op mv_grad: dX[m, n] = dOut[m] Vec[n], dVec = X^T dOut.
)DOC");
  }
};

class ProductOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

DDim DotOutDims(const std::string& op, const DDim& x, const DDim& y) {
  PL_ENFORCE(x.size() == 1 || x.size() == 2,
             errors::InvalidArgument("op `%s` input `X`: expected rank 1 or 2, received %s", op,
                                     x.ToString()));
  CheckSameShape(op, "Y", y, "X", x);
  return x.size() == 1 ? DDim() : DDim{x[0]};
}

DDim MvOutDims(const std::string& op, const DDim& x, const DDim& vec) {
  PL_ENFORCE(x.size() == 2, errors::InvalidArgument("op `%s` input `X`: expected rank 2 [M, N], "
                                                    "received %s",
                                                    op, x.ToString()));
  PL_ENFORCE(vec.size() == 1 && (x[1] < 0 || vec[0] < 0 || x[1] == vec[0]),
             errors::InvalidArgument("op `%s` input `Vec`: expected shape [%lld] (X's columns), "
                                     "received %s",
                                     op, static_cast<long long>(x[1]), vec.ToString()));
  return DDim{x[0]};
}

template <typename T>
struct DotKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    DenseTensor out(DotOutDims(ctx.Type(), x->dims(), y->dims()), x->dtype());
    const int64_t n = x->dims()[x->dims().size() - 1];
    const int64_t rows = out.numel();
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* a = x->data<T>();
    const T* b = y->data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      T s = T(0);
      for (int64_t k = 0; k < n; ++k) s += a[r * n + k] * b[r * n + k];
      o[r] = s;
    }
    *ctx.Output("Out") = std::move(out);
  }
};

template <typename T>
struct MvKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* vec = ctx.Input("Vec");
    DenseTensor out(MvOutDims(ctx.Type(), x->dims(), vec->dims()), x->dtype());
    const int64_t m = x->dims()[0], n = x->dims()[1];
    T* o = out.mutable_data<T>(ctx.GetPlace());
    if (m > 0 && n == 0) std::fill(o, o + m, T(0));
    if (m > 0 && n > 0) {
      math::Gemm<T>(ctx.device_context<platform::CPUDeviceContext>(), false, false, m, 1, n, T(1),
                    x->data<T>(), n, vec->data<T>(), 1, T(0), o, 1);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void DotGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Y", "Out@GRAD"}) ctx->RequireInput(slot);
  if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  if (ctx->HasOutput("Y@GRAD")) ctx->SetOutputDim("Y@GRAD", ctx->GetInputDim("Y"));
}

template <typename T>
struct DotGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const DDim want = DotOutDims(ctx.Type(), x->dims(), y->dims());
    PL_ENFORCE(dout->dims() == want,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), want.ToString(), dout->dims().ToString()));
    const int64_t n = x->dims()[x->dims().size() - 1];
    const T* d = dout->data<T>();
    // dX from Y and dY from X: the same loop with the roles swapped.
    for (const auto& [slot, other] : {std::pair<const char*, const DenseTensor*>{"X@GRAD", y},
                                      std::pair<const char*, const DenseTensor*>{"Y@GRAD", x}}) {
      DenseTensor* grad = ctx.Output(slot);
      if (grad == nullptr) continue;
      DenseTensor g(x->dims(), dout->dtype());
      T* gd = g.mutable_data<T>(ctx.GetPlace());
      const T* src = other->template data<T>();
      for (int64_t i = 0; i < g.numel(); ++i) gd[i] = d[i / n] * src[i];
      *grad = std::move(g);
    }
  }
};

void MvGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Vec", "Out@GRAD"}) ctx->RequireInput(slot);
  if (ctx->HasOutput("X@GRAD")) ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  if (ctx->HasOutput("Vec@GRAD")) ctx->SetOutputDim("Vec@GRAD", ctx->GetInputDim("Vec"));
}

template <typename T>
struct MvGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* vec = ctx.Input("Vec");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const DDim want = MvOutDims(ctx.Type(), x->dims(), vec->dims());
    PL_ENFORCE(dout->dims() == want,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), want.ToString(), dout->dims().ToString()));
    const int64_t m = x->dims()[0], n = x->dims()[1];
    const T* d = dout->data<T>();
    if (DenseTensor* dx = ctx.Output("X@GRAD")) {
      DenseTensor g(x->dims(), dout->dtype());
      T* gd = g.mutable_data<T>(ctx.GetPlace());
      const T* v = vec->data<T>();
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t k = 0; k < n; ++k) gd[i * n + k] = d[i] * v[k];
      }
      *dx = std::move(g);
    }
    if (DenseTensor* dvec = ctx.Output("Vec@GRAD")) {
      DenseTensor g(vec->dims(), dout->dtype());
      T* gd = g.mutable_data<T>(ctx.GetPlace());
      std::fill(gd, gd + n, T(0));
      if (m > 0 && n > 0) {
        math::Gemm<T>(ctx.device_context<platform::CPUDeviceContext>(), true, false, n, 1, m, T(1),
                      x->data<T>(), n, d, 1, T(0), gd, 1);
      }
      *dvec = std::move(g);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterDotMvOps) {
  const framework::FusedGradDecl dot_grad{
      {"X", "Y"},
      {"Out"},
      {"X", "Y"},
      R"DOC($$dX[b, n] = dOut[b] \, Y[b, n], \quad dY[b, n] = dOut[b] \, X[b, n]$$)DOC"};
  framework::RegisterOp<ProductOp, DotOpMaker>("dot")
      .InferShape([](InferShapeContext* ctx) {
        ctx->RequireInput("X");
        ctx->RequireInput("Y");
        ctx->RequireOutput("Out");
        ctx->SetOutputDim("Out",
                          DotOutDims(ctx->OpType(), ctx->GetInputDim("X"), ctx->GetInputDim("Y")));
      })
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(dot_grad));
  RegisterPlainCpuNumericKernels<DotKernel>("dot");
  framework::RegisterFusedGradOp("dot", dot_grad).InferShape(DotGradInferShape);
  RegisterPlainCpuFloatKernels<DotGradKernel>("dot_grad");

  const framework::FusedGradDecl mv_grad{
      {"X", "Vec"},
      {"Out"},
      {"X", "Vec"},
      R"DOC($$dX[m, n] = dOut[m] \, Vec[n], \quad dVec = X^T dOut$$)DOC"};
  framework::RegisterOp<ProductOp, MvOpMaker>("mv")
      .InferShape([](InferShapeContext* ctx) {
        ctx->RequireInput("X");
        ctx->RequireInput("Vec");
        ctx->RequireOutput("Out");
        ctx->SetOutputDim("Out",
                          MvOutDims(ctx->OpType(), ctx->GetInputDim("X"), ctx->GetInputDim("Vec")));
      })
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(mv_grad));
  RegisterPlainCpuFloatKernels<MvKernel>("mv");
  framework::RegisterFusedGradOp("mv", mv_grad).InferShape(MvGradInferShape);
  RegisterPlainCpuFloatKernels<MvGradKernel>("mv_grad");
}

}  // namespace operators
}  // namespace paddle_like

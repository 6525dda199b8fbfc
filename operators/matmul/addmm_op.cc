// addmm: Beta * Input + Alpha * X Y with Input broadcast to the product's shape
// (paddle.addmm), and its fused backward.
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "addmm";

class AddmmOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "[M, N], [1, N], [M, 1], [1, 1], [N] or [1]: broadcast to [M, N].");
    AddInput("X", "[M, K].");
    AddInput("Y", "[K, N].");
    AddOutput("Out", "[M, N].");
    AddAttr<float>("Alpha", "Scale of X Y.").SetDefault(1.0f);
    AddAttr<float>("Beta", "Scale of Input.").SetDefault(1.0f);
    AddComment(R"DOC(
Add and matrix-multiply: $$Out = \beta \, Input + \alpha \, X Y$$
with a rank-1 Input read as one row. Example: Input = [10, 20], X = [[1, 2]],
Y = [[1, 0], [1, 1]], alpha 1, beta 1 -> Out = [[13, 22]].

Gradient, by the fused op addmm_grad: dInput = beta dOut summed over the broadcast dims,
dX = alpha dOut Y^T, dY = alpha X^T dOut.
)DOC");
  }
};

class AddmmOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

// Input seen as [rows, cols] (rank 1: one row), checked to broadcast to [m, n].
struct InputView {
  int64_t rows = 1, cols = 1;
};

InputView CheckShapes(const std::string& op, const DDim& input, const DDim& x, const DDim& y,
                      int64_t* m, int64_t* n) {
  PL_ENFORCE(x.size() == 2, errors::InvalidArgument("op `%s` input `X`: expected rank 2 [M, K], "
                                                    "received %s",
                                                    op, x.ToString()));
  PL_ENFORCE(y.size() == 2 && (x[1] < 0 || y[0] < 0 || x[1] == y[0]),
             errors::InvalidArgument("op `%s` input `Y`: expected [%lld, N] (X's columns), "
                                     "received %s",
                                     op, static_cast<long long>(x[1]), y.ToString()));
  PL_ENFORCE(input.size() == 1 || input.size() == 2,
             errors::InvalidArgument("op `%s` input `Input`: expected rank 1 or 2, received %s", op,
                                     input.ToString()));
  *m = x[0];
  *n = y[1];
  InputView v;
  v.rows = input.size() == 2 ? input[0] : 1;
  v.cols = input[input.size() - 1];
  auto fits = [](int64_t d, int64_t full) { return d < 0 || full < 0 || d == 1 || d == full; };
  PL_ENFORCE(fits(v.rows, *m) && fits(v.cols, *n),
             errors::InvalidArgument("op `%s` input `Input`: shape %s does not broadcast to the "
                                     "product's [%lld, %lld]",
                                     op, input.ToString(), static_cast<long long>(*m),
                                     static_cast<long long>(*n)));
  return v;
}

void AddmmInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Input", "X", "Y"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Out");
  int64_t m = 0, n = 0;
  CheckShapes(ctx->OpType(), ctx->GetInputDim("Input"), ctx->GetInputDim("X"),
              ctx->GetInputDim("Y"), &m, &n);
  ctx->SetOutputDim("Out", DDim{m, n});
}

template <typename T>
struct AddmmKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    int64_t m = 0, n = 0;
    const InputView v = CheckShapes(ctx.Type(), input->dims(), x->dims(), y->dims(), &m, &n);
    const int64_t k = x->dims()[1];
    const T alpha = static_cast<T>(ctx.Attr<float>("Alpha"));
    const T beta = static_cast<T>(ctx.Attr<float>("Beta"));
    DenseTensor out(DDim{m, n}, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = input->data<T>();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        o[i * n + j] = beta * in[(v.rows == 1 ? 0 : i) * v.cols + (v.cols == 1 ? 0 : j)];
      }
    }
    if (out.numel() > 0 && k > 0) {
      math::Gemm<T>(ctx.device_context<platform::CPUDeviceContext>(), false, false, m, n, k, alpha,
                    x->data<T>(), k, y->data<T>(), n, T(1), o, n);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void AddmmGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Input", "X", "Y"}) {
    const std::string grad = std::string(slot) + "@GRAD";
    if (ctx->HasOutput(grad)) ctx->SetOutputDim(grad, ctx->GetInputDim(slot));
  }
}

template <typename T>
struct AddmmGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    int64_t m = 0, n = 0;
    const InputView v = CheckShapes(ctx.Type(), input->dims(), x->dims(), y->dims(), &m, &n);
    PL_ENFORCE(dout->dims() == DDim({m, n}),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape [%lld, %lld], "
                                       "received %s",
                                       ctx.Type(), static_cast<long long>(m),
                                       static_cast<long long>(n), dout->dims().ToString()));
    const int64_t k = x->dims()[1];
    const T alpha = static_cast<T>(ctx.Attr<float>("Alpha"));
    const T beta = static_cast<T>(ctx.Attr<float>("Beta"));
    const T* d = dout->data<T>();
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    if (DenseTensor* dinput = ctx.Output("Input@GRAD")) {
      DenseTensor g(input->dims(), dout->dtype());
      T* gd = g.mutable_data<T>(ctx.GetPlace());
      std::fill(gd, gd + g.numel(), T(0));
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          gd[(v.rows == 1 ? 0 : i) * v.cols + (v.cols == 1 ? 0 : j)] += beta * d[i * n + j];
        }
      }
      *dinput = std::move(g);
    }
    if (DenseTensor* dx = ctx.Output("X@GRAD")) {
      DenseTensor g(x->dims(), dout->dtype());
      T* gd = g.mutable_data<T>(ctx.GetPlace());
      std::fill(gd, gd + g.numel(), T(0));
      if (g.numel() > 0 && n > 0) {
        math::Gemm<T>(dev, false, true, m, k, n, alpha, d, n, y->data<T>(), n, T(0), gd, k);
      }
      *dx = std::move(g);
    }
    if (DenseTensor* dy = ctx.Output("Y@GRAD")) {
      DenseTensor g(y->dims(), dout->dtype());
      T* gd = g.mutable_data<T>(ctx.GetPlace());
      std::fill(gd, gd + g.numel(), T(0));
      if (g.numel() > 0 && m > 0) {
        math::Gemm<T>(dev, true, false, k, n, m, alpha, x->data<T>(), k, d, n, T(0), gd, n);
      }
      *dy = std::move(g);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterAddmmOp) {
  const framework::FusedGradDecl grad{
      {"Input", "X", "Y"},
      {"Out"},
      {"Input", "X", "Y"},
      R"DOC($$dInput = \beta \sum_{broadcast} dOut, \quad dX = \alpha \, dOut \, Y^T, \quad
dY = \alpha \, X^T dOut$$)DOC"};
  framework::RegisterOp<AddmmOp, AddmmOpMaker>(kOp)
      .InferShape(AddmmInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<AddmmKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(AddmmGradInferShape);
  RegisterPlainCpuFloatKernels<AddmmGradKernel>("addmm_grad");
}

}  // namespace operators
}  // namespace paddle_like

// Two fused ops of PaddlePaddle's CPU inference passes built on matrix products, as saved
// optimised programs hold them (inference only: no gradient):
//   fusion_repeated_fc_relu  relu(... relu(relu(X W_0 + b_0) W_1 + b_1) ... W_n + b_n), what
//                            repeated_fc_relu_fuse_pass makes of a chain of fc + relu;
//   fusion_squared_mat_sub   scalar ((X Y)^2 - X^2 Y^2), what squared_mat_sub_fuse_pass makes
//                            of the feature-crossing subgraph of recommendation models.
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

// C[m, n] = A[m, k] B[k, n] (row-major), C overwritten.
template <typename T>
void MatMul(const ExecutionContext& ctx, int64_t m, int64_t n, int64_t k, const T* a, const T* b,
            T* c) {
  if (m == 0 || n == 0) return;
  math::Gemm<T>(ctx.device_context<platform::CPUDeviceContext>(), false, false, m, n, k, T(1), a, k,
                b, n, T(0), c, n);
}

// ---- fusion_repeated_fc_relu ----

class FusionRepeatedFcReluOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, K_0]: the input rows.");
    AddInput("W", "The weights W_i [K_i, K_{i+1}], one per layer (at least two).").AsDuplicable();
    AddInput("Bias", "The biases b_i [1, K_{i+1}] (or [K_{i+1}]), one per layer.").AsDuplicable();
    AddOutput("ReluOut", "The outputs of every layer but the last.")
        .AsDuplicable()
        .AsIntermediate()
        .AsDispensable();
    AddOutput("Out", "[N, K_n]: the last layer's output.");
    AddComment(R"DOC(
A chain of fully connected layers, each followed by relu:
$$Y_0 = X, \quad Y_{i+1} = \max(Y_i W_i + b_i, 0), \quad Out = Y_n$$
ReluOut holds Y_1 ... Y_{n-1}.
)DOC");
  }
};

void FusionRepeatedFcReluInferShape(InferShapeContext* ctx) {
  const std::string& op = ctx->OpType();
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const std::vector<DDim> ws = ctx->GetInputsDim("W");
  const std::vector<DDim> bs = ctx->GetInputsDim("Bias");
  PL_ENFORCE(ws.size() >= 2 && bs.size() == ws.size(),
             errors::InvalidArgument("op `%s` inputs `W` and `Bias`: expected one weight and one "
                                     "bias per layer, at least two layers, received %zu and %zu",
                                     op, ws.size(), bs.size()));
  const DDim x = ctx->GetInputDim("X");
  PL_ENFORCE(x.size() == 2, errors::InvalidArgument("op `%s` input `X`: expected a [N, K] "
                                                    "matrix, received shape %s",
                                                    op, x.ToString()));
  int64_t width = x[1];
  for (size_t i = 0; i < ws.size(); ++i) {
    const DDim& w = ws[i];
    PL_ENFORCE(w.size() == 2 && (width < 0 || w[0] < 0 || w[0] == width),
               errors::InvalidArgument("op `%s` input `W` #%zu: expected [%lld, K], received "
                                       "shape %s",
                                       op, i, static_cast<long long>(width), w.ToString()));
    const DDim& b = bs[i];
    const int64_t b_width = b.size() > 0 ? b[b.size() - 1] : -1;
    PL_ENFORCE((b.size() == 1 || (b.size() == 2 && (b[0] < 0 || b[0] == 1))) &&
                   (b_width < 0 || w[1] < 0 || b_width == w[1]),
               errors::InvalidArgument("op `%s` input `Bias` #%zu: expected [1, %lld] or "
                                       "[%lld], received shape %s",
                                       op, i, static_cast<long long>(w[1]),
                                       static_cast<long long>(w[1]), b.ToString()));
    width = w[1];
  }
  // ReluOut holds a layer's output for each variable it names, up to the last but one.
  for (size_t i = 0; i < ctx->OutputSize("ReluOut") && i + 1 < ws.size(); ++i) {
    ctx->SetOutputDim("ReluOut", DDim{x[0], ws[i][1]}, i);
  }
  ctx->SetOutputDim("Out", DDim{x[0], width});
}

class FusionRepeatedFcReluOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

template <typename T>
struct FusionRepeatedFcReluKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<const DenseTensor*> ws = ctx.MultiInput("W");
    const std::vector<const DenseTensor*> bs = ctx.MultiInput("Bias");
    DenseTensor y = *ctx.Input("X");
    const int64_t rows = y.dims()[0];
    const std::vector<DenseTensor*> relu_outs =
        ctx.HasOutput("ReluOut") ? ctx.MultiOutput("ReluOut") : std::vector<DenseTensor*>();
    for (size_t i = 0; i < ws.size(); ++i) {
      const int64_t k = ws[i]->dims()[0], n = ws[i]->dims()[1];
      DenseTensor next(DDim{rows, n}, y.dtype());
      T* o = next.mutable_data<T>(ctx.GetPlace());
      MatMul<T>(ctx, rows, n, k, y.data<T>(), ws[i]->data<T>(), o);
      const T* b = bs[i]->data<T>();
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < n; ++j) {
          const T v = o[r * n + j] + b[j];
          o[r * n + j] = v > T(0) ? v : T(0);
        }
      }
      if (i + 1 < ws.size() && i < relu_outs.size() && relu_outs[i] != nullptr) {
        *relu_outs[i] = next;  // Shares the buffer: the next layer only reads it.
      }
      y = std::move(next);
    }
    *ctx.Output("Out") = std::move(y);
  }
};

// ---- fusion_squared_mat_sub ----

class FusionSquaredMatSubOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[M, K].");
    AddInput("Y", "[K, N].");
    AddOutput("SquaredX", "[M, K]: X^2 elementwise.").AsIntermediate().AsDispensable();
    AddOutput("SquaredY", "[K, N]: Y^2 elementwise.").AsIntermediate().AsDispensable();
    AddOutput("SquaredXY", "[M, N]: (X Y)^2 elementwise.").AsIntermediate().AsDispensable();
    AddOutput("Out", "[M, N].");
    AddAttr<float>("scalar", "The factor of the difference.").SetDefault(1.0f);
    AddComment(R"DOC(
The square of a product less the product of the squares (squares elementwise):
$$Out = scalar \cdot \left( (X Y)^{\circ 2} - X^{\circ 2} \, Y^{\circ 2} \right)$$
)DOC");
  }
};

void FusionSquaredMatSubInferShape(InferShapeContext* ctx) {
  const std::string& op = ctx->OpType();
  for (const char* slot : {"X", "Y"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const DDim y = ctx->GetInputDim("Y");
  PL_ENFORCE(x.size() == 2 && y.size() == 2 && (x[1] < 0 || y[0] < 0 || x[1] == y[0]),
             errors::InvalidArgument("op `%s` inputs `X` and `Y`: expected matrices [M, K] and "
                                     "[K, N], received shapes %s and %s",
                                     op, x.ToString(), y.ToString()));
  if (ctx->HasOutput("SquaredX")) ctx->SetOutputDim("SquaredX", x);
  if (ctx->HasOutput("SquaredY")) ctx->SetOutputDim("SquaredY", y);
  if (ctx->HasOutput("SquaredXY")) ctx->SetOutputDim("SquaredXY", DDim{x[0], y[1]});
  ctx->SetOutputDim("Out", DDim{x[0], y[1]});
}

class FusionSquaredMatSubOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

template <typename T>
DenseTensor Squared(const ExecutionContext& ctx, const DenseTensor& t) {
  DenseTensor out(t.dims(), t.dtype());
  T* o = out.mutable_data<T>(ctx.GetPlace());
  const T* in = t.data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) o[i] = in[i] * in[i];
  return out;
}

template <typename T>
struct FusionSquaredMatSubKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const int64_t m = x->dims()[0], k = x->dims()[1], n = y->dims()[1];
    const DenseTensor x2 = Squared<T>(ctx, *x);
    const DenseTensor y2 = Squared<T>(ctx, *y);
    DenseTensor xy(DDim{m, n}, x->dtype()), x2y2(DDim{m, n}, x->dtype()),
        out(DDim{m, n}, x->dtype());
    T* p = xy.mutable_data<T>(ctx.GetPlace());
    T* q = x2y2.mutable_data<T>(ctx.GetPlace());
    MatMul<T>(ctx, m, n, k, x->data<T>(), y->data<T>(), p);
    MatMul<T>(ctx, m, n, k, x2.data<T>(), y2.data<T>(), q);
    const T scalar = static_cast<T>(ctx.Attr<float>("scalar"));
    T* o = out.mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < m * n; ++i) {
      p[i] = p[i] * p[i];
      o[i] = scalar * (p[i] - q[i]);
    }
    if (ctx.HasOutput("SquaredX")) *ctx.Output("SquaredX") = x2;
    if (ctx.HasOutput("SquaredY")) *ctx.Output("SquaredY") = y2;
    if (ctx.HasOutput("SquaredXY")) *ctx.Output("SquaredXY") = std::move(xy);
    *ctx.Output("Out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterFusionFcOps) {
  framework::RegisterOp<FusionRepeatedFcReluOp, FusionRepeatedFcReluOpMaker>(
      "fusion_repeated_fc_relu")
      .InferShape(FusionRepeatedFcReluInferShape)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<FusionRepeatedFcReluKernel>("fusion_repeated_fc_relu");
  framework::RegisterOp<FusionSquaredMatSubOp, FusionSquaredMatSubOpMaker>("fusion_squared_mat_sub")
      .InferShape(FusionSquaredMatSubInferShape)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<FusionSquaredMatSubKernel>("fusion_squared_mat_sub");
}

}  // namespace operators
}  // namespace paddle_like

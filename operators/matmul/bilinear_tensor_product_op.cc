// bilinear_tensor_product (paddle.nn.Bilinear, PIR's `bilinear`): one bilinear form of the two
// inputs per output feature, with a fused backward.
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

constexpr char kOp[] = "bilinear_tensor_product";

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMap = Eigen::Map<const RowMatrix<T>>;
template <typename T>
using Map = Eigen::Map<RowMatrix<T>>;

class BilinearTensorProductOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[B, M].");
    AddInput("Y", "[B, N].");
    AddInput("Weight", "[S, M, N]: one M x N matrix per output feature.");
    AddInput("Bias", "[1, S], optional.").AsDispensable();
    AddOutput("Out", "[B, S].");
    AddComment(R"DOC(
Bilinear tensor product: for each row b and output feature s,
$$Out[b, s] = X[b, :] \, Weight[s] \, Y[b, :]^T + Bias[0, s]$$

Gradient, by the fused op bilinear_tensor_product_grad:
$$dX[b] = \sum_s dOut[b, s] \, Weight[s] \, Y[b]^T, \quad
dY[b] = \sum_s dOut[b, s] \, X[b] \, Weight[s], \quad
dWeight[s] = \sum_b dOut[b, s] \, X[b]^T Y[b], \quad dBias[0, s] = \sum_b dOut[b, s]$$
)DOC");
  }
};

class BilinearTensorProductOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

struct BilinearDims {
  int64_t batch, m, n, s;
};

// Checks the operands' shapes (dims may be -1 at program-build time); `bias` is null without
// a Bias.
BilinearDims CheckBilinearDims(const std::string& op, const DDim& x, const DDim& y, const DDim& w,
                               const DDim* bias) {
  const auto rank = [&op](const char* slot, const DDim& d, int want, const char* form) {
    PL_ENFORCE(d.size() == want,
               errors::InvalidArgument("op `%s` input `%s`: expected rank %d (%s), received %s", op,
                                       slot, want, form, d.ToString()));
  };
  rank("X", x, 2, "[B, M]");
  rank("Y", y, 2, "[B, N]");
  rank("Weight", w, 3, "[S, M, N]");
  const auto same = [&op](const char* slot, const DDim& d, int64_t got, const char* what,
                          int64_t want) {
    PL_ENFORCE(got < 0 || want < 0 || got == want,
               errors::InvalidArgument("op `%s` input `%s` of shape %s: expected %s of %lld, "
                                       "received %lld",
                                       op, slot, d.ToString(), what, static_cast<long long>(want),
                                       static_cast<long long>(got)));
  };
  same("Y", y, y[0], "rows (X's batch)", x[0]);
  same("Weight", w, w[1], "dim 1 (X's columns)", x[1]);
  same("Weight", w, w[2], "dim 2 (Y's columns)", y[1]);
  if (bias != nullptr) {
    rank("Bias", *bias, 2, "[1, S]");
    same("Bias", *bias, (*bias)[0], "dim 0", 1);
    same("Bias", *bias, (*bias)[1], "dim 1 (Weight's dim 0)", w[0]);
  }
  return {x[0] >= 0 ? x[0] : y[0], x[1], y[1], w[0]};
}

void BilinearInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Y", "Weight"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Out");
  const DDim bias = ctx->HasInput("Bias") ? ctx->GetInputDim("Bias") : DDim();
  const BilinearDims d =
      CheckBilinearDims(ctx->OpType(), ctx->GetInputDim("X"), ctx->GetInputDim("Y"),
                        ctx->GetInputDim("Weight"), ctx->HasInput("Bias") ? &bias : nullptr);
  ctx->SetOutputDim("Out", DDim{d.batch, d.s});
}

template <typename T>
struct BilinearKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const DenseTensor* w = ctx.Input("Weight");
    const DenseTensor* bias = ctx.Input("Bias");
    const DDim bias_dims = bias != nullptr ? bias->dims() : DDim();
    const BilinearDims d = CheckBilinearDims(ctx.Type(), x->dims(), y->dims(), w->dims(),
                                             bias != nullptr ? &bias_dims : nullptr);
    DenseTensor out(DDim{d.batch, d.s}, x->dtype());
    Map<T> o(out.mutable_data<T>(ctx.GetPlace()), d.batch, d.s);
    o.setZero();
    if (d.batch > 0 && d.m > 0 && d.n > 0) {
      const ConstMap<T> xm(x->data<T>(), d.batch, d.m), ym(y->data<T>(), d.batch, d.n);
      for (int64_t s = 0; s < d.s; ++s) {
        const ConstMap<T> ws(w->data<T>() + s * d.m * d.n, d.m, d.n);
        o.col(s) = ((xm * ws).array() * ym.array()).rowwise().sum().matrix();
      }
    }
    if (bias != nullptr && d.s > 0) {
      o.rowwise() += ConstMap<T>(bias->data<T>(), 1, d.s).row(0);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void BilinearGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "Y", "Weight"}) {
    const std::string grad = std::string(slot) + "@GRAD";
    if (ctx->HasOutput(grad)) ctx->SetOutputDim(grad, ctx->GetInputDim(slot));
  }
  // The backward does not read Bias: its [1, S] from Weight's S.
  if (ctx->HasOutput("Bias@GRAD"))
    ctx->SetOutputDim("Bias@GRAD", DDim{1, ctx->GetInputDim("Weight")[0]});
}

template <typename T>
struct BilinearGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    const DenseTensor* w = ctx.Input("Weight");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const BilinearDims d = CheckBilinearDims(ctx.Type(), x->dims(), y->dims(), w->dims(), nullptr);
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Out", DDim{d.batch, d.s});
    const auto zeros = [&ctx](const DDim& dims, int64_t rows, int64_t cols, DenseTensor* t) {
      *t = DenseTensor(dims, ctx.Input("X")->dtype());
      Map<T> m(t->mutable_data<T>(ctx.GetPlace()), rows, cols);
      m.setZero();
      return m;
    };
    DenseTensor dx, dy, dw, db;
    Map<T> gx = zeros(x->dims(), d.batch, d.m, &dx);
    Map<T> gy = zeros(y->dims(), d.batch, d.n, &dy);
    Map<T> gw = zeros(w->dims(), d.s, d.m * d.n, &dw);
    if (d.batch > 0 && d.m > 0 && d.n > 0 && d.s > 0) {
      const ConstMap<T> xm(x->data<T>(), d.batch, d.m), ym(y->data<T>(), d.batch, d.n);
      const ConstMap<T> g(dout->data<T>(), d.batch, d.s);
      for (int64_t s = 0; s < d.s; ++s) {
        const ConstMap<T> ws(w->data<T>() + s * d.m * d.n, d.m, d.n);
        const auto gs = g.col(s).asDiagonal();
        gx.noalias() += gs * (ym * ws.transpose());
        gy.noalias() += gs * (xm * ws);
        Map<T>(gw.data() + s * d.m * d.n, d.m, d.n).noalias() = xm.transpose() * (gs * ym);
      }
    }
    if (DenseTensor* o = ctx.Output("X@GRAD")) *o = std::move(dx);
    if (DenseTensor* o = ctx.Output("Y@GRAD")) *o = std::move(dy);
    if (DenseTensor* o = ctx.Output("Weight@GRAD")) *o = std::move(dw);
    if (DenseTensor* o = ctx.Output("Bias@GRAD")) {
      Map<T> gb = zeros(DDim{1, d.s}, 1, d.s, &db);
      if (d.batch > 0 && d.s > 0) {
        gb.row(0) = ConstMap<T>(dout->data<T>(), d.batch, d.s).colwise().sum();
      }
      *o = std::move(db);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterBilinearTensorProductOp) {
  const framework::FusedGradDecl grad{
      {"X", "Y", "Weight"},
      {"Out"},
      {"X", "Y", "Weight", "Bias"},
      R"DOC($$dX[b] = \sum_s dOut[b, s] W_s Y[b]^T, \quad dY[b] = \sum_s dOut[b, s] X[b] W_s,
\quad dW_s = \sum_b dOut[b, s] X[b]^T Y[b], \quad dBias[0, s] = \sum_b dOut[b, s]$$)DOC"};
  framework::RegisterOp<BilinearTensorProductOp, BilinearTensorProductOpMaker>(kOp)
      .InferShape(BilinearInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<BilinearKernel>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(BilinearGradInferShape);
  RegisterPlainCpuFloatKernels<BilinearGradKernel>(std::string(kOp) + "_grad");
}

}  // namespace operators
}  // namespace paddle_like

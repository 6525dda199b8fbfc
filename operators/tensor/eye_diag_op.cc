// eye (an identity-like matrix) and diag_v2 (a vector onto a diagonal, or a diagonal out of a
// matrix; paddle.diag), with diag_v2's fused backward.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/var_type_inference.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

class EyeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddOutput("Out", "[num_rows, num_columns] in `dtype`.");
    AddAttr<int64_t>("num_rows", "Rows (>= 0).");
    AddAttr<int64_t>("num_columns", "Columns (>= 0); -1: num_rows.").SetDefault(-1);
    AddAttr<int>("dtype",
                 "Element type as a VarType number: 2 int32, 3 int64, 5 float32, "
                 "6 float64.")
        .SetDefault(5)
        .InEnum({2, 3, 5, 6});
    AddComment(R"DOC(
Eye: $$Out[i, j] = [i = j]$$ for 0 <= i < num_rows, 0 <= j < num_columns.
Example: num_rows 2, num_columns 3 -> [[1, 0, 0], [0, 1, 0]].
)DOC");
  }
};

class EyeOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext&) const override {
    return static_cast<DataType>(Attr<int>("dtype"));
  }
};

DDim EyeDims(const std::string& op, int64_t rows, int64_t cols) {
  if (cols == -1) cols = rows;
  CheckShapeValues(op, "attributes `num_rows`, `num_columns`", {rows, cols}, false);
  return DDim{rows, cols};
}

void EyeInferShape(InferShapeContext* ctx) {
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", EyeDims(ctx->OpType(), ctx->Attr<int64_t>("num_rows"),
                                   ctx->Attr<int64_t>("num_columns")));
}

void EyeInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", static_cast<DataType>(ctx->Attr<int>("dtype")));
}

template <typename T>
struct EyeKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DDim dims =
        EyeDims(ctx.Type(), ctx.Attr<int64_t>("num_rows"), ctx.Attr<int64_t>("num_columns"));
    DenseTensor out(dims, platform::ToDataType<T>());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    std::fill(o, o + out.numel(), T(0));
    for (int64_t i = 0; i < std::min(dims[0], dims[1]); ++i) o[i * dims[1] + i] = T(1);
    *ctx.Output("Out") = std::move(out);
  }
};

// ---- diag_v2 ----

class DiagV2OpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "A vector (rank 0 or 1) or a matrix (rank 2).");
    AddOutput("Out",
              "For a vector, the square matrix with X on diagonal `offset`; for a "
              "matrix, its diagonal `offset` as a vector.");
    AddAttr<int>("offset", "0: the main diagonal; > 0 above it, < 0 below.").SetDefault(0);
    AddAttr<float>("padding_value", "The off-diagonal value of a matrix made from a vector.")
        .SetDefault(0.0f);
    AddComment(R"DOC(
Diagonal. For a vector x of n elements and k = offset, Out is [n + |k|, n + |k|] with
$$Out[i, i + k] = x_{\min(i, i + k)}$$
and padding_value elsewhere. For a matrix X, Out is the vector of its elements X[i, i + k]
that exist (k must name a diagonal of X). Example: x = [1, 2], offset 1 ->
[[0, 1, 0], [0, 0, 2], [0, 0, 0]]; X = [[1, 2, 3], [4, 5, 6]], offset -1 -> [4].

Gradient, by the fused op diag_v2_grad: for a vector, dx_i is dOut at the diagonal element
it went to; for a matrix, dX is dOut on the diagonal and 0 elsewhere.
)DOC");
  }
};

class DiagV2Op : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

// Where diagonal `offset` of a rows x cols matrix starts and how long it is.
struct Diagonal {
  int64_t row0 = 0, col0 = 0, length = 0;
};

Diagonal DiagonalOf(int64_t rows, int64_t cols, int64_t offset) {
  Diagonal d;
  d.row0 = offset < 0 ? -offset : 0;
  d.col0 = offset > 0 ? offset : 0;
  d.length = std::max<int64_t>(0, std::min(rows - d.row0, cols - d.col0));
  return d;
}

DDim DiagOutDims(const std::string& op, const DDim& x, int offset) {
  PL_ENFORCE(x.size() <= 2, errors::InvalidArgument("op `%s` input `X`: expected rank 0, 1 or 2, "
                                                    "received %s",
                                                    op, x.ToString()));
  if (x.size() < 2) {
    const int64_t n = x.size() == 0 ? 1 : x[0];
    const int64_t side = n < 0 ? -1 : n + std::abs(static_cast<int64_t>(offset));
    CheckShapeValues(op, "output (X's length and attribute `offset`)", {side, side}, true);
    return DDim{side, side};
  }
  if (x[0] < 0 || x[1] < 0) return DDim{-1};
  const bool inside = offset >= 0 ? offset < std::max<int64_t>(x[1], 1)
                                  : -static_cast<int64_t>(offset) < std::max<int64_t>(x[0], 1);
  PL_ENFORCE(inside, errors::InvalidArgument("op `%s` attribute `offset`: %d names no diagonal of "
                                             "X %s",
                                             op, offset, x.ToString()));
  return DDim{DiagonalOf(x[0], x[1], offset).length};
}

void DiagV2InferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out",
                    DiagOutDims(ctx->OpType(), ctx->GetInputDim("X"), ctx->Attr<int>("offset")));
}

template <typename T>
struct DiagV2Kernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const int offset = ctx.Attr<int>("offset");
    const DDim dims = DiagOutDims(ctx.Type(), x->dims(), offset);
    DenseTensor out(dims, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    if (x->dims().size() < 2) {
      std::fill(o, o + out.numel(), static_cast<T>(ctx.Attr<float>("padding_value")));
      const Diagonal d = DiagonalOf(dims[0], dims[1], offset);
      for (int64_t i = 0; i < d.length; ++i) o[(d.row0 + i) * dims[1] + d.col0 + i] = in[i];
    } else {
      const Diagonal d = DiagonalOf(x->dims()[0], x->dims()[1], offset);
      for (int64_t i = 0; i < d.length; ++i) o[i] = in[(d.row0 + i) * x->dims()[1] + d.col0 + i];
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void DiagV2GradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct DiagV2GradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const int offset = ctx.Attr<int>("offset");
    const DDim dims = DiagOutDims(ctx.Type(), x->dims(), offset);
    PL_ENFORCE(dout->dims() == dims,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), dims.ToString(), dout->dims().ToString()));
    DenseTensor dx(x->dims(), dout->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    std::fill(g, g + dx.numel(), T(0));
    const T* d = dout->data<T>();
    if (x->dims().size() < 2) {
      const Diagonal diag = DiagonalOf(dims[0], dims[1], offset);
      for (int64_t i = 0; i < diag.length; ++i) g[i] = d[(diag.row0 + i) * dims[1] + diag.col0 + i];
    } else {
      const Diagonal diag = DiagonalOf(x->dims()[0], x->dims()[1], offset);
      for (int64_t i = 0; i < diag.length; ++i) {
        g[(diag.row0 + i) * x->dims()[1] + diag.col0 + i] = d[i];
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterEyeDiagOps) {
  framework::RegisterOp<EyeOp, EyeOpMaker>("eye")
      .InferShape(EyeInferShape)
      .InferVarType(EyeInferVarType);
  RegisterPlainCpuNumericKernels<EyeKernel>("eye");

  const framework::FusedGradDecl grad{
      {"X"}, {"Out"}, {"X"}, R"DOC($$dx_i = dOut[i + r_0, i + c_0] \text{ (vector X)}, \qquad
dX[i + r_0, i + c_0] = dOut_i \text{ (matrix X)}$$ with (r_0, c_0) where the diagonal starts.)DOC"};
  framework::RegisterOp<DiagV2Op, DiagV2OpMaker>("diag_v2")
      .InferShape(DiagV2InferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuNumericKernels<DiagV2Kernel>("diag_v2");
  framework::RegisterFusedGradOp("diag_v2", grad).InferShape(DiagV2GradInferShape);
  RegisterPlainCpuFloatKernels<DiagV2GradKernel>("diag_v2_grad");
}

}  // namespace operators
}  // namespace paddle_like

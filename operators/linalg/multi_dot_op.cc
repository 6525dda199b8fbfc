// multi_dot: the product of a chain of matrices, multiplied in the order that costs the fewest
// multiply-adds (the classic matrix-chain program), with a fused backward.
#include <limits>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/linalg/linalg_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {
namespace {

class MultiDotOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X",
             "Two or more matrices [rows_i, cols_i] with cols_i = rows_{i+1}; the first may "
             "be a 1-D row vector and the last a 1-D column vector.")
        .AsDuplicable();
    AddOutput("Out", "[rows_1, cols_n], without the dims of 1-D ends ([] when both are 1-D).");
    AddComment(R"DOC(
Product of a chain of matrices, $$Out = X_1 X_2 \cdots X_n$$
computed in the parenthesisation with the fewest multiply-adds.
Gradient, by the fused op multi_dot_grad: $$dX_i = (X_1 \cdots X_{i-1})^T \, dOut \,
(X_{i+1} \cdots X_n)^T$$
)DOC");
  }
};

// The chain as matrices: 1-D ends become [1, K] and [K, 1].
struct Chain {
  std::vector<int64_t> rows, cols;
  DDim out;
};

Chain AnalyzeChain(const std::string& op, const std::vector<DDim>& dims) {
  PL_ENFORCE(dims.size() >= 2,
             errors::InvalidArgument("op `%s` input `X`: expected at least 2 tensors, received %d",
                                     op, dims.size()));
  Chain c;
  const size_t n = dims.size();
  for (size_t i = 0; i < n; ++i) {
    const DDim& d = dims[i];
    const bool end = i == 0 || i + 1 == n;
    PL_ENFORCE(d.size() == 2 || (end && d.size() == 1),
               errors::InvalidArgument("op `%s` input `X` (tensor %d): expected a matrix%s, "
                                       "received %s",
                                       op, i, end ? " or a 1-D vector" : "", d.ToString()));
    if (d.size() == 1) {
      c.rows.push_back(i == 0 ? 1 : d[0]);
      c.cols.push_back(i == 0 ? d[0] : 1);
    } else {
      c.rows.push_back(d[0]);
      c.cols.push_back(d[1]);
    }
    if (i > 0) {
      PL_ENFORCE(c.rows[i] < 0 || c.cols[i - 1] < 0 || c.rows[i] == c.cols[i - 1],
                 errors::InvalidArgument("op `%s` input `X`: tensor %d %s does not chain with "
                                         "tensor %d %s (expected %d rows)",
                                         op, i, d.ToString(), i - 1, dims[i - 1].ToString(),
                                         c.cols[i - 1]));
    }
  }
  std::vector<int64_t> out;
  if (dims[0].size() == 2) out.push_back(c.rows[0]);
  if (dims[n - 1].size() == 2) out.push_back(c.cols[n - 1]);
  c.out = DDim(out);
  return c;
}

void MultiDotInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", AnalyzeChain(ctx->OpType(), ctx->GetInputsDim("X")).out);
}

template <typename T>
std::vector<Matrix<T>> ChainMatrices(const ExecutionContext& ctx, const Chain& c) {
  const auto xs = ctx.MultiInput("X");
  std::vector<Matrix<T>> m;
  for (size_t i = 0; i < xs.size(); ++i)
    m.push_back(linalg::MatrixAt<T>(*xs[i], {1, c.rows[i], c.cols[i]}, 0));
  return m;
}

// split[i][j]: where the cheapest product of matrices i..j splits.
std::vector<std::vector<size_t>> ChainOrder(const Chain& c) {
  const size_t n = c.rows.size();
  std::vector<std::vector<double>> cost(n, std::vector<double>(n, 0.0));
  std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
  for (size_t len = 2; len <= n; ++len) {
    for (size_t i = 0; i + len <= n; ++i) {
      const size_t j = i + len - 1;
      cost[i][j] = std::numeric_limits<double>::infinity();
      for (size_t s = i; s < j; ++s) {
        const double c_ij =
            cost[i][s] + cost[s + 1][j] + static_cast<double>(c.rows[i]) * c.cols[s] * c.cols[j];
        if (c_ij < cost[i][j]) {
          cost[i][j] = c_ij;
          split[i][j] = s;
        }
      }
    }
  }
  return split;
}

template <typename T>
Matrix<T> ChainProduct(const std::vector<Matrix<T>>& m,
                       const std::vector<std::vector<size_t>>& split, size_t i, size_t j) {
  if (i == j) return m[i];
  return ChainProduct(m, split, i, split[i][j]) * ChainProduct(m, split, split[i][j] + 1, j);
}

template <typename T>
struct MultiDotKernel {
  static void Compute(const ExecutionContext& ctx) {
    std::vector<DDim> dims;
    for (const DenseTensor* x : ctx.MultiInput("X")) dims.push_back(x->dims());
    const Chain c = AnalyzeChain(ctx.Type(), dims);
    const std::vector<Matrix<T>> m = ChainMatrices<T>(ctx, c);
    const Matrix<T> product = ChainProduct(m, ChainOrder(c), 0, m.size() - 1);
    DenseTensor out(c.out, ctx.MultiInput("X")[0]->dtype());
    linalg::MatrixAt(out.mutable_data<T>(ctx.GetPlace()), {1, product.rows(), product.cols()}, 0) =
        product;
    *ctx.Output("Out") = std::move(out);
  }
};

void MultiDotGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  const std::vector<DDim> dims = ctx->GetInputsDim("X");
  for (size_t i = 0; i < ctx->OutputSize("X@GRAD"); ++i) ctx->SetOutputDim("X@GRAD", dims[i], i);
}

template <typename T>
struct MultiDotGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const auto xs = ctx.MultiInput("X");
    std::vector<DDim> dims;
    for (const DenseTensor* x : xs) dims.push_back(x->dims());
    const Chain c = AnalyzeChain(ctx.Type(), dims);
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckSameShape(ctx.Type(), "Out@GRAD", dout->dims(), "Out", c.out);
    const std::vector<Matrix<T>> m = ChainMatrices<T>(ctx, c);
    const size_t n = m.size();
    const Matrix<T> g = linalg::MatrixAt<T>(*dout, {1, c.rows[0], c.cols[n - 1]}, 0);
    // prefix[i] = X_1 .. X_i (prefix[0] = I), suffix[i] = X_{i+1} .. X_n (suffix[n-1] = I).
    std::vector<Matrix<T>> prefix(n), suffix(n);
    prefix[0] = Matrix<T>::Identity(c.rows[0], c.rows[0]);
    for (size_t i = 1; i < n; ++i) prefix[i] = prefix[i - 1] * m[i - 1];
    suffix[n - 1] = Matrix<T>::Identity(c.cols[n - 1], c.cols[n - 1]);
    for (size_t i = n - 1; i-- > 0;) suffix[i] = m[i + 1] * suffix[i + 1];
    const auto grads = ctx.MultiOutput("X@GRAD");
    for (size_t i = 0; i < n && i < grads.size(); ++i) {
      if (grads[i] == nullptr) continue;
      DenseTensor dx(dims[i], xs[i]->dtype());
      linalg::MatrixAt(dx.mutable_data<T>(ctx.GetPlace()), {1, c.rows[i], c.cols[i]}, 0) =
          prefix[i].transpose() * g * suffix[i].transpose();
      *grads[i] = std::move(dx);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterMultiDotOp) {
  const framework::FusedGradDecl multi_dot_grad{
      {"X"},
      {"Out"},
      {"X"},
      R"DOC($$dX_i = (X_1 \cdots X_{i-1})^T dOut (X_{i+1} \cdots X_n)^T$$)DOC"};
  linalg::RegisterWithFusedGrad<MultiDotOpMaker, MultiDotKernel, MultiDotGradKernel>(
      "multi_dot", MultiDotInferShape, multi_dot_grad, MultiDotGradInferShape);
}

}  // namespace operators
}  // namespace paddle_like

// gather_nd: slices of X addressed by the last dim of Index, a tuple of leading indices.
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/indexing/index_util.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "gather_nd";

class GatherNdOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to gather from, rank R.");
    AddInput("Index", "int32 or int64 tensor [..., K] with K <= R.");
    AddOutput("Out", "Index.dims[:-1] + X.dims[K:], X's dtype.");
    AddComment(R"DOC(
GatherNd operator.

$$Out[i_1, \ldots, i_m, \ldots] = X[Index[i_1, \ldots, i_m, 0], \ldots,
Index[i_1, \ldots, i_m, K-1], \ldots]$$

Each index tuple addresses a slice X[j_0, ..., j_{K-1}, :, ...]; index j_d must be in
[-X.dims[d], X.dims[d]) (negative counts from the end). Example: X [[1, 2], [3, 4]],
Index [[1, 0], [0, 1]] -> Out [3, 2]; Index [[1]] -> Out [[3, 4]].
Gradient: dX = scatter_nd_add(zeros like X, Index, dOut) (repeated index tuples add up;
differentiable again).
)DOC");
  }
};

class GatherNdOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

DDim GatherNdDims(const std::string& op, const DDim& x, const DDim& index) {
  PL_ENFORCE(index.size() >= 1,
             errors::InvalidArgument("op `%s` input `Index`: expected rank >= 1, received a 0-D "
                                     "tensor",
                                     op));
  const int64_t k = index[index.size() - 1];
  PL_ENFORCE(k < 0 || k <= x.size(),
             errors::InvalidArgument("op `%s` input `Index`: expected a last dim <= the rank %d "
                                     "of X, received shape %s",
                                     op, x.size(), index.ToString()));
  std::vector<int64_t> out(index.data(), index.data() + index.size() - 1);
  if (k >= 0) {
    for (int d = static_cast<int>(k); d < x.size(); ++d) out.push_back(x[d]);
  }
  PL_ENFORCE(out.size() <= static_cast<size_t>(DDim::kMaxRank),
             errors::InvalidArgument("op `%s`: the output would have rank %zu, above %d", op,
                                     out.size(), DDim::kMaxRank));
  return DDim(out);
}

void GatherNdInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Index");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", GatherNdDims(ctx->OpType(), ctx->GetInputDim("X"),
                                        ctx->GetInputDim("Index")));
}

template <typename T>
struct GatherNdKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* index_t = ctx.Input("Index");
    const DDim xd = x->dims();
    const DDim out_dims = GatherNdDims(kOp, xd, index_t->dims());
    const std::vector<int64_t> raw = ReadIntValues(*index_t, kOp, "Index");
    const int k = static_cast<int>(index_t->dims()[index_t->dims().size() - 1]);
    int64_t slice = 1;
    for (int d = k; d < xd.size(); ++d) slice *= xd[d];
    DenseTensor fresh(out_dims, x->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    const int64_t tuples = k == 0 ? index_t->numel() : static_cast<int64_t>(raw.size()) / k;
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t offset = 0;
      for (int d = 0; d < k; ++d) {
        int64_t j = raw[t * k + d];
        PL_ENFORCE(j >= -xd[d] && j < xd[d],
                   errors::InvalidArgument("op `%s` input `Index`: index %lld of tuple %lld is "
                                           "outside [%lld, %lld) (dim %d of X)",
                                           kOp, static_cast<long long>(j),
                                           static_cast<long long>(t),
                                           static_cast<long long>(-xd[d]),
                                           static_cast<long long>(xd[d]), d));
        if (j < 0) j += xd[d];
        offset = offset * xd[d] + j;
      }
      if (slice > 0) std::memcpy(out + t * slice, in + offset * slice, sizeof(T) * slice);
    }
    *ctx.Output("Out") = std::move(fresh);
  }
};

// dX = scatter_nd_add(zeros like X, Index, dOut): differentiable ops, so the gradient of the
// gradient is gather_nd again (scatter_nd_add's with respect to Updates).
void GatherNdGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::string zeros = g->NewTemp("zeros");
  g->AddOp("fill_any_like", {{"X", g->Input("X")}}, {{"Out", {zeros}}},
           {{"value", 0.0f}, {"dtype", -1}});
  g->AddOp("scatter_nd_add",
           {{"X", {zeros}}, {"Index", g->Input("Index")}, {"Updates", g->OutputGrad("Out")}},
           {{"Out", g->InputGrad("X")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterGatherNdOp) {
  framework::RegisterOp<GatherNdOp, GatherNdOpMaker>(kOp)
      .InferShape(GatherNdInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(GatherNdGradMaker);
  RegisterPlainCpuElementKernels<GatherNdKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

// meshgrid: from k 1-D tensors, k tensors of shape [n_0, ..., n_{k-1}], the i-th repeating
// X_i along dim i (paddle.meshgrid, "ij" indexing). Its gradients are reduce_sum of each
// output's gradient over the other dims, so every order is differentiable.
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/concat_split_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "meshgrid";

class MeshgridOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "k 1-D tensors (0-D counts as one value), of one dtype.").AsDuplicable();
    AddOutput("Out", "k tensors of shape [n_0, ..., n_{k-1}].").AsDuplicable();
    AddComment(R"DOC(
Meshgrid operator ("ij" indexing):

$$Out_i[j_0, \ldots, j_{k-1}] = X_i[j_i]$$

Gradients, written with reduce_sum: $$dX_i = \sum_{d \ne i} dOut_i$$
)DOC");
  }
};

class MeshgridOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// The grid's shape; InvalidArgumentError naming the op for an input of rank > 1.
std::vector<int64_t> GridShape(const std::string& op, const std::vector<DDim>& xs) {
  std::vector<int64_t> shape;
  for (size_t i = 0; i < xs.size(); ++i) {
    PL_ENFORCE(xs[i].size() <= 1,
               errors::InvalidArgument("op `%s` input `X`: expected 1-D tensors, received %s at "
                                       "position %zu",
                                       op, xs[i].ToString(), i));
    shape.push_back(xs[i].size() == 0 ? 1 : xs[i][0]);
  }
  return shape;
}

void MeshgridInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const std::vector<DDim> xs = ctx->GetInputsDim("X");
  const std::vector<int64_t> shape = GridShape(ctx->OpType(), xs);
  PL_ENFORCE(ctx->OutputSize("Out") == xs.size(),
             errors::InvalidArgument("op `%s`: expected as many outputs `Out` as inputs `X` "
                                     "(%zu), received %zu",
                                     ctx->OpType(), xs.size(), ctx->OutputSize("Out")));
  for (size_t i = 0; i < xs.size(); ++i) {
    ctx->SetOutputDim("Out", DDim(shape), static_cast<int>(i));
  }
}

template <typename T>
struct MeshgridKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<const DenseTensor*> xs = ctx.MultiInput("X");
    const std::vector<DenseTensor*> outs = ctx.MultiOutput("Out");
    std::vector<DDim> dims;
    for (const DenseTensor* x : xs) dims.push_back(x->dims());
    const std::vector<int64_t> shape = GridShape(kOp, dims);
    PL_ENFORCE(outs.size() == xs.size(),
               errors::InvalidArgument("op `%s`: expected as many outputs `Out` as inputs `X` "
                                       "(%zu), received %zu",
                                       kOp, xs.size(), outs.size()));
    const int k = static_cast<int>(shape.size());
    int64_t total = 1;
    for (int64_t n : shape) total *= n;
    for (int i = 0; i < k; ++i) {
      // Element e of the grid takes X_i[(e / stride_i) % n_i].
      int64_t stride = 1;
      for (int d = k - 1; d > i; --d) stride *= shape[d];
      DenseTensor out(DDim(shape), xs[i]->dtype());
      T* o = out.mutable_data<T>(ctx.GetPlace());
      const T* in = xs[i]->data<T>();
      for (int64_t e = 0; e < total; ++e) o[e] = in[(e / stride) % shape[i]];
      *outs[i] = std::move(out);
    }
  }
};

void MeshgridGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::vector<std::string> douts = OutputGradsOrZeros(g, "Out");
  const std::vector<std::string> dxs = g->InputGrad("X");
  const int k = static_cast<int>(dxs.size());
  for (int i = 0; i < k; ++i) {
    if (dxs[i] == framework::kEmptyVarName) continue;
    std::vector<int> others;
    for (int d = 0; d < k; ++d) {
      if (d != i) others.push_back(d);
    }
    if (others.empty()) {
      g->AddOp("assign", {{"X", {douts[i]}}}, {{"Out", {dxs[i]}}});
      continue;
    }
    g->AddOp("reduce_sum", {{"X", {douts[i]}}}, {{"Out", {dxs[i]}}},
             {{"dim", others}, {"keep_dim", false}, {"reduce_all", false}});
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterMeshgridOp) {
  framework::RegisterOp<MeshgridOp, MeshgridOpMaker>(kOp)
      .InferShape(MeshgridInferShape)
      .GradOpMaker(MeshgridGradMaker);
  RegisterPlainCpuKernels<MeshgridKernel, float, double, int32_t, int64_t, bool>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

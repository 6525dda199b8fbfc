// where_index: the positions of the true (non-zero) elements of Condition, row-major
// (paddle.nonzero). No gradient.
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "where_index";

class WhereIndexOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Condition", "Tensor of any rank (bool, or numbers: non-zero counts as true).");
    AddOutput("Out", "int64 [count, rank]: the index of each true element, in row-major order.");
    AddComment(R"DOC(
Where index operator: row r of Out is the multi-index of the r-th true element of Condition
in row-major order, $$Out = \{ (i_0, \ldots, i_{rank-1}) : Condition[i_0, \ldots] \ne 0 \}$$

Out's first dim is known only at run time. No gradient.
)DOC");
  }
};

class WhereIndexOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Condition");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void WhereIndexInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Condition");
  ctx->RequireOutput("Out");
  if (ctx->IsRuntime()) return;  // The kernel sizes Out from the count.
  ctx->SetOutputDim("Out", DDim({-1, ctx->GetInputDim("Condition").size()}));
}

void WhereIndexInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", DataType::INT64);
}

template <typename T>
struct WhereIndexKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* cond = ctx.Input("Condition");
    const DDim dims = cond->dims();
    const int rank = dims.size();
    const T* c = cond->data<T>();
    std::vector<int64_t> hits;
    for (int64_t e = 0; e < dims.numel(); ++e) {
      if (c[e] != T(0)) hits.push_back(e);
    }
    DenseTensor out(DDim({static_cast<int64_t>(hits.size()), rank}), DataType::INT64);
    int64_t* o = out.mutable_data<int64_t>(ctx.GetPlace());
    for (size_t r = 0; r < hits.size(); ++r) {
      int64_t rest = hits[r];
      for (int d = rank - 1; d >= 0; --d) {
        o[r * rank + d] = rest % dims[d];
        rest /= dims[d];
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterWhereIndexOp) {
  framework::RegisterOp<WhereIndexOp, WhereIndexOpMaker>(kOp)
      .InferShape(WhereIndexInferShape)
      .InferVarType(WhereIndexInferVarType)
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuKernels<WhereIndexKernel, bool, float, double, int32_t, int64_t, uint8_t, int8_t,
                          int16_t>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

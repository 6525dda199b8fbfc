// sgd: one step of stochastic gradient descent.
#include "operators/op_family.h"
#include "operators/optimizers/optimizer_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "sgd";

class SgdOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Param", "The parameter to update (float32 or float64).");
    AddInput("LearningRate", "The learning rate, a 1-element tensor.");
    AddInput("Grad",
             "The gradient: a DenseTensor of Param's shape, or SelectedRows whose rows name the "
             "rows of Param to update.");
    AddInput("MasterParam", "With multi_precision: the parameter in its compute precision.")
        .AsDispensable();
    AddOutput("ParamOut", "The updated parameter (usually the same variable as Param).");
    AddOutput("MasterParamOut", "With multi_precision: the updated MasterParam.").AsDispensable();
    AddAttr<bool>("multi_precision",
                  "Update MasterParam and write ParamOut as its value converted to Param's dtype.")
        .SetDefault(false);
    AddComment(R"DOC(
SGD operator: one step of stochastic gradient descent.

$$ParamOut = Param - LearningRate \cdot Grad$$

With a SelectedRows Grad only the listed rows change: for each entry k in the order given,
$$ParamOut[rows_k] \mathrel{-}= LearningRate \cdot value_k$$
so duplicate rows add up. ParamOut may be the same variable as Param.
)DOC");
  }
};

void SgdInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Param", "LearningRate", "Grad"}) ctx->RequireInput(slot);
  ctx->RequireOutput("ParamOut");
  CheckOneElementInputs(ctx, {"LearningRate"});
  SetOutputDimsLike(ctx, {{"ParamOut", "Param"}, {"MasterParamOut", "MasterParam"}});
}

void SgdInferVarType(framework::VarTypeInferenceContext* ctx) {
  SetOutputTypesLike(ctx, {{"ParamOut", "Param"}, {"MasterParamOut", "MasterParam"}});
}

template <typename T>
struct SgdKernel {
  static void Compute(const ExecutionContext& ctx) {
    WithComputeType<T>(ctx, [&](auto tag) { Run<decltype(tag)>(ctx); });
  }

  template <typename MT>
  static void Run(const ExecutionContext& ctx) {
    const DenseTensor* param = ctx.Input("Param");
    const DDim dims = param->dims();
    const int64_t n = param->numel();
    const MT lr = static_cast<MT>(ReadScalarInput(ctx, "LearningRate"));
    const GradInput grad = GetGrad(ctx, dims, platform::ToDataType<T>());
    ParamAccess<T, MT> p = ParamInputs<T, MT>(ctx);
    if (grad.dense != nullptr) {
      const T* g = grad.dense->data<T>();
      AllocParamOutputs(ctx, &p);
      ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
          n, 1 << 14, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) p.Set(i, p.Get(i) - lr * static_cast<MT>(g[i]));
          });
      return;
    }
    // Sparse: copy, then subtract each listed row in order (duplicates accumulate).
    const SelectedRows& sr = *grad.sparse;
    const T* g = sr.value().data<T>();
    AllocParamOutputs(ctx, &p);
    for (int64_t i = 0; i < n; ++i) p.Set(i, p.Get(i));
    const int64_t width = framework::Product(dims, 1, dims.size());
    for (size_t k = 0; k < sr.rows().size(); ++k) {
      const int64_t base = sr.rows()[k] * width;
      const T* gk = g + static_cast<int64_t>(k) * width;
      for (int64_t j = 0; j < width; ++j) {
        p.Set(base + j, p.GetOut(base + j) - lr * static_cast<MT>(gk[j]));
      }
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSgdOp) {
  framework::RegisterOp<OptimizerOp, SgdOpMaker>(kOp)
      .InferShape(SgdInferShape)
      .InferVarType(SgdInferVarType);
  RegisterPlainCpuFloatKernels<SgdKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

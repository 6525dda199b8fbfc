// sum: adds a list of same-shaped tensors; the backward pass uses it to add the gradients
// that several ops produce for one variable.
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/registry_table.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

class SumOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensors to add, all of one shape and dtype.").AsDuplicable();
    AddOutput("Out", "Their sum, same shape as each input.");
    AddAttr<bool>("use_mkldnn", "Runtime hint, ignored.").SetDefault(false).AsExtra();
    AddComment(R"DOC(
Sum operator.

$$Out = \sum_{i} X_i$$

Added in the order of the X list, so the result is reproducible.

Gradient (each wanted input gets its own copy, so the backward pass is differentiable again):
$$dX_i = \mathrm{assign}(dOut)$$
)DOC");
  }
};

class SumOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  // Every input must already have the kernel's dtype: a silent cast would hide a bug in
  // the program.
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void SumInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const auto dims = ctx->GetInputsDim("X");
  for (size_t i = 1; i < dims.size(); ++i) {
    bool same = dims[i].size() == dims[0].size();
    for (int d = 0; same && d < dims[0].size(); ++d) {
      // Unknown build-time dims (-1) match anything.
      same = dims[i][d] == dims[0][d] || dims[i][d] < 0 || dims[0][d] < 0;
    }
    PL_ENFORCE(same, errors::InvalidArgument(
                         "op `%s` input `X`: expected every tensor to have shape %s, received %s "
                         "for tensor #%zu",
                         ctx->OpType(), dims[0].ToString(), dims[i].ToString(), i));
  }
  ctx->SetOutputDim("Out", dims[0]);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct SumKernel {
  static void Compute(const ExecutionContext& ctx) {
    const auto inputs = ctx.MultiInput("X");
    for (size_t i = 0; i < inputs.size(); ++i) {
      PL_ENFORCE(inputs[i]->dtype() == platform::ToDataType<T>(),
                 errors::InvalidArgument("op `sum` input `X` (variable `%s`): expected dtype %s, "
                                         "received %s",
                                         ctx.InputName("X", i),
                                         platform::DataTypeName(platform::ToDataType<T>()),
                                         platform::DataTypeName(inputs[i]->dtype())));
    }
    DenseTensor* out = ctx.Output("Out");
    const int64_t n = out->numel();
    std::vector<const T*> srcs;
    for (const DenseTensor* t : inputs) srcs.push_back(t->data<T>());
    T* o = out->mutable_data<T>(ctx.GetPlace());
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n, 1 << 14, [&srcs, o](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            T acc = srcs[0][i];
            for (size_t k = 1; k < srcs.size(); ++k) acc += srcs[k][i];
            o[i] = acc;
          }
        });
  }
};

// dX_i = assign(dOut) for every input whose gradient is wanted.
void SumGradMaker(framework::GradOpBuilder* g) {
  const std::vector<std::string> grads = g->InputGrad("X");
  bool any = false;
  for (const auto& gi : grads) any |= gi != framework::kEmptyVarName;
  if (!any) return;
  const std::vector<std::string> dout = g->OutputGrad("Out");
  for (const auto& gi : grads) {
    if (gi == framework::kEmptyVarName) continue;
    g->AddOp("assign", {{"X", dout}}, {{"Out", {gi}}});
  }
}

void RegisterSumOp() {
  framework::RegisterOp<SumOp, SumOpMaker>("sum").InferShape(SumInferShape).GradOpMaker(
      SumGradMaker);
  RegisterPlainCpuKernels<SumKernel, float, double, int32_t, int64_t>("sum");
}

}  // namespace operators
}  // namespace paddle_like

// Activation ops (relu, sigmoid, tanh, exp, log, sin, cos, square): one op class, one
// maker template and one kernel template, instantiated per tag of activation_op.h.
#include "operators/activation/activation_op.h"

#include <string>

#include "operators/common.h"
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {
namespace {

template <typename Tag>
class ActivationOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "Output tensor with the shape, dtype and LoD of X.");
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("use_cudnn", "Prefer a cuDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    std::string doc = std::string("Activation operator `") + Tag::kType + "`.\n\n$$" +
                      Tag::kFormula + "$$\n\napplied elementwise.";
    if (Tag::kNote[0] != '\0') doc += std::string(" ") + Tag::kNote;
    AddComment(doc + "\n");
  }
};

class ActivationOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

template <typename Tag>
struct ActivationCpuKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x = ctx.Input("X");
      DenseTensor* out = ctx.Output("Out");
      const typename Tag::template Functor<T> f{};
      const T* in = x->data<T>();
      T* o = out->mutable_data<T>(ctx.GetPlace());
      ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
          x->numel(), 1 << 14, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) o[i] = f(in[i]);
          });
    }
  };
};

}  // namespace

void RegisterActivationOps() {
  ForEachActivation([](auto tag) {
    using Tag = decltype(tag);
    framework::RegisterOp<ActivationOp, ActivationOpMaker<Tag>>(Tag::kType)
        .InferShape(SameShapeInferShape);
    RegisterPlainCpuFloatKernels<ActivationCpuKernel<Tag>::template Kernel>(Tag::kType);
  });
}

}  // namespace operators
}  // namespace paddle_like

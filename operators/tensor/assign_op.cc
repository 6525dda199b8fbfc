// assign: Out = a deep copy of X (or X's tensor array). share_data (what PaddlePaddle 2 programs
// use to hand a tensor on under a new name) runs the same copy.
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

class AssignOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Tensor to copy (any dtype), or a tensor array.");
    AddOutput("Out",
              "A copy of X: same shape, dtype and LoD, its own memory (for an array, "
              "its tensors).");
    AddComment(R"DOC(
Assign operator.

$$Out = X$$

Out receives its own copy of X's data, so later writes to either leave the other unchanged.

Gradient: $$dX = \mathrm{assign}(dOut)$$ (an assign op, differentiable again).
)DOC");
  }
};

class ShareDataOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Tensor to hand on (any dtype).");
    AddOutput("Out", "X's values under another name: same shape, dtype and LoD.");
    AddComment(R"DOC(
ShareData operator.

$$Out = X$$

PaddlePaddle lets Out alias X's memory; here Out owns a copy (outputs own their memory), which
no program can tell apart since neither is written afterwards by share_data.
)DOC");
  }
};

class AssignOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;

  // The copy keeps X's dtype whatever it is.
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }

 protected:
  // X may be a tensor array (PaddlePaddle's while_loop copies an array that a loop replaces
  // through assign), which no kernel takes (a prepared op given one runs RunImpl): its
  // tensors are handed over, as select_input does (their buffers are shared, and a shared
  // buffer is never written through).
  void RunImpl(const framework::Scope& scope, const platform::Place& place) const override {
    const framework::Variable* x = scope.FindVar(Input("X"));
    if (x == nullptr || !x->IsType<framework::DenseTensorArray>()) {
      OperatorWithKernel::RunImpl(scope, place);
      return;
    }
    framework::Variable* out = scope.FindVar(Output("Out"));
    PL_ENFORCE(out != nullptr, errors::NotFound("op `%s` output `Out`: variable `%s` not found",
                                                Type(), Output("Out")));
    if (out == x) return;
    PL_ENFORCE(
        !out->IsInitialized() || out->IsType<framework::DenseTensorArray>(),
        errors::InvalidArgument("op `%s` output `Out` (variable `%s`): X `%s` is a tensor "
                                "array, Out holds %s",
                                Type(), Output("Out"), Input("X"), framework::HeldTypeName(*out)));
    *out->GetMutable<framework::DenseTensorArray>() = x->Get<framework::DenseTensorArray>();
  }
};

// One copy routine serves every dtype: it moves bytes.
template <typename T>
struct AssignKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    if (out == x) return;  // Assigning a variable to itself.
    // The executor gave Out the buffer of an X that dies here (the declared in-place pair):
    // the copy is already there.
    if (x->initialized() && out->holder() == x->holder() && out->raw_data() == x->raw_data() &&
        out->dims() == x->dims() && out->dtype() == x->dtype()) {
      out->set_opaque_layout(x->opaque_layout());
      out->set_lod(x->lod());
      return;
    }
    framework::CopyTensor(*x, ctx.GetPlace(), out);
  }
};

// dX = assign(dOut).
void AssignGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp("assign", {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterAssignOp) {
  framework::RegisterOp<AssignOp, AssignOpMaker>("assign")
      .InferShape(SameShapeInferShape)
      .GradOpMaker(AssignGradMaker);
  // CopyTensor copies within the device the kernel runs on: one kernel for every device.
  RegisterPlainKernelsOnEveryDevice<AssignKernel, float, double, int32_t, int64_t, bool, int16_t,
                                    uint8_t, int8_t, platform::float16, platform::bfloat16,
                                    std::complex<float>, std::complex<double>>("assign");
  // A copy of a temporary that dies at the copy takes its buffer (the values written at the
  // end of a loop's iteration, a branch's results).
  DeclarePlainInPlace("assign", {{"X", "Out"}});
  framework::RegisterOp<AssignOp, ShareDataOpMaker>("share_data")
      .InferShape(SameShapeInferShape)
      .GradOpMaker(AssignGradMaker);
  RegisterPlainKernelsOnEveryDevice<AssignKernel, float, double, int32_t, int64_t, bool, int16_t,
                                    uint8_t, int8_t, platform::float16, platform::bfloat16>(
      "share_data");
}

}  // namespace operators
}  // namespace paddle_like

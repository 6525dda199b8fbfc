// conditional_block: runs its sub-block when its condition holds (the branches of `if` in
// PaddlePaddle's static programs; select_input then picks the branch's result).
// conditional_block_infer, which PaddlePaddle's inference programs may carry instead, has the
// same slots, attributes and meaning (PaddlePaddle registers it with the same proto).
#include <string>
#include <vector>

#include "operators/common.h"
#include "operators/controlflow/control_flow_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class ConditionalBlockOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Cond",
             "The condition: one bool tensor of one element (is_scalar_condition), or "
             "tensors that all must be non-empty.")
        .AsDuplicable();
    AddInput("Input", "The variables of enclosing blocks that the sub-block reads.")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("Out", "The variables of enclosing blocks that the sub-block writes.")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("Scope", "Holder of the branch's scope in PaddlePaddle (unused here).")
        .AsDispensable();
    AddAttr<framework::BlockIndex>("sub_block", "The block to run.");
    AddAttr<bool>("is_scalar_condition",
                  "Cond is one bool of one element (else: run when "
                  "every Cond tensor has elements).")
        .SetDefault(false);
    AddComment(R"DOC(
Conditional block: runs sub_block once when the condition holds, else nothing.
$$run = \begin{cases} Cond_0 & \text{is\_scalar\_condition} \\
  \bigwedge_i \mathrm{numel}(Cond_i) > 0 & \text{otherwise} \end{cases}$$
The sub-block's own variables live in a scope made for the run; what it writes to the
variables of enclosing blocks (Out) stays. When it does not run, Out is left as it was.
No gradient here (inference programs).
)DOC");
  }
};

class ConditionalBlockOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const framework::Scope& scope, const platform::Place& place) const override {
    const std::vector<std::string>& conds = InputNames("Cond");
    bool run = true;
    if (Attr<bool>("is_scalar_condition")) {
      PL_ENFORCE(conds.size() == 1,
                 errors::InvalidArgument("op `%s` input `Cond`: expected one variable with "
                                         "is_scalar_condition, received %zu",
                                         Type(), conds.size()));
      run = ReadCondition(*this, scope, "Cond", conds[0]);
    } else {
      for (const std::string& name : conds) {
        const framework::Variable* v = scope.FindVar(name);
        const DenseTensor* t = v != nullptr ? v->GetIf<DenseTensor>() : nullptr;
        run = run && t != nullptr && t->initialized() && t->numel() > 0;
      }
    }
    if (!run) return;
    auto prepared = PrepareSubBlock(*this, scope, place);
    framework::Executor(place).Run(prepared.get());
  }
};

void ConditionalBlockInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Cond");  // Out's shapes come from the sub-block's ops.
}

}  // namespace

PL_REGISTER_OPS(RegisterConditionalBlockOp) {
  for (const char* type : {"conditional_block", "conditional_block_infer"}) {
    framework::RegisterOp<ConditionalBlockOp, ConditionalBlockOpMaker>(type).InferShape(
        ConditionalBlockInferShape);
  }
}

}  // namespace operators
}  // namespace paddle_like

// while: runs its sub-block as long as its condition holds (the loops of PaddlePaddle's static
// programs, paddle.static.nn.while_loop). The sub-block updates the condition and the loop
// variables, which belong to the enclosing block.
#include <string>

#include "operators/common.h"
#include "operators/controlflow/control_flow_util.h"
#include "operators/op_family.h"
#include "platform/flags.h"

namespace paddle_like {
namespace operators {

namespace {

class WhileOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The variables of enclosing blocks that the loop body reads.")
        .AsDuplicable()
        .AsDispensable();
    AddInput("Condition", "One bool tensor of one element, rewritten by the body.");
    AddOutput("Out", "The variables of enclosing blocks that the body writes.")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("StepScopes", "Holder of the iterations' scopes in PaddlePaddle (unused here).")
        .AsDispensable();
    AddAttr<framework::BlockIndex>("sub_block", "The loop body.");
    AddAttr<bool>("is_test", "Inference program (no gradient).").SetDefault(false);
    AddComment(R"DOC(
While loop: $$\textbf{while } Condition: \ \text{run sub\_block}$$
The body runs in one scope made for the loop (its own variables are reused from iteration to
iteration); it must rewrite Condition, which is read before every iteration. No gradient here
(inference programs).
)DOC");
  }
};

class WhileOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const framework::Scope& scope, const platform::Place& place) const override {
    const std::string cond = Input("Condition");
    if (!ReadCondition(*this, scope, "Condition", cond)) return;
    auto prepared = PrepareSubBlock(*this, scope, place);
    framework::Executor runner(place);
    const int64_t limit = FLAGS_max_while_iterations;
    int64_t iterations = 0;
    do {
      if (limit > 0 && iterations == limit) {
        throw errors::OutOfRange(
            "op `while` (condition `%s`): the loop reached FLAGS_max_while_iterations = %d "
            "iterations with its condition still true",
            cond, limit);
      }
      runner.Run(prepared.get());
      ++iterations;
    } while (ReadCondition(*this, scope, "Condition", cond));
  }
};

void WhileInferShape(InferShapeContext* ctx) { ctx->RequireInput("Condition"); }

}  // namespace

PL_REGISTER_OPS(RegisterWhileOp) {
  framework::RegisterOp<WhileOp, WhileOpMaker>("while").InferShape(WhileInferShape);
}

}  // namespace operators
}  // namespace paddle_like

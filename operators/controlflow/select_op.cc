// select_input and select_output: route one of several variables by an integer mask (how
// PaddlePaddle's static `if` merges the results of its two conditional blocks).
#include <string>
#include <vector>

#include "framework/data_transform.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

class SelectInputOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The candidates; only the selected one must hold a value.").AsDuplicable();
    AddInput("Mask", "int32/int64 tensor of one element: the index of the selected X.");
    AddOutput("Out", "The selected variable's contents.");
    AddComment(R"DOC(
Select input: $$Out = X[Mask]$$ (a copy of the selected variable's tensor or tensor array).
)DOC");
  }
};

class SelectOutputOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The variable to route.");
    AddInput("Mask", "int32/int64 tensor of one element: the index of the Out to write.");
    AddOutput("Out", "The destinations; only the selected one is written.").AsDuplicable();
    AddComment(R"DOC(
Select output: $$Out[Mask] = X$$ (the other outputs are left as they were).
)DOC");
  }
};

int64_t ReadMask(const framework::OperatorBase& op, const framework::Scope& scope,
                 size_t candidates) {
  const std::string name = op.Input("Mask");
  const framework::Variable* v = scope.FindVar(name);
  const DenseTensor* t = v != nullptr ? v->GetIf<DenseTensor>() : nullptr;
  PL_ENFORCE(t != nullptr && t->initialized() && t->numel() == 1,
             errors::InvalidArgument("op `%s` input `Mask` (variable `%s`): expected an integer "
                                     "tensor of one element",
                                     op.Type(), name));
  const int64_t mask = ReadIntValues(*t, op.Type(), "Mask")[0];
  PL_ENFORCE(mask >= 0 && static_cast<size_t>(mask) < candidates,
             errors::InvalidArgument("op `%s` input `Mask` (variable `%s`): expected a value in "
                                     "[0, %zu), received %lld",
                                     op.Type(), name, candidates, static_cast<long long>(mask)));
  return mask;
}

// Copies what `from` holds (a tensor or a tensor array) into `to`.
void CopyVariable(const framework::OperatorBase& op, const std::string& from_name,
                  const framework::Variable& from, framework::Variable* to,
                  const platform::Place& place) {
  if (const DenseTensor* t = from.GetIf<DenseTensor>()) {
    if (t->initialized()) {
      framework::CopyTensor(*t, place, to->GetMutable<DenseTensor>());
      to->GetMutable<DenseTensor>()->set_lod(t->lod());
      return;
    }
  } else if (const auto* a = from.GetIf<framework::DenseTensorArray>()) {
    *to->GetMutable<framework::DenseTensorArray>() = *a;
    return;
  }
  throw errors::InvalidArgument(
      "op `%s`: the selected variable `%s` holds %s, expected a tensor "
      "or a tensor array with a value",
      op.Type(), from_name, framework::HeldTypeName(from));
}

framework::Variable* Required(const framework::OperatorBase& op, const framework::Scope& scope,
                              const std::string& slot, const std::string& name) {
  framework::Variable* v = scope.FindVar(name);
  PL_ENFORCE(v != nullptr,
             errors::NotFound("op `%s` %s: variable `%s` not found", op.Type(), slot, name));
  return v;
}

class SelectInputOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const framework::Scope& scope, const platform::Place& place) const override {
    const std::vector<std::string>& xs = InputNames("X");
    const std::string& chosen = xs[static_cast<size_t>(ReadMask(*this, scope, xs.size()))];
    CopyVariable(*this, chosen, *Required(*this, scope, "input `X`", chosen),
                 Required(*this, scope, "output `Out`", Output("Out")), place);
  }
};

class SelectOutputOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const framework::Scope& scope, const platform::Place& place) const override {
    const std::vector<std::string>& outs = OutputNames("Out");
    const std::string& chosen = outs[static_cast<size_t>(ReadMask(*this, scope, outs.size()))];
    CopyVariable(*this, Input("X"), *Required(*this, scope, "input `X`", Input("X")),
                 Required(*this, scope, "output `Out`", chosen), place);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSelectOps) {
  framework::RegisterOp<SelectInputOp, SelectInputOpMaker>("select_input")
      .InferShape([](InferShapeContext* ctx) { ctx->RequireInput("Mask"); });
  framework::RegisterOp<SelectOutputOp, SelectOutputOpMaker>("select_output")
      .InferShape([](InferShapeContext* ctx) { ctx->RequireInput("Mask"); });
}

}  // namespace operators
}  // namespace paddle_like

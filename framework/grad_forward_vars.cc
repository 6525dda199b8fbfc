#include "framework/grad_forward_vars.h"

#include "framework/block_desc.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {

const VarDesc* FindForwardVar(const GradOpBuilder& g, const std::string& name) {
  const BlockDesc* block = g.Forward().Block();
  return block == nullptr ? nullptr : block->FindVarRecursive(name);
}

DDim DeclaredForwardDims(const GradOpBuilder& g, const std::string& slot, const std::string& name) {
  const VarDesc* v = FindForwardVar(g, name);
  PL_ENFORCE(v != nullptr,
             errors::PreconditionNotMet("op `%s` gradient: input `%s` variable `%s` is not "
                                        "declared in the block, so its rank is unknown",
                                        g.ForwardType(), slot, name));
  return DDim(v->GetShape());
}

bool IsComplexForwardVar(const GradOpBuilder& g, const std::string& name) {
  const VarDesc* v = FindForwardVar(g, name);
  return v != nullptr && v->HasTensorDesc() && platform::IsComplex(v->GetDataType());
}

std::string ConjugatedIfComplex(GradOpBuilder* g, const std::string& var) {
  if (!IsComplexForwardVar(*g, var)) return var;
  const std::string conj = g->NewTemp("conj");
  g->AddOp("conj", {{"X", {var}}}, {{"Out", {conj}}});
  return conj;
}

}  // namespace framework
}  // namespace paddle_like

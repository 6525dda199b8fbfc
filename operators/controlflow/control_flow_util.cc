#include "operators/controlflow/control_flow_util.h"

#include <set>
#include <vector>

#include "framework/block_desc.h"
#include "framework/data_transform.h"
#include "framework/program_desc.h"

namespace paddle_like {
namespace operators {

const framework::BlockDesc& SubBlockOf(const framework::OperatorBase& op) {
  const int idx = op.Attr<framework::BlockIndex>("sub_block").idx;
  PL_ENFORCE(op.Block() != nullptr && op.Block()->Program() != nullptr,
             errors::InvalidArgument("op `%s`: runs sub-block %d but was not created from a "
                                     "program",
                                     op.Type(), idx));
  const framework::ProgramDesc& program = *op.Block()->Program();
  PL_ENFORCE(idx > op.Block()->ID() && static_cast<size_t>(idx) < program.Size(),
             errors::InvalidArgument("op `%s` attribute `sub_block`: block %d is not a later "
                                     "block of the program (%zu blocks, the op is in block %d)",
                                     op.Type(), idx, program.Size(), op.Block()->ID()));
  return program.Block(static_cast<size_t>(idx));
}

std::unique_ptr<framework::PreparedProgram> PrepareSubBlock(const framework::OperatorBase& op,
                                                            const framework::Scope& scope,
                                                            const platform::Place& place) {
  const framework::BlockDesc& block = SubBlockOf(op);
  // Variables the sub-block uses but does not declare belong to enclosing blocks: they must
  // outlive its run and stay row-major for the ops outside.
  std::set<std::string> declared;
  for (const framework::VarDesc* v : block.AllVars()) declared.insert(v->Name());
  std::vector<std::string> outer;
  for (const framework::OpDesc* desc : block.AllOps()) {
    for (const auto& name : desc->InputArgumentNames()) {
      if (!declared.count(name)) outer.push_back(name);
    }
    for (const auto& name : desc->OutputArgumentNames()) {
      if (!declared.count(name)) outer.push_back(name);
    }
  }
  // The executor gave `op` its own local scope, which a control-flow op extends with a kid.
  auto& mutable_scope = const_cast<framework::Scope&>(scope);
  return framework::Executor(place).Prepare(*block.Program(), block.ID(), &mutable_scope, outer);
}

bool ReadCondition(const framework::OperatorBase& op, const framework::Scope& scope,
                   const std::string& slot, const std::string& var) {
  const framework::Variable* v = scope.FindVar(var);
  const DenseTensor* t = v != nullptr ? v->GetIf<DenseTensor>() : nullptr;
  PL_ENFORCE(t != nullptr && t->initialized(),
             errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected a bool tensor "
                                     "of one element, found %s",
                                     op.Type(), slot, var,
                                     v == nullptr ? "no variable" : framework::HeldTypeName(*v)));
  PL_ENFORCE(t->dtype() == DataType::BOOL && t->numel() == 1,
             errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected a bool tensor "
                                     "of one element, received %s of shape %s",
                                     op.Type(), slot, var, platform::DataTypeName(t->dtype()),
                                     t->dims().ToString()));
  return framework::OnCpu(*t).data<bool>()[0];
}

}  // namespace operators
}  // namespace paddle_like

#include "framework/program_validation.h"

#include <set>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/grad_op_maker.h"
#include "framework/op_registry.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {

namespace {

void CheckVersionField(const ProgramDesc& program, const std::string& source) {
  const int64_t v = program.Version();
  PL_ENFORCE(v >= -1, errors::InvalidArgument("program `%s`: version field %lld is negative",
                                              source, static_cast<long long>(v)));
  PL_ENFORCE(v <= kNewestProgramVersion,
             errors::Unimplemented("program `%s`: saved by framework version %lld.%lld.%lld "
                                   "(version field %lld); this runtime reads programs up to "
                                   "3.x",
                                   source, static_cast<long long>(v / 1000000),
                                   static_cast<long long>(v / 1000 % 1000),
                                   static_cast<long long>(v % 1000), static_cast<long long>(v)));
}

// Every variable in `slots` is declared in the block or an ancestor; for an op with kernels
// (`tensors`), every one is declared as a tensor: a dense tensor, SelectedRows or tensor
// array, not a holder the runtime makes (feed, fetch, step scopes, reader, raw), which only
// the ops that run themselves (feed, fetch, control flow) take.
void CheckDeclared(const BlockDesc& block, int block_id, size_t op_index, const OpDesc& op,
                   const VariableNameMap& slots, const char* direction,
                   const std::string& source, bool tensors) {
  for (const auto& [slot, names] : slots) {
    for (const std::string& name : names) {
      if (name == kEmptyVarName) continue;
      const VarDesc* var = block.FindVarRecursive(name);
      PL_ENFORCE(var != nullptr,
                 errors::NotFound("program `%s` block %d op #%zu `%s` %s `%s`: variable `%s` is "
                                  "not declared in the block or its ancestors",
                                  source, block_id, op_index, op.Type(), direction, slot, name));
      const VarKind kind = var->GetKind();
      PL_ENFORCE(!tensors || kind == VarKind::kDenseTensor || kind == VarKind::kSelectedRows ||
                     kind == VarKind::kDenseTensorArray,
                 errors::InvalidArgument("program `%s` block %d op #%zu `%s` %s `%s`: variable "
                                         "`%s` is declared as %s, expected a tensor",
                                         source, block_id, op_index, op.Type(), direction, slot,
                                         name, VarKindName(static_cast<int>(kind))));
    }
  }
}

// The `col` of each op of `type` in block 0 must be 0, 1, ..., n - 1 in some order.
void CheckColumns(const BlockDesc& block, const std::string& type, const std::string& source) {
  std::vector<int> cols;
  for (size_t i = 0; i < block.OpSize(); ++i) {
    const OpDesc* op = block.Op(i);
    if (op->Type() != type || !op->HasAttr("col")) continue;
    Attribute v;
    PL_ENFORCE(CoerceAttribute(op->GetAttr("col"), AttrType::INT, &v),
               errors::InvalidArgument("program `%s` block 0 op #%zu `%s` attribute `col`: "
                                       "expected an int",
                                       source, i, type));
    cols.push_back(std::get<int>(v));
  }
  std::set<int> seen;
  for (int c : cols) {
    PL_ENFORCE(c >= 0 && c < static_cast<int>(cols.size()) && seen.insert(c).second,
               errors::InvalidArgument("program `%s`: the %zu `%s` ops must have `col` 0 to %zu "
                                       "once each, found col %d %s",
                                       source, cols.size(), type, cols.size() - 1, c,
                                       seen.count(c) ? "twice" : "out of range"));
  }
}

// In block 0, every tensor an op reads is a parameter (persistable), fed, or written by an
// earlier op: a program whose ops are out of order would otherwise read an empty variable,
// or run at all only because a pass moved a consumer past its producer.
void CheckReadsFollowWrites(const ProgramDesc& program, const std::string& source,
                            const std::set<std::string>& fed) {
  const BlockDesc& block = program.Block(0);
  std::set<std::string> written = fed;
  for (size_t i = 0; i < block.OpSize(); ++i) {
    const OpDesc& op = *block.Op(i);
    // A control-flow op lists among its inputs whatever its sub-block reads from outside,
    // including loop-carried variables that the sub-block itself writes first (PaddlePaddle's
    // `undefined_var_*`, a tensor array filled in a loop); those start empty.
    const bool runs_sub_block = op.HasAttr("sub_block");
    for (const auto& [slot, names] : op.Inputs()) {
      if (runs_sub_block) break;
      for (const std::string& name : names) {
        const VarDesc* var = block.FindVar(name);
        if (var == nullptr || var->Persistable() || written.count(name)) continue;
        const VarKind kind = var->GetKind();
        // Holders the runtime makes (feed, fetch, step scopes, readers) and tensor arrays,
        // which every run starts empty (a PIR program's create_array reads as one).
        if (kind != VarKind::kDenseTensor && kind != VarKind::kSelectedRows) continue;
        throw errors::InvalidArgument(
            "program `%s` block 0 op #%zu `%s` input `%s`: variable `%s` is read before any op "
            "writes it (it is neither a parameter nor fed; are the ops out of order?)",
            source, i, op.Type(), slot, name);
      }
    }
    for (const auto& [slot, names] : op.Outputs()) written.insert(names.begin(), names.end());
  }
}

}  // namespace

void ValidateProgram(const ProgramDesc& program, const std::string& source,
                     const std::set<std::string>& fed) {
  CheckVersionField(program, source);
  CheckOpVersions(program);
  for (size_t b = 0; b < program.Size(); ++b) {
    const BlockDesc& block = program.Block(static_cast<int>(b));
    for (size_t i = 0; i < block.OpSize(); ++i) {
      const OpDesc& op = *block.Op(i);
      const bool kernels = OpRegistry::CreateOp(op)->HasKernels();
      CheckDeclared(block, static_cast<int>(b), i, op, op.Inputs(), "input", source, kernels);
      CheckDeclared(block, static_cast<int>(b), i, op, op.Outputs(), "output", source, kernels);
    }
  }
  CheckColumns(program.Block(0), "feed", source);
  CheckColumns(program.Block(0), "fetch", source);
  CheckReadsFollowWrites(program, source, fed);
}

}  // namespace framework
}  // namespace paddle_like

// BlockDesc: the variables and the ordered ops of one block of a program. Owns its VarDescs
// and OpDescs; variables keep their insertion order.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/op_desc.h"
#include "framework/var_desc.h"

namespace paddle { namespace framework { namespace proto { class BlockDesc; } } }

namespace paddle_like {
namespace framework {

class ProgramDesc;

class BlockDesc {
 public:
  BlockDesc(ProgramDesc* program, int idx, int parent_idx);
  BlockDesc(ProgramDesc* program, const proto::BlockDesc& desc);
  BlockDesc(const BlockDesc&) = delete;
  BlockDesc& operator=(const BlockDesc&) = delete;

  int ID() const { return idx_; }
  int Parent() const { return parent_idx_; }
  int ForwardBlockID() const { return forward_block_idx_; }
  void SetForwardBlockID(int idx) { forward_block_idx_ = idx; }
  ProgramDesc* Program() const { return program_; }

  // Finds `name` in this block or creates it here (DenseTensor, FLOAT32, unknown shape).
  VarDesc* Var(const std::string& name);
  VarDesc* FindVar(const std::string& name) const;
  // Searches this block, then its ancestors.
  VarDesc* FindVarRecursive(const std::string& name) const;
  bool HasVar(const std::string& name) const { return FindVar(name) != nullptr; }
  void RemoveVar(const std::string& name);
  std::vector<VarDesc*> AllVars() const;

  OpDesc* AppendOp();
  OpDesc* PrependOp();
  OpDesc* InsertOp(size_t index);
  void RemoveOp(size_t begin, size_t end);
  OpDesc* Op(size_t i) const { return ops_.at(i).get(); }
  size_t OpSize() const { return ops_.size(); }
  std::vector<OpDesc*> AllOps() const;

  void ToProto(proto::BlockDesc* out) const;

 private:
  friend class ProgramDesc;  // Re-points program_ when a ProgramDesc moves.
  ProgramDesc* program_;
  int idx_;
  int parent_idx_;
  int forward_block_idx_ = -1;
  std::vector<std::unique_ptr<VarDesc>> vars_;
  std::unordered_map<std::string, VarDesc*> var_index_;
  std::vector<std::unique_ptr<OpDesc>> ops_;
};

}  // namespace framework
}  // namespace paddle_like

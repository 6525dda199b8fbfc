#include "framework/block_desc.h"

#include <algorithm>

#include "framework/framework.pb.h"
#include "framework/program_desc.h"

namespace paddle_like {
namespace framework {

BlockDesc::BlockDesc(ProgramDesc* program, int idx, int parent_idx)
    : program_(program), idx_(idx), parent_idx_(parent_idx) {}

BlockDesc::BlockDesc(ProgramDesc* program, const proto::BlockDesc& desc)
    : program_(program),
      idx_(desc.idx()),
      parent_idx_(desc.parent_idx()),
      forward_block_idx_(desc.forward_block_idx()) {
  for (const auto& v : desc.vars()) {
    auto var = std::make_unique<VarDesc>(v);
    var_index_[var->Name()] = var.get();
    vars_.push_back(std::move(var));
  }
  for (const auto& op : desc.ops()) ops_.push_back(std::make_unique<OpDesc>(op, this));
}

VarDesc* BlockDesc::Var(const std::string& name) {
  if (VarDesc* v = FindVar(name)) return v;
  vars_.push_back(std::make_unique<VarDesc>(name));
  var_index_[name] = vars_.back().get();
  return vars_.back().get();
}

VarDesc* BlockDesc::FindVar(const std::string& name) const {
  auto it = var_index_.find(name);
  return it == var_index_.end() ? nullptr : it->second;
}

VarDesc* BlockDesc::FindVarRecursive(const std::string& name) const {
  for (const BlockDesc* b = this; b != nullptr;
       b = b->parent_idx_ >= 0 ? &program_->Block(b->parent_idx_) : nullptr) {
    if (VarDesc* v = b->FindVar(name)) return v;
  }
  return nullptr;
}

void BlockDesc::RemoveVar(const std::string& name_ref) {
  const std::string name = name_ref;  // May refer to the VarDesc being removed.
  var_index_.erase(name);
  vars_.erase(std::remove_if(vars_.begin(), vars_.end(),
                             [&](const std::unique_ptr<VarDesc>& v) { return v->Name() == name; }),
              vars_.end());
}

std::vector<VarDesc*> BlockDesc::AllVars() const {
  std::vector<VarDesc*> out;
  for (const auto& v : vars_) out.push_back(v.get());
  return out;
}

OpDesc* BlockDesc::AppendOp() { return InsertOp(ops_.size()); }
OpDesc* BlockDesc::PrependOp() { return InsertOp(0); }

OpDesc* BlockDesc::InsertOp(size_t index) {
  auto op = std::make_unique<OpDesc>();
  op->SetBlock(this);
  OpDesc* raw = op.get();
  ops_.insert(ops_.begin() + static_cast<std::ptrdiff_t>(std::min(index, ops_.size())),
              std::move(op));
  return raw;
}

void BlockDesc::RemoveOp(size_t begin, size_t end) {
  ops_.erase(ops_.begin() + static_cast<std::ptrdiff_t>(begin),
             ops_.begin() + static_cast<std::ptrdiff_t>(end));
}

std::vector<OpDesc*> BlockDesc::AllOps() const {
  std::vector<OpDesc*> out;
  for (const auto& op : ops_) out.push_back(op.get());
  return out;
}

void BlockDesc::ToProto(proto::BlockDesc* out) const {
  out->Clear();
  out->set_idx(idx_);
  out->set_parent_idx(parent_idx_);
  if (forward_block_idx_ != -1) out->set_forward_block_idx(forward_block_idx_);
  for (const auto& v : vars_) *out->add_vars() = v->Proto();
  for (const auto& op : ops_) op->ToProto(out->add_ops());
}

}  // namespace framework
}  // namespace paddle_like

#include "framework/backward.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "framework/grad_op_maker.h"
#include "framework/op_info.h"
#include "framework/op_proto_maker.h"
#include "framework/var_type_inference.h"

namespace paddle_like {
namespace framework {

namespace {

bool IsFloating(const VarDesc* v) {
  if (v == nullptr) return true;  // Undeclared: assume it can carry a gradient.
  if (!v->HasTensorDesc()) return false;
  const DataType t = v->GetDataType();
  return t == DataType::UNDEFINED || platform::IsFloatingPoint(t) || platform::IsComplex(t);
}

class BackwardBuilder {
 public:
  BackwardBuilder(ProgramDesc* program, const std::string& loss,
                  const std::set<std::string>& no_grad_set)
      : block_(program->Block(0)), loss_(loss), no_grad_(no_grad_set) {}

  BackwardResult Build();

 private:
  void FindPath();
  std::string GradName(const std::string& var);
  void EmitFor(size_t op_index);
  void AddUpRepeatedGrads();
  void AppendToBlock();

  BlockDesc& block_;
  std::string loss_;
  std::set<std::string> no_grad_;
  size_t loss_op_ = 0;
  std::vector<bool> on_path_;                  // Forward op reaches the loss.
  std::unordered_set<std::string> requires_;   // Variables that get a gradient.
  std::set<std::string> zero_leaves_;          // Leaves whose gradient is exactly 0.
  std::unordered_set<std::string> existing_;   // Names used in the block before the pass.
  std::map<std::string, std::string> grad_of_;
  std::unordered_set<std::string> produced_;   // Gradients some backward op writes.
  std::vector<std::unique_ptr<OpDesc>> ops_;   // The backward ops, in order.
  int temp_counter_ = 0;
};

void BackwardBuilder::FindPath() {
  const size_t n = block_.OpSize();
  bool found = false;
  for (size_t i = n; i-- > 0;) {
    for (const auto& out : block_.Op(i)->OutputArgumentNames()) {
      if (out == loss_) {
        loss_op_ = i;
        found = true;
        break;
      }
    }
    if (found) break;
  }
  PL_ENFORCE(found, errors::NotFound("backward: no op of block 0 produces the loss `%s`", loss_));
  for (const VarDesc* v : block_.AllVars()) existing_.insert(v->Name());
  for (const OpDesc* op : block_.AllOps()) {
    for (const auto& name : op->OutputArgumentNames()) existing_.insert(name);
    for (const auto& name : op->InputArgumentNames()) existing_.insert(name);
  }

  // Which variables get a gradient: forward order up to the loss op.
  auto blocked = [this](const std::string& name) {
    if (no_grad_.count(name)) return true;
    const VarDesc* v = block_.FindVarRecursive(name);
    return (v != nullptr && v->StopGradient()) || !IsFloating(v);
  };
  // `connected`: variables computed from a leaf that can have a gradient. `requires_`: those
  // whose values depend on such a leaf's values. An op's outputs depend on the values of its
  // inputs only through the slots whose data it reads: a no-need-buffer input (fill_any_like's
  // X, reduce_as's Target) passes no gradient on. A leaf the loss depends on only through
  // such slots gets a zero gradient (zero_leaves_, FindPath's end), so that, say, the third
  // derivative of x^2 comes out as 0 rather than missing.
  std::unordered_set<std::string> seen_as_output, connected, leaves;
  for (size_t i = 0; i <= loss_op_; ++i) {
    const OpDesc* op = block_.Op(i);
    bool any_connected = false, any_required = false;
    for (const auto& slot : op->Inputs()) {
      const bool metadata_only = OpInfoMap::Instance().ReadsOnlyMetadata(op->Type(), slot.first);
      for (const auto& in : slot.second) {
        // A leaf (fed data, a parameter): nothing before this op writes it.
        if (!seen_as_output.count(in) && !blocked(in)) {
          leaves.insert(in);
          connected.insert(in);
          if (!metadata_only) requires_.insert(in);
        }
        any_connected |= connected.count(in) > 0;
        any_required |= !metadata_only && requires_.count(in) > 0;
      }
    }
    for (const auto& out : op->OutputArgumentNames()) {
      seen_as_output.insert(out);
      if (blocked(out)) continue;
      if (any_connected) connected.insert(out);
      if (any_required) requires_.insert(out);
    }
  }
  PL_ENFORCE(connected.count(loss_),
             errors::InvalidArgument("backward: the loss `%s` depends on no variable that can "
                                     "have a gradient (all are integer, stop_gradient or in the "
                                     "no-grad set)",
                                     loss_));

  // Which ops reach the loss: reverse order from the loss op. `values_needed`: the variables
  // whose values the loss is computed from (through data slots only).
  on_path_.assign(n, false);
  std::unordered_set<std::string> needed = {loss_}, values_needed = {loss_};
  for (size_t i = loss_op_ + 1; i-- > 0;) {
    const OpDesc* op = block_.Op(i);
    bool reaches = false, reaches_values = false;
    for (const auto& out : op->OutputArgumentNames()) {
      reaches |= needed.count(out) > 0;
      reaches_values |= values_needed.count(out) > 0;
    }
    if (!reaches) continue;
    on_path_[i] = true;
    for (const auto& slot : op->Inputs()) {
      const bool metadata_only = OpInfoMap::Instance().ReadsOnlyMetadata(op->Type(), slot.first);
      for (const auto& in : slot.second) {
        needed.insert(in);
        if (reaches_values && !metadata_only) values_needed.insert(in);
      }
    }
  }
  // Leaves the loss is computed from only through metadata: their gradient is exactly 0.
  for (const auto& leaf : leaves) {
    if (needed.count(leaf) && !values_needed.count(leaf)) zero_leaves_.insert(leaf);
  }
}

std::string BackwardBuilder::GradName(const std::string& var) {
  if (!requires_.count(var) && !zero_leaves_.count(var)) return "";
  auto it = grad_of_.find(var);
  if (it != grad_of_.end()) return it->second;
  std::string name = var + kGradSuffix;
  for (int k = 1; existing_.count(name); ++k) name = var + kGradSuffix + "@" + std::to_string(k);
  existing_.insert(name);
  grad_of_[var] = name;
  return name;
}

void BackwardBuilder::EmitFor(size_t op_index) {
  OpDesc& fwd = *block_.Op(op_index);
  bool any_output_grad = false;
  for (const auto& out : fwd.OutputArgumentNames()) {
    any_output_grad |= requires_.count(out) && produced_.count(GradName(out));
  }
  bool any_input_grad = false;
  for (const auto& in : fwd.InputArgumentNames()) any_input_grad |= requires_.count(in) > 0;
  if (!any_output_grad || !any_input_grad) return;

  const OpInfo& info = OpInfoMap::Instance().Get(fwd.Type());
  PL_ENFORCE(static_cast<bool>(info.grad_op_maker),
             errors::NotFound("backward: op `%s` (producing %s) has no grad maker, so the loss "
                              "`%s` cannot be differentiated through it",
                              fwd.Type(), fwd.OutputArgumentNames().empty() ? std::string("nothing")
                                                                            : fwd.OutputArgumentNames()[0],
                              loss_));
  // Makers read attributes: a loaded or hand-built op may lack the defaulted ones.
  info.checker.Check(fwd.Type(), fwd.MutableAttrs());
  GradOpBuilder builder(fwd, [this](const std::string& v) { return GradName(v); }, &temp_counter_);
  info.grad_op_maker(&builder);
  // Gradients the maker reads but no later op produced are zeros.
  for (const auto& out : builder.ReadOutputGradsOf()) {
    const std::string g = GradName(out);
    if (produced_.count(g)) continue;
    ops_.push_back(std::make_unique<OpDesc>(
        "fill_any_like", VariableNameMap{{"X", {out}}}, VariableNameMap{{"Out", {g}}},
        AttributeMap{{"value", 0.0f}, {"dtype", -1}, {"op_role", static_cast<int>(OpRole::kBackward)}}));
    produced_.insert(g);
  }
  for (auto& op : builder.TakeOps()) {
    // Makers may copy the forward attributes; the role is always Backward.
    op->SetAttr("op_role", static_cast<int>(OpRole::kBackward));
    for (const auto& out : op->OutputArgumentNames()) produced_.insert(out);
    ops_.push_back(std::move(op));
  }
}

void BackwardBuilder::AddUpRepeatedGrads() {
  std::unordered_map<std::string, int> writers;
  for (const auto& op : ops_) {
    for (const auto& out : op->OutputArgumentNames()) {
      if (out != kEmptyVarName) ++writers[out];
    }
  }
  std::unordered_map<std::string, int> seen;
  std::unordered_map<std::string, std::vector<std::string>> parts;
  std::vector<std::unique_ptr<OpDesc>> result;
  for (auto& op : ops_) {
    // Before an op reads a gradient with several writers, add the parts up.
    for (const auto& in : op->InputArgumentNames()) {
      auto it = parts.find(in);
      if (it == parts.end() || it->second.empty()) continue;
      result.push_back(std::make_unique<OpDesc>("sum", VariableNameMap{{"X", it->second}},
                                                VariableNameMap{{"Out", {in}}}, AttributeMap{}));
      it->second.clear();
    }
    for (auto kv : op->Outputs()) {
      for (auto& out : kv.second) {
        if (out == kEmptyVarName || writers[out] < 2) continue;
        const std::string renamed = out + "@RENAME@block0@" + std::to_string(seen[out]++);
        parts[out].push_back(renamed);
        out = renamed;
      }
      op->SetOutput(kv.first, kv.second);
    }
    result.push_back(std::move(op));
  }
  for (auto& kv : parts) {
    if (kv.second.empty()) continue;
    result.push_back(std::make_unique<OpDesc>("sum", VariableNameMap{{"X", kv.second}},
                                              VariableNameMap{{"Out", {kv.first}}}, AttributeMap{}));
  }
  ops_ = std::move(result);
}

void BackwardBuilder::AppendToBlock() {
  for (auto& op : ops_) {
    if (!op->HasAttr("op_role")) op->SetAttr("op_role", static_cast<int>(OpRole::kBackward));
    OpDesc* added = block_.AppendOp();
    *added = *op;
    added->SetBlock(&block_);
    InferVarTypeAndShape(added, &block_);
  }
}

BackwardResult BackwardBuilder::Build() {
  FindPath();
  // The loss op is tagged Forward|Loss; its gradient is seeded with ones.
  block_.Op(loss_op_)->SetAttr("op_role", static_cast<int>(OpRole::kForward) |
                                              static_cast<int>(OpRole::kLoss));
  if (requires_.count(loss_)) {
    const std::string loss_grad = GradName(loss_);
    ops_.push_back(std::make_unique<OpDesc>(
        "fill_any_like", VariableNameMap{{"X", {loss_}}}, VariableNameMap{{"Out", {loss_grad}}},
        AttributeMap{{"value", 1.0f},
                     {"dtype", -1},
                     {"op_role",
                      static_cast<int>(OpRole::kBackward) | static_cast<int>(OpRole::kLoss)}}));
    produced_.insert(loss_grad);
    for (size_t i = loss_op_ + 1; i-- > 0;) {
      if (on_path_[i]) EmitFor(i);
    }
  }
  for (const auto& leaf : zero_leaves_) {
    const std::string g = GradName(leaf);
    ops_.push_back(std::make_unique<OpDesc>(
        "fill_any_like", VariableNameMap{{"X", {leaf}}}, VariableNameMap{{"Out", {g}}},
        AttributeMap{{"value", 0.0f}, {"dtype", -1}}));
    produced_.insert(g);
  }
  AddUpRepeatedGrads();
  AppendToBlock();

  BackwardResult result;
  for (const auto& kv : grad_of_) {
    if (!produced_.count(kv.second)) continue;
    result.grad_of[kv.first] = kv.second;
    const VarDesc* v = block_.FindVarRecursive(kv.first);
    if (v != nullptr && (v->IsParameter() || (v->Persistable() && v->GetKind() == VarKind::kDenseTensor &&
                                               IsFloating(v)))) {
      result.param_grads.emplace_back(kv.first, kv.second);
    }
  }
  return result;
}

}  // namespace

BackwardResult AppendBackward(ProgramDesc* program, const std::string& loss,
                              const std::set<std::string>& no_grad_set) {
  return BackwardBuilder(program, loss, no_grad_set).Build();
}

}  // namespace framework
}  // namespace paddle_like

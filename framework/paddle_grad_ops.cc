#include "framework/paddle_grad_ops.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "framework/block_desc.h"
#include "framework/grad_op_maker.h"
#include "framework/op_info.h"
#include "framework/op_proto_maker.h"
#include "framework/op_registry.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"

namespace paddle_like {
namespace framework {

namespace {

constexpr char kGradTypeSuffix[] = "_grad";

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsGradName(const std::string& name) { return !name.empty() && name != kEmptyVarName; }

// The forward variable a gradient belongs to: "x@GRAD" and the renamed parts of an
// accumulated one, "x@GRAD@RENAME@block0@1", are x's.
std::string ForwardVarOf(const std::string& grad_name) {
  const size_t at = grad_name.find(kGradSuffix);
  return at == std::string::npos ? std::string() : grad_name.substr(0, at);
}

// Whether `forward` holds, in each of its slots that `grad` also has (the forward values
// PaddlePaddle's grad op reads), the variables `grad` names there.
bool AgreesWith(const OpDesc& forward, const OpDesc& grad) {
  for (const auto& [slot, names] : grad.Inputs()) {
    if (EndsWith(slot, kGradSuffix)) continue;
    const std::vector<std::string>& in = forward.Input(slot);
    const std::vector<std::string>& out = forward.Output(slot);
    if (!in.empty() && in != names) return false;
    if (in.empty() && !out.empty() && out != names) return false;
  }
  return true;
}

// The last op of `type` before op `end` that agrees with `grad` and writes `var` (or, with
// `as_input`, reads it); -1 if none.
int FindForwardOp(const BlockDesc& block, size_t end, const std::string& type,
                  const std::string& var, bool as_input, const OpDesc& grad) {
  for (size_t j = end; j-- > 0;) {
    const OpDesc& op = *block.Op(j);
    if (op.Type() != type || !AgreesWith(op, grad)) continue;
    const std::vector<std::string> vars =
        as_input ? op.InputArgumentNames() : op.OutputArgumentNames();
    if (std::find(vars.begin(), vars.end(), var) != vars.end()) return static_cast<int>(j);
  }
  return -1;
}

// The forward op `grad` differentiates: the writer of an output whose gradient it reads, or
// else the reader of an input whose gradient it writes; -1 if none.
int FindForwardOf(const BlockDesc& block, size_t index, const std::string& type) {
  const OpDesc& grad = *block.Op(index);
  for (const bool as_input : {false, true}) {
    const VariableNameMap& slots = as_input ? grad.Outputs() : grad.Inputs();
    for (const auto& [slot, names] : slots) {
      if (!EndsWith(slot, kGradSuffix)) continue;
      for (const auto& n : names) {
        if (!IsGradName(n)) continue;
        const int at = FindForwardOp(block, index, type, ForwardVarOf(n), as_input, grad);
        if (at >= 0) return at;
      }
    }
  }
  return -1;
}

// The backward ops paddle_like's maker emits in place of `grad` (PaddlePaddle's op at index
// `index` of `block`); empty when it cannot stand in for it.
std::vector<std::unique_ptr<OpDesc>> Replacement(const BlockDesc& block, size_t index,
                                                 int* temp_counter) {
  const OpDesc& grad = *block.Op(index);
  const std::string fwd_type =
      grad.Type().substr(0, grad.Type().size() - (sizeof(kGradTypeSuffix) - 1));
  const OpInfoMap& infos = OpInfoMap::Instance();
  if (!infos.Has(fwd_type) || !infos.Get(fwd_type).grad_op_maker) return {};
  const OpInfo& info = infos.Get(fwd_type);

  const int at = FindForwardOf(block, index, fwd_type);
  if (at < 0) return {};
  OpDesc forward = *block.Op(static_cast<size_t>(at));
  // Makers read the slots and attributes a well-formed op has: a forward op that is not
  // (a damaged file) keeps PaddlePaddle's grad op, whose run then reports the fault.
  try {
    OpRegistry::CreateOp(forward);
    info.checker.Check(fwd_type, forward.MutableAttrs());
  } catch (const platform::Error&) {
    return {};
  }

  // Gradient names by forward variable: the input gradients the op writes, the output
  // gradients it reads (a zero-filled stand-in where it reads none).
  std::map<std::string, std::string> input_grads, output_grads;
  std::set<std::string> inputs, zeros;
  for (const auto& [slot, names] : forward.Inputs()) {
    const std::vector<std::string>& g = grad.Output(slot + kGradSuffix);
    for (size_t k = 0; k < names.size(); ++k) {
      // The same variable in two places gets two gradient parts in PaddlePaddle's op, which
      // one name per variable cannot say.
      if (!inputs.insert(names[k]).second) return {};
      if (k < g.size() && IsGradName(g[k])) input_grads[names[k]] = g[k];
    }
  }
  for (const auto& [slot, names] : forward.Outputs()) {
    const std::vector<std::string>& g = grad.Input(slot + kGradSuffix);
    for (size_t k = 0; k < names.size(); ++k) {
      if (inputs.count(names[k])) {
        // Written in place: only a variable without gradients is left so.
        if ((k < g.size() && IsGradName(g[k])) || input_grads.count(names[k])) return {};
        continue;
      }
      if (k < g.size() && IsGradName(g[k])) {
        output_grads[names[k]] = g[k];
      } else {
        const std::string zero = names[k] + kGradSuffix + "@ZERO@" + grad.Type();
        output_grads[names[k]] = zero;
        zeros.insert(zero);
      }
    }
  }
  GradOpBuilder builder(
      forward,
      [&](const std::string& v) {
        if (const auto it = input_grads.find(v); it != input_grads.end()) return it->second;
        if (const auto it = output_grads.find(v); it != output_grads.end()) return it->second;
        return std::string();
      },
      temp_counter);
  info.grad_op_maker(&builder);

  std::vector<std::unique_ptr<OpDesc>> ops;
  std::set<std::string> filled;
  for (const auto& out : builder.ReadOutputGradsOf()) {
    const std::string& g = output_grads.at(out);
    if (!zeros.count(g) || !filled.insert(g).second) continue;
    ops.push_back(std::make_unique<OpDesc>("fill_any_like", VariableNameMap{{"X", {out}}},
                                           VariableNameMap{{"Out", {g}}},
                                           AttributeMap{{"value", 0.0f}, {"dtype", -1}}));
  }
  for (auto& op : builder.TakeOps()) ops.push_back(std::move(op));
  // An input gradient the maker leaves unwritten (a piecewise-constant op such as floor)
  // is zero, as PaddlePaddle's op writes it.
  std::set<std::string> written;
  for (const auto& op : ops) {
    for (const auto& out : op->OutputArgumentNames()) written.insert(out);
  }
  for (const auto& [var, g] : input_grads) {
    if (written.count(g)) continue;
    ops.push_back(std::make_unique<OpDesc>("fill_any_like", VariableNameMap{{"X", {var}}},
                                           VariableNameMap{{"Out", {g}}},
                                           AttributeMap{{"value", 0.0f}, {"dtype", -1}}));
  }
  const Attribute role = grad.HasAttr("op_role") ? grad.GetAttr("op_role")
                                                 : Attribute(static_cast<int>(OpRole::kBackward));
  for (auto& op : ops) op->SetAttr("op_role", role);
  return ops;
}

}  // namespace

int ExpandPaddleGradOps(ProgramDesc* program) {
  const OpInfoMap& infos = OpInfoMap::Instance();
  int expanded = 0;
  int temp_counter = 0;
  for (size_t b = 0; b < program->Size(); ++b) {
    BlockDesc& block = program->Block(b);
    for (size_t i = 0; i < block.OpSize(); ++i) {
      const std::string& type = block.Op(i)->Type();
      if (!EndsWith(type, kGradTypeSuffix) || infos.Has(type)) continue;
      std::vector<std::unique_ptr<OpDesc>> ops = Replacement(block, i, &temp_counter);
      if (ops.empty()) continue;
      block.RemoveOp(i, i + 1);
      for (size_t k = 0; k < ops.size(); ++k) {
        OpDesc* inserted = block.InsertOp(i + k);
        *inserted = std::move(*ops[k]);
        inserted->SetBlock(&block);
        try {
          InferVarTypeAndShape(inserted, &block);
        } catch (const platform::Error&) {
          // The shapes the program declares do not let shape inference run before the
          // program does (the variables and their types exist by then); it runs again with
          // the values' shapes.
        }
      }
      i += ops.size() - 1;
      ++expanded;
    }
  }
  return expanded;
}

}  // namespace framework
}  // namespace paddle_like

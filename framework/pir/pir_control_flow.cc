// The control flow of PIR programs (pd_op.if, pd_op.while and the cf.yield of their
// regions) and their tensor arrays, translated into ProgramDesc sub-blocks: the half of
// pir::Translator that pir_translator.h describes under "Control flow and tensor arrays".
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "framework/pir/pir_translator.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {
namespace pir {

using platform::DataType;

void Translator::AppendCopy(const std::string& from, const std::string& to) {
  if (from == to) return;
  // `assign` copies a tensor, or hands over a tensor array's tensors.
  OpDesc* assign = block_->AppendOp();
  assign->SetType("assign");
  assign->SetInput("X", {from});
  assign->SetOutput("Out", {to});
}

const Value& Translator::OneTensor(const pir::Op& op, size_t i) {
  const Value& v = Lookup(op, i);
  PL_ENFORCE(v.names.size() == 1 && !v.is_vector,
             errors::Unimplemented("%s: operand %zu is a vector of %zu tensors; expected one "
                                   "tensor or tensor array",
                                   Where(op), i, v.names.size()));
  return v;
}

std::string Translator::ControlFlowPrefix(const pir::Op& op) {
  return op.name + "_" + std::to_string(++control_flow_count_) + ".";
}

Translator::TranslatedRegion Translator::OpenRegion(const pir::Op& op, size_t r,
                                                    const std::vector<std::string>& arg_names) {
  PL_ENFORCE(r < op.regions.size() && op.regions[r].blocks.size() == 1,
             errors::InvalidArgument("%s: region %zu should hold one block", Where(op), r));
  const pir::Block& block = op.regions[r].blocks[0];
  PL_ENFORCE(block.args.size() == arg_names.size(),
             errors::InvalidArgument("%s: region %zu takes %zu arguments, expected %zu", Where(op),
                                     r, block.args.size(), arg_names.size()));
  TranslatedRegion t;
  t.parent = block_;
  t.block = desc_.AppendBlock(*block_);
  block_ = t.block;
  for (size_t i = 0; i < block.args.size(); ++i) {
    Value v;
    v.names = {arg_names[i]};
    v.type = block.args[i].type;
    v.constants = {nullptr};
    PL_ENFORCE(values_.emplace(block.args[i].id, v).second,
               errors::InvalidArgument("%s: region %zu argument %zu is value %lld, defined twice",
                                       Where(op), r, i, static_cast<long long>(block.args[i].id)));
  }
  t.yield = TranslateBlockOps(block);
  return t;
}

const pir::Op* Translator::TranslateBlockOps(const pir::Block& block) {
  const pir::Op* yield = nullptr;
  for (const pir::Op& inner : block.ops) {
    if (inner.FullName() == "cf.yield") {
      PL_ENFORCE(&inner == &block.ops.back(),
                 errors::InvalidArgument("%s: yield before the end of its block", Where(inner)));
      yield = &inner;
      continue;
    }
    Translate(inner);
  }
  return yield;
}

std::vector<const Value*> Translator::Yielded(const TranslatedRegion& t) {
  std::vector<const Value*> values;
  if (t.yield == nullptr) return values;
  for (size_t i = 0; i < t.yield->operands.size(); ++i) values.push_back(&OneTensor(*t.yield, i));
  return values;
}

std::pair<std::vector<std::string>, std::vector<std::string>> Translator::CloseRegion(
    const TranslatedRegion& t) {
  std::vector<std::string> reads, writes;
  std::set<std::string> seen_reads, seen_writes;
  for (const OpDesc* op : t.block->AllOps()) {
    for (const auto& name : op->InputArgumentNames()) {
      if (!t.block->HasVar(name) && seen_reads.insert(name).second) reads.push_back(name);
    }
    for (const auto& name : op->OutputArgumentNames()) {
      if (!t.block->HasVar(name) && seen_writes.insert(name).second) writes.push_back(name);
    }
  }
  block_ = t.parent;
  return {reads, writes};
}

void Translator::If(const pir::Op& op) {
  PL_ENFORCE(op.operands.size() == 1 && op.regions.size() == 2,
             errors::InvalidArgument("%s: an if takes one condition and has two regions, found "
                                     "%zu operands and %zu regions",
                                     Where(op), op.operands.size(), op.regions.size()));
  const std::string prefix = ControlFlowPrefix(op);
  const Value& condition = OneTensor(op, 0);
  const std::string cond = condition.names[0];
  // Both conditions before either branch runs: a branch may write the condition's variable.
  const std::string not_cond = prefix + "not_cond";
  const std::string mask = prefix + "branch";
  const ValueType& bool_type = condition.type;
  Declare(not_cond, bool_type);
  OpDesc* negate = block_->AppendOp();
  negate->SetType("logical_not");
  negate->SetInput("X", {cond});
  negate->SetOutput("Out", {not_cond});
  ValueType mask_type = bool_type;
  mask_type.dtype = DataType::INT32;
  Declare(mask, mask_type);
  AppendCast(cond, DataType::BOOL, mask, DataType::INT32);

  // select_input's candidates: the false branch's variable first (mask 0), then the true one.
  std::vector<std::vector<std::string>> candidates(op.results.size());
  const char* kBranchNames[2] = {"true", "false"};
  for (size_t branch = 0; branch < 2; ++branch) {
    TranslatedRegion t = OpenRegion(op, branch, {});
    const std::vector<const Value*> yielded = Yielded(t);
    PL_ENFORCE(yielded.size() == op.results.size(),
               errors::InvalidArgument("%s: region %zu yields %zu values for %zu results",
                                       Where(op), branch, yielded.size(), op.results.size()));
    for (size_t i = 0; i < op.results.size(); ++i) {
      if (op.results[i].id == 0) continue;
      const std::string out = prefix + kBranchNames[branch] + "_" + std::to_string(i);
      Declare(out, op.results[i].type, t.parent);  // The value outlives the branch.
      AppendCopy(yielded[i]->names[0], out);
      candidates[i].insert(branch == 0 ? candidates[i].end() : candidates[i].begin(), out);
    }
    const auto [reads, writes] = CloseRegion(t);
    OpDesc* run = block_->AppendOp();
    run->SetType("conditional_block");
    run->SetInput("Cond", {branch == 0 ? cond : not_cond});
    run->SetInput("Input", reads);
    run->SetOutput("Out", writes);
    run->SetAttr("sub_block", BlockIndex{t.block->ID()});
    run->SetAttr("is_scalar_condition", true);
  }
  for (size_t i = 0; i < op.results.size(); ++i) {
    if (op.results[i].id == 0) continue;
    OpDesc* select = block_->AppendOp();
    select->SetType("select_input");
    select->SetInput("X", candidates[i]);
    select->SetInput("Mask", {mask});
    select->SetOutput("Out", DefineResult(op, op.results[i]));
  }
}

void Translator::While(const pir::Op& op) {
  PL_ENFORCE(
      !op.operands.empty() && op.regions.size() == 1 && op.results.size() + 1 == op.operands.size(),
      errors::InvalidArgument("%s: a while takes a condition and one operand per "
                              "result, found %zu operands, %zu results and %zu regions",
                              Where(op), op.operands.size(), op.results.size(), op.regions.size()));
  const std::string prefix = ControlFlowPrefix(op);
  // The loop's variables: the condition, then one per loop value, named as its result.
  std::vector<std::string> vars = {prefix + "cond"};
  std::vector<ValueType> types = {Lookup(op, 0).type};
  for (const pir::Result& r : op.results) {
    PL_ENFORCE(r.id != 0,
               errors::InvalidArgument("%s: a loop result without a value id", Where(op)));
    vars.push_back(NameFor(op, r.id));
    types.push_back(r.type);
  }
  for (size_t i = 0; i < vars.size(); ++i) {
    const Value& init = OneTensor(op, i);
    // The loop writes its variables: the operands keep their values (a PIR value is never
    // changed by a later op that does not name it as its in-place operand).
    ValueType type = types[i];
    type.is_array = type.is_array || init.type.is_array;
    Declare(vars[i], type);
    AppendCopy(init.names[0], vars[i]);
    types[i] = type;
  }
  TranslatedRegion t = OpenRegion(op, 0, {vars.begin() + 1, vars.end()});
  const std::vector<const Value*> yielded = Yielded(t);
  PL_ENFORCE(yielded.size() == vars.size(),
             errors::InvalidArgument("%s: the body yields %zu values, expected the condition "
                                     "and %zu loop values",
                                     Where(op), yielded.size(), vars.size() - 1));
  // A loop variable yielded as another's next value is read before any is rewritten.
  const std::set<std::string> targets(vars.begin(), vars.end());
  std::vector<std::string> sources;
  for (size_t i = 0; i < vars.size(); ++i) {
    std::string from = yielded[i]->names[0];
    if (from != vars[i] && targets.count(from)) {
      const std::string held = prefix + "next_" + std::to_string(i);
      Declare(held, types[i]);
      AppendCopy(from, held);
      from = held;
    }
    sources.push_back(from);
  }
  for (size_t i = 0; i < vars.size(); ++i) AppendCopy(sources[i], vars[i]);
  const auto [reads, writes] = CloseRegion(t);
  OpDesc* loop = block_->AppendOp();
  loop->SetType("while");
  loop->SetInput("X", reads);
  loop->SetInput("Condition", {vars[0]});
  loop->SetOutput("Out", writes);
  loop->SetAttr("sub_block", BlockIndex{t.block->ID()});
  loop->SetAttr("is_test", true);
  for (size_t i = 0; i < op.results.size(); ++i) {
    Value v;
    v.names = {vars[i + 1]};
    v.type = types[i + 1];
    v.constants = {nullptr};
    values_[op.results[i].id] = v;
  }
}

void Translator::YieldOutsideRegion(const pir::Op& op) {
  throw errors::InvalidArgument("%s: a yield outside the region of an if or a while", Where(op));
}

void Translator::Alias(const pir::Op& op, const Value& target) {
  PL_ENFORCE(op.results.size() == 1 && op.results[0].id != 0,
             errors::InvalidArgument("%s: expected one result", Where(op)));
  Value v = target;
  v.type = op.results[0].type;
  v.type.is_array = v.type.is_array || target.type.is_array;
  v.constants.assign(v.names.size(), nullptr);
  PL_ENFORCE(values_.emplace(op.results[0].id, v).second,
             errors::InvalidArgument("%s: value %lld is defined twice", Where(op),
                                     static_cast<long long>(op.results[0].id)));
}

void Translator::SelectInput(const pir::Op& op) {
  PL_ENFORCE(op.operands.size() >= 2,
             errors::InvalidArgument("%s: select_input takes a mask and candidates", Where(op)));
  RequireOneTensorResult(op);
  std::vector<std::string> candidates;
  for (size_t i = 1; i < op.operands.size(); ++i) candidates.push_back(OneTensor(op, i).names[0]);
  OpDesc* select = block_->AppendOp();
  select->SetType("select_input");
  select->SetInput("X", candidates);
  select->SetInput("Mask", {OneTensor(op, 0).names[0]});
  select->SetOutput("Out", DefineResult(op, op.results[0]));
}

void Translator::AssignOut(const pir::Op& op) {
  PL_ENFORCE(op.operands.size() == 2,
             errors::InvalidArgument("%s: assign_out_ takes two operands", Where(op)));
  const Value& x = OneTensor(op, 0);
  const Value target = OneTensor(op, 1);
  AppendCopy(x.names[0], target.names[0]);
  Alias(op, target);
}

void Translator::CreateArray(const pir::Op& op) {
  PL_ENFORCE(op.results.size() == 1 && op.results[0].id != 0,
             errors::InvalidArgument("%s: expected one result", Where(op)));
  pir::Result r = op.results[0];
  r.type.is_array = true;
  if (const pir::OpAttribute* dtype = Attr(op, "dtype", /*required=*/false)) {
    if (dtype->is_dtype && std::get<int>(dtype->value) >= 0) {
      r.type.dtype = static_cast<DataType>(std::get<int>(dtype->value));
      r.type.known = true;
    }
  }
  DefineResult(op, r);
}

void Translator::ArrayWrite(const pir::Op& op) {
  PL_ENFORCE(op.operands.size() == 3,
             errors::InvalidArgument("%s: array_write_ takes an array, a tensor and a position",
                                     Where(op)));
  const Value array = OneTensor(op, 0);
  OpDesc* write = block_->AppendOp();
  write->SetType("write_to_array");
  write->SetInput("X", OneTensor(op, 1).names);
  write->SetInput("I", OneTensor(op, 2).names);
  write->SetOutput("Out", array.names);
  Alias(op, array);
}

void Translator::SliceArrayDense(const pir::Op& op) {
  PL_ENFORCE(
      op.operands.size() == 2,
      errors::InvalidArgument("%s: slice_array_dense takes an array and a start", Where(op)));
  RequireOneTensorResult(op);
  const Value& start = OneTensor(op, 1);
  Numbers n;
  if (ConstantNumbers(start, &n)) {
    PL_ENFORCE(n.integral && n.ints.size() == 1 && n.ints[0] >= 0,
               errors::Unimplemented("%s: a start of %s; paddle_like reads one position >= 0",
                                     Where(op), AttrToString(AsAttribute(n))));
  }
  OpDesc* read = block_->AppendOp();
  read->SetType("read_from_array");
  read->SetInput("X", OneTensor(op, 0).names);
  read->SetInput("I", start.names);
  read->SetOutput("Out", DefineResult(op, op.results[0]));
}

void Translator::PyLayer(const pir::Op& op) {
  PL_ENFORCE(op.regions.size() == 1 && op.regions[0].blocks.size() == 1 &&
                 op.regions[0].blocks[0].args.empty(),
             errors::InvalidArgument("%s: a pylayer has one region of one block without "
                                     "arguments (its forward function)",
                                     Where(op)));
  const pir::Block& block = op.regions[0].blocks[0];
  const pir::Op* yield = TranslateBlockOps(block);
  std::set<int64_t> defined;  // The values the region makes.
  for (const pir::Op& inner : block.ops) {
    for (const pir::Result& r : inner.results) defined.insert(r.id);
  }
  const size_t yielded = yield == nullptr ? 0 : yield->operands.size();
  PL_ENFORCE(yielded == op.results.size(),
             errors::InvalidArgument("%s: its region yields %zu values for %zu results", Where(op),
                                     yielded, op.results.size()));
  for (size_t i = 0; i < op.results.size(); ++i) {
    if (op.results[i].id == 0) continue;
    const Value& y = OneTensor(*yield, i);
    if (defined.count(yield->operands[i])) {
      Value v = y;
      v.type = op.results[i].type;
      values_[op.results[i].id] = v;
      continue;
    }
    // A value of the enclosing block passed through: the result is a copy of its own.
    const std::vector<std::string> names = DefineResult(op, op.results[i]);
    AppendCopy(y.names[0], names[0]);
  }
}

}  // namespace pir
}  // namespace framework
}  // namespace paddle_like

#include "framework/executor.h"

#include <algorithm>
#include <chrono>
#include <new>
#include <set>

#include "framework/layout_planning.h"
#include "framework/memory_planning.h"
#include "framework/op_registry.h"
#include "platform/denormal.h"
#include "platform/device_context_pool.h"

namespace paddle_like {
namespace framework {

PreparedProgram::~PreparedProgram() {
  prepared_.clear();
  if (scope_ != nullptr && local_scope_ != nullptr) scope_->DeleteScope(local_scope_);
}

std::vector<std::string> PreparedProgram::FreedAfter(size_t i) const {
  std::vector<std::string> names;
  for (const auto& p : free_after_.at(i)) names.push_back(p.first);
  return names;
}

Executor::Executor(const platform::Place& place) : place_(place) {}

namespace {
// "Input: x, Filter: w; Output: y": the variables an op reads and writes, for error messages
// (the first few of each slot).
std::string DescribeSlots(const OperatorBase& op) {
  constexpr size_t kShown = 4;
  const auto list = [&](const VariableNameMap& slots) {
    std::string s;
    for (const auto& kv : slots) {
      s += (s.empty() ? "" : ", ") + kv.first + ":";
      for (size_t i = 0; i < kv.second.size() && i < kShown; ++i) s += " " + kv.second[i];
      if (kv.second.size() > kShown) s += " ... (" + std::to_string(kv.second.size()) + ")";
    }
    return s;
  };
  return list(op.Inputs()) + "; " + list(op.Outputs());
}

// Runs fn() for op #`index` of block `block`; an error it throws is rethrown, of the same
// kind, naming the op's place in the program and its variables:
//   "block 0 op #12 (Input: x, Filter: w; Output: y): op `conv2d` input ..." when the
// message names the op already, else "block 0 op #12 `conv2d` (...): <message>".
// `op` is null while the operator is being created.
template <typename Fn>
void AtOp(int block, size_t index, const std::string& type, const OperatorBase* op, Fn&& fn) {
  const auto where = [&](bool with_type) {
    std::string s = platform::Sprintf("block %d op #%zu", block, index);
    if (with_type) s += " `" + type + "`";
    if (op != nullptr) s += " (" + DescribeSlots(*op) + ")";
    return s;
  };
  try {
    fn();
  } catch (const platform::Error& e) {
    const std::string own = "op `" + type + "`";
    platform::RethrowWithContext(e, where(e.message().compare(0, own.size(), own) != 0));
  } catch (const std::bad_alloc&) {
    throw errors::Unavailable("%s: out of memory", where(true));
  }
}
}  // namespace

void CheckOpVersions(const ProgramDesc& program) {
  std::set<std::string> used;
  for (size_t b = 0; b < program.Size(); ++b) {
    for (const OpDesc* op : program.Block(b).AllOps()) used.insert(op->Type());
  }
  for (const auto& kv : program.OpVersions()) {
    if (!used.count(kv.first) || !OpInfoMap::Instance().Has(kv.first)) continue;
    const int ours = OpInfoMap::Instance().Get(kv.first).version();
    PL_ENFORCE(kv.second <= ours,
               errors::Unimplemented(
                   "op `%s`: the program needs op version %d, this runtime implements version %d "
                   "(the program was saved by a newer framework)",
                   kv.first, kv.second, ours));
  }
}

void StampOpVersions(ProgramDesc* program) {
  auto* versions = program->MutableOpVersions();
  for (const auto& kv : OpInfoMap::Instance().map()) (*versions)[kv.first] = kv.second.version();
}

std::unique_ptr<PreparedProgram> Executor::Prepare(
    const ProgramDesc& program, int block_id, Scope* scope, const std::vector<std::string>& keep,
    const PlacementRules& rules, const std::vector<std::string>& kept_any_layout) {
  CheckOpVersions(program);
  const BlockDesc& block = program.Block(static_cast<size_t>(block_id));
  auto prepared = std::unique_ptr<PreparedProgram>(new PreparedProgram);
  prepared->scope_ = scope;
  prepared->block_id_ = block_id;
  prepared->local_scope_ = &scope->NewScope();
  Scope* local = prepared->local_scope_;

  // Variables: persistable ones in the given scope, the rest locally. A variable declared
  // SelectedRows is created as one, so its producer's shape inference keeps it sparse.
  std::set<std::string> persistable;
  for (const VarDesc* v : block.AllVars()) {
    Variable* var = nullptr;
    if (v->Persistable()) {
      persistable.insert(v->Name());
      var = scope->FindVar(v->Name());
      if (var == nullptr) var = scope->Var(v->Name());
    } else {
      var = local->Var(v->Name());
    }
    if (v->GetKind() == VarKind::kSelectedRows && !var->IsInitialized()) {
      var->GetMutable<SelectedRows>();
    }
    if (v->GetKind() == VarKind::kDenseTensorArray && !var->IsInitialized()) {
      var->GetMutable<DenseTensorArray>();
    }
    // A local tensor array starts every run empty: a loop appends to it at its length.
    if (v->GetKind() == VarKind::kDenseTensorArray && !v->Persistable()) {
      prepared->arrays_.push_back(var);
    }
  }
  for (const OpDesc* op : block.AllOps()) {
    for (const auto& name : op->OutputArgumentNames()) {
      if (local->FindVar(name) == nullptr) local->Var(name);
    }
  }

  // Operators, their kernel placement and their bindings.
  std::vector<const OperatorBase*> ops;
  for (size_t i = 0; i < block.OpSize(); ++i) {
    const OpDesc& desc = *block.Op(i);
    AtOp(block_id, i, desc.Type(), nullptr,
         [&] { prepared->ops_.push_back(OpRegistry::CreateOp(desc)); });
    ops.push_back(prepared->ops_.back().get());
  }
  const std::vector<OpPlacement> placements = PlaceKernels(ops, rules);
  std::set<std::string> kept(keep.begin(), keep.end());
  // What the ops of other blocks read (the sub-blocks of control-flow ops, which may read a
  // variable of this block that their op does not list) stays alive for the whole run.
  for (size_t b = 0; b < program.Size(); ++b) {
    if (static_cast<int>(b) == block_id) continue;
    for (const OpDesc* op : program.Block(b).AllOps()) {
      for (const std::string& name : op->InputArgumentNames()) kept.insert(name);
    }
  }
  const std::set<std::string> opaque =
      PlanOpaqueLayouts(program, block_id, ops, placements, place_, persistable, kept,
                        std::set<std::string>(kept_any_layout.begin(), kept_any_layout.end()));
  for (size_t i = 0; i < ops.size(); ++i) {
    AtOp(block_id, i, ops[i]->Type(), ops[i], [&] {
      prepared->prepared_.push_back(
          std::make_unique<PreparedOp>(*ops[i], local, place_, placements[i], opaque));
    });
  }

  // When temporaries die, and which outputs may take over a dying input's buffer.
  std::set<std::string> temporaries;
  for (const VarDesc* v : block.AllVars()) {
    if (!persistable.count(v->Name()) && !kept.count(v->Name())) temporaries.insert(v->Name());
  }
  for (const OpDesc* op : block.AllOps()) {
    for (const auto& name : op->OutputArgumentNames()) {
      if (!persistable.count(name) && !kept.count(name)) temporaries.insert(name);
    }
  }
  for (auto it = temporaries.begin(); it != temporaries.end();) {
    it = local->FindLocalVar(*it) == nullptr ? temporaries.erase(it) : std::next(it);
  }
  MemoryPlan plan = PlanMemory(program, block_id, ops, temporaries);
  prepared->free_after_.resize(block.OpSize());
  for (size_t i = 0; i < block.OpSize(); ++i) {
    for (const auto& name : plan.free_after[i]) {
      prepared->free_after_[i].emplace_back(name, local->FindLocalVar(name));
    }
    prepared->prepared_[i]->SetInPlaceCandidates(std::move(plan.in_place[i]));
  }
  return prepared;
}

namespace {

void FreeDeadTemporaries(const std::vector<std::pair<std::string, Variable*>>& dead_vars) {
  for (const auto& dead : dead_vars) {
    if (dead.second->IsType<DenseTensor>()) {
      dead.second->GetMutable<DenseTensor>()->clear();
    } else if (dead.second->IsType<SelectedRows>()) {
      dead.second->GetMutable<SelectedRows>()->mutable_value()->clear();
    }
  }
}

}  // namespace

void Executor::RunOp(PreparedProgram* prepared, size_t i) {
  PL_ENFORCE(
      i < prepared->prepared_.size(),
      errors::OutOfRange("run: op #%zu of a program of %zu ops", i, prepared->prepared_.size()));
  const platform::ScopedFlushDenormal flush;
  const OperatorBase& base = *prepared->ops_[i];
  AtOp(prepared->block_id_, i, base.Type(), &base, [&] { prepared->prepared_[i]->Run(); });
  FreeDeadTemporaries(prepared->free_after_[i]);
  if (!place_.is_cpu()) platform::DeviceContextPool::Instance().Get(place_)->Wait();
}

void Executor::StartRun(PreparedProgram* prepared) {
  for (Variable* array : prepared->arrays_) {
    if (array->IsType<DenseTensorArray>()) array->GetMutable<DenseTensorArray>()->clear();
  }
}

void Executor::RunOps(PreparedProgram* prepared, size_t begin, size_t end,
                      ExecutionProfile* profile) {
  using Clock = std::chrono::steady_clock;
  const platform::ScopedFlushDenormal flush;  // Once per run, not per op.
  const Clock::time_point run_start = profile != nullptr ? Clock::now() : Clock::time_point();
  if (profile != nullptr) {
    profile->ops.clear();
    profile->ops.reserve(prepared->prepared_.size());
  }
  // A device runs its kernels asynchronously: a run ends when its queued work has, and a
  // profile waits for each op so that its time is the op's.
  const platform::DeviceContext* device =
      place_.is_cpu() ? nullptr : platform::DeviceContextPool::Instance().Get(place_);
  if (begin == 0) StartRun(prepared);
  end = std::min(end, prepared->prepared_.size());
  for (size_t i = begin; i < end; ++i) {
    PreparedOp& op = *prepared->prepared_[i];
    const OperatorBase& base = *prepared->ops_[i];
    const Clock::time_point op_start = profile != nullptr ? Clock::now() : Clock::time_point();
    AtOp(prepared->block_id_, i, base.Type(), &base, [&] { op.Run(); });
    if (profile != nullptr) {
      if (device != nullptr && profile->wait_for_device) device->Wait();
      OpRecord r;
      r.seconds = std::chrono::duration<double>(Clock::now() - op_start).count();
      r.index = i;
      r.type = base.Type();
      r.has_kernel = op.kernel() != nullptr;
      if (r.has_kernel) r.key = op.kernel()->key;
      r.transforms = op.TransformRecords();
      if (r.has_kernel) r.opaque_outputs = op.OpaqueOutputs();
      r.in_place = op.InPlaceRecords();
      profile->ops.push_back(std::move(r));
    }
    FreeDeadTemporaries(prepared->free_after_[i]);
  }
  if (device != nullptr) device->Wait();
  if (profile != nullptr) {
    profile->seconds = std::chrono::duration<double>(Clock::now() - run_start).count();
  }
}

std::vector<DenseTensor> Executor::Run(const ProgramDesc& program, Scope* scope,
                                       const std::map<std::string, DenseTensor>& feeds,
                                       const std::vector<std::string>& fetches,
                                       const RunOptions& options) {
  PL_ENFORCE(options.repeat >= 1,
             errors::InvalidArgument("run: expected a repeat count >= 1, received %d",
                                     options.repeat));
  // Work on a copy whose feed/fetch ops are replaced: feeds go straight into variables, and
  // one fetch op per name fills a holder, so fetching works as in a saved program (a
  // SelectedRows, for one, arrives as its dense tensor).
  ProgramDesc copy = program;
  BlockDesc& block = copy.Block(0);
  for (size_t i = block.OpSize(); i-- > 0;) {
    const std::string& t = block.Op(i)->Type();
    if (t == "feed" || t == "fetch") block.RemoveOp(i, i + 1);
  }
  const std::string holder = "@FETCH_HOLDER@";
  for (size_t i = 0; i < fetches.size(); ++i) {
    OpDesc* op = block.AppendOp();
    op->SetType("fetch");
    op->SetInput("X", {fetches[i]});
    op->SetOutput("Out", {holder});
    op->SetAttr("col", static_cast<int>(i));
  }
  std::vector<std::string> keep = fetches;
  keep.push_back(holder);
  auto prepared = Prepare(copy, 0, scope, keep);
  for (int r = 0; r < options.repeat; ++r) {
    // Fed again before each run: an op may free or overwrite a fed variable.
    for (const auto& kv : feeds) {
      Variable* v = prepared->local_scope()->FindVar(kv.first);
      PL_ENFORCE(v != nullptr, errors::NotFound(
                                   "feed `%s`: the program has no variable of that name", kv.first));
      PL_ENFORCE(!v->IsInitialized() || v->IsType<DenseTensor>(),
                 errors::InvalidArgument("feed `%s`: expected a dense tensor variable, found %s",
                                         kv.first, HeldTypeName(*v)));
      *v->GetMutable<DenseTensor>() = kv.second;
    }
    Run(prepared.get(), r + 1 == options.repeat ? options.profile : nullptr);
  }
  if (fetches.empty()) return {};
  return prepared->local_scope()->FindVar(holder)->Get<FetchList>();
}

}  // namespace framework
}  // namespace paddle_like

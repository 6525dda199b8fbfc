// Executor: runs a block of a program on one place.
//
// Prepare() does everything that can be decided before the first run: creates the
// (stateless) operators, binds their variables, and plans memory (memory_planning.h): the op
// after which each temporary is dead, and the outputs that may be written over an input
// dying at their op (used where the kernel declares the pair). Run() then only executes:
// kernels are chosen on the first run and guarded after.
//
// Variables: persistable ones (parameters, feed/fetch holders) live in the scope given to
// Prepare; temporaries live in a kid scope owned by the PreparedProgram.
// Threading: a PreparedProgram is run by one thread at a time; several PreparedPrograms of
// one program may share a parameter scope and run concurrently.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/execution_profile.h"
#include "framework/kernel_placement.h"
#include "framework/prepared_op.h"
#include "framework/program_desc.h"

namespace paddle_like {
namespace framework {

class PreparedProgram {
 public:
  ~PreparedProgram();
  Scope* scope() const { return scope_; }
  Scope* local_scope() const { return local_scope_; }
  size_t OpCount() const { return ops_.size(); }
  const PreparedOp& op(size_t i) const { return *prepared_[i]; }
  // Names of the temporaries freed right after op i.
  std::vector<std::string> FreedAfter(size_t i) const;

 private:
  friend class Executor;
  Scope* scope_ = nullptr;
  Scope* local_scope_ = nullptr;
  int block_id_ = 0;
  std::vector<std::unique_ptr<OperatorBase>> ops_;
  std::vector<std::unique_ptr<PreparedOp>> prepared_;
  std::vector<std::vector<std::pair<std::string, Variable*>>> free_after_;
  std::vector<Variable*> arrays_;  // Local tensor arrays, emptied as each run starts.
};

class Executor {
 public:
  explicit Executor(const platform::Place& place);

  // `keep`: temporaries that must survive the run (e.g. what the caller fetches).
  // `rules`: per-op-type placement on top of the ops' attributes (kernel_placement.h).
  // Errors while preparing or running an op name where it is: "block 0 op #12 `conv2d` ..."
  // (running out of memory is an UnavailableError).
  // `kept_any_layout`: those of `keep` the caller reads through PlainTensor or
  // OpaqueLayout::ToPlain, so they may stay in a kernel library's layout (layout_planning.h).
  std::unique_ptr<PreparedProgram> Prepare(const ProgramDesc& program, int block_id, Scope* scope,
                                           const std::vector<std::string>& keep = {},
                                           const PlacementRules& rules = PlacementRules(),
                                           const std::vector<std::string>& kept_any_layout = {});
  // Runs every op once; with `profile`, records each op's kernel, transforms and time.
  void Run(PreparedProgram* prepared, ExecutionProfile* profile = nullptr) {
    RunOps(prepared, 0, prepared->OpCount(), profile);
  }
  // Runs ops [begin, end) only (a caller that runs some ops itself, with RunOp); a run that
  // does not start with RunOps(0, ...) starts with StartRun.
  void RunOps(PreparedProgram* prepared, size_t begin, size_t end,
              ExecutionProfile* profile = nullptr);
  // Empties the program's local tensor arrays, as each run starts.
  void StartRun(PreparedProgram* prepared);
  // Runs op `i` alone on the variables as they are now, then frees what dies after it.
  void RunOp(PreparedProgram* prepared, size_t i);

  struct RunOptions {
    int repeat = 1;                        // Runs of the prepared program; fetches are the last's.
    ExecutionProfile* profile = nullptr;   // Filled from the last run.
  };

  // One-shot convenience: runs block 0 with `feeds` (variable name -> tensor) and returns the
  // `fetches` (variable names) as CPU tensors, read by `fetch` ops (a SelectedRows comes back
  // as the dense tensor it stands for). Feed and fetch ops of the program are ignored; use
  // Program's feed/fetch targets to choose the names.
  std::vector<DenseTensor> Run(const ProgramDesc& program, Scope* scope,
                               const std::map<std::string, DenseTensor>& feeds,
                               const std::vector<std::string>& fetches,
                               const RunOptions& options);
  std::vector<DenseTensor> Run(const ProgramDesc& program, Scope* scope,
                               const std::map<std::string, DenseTensor>& feeds,
                               const std::vector<std::string>& fetches) {
    return Run(program, scope, feeds, fetches, RunOptions());
  }

  const platform::Place& place() const { return place_; }

 private:
  platform::Place place_;
};

// Fails with UnimplementedError when the program was saved with a newer version of one of
// its ops than this runtime implements (names the op and both versions).
void CheckOpVersions(const ProgramDesc& program);

// Records this runtime's op versions into `program` (before saving it).
void StampOpVersions(ProgramDesc* program);

}  // namespace framework
}  // namespace paddle_like

// Pass: a rewrite of a program into a program, registered by name, testable alone.
//
// A pass is written against the meaning of certain op versions: it declares them as its
// capability (op type -> newest version it handles). ApplyPass runs it only on programs
// whose ops are within it; a program that needs a newer version of one of them (it was saved
// by a framework where the op changed) is left untouched, with one log line saying why.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/program_desc.h"

namespace paddle_like {
namespace framework {
class Scope;

namespace ir {

struct PassCapability {
  std::map<std::string, int> max_versions;  // Op type -> newest version the pass understands.
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string Name() const = 0;
  virtual PassCapability Capability() const = 0;
  // Rewrites `program`; returns the number of rewrites made. `params` holds the values of
  // the program's parameters, or is null (a program without loaded parameters): a pass that
  // folds parameters rewrites them there and leaves the program alone without them.
  virtual int ApplyImpl(ProgramDesc* program, Scope* params) const = 0;
};

// The version of op `type` that `program` was written for: its saved op-version entry, else
// (a program built in memory, never saved) this runtime's version.
int ProgramOpVersion(const ProgramDesc& program, const std::string& type);

// "" when every op of `program` that the capability names is at most the version it
// handles; else why not ("op `dropout`: the program needs version 3, the pass handles 1").
std::string CapabilityProblem(const ProgramDesc& program, const PassCapability& capability);

// Runs `pass` on `program` when within its capability; returns its rewrite count, or 0 and
// leaves the program unchanged (logging why) when not.
int ApplyPass(const Pass& pass, ProgramDesc* program, Scope* params = nullptr);

// Passes by name: each pass registers a factory (explicit calls, as ops do).
using PassFactory = std::unique_ptr<Pass> (*)();
void RegisterPass(const std::string& name, PassFactory factory);
// NotFoundError naming the pass and the registered ones.
std::unique_ptr<Pass> CreatePass(const std::string& name);
std::vector<std::string> RegisteredPasses();

}  // namespace ir
}  // namespace framework
}  // namespace paddle_like

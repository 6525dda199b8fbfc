// `paddle_like backward`: appends the backward pass of a loss to a saved program and writes
// the result. Applied to its own output with a gradient as the loss, it gives higher orders.
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/executor.h"
#include "framework/model_loading.h"
#include "framework/op_info.h"
#include "framework/program_desc.h"
#include "paddle_like/cli/args.h"
#include "paddle_like/cli/commands.h"

namespace paddle_like {
namespace cli {

namespace {

using framework::ProgramDesc;
using platform::Sprintf;

constexpr char kBackwardUsage[] =
    "usage: paddle_like backward --program FILE|DIR --loss VAR [--no-grad A,B ...]\n"
    "                            --out FILE [--text]\n"
    "  Appends to block 0 the ops computing the gradient of VAR (seeded with ones of its\n"
    "  shape: a non-scalar loss means the sum of its elements) with respect to every\n"
    "  floating variable it depends on, and writes the program to FILE. Run it again on FILE\n"
    "  with a gradient as --loss for higher-order gradients.\n"
    "  --loss VAR      the variable to differentiate\n"
    "  --no-grad A,B   variables that get no gradient (comma-separated, repeatable)\n"
    "  --out FILE      where to write the program (binary ProgramDesc)\n"
    "  --text          write protobuf text instead of binary\n"
    "  Prints the (parameter, gradient) pairs and the gradient of every variable.\n";

std::set<std::string> SplitNames(const std::vector<std::string>& values) {
  std::set<std::string> names;
  for (const auto& value : values) {
    size_t begin = 0;
    while (begin <= value.size()) {
      size_t end = value.find(',', begin);
      if (end == std::string::npos) end = value.size();
      const std::string name = value.substr(begin, end - begin);
      if (!name.empty()) names.insert(name);
      begin = end + 1;
    }
  }
  return names;
}

// NotFoundError naming every op type of the program that is not registered.
void CheckOpsRegistered(const ProgramDesc& program, const std::string& program_path) {
  const auto& registry = framework::OpInfoMap::Instance();
  std::set<std::string> missing;
  std::string where;
  for (size_t b = 0; b < program.Size(); ++b) {
    const auto& block = program.Block(b);
    for (size_t i = 0; i < block.OpSize(); ++i) {
      const std::string& type = block.Op(i)->Type();
      if (registry.Has(type)) continue;
      if (missing.empty()) where = Sprintf("block %zu op #%zu", b, i);
      missing.insert(type);
    }
  }
  if (missing.empty()) return;
  std::string list;
  for (const auto& t : missing) list += (list.empty() ? "`" : ", `") + t + "`";
  throw errors::NotFound("program `%s`: %zu op type(s) not registered: %s (first at %s)",
                         program_path, missing.size(), list, where);
}

// NotFoundError unless block 0 declares `loss` or an op of it writes `loss`.
void CheckLossExists(const ProgramDesc& program, const std::string& loss,
                     const std::string& program_path) {
  const auto& block = program.Block(0);
  if (block.HasVar(loss)) return;
  for (size_t i = 0; i < block.OpSize(); ++i) {
    for (const auto& out : block.Op(i)->OutputArgumentNames()) {
      if (out == loss) return;
    }
  }
  throw errors::NotFound("backward: --loss `%s`: program `%s` has no variable of that name", loss,
                         program_path);
}

}  // namespace

int BackwardCommand(const std::vector<std::string>& argv) {
  const Args args(argv, {"program", "loss", "no-grad", "out"}, {"text", "help"});
  if (args.Has("help")) {
    std::cout << kBackwardUsage;
    return 0;
  }
  PL_ENFORCE(args.positional().empty(),
             errors::InvalidArgument("backward: unexpected argument `%s`\n%s",
                                     args.positional()[0], kBackwardUsage));
  for (const char* required : {"program", "loss", "out"}) {
    PL_ENFORCE(args.Has(required), errors::InvalidArgument("backward: --%s is required\n%s",
                                                           required, kBackwardUsage));
  }
  const std::string program_path = framework::ResolveProgramPath(args.Get("program"));
  const std::string loss = args.Get("loss");
  const std::string out_path = args.Get("out");
  const std::set<std::string> no_grad = SplitNames(args.GetAll("no-grad"));

  ProgramDesc program = ProgramDesc::Load(program_path);
  CheckOpsRegistered(program, program_path);
  CheckLossExists(program, loss, program_path);
  const size_t ops_before = program.Block(0).OpSize();
  const framework::BackwardResult result = framework::AppendBackward(&program, loss, no_grad);
  framework::StampOpVersions(&program);
  program.Save(out_path, args.Has("text"));

  std::cout << "backward of `" << loss << "`: " << program.Block(0).OpSize() - ops_before
            << " ops appended, program written to " << out_path << "\n";
  std::cout << "parameter gradients:\n";
  for (const auto& pg : result.param_grads) {
    std::cout << "  " << pg.first << " -> " << pg.second << "\n";
  }
  std::cout << "gradients:\n";
  for (const auto& kv : result.grad_of) {
    std::cout << "  " << kv.first << " -> " << kv.second << "\n";
  }
  return 0;
}

}  // namespace cli
}  // namespace paddle_like

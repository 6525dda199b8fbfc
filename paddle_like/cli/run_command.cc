// `paddle_like run`: loads a program, its parameters and .npy feeds, runs block 0 on the CPU
// and writes every fetched variable as .npy.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/model_loading.h"
#include "framework/npy_io.h"
#include "framework/op_info.h"
#include "framework/program_validation.h"
#include "framework/scope.h"
#include "paddle_like/cli/args.h"
#include "paddle_like/cli/commands.h"
#include "paddle_like/cli/lod_arg.h"
#include "paddle_like/cli/profile_report.h"
#include "paddle_like/cli/tensor_format.h"
#include "platform/file_util.h"

namespace paddle_like {
namespace cli {

namespace {

namespace fs = std::filesystem;
using framework::DDim;
using framework::DenseTensor;
using framework::ProgramDesc;
using framework::Scope;
using framework::VarDesc;
using platform::DataType;
using platform::Sprintf;

constexpr char kRunUsage[] =
    "usage: paddle_like run --program FILE|DIR [--params FILE | --params-dir DIR]\n"
    "                       [--feed [NAME=]FILE.npy[@LOD] ...] [--fetch NAME ...] [--out DIR]\n"
    "  Runs block 0 of a program (binary or text ProgramDesc) on the CPU. For a model\n"
    "  directory the program is __model__, model.pdmodel, inference.pdmodel or the one *.pdmodel.\n"
    "  --params FILE     combined parameter file (.pdiparams, __params__)\n"
    "  --params-dir DIR  one file per parameter, named by the variable\n"
    "                    (default: <program-dir>/<stem>.pdiparams, <program-dir>/__params__,\n"
    "                    then per-variable files next to the program)\n"
    "  --feed NAME=FILE  feeds variable NAME; a FILE without NAME= goes to the next feed\n"
    "                    target (in `col` order) not fed by name; FILE.npy@0,4,9 feeds\n"
    "                    it with the level-1 LoD (sequence offsets) 0,4,9 (levels split by ';')\n"
    "  --fetch NAME      variable to fetch (default: the program's fetch targets)\n"
    "  --out DIR         writes DIR/<name>.npy per fetched variable ('/' becomes '_')\n"
    "  --repeat N        runs the prepared program N times (fetches come from the last run)\n"
    "  --profile FILE    writes the last run's profile as JSON (per op: kernel key, data\n"
    "                    transforms, time; totals per op type) and prints a table to stderr\n";

// Fails before any file is read when an op of the program is not registered; names every
// missing op type and where the first one is used.
void CheckOpsRegistered(const ProgramDesc& program, const std::string& program_path) {
  const auto& registry = framework::OpInfoMap::Instance();
  std::set<std::string> missing;
  std::string first_type, first_where;
  for (size_t b = 0; b < program.Size(); ++b) {
    const auto& block = program.Block(b);
    for (size_t i = 0; i < block.OpSize(); ++i) {
      const std::string& type = block.Op(i)->Type();
      if (registry.Has(type) || missing.count(type)) continue;
      if (missing.empty()) {
        first_type = type;
        first_where = Sprintf("block %zu op #%zu", b, i);
      }
      missing.insert(type);
    }
  }
  if (missing.empty()) return;
  std::string list;
  for (const auto& t : missing) list += (list.empty() ? "`" : ", `") + t + "`";
  try {
    registry.Get(first_type);
  } catch (const platform::Error& e) {
    throw errors::NotFound("program `%s`: %zu op type(s) not registered: %s (%s: %s)",
                           program_path, missing.size(), list, first_where, e.message());
  }
}

std::string ShapeString(const std::vector<int64_t>& dims) {
  return DDim(dims).ToString();
}

bool IsFile(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

void LoadParameters(const ProgramDesc& program, const std::string& program_path, const Args& args,
                    Scope* scope) {
  framework::ParameterSource source;
  if (args.Has("params")) source.combined_file = args.Get("params");
  if (args.Has("params-dir")) source.dir = args.Get("params-dir");
  try {
    framework::LoadParameters(program, program_path, source, scope);
  } catch (const platform::NotFoundError& e) {
    if (args.Has("params") || args.Has("params-dir")) throw;
    throw errors::NotFound("%s; pass --params FILE or --params-dir DIR", e.message());
  }
}

void CheckFeed(const ProgramDesc& program, const std::string& name, const std::string& file,
               const DenseTensor& t) {
  const VarDesc* desc = program.Block(0).FindVar(name);
  PL_ENFORCE(desc != nullptr,
             errors::NotFound("feed `%s` (from `%s`): the program has no variable of that name",
                              name, file));
  if (!desc->HasTensorDesc() || desc->GetDataType() == DataType::UNDEFINED) return;
  PL_ENFORCE(t.dtype() == desc->GetDataType(),
             errors::InvalidArgument("feed `%s` (from `%s`): expected dtype %s, received %s", name,
                                     file, platform::DataTypeName(desc->GetDataType()),
                                     platform::DataTypeName(t.dtype())));
  // Only the rank is binding, as in the Predictor: declared sizes are often the example
  // shape a model was exported with; the ops check the sizes they need.
  PL_ENFORCE(static_cast<size_t>(t.dims().size()) == desc->GetShape().size(),
             errors::InvalidArgument(
                 "feed `%s` (from `%s`): expected shape %s (rank %zu), received %s", name, file,
                 ShapeString(desc->GetShape()), desc->GetShape().size(), t.dims().ToString()));
}

// One --feed argument: the variable ("" until an unnamed file is given the next feed
// target), the file and the LoD after it.
struct FeedArg {
  std::string variable, file;
  framework::LoD lod;
};

// The --feed arguments, each with the variable it feeds (named, or the next feed target).
std::vector<FeedArg> FeedArgs(const ProgramDesc& program, const Args& args) {
  const std::vector<std::string> targets = program.FeedTargetNames();
  std::vector<FeedArg> given;
  std::set<std::string> fed;
  for (const auto& text : args.GetAll("feed")) {
    auto [arg, lod] = SplitLoDSuffix("run", text);
    const size_t eq = arg.find('=');
    // A path that itself contains '=' counts as unnamed unless the prefix is a variable.
    if (eq != std::string::npos &&
        (program.Block(0).HasVar(arg.substr(0, eq)) || !IsFile(arg))) {
      given.push_back({arg.substr(0, eq), arg.substr(eq + 1), lod});
      fed.insert(given.back().variable);
    } else {
      given.push_back({"", arg, lod});
    }
  }
  size_t next = 0;
  for (FeedArg& g : given) {
    if (!g.variable.empty()) continue;
    while (next < targets.size() && fed.count(targets[next])) ++next;
    PL_ENFORCE(next < targets.size(),
               errors::InvalidArgument("feed `%s` has no variable name and the program has no "
                                       "feed target left for it (%zu feed targets); use "
                                       "--feed NAME=FILE",
                                       g.file, targets.size()));
    g.variable = targets[next];
    fed.insert(targets[next]);
  }
  return given;
}

std::map<std::string, DenseTensor> ReadFeeds(const ProgramDesc& program,
                                             const std::vector<FeedArg>& given) {
  const std::vector<std::string> targets = program.FeedTargetNames();
  std::map<std::string, DenseTensor> feeds;
  for (const FeedArg& g : given) {
    PL_ENFORCE(!feeds.count(g.variable),
               errors::InvalidArgument("variable `%s` is fed twice", g.variable));
    DenseTensor t = framework::ReadNpy(g.file);
    CheckFeed(program, g.variable, g.file, t);
    AttachFeedLoD("run", g.variable, g.file, g.lod, &t);
    feeds[g.variable] = t;
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    PL_ENFORCE(feeds.count(targets[i]),
               errors::NotFound("missing feed for variable `%s` (feed target %zu of %zu); pass "
                                "--feed %s=FILE.npy",
                                targets[i], i, targets.size(), targets[i]));
  }
  return feeds;
}

std::vector<std::string> FetchNames(const ProgramDesc& program, const Args& args) {
  std::vector<std::string> names =
      args.Has("fetch") ? args.GetAll("fetch") : program.FetchTargetNames();
  PL_ENFORCE(!names.empty(), errors::InvalidArgument(
                                 "the program has no fetch targets; name what to fetch with "
                                 "--fetch NAME"));
  const auto& block = program.Block(0);
  for (const auto& n : names) {
    bool produced = block.HasVar(n);
    for (size_t i = 0; i < block.OpSize() && !produced; ++i) {
      for (const auto& out : block.Op(i)->OutputArgumentNames()) produced = produced || out == n;
    }
    PL_ENFORCE(produced,
               errors::NotFound("fetch `%s`: the program has no variable of that name", n));
  }
  return names;
}

}  // namespace

int RunCommand(const std::vector<std::string>& argv) {
  const Args args(argv, {"program", "params", "params-dir", "feed", "fetch", "out", "repeat", "profile"},
                  {"help"});
  if (args.Has("help")) {
    std::cout << kRunUsage;
    return 0;
  }
  PL_ENFORCE(args.positional().empty(),
             errors::InvalidArgument("run: unexpected argument `%s`\n%s", args.positional()[0],
                                     kRunUsage));
  PL_ENFORCE(args.Has("program"),
             errors::InvalidArgument("run: --program FILE is required\n%s", kRunUsage));
  PL_ENFORCE(!(args.Has("params") && args.Has("params-dir")),
             errors::InvalidArgument("run: give --params or --params-dir, not both"));
  const std::string program_path = framework::ResolveProgramPath(args.Get("program"));
  const ProgramDesc program = ProgramDesc::Load(program_path);
  CheckOpsRegistered(program, program_path);
  const std::vector<FeedArg> feed_args = FeedArgs(program, args);
  std::set<std::string> fed;
  for (const FeedArg& g : feed_args) fed.insert(g.variable);
  framework::ValidateProgram(program, program_path, fed);

  Scope scope;
  LoadParameters(program, program_path, args, &scope);
  const std::map<std::string, DenseTensor> feeds = ReadFeeds(program, feed_args);
  const std::vector<std::string> fetches = FetchNames(program, args);

  framework::Executor executor{platform::CPUPlace()};
  framework::Executor::RunOptions options;
  options.repeat = static_cast<int>(std::min<int64_t>(args.GetPositiveInt("run", "repeat", 1), 1 << 30));
  framework::ExecutionProfile profile;
  if (args.Has("profile")) options.profile = &profile;
  const std::vector<DenseTensor> results = executor.Run(program, &scope, feeds, fetches, options);
  if (args.Has("profile")) {
    platform::WriteFileAtomically(args.Get("profile"), ProfileJson(profile, options.repeat));
    std::cerr << ProfileTable(profile);
  }

  const std::string out_dir = args.Get("out");
  if (!out_dir.empty()) {
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    PL_ENFORCE(!ec, errors::Unavailable("cannot create output directory `%s`: %s", out_dir,
                                        ec.message()));
  }
  for (size_t i = 0; i < fetches.size(); ++i) {
    const DenseTensor& t = results[i];
    std::cout << fetches[i] << "  " << platform::DataTypeName(t.dtype()) << t.dims().ToString()
              << LoDSuffixText(t.lod()) << "  " << FormatValues(t);
    if (!out_dir.empty()) {
      const std::string path = out_dir + "/" + OutputFileName(fetches[i]);
      framework::WriteNpy(path, t);
      std::cout << "  -> " << path;
    }
    std::cout << "\n";
  }
  return 0;
}

}  // namespace cli
}  // namespace paddle_like

// `paddle_like train --program MAIN ...`: trains a program built elsewhere (for example a
// PaddlePaddle training program with its `<op>_grad` and optimizer ops) on .npy feeds,
// printing each step's loss, and optionally writes a JSON report.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "framework/npy_io.h"
#include "framework/program_desc.h"
#include "framework/scope.h"
#include "paddle_like/cli/args.h"
#include "paddle_like/cli/commands.h"
#include "paddle_like/cli/profile_report.h"
#include "paddle_like/train/program_trainer.h"
#include "platform/collective/comm_registry.h"
#include "platform/file_util.h"

namespace paddle_like {
namespace cli {

namespace {

constexpr char kUsage[] =
    "usage: paddle_like train --program MAIN --loss NAME --feed NAME=FILE.npy[,NAME=FILE.npy]\n"
    "                         [--startup STARTUP] [--init-dir DIR] [--batch-size B]\n"
    "                         [--steps N] [--report FILE.json] [--profile FILE.json]\n"
    "                         [--distributed [--master HOST:PORT]]\n"
    "  Trains a program that holds its own backward and optimizer ops (for example one built\n"
    "  and saved by PaddlePaddle) and prints every step's loss.\n"
    "  --startup STARTUP  program run once first (initializes the persistables)\n"
    "  --init-dir DIR     DIR/<name>.npy per persistable variable, loaded after the startup\n"
    "                     program (overriding it)\n"
    "  --feed NAME=FILE   feeds variable NAME (repeat --feed or separate pairs by commas).\n"
    "                     Without --batch-size, FILE holds [steps, B, ...] and step i feeds\n"
    "                     element i; with --batch-size B, FILE is a dataset [N, ...] cut into\n"
    "                     consecutive batches of B rows\n"
    "  --steps N          default: one step per batch; more steps start over\n"
    "  --report FILE      writes {\"loss\", \"steps\", \"batch_size\", \"losses\"} as JSON\n"
    "  --profile FILE     writes the last step's profile as JSON (per op: kernel key, data\n"
    "                     transforms and weight pre-packs, time), a table to stderr\n"
    "  --distributed      data-parallel over the ranks of the job (`paddle_like launch`,\n"
    "                     mpirun): each batch is the global batch, rank r feeds its share;\n"
    "                     a program without all-reduce ops gets them; losses are means over\n"
    "                     the ranks; rank 0 alone prints and writes the report\n"
    "  --master HOST:PORT where the ranks meet (see `paddle_like train --help`)\n";

int64_t ParsePositive(const std::string& flag, const std::string& value) {
  try {
    size_t used = 0;
    const long long v = std::stoll(value, &used);
    if (used == value.size() && v > 0) return v;
  } catch (const std::exception&) {
  }
  throw errors::InvalidArgument("train: --%s expects a positive integer, received `%s`", flag,
                                value);
}

std::map<std::string, framework::DenseTensor> ReadFeeds(const Args& args) {
  std::map<std::string, framework::DenseTensor> feeds;
  for (const std::string& arg : args.GetAll("feed")) {
    size_t start = 0;
    while (start <= arg.size()) {
      const size_t comma = arg.find(',', start);
      const std::string pair =
          arg.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      start = comma == std::string::npos ? arg.size() + 1 : comma + 1;
      const size_t eq = pair.find('=');
      PL_ENFORCE(eq != std::string::npos && eq > 0 && eq + 1 < pair.size(),
                 errors::InvalidArgument("train: --feed expects NAME=FILE.npy, received `%s`",
                                         pair));
      const std::string name = pair.substr(0, eq);
      PL_ENFORCE(feeds.count(name) == 0,
                 errors::InvalidArgument("train: --feed `%s` given twice", name));
      feeds[name] = framework::ReadNpy(pair.substr(eq + 1));
    }
  }
  return feeds;
}

}  // namespace

int TrainProgramCommand(const std::vector<std::string>& argv) {
  const Args args(argv,
                  {"program", "startup", "feed", "loss", "init-dir", "batch-size", "steps",
                   "report", "profile", "master"},
                  {"help", "distributed"});
  if (args.Has("help")) {
    std::cout << kUsage;
    return 0;
  }
  PL_ENFORCE(args.Has("loss"), errors::InvalidArgument("train: --program needs --loss NAME"));
  const framework::ProgramDesc main = framework::ProgramDesc::Load(args.Get("program"));
  framework::ProgramDesc startup;
  train::ProgramTrainingOptions options;
  if (args.Has("startup")) {
    startup = framework::ProgramDesc::Load(args.Get("startup"));
    options.startup = &startup;
  }
  options.init_dir = args.Get("init-dir");
  options.loss = args.Get("loss");
  if (args.Has("batch-size")) {
    options.batch_size = ParsePositive("batch-size", args.Get("batch-size"));
  }
  if (args.Has("steps")) options.steps = ParsePositive("steps", args.Get("steps"));
  options.distributed = args.Has("distributed");
  if (args.Has("master")) {
    PL_ENFORCE(options.distributed,
               errors::InvalidArgument("train: --master needs --distributed"));
    ::setenv("PADDLE_MASTER", args.Get("master").c_str(), 1);
  }
  const bool leader =
      !options.distributed ||
      platform::collective::CommRegistry::Instance().Get(0, platform::CPUPlace())->rank() == 0;
  options.on_step = [leader](int64_t step, double loss) {
    if (!leader) return;
    std::printf("step %lld loss %.9g\n", static_cast<long long>(step + 1), loss);
    std::fflush(stdout);
  };
  framework::ExecutionProfile profile;
  if (args.Has("profile")) options.profile = &profile;
  const std::map<std::string, framework::DenseTensor> feeds = ReadFeeds(args);
  framework::Scope scope;
  const train::ProgramTrainingResult result = train::TrainProgram(main, feeds, options, &scope);
  if (result.rank != 0) return 0;  // Rank 0 prints and writes for the job.
  std::printf("trained %zu steps", result.losses.size());
  if (!result.loaded.empty()) {
    std::printf(" (initial values of %zu persistables from %s)", result.loaded.size(),
                options.init_dir.c_str());
  }
  std::printf("\n");
  if (args.Has("profile")) {
    platform::WriteFileAtomically(args.Get("profile"),
                                  ProfileJson(profile, static_cast<int>(result.losses.size())));
    std::cerr << ProfileTable(profile);
  }
  if (args.Has("report")) {
    platform::WriteFileAtomically(args.Get("report"), result.ToJson(options));
    std::printf("report written to %s\n", args.Get("report").c_str());
  }
  return 0;
}

}  // namespace cli
}  // namespace paddle_like

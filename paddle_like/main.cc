// `paddle_like`: the command-line tool. Dispatches to one verb per subcommand; a user error
// exits 1 with "error: <message>" on stderr, an unexpected failure exits 2.
#include <exception>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "operators/registry.h"
#include "paddle_like/cli/commands.h"
#include "platform/errors.h"

namespace {

std::string Usage() {
  return "usage: paddle_like <verb> [options]\n"
         "verbs:\n"
         "  ops [--json] [TYPE ...]      registered ops: slots, attributes, versions, kernels\n"
         "  run --program FILE ...       run a program on .npy feeds, write fetches as .npy\n"
         "  infer --model DIR --input FILE.npy ...\n"
         "                               run a saved model through the inference library\n"
         "  bench --model DIR [--clones C] ...\n"
         "                               latency percentiles and throughput of a saved model\n"
         "  inspect FILE [--passes]      versions, vars, ops, feed/fetch targets of a program\n"
         "  backward --program FILE --loss VAR --out FILE\n"
         "                               append the gradient ops of a loss to a program\n"
         "  train [--model mlp|lenet] [--dataset fashion-mnist|digits] ...\n"
         "                               train, save, reload and evaluate a model\n"
         "  train --program MAIN --loss VAR --feed NAME=FILE.npy ...\n"
         "                               train a program built elsewhere (e.g. by PaddlePaddle)\n"
         "  launch --nproc N VERB ...    start the ranks of a distributed job (train --distributed)\n"
         "Run `paddle_like <verb> --help` for the options of a verb.\n";
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, int (*)(const std::vector<std::string>&)> verbs = {
      {"ops", paddle_like::cli::OpsCommand},
      {"run", paddle_like::cli::RunCommand},
      {"infer", paddle_like::cli::InferCommand},
      {"bench", paddle_like::cli::BenchCommand},
      {"inspect", paddle_like::cli::InspectCommand},
      {"backward", paddle_like::cli::BackwardCommand},
      {"train", paddle_like::cli::TrainCommand},
      {"launch", paddle_like::cli::LaunchCommand},
  };
  const std::string verb = argc > 1 ? argv[1] : "";
  if (verb == "--help" || verb == "-h" || verb == "help") {
    std::cout << Usage();
    return 0;
  }
  if (verb.empty()) {
    std::cerr << Usage();
    return 2;
  }
  const auto it = verbs.find(verb);
  if (it == verbs.end()) {
    std::cerr << "error: unknown verb `" << verb << "`\n" << Usage();
    return 2;
  }
  try {
    paddle_like::operators::RegisterAllOps();
    return it->second(std::vector<std::string>(argv + 2, argv + argc));
  } catch (const paddle_like::platform::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 2;
  }
}

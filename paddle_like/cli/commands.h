// The verbs of the `paddle_like` command-line tool. Each takes the arguments after the verb,
// writes its results to stdout and returns the process exit code. User errors (bad options,
// corrupt files, unknown ops, wrong feeds ...) are thrown as platform::Error; main() prints
// them and exits non-zero. Ops must be registered (operators::RegisterAllOps) beforehand.
#pragma once

#include <string>
#include <vector>

namespace paddle_like {
namespace cli {

// `paddle_like ops [--json] [TYPE ...]`: the registered ops, their slots, attributes and kernels.
int OpsCommand(const std::vector<std::string>& args);
// `paddle_like run --program FILE ...`: runs block 0 of a program on the CPU.
int RunCommand(const std::vector<std::string>& args);
// `paddle_like infer --model DIR --input FILE.npy ...`: runs a saved inference model through
// the inference library (Predictor) and prints its outputs (top-5 classes of a classifier).
int InferCommand(const std::vector<std::string>& args);
// `paddle_like bench --model DIR ...`: latency percentiles and throughput of a saved model
// through the inference library, with clones in threads.
int BenchCommand(const std::vector<std::string>& args);
// `paddle_like inspect FILE`: versions, variables, ops, feed and fetch targets of a program.
int InspectCommand(const std::vector<std::string>& args);
// `paddle_like backward --program FILE --loss VAR --out FILE`: appends the backward pass.
int BackwardCommand(const std::vector<std::string>& args);
// `paddle_like train [--model ...]`: trains a built-in model; with `--program MAIN` it
// trains that program instead (TrainProgramCommand).
int TrainCommand(const std::vector<std::string>& args);
// `paddle_like train --program MAIN --loss NAME --feed NAME=FILE ...`: trains a program that
// holds its own backward and optimizer ops (one built by PaddlePaddle, for example).
int TrainProgramCommand(const std::vector<std::string>& args);
// `paddle_like launch --nproc N VERB ...`: starts the ranks of a distributed job and stops
// them all when one fails.
int LaunchCommand(const std::vector<std::string>& args);

}  // namespace cli
}  // namespace paddle_like

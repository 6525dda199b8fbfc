// `paddle_like train`: trains a built-in model on a built-in dataset, saves the inference
// model, reloads it and evaluates it again, and optionally writes a JSON report. With
// `--program MAIN` it trains that program instead (train_program_command.cc).
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "paddle_like/cli/args.h"
#include "paddle_like/cli/commands.h"
#include "paddle_like/cli/profile_report.h"
#include "paddle_like/datasets/digits_images.h"
#include "paddle_like/datasets/fashion_mnist.h"
#include "paddle_like/datasets/sklearn_datasets.h"
#include "paddle_like/train/trainer.h"
#include "platform/collective/comm_registry.h"
#include "platform/enforce.h"
#include "platform/file_util.h"

namespace paddle_like {
namespace cli {

namespace {

constexpr char kTrainUsage[] =
    "usage: paddle_like train [--model mlp|lenet] [--dataset fashion-mnist|digits]\n"
    "                         [--epochs N] [--batch-size B] [--optimizer sgd|momentum|adam]\n"
    "                         [--lr X] [--seed S] [--save DIR] [--report FILE.json]\n"
    "                         [--data-dir DIR] [--no-progress] [--profile FILE.json]\n"
    "                         [--place cpu|gpu|gpu:N] [--dtype float32|float64]\n"
    "                         [--steps N] [--distributed [--master HOST:PORT]]\n"
    "  Trains the model, printing a progress bar per epoch and the test accuracy after it,\n"
    "  then saves DIR/model.pdmodel + DIR/model.pdiparams, reloads them and evaluates the\n"
    "  reloaded model on the test set.\n"
    "  Defaults: lenet on fashion-mnist, 3 epochs, batch 64, adam, lr 0.001, seed 1,\n"
    "  --save paddle_like_model. Threads: FLAGS_paddle_num_threads (environment).\n"
    "  --data-dir: Fashion-MNIST idx files (default /usr/share/datasets/fashion-mnist) or the\n"
    "  directory holding scikit-learn's digits.csv.gz (default build/datasets/sklearn).\n"
    "  --profile FILE: writes the profile of the last epoch's last 100 full-size steps as JSON\n"
    "  (per op: kernel key, data transforms and weight pre-packs, mean time; totals per op\n"
    "  type), a table to stderr.\n"
    "  --place: where the training program runs (ops without a kernel there run on the CPU).\n"
    "  --dtype: of the parameters and activations (default float32).\n"
    "  --steps N: stop after N training steps (default: every batch of every epoch).\n"
    "  --distributed: data-parallel over the ranks of the job (`paddle_like launch`, or\n"
    "  mpirun): --batch-size is the global batch, each rank trains on its share, gradients\n"
    "  are all-reduced, each rank evaluates its share of the test set; rank 0 alone\n"
    "  prints, saves and writes the report.\n"
    "  --master HOST:PORT: where the ranks meet (default: PADDLE_MASTER, else the first\n"
    "  trainer endpoint, else MASTER_ADDR:MASTER_PORT, else 127.0.0.1:6170).\n"
    "   or: paddle_like train --program MAIN --loss NAME --feed NAME=FILE.npy ...\n"
    "  Trains a program built elsewhere (see `paddle_like train --program X --help`).\n";

// Whether the arguments ask for the program mode (`--program MAIN` or `--program=MAIN`).
bool WantsProgramMode(const std::vector<std::string>& argv) {
  for (const std::string& a : argv) {
    if (a == "--program" || a.rfind("--program=", 0) == 0) return true;
  }
  return false;
}

int64_t ParseInt(const std::string& flag, const std::string& value) {
  try {
    size_t used = 0;
    const long long v = std::stoll(value, &used);
    if (used == value.size() && v > 0) return v;
  } catch (const std::exception&) {
  }
  throw errors::InvalidArgument("train: --%s expects a positive integer, received `%s`", flag, value);
}

float ParseFloat(const std::string& flag, const std::string& value) {
  try {
    size_t used = 0;
    const float v = std::stof(value, &used);
    if (used == value.size() && v > 0) return v;
  } catch (const std::exception&) {
  }
  throw errors::InvalidArgument("train: --%s expects a positive number, received `%s`", flag, value);
}

// This process's rank in the job (connecting its communicator).
int DistributedRank() {
  return platform::collective::CommRegistry::Instance().Get(0, platform::CPUPlace())->rank();
}

}  // namespace

int TrainCommand(const std::vector<std::string>& argv) {
  if (WantsProgramMode(argv)) return TrainProgramCommand(argv);
  const Args args(argv,
                  {"model", "dataset", "epochs", "batch-size", "optimizer", "lr",
                   "seed", "save", "report", "data-dir", "profile", "place", "dtype", "steps",
                   "master"},
                  {"help", "no-progress", "distributed"});
  if (args.Has("help")) {
    std::cout << kTrainUsage;
    return 0;
  }
  train::TrainOptions options;
  options.model = args.Get("model", "lenet");
  options.optimizer = args.Get("optimizer", "adam");
  if (args.Has("epochs")) options.epochs = static_cast<int>(ParseInt("epochs", args.Get("epochs")));
  if (args.Has("batch-size")) options.batch_size = ParseInt("batch-size", args.Get("batch-size"));
  if (args.Has("lr")) options.learning_rate = ParseFloat("lr", args.Get("lr"));
  if (args.Has("seed")) options.seed = static_cast<uint64_t>(ParseInt("seed", args.Get("seed")));
  options.save_dir = args.Get("save", "paddle_like_model");
  options.progress = !args.Has("no-progress");
  options.place = args.GetPlace("train");
  if (args.Has("steps")) options.max_steps = ParseInt("steps", args.Get("steps"));
  const std::string dtype = args.Get("dtype", "float32");
  if (dtype == "float64") {
    options.dtype = platform::DataType::FLOAT64;
  } else if (dtype != "float32") {
    throw errors::InvalidArgument("train: unknown --dtype `%s`: expected float32 or float64",
                                  dtype);
  }
  options.distributed = args.Has("distributed");
  if (args.Has("master")) {
    PL_ENFORCE(options.distributed,
               errors::InvalidArgument("train: --master needs --distributed"));
    ::setenv("PADDLE_MASTER", args.Get("master").c_str(), 1);
  }
  framework::ExecutionProfile profile;
  if (args.Has("profile")) options.profile = &profile;
  if (options.model != "mlp" && options.model != "lenet") {
    throw errors::InvalidArgument("train: unknown --model `%s`: expected mlp or lenet", options.model);
  }

  const std::string dataset = args.Get("dataset", "fashion-mnist");
  datasets::InMemoryDataset train_data, test_data;
  if (dataset == "fashion-mnist") {
    const std::string dir = args.Get("data-dir", datasets::kFashionMnistDebianDir);
    train_data = datasets::LoadFashionMnist(dir, "train");
    test_data = datasets::LoadFashionMnist(dir, "test");
  } else if (dataset == "digits") {
    const std::string dir = args.Get("data-dir", "build/datasets/sklearn");
    const datasets::Dataset digits = datasets::LoadDigits(dir + "/digits.csv.gz");
    // LeNet's two 5x5 convolutions need MNIST-sized images.
    const auto size = options.model == "lenet" ? datasets::DigitsImageSize::k28x28
                                               : datasets::DigitsImageSize::k8x8;
    train_data = datasets::DigitsSplit(digits, "train", size);
    test_data = datasets::DigitsSplit(digits, "test", size);
  } else {
    throw errors::InvalidArgument("train: unknown --dataset `%s`: expected fashion-mnist or digits",
                                  dataset);
  }
  const int rank = options.distributed ? DistributedRank() : 0;
  if (rank == 0) {
  std::printf("training %s on %s (%lld train, %lld test samples), %d epochs, batch %lld, %s lr %g\n",
              options.model.c_str(), dataset.c_str(), static_cast<long long>(train_data.size()),
              static_cast<long long>(test_data.size()), options.epochs,
              static_cast<long long>(options.batch_size), options.optimizer.c_str(),
              options.learning_rate);
  std::fflush(stdout);
  }
  const train::TrainReport report = train::Train(options, train_data, test_data, 10);
  if (report.rank != 0) return 0;  // Rank 0 prints and writes for the job.
  if (!report.model_path.empty()) {
    std::printf("saved %s.pdmodel and %s.pdiparams\n", report.model_path.c_str(),
                report.model_path.c_str());
    std::printf("reloaded model: test accuracy %.4f\n", report.reloaded_test_accuracy);
  }
  if (args.Has("profile")) {
    platform::WriteFileAtomically(args.Get("profile"),
                                  ProfileJson(profile, static_cast<int>(report.step_losses.size())));
    std::cerr << ProfileTable(profile);
  }
  if (args.Has("report")) {
    platform::WriteFileAtomically(args.Get("report"), report.ToJson(options));
    std::printf("report written to %s\n", args.Get("report").c_str());
  }
  return 0;
}

}  // namespace cli
}  // namespace paddle_like

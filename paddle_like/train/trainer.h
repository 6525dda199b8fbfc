// Training a built-in model (models.h) on an image dataset: the engine of `paddle_like train`.
//
// Builds main and startup programs with the layers API, runs the startup program, trains
// with the executor (one prepared program, fed batch by batch from a DataLoader), evaluates
// test accuracy after each epoch, saves an inference model (`<save_dir>/model.pdmodel` +
// `.pdiparams`), reloads it from disk and evaluates it again through the loaded program.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "framework/execution_profile.h"
#include "paddle_like/datasets/in_memory_dataset.h"
#include "platform/data_type.h"
#include "platform/place.h"

namespace paddle_like {
namespace train {

using platform::DataType;

struct TrainOptions {
  std::string model = "lenet";       // mlp | lenet
  std::string optimizer = "adam";    // sgd | momentum | adam
  DataType dtype = DataType::FLOAT32;  // Of the model's parameters and activations.
  float learning_rate = 0.001f;
  int epochs = 3;
  int64_t batch_size = 64;
  uint64_t seed = 1;                 // Initializers, dropout and shuffling.
  std::string save_dir;              // Empty: do not save.
  int64_t max_steps = 0;             // > 0: stop after this many training steps.
  // Data-parallel training over the ranks of the job this process belongs to
  // (platform/collective/collective_env.h): batch_size is the global batch, of which each
  // rank trains on its share (every epoch's shuffle is the same on all ranks); gradients are
  // all-reduced (layers/data_parallel.h); each rank evaluates its share of the test set;
  // rank 0 alone prints, saves and reloads. Losses and accuracies reported are over the
  // global batch and the whole test set.
  bool distributed = false;
  bool progress = true;              // Progress bar on stderr.
  // Where the training program runs (ops without a kernel there run on the CPU, with
  // transfers); evaluation of the saved model runs on the CPU.
  platform::Place place = platform::CPUPlace();
  // Optional, not owned: filled with the profile of the last epoch's last full-size steps
  // (kernels, transforms, time per op averaged over up to kProfiledSteps of them; the last
  // step when none is full-size).
  framework::ExecutionProfile* profile = nullptr;
};

struct EpochReport {
  int epoch = 0;
  double train_loss = 0;     // Mean over the epoch's batches.
  double train_accuracy = 0;
  double test_loss = 0;
  double test_accuracy = 0;
  double seconds = 0;        // Training time of the epoch (evaluation excluded).
  double samples_per_second = 0;  // Over all ranks.
};

struct TrainReport {
  std::vector<EpochReport> epochs;
  std::vector<double> step_losses;      // Every training step's loss, in order.
  double reloaded_test_accuracy = -1;   // Through the saved and reloaded model (-1: not saved).
  std::string model_path;               // <save_dir>/model (without suffix).
  int ranks = 1;                        // Ranks that trained together.
  int rank = 0;                         // This process's rank.

  std::string ToJson(const TrainOptions& options) const;
};

TrainReport Train(const TrainOptions& options, const datasets::InMemoryDataset& train_data,
                  const datasets::InMemoryDataset& test_data, int64_t classes);

// Top-1 accuracy of a saved inference model (`<prefix>.pdmodel`/`.pdiparams`) on `data`,
// fed in batches through its feed target and read from its first fetch target.
double EvaluateSavedModel(const std::string& prefix, const datasets::InMemoryDataset& data,
                          int64_t batch_size);

}  // namespace train
}  // namespace paddle_like

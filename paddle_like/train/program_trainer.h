// Training a program built elsewhere, for example a training program that PaddlePaddle's
// static mode built and saved (forward ops, PaddlePaddle's `<op>_grad` ops and optimizer
// ops): the engine of `paddle_like train --program`.
//
// TrainProgram runs the startup program (optional), loads initial persistables from a
// directory of `<name>.npy` files (optional; they override what the startup program wrote),
// then runs the main program once per step with the executor (prepared once), feeding each
// step's slice of the feed arrays and reading the loss variable after the step.
//
// Feeds are whole arrays. With batch_size > 0 an array is a dataset [N, ...] cut into
// consecutive batches of batch_size rows (a last partial batch is dropped); with batch_size
// 0 it is [batches, B, ...] and step i feeds element i. Every feed must give the same number
// of batches; more steps than batches start again from the first batch.
//
// Threading: one call trains on the caller's thread; `scope` is used by that call only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "framework/dense_tensor.h"
#include "framework/execution_profile.h"
#include "framework/program_desc.h"
#include "framework/scope.h"

namespace paddle_like {
namespace train {

struct ProgramTrainingOptions {
  const framework::ProgramDesc* startup = nullptr;  // Optional; not owned.
  std::string init_dir;   // Optional: `<name>.npy` per persistable variable of the main program.
  std::string loss;       // Variable read after every step (required).
  int64_t batch_size = 0;  // 0: feeds are [batches, B, ...]; > 0: feeds are [N, ...].
  int64_t steps = 0;       // 0: one step per batch.
  // Called after every step with the step index (from 0) and its loss.
  std::function<void(int64_t step, double loss)> on_step;
  // Optional, not owned: filled with the profile of the last step (kernels, transforms,
  // time per op).
  framework::ExecutionProfile* profile = nullptr;
  // Data-parallel over the ranks of the job this process belongs to
  // (platform/collective/collective_env.h): each step's batch is the global batch, of which
  // rank r feeds rows [r * B / n, (r + 1) * B / n). A program that holds no all-reduce of
  // its own (not transpiled for collective training) gets layers::ApplyDataParallel, with
  // the parameters its optimizer ops update. Losses are the means over the ranks.
  bool distributed = false;
};

struct ProgramTrainingResult {
  std::vector<double> losses;              // One per step, in order.
  std::vector<std::string> loaded;         // Persistables read from init_dir, sorted.
  int64_t batches = 0;                     // Batches the feeds hold.
  int rank = 0, ranks = 1;                 // This process's rank and the job's size.

  // {"loss": NAME, "steps": N, "batch_size": B, "losses": [...]}
  std::string ToJson(const ProgramTrainingOptions& options) const;
};

// Trains `main` (block 0; its feed and fetch ops, if any, are ignored) in `scope`, which
// keeps the persistables afterwards. Errors name the variable, file or op at fault: a feed
// the program does not declare or of the wrong dtype or shape, an init file naming no
// persistable variable, a persistable left without a value, a loss that is not a scalar.
ProgramTrainingResult TrainProgram(const framework::ProgramDesc& main,
                                   const std::map<std::string, framework::DenseTensor>& feeds,
                                   const ProgramTrainingOptions& options, framework::Scope* scope);

// Step `step`'s slice of a feed array (see the header comment); `name` is for messages.
framework::DenseTensor FeedBatch(const std::string& name, const framework::DenseTensor& data,
                                 int64_t batch_size, int64_t step);

// Rank `rank` of `nranks`'s share of a batch: rows [rank * B / n, (rank + 1) * B / n) of
// dim 0 (a copy; `batch` itself when nranks is 1). UnimplementedError for a batch with a
// LoD (its rows are not its samples).
framework::DenseTensor RankRows(const framework::DenseTensor& batch, int rank, int nranks);

// How many batches `data` holds for `batch_size` (see the header comment).
int64_t BatchCount(const std::string& name, const framework::DenseTensor& data,
                   int64_t batch_size);

}  // namespace train
}  // namespace paddle_like

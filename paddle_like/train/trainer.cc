#include "paddle_like/train/trainer.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <sys/stat.h>

#include "framework/data_transform.h"
#include "framework/executor.h"
#include "framework/passes/fuse_relu_grad_pass.h"
#include "framework/model_loading.h"
#include "framework/npy_io.h"
#include "paddle_like/datasets/data_loader.h"
#include "paddle_like/io/save_inference_model.h"
#include "paddle_like/layers/data_parallel.h"
#include "paddle_like/layers/optimizer.h"
#include "platform/collective/comm_registry.h"
#include "paddle_like/train/models.h"
#include "paddle_like/train/program_trainer.h"

namespace paddle_like {
namespace train {

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

double Scalar(const framework::Scope& scope, const std::string& name) {
  const framework::Variable* v = scope.FindVar(name);
  PL_ENFORCE(v != nullptr && v->IsType<framework::DenseTensor>(),
             errors::NotFound("training: variable `%s` holds no tensor", name));
  framework::DenseTensor d;
  framework::CastTensor(framework::OnCpu(v->Get<framework::DenseTensor>()), DataType::FLOAT64,
                        &d);
  return d.data<double>()[0];
}

void Feed(framework::Scope* scope, const datasets::Batch& batch, DataType dtype) {
  framework::DenseTensor* image = scope->FindVar("image")->GetMutable<framework::DenseTensor>();
  if (batch.features.dtype() == dtype) {
    *image = batch.features;
  } else {
    framework::CastTensor(batch.features, dtype, image);
  }
  *scope->FindVar("label")->GetMutable<framework::DenseTensor>() = batch.labels;
}

// This rank's share of a global batch (RankRows).
datasets::Batch RankShare(const datasets::Batch& batch, int rank, int nranks) {
  if (nranks == 1) return batch;
  const int64_t b = batch.labels.dims()[0];
  datasets::Batch share;
  share.features = RankRows(batch.features, rank, nranks);
  share.labels = RankRows(batch.labels, rank, nranks);
  share.indices.assign(batch.indices.begin() + b * rank / nranks,
                       batch.indices.begin() + b * (rank + 1) / nranks);
  return share;
}

// One progress line, redrawn in place: epoch, bar, step, loss, samples/s, ETA.
// Whether a step's run goes into the profile: the last epoch's last full-size steps (one
// step's times are noisy and the epoch's smaller last batch makes the kernels prepare again),
// or its very last step when no step is full-size.
constexpr int64_t kProfiledSteps = 100;
bool ProfilesStep(const TrainOptions& options, int epoch, int64_t step, int64_t steps,
                  int64_t batch) {
  if (options.profile == nullptr || epoch != options.epochs) return false;
  if (batch == options.batch_size) return step + kProfiledSteps + 1 >= steps;
  return step + 1 == steps && options.profile->ops.empty();
}

void DrawProgress(int epoch, int epochs, int64_t step, int64_t steps, double loss,
                  double samples_per_second, double eta) {
  constexpr int kWidth = 24;
  const int filled = steps > 0 ? static_cast<int>(kWidth * step / steps) : kWidth;
  std::string bar(static_cast<size_t>(filled), '=');
  if (filled < kWidth) bar += '>';
  bar.resize(kWidth, ' ');
  std::fprintf(stderr, "\repoch %d/%d [%s] %lld/%lld loss %.4f  %.0f samples/s  ETA %.0fs   ",
               epoch, epochs, bar.c_str(), static_cast<long long>(step),
               static_cast<long long>(steps), loss, samples_per_second, eta);
  std::fflush(stderr);
}

// Sums over the samples evaluated (divide by `seen` for the means).
struct Evaluation {
  double loss = 0, correct = 0, seen = 0;
};

Evaluation Evaluate(framework::Executor* exec, framework::PreparedProgram* test,
                    datasets::DataLoader* loader, const ModelVars& vars, DataType dtype) {
  loader->StartEpoch(0);
  datasets::Batch batch;
  double loss = 0, correct = 0;
  int64_t seen = 0;
  while (loader->Next(&batch)) {
    Feed(test->local_scope(), batch, dtype);
    exec->Run(test);
    const int64_t n = batch.labels.dims()[0];
    loss += Scalar(*test->local_scope(), vars.loss.name()) * static_cast<double>(n);
    correct += Scalar(*test->local_scope(), vars.accuracy.name()) * static_cast<double>(n);
    seen += n;
  }
  return Evaluation{loss, correct, static_cast<double>(seen)};
}

}  // namespace

TrainReport Train(const TrainOptions& options, const datasets::InMemoryDataset& train_data,
                  const datasets::InMemoryDataset& test_data, int64_t classes) {
  platform::collective::Communicator* comm = nullptr;
  int rank = 0, nranks = 1;
  if (options.distributed) {
    auto& registry = platform::collective::CommRegistry::Instance();
    comm = registry.Get(0, platform::CPUPlace());
    rank = comm->rank();
    nranks = comm->nranks();
    PL_ENFORCE(options.batch_size >= nranks,
               errors::InvalidArgument("train: --batch-size %lld is the global batch and must be "
                                       "at least the number of ranks (%d)",
                                       static_cast<long long>(options.batch_size), nranks));
  }
  const bool leader = rank == 0;
  const bool progress = options.progress && leader;

  layers::ProgramBuilder builder(options.seed);
  const ModelVars vars =
      BuildModel(&builder, options.model, train_data.sample_shape, classes, options.dtype);
  const framework::ProgramDesc test_program = CloneForTest(builder.main_program());
  layers::OptimizerConfig config;
  config.kind = layers::OptimizerConfig::ParseKind(options.optimizer);
  config.learning_rate = options.learning_rate;
  const layers::MinimizeResult minimized = layers::Minimize(&builder, vars.loss, config);

  // What runs: the built program, data-parallel when asked, with execution passes (fused
  // relu gradients). The saved model comes from the built program.
  framework::ProgramDesc train_program = builder.main_program();
  framework::ProgramDesc startup_program = builder.startup_program();
  if (nranks > 1) {
    layers::DataParallelOptions dp;
    dp.nranks = nranks;
    layers::ApplyDataParallel(minimized.param_grads, dp, &train_program, &startup_program);
    comm->set_communication_stream(true);  // The rewrite orders it (c_sync_comm_stream).
  }
  framework::Scope scope;
  framework::Executor exec{options.place};
  {
    auto startup = exec.Prepare(startup_program, 0, &scope);
    exec.Run(startup.get());
  }
  framework::ApplyExecutionPasses(&train_program, {vars.loss.name(), vars.accuracy.name()},
                                  options.place);
  auto train = exec.Prepare(train_program, 0, &scope, {vars.loss.name(), vars.accuracy.name()});
  auto test = exec.Prepare(test_program, 0, &scope, {vars.loss.name(), vars.accuracy.name()});

  auto train_set = std::make_shared<datasets::InMemoryDataset>(train_data);
  // Each rank evaluates its share of the test set; the ranks add their sums up.
  auto test_set = std::make_shared<datasets::InMemoryDataset>(
      nranks == 1 ? test_data
                  : datasets::Slice(test_data, test_data.size() * rank / nranks,
                                    test_data.size() * (rank + 1) / nranks));
  datasets::DataLoaderOptions train_options;
  train_options.batch_size = options.batch_size;
  train_options.shuffle = true;
  train_options.seed = options.seed;
  datasets::DataLoader train_loader(train_set, train_options);
  datasets::DataLoaderOptions test_options;
  test_options.batch_size = 500;
  datasets::DataLoader test_loader(test_set, test_options);

  TrainReport report;
  report.ranks = nranks;
  report.rank = rank;
  int64_t total_steps = 0;
  bool out_of_steps = false;
  for (int epoch = 1; epoch <= options.epochs && !out_of_steps; ++epoch) {
    train_loader.StartEpoch(epoch - 1);
    // The ranks start the epoch's clock together: rank 0's figure is the job's training
    // time, not how much later another rank finished preparing or evaluating.
    if (comm != nullptr) comm->Barrier();
    const auto start = Clock::now();
    int64_t steps = train_loader.num_batches();
    if (options.max_steps > 0) steps = std::min(steps, options.max_steps - total_steps);
    datasets::Batch global_batch;
    // Each step's loss and accuracy over the global batch are the ranks' means weighted by
    // their shares; the ranks add theirs up once per epoch (one collective, not one a step).
    std::vector<double> metrics;  // loss, accuracy of each step, weighted.
    double local_loss_sum = 0;
    int64_t step = 0, samples = 0;
    while (step < steps && train_loader.Next(&global_batch)) {
      // A last batch smaller than the ranks is skipped by all of them alike.
      if (global_batch.labels.dims()[0] < nranks) break;
      const datasets::Batch batch = RankShare(global_batch, rank, nranks);
      Feed(train->local_scope(), batch, options.dtype);
      if (ProfilesStep(options, epoch, step, steps, global_batch.labels.dims()[0])) {
        framework::ExecutionProfile run;
        exec.Run(train.get(), &run);
        options.profile->Average(run);
      } else {
        exec.Run(train.get(), nullptr);
      }
      const double share = static_cast<double>(batch.labels.dims()[0]) /
                           static_cast<double>(global_batch.labels.dims()[0]);
      const double loss = Scalar(*train->local_scope(), vars.loss.name());
      metrics.push_back(loss * share);
      metrics.push_back(Scalar(*train->local_scope(), vars.accuracy.name()) * share);
      local_loss_sum += loss;
      ++step;
      samples += global_batch.labels.dims()[0];
      const double elapsed = Seconds(start);
      if (progress && (step % 10 == 0 || step == steps)) {
        // Rank 0's own running loss (the job's comes after the epoch).
        const double rate = samples / std::max(elapsed, 1e-9);
        const double eta = elapsed / static_cast<double>(step) * static_cast<double>(steps - step);
        DrawProgress(epoch, options.epochs, step, steps, local_loss_sum / static_cast<double>(step),
                     rate, eta);
      }
    }
    if (comm != nullptr && !metrics.empty()) {
      comm->AllReduce(metrics.data(), metrics.data(), static_cast<int64_t>(metrics.size()),
                      DataType::FLOAT64, platform::collective::ReduceOp::kSum);
    }
    double loss_sum = 0, acc_sum = 0;
    for (size_t k = 0; k + 1 < metrics.size(); k += 2) {
      report.step_losses.push_back(metrics[k]);
      loss_sum += metrics[k];
      acc_sum += metrics[k + 1];
    }
    total_steps += step;
    out_of_steps = options.max_steps > 0 && total_steps >= options.max_steps;
    EpochReport e;
    e.epoch = epoch;
    e.seconds = Seconds(start);
    e.samples_per_second = samples / std::max(e.seconds, 1e-9);
    e.train_loss = step > 0 ? loss_sum / static_cast<double>(step) : 0;
    e.train_accuracy = step > 0 ? acc_sum / static_cast<double>(step) : 0;
    Evaluation eval = Evaluate(&exec, test.get(), &test_loader, vars, options.dtype);
    if (comm != nullptr) {
      double sums[3] = {eval.loss, eval.correct, eval.seen};
      comm->AllReduce(sums, sums, 3, DataType::FLOAT64, platform::collective::ReduceOp::kSum);
      eval = Evaluation{sums[0], sums[1], sums[2]};
    }
    if (eval.seen > 0) {
      e.test_loss = eval.loss / eval.seen;
      e.test_accuracy = eval.correct / eval.seen;
    }
    report.epochs.push_back(e);
    if (progress) std::fprintf(stderr, "\n");
    if (leader) {
      std::printf("epoch %d: train loss %.4f acc %.4f | test loss %.4f acc %.4f | %.1fs, %.0f "
                  "samples/s%s\n",
                  epoch, e.train_loss, e.train_accuracy, e.test_loss, e.test_accuracy, e.seconds,
                  e.samples_per_second,
                  nranks > 1 ? (" over " + std::to_string(nranks) + " ranks").c_str() : "");
      std::fflush(stdout);
    }
  }
  // No rank leaves while another may still be in a collective with it.
  if (comm != nullptr) comm->Barrier();

  if (!options.save_dir.empty() && leader) {
    ::mkdir(options.save_dir.c_str(), 0755);
    report.model_path = options.save_dir + "/model";
    io::SaveInferenceModel(report.model_path, {vars.image.name()}, {vars.probabilities.name()},
                           builder.main_program(), scope);
    report.reloaded_test_accuracy = EvaluateSavedModel(report.model_path, test_data, 500);
    // A few test samples next to the model, to try it with `paddle_like run`.
    const auto samples = datasets::Slice(test_data, 0, std::min<int64_t>(8, test_data.size()));
    datasets::DataLoaderOptions opts;
    opts.batch_size = std::max<int64_t>(1, samples.size());
    opts.prefetch = 0;
    datasets::DataLoader loader(std::make_shared<datasets::InMemoryDataset>(samples), opts);
    loader.StartEpoch(0);
    datasets::Batch batch;
    if (loader.Next(&batch)) {
      framework::WriteNpy(options.save_dir + "/test_images.npy", batch.features);
      framework::WriteNpy(options.save_dir + "/test_labels.npy", batch.labels);
    }
  }
  return report;
}

double EvaluateSavedModel(const std::string& prefix, const datasets::InMemoryDataset& data,
                          int64_t batch_size) {
  const framework::ProgramDesc program = framework::ProgramDesc::Load(prefix + ".pdmodel");
  framework::Scope scope;
  framework::ParameterSource source;
  source.combined_file = prefix + ".pdiparams";
  framework::LoadParameters(program, prefix + ".pdmodel", source, &scope);
  const auto feeds = program.FeedTargetNames();
  const auto fetches = program.FetchTargetNames();
  PL_ENFORCE(feeds.size() == 1 && !fetches.empty(),
             errors::InvalidArgument("model `%s`: expected one feed target and a fetch target",
                                     prefix));
  const framework::VarDesc* feed_var = program.Block(0).FindVar(feeds[0]);
  const DataType feed_dtype =
      feed_var != nullptr ? feed_var->GetDataType() : DataType::FLOAT32;
  framework::Executor exec{platform::CPUPlace()};
  auto loader_data = std::make_shared<datasets::InMemoryDataset>(data);
  datasets::DataLoaderOptions opts;
  opts.batch_size = batch_size;
  datasets::DataLoader loader(loader_data, opts);
  loader.StartEpoch(0);
  datasets::Batch batch;
  int64_t correct = 0, seen = 0;
  while (loader.Next(&batch)) {
    framework::DenseTensor features = batch.features;
    if (feed_dtype != features.dtype()) framework::CastTensor(batch.features, feed_dtype, &features);
    const auto out = exec.Run(program, &scope, {{feeds[0], features}}, {fetches[0]});
    framework::DenseTensor prob = out[0];
    if (prob.dtype() != DataType::FLOAT32) framework::CastTensor(out[0], DataType::FLOAT32, &prob);
    const int64_t n = prob.dims()[0], c = prob.dims()[1];
    const float* p = prob.data<float>();
    const int64_t* labels = batch.labels.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      int64_t best = 0;
      for (int64_t k = 1; k < c; ++k) {
        if (p[i * c + k] > p[i * c + best]) best = k;
      }
      correct += best == labels[i];
    }
    seen += n;
  }
  return seen > 0 ? static_cast<double>(correct) / static_cast<double>(seen) : 0;
}

std::string TrainReport::ToJson(const TrainOptions& options) const {
  std::ostringstream os;
  os.precision(8);
  os << "{\n  \"model\": \"" << options.model << "\",\n  \"optimizer\": \"" << options.optimizer
     << "\",\n  \"learning_rate\": " << options.learning_rate << ",\n  \"batch_size\": "
     << options.batch_size << ",\n  \"seed\": " << options.seed << ",\n  \"place\": \""
     << options.place.ToString() << "\",\n  \"dtype\": \"" << platform::DataTypeName(options.dtype)
     << "\",\n  \"ranks\": " << ranks << ",\n  \"epochs\": [";
  for (size_t i = 0; i < epochs.size(); ++i) {
    const EpochReport& e = epochs[i];
    os << (i ? "," : "") << "\n    {\"epoch\": " << e.epoch << ", \"train_loss\": " << e.train_loss
       << ", \"train_accuracy\": " << e.train_accuracy << ", \"test_loss\": " << e.test_loss
       << ", \"test_accuracy\": " << e.test_accuracy << ", \"seconds\": " << e.seconds
       << ", \"samples_per_second\": " << e.samples_per_second << "}";
  }
  // Every step's loss, with all the digits of the double: runs compare bit for bit.
  os << "\n  ],\n  \"step_losses\": [";
  os.precision(17);
  for (size_t i = 0; i < step_losses.size(); ++i) os << (i ? ", " : "") << step_losses[i];
  os.precision(8);
  os << "],\n  \"reloaded_test_accuracy\": " << reloaded_test_accuracy
     << ",\n  \"model_path\": \"" << model_path << "\"\n}\n";
  return os.str();
}

}  // namespace train
}  // namespace paddle_like

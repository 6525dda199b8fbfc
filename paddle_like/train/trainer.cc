#include "paddle_like/train/trainer.h"

#include <chrono>
#include <cstdio>
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
#include "paddle_like/layers/optimizer.h"
#include "paddle_like/train/models.h"

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

void Feed(framework::Scope* scope, const datasets::Batch& batch) {
  *scope->FindVar("image")->GetMutable<framework::DenseTensor>() = batch.features;
  *scope->FindVar("label")->GetMutable<framework::DenseTensor>() = batch.labels;
}

// One progress line, redrawn in place: epoch, bar, step, loss, samples/s, ETA.
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

struct Evaluation {
  double loss = 0, accuracy = 0;
};

Evaluation Evaluate(framework::Executor* exec, framework::PreparedProgram* test,
                    datasets::DataLoader* loader, const ModelVars& vars) {
  loader->StartEpoch(0);
  datasets::Batch batch;
  double loss = 0, correct = 0;
  int64_t seen = 0;
  while (loader->Next(&batch)) {
    Feed(test->local_scope(), batch);
    exec->Run(test);
    const int64_t n = batch.labels.dims()[0];
    loss += Scalar(*test->local_scope(), vars.loss.name()) * static_cast<double>(n);
    correct += Scalar(*test->local_scope(), vars.accuracy.name()) * static_cast<double>(n);
    seen += n;
  }
  Evaluation e;
  if (seen > 0) {
    e.loss = loss / static_cast<double>(seen);
    e.accuracy = correct / static_cast<double>(seen);
  }
  return e;
}

}  // namespace

TrainReport Train(const TrainOptions& options, const datasets::InMemoryDataset& train_data,
                  const datasets::InMemoryDataset& test_data, int64_t classes) {
  layers::ProgramBuilder builder(options.seed);
  const ModelVars vars = BuildModel(&builder, options.model, train_data.sample_shape, classes);
  const framework::ProgramDesc test_program = CloneForTest(builder.main_program());
  layers::OptimizerConfig config;
  config.kind = layers::OptimizerConfig::ParseKind(options.optimizer);
  config.learning_rate = options.learning_rate;
  layers::Minimize(&builder, vars.loss, config);

  framework::Scope scope;
  framework::Executor exec{options.place};
  {
    auto startup = exec.Prepare(builder.startup_program(), 0, &scope);
    exec.Run(startup.get());
  }
  // What runs: the built program with execution passes (fused relu gradients).
  framework::ProgramDesc train_program = builder.main_program();
  framework::ApplyExecutionPasses(&train_program);
  auto train = exec.Prepare(train_program, 0, &scope, {vars.loss.name(), vars.accuracy.name()});
  auto test = exec.Prepare(test_program, 0, &scope, {vars.loss.name(), vars.accuracy.name()});

  auto train_set = std::make_shared<datasets::InMemoryDataset>(train_data);
  auto test_set = std::make_shared<datasets::InMemoryDataset>(test_data);
  datasets::DataLoaderOptions train_options;
  train_options.batch_size = options.batch_size;
  train_options.shuffle = true;
  train_options.seed = options.seed;
  datasets::DataLoader train_loader(train_set, train_options);
  datasets::DataLoaderOptions test_options;
  test_options.batch_size = 500;
  datasets::DataLoader test_loader(test_set, test_options);

  TrainReport report;
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    train_loader.StartEpoch(epoch - 1);
    const auto start = Clock::now();
    const int64_t steps = train_loader.num_batches();
    datasets::Batch batch;
    double loss_sum = 0, acc_sum = 0;
    int64_t step = 0, samples = 0;
    while (train_loader.Next(&batch)) {
      Feed(train->local_scope(), batch);
      const bool last = epoch == options.epochs && step + 1 == steps;
      exec.Run(train.get(), last ? options.profile : nullptr);
      const double loss = Scalar(*train->local_scope(), vars.loss.name());
      report.step_losses.push_back(loss);
      loss_sum += loss;
      acc_sum += Scalar(*train->local_scope(), vars.accuracy.name());
      ++step;
      samples += batch.labels.dims()[0];
      const double elapsed = Seconds(start);
      if (options.progress && (step % 10 == 0 || step == steps)) {
        const double rate = samples / std::max(elapsed, 1e-9);
        const double eta = elapsed / static_cast<double>(step) * static_cast<double>(steps - step);
        DrawProgress(epoch, options.epochs, step, steps, loss_sum / static_cast<double>(step), rate, eta);
      }
    }
    EpochReport e;
    e.epoch = epoch;
    e.seconds = Seconds(start);
    e.samples_per_second = samples / std::max(e.seconds, 1e-9);
    e.train_loss = step > 0 ? loss_sum / static_cast<double>(step) : 0;
    e.train_accuracy = step > 0 ? acc_sum / static_cast<double>(step) : 0;
    const Evaluation eval = Evaluate(&exec, test.get(), &test_loader, vars);
    e.test_loss = eval.loss;
    e.test_accuracy = eval.accuracy;
    report.epochs.push_back(e);
    if (options.progress) std::fprintf(stderr, "\n");
    std::printf("epoch %d: train loss %.4f acc %.4f | test loss %.4f acc %.4f | %.1fs, %.0f samples/s\n",
                epoch, e.train_loss, e.train_accuracy, e.test_loss, e.test_accuracy, e.seconds,
                e.samples_per_second);
    std::fflush(stdout);
  }

  if (!options.save_dir.empty()) {
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
  framework::Executor exec{platform::CPUPlace()};
  auto loader_data = std::make_shared<datasets::InMemoryDataset>(data);
  datasets::DataLoaderOptions opts;
  opts.batch_size = batch_size;
  datasets::DataLoader loader(loader_data, opts);
  loader.StartEpoch(0);
  datasets::Batch batch;
  int64_t correct = 0, seen = 0;
  while (loader.Next(&batch)) {
    const auto out = exec.Run(program, &scope, {{feeds[0], batch.features}}, {fetches[0]});
    const framework::DenseTensor& prob = out[0];
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
     << options.place.ToString() << "\",\n  \"epochs\": [";
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

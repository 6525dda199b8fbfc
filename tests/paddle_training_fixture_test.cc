// A training program built and saved by PaddlePaddle 3.3.1 (tests/fixtures/
// paddle_mlp_training, made by make_paddle_mlp_fixture.py: fc-relu-fc, softmax with cross
// entropy, Adam) trained here: from PaddlePaddle's initial persistables, 20 steps must give
// PaddlePaddle's own 20 losses. Also its startup program runs here, and the CLI trains it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/npy_io.h"
#include "framework/program_desc.h"
#include "operators/registry.h"
#include "paddle_like/train/program_trainer.h"
#include "platform/file_util.h"
#include "tests/cli_test_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace {

namespace fs = std::filesystem;
using framework::DenseTensor;
using framework::ProgramDesc;
using framework::Scope;

const std::string kDir = PL_SOURCE_DIR "/tests/fixtures/paddle_mlp_training";
constexpr char kLoss[] = "mean_0.tmp_0";
constexpr double kRelTol = 1e-4;

std::vector<double> PaddleLosses() {
  return testing::ToDoubles(framework::ReadNpy(kDir + "/losses.npy"));
}

std::map<std::string, DenseTensor> Feeds() {
  return {{"image", framework::ReadNpy(kDir + "/images.npy")},
          {"label", framework::ReadNpy(kDir + "/labels.npy")}};
}

// The persistables PaddlePaddle saved, by name.
std::map<std::string, DenseTensor> InitialValues() {
  std::map<std::string, DenseTensor> values;
  for (const auto& entry : fs::directory_iterator(kDir + "/init")) {
    values[entry.path().stem().string()] = framework::ReadNpy(entry.path().string());
  }
  return values;
}

double MaxRelativeDifference(const std::vector<double>& actual,
                             const std::vector<double>& expected) {
  double worst = 0;
  for (size_t i = 0; i < std::min(actual.size(), expected.size()); ++i) {
    worst = std::max(worst, std::abs(actual[i] - expected[i]) / std::abs(expected[i]));
  }
  return worst;
}

TEST(PaddleTrainingFixture, TwentyStepsGivePaddlePaddlesLosses) {
  const ProgramDesc main = ProgramDesc::Load(kDir + "/main.pdmodel");
  train::ProgramTrainingOptions options;
  options.init_dir = kDir + "/init";
  options.loss = kLoss;
  Scope scope;
  const train::ProgramTrainingResult result = train::TrainProgram(main, Feeds(), options, &scope);
  const std::vector<double> expected = PaddleLosses();
  ASSERT_EQ(expected.size(), 20u);
  ASSERT_EQ(result.losses.size(), expected.size());
  EXPECT_EQ(result.batches, 20);
  EXPECT_EQ(result.loaded.size(), InitialValues().size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(result.losses[i], expected[i], kRelTol * std::abs(expected[i])) << "step " << i;
  }
  std::printf("max relative loss difference to PaddlePaddle: %.3g\n",
              MaxRelativeDifference(result.losses, expected));
  // The parameters moved: Adam updated them in place in the scope.
  const DenseTensor& w = scope.FindVar("fc_0.w_0")->Get<DenseTensor>();
  EXPECT_NE(testing::ToDoubles(w), testing::ToDoubles(InitialValues().at("fc_0.w_0")));
  const std::vector<double> beta1_pow =
      testing::ToDoubles(scope.FindVar("fc_0.w_0_beta1_pow_acc_0")->Get<DenseTensor>());
  EXPECT_NEAR(beta1_pow[0], std::pow(0.9, 21), 1e-6);
}

TEST(PaddleTrainingFixture, DatasetFeedsCutIntoBatchesGiveTheSameLosses) {
  // The 20 batches as one dataset of 320 rows, cut again into batches of 16.
  std::map<std::string, DenseTensor> feeds = Feeds();
  for (auto& kv : feeds) {
    std::vector<int64_t> dims = kv.second.dims().ToVector();
    dims.erase(dims.begin());
    dims[0] = 320;
    kv.second.Resize(framework::DDim(dims));
  }
  train::ProgramTrainingOptions options;
  options.init_dir = kDir + "/init";
  options.loss = kLoss;
  options.batch_size = 16;
  options.steps = 5;
  Scope scope;
  const auto result =
      train::TrainProgram(ProgramDesc::Load(kDir + "/main.pdmodel"), feeds, options, &scope);
  const std::vector<double> expected = PaddleLosses();
  ASSERT_EQ(result.losses.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_NEAR(result.losses[i], expected[i], kRelTol * std::abs(expected[i])) << "step " << i;
  }
}

TEST(PaddleTrainingFixture, StartupProgramInitializesEveryPersistable) {
  operators::RegisterAllOps();
  const ProgramDesc startup = ProgramDesc::Load(kDir + "/startup.pdmodel");
  for (const framework::OpDesc* op : startup.Block(0).AllOps()) {
    EXPECT_TRUE(framework::OpInfoMap::Instance().Has(op->Type())) << op->Type();
  }
  Scope scope;
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(startup, 0, &scope);
  exec.Run(prepared.get());
  const std::map<std::string, DenseTensor> init = InitialValues();
  ASSERT_EQ(init.size(), 21u);
  for (const auto& kv : init) {
    SCOPED_TRACE(kv.first);
    const framework::Variable* v = scope.FindVar(kv.first);
    ASSERT_TRUE(v != nullptr && v->IsType<DenseTensor>() && v->Get<DenseTensor>().initialized());
    const DenseTensor& t = v->Get<DenseTensor>();
    EXPECT_EQ(t.dims(), kv.second.dims());
    EXPECT_EQ(t.dtype(), kv.second.dtype());
    // fill_constant (biases and moments 0, beta powers 0.9 / 0.999, learning rate 0.01) and
    // uniform_random with the program's seed give PaddlePaddle's CPU values (the uniform
    // transform may round the last bit differently).
    testing::ExpectNear(testing::ToDoubles(t), testing::ToDoubles(kv.second), 1e-6, 1e-7,
                        kv.first);
  }
}

TEST(PaddleTrainingFixture, StartupThenTrainingRuns) {
  const ProgramDesc startup = ProgramDesc::Load(kDir + "/startup.pdmodel");
  train::ProgramTrainingOptions options;
  options.startup = &startup;
  options.loss = kLoss;
  options.steps = 3;
  Scope scope;
  const auto result =
      train::TrainProgram(ProgramDesc::Load(kDir + "/main.pdmodel"), Feeds(), options, &scope);
  ASSERT_EQ(result.losses.size(), 3u);
  for (double loss : result.losses) EXPECT_TRUE(std::isfinite(loss) && loss > 0) << loss;
}

TEST(PaddleTrainingFixture, ErrorsNameWhatIsWrong) {
  const ProgramDesc main = ProgramDesc::Load(kDir + "/main.pdmodel");
  train::ProgramTrainingOptions options;
  options.loss = kLoss;
  Scope scope;
  // No startup program and no init files.
  testing::ExpectError<platform::PreconditionNotMetError>(
      [&] { train::TrainProgram(main, Feeds(), options, &scope); },
      {"persistable variable", "has no value"});
  options.init_dir = kDir + "/init";
  std::map<std::string, DenseTensor> feeds = Feeds();
  feeds["pixels"] = feeds.at("image");
  testing::ExpectError<platform::NotFoundError>(
      [&] { train::TrainProgram(main, feeds, options, &scope); }, {"feed `pixels`"});
  feeds = Feeds();
  std::swap(feeds.at("image"), feeds.at("label"));
  testing::ExpectError<platform::InvalidArgumentError>(
      [&] { train::TrainProgram(main, feeds, options, &scope); },
      {"feed `image`", "expected dtype float32, received int64"});
  options.loss = "no_such_loss";
  testing::ExpectError<platform::NotFoundError>(
      [&] { train::TrainProgram(main, Feeds(), options, &scope); }, {"loss `no_such_loss`"});
}

TEST(PaddleTrainingFixture, CommandLineTrainsTheProgram) {
  const std::string report = testing::CliTempDir() + "/paddle_fixture_report.json";
  const std::string profile = testing::CliTempDir() + "/paddle_fixture_profile.json";
  const testing::CliResult r = testing::RunCli(
      {"train", "--program", kDir + "/main.pdmodel", "--startup", kDir + "/startup.pdmodel",
       "--init-dir", kDir + "/init", "--loss", kLoss, "--feed",
       "image=" + kDir + "/images.npy,label=" + kDir + "/labels.npy", "--report", report,
       "--profile", profile});
  ASSERT_EQ(r.code, 0) << r.err;
  // The profile is the last step's: forward, backward and the optimizer ops.
  const std::string profile_json = platform::ReadFile(profile);
  EXPECT_TRUE(testing::Contains(profile_json, "\"runs\": 20")) << profile_json;
  EXPECT_TRUE(testing::Contains(profile_json, "\"type\": \"adam\"")) << profile_json;
  EXPECT_TRUE(testing::Contains(profile_json, "\"type\": \"softmax_with_cross_entropy_grad\""))
      << profile_json;
  EXPECT_TRUE(testing::Contains(r.err, "profile of one run")) << r.err;
  const std::vector<double> expected = PaddleLosses();
  EXPECT_TRUE(testing::Contains(r.out, "step 1 loss ")) << r.out;
  EXPECT_TRUE(testing::Contains(r.out, "step 20 loss ")) << r.out;
  EXPECT_TRUE(testing::Contains(r.out, "trained 20 steps (initial values of 21 persistables"))
      << r.out;
  // Every printed loss matches PaddlePaddle's.
  for (size_t i = 0; i < expected.size(); ++i) {
    const std::string key = "step " + std::to_string(i + 1) + " loss ";
    const size_t at = r.out.find(key);
    ASSERT_NE(at, std::string::npos) << key;
    const double loss = std::stod(r.out.substr(at + key.size()));
    EXPECT_NEAR(loss, expected[i], kRelTol * std::abs(expected[i])) << key;
  }
  const std::string json = platform::ReadFile(report);
  EXPECT_TRUE(testing::Contains(json, "\"loss\": \"mean_0.tmp_0\"")) << json;
  EXPECT_TRUE(testing::Contains(json, "\"steps\": 20")) << json;
  EXPECT_TRUE(testing::Contains(json, "\"losses\": [")) << json;

  const testing::CliResult bad = testing::RunCli(
      {"train", "--program", kDir + "/main.pdmodel", "--loss", kLoss, "--feed", "image"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_TRUE(testing::Contains(bad.err, "--feed expects NAME=FILE.npy")) << bad.err;
}

}  // namespace
}  // namespace paddle_like

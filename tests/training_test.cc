// End-to-end training on scikit-learn's digits: the MLP learns (test accuracy > 0.90 in a few
// seconds), the saved inference model reloads to the same accuracy, and two multi-threaded
// runs with the same seed under FLAGS_cpu_deterministic are bitwise identical.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "framework/model_loading.h"
#include "framework/program_desc.h"
#include "paddle_like/datasets/digits_images.h"
#include "paddle_like/datasets/sklearn_datasets.h"
#include "paddle_like/train/trainer.h"
#include "platform/device_context_pool.h"
#include "platform/file_util.h"
#include "platform/flags.h"

namespace paddle_like {
namespace train {
namespace {

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

class DigitsTraining : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = std::string(PL_DATASETS_DIR) + "/sklearn/digits.csv.gz";
    if (!Exists(path)) GTEST_SKIP() << "no " << path << " (scripts/fetch_datasets.sh fetches it)";
    const auto digits = datasets::LoadDigits(path);
    train_ = datasets::DigitsSplit(digits, "train", datasets::DigitsImageSize::k8x8);
    test_ = datasets::DigitsSplit(digits, "test", datasets::DigitsImageSize::k8x8);
  }
  TrainOptions Options() const {
    TrainOptions o;
    o.model = "mlp";
    o.optimizer = "adam";
    o.learning_rate = 0.002f;
    o.epochs = 8;  // Above 0.91 test accuracy for seeds 1 to 7, in well under a second.
    o.batch_size = 64;
    o.seed = 7;
    o.progress = false;
    return o;
  }
  datasets::InMemoryDataset train_, test_;
};

TEST_F(DigitsTraining, MlpLearnsAndTheSavedModelReloads) {
  TrainOptions o = Options();
  o.save_dir = ::testing::TempDir() + "/digits_mlp";
  const TrainReport r = Train(o, train_, test_, 10);
  ASSERT_EQ(r.epochs.size(), 8u);
  EXPECT_LT(r.epochs.back().train_loss, r.epochs.front().train_loss);
  EXPECT_GT(r.epochs.back().test_accuracy, 0.90);
  // The reloaded model computes the same predictions as the trained program.
  EXPECT_NEAR(r.reloaded_test_accuracy, r.epochs.back().test_accuracy, 1e-6);  // float32 mean
  // The saved program is PaddlePaddle's inference layout: feed `image`, a scale-op fetch.
  const auto program = framework::ProgramDesc::Load(r.model_path + ".pdmodel");
  EXPECT_EQ(program.FeedTargetNames(), std::vector<std::string>{"image"});
  EXPECT_EQ(program.FetchTargetNames(), std::vector<std::string>{"save_infer_model/scale_0.tmp_0"});
  for (const framework::OpDesc* op : program.Block(0).AllOps()) {
    EXPECT_NE(op->Type().find("_grad"), 0u);
    EXPECT_NE(op->Type(), "adam");
  }
  const auto params = framework::ParameterNames(program);
  EXPECT_EQ(params, (std::vector<std::string>{"fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0",
                                               "fc_2.b_0", "fc_2.w_0"}));
}

TEST_F(DigitsTraining, DeterministicMultiThreadedRunsAreBitwiseEqual) {
  const int old_threads = FLAGS_paddle_num_threads;
  const bool old_det = FLAGS_cpu_deterministic;
  FLAGS_paddle_num_threads = 2;
  FLAGS_cpu_deterministic = true;
  platform::DeviceContextPool::Instance().Clear();
  TrainOptions o = Options();
  o.epochs = 2;
  o.save_dir = ::testing::TempDir() + "/digits_det_a";
  const TrainReport a = Train(o, train_, test_, 10);
  o.save_dir = ::testing::TempDir() + "/digits_det_b";
  const TrainReport b = Train(o, train_, test_, 10);
  FLAGS_paddle_num_threads = old_threads;
  FLAGS_cpu_deterministic = old_det;
  platform::DeviceContextPool::Instance().Clear();
  ASSERT_EQ(a.step_losses.size(), b.step_losses.size());
  ASSERT_FALSE(a.step_losses.empty());
  EXPECT_EQ(std::memcmp(a.step_losses.data(), b.step_losses.data(),
                        a.step_losses.size() * sizeof(double)), 0);
  EXPECT_EQ(a.epochs.back().test_accuracy, b.epochs.back().test_accuracy);
  // The trained parameters, as saved, are byte for byte the same.
  EXPECT_EQ(platform::ReadFile(a.model_path + ".pdiparams"),
            platform::ReadFile(b.model_path + ".pdiparams"));
}

}  // namespace
}  // namespace train
}  // namespace paddle_like

// Checkpoints of a training program: every persistable (parameters, optimizer state, the
// learning rate) round-trips bit for bit, training resumes identically from a checkpoint,
// and a failed save leaves the previous checkpoint intact.
#include <gtest/gtest.h>

#include "framework/executor.h"
#include "paddle_like/io/checkpoint.h"
#include "paddle_like/layers/layers.h"
#include "paddle_like/layers/optimizer.h"
#include "platform/file_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace io {
namespace {

using testing::MakeTensor;
using testing::RandomValues;
using testing::ToDoubles;

struct Net {
  layers::ProgramBuilder builder{3};
  layers::Var loss;
  Net() {
    auto x = layers::Data(&builder, "x", {-1, 4});
    auto y = layers::Data(&builder, "y", {-1, 1}, platform::DataType::INT64);
    auto logits = layers::Fc(&builder, layers::Fc(&builder, x, 8, "relu"), 3);
    loss = layers::Mean(&builder, layers::SoftmaxWithCrossEntropy(&builder, logits, y));
    layers::OptimizerConfig config;
    config.kind = layers::OptimizerConfig::Kind::kAdam;
    config.learning_rate = 0.05f;
    layers::Minimize(&builder, loss, config);
  }
};

double Step(framework::Executor* exec, framework::PreparedProgram* p, int step) {
  *p->local_scope()->FindVar("x")->GetMutable<framework::DenseTensor>() =
      MakeTensor<float>({5, 4}, RandomValues(20, -1, 1, 100 + static_cast<unsigned>(step)));
  *p->local_scope()->FindVar("y")->GetMutable<framework::DenseTensor>() =
      MakeTensor<int64_t>({5, 1}, {0, 1, 2, 1, 0});
  exec->Run(p);
  return ToDoubles(p->local_scope()->FindVar("mean_0.tmp_0")->Get<framework::DenseTensor>())[0];
}

TEST(Checkpoint, RoundTripAndResume) {
  Net net;
  const auto names = CheckpointVariables(net.builder.main_program());
  // fc weights and biases, Adam's moments and beta powers, the learning rate.
  EXPECT_EQ(names.size(), 4u + 4u * 4u + 1u);
  framework::Executor exec{platform::CPUPlace()};
  framework::Scope scope;
  exec.Run(exec.Prepare(net.builder.startup_program(), 0, &scope).get());
  auto train = exec.Prepare(net.builder.main_program(), 0, &scope, {net.loss.name()});
  for (int s = 0; s < 3; ++s) Step(&exec, train.get(), s);
  const std::string path = ::testing::TempDir() + "/net.ckpt";
  SaveCheckpoint(path, net.builder.main_program(), scope);

  // Continue in the original scope, and from the checkpoint in a fresh one: same losses.
  std::vector<double> original, resumed;
  for (int s = 3; s < 6; ++s) original.push_back(Step(&exec, train.get(), s));
  framework::Scope fresh;
  LoadCheckpoint(path, net.builder.main_program(), &fresh);
  auto again = exec.Prepare(net.builder.main_program(), 0, &fresh, {net.loss.name()});
  for (int s = 3; s < 6; ++s) resumed.push_back(Step(&exec, again.get(), s));
  EXPECT_EQ(original, resumed);

  // A save that fails (a variable holds nothing) leaves the old checkpoint as it was.
  const std::string before = platform::ReadFile(path);
  framework::Scope empty;
  EXPECT_THROW(SaveCheckpoint(path, net.builder.main_program(), empty), platform::NotFoundError);
  EXPECT_EQ(platform::ReadFile(path), before);
  // A truncated checkpoint is rejected with the file named.
  platform::WriteFileAtomically(path, before.substr(0, before.size() / 2));
  try {
    LoadCheckpoint(path, net.builder.main_program(), &fresh);
    FAIL();
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace io
}  // namespace paddle_like

// PaddlePaddle's collective training programs on a job of 2 ranks: a program that
// PaddlePaddle's GradAllReduce transpiler rewrote for 2 ranks (all_reduce, broadcast,
// c_sync_* ops; tests/fixtures/make_paddle_collective_fixture.py) trains under
// `paddle_like launch` and follows PaddlePaddle's losses, and so does an untranspiled
// PaddlePaddle program that `--distributed` rewrites itself. A PaddlePaddle program with
// batch normalisation trains to PaddlePaddle's losses on one process, and its synchronised
// form (sync_batch_norm, as BuildStrategy.sync_batch_norm makes it) on two ranks follows
// those losses of one process over the whole batch (tests/fixtures/
// make_paddle_sync_bn_fixture.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "cli_test_util.h"
#include "framework/npy_io.h"
#include "framework/program_desc.h"
#include "op_test_util.h"

namespace paddle_like {
namespace {

const std::string kCollective = PL_SOURCE_DIR "/tests/fixtures/paddle_collective_training";
const std::string kPlain = PL_SOURCE_DIR "/tests/fixtures/paddle_mlp_training";
const std::string kSyncBn = PL_SOURCE_DIR "/tests/fixtures/paddle_sync_bn_training";
constexpr double kRelTol = 1e-4;  // float32 training, as the one-process fixture test.

std::vector<std::string> TrainArgs(const std::string& dir, bool with_startup,
                                   const std::string& program = "main.pdmodel", int nranks = 2) {
  std::vector<std::string> args = {
      "train",        "--program",   dir + "/" + program,
      "--init-dir",   dir + "/init", "--loss",
      "mean_0.tmp_0", "--feed",      "image=" + dir + "/images.npy,label=" + dir + "/labels.npy"};
  if (nranks > 1) {
    args.insert(args.begin(), {"launch", "--nproc", std::to_string(nranks)});
    args.push_back("--distributed");
  }
  if (with_startup) {
    args.push_back("--startup");
    args.push_back(dir + "/startup.pdmodel");
  }
  return args;
}

void ExpectLosses(const std::vector<double>& got, const std::vector<double>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], expected[i], kRelTol * std::abs(expected[i])) << "step " << i + 1;
  }
}

TEST(PaddleCollectiveFixture, TheTranspiledProgramHoldsPaddlePaddlesCollectiveOps) {
  operators::RegisterAllOps();
  const auto main = framework::ProgramDesc::Load(kCollective + "/main.pdmodel");
  const auto startup = framework::ProgramDesc::Load(kCollective + "/startup.pdmodel");
  std::map<std::string, int> counts;
  for (const auto* p : {&main, &startup}) {
    for (size_t i = 0; i < p->Block(0).OpSize(); ++i) ++counts[p->Block(0).Op(i)->Type()];
  }
  EXPECT_EQ(counts["all_reduce"], 4);
  EXPECT_EQ(counts["broadcast"], 4);
  EXPECT_EQ(counts["c_sync_calc_stream"], 4);
  EXPECT_EQ(counts["c_sync_comm_stream"], 2);
}

TEST(PaddleCollectiveFixture, TwoRanksFollowPaddlePaddlesLosses) {
  ::setenv("FLAGS_collective_timeout_s", "60", 1);
  const testing::CliResult r = testing::RunCli(TrainArgs(kCollective, /*with_startup=*/true));
  ::unsetenv("FLAGS_collective_timeout_s");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const std::vector<double> expected =
      testing::ToDoubles(framework::ReadNpy(kCollective + "/losses.npy"));
  ExpectLosses(testing::PrintedLosses(r.out), expected);
  // PaddlePaddle's own 2-rank run of the same program: the mean of its ranks' losses.
  const std::vector<double> ranks =
      testing::ToDoubles(framework::ReadNpy(kCollective + "/rank_losses.npy"));
  ASSERT_EQ(ranks.size(), 2 * expected.size());
  std::vector<double> mean;
  for (size_t i = 0; i < expected.size(); ++i) mean.push_back((ranks[2 * i] + ranks[2 * i + 1]) / 2);
  ExpectLosses(testing::PrintedLosses(r.out), mean);
}

TEST(PaddleCollectiveFixture, AnUntranspiledPaddleProgramIsRewrittenByDistributed) {
  ::setenv("FLAGS_collective_timeout_s", "60", 1);
  const testing::CliResult r = testing::RunCli(TrainArgs(kPlain, /*with_startup=*/false));
  ::unsetenv("FLAGS_collective_timeout_s");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  ExpectLosses(testing::PrintedLosses(r.out),
               testing::ToDoubles(framework::ReadNpy(kPlain + "/losses.npy")));
}

TEST(PaddleSyncBatchNormFixture, OneProcessFollowsPaddlePaddlesLosses) {
  const testing::CliResult r =
      testing::RunCli(TrainArgs(kSyncBn, /*with_startup=*/false, "main.pdmodel", 1));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  ExpectLosses(testing::PrintedLosses(r.out),
               testing::ToDoubles(framework::ReadNpy(kSyncBn + "/losses.npy")));
}

TEST(PaddleSyncBatchNormFixture, TwoRanksOfTheSyncProgramFollowOneProcessOverTheWholeBatch) {
  ::setenv("FLAGS_collective_timeout_s", "60", 1);
  const testing::CliResult sync =
      testing::RunCli(TrainArgs(kSyncBn, /*with_startup=*/false, "main_sync.pdmodel"));
  // The same job with batch_norm: each rank normalises by its own half of the batch.
  const testing::CliResult local =
      testing::RunCli(TrainArgs(kSyncBn, /*with_startup=*/false, "main.pdmodel"));
  ::unsetenv("FLAGS_collective_timeout_s");
  ASSERT_EQ(sync.code, 0) << sync.out << sync.err;
  ASSERT_EQ(local.code, 0) << local.out << local.err;
  const std::vector<double> expected =
      testing::ToDoubles(framework::ReadNpy(kSyncBn + "/losses.npy"));
  ExpectLosses(testing::PrintedLosses(sync.out), expected);
  const std::vector<double> apart = testing::PrintedLosses(local.out);
  ASSERT_EQ(apart.size(), expected.size());
  double largest = 0;
  for (size_t i = 0; i < apart.size(); ++i) {
    largest = std::max(largest, std::abs(apart[i] - expected[i]) / std::abs(expected[i]));
  }
  EXPECT_GT(largest, 1e-2) << "normalising each rank by its own batch should change the losses";
}

}  // namespace
}  // namespace paddle_like

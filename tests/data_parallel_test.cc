// Data-parallel training: the program rewrite (what it inserts, where, in which buckets), and
// real jobs of 2 and 4 processes started by `paddle_like launch`: they train to the same
// parameters as one process on the same global batches (float64, 1e-6 relative), bitwise
// the same twice under FLAGS_cpu_deterministic, and a rank that is killed or hangs ends the
// job with an error naming it.
#include "paddle_like/layers/data_parallel.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "cli_test_util.h"
#include "framework/model_loading.h"
#include "framework/npy_io.h"
#include "framework/op_proto_maker.h"
#include "op_test_util.h"
#include "paddle_like/layers/initializer.h"
#include "paddle_like/layers/layers.h"
#include "paddle_like/layers/optimizer.h"
#include "paddle_like/train/models.h"
#include "platform/collective/tcp_store.h"
#include "platform/file_util.h"

namespace paddle_like {
namespace {

namespace fs = std::filesystem;
using framework::DenseTensor;

const std::string kDigitsDir = PL_DATASETS_DIR "/sklearn";

struct Built {
  layers::ProgramBuilder builder{1};
  layers::MinimizeResult minimized;
  std::string loss;
};

std::unique_ptr<Built> BuildMlp() {
  operators::RegisterAllOps();
  auto b = std::make_unique<Built>();
  const train::ModelVars vars = train::BuildModel(&b->builder, "mlp", {1, 8, 8}, 10);
  layers::OptimizerConfig config;
  config.kind = layers::OptimizerConfig::Kind::kAdam;
  b->minimized = layers::Minimize(&b->builder, vars.loss, config);
  return b;
}

std::vector<std::string> OpTypes(const framework::BlockDesc& block) {
  std::vector<std::string> types;
  for (size_t i = 0; i < block.OpSize(); ++i) types.push_back(block.Op(i)->Type());
  return types;
}

size_t FirstIndex(const std::vector<std::string>& types, const std::string& type) {
  return static_cast<size_t>(std::find(types.begin(), types.end(), type) - types.begin());
}

TEST(DataParallelRewrite, ScalesTheLossGradientAllReducesEveryGradientOnceAndBroadcastsParams) {
  auto b = BuildMlp();
  framework::ProgramDesc main = b->builder.main_program();
  framework::ProgramDesc startup = b->builder.startup_program();
  EXPECT_EQ(layers::OptimizerParamGrads(main.Block(0)), b->minimized.param_grads);
  layers::DataParallelOptions options;
  options.nranks = 4;
  layers::ApplyDataParallel(b->minimized.param_grads, options, &main, &startup);

  const framework::BlockDesc& block = main.Block(0);
  const std::vector<std::string> types = OpTypes(block);
  // One bucket (6 small float32 gradients): coalesce_tensor then an in-place all-reduce on
  // the communication stream, after the last gradient op, then the wait for it, then the
  // first optimizer op.
  ASSERT_EQ(std::count(types.begin(), types.end(), "coalesce_tensor"), 1);
  ASSERT_EQ(std::count(types.begin(), types.end(), "c_allreduce_sum"), 1);
  const size_t coalesce = FirstIndex(types, "coalesce_tensor");
  EXPECT_EQ(types[coalesce + 1], "c_allreduce_sum");
  EXPECT_FALSE(block.Op(coalesce + 1)->Attr<bool>("use_calc_stream"));
  EXPECT_EQ(types[coalesce + 2], "c_sync_comm_stream");
  EXPECT_EQ(coalesce + 3, FirstIndex(types, "adam"));
  const framework::OpDesc& fuse = *block.Op(coalesce);
  std::vector<std::string> grads = fuse.Input("Input");
  EXPECT_EQ(grads, fuse.Output("Output"));
  std::vector<std::string> expected;
  for (const auto& [param, grad] : b->minimized.param_grads) expected.push_back(grad);
  std::sort(grads.begin(), grads.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(grads, expected);
  const std::string fused = fuse.Output("FusedOutput").at(0);
  EXPECT_EQ(block.Op(coalesce + 1)->Input("X"), std::vector<std::string>{fused});
  EXPECT_EQ(block.Op(coalesce + 1)->Output("Out"), std::vector<std::string>{fused});
  // The buffer and the gradients, its views, last from step to step: backward writes each
  // gradient into its place, where coalesce_tensor finds it.
  EXPECT_TRUE(block.FindVar(fused)->Persistable());
  for (const std::string& grad : grads) EXPECT_TRUE(block.FindVar(grad)->Persistable()) << grad;
  // The loss gradient is scaled by 1/4 right after the op that seeds it.
  bool scaled = false;
  for (size_t i = 0; i + 1 < block.OpSize(); ++i) {
    const auto* role = std::get_if<int>(&block.Op(i)->GetAttr("op_role"));
    if (role != nullptr && *role == (static_cast<int>(framework::OpRole::kBackward) |
                                     static_cast<int>(framework::OpRole::kLoss))) {
      const framework::OpDesc& next = *block.Op(i + 1);
      EXPECT_EQ(next.Type(), "scale");
      EXPECT_EQ(next.Attr<float>("scale"), 0.25f);
      EXPECT_EQ(next.Input("X"), block.Op(i)->OutputArgumentNames());
      scaled = true;
      break;
    }
  }
  EXPECT_TRUE(scaled);
  // Startup: one broadcast from rank 0 per parameter, at the end.
  const std::vector<std::string> init = OpTypes(startup.Block(0));
  EXPECT_EQ(static_cast<size_t>(std::count(init.begin(), init.end(), "c_broadcast")),
            b->minimized.param_grads.size());
  EXPECT_EQ(init.back(), "c_broadcast");
}

TEST(DataParallelRewrite, SmallBucketsSplitTheGradientsAndOneRankChangesNothing) {
  auto b = BuildMlp();
  framework::ProgramDesc main = b->builder.main_program();
  framework::ProgramDesc startup = b->builder.startup_program();
  layers::DataParallelOptions options;
  options.nranks = 2;
  options.bucket_bytes = 64 * 1024;  // fc 64x256 weights (64 KiB) fill a bucket alone.
  layers::ApplyDataParallel(b->minimized.param_grads, options, &main, &startup);
  const std::vector<std::string> types = OpTypes(main.Block(0));
  EXPECT_GE(std::count(types.begin(), types.end(), "coalesce_tensor"), 3);
  // Each bucket is all-reduced right after the op that completes it, while backward goes
  // on: the first all-reduce comes before the last gradient op; one wait ends them all.
  const framework::BlockDesc& block = main.Block(0);
  size_t last_grad_op = 0;
  for (size_t i = 0; i < block.OpSize(); ++i) {
    for (const std::string& out : block.Op(i)->OutputArgumentNames()) {
      for (const auto& [param, grad] : b->minimized.param_grads) {
        if (out == grad && block.Op(i)->Type() != "coalesce_tensor" &&
            block.Op(i)->Type().rfind("c_", 0) != 0 && block.Op(i)->Type() != "adam") {
          last_grad_op = i;
        }
      }
    }
  }
  EXPECT_LT(FirstIndex(types, "c_allreduce_sum"), last_grad_op);
  EXPECT_EQ(std::count(types.begin(), types.end(), "c_sync_comm_stream"), 1);
  EXPECT_GT(FirstIndex(types, "c_sync_comm_stream"), last_grad_op);
  EXPECT_LT(FirstIndex(types, "c_sync_comm_stream"), FirstIndex(types, "adam"));

  framework::ProgramDesc untouched = b->builder.main_program();
  options.nranks = 1;
  layers::ApplyDataParallel(b->minimized.param_grads, options, &untouched, nullptr);
  EXPECT_EQ(OpTypes(untouched.Block(0)), OpTypes(b->builder.main_program().Block(0)));
}

TEST(DataParallelRewrite, RefusesWhatItCannotRewrite) {
  auto b = BuildMlp();
  layers::DataParallelOptions options;
  options.nranks = 2;
  {
    framework::ProgramDesc main = b->builder.main_program();
    EXPECT_THROW(layers::ApplyDataParallel({{"fc_0.w_0", "nowhere@GRAD"}}, options, &main,
                                           nullptr),
                 platform::InvalidArgumentError);
  }
  {
    framework::ProgramDesc main = b->builder.main_program();
    const std::string grad = b->minimized.param_grads[0].second;
    main.Block(0).FindVar(grad)->SetKind(framework::VarKind::kDenseTensorArray);
    try {
      layers::ApplyDataParallel(b->minimized.param_grads, options, &main, nullptr);
      ADD_FAILURE() << "a tensor-array gradient was accepted";
    } catch (const platform::InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("neither a dense tensor nor a SelectedRows"),
                std::string::npos)
          << e.what();
    }
  }
  {
    framework::ProgramDesc main = b->builder.main_program();
    options.nranks = 0;
    EXPECT_THROW(layers::ApplyDataParallel(b->minimized.param_grads, options, &main, nullptr),
                 platform::InvalidArgumentError);
  }
}

TEST(DataParallelRewrite, BucketSizeFollowsFuseGradSizeInMB) {
  EXPECT_EQ(layers::DataParallelOptions{}.bucket_bytes, int64_t{1} << 20);  // The default, 1.
  platform::SetFlag("fuse_grad_size_in_MB", "32");
  EXPECT_EQ(layers::DataParallelOptions{}.bucket_bytes, int64_t{32} << 20);
  platform::SetFlag("fuse_grad_size_in_MB", "0");
  try {
    layers::DefaultBucketBytes();
    ADD_FAILURE() << "a bucket of 0 MiB was accepted";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("FLAGS_fuse_grad_size_in_MB"), std::string::npos)
        << e.what();
  }
  platform::SetFlag("fuse_grad_size_in_MB", "1");
}

TEST(Launch, RefusesBadOptionsWithAnErrorNamingThem) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"launch", "train"}, "--nproc N is required"},
      {{"launch", "--nproc", "0", "train"}, "--nproc expects an integer >= 1"},
      {{"launch", "--nproc", "two", "train"}, "received `two`"},
      {{"launch", "--nproc", "2"}, "no verb to run"},
      {{"launch", "--nproc", "2", "--"}, "must be followed by a command"},
      {{"launch", "--nproc", "2", "--bogus", "1", "train"}, "unknown option `--bogus`"},
      {{"launch", "--nproc", "2", "--nnodes", "2", "--node-rank", "2", "train"},
       "--node-rank 2 is outside [0, 2)"},
      {{"launch", "--nproc", "2", "--nnodes", "2", "train"}, "needs --master HOST:PORT"},
      {{"launch", "--nproc", "1", "launch"}, "cannot launch `launch`"},
      {{"launch", "--nproc", "2", "--bind", "sockets", "train"}, "--bind takes cores or none"},
      {{"train", "--master", "h:1"}, "--master needs --distributed"},
      {{"train", "--dtype", "int8"}, "unknown --dtype `int8`"},
  };
  for (const auto& [args, expected] : cases) {
    const testing::CliResult r = testing::RunCli(args);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_TRUE(testing::Contains(r.err, expected)) << "expected `" << expected << "` in: " << r.err;
  }
}

TEST(Launch, ARankThatCannotStartFailsTheJob) {
  const testing::CliResult r =
      testing::RunCli({"launch", "--nproc", "2", "--", "/nonexistent/program"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(testing::Contains(r.err, "cannot run `/nonexistent/program`")) << r.err;
  EXPECT_TRUE(testing::Contains(r.err, "exited with code 127")) << r.err;
}

// The CPUs each rank of `launch --nproc 2 [--bind none]` may run on, as its
// /proc/self/status says ("0", "0-1", ...).
std::vector<std::string> RankCpuLists(const std::vector<std::string>& bind) {
  const std::string dir = testing::CliTempDir() + "/bind" + (bind.empty() ? "" : "_none");
  std::vector<std::string> args = {"launch", "--nproc", "2", "--log-dir", dir};
  args.insert(args.end(), bind.begin(), bind.end());
  for (const char* a : {"--", "grep", "Cpus_allowed_list", "/proc/self/status"}) args.push_back(a);
  const testing::CliResult r = testing::RunCli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  std::vector<std::string> lists;
  for (int rank = 0; rank < 2; ++rank) {
    std::string text = platform::ReadFile(dir + "/workerlog." + std::to_string(rank));
    const size_t tab = text.find('\t');
    text = tab == std::string::npos ? text : text.substr(tab + 1);
    lists.push_back(text.substr(0, text.find('\n')));
  }
  return lists;
}

TEST(Launch, BindsEachRankToCpusOfItsOwnWhenTheyFit) {
  cpu_set_t allowed;
  ASSERT_EQ(::sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  ::setenv("FLAGS_paddle_num_threads", "1", 1);
  const std::vector<std::string> bound = RankCpuLists({});
  const std::vector<std::string> free = RankCpuLists({"--bind", "none"});
  ::unsetenv("FLAGS_paddle_num_threads");
  if (cpus.size() < 2) {
    // Two 1-thread ranks do not fit on one CPU: no binding.
    EXPECT_EQ(bound, free);
    return;
  }
  EXPECT_EQ(bound, (std::vector<std::string>{std::to_string(cpus[0]), std::to_string(cpus[1])}));
  EXPECT_EQ(free[0], free[1]);
  EXPECT_NE(free[0], bound[0]);
}

// An embedding (lookup_table_v2, sparse gradient) -> fc -> softmax cross-entropy, Adam, in
// float64; feeds `ids` [-1, 1] and `label` [-1, 1].
std::unique_ptr<Built> BuildSparseModel() {
  operators::RegisterAllOps();
  auto b = std::make_unique<Built>();
  layers::ProgramBuilder* pb = &b->builder;
  layers::Var ids = layers::Data(pb, "ids", {-1, 1}, platform::DataType::INT64);
  layers::Var label = layers::Data(pb, "label", {-1, 1}, platform::DataType::INT64);
  layers::Var table = layers::CreateParameter(pb, "emb.w_0", {20, 6}, platform::DataType::FLOAT64,
                                              layers::Initializer::Uniform(-0.5f, 0.5f));
  layers::Var emb = pb->CreateVar("emb.out", {-1, 1, 6}, platform::DataType::FLOAT64);
  pb->AppendOp("lookup_table_v2", {{"W", {table.name()}}, {"Ids", {ids.name()}}},
               {{"Out", {emb.name()}}}, {{"is_sparse", true}});
  layers::Var logits = layers::Fc(pb, emb, 5);
  layers::Var loss = layers::Mean(pb, layers::SoftmaxWithCrossEntropy(pb, logits, label));
  layers::OptimizerConfig config;
  config.kind = layers::OptimizerConfig::Kind::kAdam;
  config.learning_rate = 0.05f;
  b->minimized = layers::Minimize(pb, loss, config);
  b->loss = loss.name();
  return b;
}

TEST(DataParallelRewrite, SparseGradientsAreAllGathered) {
  auto b = BuildSparseModel();
  framework::ProgramDesc main = b->builder.main_program();
  ASSERT_EQ(main.Block(0).FindVar("emb.w_0@GRAD")->GetKind(), framework::VarKind::kSelectedRows);
  layers::DataParallelOptions options;
  options.nranks = 2;
  layers::ApplyDataParallel(b->minimized.param_grads, options, &main, nullptr);
  const framework::BlockDesc& block = main.Block(0);
  int gathers = 0;
  for (size_t i = 0; i < block.OpSize(); ++i) {
    const framework::OpDesc& op = *block.Op(i);
    if (op.Type() == "c_allgather") {
      ++gathers;
      EXPECT_EQ(op.Input("X"), std::vector<std::string>{"emb.w_0@GRAD"});
      EXPECT_EQ(op.Attr<int>("nranks"), 2);
    }
    if (op.Type() == "coalesce_tensor") {
      for (const std::string& g : op.Input("Input")) EXPECT_NE(g, "emb.w_0@GRAD");
    }
  }
  EXPECT_EQ(gathers, 1);
}

// ---- Jobs of several processes ----

bool HaveDigits() { return fs::exists(kDigitsDir + "/digits.csv.gz"); }

// A free port P whose neighbour P + 1 is free too, for a job whose launchers meet at P and
// ranks at P + 1. An ephemeral port's neighbour may be held by another connection (other
// tests run beside this one), so the neighbour is tried as well.
int FreePortAndNext() {
  for (int attempt = 0; attempt < 100; ++attempt) {
    platform::collective::TcpStoreServer probe(0);
    try {
      platform::collective::TcpStoreServer next(probe.port() + 1);
      return probe.port();
    } catch (const platform::Error&) {
      // Taken: try another.
    }
  }
  ADD_FAILURE() << "no two neighbouring free ports found";
  return 0;
}

std::vector<std::string> TrainArgs(const std::string& model, const std::string& save,
                                   int steps) {
  return {"train", "--model", model, "--dataset", "digits", "--data-dir", kDigitsDir,
          "--dtype", "float64", "--epochs", "1", "--batch-size", "32", "--steps",
          std::to_string(steps), "--no-progress", "--save", save};
}

// Every parameter of a saved model, by name.
std::map<std::string, std::vector<double>> SavedParams(const std::string& prefix) {
  const framework::ProgramDesc program = framework::ProgramDesc::Load(prefix + ".pdmodel");
  framework::Scope scope;
  framework::ParameterSource source;
  source.combined_file = prefix + ".pdiparams";
  framework::LoadParameters(program, prefix + ".pdmodel", source, &scope);
  std::map<std::string, std::vector<double>> params;
  for (const std::string& name : framework::ParameterNames(program)) {
    params[name] = testing::ToDoubles(scope.FindVar(name)->Get<DenseTensor>());
  }
  return params;
}

void ExpectSameParams(const std::string& a, const std::string& b, double rtol) {
  const auto pa = SavedParams(a), pb = SavedParams(b);
  ASSERT_EQ(pa.size(), pb.size());
  ASSERT_FALSE(pa.empty());
  for (const auto& [name, va] : pa) {
    const auto& vb = pb.at(name);
    ASSERT_EQ(va.size(), vb.size()) << name;
    double worst = 0;
    for (size_t i = 0; i < va.size(); ++i) {
      worst = std::max(worst, std::abs(va[i] - vb[i]) / std::max(1e-3, std::abs(va[i])));
    }
    EXPECT_LE(worst, rtol) << name;
  }
}

std::string ReadIfExists(const std::string& path) {
  return fs::exists(path) ? platform::ReadFile(path) : "";
}

class DataParallelJob : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HaveDigits()) GTEST_SKIP() << kDigitsDir << " is absent (scripts/fetch_datasets.sh)";
    ::setenv("FLAGS_collective_timeout_s", "60", 1);
  }
  void TearDown() override { ::unsetenv("FLAGS_collective_timeout_s"); }
  std::string Dir(const std::string& name) { return testing::CliTempDir() + "/" + name; }
};

TEST_F(DataParallelJob, TwoAndFourRanksTrainTheMlpToTheParametersOfOneProcess) {
  const testing::CliResult one = testing::RunCli(TrainArgs("mlp", Dir("mlp1"), 12));
  ASSERT_EQ(one.code, 0) << one.err;
  for (int nranks : {2, 4}) {
    const std::string dir = Dir("mlp" + std::to_string(nranks) + "ranks");
    std::vector<std::string> args = {"launch", "--nproc", std::to_string(nranks)};
    for (const std::string& a : TrainArgs("mlp", dir, 12)) args.push_back(a);
    args.push_back("--distributed");
    const testing::CliResult r = testing::RunCli(args);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_TRUE(testing::Contains(r.out, "over " + std::to_string(nranks) + " ranks")) << r.out;
    ExpectSameParams(Dir("mlp1") + "/model", dir + "/model", 1e-6);
  }
}

TEST_F(DataParallelJob, TwoRanksTrainLenetToTheParametersOfOneProcess) {
  const testing::CliResult one = testing::RunCli(TrainArgs("lenet", Dir("lenet1"), 4));
  ASSERT_EQ(one.code, 0) << one.err;
  std::vector<std::string> args = {"launch", "--nproc", "2"};
  for (const std::string& a : TrainArgs("lenet", Dir("lenet2"), 4)) args.push_back(a);
  args.push_back("--distributed");
  const testing::CliResult r = testing::RunCli(args);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  ExpectSameParams(Dir("lenet1") + "/model", Dir("lenet2") + "/model", 1e-6);
}

// The parameters file of the MLP trained by 2 launched ranks for 8 steps into `dir`; empty
// (after a test failure) when the job fails.
std::string TwoRankMlpParams(const std::string& dir) {
  std::vector<std::string> args = {"launch", "--nproc", "2"};
  for (const std::string& a : TrainArgs("mlp", dir, 8)) args.push_back(a);
  args.push_back("--distributed");
  const testing::CliResult r = testing::RunCli(args);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  return r.code == 0 ? platform::ReadFile(dir + "/model.pdiparams") : "";
}

TEST_F(DataParallelJob, DeterministicRunsOfTheSameRankCountAreBitwiseEqual) {
  ::setenv("FLAGS_cpu_deterministic", "1", 1);
  std::vector<std::string> saved;
  for (int run = 0; run < 2; ++run)
    saved.push_back(TwoRankMlpParams(Dir("det" + std::to_string(run))));
  ::unsetenv("FLAGS_cpu_deterministic");
  EXPECT_FALSE(saved[0].empty());
  EXPECT_TRUE(saved[0] == saved[1]) << "two deterministic runs differ";
}

TEST_F(DataParallelJob, TwoRanksTrainToTheSameBitsOverTcpAndOverSharedMemory) {
  // Ranks of one machine all-reduce through shared memory unless the flag turns it off; with
  // two ranks both transports add the same two numbers per element, so the trained
  // parameters agree bit for bit.
  ::setenv("FLAGS_cpu_deterministic", "1", 1);
  std::vector<std::string> saved;
  for (const char* shared_memory : {"0", "1"}) {
    ::setenv("FLAGS_collective_shared_memory", shared_memory, 1);
    saved.push_back(TwoRankMlpParams(Dir(std::string("transport") + shared_memory)));
  }
  ::unsetenv("FLAGS_collective_shared_memory");
  ::unsetenv("FLAGS_cpu_deterministic");
  EXPECT_FALSE(saved[0].empty());
  EXPECT_TRUE(saved[0] == saved[1]) << "the transports trained different parameters";
}

TEST_F(DataParallelJob, MpirunStartsTheSameJobAsTheLauncher) {
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "mpirun is absent (Debian's openmpi-bin, installed by scripts/setup.sh)";
  }
  std::vector<std::string> launched = {"launch", "--nproc", "2"};
  for (const std::string& a : TrainArgs("mlp", Dir("by_launch"), 6)) launched.push_back(a);
  launched.push_back("--distributed");
  const testing::CliResult r = testing::RunCli(launched);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  // A free port for the rendezvous (the launcher picks its own; mpirun's job is told).
  int port = 0;
  {
    platform::collective::TcpStoreServer probe(0);
    port = probe.port();
  }
  std::string cmd = "mpirun --allow-run-as-root --oversubscribe -np 2 " + testing::CliBinary();
  for (const std::string& a : TrainArgs("mlp", Dir("by_mpirun"), 6)) cmd += " '" + a + "'";
  cmd += " --distributed --master 127.0.0.1:" + std::to_string(port) + " > " + Dir("mpirun.log") +
         " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << ReadIfExists(Dir("mpirun.log"));
  EXPECT_TRUE(platform::ReadFile(Dir("by_launch") + "/model.pdiparams") ==
              platform::ReadFile(Dir("by_mpirun") + "/model.pdiparams"))
      << "mpirun's job trained other parameters than the launcher's";
}

TEST_F(DataParallelJob, ASparseEmbeddingTrainsOnTwoRanksAsOnOne) {
  // A program with a sparse gradient, trained by `train --program` on 8 batches of 16: one
  // process, then two ranks of 8 rows each (the rewrite all-gathers the embedding's rows).
  auto b = BuildSparseModel();
  const std::string main_path = Dir("sparse_main.pdmodel");
  const std::string startup_path = Dir("sparse_startup.pdmodel");
  b->builder.main_program().Save(main_path);
  b->builder.startup_program().Save(startup_path);
  std::vector<double> ids, labels;
  for (int i = 0; i < 8 * 16; ++i) {
    ids.push_back((i * 7) % 20);
    labels.push_back((i * 3) % 5);
  }
  framework::WriteNpy(Dir("ids.npy"),
                      testing::MakeTensor<int64_t>(framework::DDim({8, 16, 1}), ids));
  framework::WriteNpy(Dir("labels.npy"),
                      testing::MakeTensor<int64_t>(framework::DDim({8, 16, 1}), labels));
  const std::vector<std::string> args = {
      "train", "--program", main_path, "--startup", startup_path, "--loss", b->loss, "--feed",
      "ids=" + Dir("ids.npy") + ",label=" + Dir("labels.npy")};
  const testing::CliResult one = testing::RunCli(args);
  ASSERT_EQ(one.code, 0) << one.out << one.err;
  std::vector<std::string> launched = {"launch", "--nproc", "2"};
  launched.insert(launched.end(), args.begin(), args.end());
  launched.push_back("--distributed");
  const testing::CliResult two = testing::RunCli(launched);
  ASSERT_EQ(two.code, 0) << two.out << two.err;
  const std::vector<double> a = testing::PrintedLosses(one.out);
  const std::vector<double> c = testing::PrintedLosses(two.out);
  ASSERT_EQ(a.size(), 8u);
  ASSERT_EQ(c.size(), 8u);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(c[i], a[i], 1e-6 * std::abs(a[i])) << i;
  EXPECT_LT(a.back(), a.front());  // It trains.
}

// A launcher running in the background, its stderr in a file; stopped (with its ranks)
// when the object goes, whatever the test did.
struct BackgroundLaunch {
  pid_t pid = -1;
  std::string err_path;

  BackgroundLaunch() = default;
  BackgroundLaunch(const BackgroundLaunch&) = delete;
  BackgroundLaunch(BackgroundLaunch&& o) noexcept : pid(o.pid), err_path(o.err_path) { o.pid = -1; }
  ~BackgroundLaunch() {
    if (pid > 0 && ::waitpid(pid, nullptr, WNOHANG) == 0) {
      ::kill(pid, SIGKILL);  // Its ranks die with it (PR_SET_PDEATHSIG).
      ::waitpid(pid, nullptr, 0);
    }
  }

  // The pid the launcher reports for `rank` (waits up to 20 s for the line).
  pid_t RankPid(int rank) const {
    const std::regex line("launch: rank " + std::to_string(rank) + " pid ([0-9]+)");
    for (int i = 0; i < 400; ++i) {
      std::smatch m;
      const std::string err = ReadIfExists(err_path);
      if (std::regex_search(err, m, line)) return static_cast<pid_t>(std::stol(m[1]));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return -1;
  }
  // The launcher's exit code, or -1 when it has not ended within `seconds`.
  int Wait(int seconds) {
    for (int i = 0; i < seconds * 20; ++i) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        pid = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return -1;  // The destructor stops it.
  }
};

// Runs `paddle_like ARGS` in the background, its stderr in `err_path`.
BackgroundLaunch StartBackground(const std::vector<std::string>& cli_args,
                                 const std::string& err_path) {
  BackgroundLaunch job;
  job.err_path = err_path;
  std::vector<std::string> args = {testing::CliBinary()};
  args.insert(args.end(), cli_args.begin(), cli_args.end());
  job.pid = ::fork();
  if (job.pid == 0) {
    const int fd = ::open(job.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return job;
}

BackgroundLaunch StartLongJob(const std::string& dir) {
  return StartBackground({"launch", "--nproc", "2", "train", "--distributed", "--model", "mlp",
                          "--dataset", "digits", "--data-dir", kDigitsDir, "--epochs", "10000",
                          "--no-progress", "--save", dir},
                         dir + ".stderr");
}

TEST_F(DataParallelJob, TwoLaunchersAsTwoMachinesTrainOneJob) {
  // Two "machines" of one rank each, both on this one (loopback addresses): the launchers
  // meet at --master, the ranks at its port + 1.
  const std::string master = "127.0.0.1:" + std::to_string(FreePortAndNext());
  auto node = [&](int rank, const std::string& save) {
    std::vector<std::string> args = {"launch",  "--nproc", "1", "--nnodes", "2",
                                     "--node-rank", std::to_string(rank), "--master", master,
                                     "--host", "127.0.0.1"};
    for (const std::string& a : TrainArgs("mlp", save, 6)) args.push_back(a);
    args.push_back("--distributed");
    return args;
  };
  BackgroundLaunch second = StartBackground(node(1, Dir("nodes_unused")), Dir("node1.stderr"));
  const testing::CliResult first = testing::RunCli(node(0, Dir("nodes")));
  ASSERT_EQ(first.code, 0) << first.out << first.err << ReadIfExists(second.err_path);
  EXPECT_EQ(second.Wait(60), 0) << ReadIfExists(second.err_path);
  EXPECT_TRUE(testing::Contains(first.out, "over 2 ranks")) << first.out;
  const testing::CliResult one = testing::RunCli(TrainArgs("mlp", Dir("nodes_one"), 6));
  ASSERT_EQ(one.code, 0) << one.err;
  ExpectSameParams(Dir("nodes_one") + "/model", Dir("nodes") + "/model", 1e-6);
}

TEST_F(DataParallelJob, AKilledRankEndsTheJobWithAnErrorNamingIt) {
  BackgroundLaunch job = StartLongJob(Dir("killed"));
  const pid_t victim = job.RankPid(1);
  ASSERT_GT(victim, 0) << ReadIfExists(job.err_path);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // Training is under way.
  ::kill(victim, SIGKILL);
  EXPECT_EQ(job.Wait(60), 1) << ReadIfExists(job.err_path);
  const std::string err = ReadIfExists(job.err_path);
  EXPECT_TRUE(testing::Contains(err, "rank 1 (pid " + std::to_string(victim) +
                                         ") was killed by signal 9"))
      << err;
  EXPECT_TRUE(testing::Contains(err, "launch: the job failed")) << err;
  const pid_t rank0 = job.RankPid(0);
  EXPECT_EQ(::kill(rank0, 0), -1) << "rank 0 outlived the launcher";
}

TEST_F(DataParallelJob, KillingTheLauncherTakesItsRanksAlong) {
  BackgroundLaunch job = StartLongJob(Dir("orphans"));
  const pid_t rank0 = job.RankPid(0), rank1 = job.RankPid(1);
  ASSERT_GT(rank0, 0);
  ASSERT_GT(rank1, 0);
  ::kill(job.pid, SIGKILL);
  ::waitpid(job.pid, nullptr, 0);
  job.pid = -1;
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    // Zombies count as gone: the test process reaps none of them (they are not its children).
    gone = ::kill(rank0, 0) == -1 && ::kill(rank1, 0) == -1;
  }
  EXPECT_TRUE(gone) << "ranks outlived their launcher";
}

TEST_F(DataParallelJob, AHungRankMakesTheOthersFailAfterTheTimeout) {
  ::setenv("FLAGS_collective_timeout_s", "3", 1);
  BackgroundLaunch job = StartLongJob(Dir("hung"));
  const pid_t victim = job.RankPid(1);
  ASSERT_GT(victim, 0) << ReadIfExists(job.err_path);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ::kill(victim, SIGSTOP);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(job.Wait(60), 1) << ReadIfExists(job.err_path);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  const std::string err = ReadIfExists(job.err_path);
  EXPECT_TRUE(testing::Contains(err, "(rank 0 of 2) failed")) << err;
  EXPECT_TRUE(testing::Contains(err, "rank 0 (pid")) << err;
  EXPECT_TRUE(testing::Contains(err, "still running 2 s later (hung or stopped?): rank 1")) << err;
  EXPECT_EQ(::kill(victim, 0), -1) << "the hung rank outlived the launcher";
}

}  // namespace
}  // namespace paddle_like

// sync_batch_norm (operators/nn/batch_norm_op.cc) in a job of one process and in inference
// mode: batch_norm's numbers, checked against the formula; on two and three ranks of a
// launched job (`paddle_like launch` starts this binary as the workers), the statistics and
// the gradient of the whole job's batch, against the formula over that batch in double;
// sync_batch_norm_pass turning an inference one into batch_norm so that conv_bn_fuse_pass
// folds it, and leaving a training one alone.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/ir/pass.h"
#include "framework/scope.h"
#include "inference/passes/passes.h"
#include "operators/registry.h"
#include "tests/cli_test_util.h"
#include "tests/pass_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::ProgramDesc;
using framework::Scope;

constexpr int64_t kC = 3;

// Appends op `type` (batch_norm's slots) of `x` into `y` of shape `shape`, with parameters
// scale, bias, mean, variance of kC channels and every output declared.
void AppendNorm(ProgramWithParams* m, const std::string& type, const std::string& x,
                const std::string& y, const std::vector<int64_t>& shape, bool is_test) {
  m->Param("scale", {kC}, 0.5, 1.5);
  m->Param("bias", {kC}, -1, 1);
  m->Param("mean", {kC}, -0.5, 0.5);
  m->Param("variance", {kC}, 0.5, 2);
  m->Declare(y, shape, false);
  for (const char* v : {"saved_mean", "saved_variance"}) m->Declare(v, {kC}, false);
  m->Op(type,
        {{"X", {x}},
         {"Scale", {"scale"}},
         {"Bias", {"bias"}},
         {"Mean", {"mean"}},
         {"Variance", {"variance"}}},
        {{"Y", {y}},
         {"MeanOut", {"mean"}},
         {"VarianceOut", {"variance"}},
         {"SavedMean", {"saved_mean"}},
         {"SavedVariance", {"saved_variance"}}},
        {{"epsilon", 1e-5f}, {"momentum", 0.9f}, {"is_test", is_test}});
}

// x [2, 3, 2, 2] -> type -> out.
ProgramWithParams NormProgram(const std::string& type, bool is_test) {
  ProgramWithParams m;
  m.Declare("x", {2, kC, 2, 2}, false);
  AppendNorm(&m, type, "x", "out", {2, kC, 2, 2}, is_test);
  return m;
}

const DenseTensor& Input() {
  static const DenseTensor x = MakeTensor<float>({2, kC, 2, 2}, RandomValues(24, -2, 2, 5));
  return x;
}

std::vector<double> RunNorm(const ProgramWithParams& m, const std::string& fetch = "out") {
  operators::RegisterAllOps();
  Scope scope;
  m.Fill(&scope);
  return RunProgram(m.program, &scope, Input(), fetch);
}

TEST(SyncBatchNorm, InferenceModeIsTheFormulaWithRunningStatistics) {
  const ProgramWithParams m = NormProgram("sync_batch_norm", true);
  const std::vector<double> x = ToDoubles(Input());
  const std::vector<double> gamma = ToDoubles(m.params.at("scale")),
                            beta = ToDoubles(m.params.at("bias")),
                            mu = ToDoubles(m.params.at("mean")),
                            var = ToDoubles(m.params.at("variance"));
  std::vector<double> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = (i / 4) % kC;
    want[i] = gamma[c] * (x[i] - mu[c]) / std::sqrt(var[c] + 1e-5) + beta[c];
  }
  ExpectNear(RunNorm(m), want, 1e-6, 1e-6, "sync_batch_norm, is_test");
}

// One process: the batch statistics are the local batch's, as batch_norm's (whose oneDNN
// kernel sums in another order than the plain one sync_batch_norm runs), and the running
// statistics move the same way.
TEST(SyncBatchNorm, TrainingInOneProcessIsBatchNorm) {
  for (const char* fetch : {"out", "mean", "variance", "saved_mean", "saved_variance"}) {
    ExpectNear(RunNorm(NormProgram("sync_batch_norm", false), fetch),
               RunNorm(NormProgram("batch_norm", false), fetch), 1e-6, 1e-6, fetch);
  }
}

// The gradient of a training sync_batch_norm is sync_batch_norm_grad, which sums over the
// ranks; batch_norm's stays batch_norm_grad.
TEST(SyncBatchNorm, ItsGradientIsSyncBatchNormGrad) {
  operators::RegisterAllOps();
  for (const char* type : {"batch_norm", "sync_batch_norm"}) {
    ProgramWithParams m = NormProgram(type, false);
    m.Declare("loss", {1}, false);
    m.Op("mean", {{"X", {"out"}}}, {{"Out", {"loss"}}}, {});
    framework::AppendBackward(&m.program, "loss");
    const std::vector<std::string> types = OpTypes(m.program);
    EXPECT_EQ(std::count(types.begin(), types.end(), std::string(type) + "_grad"), 1) << type;
  }
}

bool IsWorker() { return std::getenv("PL_SYNC_BATCH_NORM_WORKER") != nullptr; }

// Element i of the job's batch [2 * nranks, kC, 2, 3] (kind 0: X, 1: dY), the same on every
// rank; rank r holds batch rows 2r and 2r + 1. Channels get different offsets and spreads.
double JobValue(int64_t i, int kind) {
  const int64_t c = (i / 6) % kC;
  return (kind == 0 ? 0.3 * static_cast<double>(c) - 0.2 : 0.05) +
         std::sin(0.37 * static_cast<double>(i) + kind) * (1.0 + 0.5 * static_cast<double>(c));
}

template <typename T>
void CheckAcrossRanks(int rank, int nranks, double tol) {
  const int64_t per_rank = 2 * kC * 6, job = nranks * per_rank, m = 2 * nranks * 6;
  std::vector<double> x(per_rank), dy(per_rank);
  for (int64_t i = 0; i < per_rank; ++i) {
    x[i] = JobValue(rank * per_rank + i, 0);
    dy[i] = JobValue(rank * per_rank + i, 1);
  }
  const std::vector<double> gamma = {0.5, 1.5, -1.0}, beta = {0.1, -0.2, 0.3},
                            old_mean = {0.2, -0.1, 0.0}, old_var = {1.0, 0.5, 2.0};
  // The values the float attributes hold.
  const double eps = static_cast<double>(1e-5f), momentum = static_cast<double>(0.9f);
  // The reference: batch_norm over the job's batch in double.
  std::vector<double> mu(kC, 0.0), var(kC, 0.0);
  for (int64_t i = 0; i < job; ++i) mu[(i / 6) % kC] += JobValue(i, 0) / m;
  for (int64_t i = 0; i < job; ++i) {
    const int64_t c = (i / 6) % kC;
    var[c] += (JobValue(i, 0) - mu[c]) * (JobValue(i, 0) - mu[c]) / m;
  }
  std::vector<double> sum_dy(kC, 0.0), sum_dy_xhat(kC, 0.0), local_dy(kC, 0.0),
      local_dy_xhat(kC, 0.0);
  for (int64_t i = 0; i < job; ++i) {
    const int64_t c = (i / 6) % kC;
    const double xhat = (JobValue(i, 0) - mu[c]) / std::sqrt(var[c] + eps);
    sum_dy[c] += JobValue(i, 1);
    sum_dy_xhat[c] += JobValue(i, 1) * xhat;
    if (i / per_rank == rank) {
      local_dy[c] += JobValue(i, 1);
      local_dy_xhat[c] += JobValue(i, 1) * xhat;
    }
  }
  std::vector<double> want_y(per_rank), want_dx(per_rank);
  for (int64_t i = 0; i < per_rank; ++i) {
    const int64_t c = (i / 6) % kC;
    const double r = 1.0 / std::sqrt(var[c] + eps), xhat = (x[i] - mu[c]) * r;
    want_y[i] = gamma[c] * xhat + beta[c];
    want_dx[i] = gamma[c] * r / m * (m * dy[i] - sum_dy[c] - xhat * sum_dy_xhat[c]);
  }
  std::vector<double> want_mean(kC), want_var(kC);
  for (int64_t c = 0; c < kC; ++c) {
    want_mean[c] = momentum * old_mean[c] + (1 - momentum) * mu[c];
    want_var[c] = momentum * old_var[c] + (1 - momentum) * var[c];
  }

  const framework::DDim shape({2, kC, 2, 3});
  const NamedOpRun fwd = RunNamedOp(
      "sync_batch_norm",
      {{"X", {"x"}},
       {"Scale", {"scale"}},
       {"Bias", {"bias"}},
       {"Mean", {"mean"}},
       {"Variance", {"variance"}}},
      {{"Y", {"y"}},
       {"MeanOut", {"mean"}},
       {"VarianceOut", {"variance"}},
       {"SavedMean", {"saved_mean"}},
       {"SavedVariance", {"saved_variance"}}},
      {{"x", MakeTensor<T>(shape, x)},
       {"scale", MakeTensor<T>({kC}, gamma)},
       {"bias", MakeTensor<T>({kC}, beta)},
       {"mean", MakeTensor<T>({kC}, old_mean)},
       {"variance", MakeTensor<T>({kC}, old_var)}},
      {{"epsilon", static_cast<float>(eps)}, {"momentum", static_cast<float>(momentum)}});
  const std::string where = "rank " + std::to_string(rank) + " of " + std::to_string(nranks);
  ExpectNear(ToDoubles(fwd.vars.at("y")), want_y, tol, tol, "Y, " + where);
  ExpectNear(ToDoubles(fwd.vars.at("mean")), want_mean, tol, tol, "MeanOut, " + where);
  ExpectNear(ToDoubles(fwd.vars.at("variance")), want_var, tol, tol, "VarianceOut, " + where);
  ExpectNear(ToDoubles(fwd.vars.at("saved_mean")), mu, tol, tol, "SavedMean, " + where);

  const NamedOpRun bwd =
      RunNamedOp("sync_batch_norm_grad",
                 {{"X", {"x"}},
                  {"Scale", {"scale"}},
                  {"SavedMean", {"saved_mean"}},
                  {"SavedVariance", {"saved_variance"}},
                  {"Y@GRAD", {"dy"}}},
                 {{"X@GRAD", {"dx"}}, {"Scale@GRAD", {"dscale"}}, {"Bias@GRAD", {"dbias"}}},
                 {{"x", MakeTensor<T>(shape, x)},
                  {"scale", MakeTensor<T>({kC}, gamma)},
                  {"saved_mean", fwd.vars.at("saved_mean")},
                  {"saved_variance", fwd.vars.at("saved_variance")},
                  {"dy", MakeTensor<T>(shape, dy)}},
                 {{"epsilon", static_cast<float>(eps)}});
  ExpectNear(ToDoubles(bwd.vars.at("dx")), want_dx, tol, tol, "X@GRAD, " + where);
  // This rank's sums: the data-parallel all-reduce of parameter gradients adds them.
  ExpectNear(ToDoubles(bwd.vars.at("dbias")), local_dy, tol, tol, "Bias@GRAD, " + where);
  ExpectNear(ToDoubles(bwd.vars.at("dscale")), local_dy_xhat, tol, tol, "Scale@GRAD, " + where);
}

TEST(SyncBatchNormWorker, StatisticsAndGradientAreTheJobsBatch) {
  if (!IsWorker()) GTEST_SKIP() << "runs as a rank of the job the SyncBatchNorm tests launch";
  operators::RegisterAllOps();
  const int rank = std::atoi(std::getenv("PADDLE_TRAINER_ID"));
  const int nranks = std::atoi(std::getenv("PADDLE_TRAINERS_NUM"));
  CheckAcrossRanks<double>(rank, nranks, 1e-10);
  CheckAcrossRanks<float>(rank, nranks, 2e-5);
}

void LaunchWorkers(int nranks) {
  char self[4096] = {0};
  ASSERT_GT(::readlink("/proc/self/exe", self, sizeof(self) - 1), 0);
  ::setenv("PL_SYNC_BATCH_NORM_WORKER", "1", 1);
  ::setenv("FLAGS_collective_timeout_s", "60", 1);
  const CliResult r = RunCli({"launch", "--nproc", std::to_string(nranks), "--", self,
                              "--gtest_filter=SyncBatchNormWorker.*", "--gtest_brief=1"});
  ::unsetenv("PL_SYNC_BATCH_NORM_WORKER");
  ::unsetenv("FLAGS_collective_timeout_s");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "[  PASSED  ] 1 test")) << r.out << r.err;
}

TEST(SyncBatchNorm, TwoRanksNormaliseByTheJobsBatch) {
  if (IsWorker()) GTEST_SKIP();
  LaunchWorkers(2);
}

TEST(SyncBatchNorm, ThreeRanksNormaliseByTheJobsBatch) {
  if (IsWorker()) GTEST_SKIP();
  LaunchWorkers(3);
}

int Apply(const std::string& pass, ProgramDesc* p, Scope* params) {
  operators::RegisterAllOps();
  inference::RegisterInferencePasses();
  return framework::ir::ApplyPass(*framework::ir::CreatePass(pass), p, params);
}

TEST(SyncBatchNormPass, InferenceOpsBecomeBatchNormAndFoldIntoTheConv) {
  ProgramWithParams m;
  m.Declare("x", {2, 4, 5, 5}, false);
  m.Param("w", {kC, 4, 3, 3}, -0.5, 0.5);
  m.Declare("y", {2, kC, 5, 5}, false);
  m.Op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"y"}}},
       {{"paddings", std::vector<int>{1, 1}}});
  AppendNorm(&m, "sync_batch_norm", "y", "out", {2, kC, 5, 5}, true);
  const DenseTensor x = MakeTensor<float>({2, 4, 5, 5}, RandomValues(200, -1, 1, 9));
  operators::RegisterAllOps();
  Scope before;
  m.Fill(&before);
  const std::vector<double> want = RunProgram(m.program, &before, x);

  ProgramDesc p = m.program;
  Scope params;
  m.Fill(&params);
  EXPECT_EQ(Apply("sync_batch_norm_pass", &p, &params), 1);
  EXPECT_EQ(OpTypes(p), (std::vector<std::string>{"conv2d", "batch_norm"}));
  EXPECT_EQ(Apply("conv_bn_fuse_pass", &p, &params), 1);
  EXPECT_EQ(OpTypes(p), (std::vector<std::string>{"conv2d"}));
  ExpectNear(RunProgram(p, &params, x), want, 1e-5, 1e-5, "folded");

  ProgramWithParams training = NormProgram("sync_batch_norm", false);
  Scope unused;
  EXPECT_EQ(Apply("sync_batch_norm_pass", &training.program, &unused), 0);
  EXPECT_EQ(OpTypes(training.program), (std::vector<std::string>{"sync_batch_norm"}));
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// The collective ops (PaddlePaddle 2.x's c_* ops and 3.x's all_reduce family), coalesce_tensor
// and the ordering ops, run as ranks of a real job: `paddle_like launch --nproc N` starts this
// test binary N times as workers (CollectiveOpsWorker), each runs every op through the
// executor on its rank's inputs and checks the outputs against references computed from
// every rank's inputs in double.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli_test_util.h"
#include "framework/executor.h"
#include "op_test_util.h"
#include "framework/selected_rows.h"
#include "platform/collective/comm_registry.h"

namespace paddle_like {
namespace {

using framework::DenseTensor;
using platform::DataType;
using testing::ToDoubles;

bool IsWorker() { return std::getenv("PL_COLLECTIVE_OPS_WORKER") != nullptr; }

int EnvInt(const char* name) { return std::atoi(std::getenv(name)); }

// Rank r's element i (small integers; quarters for floating dtypes; non-negative for uint8;
// in [-2, 2] when `for_product`), exact in every dtype.
double Value(int rank, int64_t i, DataType dtype, bool for_product) {
  const bool is_unsigned = dtype == DataType::UINT8;
  const bool floating = platform::IsFloatingPoint(dtype);
  if (for_product) {
    return is_unsigned ? (rank * 5 + i * 3) % 3 : (rank * 5 + i * 3) % 5 - 2;
  }
  const double v = static_cast<double>((rank * 7 + i * 3) % 11 - (is_unsigned ? 0 : 5));
  return floating ? v / 4 : v;
}

DenseTensor Typed(const std::vector<int64_t>& dims, DataType dtype,
                  const std::vector<double>& values) {
  DenseTensor d = testing::MakeTensor<double>(framework::DDim(dims), values);
  DenseTensor t;
  framework::CastTensor(d, dtype, &t);
  return t;
}

std::vector<double> RankValues(int rank, int64_t n, DataType dtype, bool for_product) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(Value(rank, i, dtype, for_product));
  return v;
}

const std::vector<DataType> kDtypes = {DataType::FLOAT32, DataType::FLOAT64, DataType::FLOAT16,
                                       DataType::BFLOAT16, DataType::INT32,  DataType::INT64,
                                       DataType::INT8,     DataType::UINT8};

// Runs one op with X (or x) = `in` and returns Out (or out); `in_place` names Out as X.
DenseTensor RunCollective(const std::string& type, const DenseTensor& in,
                          const framework::AttributeMap& attrs, bool in_place = false) {
  const bool lower = type.rfind("c_", 0) != 0 && type != "barrier";
  const std::string x = lower ? "x" : "X", out = lower ? "out" : "Out";
  const auto run = testing::RunNamedOp(type, {{x, {"in"}}}, {{out, {in_place ? "in" : "out"}}},
                                       {{"in", in}}, attrs);
  return run.vars.at(in_place ? "in" : "out");
}

void CheckAllReduces(int rank, int n) {
  const int64_t count = 12;
  struct Case {
    std::string type;
    int reduce_type;  // all_reduce only.
  };
  const std::vector<Case> cases = {{"c_allreduce_sum", -1}, {"c_allreduce_max", -1},
                                   {"c_allreduce_min", -1}, {"c_allreduce_prod", -1},
                                   {"all_reduce", 0},       {"all_reduce", 1},
                                   {"all_reduce", 2},       {"all_reduce", 3},
                                   {"all_reduce", 4}};
  for (DataType dtype : kDtypes) {
    for (const Case& c : cases) {
      const bool avg = c.reduce_type == 4;
      if (avg && !platform::IsFloatingPoint(dtype)) continue;
      const bool prod = c.type == "c_allreduce_prod" || c.reduce_type == 3;
      const bool max = c.type == "c_allreduce_max" || c.reduce_type == 1;
      const bool min = c.type == "c_allreduce_min" || c.reduce_type == 2;
      SCOPED_TRACE(c.type + " reduce_type " + std::to_string(c.reduce_type) + " " +
                   platform::DataTypeName(dtype));
      framework::AttributeMap attrs = {{"ring_id", 0}};
      if (c.reduce_type >= 0) attrs["reduce_type"] = c.reduce_type;
      for (bool in_place : {false, true}) {
        const DenseTensor in = Typed({3, 4}, dtype, RankValues(rank, count, dtype, prod));
        const std::vector<double> got = ToDoubles(RunCollective(c.type, in, attrs, in_place));
        ASSERT_EQ(got.size(), static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i) {
          double ref = Value(0, i, dtype, prod);
          for (int r = 1; r < n; ++r) {
            const double v = Value(r, i, dtype, prod);
            ref = prod ? ref * v : max ? std::max(ref, v) : min ? std::min(ref, v) : ref + v;
          }
          if (avg) ref /= n;
          // avg divides in float: exact for powers of two, within float rounding otherwise.
          const double tol = avg && dtype != DataType::FLOAT32 && dtype != DataType::FLOAT64
                                 ? 0.02
                                 : avg ? 1e-6 : 0.0;
          ASSERT_NEAR(got[i], ref, tol) << "element " << i << (in_place ? " in place" : "");
        }
      }
    }
  }
}

void CheckBroadcastGatherScatter(int rank, int n) {
  for (DataType dtype : kDtypes) {
    SCOPED_TRACE(platform::DataTypeName(dtype));
    for (const std::string type : {"c_broadcast", "broadcast"}) {
      for (int root = 0; root < n; ++root) {
        const DenseTensor in = Typed({2, 3}, dtype, RankValues(rank, 6, dtype, false));
        const std::vector<double> got =
            ToDoubles(RunCollective(type, in, {{"root", root}}, root % 2 == 1));
        for (int64_t i = 0; i < 6; ++i) ASSERT_EQ(got[i], Value(root, i, dtype, false)) << type;
      }
    }
    for (const std::string type : {"c_allgather", "all_gather"}) {
      const DenseTensor in = Typed({2, 3}, dtype, RankValues(rank, 6, dtype, false));
      const DenseTensor out = RunCollective(type, in, {{"nranks", n}});
      ASSERT_EQ(out.dims().ToVector(), (std::vector<int64_t>{2 * n, 3})) << type;
      const std::vector<double> got = ToDoubles(out);
      for (int r = 0; r < n; ++r) {
        for (int64_t i = 0; i < 6; ++i) ASSERT_EQ(got[r * 6 + i], Value(r, i, dtype, false));
      }
    }
    for (const std::string type : {"c_reducescatter", "reduce_scatter"}) {
      const int64_t count = 2 * n * 3;
      const DenseTensor in = Typed({2 * n, 3}, dtype, RankValues(rank, count, dtype, false));
      const DenseTensor out = RunCollective(type, in, {{"nranks", n}});
      ASSERT_EQ(out.dims().ToVector(), (std::vector<int64_t>{2, 3})) << type;
      const std::vector<double> got = ToDoubles(out);
      for (int64_t k = 0; k < 6; ++k) {
        double ref = 0;
        for (int r = 0; r < n; ++r) ref += Value(r, rank * 6 + k, dtype, false);
        ASSERT_EQ(got[k], ref) << type << " element " << k;
      }
    }
  }
}

// Gradients that an op produces as temporaries, laid out by coalesce_tensor, all-reduced in
// place through the fused buffer and read back through the views by later ops, as the
// data-parallel rewrite does.
void CheckCoalescedAllReduce(int rank, int n, bool on_communication_stream) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& block = program.Block(0);
  auto add_op = [&](const std::string& type, const framework::VariableNameMap& in,
                    const framework::VariableNameMap& out, const framework::AttributeMap& attrs) {
    framework::OpDesc* op = block.AppendOp();
    op->SetType(type);
    for (const auto& [slot, names] : in) op->SetInput(slot, names);
    for (const auto& [slot, names] : out) op->SetOutput(slot, names);
    for (const auto& [k, v] : attrs) op->SetAttr(k, v);
  };
  for (const char* name : {"a_in", "b_in", "a_out", "b_out"}) {
    block.Var(name)->SetPersistable(true);
  }
  for (const char* name : {"a", "b", "fused"}) block.Var(name);
  // On the communication stream the buffer lasts from run to run, as a data-parallel
  // bucket does: its second all-reduce moves it into shared memory.
  block.Var("fused")->SetPersistable(on_communication_stream);
  add_op("scale", {{"X", {"a_in"}}}, {{"Out", {"a"}}}, {{"scale", 1.0f}});
  add_op("scale", {{"X", {"b_in"}}}, {{"Out", {"b"}}}, {{"scale", 1.0f}});
  add_op("coalesce_tensor", {{"Input", {"a", "b"}}}, {{"Output", {"a", "b"}}, {"FusedOutput", {"fused"}}},
         {{"dtype", static_cast<int>(DataType::FLOAT64)}, {"copy_data", true}});
  add_op("c_allreduce_sum", {{"X", {"fused"}}}, {{"Out", {"fused"}}},
         {{"ring_id", 0}, {"use_calc_stream", !on_communication_stream}});
  if (on_communication_stream) {
    add_op("c_sync_comm_stream", {{"X", {"a", "b"}}}, {{"Out", {"a", "b"}}}, {{"ring_id", 0}});
  }
  add_op("scale", {{"X", {"a"}}}, {{"Out", {"a_out"}}}, {{"scale", 1.0f}});
  add_op("scale", {{"X", {"b"}}}, {{"Out", {"b_out"}}}, {{"scale", 1.0f}});
  framework::Scope scope;
  const std::vector<double> a = RankValues(rank, 6, DataType::FLOAT64, false);
  const std::vector<double> b = RankValues(rank + 1, 5, DataType::FLOAT64, false);
  *scope.Var("a_in")->GetMutable<DenseTensor>() = testing::MakeTensor<double>(framework::DDim({2, 3}), a);
  *scope.Var("b_in")->GetMutable<DenseTensor>() = testing::MakeTensor<double>(framework::DDim({5}), b);
  scope.Var("a_out");
  scope.Var("b_out");
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program, 0, &scope, {});
  // The second run writes over the views of the first (and moves a lasting buffer into
  // shared memory); the third copies the gradients into the moved buffer, the fourth finds
  // them written there.
  for (int run = 0; run < 4; ++run) {
    exec.Run(prepared.get());
    if (on_communication_stream && run >= 1) {
      platform::collective::Communicator* ring =
          platform::collective::CommRegistry::Instance().Get(0, platform::CPUPlace());
      const DenseTensor& fused = scope.FindVar("fused")->Get<DenseTensor>();
      EXPECT_EQ(ring->IsSharedBuffer(fused.raw_data(), fused.data_bytes()),
                ring->OffersSharedBuffers())
          << "run " << run;
    }
    const std::vector<double> got_a = ToDoubles(scope.FindVar("a_out")->Get<DenseTensor>());
    const std::vector<double> got_b = ToDoubles(scope.FindVar("b_out")->Get<DenseTensor>());
    for (int64_t i = 0; i < 6; ++i) {
      double ref = 0;
      for (int r = 0; r < n; ++r) ref += Value(r, i, DataType::FLOAT64, false);
      ASSERT_EQ(got_a[i], ref) << "a[" << i << "] run " << run;
    }
    for (int64_t i = 0; i < 5; ++i) {
      double ref = 0;
      for (int r = 0; r < n; ++r) ref += Value(r + 1, i, DataType::FLOAT64, false);
      ASSERT_EQ(got_b[i], ref) << "b[" << i << "] run " << run;
    }
  }
}

// A SelectedRows (sparse gradient) with rank r holding r + 1 rows of width 3.
void CheckSparseAllGather(int rank, int n) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& block = program.Block(0);
  for (const char* name : {"g", "gathered"}) {
    block.Var(name)->SetKind(framework::VarKind::kSelectedRows);
    block.Var(name)->SetDataType(DataType::FLOAT32);
    block.Var(name)->SetPersistable(true);
  }
  framework::OpDesc* op = block.AppendOp();
  op->SetType("c_allgather");
  op->SetInput("X", {"g"});
  op->SetOutput("Out", {"gathered"});
  op->SetAttr("nranks", n);
  framework::Scope scope;
  auto rows_of = [](int r) {
    std::vector<int64_t> rows;
    for (int k = 0; k <= r; ++k) rows.push_back((r * 3 + k) % 10);
    return rows;
  };
  framework::SelectedRows mine(rows_of(rank), 10);
  std::vector<double> values;
  for (int k = 0; k <= rank; ++k) {
    for (int c = 0; c < 3; ++c) values.push_back(rank * 100 + k * 10 + c);
  }
  *mine.mutable_value() = testing::MakeTensor<float>(framework::DDim({rank + 1, 3}), values);
  *scope.Var("g")->GetMutable<framework::SelectedRows>() = mine;
  scope.Var("gathered");
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program, 0, &scope, {});
  exec.Run(prepared.get());
  const auto& out = scope.FindVar("gathered")->Get<framework::SelectedRows>();
  std::vector<int64_t> rows;
  std::vector<double> expected;
  for (int r = 0; r < n; ++r) {
    for (int64_t row : rows_of(r)) rows.push_back(row);
    for (int k = 0; k <= r; ++k) {
      for (int c = 0; c < 3; ++c) expected.push_back(r * 100 + k * 10 + c);
    }
  }
  EXPECT_EQ(out.rows(), rows);
  EXPECT_EQ(out.height(), 10);
  EXPECT_EQ(out.value().dims().ToVector(), (std::vector<int64_t>{static_cast<int64_t>(rows.size()), 3}));
  EXPECT_EQ(ToDoubles(out.value()), expected);
}

void CheckOrderingOpsAndErrors(int n) {
  const DenseTensor t = testing::MakeTensor<float>(framework::DDim({2}), {1.5, -2});
  for (const std::string type : {"barrier", "c_sync_calc_stream", "c_sync_comm_stream",
                                 "c_wait_comm", "c_wait_compute"}) {
    const auto run = testing::RunNamedOp(type, {{"X", {"in"}}}, {{"Out", {"out"}}}, {{"in", t}});
    EXPECT_EQ(ToDoubles(run.vars.at("out")), (std::vector<double>{1.5, -2})) << type;
  }
  try {
    RunCollective("c_allgather", t, {{"nranks", n + 1}});
    ADD_FAILURE() << "c_allgather accepted nranks " << n + 1;
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("attribute `nranks` is " + std::to_string(n + 1)),
              std::string::npos)
        << e.what();
  }
  try {
    RunCollective("c_reducescatter", testing::MakeTensor<float>(framework::DDim({n + 1}),
                                                                std::vector<double>(n + 1, 1.0)),
                  {});
    ADD_FAILURE() << "c_reducescatter accepted a dim 0 that does not divide";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("must divide into"), std::string::npos) << e.what();
  }
  // The ranks are still in step after the failed ops (they failed before any collective).
  testing::RunNamedOp("barrier", {{"X", {"in"}}}, {{"Out", {"in"}}}, {{"in", t}});
}

TEST(CollectiveOpsWorker, EveryOpMatchesTheReference) {
  if (!IsWorker()) GTEST_SKIP() << "runs as a rank of the job the CollectiveOps tests launch";
  const int rank = EnvInt("PADDLE_TRAINER_ID");
  const int n = EnvInt("PADDLE_TRAINERS_NUM");
  CheckAllReduces(rank, n);
  CheckBroadcastGatherScatter(rank, n);
  CheckCoalescedAllReduce(rank, n, /*on_communication_stream=*/false);
  // The same on the ring's communication thread, ordered by c_sync_comm_stream.
  platform::collective::Communicator* ring =
      platform::collective::CommRegistry::Instance().Get(0, platform::CPUPlace());
  ring->set_communication_stream(true);
  CheckCoalescedAllReduce(rank, n, /*on_communication_stream=*/true);
  ring->set_communication_stream(false);
  CheckSparseAllGather(rank, n);
  CheckOrderingOpsAndErrors(n);
}

void LaunchWorkers(int nranks) {
  char self[4096] = {0};
  ASSERT_GT(::readlink("/proc/self/exe", self, sizeof(self) - 1), 0);
  ::setenv("PL_COLLECTIVE_OPS_WORKER", "1", 1);
  ::setenv("FLAGS_collective_timeout_s", "60", 1);
  const testing::CliResult r =
      testing::RunCli({"launch", "--nproc", std::to_string(nranks), "--", self,
                       "--gtest_filter=CollectiveOpsWorker.*", "--gtest_brief=1"});
  ::unsetenv("PL_COLLECTIVE_OPS_WORKER");
  ::unsetenv("FLAGS_collective_timeout_s");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(testing::Contains(r.out, "[  PASSED  ] 1 test")) << r.out << r.err;
}

TEST(CollectiveOps, EveryOpOnTwoRanks) { LaunchWorkers(2); }
TEST(CollectiveOps, EveryOpOnFourRanks) { LaunchWorkers(4); }

TEST(CollectiveOps, OneRankJobWithoutTheEnvironmentRunsAlone) {
  if (IsWorker() || std::getenv("PADDLE_TRAINERS_NUM") != nullptr) GTEST_SKIP();
  const DenseTensor t = testing::MakeTensor<float>(framework::DDim({3}), {1, 2, 3});
  EXPECT_EQ(ToDoubles(RunCollective("c_allreduce_sum", t, {})), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(ToDoubles(RunCollective("c_allgather", t, {{"nranks", 1}})),
            (std::vector<double>{1, 2, 3}));
  EXPECT_THROW(RunCollective("c_broadcast", t, {{"root", 1}}), platform::InvalidArgumentError);
}

}  // namespace
}  // namespace paddle_like

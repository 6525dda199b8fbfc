// All-reduce latency and bandwidth, 4 KiB to 64 MiB of float32, of paddle_like's
// c_allreduce_sum op (a prepared one-op program, in place, through the executor) against
// Gloo's own ring all-reduce called directly (its own file-store rendezvous, no paddle_like
// code in the loop), in the same job; where the ranks share this machine's memory, also the
// communicator's all-reduce of a shared buffer in place (how a data-parallel gradient bucket
// is all-reduced from its second step on). Runs as the ranks of a job:
//
//   build/bin/paddle_like launch --nproc 2 -- build/tests/benchmarks/allreduce_benchmark
//
// Rank 0 prints a table: per size, the median time of one all-reduce on each side, the
// algorithm bandwidth (bytes / time) and the bus bandwidth (algorithm bandwidth * 2(n-1)/n,
// what each link carries in a ring), and the ratio of the two times.
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_util.h"
#include "framework/executor.h"
#include "operators/registry.h"
#include "platform/collective/comm_registry.h"
#include "platform/flags.h"

namespace paddle_like {
namespace {

using Clock = std::chrono::steady_clock;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Repetitions for a message of `bytes`: enough for a stable median, bounded for 64 MiB.
int Repetitions(size_t bytes) {
  if (bytes <= (64u << 10)) return 200;
  if (bytes <= (4u << 20)) return 50;
  return 10;
}

struct Row {
  size_t bytes;
  double ours_s, gloo_s;
  double shared_s;  // < 0: the ring offers no shared buffers.
};

}  // namespace
}  // namespace paddle_like

int main() {
  using namespace paddle_like;
  operators::RegisterAllOps();
  platform::InitFlagsFromEnvironment();
  auto& registry = platform::collective::CommRegistry::Instance();
  platform::collective::Communicator* comm = registry.Get(0, platform::CPUPlace());
  const int rank = comm->rank(), nranks = comm->nranks();

  // Gloo on its own: a file store in a directory named after the job's master endpoint.
  std::string dir = "/tmp/pl_allreduce_benchmark_" + registry.env().master;
  std::replace(dir.begin(), dir.end(), ':', '_');
  ::mkdir(dir.c_str(), 0755);
  gloo::rendezvous::FileStore file_store(dir);
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto gloo_context = std::make_shared<gloo::rendezvous::Context>(rank, nranks);
  gloo_context->connectFullMesh(file_store, device);

  std::vector<Row> rows;
  for (size_t bytes = 4u << 10; bytes <= (64u << 20); bytes *= 4) {
    const int64_t n = static_cast<int64_t>(bytes / sizeof(float));
    // Ours: c_allreduce_sum in place on a variable of the scope.
    framework::ProgramDesc program;
    framework::BlockDesc& block = program.Block(0);
    block.Var("g")->SetPersistable(true);
    AddOp(&block, "c_allreduce_sum", {{"X", {"g"}}}, {{"Out", {"g"}}}, {{"ring_id", 0}});
    framework::Scope scope;
    *scope.Var("g")->GetMutable<framework::DenseTensor>() =
        Filled(framework::DDim({n}), 0.0f, 1e-6f);
    framework::Executor exec{platform::CPUPlace()};
    auto prepared = exec.Prepare(program, 0, &scope, {});
    std::vector<float> raw(static_cast<size_t>(n), 1e-6f);
    platform::AllocationPtr shared = comm->SharedBuffer(bytes);
    if (shared != nullptr) std::fill_n(static_cast<float*>(shared->ptr()), n, 1e-6f);

    const int reps = Repetitions(bytes);
    std::vector<double> ours, gloo_times, shared_times;
    for (int i = 0; i < reps + 3; ++i) {
      // Turns, so that the machine's noise falls on both sides alike.
      comm->Barrier();
      auto t0 = Clock::now();
      exec.Run(prepared.get());
      const double a = std::chrono::duration<double>(Clock::now() - t0).count();
      comm->Barrier();
      t0 = Clock::now();
      gloo::AllreduceOptions opts(gloo_context);
      opts.setOutput(raw.data(), raw.size());
      opts.setReduceFunction(
          static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
      opts.setTag(static_cast<uint32_t>(i));
      gloo::allreduce(opts);
      const double b = std::chrono::duration<double>(Clock::now() - t0).count();
      double c = 0;
      if (shared != nullptr) {
        comm->Barrier();
        t0 = Clock::now();
        comm->AllReduce(shared->ptr(), shared->ptr(), n, platform::DataType::FLOAT32,
                        platform::collective::ReduceOp::kSum);
        c = std::chrono::duration<double>(Clock::now() - t0).count();
      }
      if (i >= 3) {
        ours.push_back(a);
        gloo_times.push_back(b);
        shared_times.push_back(c);
      }
    }
    rows.push_back(
        {bytes, Median(ours), Median(gloo_times), shared != nullptr ? Median(shared_times) : -1.0});
  }
  comm->Barrier();
  if (rank == 0) {
    const double bus = 2.0 * (nranks - 1) / nranks;
    std::printf("all-reduce of float32, %d ranks (median of 10-200 runs per size)\n\n", nranks);
    std::printf(
        "| size | c_allreduce_sum | Gloo allreduce | op / Gloo time | op algbw | op busbw | "
        "Gloo busbw | shared buffer | shared buffer busbw |\n"
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const Row& r : rows) {
      const double kib = r.bytes / 1024.0;
      const std::string size = kib >= 1024 ? std::to_string(static_cast<int>(kib / 1024)) + " MiB"
                                           : std::to_string(static_cast<int>(kib)) + " KiB";
      std::printf("| %s | %.1f us | %.1f us | %.2f | %.2f GB/s | %.2f GB/s | %.2f GB/s |",
                  size.c_str(), r.ours_s * 1e6, r.gloo_s * 1e6, r.ours_s / r.gloo_s,
                  r.bytes / r.ours_s / 1e9, r.bytes / r.ours_s / 1e9 * bus,
                  r.bytes / r.gloo_s / 1e9 * bus);
      if (r.shared_s < 0) {
        std::printf(" - | - |\n");
      } else {
        std::printf(" %.1f us | %.2f GB/s |\n", r.shared_s * 1e6, r.bytes / r.shared_s / 1e9 * bus);
      }
    }
  }
  return 0;
}

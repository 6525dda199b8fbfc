// The CPU device context of a oneDNN build: the CPU context plus a oneDNN engine and one
// oneDNN stream per calling thread. oneDNN kernels take it with
// `ctx.device_context<OneDNNContext>()`.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <thread>
#include <unordered_map>

#include "platform/device_context.h"

namespace paddle_like {
namespace platform {

// omp_set_num_threads(max(1, n)) for the calling thread, and omp_get_max_threads().
void LimitOpenMPThreadsOfCallingThread(int n);
int OpenMPThreadsOfCallingThread();

// Within its scope the oneDNN primitives the calling thread makes or runs use at most `n`
// OpenMP threads (a primitive made in it keeps that count); the thread's budget is restored
// on exit.
class ScopedOpenMPThreads {
 public:
  explicit ScopedOpenMPThreads(int n) : saved_(OpenMPThreadsOfCallingThread()) {
    limited_ = n < saved_;
    if (limited_) LimitOpenMPThreadsOfCallingThread(n);
  }
  // Nothing to undo for an op that keeps the whole budget (most of them).
  ~ScopedOpenMPThreads() {
    if (limited_) LimitOpenMPThreadsOfCallingThread(saved_);
  }
  ScopedOpenMPThreads(const ScopedOpenMPThreads&) = delete;
  ScopedOpenMPThreads& operator=(const ScopedOpenMPThreads&) = delete;

 private:
  int saved_;
  bool limited_ = false;
};

class OneDNNContext : public CPUDeviceContext {
 public:
  explicit OneDNNContext(int num_threads)
      : CPUDeviceContext(num_threads), engine_(dnnl::engine::kind::cpu, 0), id_(NextId()) {}

  // The engine; a thread's first call sets up its stream and OpenMP thread budget (see
  // stream()), since primitives created for the thread take their thread count from it.
  const dnnl::engine& engine() const {
    stream();
    return engine_;
  }

  // Limits the oneDNN primitives the calling thread makes or runs to `n` OpenMP threads until
  // the result goes out of scope (after the thread's first-call set-up, which sets its
  // budget to this context's).
  [[nodiscard]] ScopedOpenMPThreads LimitThreads(int n) const {
    stream();
    return ScopedOpenMPThreads(n);
  }

  // The calling thread's stream. Executors on several threads share this context (one per
  // place), and a dnnl::stream is not meant to run primitives for two threads at once.
  // oneDNN's CPU stream executes synchronously with respect to the calling thread. A
  // thread-local cache, keyed by a context id that is never reused, skips the lock after
  // the first call of a thread.
  dnnl::stream& stream() const {
    thread_local uint64_t cached_id = 0;
    thread_local dnnl::stream* cached = nullptr;
    if (cached_id == id_) return *cached;
    // oneDNN's primitives run on as many OpenMP threads as the calling thread's
    // omp_get_max_threads(), a per-thread setting that a thread the program starts itself
    // (a predictor clone's) does not inherit: set it to this context's budget.
    LimitOpenMPThreadsOfCallingThread(num_threads());
    std::lock_guard<std::mutex> lock(mu_);
    dnnl::stream& s = streams_[std::this_thread::get_id()];
    if (!s) s = dnnl::stream(engine_);
    cached_id = id_;
    cached = &s;
    return s;
  }

 private:
  static uint64_t NextId() {
    static std::atomic<uint64_t> next{1};
    return next++;
  }

  dnnl::engine engine_;
  const uint64_t id_;
  mutable std::mutex mu_;
  // Node-based: a reference stays valid while other threads add their streams.
  mutable std::unordered_map<std::thread::id, dnnl::stream> streams_;
};

}  // namespace platform
}  // namespace paddle_like

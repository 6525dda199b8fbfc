// How many threads an op of a given size runs on. Starting the other OpenMP threads and
// joining them costs 1-3 us; below kOneThreadWork (multiply-adds of a convolution; values
// of a pooling's or normalisation's input, of an elementwise op's output) one thread
// finishes the op sooner alone.
// PP-LCNet at batch 1 on 2 threads: each squeeze-and-excitation block's pooling, two 1x1
// convolutions on 1x1 maps and channel scaling took 9-10 us, 5 us on one thread, and the
// model 0.41 -> 0.37 ms (0.77 -> 0.61 ms when the machine was slow); `paddle_like bench
// --profile`. Loops take a thread per kOneThreadWork values (rounded up), so an op runs on
// one thread below that size whichever way it is computed: ops that read each other's
// output then split alike and their data stays in the same core's cache.
#pragma once

#include <algorithm>
#include <cstdint>

#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

constexpr int64_t kOneThreadWork = 65536;

// The OpenMP threads for a oneDNN primitive of `work`: made and run under
// OneDNNContext::LimitThreads of this count (a primitive keeps the count it was made with).
inline int ThreadsForWork(const platform::CPUDeviceContext& dev, double work) {
  return work < kOneThreadWork ? 1 : dev.num_threads();
}

// Limits the calling thread's oneDNN primitives to ThreadsForWork(dev, work) threads for the
// scope of the result: for a kernel that makes and runs its primitive in one call.
[[nodiscard]] inline platform::ScopedOpenMPThreads LimitThreadsForWork(
    const platform::OneDNNContext& dev, double work) {
  return dev.LimitThreads(ThreadsForWork(dev, work));
}

// The grain (CPUDeviceContext::ParallelFor's min_grain) of a loop over items of `size`
// values: a thread per kOneThreadWork values.
inline int64_t GrainOfItems(int64_t size) {
  return std::max<int64_t>(1, kOneThreadWork / std::max<int64_t>(1, size));
}

}  // namespace operators
}  // namespace paddle_like

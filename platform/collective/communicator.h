// A communicator: the ranks of one ring (PaddlePaddle's `ring_id`) and the collectives they
// run together. Every rank of the ring calls the same collectives in the same order with the
// same counts; a call returns when this rank's part is done (the output buffers hold the
// result). Buffers are raw memory of the device the communicator serves (host memory for the
// Gloo communicator); the element type says how to reduce.
//
// Errors: a peer that died, closed its connection or did not answer within the timeout
// (FLAGS_collective_timeout_s) raises UnavailableError naming the collective, the ring, this
// rank and what the transport reported; the communicator is unusable afterwards.
//
// Threading: one collective at a time per communicator. Collectives may also run on the
// ring's communication thread (Submit: PaddlePaddle's communication stream, on the host),
// in the order submitted; a caller that runs a collective itself waits for them first
// (WaitAll), so every rank runs the ring's collectives in the same order.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "platform/allocator.h"
#include "platform/data_type.h"

namespace paddle_like {
namespace platform {
namespace collective {

enum class ReduceOp : int { kSum = 0, kMax = 1, kMin = 2, kProd = 3 };

// "sum", "max", "min", "prod".
const char* ReduceOpName(ReduceOp op);

class Communicator {
 public:
  // Subclasses call StopWorker() first in their destructors (the thread uses them).
  virtual ~Communicator();

  virtual int rank() const = 0;
  virtual int nranks() const = 0;
  virtual int ring_id() const = 0;

  // out[i] = reduce over ranks of in[i], i < count, on every rank. `in` may equal `out`.
  virtual void AllReduce(const void* in, void* out, int64_t count, DataType dtype,
                         ReduceOp op) = 0;
  // buffer (count elements) of rank `root` is copied into `buffer` of every rank.
  virtual void Broadcast(void* buffer, int64_t count, DataType dtype, int root) = 0;
  // out = concatenation over ranks, in rank order, of each rank's `in` (count elements each;
  // `out` holds nranks * count).
  virtual void AllGather(const void* in, void* out, int64_t count, DataType dtype) = 0;
  // out = concatenation over ranks, in rank order, of each rank's `in`, rank r giving
  // counts[r] elements (`count` == counts[rank]; `out` holds their sum): sparse gradients,
  // whose ranks hold different numbers of rows.
  virtual void AllGatherV(const void* in, int64_t count, void* out,
                          const std::vector<int64_t>& counts, DataType dtype) = 0;
  // out = this rank's block of count elements of reduce over ranks of `in` (nranks * count
  // elements).
  virtual void ReduceScatter(const void* in, void* out, int64_t count, DataType dtype,
                             ReduceOp op) = 0;
  // Returns when every rank has entered it.
  virtual void Barrier() = 0;

  // Shared buffers: host memory of this rank that the other ranks of the ring read in place,
  // for a buffer all-reduced in place again and again (a data-parallel gradient bucket): an
  // in-place AllReduce of data within one moves nothing through the transport's staging.
  // SharedBuffer is collective: every rank calls it with the same size at the same point of
  // the ring's order, with nothing submitted still running. It gives nullptr on every rank
  // where the transport has none (a ring across machines) or any rank could not get one;
  // OffersSharedBuffers() is then false on every rank.
  virtual bool OffersSharedBuffers() const { return false; }
  virtual std::shared_ptr<Allocation> SharedBuffer(size_t bytes);
  virtual bool IsSharedBuffer(const void* data, size_t bytes) const;
  // Whether the buffer `holder` was all-reduced in place before (NoteInPlaceAllReduce
  // remembers the last few): a buffer is moved into shared memory when it comes again, not
  // when an op makes a new one every run.
  bool NoteInPlaceAllReduce(const std::shared_ptr<Allocation>& holder);

  // "ring 0 (rank 1 of 4)", for messages.
  std::string Describe() const;

  // Runs `work` (collectives of this communicator, on buffers the work keeps alive) on the
  // ring's communication thread after everything submitted before, and returns at once. An
  // error of earlier work is rethrown here.
  void Submit(std::function<void(Communicator*)> work);
  // Returns when everything submitted has run; rethrows the first error it raised.
  void WaitAll();

  // Whether all-reduces with use_calc_stream false may run on the communication thread.
  // Off by default: PaddlePaddle's host collectives are synchronous and its CPU programs
  // need not order them (they cannot hold c_sync_comm_stream). The data-parallel trainers
  // turn it on for the programs they rewrite, which wait with c_sync_comm_stream.
  bool communication_stream() const { return communication_stream_; }
  void set_communication_stream(bool on) { communication_stream_ = on; }

 protected:
  void StopWorker();

 private:
  void WorkerLoop();

  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::function<void(Communicator*)>> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread worker_;  // Started by the first Submit.
  bool communication_stream_ = false;
  std::vector<std::weak_ptr<Allocation>> reduced_in_place_;
};

// Whether collectives reduce `dtype` (float16, bfloat16, float32, float64, int8, uint8,
// int32, int64).
bool IsReducibleType(DataType dtype);

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

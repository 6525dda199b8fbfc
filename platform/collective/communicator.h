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
// Threading: one collective at a time per communicator (the executor runs ops in order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platform/data_type.h"

namespace paddle_like {
namespace platform {
namespace collective {

enum class ReduceOp : int { kSum = 0, kMax = 1, kMin = 2, kProd = 3 };

// "sum", "max", "min", "prod".
const char* ReduceOpName(ReduceOp op);

class Communicator {
 public:
  virtual ~Communicator() = default;

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

  // "ring 0 (rank 1 of 4)", for messages.
  std::string Describe() const;
};

// Whether collectives reduce `dtype` (float16, bfloat16, float32, float64, int8, uint8,
// int32, int64).
bool IsReducibleType(DataType dtype);

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

// The ranks of a host ring that all run on one machine, exchanging data through a shared
// memory segment instead of TCP: all-reduce, broadcast, all-gather and barrier cost memory
// copies and one meeting of the ranks per chunk, not a kernel round trip per hop (on a small
// virtual machine loopback TCP takes 0.3 ms for 4 KiB and moves about 1 GB/s).
//
// The segment holds two sets of one slot per rank. A collective goes through its buffer in
// chunks of a slot: every rank copies its chunk into its slot, the ranks meet, and every rank
// reads what it needs from all slots (an all-reduce reduces the slots in rank order, so every
// rank computes the same bits, and a run with the same number of ranks repeats them).
// Consecutive chunks alternate between the two sets: a rank writes a slot again only after
// the next meeting, by which every rank has finished reading it.
//
// A buffer all-reduced in place again and again (a data-parallel gradient bucket) can live in
// shared memory itself (SharedBuffer: a segment of each rank that every rank maps): its
// all-reduce then stages nothing through the slots. After one meeting each rank reduces its
// 1/n share of the buffer, reading the peers' buffers in place, into its own buffer; after a
// second it copies the other shares from their owners' buffers; a third tells every rank that
// no one reads its buffer any more. With two ranks each reads and writes 2.5 times the
// buffer's bytes where the staged all-reduce reads and writes 5 times them, and the sums are
// the staged all-reduce's bits.
//
// At every meeting each rank says what it runs (collective, dtype, reduction, count): ranks
// that run different collectives fail with an UnavailableError naming both, instead of
// reading each other's data wrongly.
//
// A meeting is a counter in the segment that each rank increments; a rank waits by spinning
// briefly, then sleeping on the counter (futex). While waiting it checks the time against the
// ring's timeout and whether the missing ranks are alive: a rank that died or left its
// communicator, or one that does not arrive within the timeout, raises UnavailableError
// naming it.
//
// Threading: one collective at a time (the communicator's rule).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/allocator.h"
#include "platform/collective/communicator.h"
#include "platform/collective/tcp_store.h"
#include "platform/data_type.h"

namespace paddle_like {
namespace platform {
namespace collective {

class SharedMemoryRing {
 public:
  // Every rank of the ring calls it, after the ring's rendezvous store is reachable. When
  // every rank runs on this machine (same host name, boot and namespaces) rank 0 creates the
  // segment and the others map it; nullptr on every rank when they do not, or when any rank
  // could not map it (then the caller keeps to its network transport). The segment's name is
  // removed as soon as every rank has mapped it, so nothing is left behind.
  static std::unique_ptr<SharedMemoryRing> Connect(int ring_id, int rank, int nranks,
                                                   TcpStoreClient* store,
                                                   std::chrono::milliseconds timeout);
  ~SharedMemoryRing();
  SharedMemoryRing(const SharedMemoryRing&) = delete;
  SharedMemoryRing& operator=(const SharedMemoryRing&) = delete;

  // The communicator's collectives (communicator.h), for the reducible dtypes. `where`
  // ("ring 0 (rank 1 of 2)") goes into error messages. An in-place all-reduce of data that
  // lies in a shared buffer takes the shared buffer's path.
  void AllReduce(const void* in, void* out, int64_t count, DataType dtype, ReduceOp op,
                 const std::string& where);
  void Broadcast(void* buffer, int64_t count, DataType dtype, int root, const std::string& where);
  void AllGather(const void* in, void* out, int64_t count, DataType dtype,
                 const std::string& where);
  void Barrier(const std::string& where);

  // Bytes of one rank's slot: the chunk a collective moves per meeting.
  size_t slot_bytes() const { return slot_bytes_; }

  // A buffer of `bytes` in a shared memory segment of this rank that every rank maps
  // (communicator.h, Communicator::SharedBuffer). Collective: every rank calls it with the
  // same size at the same point of the ring's order. nullptr on every rank when any rank could
  // not create or map a segment; from then on offers_shared_buffers() is false.
  std::shared_ptr<Allocation> SharedBuffer(size_t bytes, const std::string& where);
  bool offers_shared_buffers() const { return offers_shared_buffers_; }
  // Whether [data, data + bytes) lies within one of this rank's shared buffers.
  bool IsSharedBuffer(const void* data, size_t bytes) const;

 private:
  struct Header;
  struct SharedBuffers;
  struct SharedBufferEntry;
  SharedMemoryRing(int rank, int nranks, void* base, size_t bytes,
                   std::chrono::milliseconds timeout);

  char* Slot(uint64_t chunk, int rank) const;
  // Arrives at the next meeting, saying what this rank runs (`kind`, `count`), waits for
  // every rank to arrive and checks that they all run the same.
  void Meet(const char* what, const std::string& where, uint64_t kind, uint64_t count,
            uint64_t offset = 0);
  void Wait(const char* what, const std::string& where, uint32_t phase, uint32_t target);
  // The shared buffer holding [data, data + bytes), and data's offset in it (either may be
  // nullptr); false when none does.
  bool FindSharedBuffer(const void* data, size_t bytes, SharedBufferEntry* buffer,
                        size_t* offset) const;
  void AllReduceShared(const SharedBufferEntry& buffer, size_t offset, int64_t count,
                       DataType dtype, ReduceOp op, const std::string& where);
  [[noreturn]] void FailWaiting(const char* what, const std::string& where, uint32_t phase,
                                const std::string& reason);

  int rank_;
  int nranks_;
  Header* header_;
  size_t bytes_;
  size_t slot_bytes_;
  char* slots_;
  std::chrono::milliseconds timeout_;
  uint32_t phase_ = 0;  // Meetings this rank has arrived at.
  uint64_t chunk_ = 0;  // Chunks this rank has moved: picks the slot set.
  std::shared_ptr<SharedBuffers> shared_buffers_;
  bool offers_shared_buffers_ = true;
  uint32_t next_shared_buffer_ = 0;
  std::vector<char> scratch_;  // AllReduceShared's block with more than two ranks.
};

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

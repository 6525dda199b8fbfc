// Communicators for host memory: Gloo over TCP between processes (through shared memory
// between the processes of one machine), and the trivial one of a one-rank job (every
// collective is a copy).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "platform/collective/communicator.h"
#include "platform/collective/tcp_store.h"

namespace paddle_like {
namespace platform {
namespace collective {

// Connects rank `rank` of `nranks` to every other rank of ring `ring_id` (a full mesh of TCP
// connections from `local_host`), exchanging addresses through `store` under a prefix of the
// ring. Every rank of the ring must call it. UnavailableError when a rank does not join
// within `timeout` (which also bounds every later collective). With `shared_memory`, when
// every rank runs on this machine, all-reduce, broadcast, all-gather and barrier go through
// a shared memory segment (shared_memory_ring.h) and the other collectives through Gloo.
std::unique_ptr<Communicator> ConnectGlooCommunicator(int ring_id, int rank, int nranks,
                                                      TcpStoreClient* store,
                                                      const std::string& local_host,
                                                      std::chrono::milliseconds timeout,
                                                      bool shared_memory);

// The communicator of a one-rank ring: AllReduce, AllGather and ReduceScatter copy, Broadcast
// and Barrier return at once.
std::unique_ptr<Communicator> MakeSingleRankCommunicator(int ring_id);

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

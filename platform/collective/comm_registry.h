// The communicators of this process, one per ring (`ring_id` of PaddlePaddle's collective
// ops) and device type, which collective kernels reach through their device context's place.
//
// A ring's communicator is made on first use from the job's environment (collective_env.h):
// rank 0 serves the rendezvous store at the master endpoint, every rank connects to it and
// then to the other ranks. Every rank must therefore use a ring for the first time at the
// same point (the ops of one program run in the same order on all ranks). c_comm_init makes
// a ring's communicator explicitly, with the rank and size its attributes give. A one-rank
// job gets the trivial communicator and needs no network.
//
// Threading: Get and Init may be called from several threads; a communicator itself runs
// one collective at a time.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "platform/collective/collective_env.h"
#include "platform/collective/communicator.h"
#include "platform/collective/tcp_store.h"
#include "platform/place.h"

namespace paddle_like {
namespace platform {
namespace collective {

class CommRegistry {
 public:
  static CommRegistry& Instance();

  // The communicator of `ring_id` for `place`, made on first use. Host memory (CPU) uses
  // Gloo, CUDA devices NCCL (device_communicator.h); UnimplementedError for a build
  // without the device's collectives.
  Communicator* Get(int ring_id, const Place& place);

  // Makes ring `ring_id`'s communicator with `rank` of `nranks` (c_comm_init). An existing
  // communicator of the same rank and size is kept; InvalidArgumentError for another one
  // or for a rank or size that contradicts the job's environment.
  Communicator* Init(int ring_id, int rank, int nranks, const Place& place);

  // The job this process belongs to (read from the environment once).
  const CollectiveEnv& env();

  // Drops every communicator and the store (tests; the end of a job). Not while a
  // collective runs.
  void Reset();

 private:
  CommRegistry() = default;
  Communicator* Make(int ring_id, int rank, int nranks, const Place& place);
  TcpStoreClient* Store();

  std::mutex mu_;
  bool env_read_ = false;
  CollectiveEnv env_;
  std::unique_ptr<TcpStoreServer> server_;  // Rank 0 only.
  std::unique_ptr<TcpStoreClient> store_;
  std::map<std::pair<int, int>, std::unique_ptr<Communicator>> comms_;  // (place, ring).
};

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

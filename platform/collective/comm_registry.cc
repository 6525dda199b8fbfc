#include "platform/collective/comm_registry.h"

#include <chrono>

#include "platform/collective/device_communicator.h"
#include "platform/collective/gloo_communicator.h"
#include "platform/enforce.h"
#include "platform/flags.h"

namespace paddle_like {
namespace platform {
namespace collective {

namespace {

std::chrono::milliseconds Timeout() {
  return std::chrono::milliseconds(static_cast<int64_t>(std::max(1, FLAGS_collective_timeout_s)) *
                                   1000);
}

// One communicator per ring and device (a process may drive several GPUs).
int PlaceKey(const Place& place) {
  return static_cast<int>(place.type()) * 4096 + place.device_id();
}

}  // namespace

CommRegistry& CommRegistry::Instance() {
  static CommRegistry* registry = new CommRegistry();  // Never destroyed: ops may run at exit.
  return *registry;
}

const CollectiveEnv& CommRegistry::env() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!env_read_) {
    env_ = CollectiveEnvFromEnvironment();
    env_read_ = true;
  }
  return env_;
}

TcpStoreClient* CommRegistry::Store() {
  if (store_ == nullptr) {
    std::string host;
    int port = 0;
    SplitEndpoint(env_.master, "the rendezvous endpoint", &host, &port);
    if (env_.rank == 0) server_ = std::make_unique<TcpStoreServer>(port);
    store_ = std::make_unique<TcpStoreClient>(host, port, Timeout());
  }
  return store_.get();
}

Communicator* CommRegistry::Make(int ring_id, int rank, int nranks, const Place& place) {
  std::unique_ptr<Communicator> comm;
  if (place.is_cpu()) {
    comm = nranks == 1 ? MakeSingleRankCommunicator(ring_id)
                       : ConnectGlooCommunicator(ring_id, rank, nranks, Store(), env_.LocalHost(),
                                                 Timeout(), FLAGS_collective_shared_memory);
  } else {
    // Device memory: NCCL, even for one rank (its collectives work on the device's stream).
    comm = ConnectDeviceCommunicator(place, ring_id, rank, nranks,
                                     nranks == 1 ? nullptr : Store(), Timeout());
  }
  Communicator* raw = comm.get();
  comms_[{PlaceKey(place), ring_id}] = std::move(comm);
  return raw;
}

Communicator* CommRegistry::Get(int ring_id, const Place& place) {
  env();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = comms_.find({PlaceKey(place), ring_id});
  if (it != comms_.end()) return it->second.get();
  return Make(ring_id, env_.rank, env_.nranks, place);
}

Communicator* CommRegistry::Init(int ring_id, int rank, int nranks, const Place& place) {
  env();
  std::lock_guard<std::mutex> lock(mu_);
  PL_ENFORCE(nranks >= 1 && rank >= 0 && rank < nranks,
             errors::InvalidArgument("communicator of ring %d: rank %d is outside [0, %d)",
                                     ring_id, rank, nranks));
  PL_ENFORCE(!env_.distributed() || (rank == env_.rank && nranks == env_.nranks) ||
                 ring_id != 0,
             errors::InvalidArgument("communicator of ring 0: rank %d of %d contradicts the "
                                     "job's environment (%s variables: rank %d of %d)",
                                     rank, nranks, env_.source, env_.rank, env_.nranks));
  auto it = comms_.find({PlaceKey(place), ring_id});
  if (it != comms_.end()) {
    PL_ENFORCE(it->second->rank() == rank && it->second->nranks() == nranks,
               errors::InvalidArgument("communicator of ring %d exists as %s; asked for rank "
                                       "%d of %d",
                                       ring_id, it->second->Describe(), rank, nranks));
    return it->second.get();
  }
  if (!env_.distributed() && nranks > 1) {
    // A program that initializes its own communicators (c_comm_init) in a process started
    // without the job's variables: the attributes say who it is.
    env_.rank = rank;
    env_.nranks = nranks;
  }
  return Make(ring_id, rank, nranks, place);
}

void CommRegistry::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  comms_.clear();
  store_.reset();
  server_.reset();
  env_read_ = false;
}

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

// Communicators for device memory: NCCL on CUDA devices, in builds with CUDA and NCCL
// (nccl_communicator.cc); device_communicator_none.cc otherwise.
#pragma once

#include <chrono>
#include <memory>

#include "platform/collective/communicator.h"
#include "platform/collective/tcp_store.h"
#include "platform/place.h"

namespace paddle_like {
namespace platform {
namespace collective {

// Connects rank `rank` of `nranks` of ring `ring_id` on device `place` (rank 0 makes the
// NCCL id and shares it through `store`). Collectives are queued on the stream of the
// place's device context, behind the kernels before them and ahead of those after: their
// results are there for every later kernel, as a host collective's are for later host ops.
// UnimplementedError in builds without CUDA or NCCL, or for a place that is not a GPU.
std::unique_ptr<Communicator> ConnectDeviceCommunicator(const Place& place, int ring_id, int rank,
                                                        int nranks, TcpStoreClient* store,
                                                        std::chrono::milliseconds timeout);

// Whether this build has device collectives (NCCL).
bool BuiltWithDeviceCollectives();

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

#include "platform/collective/device_communicator.h"

#include "platform/enforce.h"

namespace paddle_like {
namespace platform {
namespace collective {

std::unique_ptr<Communicator> ConnectDeviceCommunicator(const Place& place, int, int, int,
                                                        TcpStoreClient*,
                                                        std::chrono::milliseconds) {
  throw errors::Unimplemented("collectives on %s: this build has no device collectives (NCCL "
                              "is built with CUDA where nvcc and libnccl are found)",
                              place.ToString());
}

bool BuiltWithDeviceCollectives() { return false; }

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

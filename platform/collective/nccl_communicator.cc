// NCCL communicators: the device-memory side of the collective ops (device_communicator.h).
#include <cuda_runtime.h>
#include <nccl.h>

#include <string>
#include <vector>

#include "platform/collective/device_communicator.h"
#include "platform/cuda/cuda_device_context.h"
#include "platform/device_context_pool.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace platform {
namespace collective {

namespace {

void CheckNccl(ncclResult_t rc, const std::string& what) {
  PL_ENFORCE(rc == ncclSuccess,
             errors::Unavailable("%s failed: %s (another rank died, hung or ran a different "
                                 "collective?)",
                                 what, ncclGetErrorString(rc)));
}

void CheckCuda(cudaError_t rc, const std::string& what) {
  PL_ENFORCE(rc == cudaSuccess, errors::Unavailable("%s failed: %s", what, cudaGetErrorString(rc)));
}

ncclDataType_t NcclType(DataType dtype) {
  switch (dtype) {
    case DataType::FLOAT32: return ncclFloat32;
    case DataType::FLOAT64: return ncclFloat64;
    case DataType::FLOAT16: return ncclFloat16;
    case DataType::BFLOAT16: return ncclBfloat16;
    case DataType::INT32: return ncclInt32;
    case DataType::INT64: return ncclInt64;
    case DataType::INT8: return ncclInt8;
    case DataType::UINT8: return ncclUint8;
    default:
      throw errors::Unimplemented("device collectives do not handle %s data",
                                  DataTypeName(dtype));
  }
}

ncclRedOp_t NcclOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return ncclSum;
    case ReduceOp::kMax: return ncclMax;
    case ReduceOp::kMin: return ncclMin;
    default: return ncclProd;
  }
}

class NcclCommunicator : public Communicator {
 public:
  NcclCommunicator(int ring_id, int rank, int nranks, int device, ncclComm_t comm,
                   cudaStream_t stream)
      : ring_id_(ring_id), rank_(rank), nranks_(nranks), device_(device), comm_(comm),
        stream_(stream) {}
  ~NcclCommunicator() override {
    StopWorker();
    ncclCommDestroy(comm_);
  }

  int rank() const override { return rank_; }
  int nranks() const override { return nranks_; }
  int ring_id() const override { return ring_id_; }

  void AllReduce(const void* in, void* out, int64_t count, DataType dtype,
                 ReduceOp op) override {
    if (count == 0) return;
    Use();
    CheckNccl(ncclAllReduce(in, out, static_cast<size_t>(count), NcclType(dtype), NcclOp(op),
                            comm_, stream_),
              "all-reduce on " + Describe());
  }
  void Broadcast(void* buffer, int64_t count, DataType dtype, int root) override {
    PL_ENFORCE(root >= 0 && root < nranks_,
               errors::InvalidArgument("broadcast on %s: root %d is not a rank of the ring",
                                       Describe(), root));
    if (count == 0) return;
    Use();
    CheckNccl(ncclBroadcast(buffer, buffer, static_cast<size_t>(count), NcclType(dtype), root,
                            comm_, stream_),
              "broadcast on " + Describe());
  }
  void AllGather(const void* in, void* out, int64_t count, DataType dtype) override {
    if (count == 0) return;
    Use();
    CheckNccl(ncclAllGather(in, out, static_cast<size_t>(count), NcclType(dtype), comm_, stream_),
              "all-gather on " + Describe());
  }
  void AllGatherV(const void* in, int64_t count, void* out, const std::vector<int64_t>& counts,
                  DataType dtype) override {
    PL_ENFORCE(static_cast<int>(counts.size()) == nranks_ && counts[rank_] == count,
               errors::InvalidArgument("all-gather on %s: bad counts", Describe()));
    Use();
    // One broadcast per rank into its place, grouped into one launch.
    const size_t element = SizeOf(dtype);
    size_t offset = 0;
    CheckNccl(ncclGroupStart(), "all-gather on " + Describe());
    for (int r = 0; r < nranks_; ++r) {
      char* dst = static_cast<char*>(out) + offset;
      if (counts[r] > 0) {
        CheckNccl(ncclBroadcast(r == rank_ ? in : dst, dst, static_cast<size_t>(counts[r]),
                                NcclType(dtype), r, comm_, stream_),
                  "all-gather on " + Describe());
      }
      offset += static_cast<size_t>(counts[r]) * element;
    }
    CheckNccl(ncclGroupEnd(), "all-gather on " + Describe());
  }
  void ReduceScatter(const void* in, void* out, int64_t count, DataType dtype,
                     ReduceOp op) override {
    if (count == 0) return;
    Use();
    CheckNccl(ncclReduceScatter(in, out, static_cast<size_t>(count), NcclType(dtype), NcclOp(op),
                                comm_, stream_),
              "reduce-scatter on " + Describe());
  }
  void Barrier() override {
    Use();
    void* one = nullptr;
    CheckCuda(cudaMallocAsync(&one, sizeof(float), stream_), "barrier on " + Describe());
    CheckCuda(cudaMemsetAsync(one, 0, sizeof(float), stream_), "barrier on " + Describe());
    CheckNccl(ncclAllReduce(one, one, 1, ncclFloat32, ncclSum, comm_, stream_),
              "barrier on " + Describe());
    CheckCuda(cudaFreeAsync(one, stream_), "barrier on " + Describe());
    CheckCuda(cudaStreamSynchronize(stream_), "barrier on " + Describe());
  }

 private:
  void Use() const { CheckCuda(cudaSetDevice(device_), "selecting GPU " + std::to_string(device_)); }

  int ring_id_, rank_, nranks_, device_;
  ncclComm_t comm_;
  cudaStream_t stream_;
};

}  // namespace

std::unique_ptr<Communicator> ConnectDeviceCommunicator(const Place& place, int ring_id, int rank,
                                                        int nranks, TcpStoreClient* store,
                                                        std::chrono::milliseconds) {
  PL_ENFORCE(place.is_gpu(), errors::Unimplemented("device collectives on %s: only CUDA "
                                                   "devices have them",
                                                   place.ToString()));
  auto* context =
      dynamic_cast<CUDADeviceContext*>(DeviceContextPool::Instance().Get(place));
  PL_ENFORCE(context != nullptr, errors::Unavailable("collectives on %s: no CUDA device context",
                                                     place.ToString()));
  const std::string key = "nccl/ring" + std::to_string(ring_id) + "/id";
  ncclUniqueId id;
  if (rank == 0) {
    CheckNccl(ncclGetUniqueId(&id), "making the NCCL id of ring " + std::to_string(ring_id));
    if (store != nullptr) store->Set(key, std::string(id.internal, sizeof(id.internal)));
  } else {
    PL_ENFORCE(store != nullptr, errors::InvalidArgument("ring %d: rank %d of %d needs the "
                                                         "rendezvous store",
                                                         ring_id, rank, nranks));
    const std::string bytes = store->Get(key);
    PL_ENFORCE(bytes.size() == sizeof(id.internal),
               errors::Unavailable("ring %d: the NCCL id from rank 0 has %zu bytes, expected %zu",
                                   ring_id, bytes.size(), sizeof(id.internal)));
    std::copy(bytes.begin(), bytes.end(), id.internal);
  }
  CheckCuda(cudaSetDevice(place.device_id()), "selecting " + place.ToString());
  ncclComm_t comm = nullptr;
  CheckNccl(ncclCommInitRank(&comm, nranks, id, rank),
            "connecting ring " + std::to_string(ring_id) + " (rank " + std::to_string(rank) +
                " of " + std::to_string(nranks) + ") on " + place.ToString());
  return std::make_unique<NcclCommunicator>(ring_id, rank, nranks, place.device_id(), comm,
                                            context->stream());
}

bool BuiltWithDeviceCollectives() { return true; }

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

#include "platform/collective/gloo_communicator.h"

#include <gloo/allgather.h>
#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>

#include <cstring>
#include <limits>
#include <vector>

#include "platform/collective/host_reduce.h"
#include "platform/collective/shared_memory_ring.h"
#include "platform/data_type_visit.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace platform {
namespace collective {

namespace {

// Gloo's view of our rendezvous store.
class GlooStore : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(TcpStoreClient* client) : client_(client) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    client_->Set(key, std::string(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    const std::string v = client_->Get(key);
    return std::vector<char>(v.begin(), v.end());
  }
  // Our Get waits (up to the job's timeout) by itself.
  void wait(const std::vector<std::string>& keys) override {
    for (const std::string& k : keys) client_->Get(k);
  }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds&) override {
    wait(keys);
  }

 private:
  TcpStoreClient* client_;
};

class GlooCommunicator : public Communicator {
 public:
  GlooCommunicator(int ring_id, std::shared_ptr<gloo::Context> context,
                   std::unique_ptr<SharedMemoryRing> local)
      : ring_id_(ring_id), context_(std::move(context)), local_(std::move(local)) {}
  ~GlooCommunicator() override { StopWorker(); }

  int rank() const override { return context_->rank; }
  int nranks() const override { return context_->size; }
  int ring_id() const override { return ring_id_; }

  void AllReduce(const void* in, void* out, int64_t count, DataType dtype,
                 ReduceOp op) override {
    const HostReduceFn reduce = HostReduceFunction(dtype, op);
    Guarded("all-reduce", [&] {
      if (count == 0) return;
      if (local_ != nullptr) return local_->AllReduce(in, out, count, dtype, op, Describe());
      if (in != out) std::memmove(out, in, count * SizeOf(dtype));
      VisitDataType(dtype, [&](auto t) {
        using T = decltype(t);
        gloo::AllreduceOptions opts(context_);
        opts.setOutput(static_cast<T*>(out), static_cast<size_t>(count));
        opts.setReduceFunction(reduce);
        opts.setTag(NextTag());
        gloo::allreduce(opts);
      });
    });
  }

  void Broadcast(void* buffer, int64_t count, DataType dtype, int root) override {
    CheckRoot(root);
    Guarded("broadcast", [&] {
      if (count == 0) return;
      if (local_ != nullptr) return local_->Broadcast(buffer, count, dtype, root, Describe());
      gloo::BroadcastOptions opts(context_);
      opts.setOutput(static_cast<char*>(buffer), static_cast<size_t>(count * SizeOf(dtype)));
      opts.setRoot(root);
      opts.setTag(NextTag());
      gloo::broadcast(opts);
    });
  }

  void AllGather(const void* in, void* out, int64_t count, DataType dtype) override {
    const size_t bytes = static_cast<size_t>(count * SizeOf(dtype));
    Guarded("all-gather", [&] {
      if (bytes == 0) return;
      if (local_ != nullptr) return local_->AllGather(in, out, count, dtype, Describe());
      gloo::AllgatherOptions opts(context_);
      opts.setInput(const_cast<char*>(static_cast<const char*>(in)), bytes);
      opts.setOutput(static_cast<char*>(out), bytes * nranks());
      opts.setTag(NextTag());
      gloo::allgather(opts);
    });
  }

  void AllGatherV(const void* in, int64_t count, void* out, const std::vector<int64_t>& counts,
                  DataType dtype) override {
    CheckCounts(count, counts);
    const size_t element = SizeOf(dtype);
    std::vector<size_t> bytes;
    size_t total = 0;
    for (int64_t c : counts) {
      bytes.push_back(static_cast<size_t>(c) * element);
      total += bytes.back();
    }
    Guarded("all-gather", [&] {
      if (total == 0) return;
      gloo::AllgathervOptions opts(context_);
      opts.setInput(const_cast<char*>(static_cast<const char*>(in)), bytes[rank()]);
      opts.setOutput(static_cast<char*>(out), bytes);
      opts.setTag(NextTag());
      gloo::allgatherv(opts);
    });
  }

  void ReduceScatter(const void* in, void* out, int64_t count, DataType dtype,
                     ReduceOp op) override {
    // An all-reduce of the whole input, of which this rank keeps its block: simple, and the
    // result is the same bits on every rank.
    const size_t block = static_cast<size_t>(count * SizeOf(dtype));
    std::vector<char> all(block * nranks());
    AllReduce(in, all.data(), count * nranks(), dtype, op);
    if (block > 0) std::memcpy(out, all.data() + block * rank(), block);
  }

  bool OffersSharedBuffers() const override {
    return local_ != nullptr && !broken_ && local_->offers_shared_buffers();
  }

  std::shared_ptr<Allocation> SharedBuffer(size_t bytes) override {
    std::shared_ptr<Allocation> buffer;
    if (!OffersSharedBuffers()) return buffer;
    Guarded("shared buffer set-up", [&] { buffer = local_->SharedBuffer(bytes, Describe()); });
    return buffer;
  }

  bool IsSharedBuffer(const void* data, size_t bytes) const override {
    return local_ != nullptr && local_->IsSharedBuffer(data, bytes);
  }

  void Barrier() override {
    Guarded("barrier", [&] {
      if (local_ != nullptr) return local_->Barrier(Describe());
      gloo::BarrierOptions opts(context_);
      opts.setTag(NextTag());
      gloo::barrier(opts);
    });
  }

 private:
  uint32_t NextTag() { return tag_++; }

  void CheckCounts(int64_t count, const std::vector<int64_t>& counts) const {
    PL_ENFORCE(static_cast<int>(counts.size()) == nranks() && counts[rank()] == count,
               errors::InvalidArgument("all-gather on %s: %zu counts given for %d ranks, or "
                                       "this rank's count differs from its input's %lld",
                                       Describe(), counts.size(), nranks(),
                                       static_cast<long long>(count)));
  }

  void CheckRoot(int root) const {
    PL_ENFORCE(root >= 0 && root < nranks(),
               errors::InvalidArgument("broadcast on %s: root %d is not a rank of the ring",
                                       Describe(), root));
  }

  template <typename Fn>
  void Guarded(const char* what, Fn&& fn) {
    PL_ENFORCE(!broken_, errors::Unavailable("%s on %s: an earlier collective failed on this "
                                             "ring",
                                             what, Describe()));
    try {
      fn();
    } catch (const UnavailableError&) {  // The shared memory ring names what went wrong.
      broken_ = true;
      throw;
    } catch (const gloo::Exception& e) {
      broken_ = true;
      throw errors::Unavailable("%s on %s failed: %s (another rank died, hung or ran a "
                                "different collective; FLAGS_collective_timeout_s bounds the "
                                "wait)",
                                what, Describe(), e.what());
    }
  }

  int ring_id_;
  std::shared_ptr<gloo::Context> context_;
  // Set when every rank runs on this machine: all-reduce, broadcast, all-gather and barrier
  // go through shared memory, the rest through Gloo.
  std::unique_ptr<SharedMemoryRing> local_;
  uint32_t tag_ = 0;
  bool broken_ = false;
};

class SingleRankCommunicator : public Communicator {
 public:
  explicit SingleRankCommunicator(int ring_id) : ring_id_(ring_id) {}
  ~SingleRankCommunicator() override { StopWorker(); }
  int rank() const override { return 0; }
  int nranks() const override { return 1; }
  int ring_id() const override { return ring_id_; }
  void AllReduce(const void* in, void* out, int64_t count, DataType dtype, ReduceOp op) override {
    HostReduceFunction(dtype, op);  // Refuses what the other communicators refuse.
    if (in != out && count > 0) std::memmove(out, in, count * SizeOf(dtype));
  }
  void Broadcast(void*, int64_t, DataType, int root) override {
    PL_ENFORCE(root == 0, errors::InvalidArgument("broadcast on %s: root %d is not a rank of "
                                                  "the ring",
                                                  Describe(), root));
  }
  void AllGather(const void* in, void* out, int64_t count, DataType dtype) override {
    if (in != out && count > 0) std::memmove(out, in, count * SizeOf(dtype));
  }
  void AllGatherV(const void* in, int64_t count, void* out, const std::vector<int64_t>& counts,
                  DataType dtype) override {
    PL_ENFORCE(counts.size() == 1 && counts[0] == count,
               errors::InvalidArgument("all-gather on %s: expected one count, %lld",
                                       Describe(), static_cast<long long>(count)));
    if (in != out && count > 0) std::memmove(out, in, count * SizeOf(dtype));
  }
  void ReduceScatter(const void* in, void* out, int64_t count, DataType dtype,
                     ReduceOp op) override {
    AllReduce(in, out, count, dtype, op);
  }
  void Barrier() override {}

 private:
  int ring_id_;
};

}  // namespace

std::unique_ptr<Communicator> ConnectGlooCommunicator(int ring_id, int rank, int nranks,
                                                      TcpStoreClient* store,
                                                      const std::string& local_host,
                                                      std::chrono::milliseconds timeout,
                                                      bool shared_memory) {
  std::shared_ptr<gloo::Context> context;
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = local_host;
    std::shared_ptr<gloo::transport::Device> device = gloo::transport::tcp::CreateDevice(attr);
    auto rendezvous = std::make_shared<gloo::rendezvous::Context>(rank, nranks);
    rendezvous->setTimeout(timeout);
    GlooStore gloo_store(store);
    gloo::rendezvous::PrefixStore prefixed("ring" + std::to_string(ring_id), gloo_store);
    rendezvous->connectFullMesh(prefixed, device);
    // No rank returns before every rank is connected: one that returned, finished its work
    // and closed its pairs while a peer was still connecting made that peer's connect fail
    // ("Connection closed by peer"). The tag is one the communicator's own never reach.
    gloo::BarrierOptions connected(rendezvous);
    connected.setTag(std::numeric_limits<uint32_t>::max());
    connected.setTimeout(timeout);
    gloo::barrier(connected);
    context = std::move(rendezvous);
  } catch (const gloo::Exception& e) {
    throw errors::Unavailable("connecting ring %d (rank %d of %d, from %s) failed: %s", ring_id,
                              rank, nranks, local_host, e.what());
  }
  std::unique_ptr<SharedMemoryRing> local;
  if (shared_memory) local = SharedMemoryRing::Connect(ring_id, rank, nranks, store, timeout);
  return std::make_unique<GlooCommunicator>(ring_id, std::move(context), std::move(local));
}

std::unique_ptr<Communicator> MakeSingleRankCommunicator(int ring_id) {
  return std::make_unique<SingleRankCommunicator>(ring_id);
}

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

#include "platform/collective/shared_memory_ring.h"

#include <fcntl.h>
#include <glog/logging.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <new>
#include <random>
#include <sstream>
#include <vector>

#include "platform/collective/host_reduce.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace platform {
namespace collective {

namespace {

constexpr uint64_t kMagic = 0x706c2d73686d7232ull;  // "pl-shmr2"
constexpr size_t kMaxSlotBytes = size_t{1} << 20;
// The segment stays within this, however many ranks (containers often give /dev/shm 64 MiB).
constexpr size_t kMaxSlotsBytes = size_t{32} << 20;
constexpr size_t kMinSlotBytes = size_t{64} << 10;
// How long a rank spins before it sleeps on the meeting counter: long enough to catch a
// peer that is a few microseconds behind, short enough not to take a shared core's time.
constexpr auto kSpin = std::chrono::microseconds(30);
// How often a sleeping rank wakes to check the clock and its peers.
constexpr auto kCheckEvery = std::chrono::milliseconds(20);
// The block through which a rank of more than two sums its share of a shared buffer.
constexpr size_t kReduceBlockBytes = size_t{16} << 10;

struct alignas(64) RankEntry {
  std::atomic<uint32_t> phase;     // Meetings this rank has arrived at.
  std::atomic<uint32_t> departed;  // 1 once its communicator is gone.
  int32_t pid;
  // SharedBuffer: 1 when this rank holds its own segment and has mapped every peer's.
  std::atomic<int32_t> mapped;
  // What the rank runs at its meetings of each parity (a peer is at most one meeting
  // ahead): ranks that run different collectives fail instead of misreading each other.
  std::atomic<uint64_t> kind[2];
  std::atomic<uint64_t> count[2];
  std::atomic<uint64_t> offset[2];  // The byte offset in a shared buffer.
};

bool Reached(uint32_t value, uint32_t target) { return static_cast<int32_t>(value - target) >= 0; }

long Futex(std::atomic<uint32_t>* word, int op, uint32_t value, const timespec* timeout) {
  // Not FUTEX_PRIVATE_FLAG: the word is shared between processes.
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), op, value, timeout, nullptr, 0);
}

// What a meeting is for: the collective (low byte) with its dtype, reduction and shared
// buffer, and the element count; every rank of a meeting must give the same.
enum Collective : uint64_t {
  kAllReduce = 1,
  kBroadcast = 2,
  kAllGather = 3,
  kBarrier = 4,
  kSharedBufferSetUp = 5,
  kSharedBufferAllReduce = 6,
};

uint64_t KindOf(Collective c, DataType dtype = DataType::FLOAT32, ReduceOp op = ReduceOp::kSum,
                uint32_t buffer = 0) {
  return static_cast<uint64_t>(c) | static_cast<uint64_t>(dtype) << 8 |
         static_cast<uint64_t>(op) << 16 | static_cast<uint64_t>(buffer) << 32;
}

std::string DescribeKind(uint64_t kind, uint64_t count, uint64_t offset) {
  static const char* const kNames[] = {"?",
                                       "all-reduce",
                                       "broadcast",
                                       "all-gather",
                                       "barrier",
                                       "shared buffer set-up",
                                       "all-reduce of a shared buffer"};
  const uint64_t c = kind & 0xff;
  std::ostringstream os;
  os << (c < sizeof(kNames) / sizeof(kNames[0]) ? kNames[c] : "?");
  if (c == kAllReduce || c == kSharedBufferAllReduce) {
    os << " (" << DataTypeName(static_cast<DataType>((kind >> 8) & 0xff)) << ", "
       << ReduceOpName(static_cast<ReduceOp>((kind >> 16) & 0xff));
    if (c == kSharedBufferAllReduce) os << ", buffer #" << (kind >> 32) << " at byte " << offset;
    os << ")";
  }
  if (c != kBarrier) os << " of " << count << (c == kSharedBufferSetUp ? " bytes" : " elements");
  return os.str();
}

void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

std::string ReadFirstLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  return line;
}

std::string ReadLink(const char* path) {
  char buf[256];
  const ssize_t n = readlink(path, buf, sizeof(buf));
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

// What two processes must share to reach one segment by name and to check each other's
// process ids: the machine (host name and boot) and the IPC, mount and pid namespaces. Empty
// when any part cannot be read (then no shared memory is used).
std::string MachineIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) return "";
  const std::string parts[] = {host, ReadFirstLine("/proc/sys/kernel/random/boot_id"),
                               ReadLink("/proc/self/ns/ipc"), ReadLink("/proc/self/ns/mnt"),
                               ReadLink("/proc/self/ns/pid")};
  std::string identity;
  for (const std::string& p : parts) {
    if (p.empty()) return "";
    identity += p + "|";
  }
  return identity;
}

size_t AlignUp(size_t n, size_t a) { return (n + a - 1) / a * a; }

size_t SlotBytesFor(int nranks) {
  const size_t fit = kMaxSlotsBytes / (2 * static_cast<size_t>(nranks)) / 4096 * 4096;
  return std::max(kMinSlotBytes, std::min(kMaxSlotBytes, fit));
}

}  // namespace

struct SharedMemoryRing::Header {
  uint64_t magic;
  uint64_t token;
  int32_t nranks;
  uint64_t slot_bytes;
  alignas(64) std::atomic<uint32_t> arrivals;  // Every rank's arrivals at every meeting.
  alignas(64) std::atomic<uint32_t> waiters;   // Ranks sleeping on `arrivals`.
};
static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "the meeting counters are futex words shared between processes");

namespace {

// The header's fields fit in the first 256 bytes; the ranks' entries follow.
constexpr size_t RanksOffset() { return 256; }
size_t SlotsOffset(int nranks) {
  return AlignUp(RanksOffset() + sizeof(RankEntry) * static_cast<size_t>(nranks), 4096);
}
size_t SegmentBytes(int nranks, size_t slot_bytes) {
  return SlotsOffset(nranks) + 2 * static_cast<size_t>(nranks) * slot_bytes;
}
RankEntry* Ranks(void* base) {
  return reinterpret_cast<RankEntry*>(static_cast<char*>(base) + RanksOffset());
}

// Creates and maps the segment (rank 0); nullptr, with `why` set, when the machine refuses.
void* CreateSegment(const std::string& name, size_t bytes, std::string* why) {
  const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    *why = std::string("shm_open: ") + std::strerror(errno);
    return nullptr;
  }
  // Reserve the pages now: a full /dev/shm must fail here, not fault on first touch.
  const int err = ftruncate(fd, static_cast<off_t>(bytes)) != 0
                      ? errno
                      : posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  void* base =
      err == 0 ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (err != 0 || base == MAP_FAILED) {
    *why = std::string("reserving the segment: ") + std::strerror(err != 0 ? err : errno);
    close(fd);
    shm_unlink(name.c_str());
    return nullptr;
  }
  close(fd);
  return base;
}

void* OpenSegment(const std::string& name, size_t bytes) {
  const int fd = shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) return nullptr;
  struct stat st;
  void* base = MAP_FAILED;
  if (fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) == bytes) {
    base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  close(fd);
  return base == MAP_FAILED ? nullptr : base;
}

}  // namespace

std::unique_ptr<SharedMemoryRing> SharedMemoryRing::Connect(int ring_id, int rank, int nranks,
                                                            TcpStoreClient* store,
                                                            std::chrono::milliseconds timeout) {
  static_assert(sizeof(Header) <= RanksOffset(), "the header outgrew its room");
  if (nranks < 2) return nullptr;
  const std::string prefix = "shm-ring" + std::to_string(ring_id) + "/";
  const std::string identity = MachineIdentity();
  store->Set(prefix + "machine/" + std::to_string(rank), identity);
  bool one_machine = !identity.empty();
  for (int q = 0; q < nranks; ++q) {
    // Every rank reads every value, so all reach the same answer.
    if (store->Get(prefix + "machine/" + std::to_string(q)) != identity) one_machine = false;
  }
  if (!one_machine) return nullptr;

  const size_t slot_bytes = SlotBytesFor(nranks);
  const size_t bytes = SegmentBytes(nranks, slot_bytes);
  std::string name;
  uint64_t token = 0;
  void* base = nullptr;
  if (rank == 0) {
    std::random_device entropy;
    token = (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
    std::ostringstream n;
    n << "/paddle_like-" << getpid() << "-ring" << ring_id << "-" << std::hex << token;
    name = n.str();
    std::string why;
    base = CreateSegment(name, bytes, &why);
    if (base == nullptr) {
      LOG(WARNING) << "ring " << ring_id << ": no shared memory segment of " << bytes << " bytes ("
                   << why << "); its collectives go over TCP";
    }
    if (base != nullptr) {
      std::memset(base, 0, SlotsOffset(nranks));
      Header* h = new (base) Header();
      h->magic = kMagic;
      h->token = token;
      h->nranks = nranks;
      h->slot_bytes = slot_bytes;
      for (int q = 0; q < nranks; ++q) new (&Ranks(base)[q]) RankEntry();
    }
    std::ostringstream published;
    published << (base != nullptr ? name : "-") << " " << token;
    store->Set(prefix + "segment", published.str());
  } else {
    std::istringstream published(store->Get(prefix + "segment"));
    published >> name >> token;
    if (name != "-") {
      base = OpenSegment(name, bytes);
      const Header* h = static_cast<const Header*>(base);
      if (base != nullptr && (h->magic != kMagic || h->token != token || h->nranks != nranks ||
                              h->slot_bytes != slot_bytes)) {
        munmap(base, bytes);
        base = nullptr;
      }
    }
  }
  if (base != nullptr) Ranks(base)[rank].pid = static_cast<int32_t>(getpid());
  store->Set(prefix + "mapped/" + std::to_string(rank), base != nullptr ? "1" : "0");
  bool all_mapped = true;
  for (int q = 0; q < nranks; ++q) {
    if (store->Get(prefix + "mapped/" + std::to_string(q)) != "1") all_mapped = false;
  }
  if (rank == 0 && base != nullptr) shm_unlink(name.c_str());  // Every rank holds it now.
  if (!all_mapped) {
    if (base != nullptr) munmap(base, bytes);
    return nullptr;
  }
  return std::unique_ptr<SharedMemoryRing>(
      new SharedMemoryRing(rank, nranks, base, bytes, timeout));
}

// The shared buffers this rank holds, each with the peers' segments of the same buffer
// mapped beside it. Shared with the buffers' allocations, whose deleters take their entries
// out (and may run after the ring has gone).
struct SharedMemoryRing::SharedBufferEntry {
  uint32_t id;
  size_t bytes;
  std::vector<char*> bases;  // Rank q's segment of this buffer, this rank's own included.
};

struct SharedMemoryRing::SharedBuffers {
  std::mutex mu;
  std::vector<SharedBufferEntry> entries;
  bool ring_gone = false;  // Then the peers' segments are unmapped already.
};

SharedMemoryRing::SharedMemoryRing(int rank, int nranks, void* base, size_t bytes,
                                   std::chrono::milliseconds timeout)
    : rank_(rank),
      nranks_(nranks),
      header_(static_cast<Header*>(base)),
      bytes_(bytes),
      slot_bytes_(header_->slot_bytes),
      slots_(static_cast<char*>(base) + SlotsOffset(nranks)),
      timeout_(timeout),
      shared_buffers_(std::make_shared<SharedBuffers>()) {}

SharedMemoryRing::~SharedMemoryRing() {
  // Peers waiting for this rank learn that it will not come.
  Ranks(header_)[rank_].departed.store(1, std::memory_order_release);
  Futex(&header_->arrivals, FUTEX_WAKE, INT_MAX, nullptr);
  munmap(header_, bytes_);
  // The peers' segments go with the ring; this rank's own go with their allocations.
  std::lock_guard<std::mutex> lock(shared_buffers_->mu);
  for (SharedBufferEntry& e : shared_buffers_->entries) {
    for (int q = 0; q < nranks_; ++q) {
      if (q != rank_) munmap(e.bases[static_cast<size_t>(q)], e.bytes);
    }
  }
  shared_buffers_->ring_gone = true;
}

char* SharedMemoryRing::Slot(uint64_t chunk, int rank) const {
  const size_t set = static_cast<size_t>(chunk & 1);
  return slots_ + (set * static_cast<size_t>(nranks_) + static_cast<size_t>(rank)) * slot_bytes_;
}

void SharedMemoryRing::Meet(const char* what, const std::string& where, uint64_t kind,
                            uint64_t count, uint64_t offset) {
  const uint32_t phase = ++phase_;
  const uint32_t target = phase * static_cast<uint32_t>(nranks_);
  RankEntry& self = Ranks(header_)[rank_];
  self.kind[phase & 1].store(kind, std::memory_order_relaxed);
  self.count[phase & 1].store(count, std::memory_order_relaxed);
  self.offset[phase & 1].store(offset, std::memory_order_relaxed);
  self.phase.store(phase, std::memory_order_release);
  const uint32_t arrived = header_->arrivals.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (arrived == target) {
    // The last to arrive: wake whoever sleeps.
    if (header_->waiters.load() > 0) Futex(&header_->arrivals, FUTEX_WAKE, INT_MAX, nullptr);
  } else {
    Wait(what, where, phase, target);
  }
  for (int q = 0; q < nranks_; ++q) {
    const RankEntry& peer = Ranks(header_)[q];
    const uint64_t peer_kind = peer.kind[phase & 1].load(std::memory_order_relaxed);
    const uint64_t peer_count = peer.count[phase & 1].load(std::memory_order_relaxed);
    const uint64_t peer_offset = peer.offset[phase & 1].load(std::memory_order_relaxed);
    if (peer_kind != kind || peer_count != count || peer_offset != offset) {
      FailWaiting(what, where, phase,
                  "the ranks run different collectives: rank " + std::to_string(q) + " runs " +
                      DescribeKind(peer_kind, peer_count, peer_offset) + ", rank " +
                      std::to_string(rank_) + " " + DescribeKind(kind, count, offset));
    }
  }
}

void SharedMemoryRing::Wait(const char* what, const std::string& where, uint32_t phase,
                            uint32_t target) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  for (int i = 0;; ++i) {
    if (Reached(header_->arrivals.load(std::memory_order_acquire), target)) return;
    CpuRelax();
    if ((i & 63) == 63 && Clock::now() - start > kSpin) break;
  }
  const Clock::time_point deadline = start + timeout_;
  const timespec slice = {0, std::chrono::nanoseconds(kCheckEvery).count()};
  for (;;) {
    header_->waiters.fetch_add(1);
    const uint32_t seen = header_->arrivals.load();
    if (!Reached(seen, target)) Futex(&header_->arrivals, FUTEX_WAIT, seen, &slice);
    header_->waiters.fetch_sub(1);
    if (Reached(header_->arrivals.load(std::memory_order_acquire), target)) return;
    for (int q = 0; q < nranks_; ++q) {
      const RankEntry& peer = Ranks(header_)[q];
      if (Reached(peer.phase.load(), phase)) continue;
      if (peer.departed.load() != 0) {
        FailWaiting(what, where, phase,
                    "rank " + std::to_string(q) + " left the ring (its communicator is gone)");
      }
      if (kill(peer.pid, 0) != 0 && errno == ESRCH) {
        FailWaiting(
            what, where, phase,
            "rank " + std::to_string(q) + " (process " + std::to_string(peer.pid) + ") has exited");
      }
    }
    if (Clock::now() > deadline) {
      std::string missing;
      for (int q = 0; q < nranks_; ++q) {
        if (Reached(Ranks(header_)[q].phase.load(), phase)) continue;
        missing += (missing.empty() ? "" : ", ") + std::to_string(q);
      }
      FailWaiting(
          what, where, phase,
          "rank " + missing + " did not arrive within " + std::to_string(timeout_.count()) + " ms");
    }
  }
}

void SharedMemoryRing::FailWaiting(const char* what, const std::string& where, uint32_t phase,
                                   const std::string& reason) {
  throw errors::Unavailable(
      "%s on %s failed: %s, waiting at meeting %u in shared memory "
      "(FLAGS_collective_timeout_s bounds the wait)",
      what, where, reason, phase);
}

void SharedMemoryRing::AllReduce(const void* in, void* out, int64_t count, DataType dtype,
                                 ReduceOp op, const std::string& where) {
  const HostReduceFn reduce = HostReduceFunction(dtype, op);
  const size_t element = SizeOf(dtype);
  if (in == out) {
    SharedBufferEntry buffer;
    size_t offset = 0;
    if (FindSharedBuffer(in, static_cast<size_t>(count) * element, &buffer, &offset)) {
      return AllReduceShared(buffer, offset, count, dtype, op, where);
    }
  }
  const int64_t per_chunk = static_cast<int64_t>(slot_bytes_ / element);
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(out);
  for (int64_t offset = 0; offset < count; offset += per_chunk) {
    const size_t n = static_cast<size_t>(std::min(per_chunk, count - offset));
    const size_t at = static_cast<size_t>(offset) * element;
    const uint64_t chunk = chunk_++;
    std::memcpy(Slot(chunk, rank_), src + at, n * element);
    Meet("all-reduce", where, KindOf(kAllReduce, dtype, op), static_cast<uint64_t>(count));
    // In rank order on every rank: the same bits everywhere.
    reduce(dst + at, Slot(chunk, 0), Slot(chunk, 1), n);
    for (int q = 2; q < nranks_; ++q) reduce(dst + at, dst + at, Slot(chunk, q), n);
  }
}

void SharedMemoryRing::AllReduceShared(const SharedBufferEntry& buffer, size_t offset,
                                       int64_t count, DataType dtype, ReduceOp op,
                                       const std::string& where) {
  const HostReduceFn reduce = HostReduceFunction(dtype, op);
  const size_t element = SizeOf(dtype);
  auto at = [&](int q, int64_t i) {
    return buffer.bases[static_cast<size_t>(q)] + offset + static_cast<size_t>(i) * element;
  };
  // Rank q reduces elements [share(q), share(q + 1)).
  auto share = [&](int q) { return count * q / nranks_; };
  const uint64_t kind = KindOf(kSharedBufferAllReduce, dtype, op, buffer.id);
  const uint64_t n = static_cast<uint64_t>(count);
  Meet("all-reduce", where, kind, n, offset);  // Every rank's buffer holds its data.
  // This rank's share, in rank order (the bits of the staged all-reduce), into its own buffer,
  // whose other shares the peers read meanwhile.
  const int64_t begin = share(rank_), end = share(rank_ + 1);
  if (nranks_ == 2) {
    if (end > begin) reduce(at(rank_, begin), at(0, begin), at(1, begin), end - begin);
  } else {
    // Through a small block, so that this rank's values are read before the sum replaces them.
    const int64_t block = static_cast<int64_t>(kReduceBlockBytes / element);
    scratch_.resize(kReduceBlockBytes);
    for (int64_t i = begin; i < end; i += block) {
      const size_t m = static_cast<size_t>(std::min(block, end - i));
      reduce(scratch_.data(), at(0, i), at(1, i), m);
      for (int q = 2; q < nranks_; ++q) reduce(scratch_.data(), scratch_.data(), at(q, i), m);
      std::memcpy(at(rank_, i), scratch_.data(), m * element);
    }
  }
  Meet("all-reduce", where, kind, n, offset);  // Every share is reduced.
  for (int q = 0; q < nranks_; ++q) {
    const int64_t b = share(q), e = share(q + 1);
    if (q != rank_ && e > b)
      std::memcpy(at(rank_, b), at(q, b), static_cast<size_t>(e - b) * element);
  }
  Meet("all-reduce", where, kind, n, offset);  // No rank reads another's buffer any more.
}

bool SharedMemoryRing::FindSharedBuffer(const void* data, size_t bytes, SharedBufferEntry* buffer,
                                        size_t* offset) const {
  const char* p = static_cast<const char*>(data);
  std::lock_guard<std::mutex> lock(shared_buffers_->mu);
  for (const SharedBufferEntry& e : shared_buffers_->entries) {
    const char* base = e.bases[static_cast<size_t>(rank_)];
    if (p >= base && p < base + e.bytes && bytes <= static_cast<size_t>(base + e.bytes - p)) {
      // Only the all-reduce needs the entry (a copy: a deleter may drop it meanwhile).
      if (buffer != nullptr) *buffer = e;
      if (offset != nullptr) *offset = static_cast<size_t>(p - base);
      return true;
    }
  }
  return false;
}

bool SharedMemoryRing::IsSharedBuffer(const void* data, size_t bytes) const {
  return FindSharedBuffer(data, bytes, nullptr, nullptr);
}

std::shared_ptr<Allocation> SharedMemoryRing::SharedBuffer(size_t bytes, const std::string& where) {
  if (!offers_shared_buffers_ || bytes == 0) return nullptr;
  const uint32_t id = next_shared_buffer_++;
  std::random_device entropy;
  std::ostringstream n;
  n << "/paddle_like-" << getpid() << "-buf" << id << "-" << std::hex
    << ((static_cast<uint64_t>(entropy()) << 32) ^ entropy());
  const std::string name = n.str();
  std::string why;
  char* own = static_cast<char*>(CreateSegment(name, bytes, &why));
  // Each rank's segment name goes through its slot (a name is far shorter than a slot).
  const uint64_t chunk = chunk_++;
  std::snprintf(Slot(chunk, rank_), slot_bytes_, "%s", own != nullptr ? name.c_str() : "");
  const uint64_t kind = KindOf(kSharedBufferSetUp, DataType::UINT8, ReduceOp::kSum, id);
  Meet("shared buffer set-up", where, kind, bytes);
  std::vector<char*> bases(static_cast<size_t>(nranks_), nullptr);
  bases[static_cast<size_t>(rank_)] = own;
  bool mapped = own != nullptr;
  for (int q = 0; q < nranks_; ++q) {
    if (q == rank_) continue;
    const std::string peer_name(Slot(chunk, q), strnlen(Slot(chunk, q), 255));
    if (!peer_name.empty())
      bases[static_cast<size_t>(q)] = static_cast<char*>(OpenSegment(peer_name, bytes));
    if (bases[static_cast<size_t>(q)] == nullptr) mapped = false;
  }
  Ranks(header_)[rank_].mapped.store(mapped ? 1 : 0, std::memory_order_relaxed);
  Meet("shared buffer set-up", where, kind, bytes);  // Every rank has mapped what it could.
  if (own != nullptr) shm_unlink(name.c_str());
  bool all_mapped = true;
  for (int q = 0; q < nranks_; ++q) {
    if (Ranks(header_)[q].mapped.load(std::memory_order_relaxed) != 1) all_mapped = false;
  }
  if (!all_mapped) {
    // Every rank reaches the same answer and keeps to staged all-reduces from now on.
    for (char* base : bases) {
      if (base != nullptr) munmap(base, bytes);
    }
    if (own == nullptr) {
      LOG(WARNING) << where << ": no shared memory segment of " << bytes << " bytes (" << why
                   << "); buffers are all-reduced through the ring's slots";
    }
    offers_shared_buffers_ = false;
    return nullptr;
  }
  std::shared_ptr<SharedBuffers> registry = shared_buffers_;
  {
    std::lock_guard<std::mutex> lock(registry->mu);
    registry->entries.push_back(SharedBufferEntry{id, bytes, bases});
  }
  const int self = rank_;
  return std::make_shared<Allocation>(own, bytes, CPUPlace(), [registry, id, bytes, self](void* p) {
    std::lock_guard<std::mutex> lock(registry->mu);
    auto& entries = registry->entries;
    for (auto it = entries.begin(); it != entries.end(); ++it) {
      if (it->id != id) continue;
      for (size_t q = 0; q < it->bases.size(); ++q) {
        if (static_cast<int>(q) != self && !registry->ring_gone) munmap(it->bases[q], bytes);
      }
      entries.erase(it);
      break;
    }
    munmap(p, bytes);
  });
}

void SharedMemoryRing::Broadcast(void* buffer, int64_t count, DataType dtype, int root,
                                 const std::string& where) {
  const size_t bytes = static_cast<size_t>(count) * SizeOf(dtype);
  char* data = static_cast<char*>(buffer);
  for (size_t at = 0; at < bytes; at += slot_bytes_) {
    const size_t n = std::min(slot_bytes_, bytes - at);
    const uint64_t chunk = chunk_++;
    if (rank_ == root) std::memcpy(Slot(chunk, root), data + at, n);
    Meet("broadcast", where, KindOf(kBroadcast, dtype, ReduceOp::kSum, static_cast<uint32_t>(root)),
         static_cast<uint64_t>(count));
    if (rank_ != root) std::memcpy(data + at, Slot(chunk, root), n);
  }
}

void SharedMemoryRing::AllGather(const void* in, void* out, int64_t count, DataType dtype,
                                 const std::string& where) {
  const size_t bytes = static_cast<size_t>(count) * SizeOf(dtype);
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(out);
  for (size_t at = 0; at < bytes; at += slot_bytes_) {
    const size_t n = std::min(slot_bytes_, bytes - at);
    const uint64_t chunk = chunk_++;
    std::memcpy(Slot(chunk, rank_), src + at, n);
    Meet("all-gather", where, KindOf(kAllGather, dtype), static_cast<uint64_t>(count));
    for (int q = 0; q < nranks_; ++q) {
      std::memcpy(dst + static_cast<size_t>(q) * bytes + at, Slot(chunk, q), n);
    }
  }
}

void SharedMemoryRing::Barrier(const std::string& where) {
  Meet("barrier", where, KindOf(kBarrier), 0);
}

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

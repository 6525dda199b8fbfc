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
#include <cstring>
#include <fstream>
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

constexpr uint64_t kMagic = 0x706c2d73686d7231ull;  // "pl-shmr1"
constexpr size_t kMaxSlotBytes = size_t{1} << 20;
// The segment stays within this, however many ranks (containers often give /dev/shm 64 MiB).
constexpr size_t kMaxSlotsBytes = size_t{32} << 20;
constexpr size_t kMinSlotBytes = size_t{64} << 10;
// How long a rank spins before it sleeps on the meeting counter: long enough to catch a
// peer that is a few microseconds behind, short enough not to take a shared core's time.
constexpr auto kSpin = std::chrono::microseconds(30);
// How often a sleeping rank wakes to check the clock and its peers.
constexpr auto kCheckEvery = std::chrono::milliseconds(20);

struct alignas(64) RankEntry {
  std::atomic<uint32_t> phase;     // Meetings this rank has arrived at.
  std::atomic<uint32_t> departed;  // 1 once its communicator is gone.
  int32_t pid;
};

bool Reached(uint32_t value, uint32_t target) { return static_cast<int32_t>(value - target) >= 0; }

long Futex(std::atomic<uint32_t>* word, int op, uint32_t value, const timespec* timeout) {
  // Not FUTEX_PRIVATE_FLAG: the word is shared between processes.
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), op, value, timeout, nullptr, 0);
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

SharedMemoryRing::SharedMemoryRing(int rank, int nranks, void* base, size_t bytes,
                                   std::chrono::milliseconds timeout)
    : rank_(rank),
      nranks_(nranks),
      header_(static_cast<Header*>(base)),
      bytes_(bytes),
      slot_bytes_(header_->slot_bytes),
      slots_(static_cast<char*>(base) + SlotsOffset(nranks)),
      timeout_(timeout) {}

SharedMemoryRing::~SharedMemoryRing() {
  // Peers waiting for this rank learn that it will not come.
  Ranks(header_)[rank_].departed.store(1, std::memory_order_release);
  Futex(&header_->arrivals, FUTEX_WAKE, INT_MAX, nullptr);
  munmap(header_, bytes_);
}

char* SharedMemoryRing::Slot(uint64_t chunk, int rank) const {
  const size_t set = static_cast<size_t>(chunk & 1);
  return slots_ + (set * static_cast<size_t>(nranks_) + static_cast<size_t>(rank)) * slot_bytes_;
}

void SharedMemoryRing::Meet(const char* what, const std::string& where) {
  const uint32_t phase = ++phase_;
  const uint32_t target = phase * static_cast<uint32_t>(nranks_);
  Ranks(header_)[rank_].phase.store(phase, std::memory_order_release);
  const uint32_t arrived = header_->arrivals.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (arrived == target) {
    // The last to arrive: wake whoever sleeps.
    if (header_->waiters.load() > 0) Futex(&header_->arrivals, FUTEX_WAKE, INT_MAX, nullptr);
    return;
  }
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
  const int64_t per_chunk = static_cast<int64_t>(slot_bytes_ / element);
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(out);
  for (int64_t offset = 0; offset < count; offset += per_chunk) {
    const size_t n = static_cast<size_t>(std::min(per_chunk, count - offset));
    const size_t at = static_cast<size_t>(offset) * element;
    const uint64_t chunk = chunk_++;
    std::memcpy(Slot(chunk, rank_), src + at, n * element);
    Meet("all-reduce", where);
    // In rank order on every rank: the same bits everywhere.
    reduce(dst + at, Slot(chunk, 0), Slot(chunk, 1), n);
    for (int q = 2; q < nranks_; ++q) reduce(dst + at, dst + at, Slot(chunk, q), n);
  }
}

void SharedMemoryRing::Broadcast(void* buffer, int64_t count, DataType dtype, int root,
                                 const std::string& where) {
  const size_t bytes = static_cast<size_t>(count) * SizeOf(dtype);
  char* data = static_cast<char*>(buffer);
  for (size_t at = 0; at < bytes; at += slot_bytes_) {
    const size_t n = std::min(slot_bytes_, bytes - at);
    const uint64_t chunk = chunk_++;
    if (rank_ == root) std::memcpy(Slot(chunk, root), data + at, n);
    Meet("broadcast", where);
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
    Meet("all-gather", where);
    for (int q = 0; q < nranks_; ++q) {
      std::memcpy(dst + static_cast<size_t>(q) * bytes + at, Slot(chunk, q), n);
    }
  }
}

void SharedMemoryRing::Barrier(const std::string& where) { Meet("barrier", where); }

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

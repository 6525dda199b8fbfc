#include "platform/file_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <new>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "platform/errors.h"

namespace paddle_like {
namespace platform {

namespace {
// Reads up to `cap` + 1 bytes from `fd` into `out`; the extra byte tells that there was more.
void ReadAtMost(int fd, const std::string& path, size_t cap, std::string* out) {
  constexpr size_t kChunk = size_t{1} << 20;
  size_t have = out->size();
  while (have <= cap) {
    const size_t room = cap - have;  // have <= cap here; room + 1 may not fit for SIZE_MAX.
    const size_t want = room >= kChunk ? kChunk : room + 1;
    out->resize(have + want);
    const ssize_t n = ::read(fd, &(*out)[have], want);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string reason = std::strerror(errno);
      throw errors::Unavailable("error while reading file `%s`: %s", path, reason);
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  out->resize(have);
}
}  // namespace

std::string ReadFile(const std::string& path, const ReadLimit& limit) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw errors::NotFound("cannot open %s `%s`: %s", limit.what, path, std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    throw errors::Unavailable("cannot read %s `%s`: %s", limit.what, path, std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    throw errors::NotFound("cannot read %s `%s`: it is a directory, expected a file", limit.what,
                           path);
  }
  const bool regular = S_ISREG(st.st_mode);
  const size_t cap = regular ? limit.max_bytes : std::min(limit.max_bytes, kMaxStreamBytes);
  if (regular && static_cast<uint64_t>(st.st_size) > cap) {
    throw errors::InvalidArgument("%s `%s` has %llu bytes, more than the limit of %zu bytes",
                                  limit.what, path, static_cast<unsigned long long>(st.st_size),
                                  cap);
  }
  std::string bytes;
  try {
    // A regular file is read by its size (plus one byte, to see it did not grow); anything
    // else until it ends or passes the cap.
    if (regular) bytes.reserve(static_cast<size_t>(st.st_size) + 1);
    ReadAtMost(fd, path, cap, &bytes);
  } catch (const std::bad_alloc&) {
    throw errors::Unavailable("out of memory while reading %s `%s` (%llu bytes)", limit.what,
                              path, static_cast<unsigned long long>(regular ? st.st_size : 0));
  }
  if (bytes.size() > cap) {
    throw errors::InvalidArgument("%s `%s` holds more than the limit of %zu bytes%s", limit.what,
                                  path, cap,
                                  regular ? "" : " for a file that is not a regular file (a device "
                                                 "or a pipe)");
  }
  return bytes;
}

namespace {

// `<path>.tmp.<pid>.<n>`: unique per process and per call, so threads (and processes)
// writing the same file never share a temporary.
std::string TempPathFor(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}

// Removes the temporaries of `path` left by writers that were killed (their process is
// gone): each killed save would otherwise leave one behind for good.
void RemoveStaleTemps(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const std::string prefix =
      (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp.";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      ::unlink((dir + (slash == std::string::npos ? "/" : "") + name).c_str());
    }
  }
  ::closedir(d);
}

// Makes a rename in `path`'s directory durable (best effort: some file systems refuse).
void SyncDirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void WriteFileAtomically(const std::string& path, const std::string& bytes) {
  RemoveStaleTemps(path);
  const std::string tmp = TempPathFor(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    throw errors::Unavailable("cannot write file `%s`: %s", path, std::strerror(errno));
  }
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string reason = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw errors::Unavailable("cannot write file `%s`: %s", path, reason);
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw errors::Unavailable("cannot flush file `%s`: %s", path, reason);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw errors::Unavailable("cannot rename `%s` to `%s`: %s", tmp, path, reason);
  }
  SyncDirectoryOf(path);
}

}  // namespace platform
}  // namespace paddle_like

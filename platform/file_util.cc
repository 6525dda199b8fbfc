#include "platform/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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

void WriteFileAtomically(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
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
}

}  // namespace platform
}  // namespace paddle_like

#include "platform/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "platform/errors.h"

namespace paddle_like {
namespace platform {

std::string ReadFile(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw errors::NotFound("cannot read `%s`: it is a directory, expected a file", path);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw errors::NotFound("cannot open file `%s`: %s", path, std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw errors::Unavailable("error while reading file `%s`", path);
  return ss.str();
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

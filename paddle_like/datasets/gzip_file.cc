#include "paddle_like/datasets/gzip_file.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "platform/enforce.h"

namespace paddle_like {
namespace datasets {

std::string ReadMaybeGzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int err = errno;
    if (err == ENOENT) throw errors::NotFound("dataset file `%s` does not exist", path);
    throw errors::InvalidArgument("dataset file `%s` cannot be opened: %s", path,
                                  std::string(std::strerror(err)));
  }
  gzbuffer(f, 1 << 17);
  std::string bytes;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) bytes.append(buf, static_cast<size_t>(n));
  std::string error;
  if (n < 0) {
    int code = 0;
    error = gzerror(f, &code);
  }
  gzclose(f);
  PL_ENFORCE(n == 0, errors::InvalidArgument("dataset file `%s`: read error after %zu bytes: %s",
                                             path, bytes.size(), error));
  return bytes;
}

}  // namespace datasets
}  // namespace paddle_like

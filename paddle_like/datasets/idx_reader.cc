#include "paddle_like/datasets/idx_reader.h"

#include <cstdint>

#include "paddle_like/datasets/gzip_file.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace datasets {

namespace {

uint32_t BigEndian32(const std::string& bytes, size_t offset) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data()) + offset;
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | static_cast<uint32_t>(p[3]);
}

// Reads `path`, checks its magic number and that the file holds exactly the header of
// `header_words` uint32 words plus the product of the dims the header gives. Returns the
// bytes; `dims` receives the header's dims (after the magic number).
std::string ReadIdx(const std::string& path, uint32_t magic, size_t header_words, const char* what,
                    std::vector<int64_t>* dims) {
  std::string bytes = ReadMaybeGzip(path);
  const size_t header = header_words * 4;
  PL_ENFORCE(bytes.size() >= 4,
             errors::InvalidArgument("idx file `%s`: truncated header: %zu bytes, an idx %s "
                                     "header has %zu",
                                     path, bytes.size(), what, header));
  const uint32_t found = BigEndian32(bytes, 0);
  PL_ENFORCE(found == magic,
             errors::InvalidArgument("idx file `%s`: bad magic number 0x%08x, expected 0x%08x "
                                     "(%s)",
                                     path, found, magic, what));
  PL_ENFORCE(bytes.size() >= header,
             errors::InvalidArgument("idx file `%s`: truncated header: %zu bytes, an idx %s "
                                     "header has %zu",
                                     path, bytes.size(), what, header));
  // The data size, saturated at UINT64_MAX (three uint32 dims can exceed 64 bits).
  uint64_t payload = 1;
  std::string shape;
  dims->clear();
  for (size_t w = 1; w < header_words; ++w) {
    const uint32_t d = BigEndian32(bytes, w * 4);
    dims->push_back(d);
    shape += (w > 1 ? ", " : "") + std::to_string(d);
    payload = d != 0 && payload > UINT64_MAX / d ? UINT64_MAX : payload * d;
  }
  const size_t data = bytes.size() - header;
  PL_ENFORCE(
      data >= payload,
      errors::InvalidArgument("idx file `%s`: truncated: the header announces %s shaped "
                              "[%s], %llu bytes, the file holds %zu bytes of data",
                              path, what, shape, static_cast<unsigned long long>(payload), data));
  PL_ENFORCE(data == payload,
             errors::InvalidArgument("idx file `%s`: %zu bytes after the %llu bytes of %s shaped "
                                     "[%s] that the header announces",
                                     path, static_cast<size_t>(data - payload),
                                     static_cast<unsigned long long>(payload), what, shape));
  return bytes;
}

}  // namespace

IdxImages ReadIdxImages(const std::string& path) {
  std::vector<int64_t> dims;
  const std::string bytes = ReadIdx(path, kIdxImagesMagic, 4, "uint8 images", &dims);
  IdxImages images;
  images.count = dims[0];
  images.rows = dims[1];
  images.cols = dims[2];
  images.pixels.assign(bytes.begin() + 16, bytes.end());
  return images;
}

std::vector<uint8_t> ReadIdxLabels(const std::string& path) {
  std::vector<int64_t> dims;
  const std::string bytes = ReadIdx(path, kIdxLabelsMagic, 2, "uint8 labels", &dims);
  return std::vector<uint8_t>(bytes.begin() + 8, bytes.end());
}

}  // namespace datasets
}  // namespace paddle_like

// Whole-file reading for dataset files that may be gzip-compressed.
//
// Stateless and thread-safe.
#pragma once

#include <string>

namespace paddle_like {
namespace datasets {

// Every byte of `path`, inflated when the file is gzip-compressed (other files are read as
// they are). A missing file raises NotFoundError; an unreadable or corrupt one (including a
// truncated gzip stream) raises InvalidArgumentError naming the file.
std::string ReadMaybeGzip(const std::string& path);

}  // namespace datasets
}  // namespace paddle_like

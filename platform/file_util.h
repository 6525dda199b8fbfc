// Whole-file reads and crash-safe writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace paddle_like {
namespace platform {

// What a file is read as, for the limit on its size and the wording of errors.
struct ReadLimit {
  const char* what = "file";     // "program", "parameter file", "npy file" ...
  size_t max_bytes = SIZE_MAX;   // Larger files are refused before they are read.
};
// A protobuf message (a ProgramDesc) cannot exceed 2 GiB - 1 bytes.
constexpr size_t kMaxProgramBytes = (size_t{1} << 31) - 1;
// A file that is not a regular file (a device, a pipe) has no size to check up front; it is
// read up to this many bytes at most (so /dev/zero ends in an error, not in exhausted memory).
constexpr size_t kMaxStreamBytes = size_t{1} << 30;

// Reads all of `path`. NotFoundError if it cannot be opened (or is a directory);
// InvalidArgumentError naming the file and the limit when it holds more than
// `limit.max_bytes` (for a non-regular file, more than min(max_bytes, kMaxStreamBytes));
// UnavailableError on a read error or when memory for the contents runs out.
std::string ReadFile(const std::string& path, const ReadLimit& limit = {});

// Writes `bytes` to `path` so that a crash never leaves a partial file: the data goes to a
// temporary file in the same directory (`<path>.tmp.<pid>.<n>`), is flushed to disk, then
// renamed over `path`, and the directory is flushed so the rename survives a power cut.
// Temporaries of `path` whose writer process is gone (killed mid-save) are removed first.
// UnavailableError (naming the path) on failure; `path` is then untouched.
void WriteFileAtomically(const std::string& path, const std::string& bytes);

}  // namespace platform
}  // namespace paddle_like

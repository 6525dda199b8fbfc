// Whole-file reads and crash-safe writes.
#pragma once

#include <string>

namespace paddle_like {
namespace platform {

// Reads all of `path`. NotFoundError if it cannot be opened, UnavailableError on a read error.
std::string ReadFile(const std::string& path);

// Writes `bytes` to `path` so that a crash never leaves a partial file: the data goes to a
// temporary file in the same directory, is flushed to disk, then renamed over `path`.
// UnavailableError (naming the path) on failure; `path` is then untouched.
void WriteFileAtomically(const std::string& path, const std::string& bytes);

}  // namespace platform
}  // namespace paddle_like

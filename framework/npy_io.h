// NumPy `.npy` files: the way tensors enter and leave the `paddle_like` command-line tool.
//
// Reads format versions 1.0, 2.0 and 3.0; writes 1.0 (2.0 only when the header needs it).
// Element types: float16, float32, float64, int8, int16, int32, int64, uint8 and bool, stored
// little-endian ('<') or byte-order free ('|'), in C order. Anything else (big-endian data,
// Fortran order, complex or object arrays) is an InvalidArgumentError naming the file.
#pragma once

#include <string>

#include "framework/dense_tensor.h"

namespace paddle_like {
namespace framework {

// Parses `.npy` bytes; `source` names the file in error messages. Returns a CPU tensor.
DenseTensor ParseNpy(const std::string& bytes, const std::string& source);
// Serialises `tensor` (any place) as `.npy` bytes.
std::string SerializeNpy(const DenseTensor& tensor);

// ReadFile + ParseNpy: NotFoundError if `path` cannot be opened.
DenseTensor ReadNpy(const std::string& path);
// Writes through a temporary file and a rename (platform::WriteFileAtomically).
void WriteNpy(const std::string& path, const DenseTensor& tensor);

}  // namespace framework
}  // namespace paddle_like

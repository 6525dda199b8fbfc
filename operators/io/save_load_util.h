// Helpers of the save/load ops: fp16 conversion and crash-safe file writes.
// The record format itself lives in framework/tensor_io.h.
#pragma once

#include <string>

#include "framework/dense_tensor.h"
#include "platform/errors.h"

namespace paddle_like {
namespace operators {

// The tensor to write: a CPU tensor, converted to float16 when `as_fp16` is set and it holds
// float32 or float64 (integer and bool tensors are written as they are). LoD is kept.
framework::DenseTensor TensorForSave(const framework::DenseTensor& t, bool as_fp16);

// A loaded CPU tensor converted to float16 when `as_fp16` is set and it holds float32 or
// float64.
framework::DenseTensor TensorAfterLoad(framework::DenseTensor t, bool as_fp16);

// Writes `bytes` to `path` through platform::WriteFileAtomically (temporary file, fsync,
// rename), creating missing parent directories first. AlreadyExistsError when `path`
// exists and `overwrite` is false; UnavailableError when a directory cannot be created or
// the write fails (the old file is then untouched). Messages start with `context`.
void WriteTensorFile(const std::string& path, bool overwrite, const std::string& bytes,
                     const std::string& context);

}  // namespace operators
}  // namespace paddle_like

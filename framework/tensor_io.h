// PaddlePaddle's tensor record format (FORMATS.md section 2): one record per tensor, as
// written by the `save` op (one file per variable) and back-to-back by `save_combine`
// (`.pdiparams`, `__params__`).
#pragma once

#include <string>
#include <vector>

#include "framework/dense_tensor.h"

namespace paddle_like {
namespace framework {

class Scope;

// Appends the record of `tensor` (a CPU tensor) to `out`.
void AppendTensorRecord(const DenseTensor& tensor, std::string* out);

// Reads one record from `bytes` starting at `*offset`, advancing it. InvalidArgumentError
// naming `source` and the byte offset for a bad version, a truncated record or an unknown
// data type.
DenseTensor ReadTensorRecord(const std::string& bytes, size_t* offset, const std::string& source);

// Loads the variables `names` (in that order) from a combined parameter file into `scope`;
// the file must end exactly after the last record.
void LoadCombinedParams(const std::string& path, const std::vector<std::string>& names,
                        Scope* scope);
// The same from the file's bytes; `path` names them in messages.
void LoadCombinedParamsFromBytes(const std::string& bytes, const std::string& path,
                                 const std::vector<std::string>& names, Scope* scope);
// Loads each variable of `names` from `dir/<name>`.
void LoadSeparateParams(const std::string& dir, const std::vector<std::string>& names,
                        Scope* scope);
// Writes the variables `names` (sorted by the caller) of `scope` to one file, atomically.
void SaveCombinedParams(const std::string& path, const std::vector<std::string>& names,
                        const Scope& scope);

}  // namespace framework
}  // namespace paddle_like

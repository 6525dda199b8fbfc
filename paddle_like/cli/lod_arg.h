// The LoD suffix of a feed argument: `FILE.npy@0,4,9` feeds FILE.npy with the level-1 LoD
// (sequence offsets) 0, 4, 9; levels of a multi-level LoD are separated by ';'
// (`@0,2;0,3,5`). A suffix that is not a list of offsets stays part of the file name.
#pragma once

#include <string>
#include <utility>

#include "framework/dense_tensor.h"

namespace paddle_like {
namespace cli {

// (argument without the suffix, its LoD); the LoD is empty without a suffix.
// InvalidArgumentError naming `verb` and the argument for an empty level.
std::pair<std::string, framework::LoD> SplitLoDSuffix(const std::string& verb,
                                                      const std::string& arg);

// Attaches `lod` to `t`, the value of feed `name` read from `file`; InvalidArgumentError
// naming both when the LoD does not describe t's rows.
void AttachFeedLoD(const std::string& verb, const std::string& name, const std::string& file,
                   const framework::LoD& lod, framework::DenseTensor* t);

// " lod [[0, 2, 5]]" for a tensor with a LoD, "" otherwise (for printed outputs).
std::string LoDSuffixText(const framework::LoD& lod);

}  // namespace cli
}  // namespace paddle_like

// ProgramDesc: a whole program (blocks of ops and vars), the unit paddle_like runs, trains,
// saves and loads. Reads and writes PaddlePaddle's binary format (`.pdmodel`, `__model__`)
// and protobuf text format.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/block_desc.h"

namespace paddle_like {
namespace framework {

class ProgramDesc {
 public:
  // A program with one empty root block.
  ProgramDesc();
  ProgramDesc(const ProgramDesc& other);  // Deep copy.
  ProgramDesc& operator=(const ProgramDesc& other);
  ProgramDesc(ProgramDesc&& other) noexcept;
  ProgramDesc& operator=(ProgramDesc&& other) noexcept;
  ~ProgramDesc();

  // Parse binary / text protobuf. Throw InvalidArgumentError naming `source` (a file name or
  // "<string>") and what is wrong: unparsable bytes, a missing required field, blocks out of
  // order, a parent block that does not exist.
  static ProgramDesc FromBinary(const std::string& bytes, const std::string& source = "<string>");
  static ProgramDesc FromText(const std::string& text, const std::string& source = "<string>");
  // Text or binary, as the bytes look (what Load does with a file's bytes); a JSON object is
  // taken as a PaddlePaddle 3 PIR program and translated (pir/pir_translation.h).
  static ProgramDesc FromBytes(const std::string& bytes, const std::string& source = "<string>");
  // Reads a file, choosing binary or text format by content. NotFoundError if unreadable.
  static ProgramDesc Load(const std::string& path);

  std::string ToBinary() const;
  std::string ToText() const;
  // Writes binary (or text) to `path` through a temporary file and a rename.
  void Save(const std::string& path, bool as_text = false) const;

  size_t Size() const { return blocks_.size(); }
  BlockDesc& Block(size_t i) const;
  BlockDesc& MutableBlock(size_t i) { return Block(i); }
  BlockDesc* AppendBlock(const BlockDesc& parent);

  // Program version (major*1e6 + minor*1e3 + patch); informational, -1 when absent.
  int64_t Version() const { return version_; }
  void SetVersion(int64_t v) { version_ = v; }
  // Op versions the program was saved with: op type -> version id.
  const std::map<std::string, int>& OpVersions() const { return op_versions_; }
  std::map<std::string, int>* MutableOpVersions() { return &op_versions_; }

  // Feed / fetch targets of block 0, ordered by the ops' `col` attribute.
  std::vector<std::string> FeedTargetNames() const;
  std::vector<std::string> FetchTargetNames() const;

 private:
  void ParseFrom(const void* proto_program, const std::string& source);
  std::vector<std::unique_ptr<BlockDesc>> blocks_;
  int64_t version_ = -1;
  std::map<std::string, int> op_versions_;
};

}  // namespace framework
}  // namespace paddle_like

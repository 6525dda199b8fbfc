// OpSpec: what an op declares about itself: its input and output slots, its attributes with
// types, defaults and constraints, and a doc comment with the math. Serialises to
// PaddlePaddle's OpProto; `paddle_like ops` prints it.
#pragma once

#include <string>
#include <vector>

#include "framework/attribute.h"

namespace paddle_like {
namespace framework {

struct OpSlotSpec {
  std::string name;
  std::string comment;
  bool duplicable = false;    // Takes a list of variables.
  bool dispensable = false;   // May be absent.
  bool intermediate = false;  // Output kept only for the backward pass.
  bool extra = false;         // Framework/runtime-only, not part of the math.
  // Input whose values the op never reads, only its dims, dtype and LoD (e.g. the forward X
  // of elementwise_add_grad). The executor frees such a variable's buffer after its last
  // other use; the op then sees a tensor with metadata and no data.
  bool no_need_buffer = false;
};

struct OpAttrSpec {
  std::string name;
  std::string comment;
  AttrType type = AttrType::INT;
  bool has_default = false;
  Attribute default_value;
  bool extra = false;
  std::string constraint;  // Human-readable, e.g. "in [0, 1]", "one of {max, avg}".
};

struct OpSpec {
  std::string type;
  std::vector<OpSlotSpec> inputs;
  std::vector<OpSlotSpec> outputs;
  std::vector<OpAttrSpec> attrs;
  std::string comment;

  const OpSlotSpec* FindInput(const std::string& name) const;
  // True when input `name` is declared no_need_buffer (false for an unknown slot).
  bool ReadsOnlyMetadata(const std::string& name) const;
  const OpSlotSpec* FindOutput(const std::string& name) const;
  const OpAttrSpec* FindAttr(const std::string& name) const;
  // Serialised proto::OpProto (PaddlePaddle's registry description).
  std::string ToProtoBytes() const;
};

}  // namespace framework
}  // namespace paddle_like

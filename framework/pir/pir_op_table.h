// How each PaddlePaddle PIR op becomes a ProgramDesc op: the table behind
// pir_translation.cc. A PIR op names its operands and results only by position and takes
// what a ProgramDesc op holds as attributes (shapes, axes, scalars) as operands made by
// constant ops, so each entry says, per position, which slot or attribute it fills.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "framework/attribute.h"
#include "framework/pir/pir_json.h"

namespace paddle_like {
namespace framework {
namespace pir {

// Fixes up attributes that no rename expresses (a dtype read from an operand's type, a flag
// implied by an empty list); called after operands and renames are applied.
using AdjustAttributes = void (*)(const std::vector<const ValueType*>& operand_types,
                                  AttributeMap* attrs);

struct OpTranslation {
  std::string pir_name;     // Without the dialect: "conv2d".
  std::string legacy_type;  // "conv2d"
  // One entry per PIR operand:
  //   "Slot"          the operand's tensor goes to input slot Slot;
  //   "Slot*"         the operand is a vector (builtin.combine): its tensors go to Slot;
  //   "@attr"         the operand is made by a constant op: its value becomes attribute attr;
  //   "@attr|Slot"    as "@attr" when constant, else the tensor (or vector) goes to Slot;
  //   "@attr|Slot|ListSlot"  as "@attr|Slot", but a vector of one-element tensors (a shape
  //                   built by builtin.combine) goes to ListSlot;
  //   ""              the operand is not used (an in-place op's overwritten input).
  std::vector<std::string> operands;
  // One entry per PIR result: "Slot", "Slot*" (a vector result) or "" (dropped).
  std::vector<std::string> results;
  std::vector<std::pair<std::string, std::string>> renamed_attrs;  // PIR name -> legacy name.
  AttributeMap fixed_attrs;
  AdjustAttributes adjust = nullptr;
};

// The translation of PIR op `name` (pd_op dialect, without the prefix), or nullptr. An
// in-place variant ("relu_") uses the entry of its out-of-place op.
const OpTranslation* FindOpTranslation(const std::string& name);

// Every entry of the table, ordered by PIR name (for checks of the table against the
// registered ops).
std::vector<const OpTranslation*> AllOpTranslations();

// The list attribute of assign_value / set_value that holds values of `dtype`
// ("fp32_values" ...) and its type; nullptr for a dtype they have no list for.
const char* TypedValuesField(platform::DataType dtype, AttrType* type);

}  // namespace pir
}  // namespace framework
}  // namespace paddle_like

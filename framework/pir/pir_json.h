// The PIR program that PaddlePaddle 3 saves as JSON (`inference.json`, FORMATS.md 3.1), read
// into plain structs: one top-level block of ops whose operands and results are numbered
// values. Only the parts a translation to a ProgramDesc needs are kept: op names with their
// dialect, operand ids, result ids with their tensor types, and attributes as paddle_like
// Attributes; control-flow ops (`pd_op.if`, `pd_op.while`) with the blocks of their regions,
// whose arguments are values too (numbered below zero).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "framework/attribute.h"
#include "platform/data_type.h"

namespace paddle_like {
namespace framework {
namespace pir {

// The type of a value: a dense tensor, a tensor array (`is_array`, with its tensors' dtype), or
// a vector of tensors (what `builtin.combine` makes and `builtin.split` takes apart). `known`
// is false for a type paddle_like does not model (selected rows, sparse tensors): such a value
// can be carried but not declared.
struct ValueType {
  bool known = false;
  bool is_vector = false;
  bool is_array = false;
  platform::DataType dtype = platform::DataType::UNDEFINED;
  std::vector<int64_t> dims;
  int lod_level = 0;
  std::vector<ValueType> elements;  // For a vector.
  std::string name;                 // The type's name in the file, for messages.
};

// An attribute: its value, and whether the file typed it as a data type (then `value` holds
// the platform::DataType number as an int, -1 for "undefined").
struct OpAttribute {
  Attribute value;
  bool is_dtype = false;
};

struct Result {
  int64_t id = 0;  // 0: an absent optional result.
  ValueType type;
};

struct Op;

// A block of a region: its arguments (a while loop's body gets the loop variables) and ops.
struct Block {
  std::vector<Result> args;
  std::vector<Op> ops;
};

struct Region {
  std::vector<Block> blocks;
};

struct Op {
  std::string dialect;            // "builtin", "pd_op", "cf", ...
  std::string name;               // Without the dialect: "conv2d", "combine", "parameter".
  std::vector<int64_t> operands;  // Value ids; 0 for an absent optional operand.
  std::vector<Result> results;
  std::map<std::string, OpAttribute> attrs;
  // Attributes of a kind this reader does not read (a PIR-only kind such as a place, or a
  // damaged one): name -> kind. An op that needs one of them is refused by name.
  std::map<std::string, std::string> unread_attrs;
  std::vector<Region> regions;  // Control flow: the branches of an if, a loop's body.
  // Where the op is, for messages: "op 7", or "op 7, region 0, op 2" inside control flow.
  std::string location;

  std::string FullName() const { return dialect + "." + name; }
};

struct Program {
  int64_t version = 0;
  std::vector<Op> ops;  // The ops of the top-level block, in order.
};

// The newest PIR file version this reader knows (PaddlePaddle 3.3 writes 4).
constexpr int64_t kNewestPirVersion = 4;

// Parses the JSON text of a saved PIR program. InvalidArgumentError naming `source` for
// malformed JSON or a structure that is not a PIR program (naming the op and key at fault);
// UnimplementedError for a version newer than kNewestPirVersion.
Program ParseProgramJson(const std::string& text, const std::string& source);

// "float32" -> FLOAT32 ...; UNDEFINED for PIR's "Undefined(ALL_DTYPE)"; false when unknown.
bool DataTypeFromPirName(const std::string& name, platform::DataType* dtype);

}  // namespace pir
}  // namespace framework
}  // namespace paddle_like

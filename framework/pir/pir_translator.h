// The translator behind pir_translation.h, shared by its two halves: pir_translation.cc
// (values, feeds and fetches, constants, the op table) and pir_control_flow.cc (if, while and
// tensor arrays). Internal to framework/pir.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "framework/attribute.h"
#include "framework/pir/pir_json.h"
#include "framework/pir/pir_op_table.h"
#include "framework/program_desc.h"

namespace paddle_like {
namespace framework {
namespace pir {

// The numbers of an attribute or a constant, whatever their type: what converting to the
// type an op declares starts from.
struct Numbers {
  std::vector<double> reals;
  std::vector<int64_t> ints;  // Valid when `integral`.
  bool integral = true;
  bool list = false;
};

// A value made by a constant op (full, full_int_array, assign_value), up to a size worth
// turning into an attribute.
struct Constant {
  Numbers numbers;
};
constexpr int64_t kMaxConstantElements = 4096;

struct Value {
  std::vector<std::string> names;  // One per tensor: one, or one per element of a vector.
  bool is_vector = false;
  ValueType type;
  std::vector<const Constant*> constants;  // Per tensor; null where not constant.
  bool dropped = false;                    // A result no ProgramDesc op writes.
};

class Translator {
 public:
  Translator(const pir::Program& program, const std::string& source)
      : program_(program), source_(source), block_(&desc_.MutableBlock(0)) {}

  ProgramDesc Run();

  using Handler = void (Translator::*)(const pir::Op&);
  // The PIR ops that no table entry describes: values, feeds, fetches, constants, control
  // flow and tensor arrays.
  static const std::map<std::string, Handler>& Handlers();

 private:
  std::string Where(const pir::Op& op) const;

  // Control-flow ops with a translation; any other op with regions has none.
  static bool IsTranslatedControlFlow(const pir::Op& op);

  struct Missing {
    const pir::Op* first;
    int count;
  };

  // The ops of `ops` and of their regions, at any depth, that have no translation.
  static void CollectMissing(const std::vector<pir::Op>& ops,
                             std::map<std::string, Missing>* missing,
                             std::vector<std::string>* order);

  // One error naming every kind of op the translation lacks (its first place and count), so
  // that a program's whole gap is known at once.
  void CheckEveryOpIsTranslated() const;

  // A fetched value takes the fetch's name, unless it is a feed or a parameter (whose names
  // are their own) or already named by another fetch: then the fetch copies it.
  void NameFetchedValues();

  void DeclareFeedAndFetchVars();

  const Value& Lookup(const pir::Op& op, size_t i);

  // Declares variable `name` of `type` in `block` (the current block when null).
  void Declare(const std::string& name, const ValueType& type, BlockDesc* block = nullptr);

  std::string NameFor(const pir::Op& op, int64_t id) const;

  // Creates the variables of result `r` of `op`; returns their names.
  std::vector<std::string> DefineResult(const pir::Op& op, const pir::Result& r);

  void DropResult(const pir::Result& r);

  const pir::OpAttribute* Attr(const pir::Op& op, const std::string& name, bool required = true);

  // InvalidArgumentError when `op` has attribute `name` in a kind this reader does not read.
  void RefuseUnread(const pir::Op& op, const std::string& name) const;

  void Translate(const pir::Op& op);

  void Parameter(const pir::Op& op);

  void Combine(const pir::Op& op);

  void SplitVector(const pir::Op& op);

  void SliceVector(const pir::Op& op);

  void Data(const pir::Op& op);

  void Fetch(const pir::Op& op);

  // Records `numbers` as the constant value of the single result of `op`.
  void RecordConstant(const pir::Op& op, Numbers numbers);

  // The single tensor result of a constant-making op.
  void RequireOneTensorResult(const pir::Op& op);

  OpDesc* AppendConstantOp(const std::string& type);

  platform::DataType DtypeAttr(const pir::Op& op);

  void Full(const pir::Op& op);

  void FullIntArray(const pir::Op& op);

  void AssignValue(const pir::Op& op);

  // shape64: the ProgramDesc `shape` op writes int32; a cast makes the int64 PIR promises.
  void Shape64(const pir::Op& op);

  void AppendCast(const std::string& x, platform::DataType from, const std::string& out,
                  platform::DataType to);

  // arange: the ProgramDesc `range` takes its dtype from Start, PIR from its `dtype` (with
  // Start, End and Step often float64 constants): operands of another dtype are cast first.
  void Arange(const pir::Op& op);
  // batch_norm without scale or bias (paddle.nn.functional.batch_norm's weight, bias None):
  // ones and zeros shaped like the running mean stand in for them (the ProgramDesc op
  // requires both, as its kernels and the conv + batch_norm folding read them).
  void BatchNorm(const pir::Op& op);
  // The ops PaddlePaddle's oneDNN passes fuse (onednn_op.fused_matmul, ...): one ProgramDesc
  // op of the same name and slots, which ExpandInferenceFusedOps (framework/inference_fused_ops.h)
  // then writes back as the ops it fused.
  void InferenceFusedOp(const pir::Op& op);
  // An in-place op (`increment_`, `add_`, ...) writes its first operand in PIR, which later
  // ops may read under that operand's own value (a loop counter): its translation writes a
  // new variable, copied back into the operand's when another op reads the operand.
  void AliasInPlaceResult(const pir::Op& op);
  void CountReads(const std::vector<pir::Op>& ops, bool in_region);

  // ---- Control flow and tensor arrays ------------------------------------------------------
  //
  // PIR passes values in and out of regions (an if's branches yield its results, a loop's
  // body gets the loop variables as block arguments and yields the next ones); a ProgramDesc
  // sub-block reads and writes variables of the enclosing blocks instead. So an if becomes two
  // conditional_blocks that each write their branch's results, and select_input picks the one
  // that ran (as PaddlePaddle's static `cond` is written); a while becomes a `while` over
  // variables that hold the loop's values, copied in before it and rewritten at the end of
  // each iteration.

  // Appends a copy of `from` into `to` (a tensor, or a tensor array) to the current block.
  void AppendCopy(const std::string& from, const std::string& to);

  const Value& OneTensor(const pir::Op& op, size_t i);

  // The prefix of the names the translation adds around control-flow op `op` ("while_3."
  // for "while_3.cond"): a new number per op, taken before its regions number theirs.
  std::string ControlFlowPrefix(const pir::Op& op);

  // A translated region: its sub-block, and the values its closing cf.yield passes on.
  struct TranslatedRegion {
    BlockDesc* block = nullptr;
    BlockDesc* parent = nullptr;
    const pir::Op* yield = nullptr;
  };

  // Translates region `r` of `op` (one block) into a new sub-block of the current block, with
  // the block's arguments bound to the variables `arg_names`; leaves the sub-block current,
  // for the copies of what it yields. Close it with CloseRegion.
  TranslatedRegion OpenRegion(const pir::Op& op, size_t r,
                              const std::vector<std::string>& arg_names);

  // Translates the ops of `block` but its closing cf.yield, which it returns (null without
  // one); InvalidArgumentError for a yield before the end.
  const pir::Op* TranslateBlockOps(const pir::Block& block);

  // The variables that `t`'s values yield, operand by operand (none without a yield).
  std::vector<const Value*> Yielded(const TranslatedRegion& t);

  // Makes the region's parent block current again; returns the variables of enclosing blocks
  // that the sub-block reads and writes (a nested control-flow op names its own sub-block's in
  // its slots, so the sub-block's own ops tell all).
  std::pair<std::vector<std::string>, std::vector<std::string>> CloseRegion(
      const TranslatedRegion& t);

  // if(cond) -> results: region 0 runs when cond holds, region 1 otherwise; each yields the
  // results.
  void If(const pir::Op& op);

  // while(cond, init...) -> results: the body gets the loop variables as arguments and yields
  // the next condition and the next loop variables; the results are their last values.
  void While(const pir::Op& op);

  void YieldOutsideRegion(const pir::Op& op);

  // The result of an in-place op that writes variable(s) `target`: the same variable(s).
  void Alias(const pir::Op& op, const Value& target);

  // select_input(mask, x0, x1, ...): the candidate the mask names.
  void SelectInput(const pir::Op& op);

  // assign_out_(x, out): copies x into out's variable (what a ProgramDesc's assign to an
  // existing variable was translated to).
  void AssignOut(const pir::Op& op);

  // create_array: a tensor array variable, empty at the start of each run of its block.
  void CreateArray(const pir::Op& op);

  // array_write_(array, x, i): array[i] = x, growing the array; the result is the array.
  void ArrayWrite(const pir::Op& op);

  // slice_array_dense(array, starts): a copy of array[starts[0]].
  void SliceArrayDense(const pir::Op& op);

  // pylayer(inputs) -> results: a layer with a gradient of its own (paddle.autograd.PyLayer).
  // Inference runs its forward region once, so that region's ops join the current block and
  // the results are what it yields.
  void PyLayer(const pir::Op& op);

  // The constant numbers of a value (every tensor of a vector constant), or false.
  static bool ConstantNumbers(const Value& v, Numbers* out);

  static Attribute AsAttribute(const Numbers& n);

  void FromTable(const pir::Op& op, const pir::OpTranslation& t);

  // ProgramDesc slots `...TensorList` (starts, ends, shapes, sections) take one-element
  // tensors, one per value.
  static bool IsScalarList(const std::string& slot);

  // The one-element tensors of operand `i`: a vector's own, or a 1-D tensor of n values split
  // into n (PIR passes an int array computed at run time as either).
  std::vector<std::string> AsScalars(const pir::Op& op, size_t i, const Value& v);

  static std::string JoinDims(const std::vector<int64_t>& dims);

  // Constant ops whose values only became attributes are dropped with their variables.
  void RemoveUnusedConstants();

  const pir::Program& program_;
  const std::string source_;
  ProgramDesc desc_;
  BlockDesc* block_;
  std::map<int64_t, Value> values_;
  // Every op in program order (an op before the ops of its regions) and whether it lies in a
  // region, and for each value the places of the ops that read it: an in-place op's input
  // read by a later op (or by any other op of a loop) must see the op's effect
  // (AliasInPlaceResult).
  std::map<const pir::Op*, std::pair<int, bool>> op_places_;
  std::map<int64_t, std::vector<int>> reads_;
  std::map<int64_t, std::string> preferred_names_;
  std::vector<std::pair<int, std::string>> feeds_;  // (col, variable)
  std::vector<std::unique_ptr<Constant>> constants_;
  std::set<const OpDesc*> constant_ops_;
  int control_flow_count_ = 0;  // Numbers the names that if and while translations add.
};

}  // namespace pir
}  // namespace framework
}  // namespace paddle_like

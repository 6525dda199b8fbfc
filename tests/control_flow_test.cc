// Control flow: while loops (with a counter, a body that never runs, a nested conditional
// block), conditional_block with select_input (both branches, scalar and non-scalar
// conditions), tensor arrays filled in a loop, against results computed here; a variable that
// only a sub-block reads survives its block's memory planning; errors name the op.
#include <gflags/gflags.h>

#include <cmath>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/program_desc.h"
#include "platform/flags.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::BlockDesc;
using framework::BlockIndex;
using framework::OpDesc;
using framework::ProgramDesc;

OpDesc* AddOp(BlockDesc* b, const std::string& type, const framework::VariableNameMap& in,
              const framework::VariableNameMap& out, const AttributeMap& attrs = {}) {
  OpDesc* op = b->AppendOp();
  op->SetType(type);
  for (const auto& kv : in) op->SetInput(kv.first, kv.second);
  for (const auto& kv : out) op->SetOutput(kv.first, kv.second);
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  return op;
}

void Fill(BlockDesc* b, const std::string& out, const std::vector<int64_t>& shape, float value,
          DataType dtype) {
  AddOp(b, "fill_constant", {}, {{"Out", {out}}},
        {{"shape", std::vector<int64_t>(shape)},
         {"value", value},
         {"dtype", static_cast<int>(dtype)}});
}

std::vector<DenseTensor> RunProgram(const ProgramDesc& program,
                                    const std::map<std::string, DenseTensor>& feeds,
                                    const std::vector<std::string>& fetches) {
  framework::Scope scope;
  return framework::Executor(platform::CPUPlace()).Run(program, &scope, feeds, fetches);
}

// acc = 1; i = 0; while i < n: acc = acc * x + x; if (i is odd) acc = acc - 1; i += 1.
// The `if` is a conditional block nested in the loop body; `x` is read only inside blocks
// (not listed by the while op) and must not be freed before the loop.
ProgramDesc LoopProgram() {
  ProgramDesc p;
  BlockDesc* main = &p.MutableBlock(0);
  for (const char* fed : {"x", "n"}) main->Var(fed);
  Fill(main, "i", {1}, 0, DataType::INT64);
  Fill(main, "two", {1}, 2, DataType::INT64);
  Fill(main, "one", {1}, 1, DataType::INT64);
  Fill(main, "acc", {2, 2}, 1, DataType::FLOAT32);
  AddOp(main, "less_than", {{"X", {"i"}}, {"Y", {"n"}}}, {{"Out", {"cond"}}});
  BlockDesc* body = p.AppendBlock(*main);
  AddOp(main, "while", {{"X", {"i", "n", "acc"}}, {"Condition", {"cond"}}},
        {{"Out", {"i", "acc", "cond"}}}, {{"sub_block", BlockIndex{body->ID()}}});
  AddOp(body, "elementwise_mul", {{"X", {"acc"}}, {"Y", {"x"}}}, {{"Out", {"ax"}}});
  AddOp(body, "elementwise_add", {{"X", {"ax"}}, {"Y", {"x"}}}, {{"Out", {"acc"}}});
  AddOp(body, "elementwise_mod", {{"X", {"i"}}, {"Y", {"two"}}}, {{"Out", {"parity"}}});
  AddOp(body, "equal", {{"X", {"parity"}}, {"Y", {"one"}}}, {{"Out", {"odd"}}});
  BlockDesc* odd = p.AppendBlock(*body);
  AddOp(body, "conditional_block", {{"Cond", {"odd"}}, {"Input", {"acc"}}}, {{"Out", {"acc"}}},
        {{"sub_block", BlockIndex{odd->ID()}}, {"is_scalar_condition", true}});
  AddOp(odd, "scale", {{"X", {"acc"}}}, {{"Out", {"acc_minus"}}}, {{"bias", -1.0f}});
  AddOp(odd, "assign", {{"X", {"acc_minus"}}}, {{"Out", {"acc"}}});
  AddOp(body, "increment", {{"X", {"i"}}}, {{"Out", {"i"}}}, {{"step", 1.0f}});
  AddOp(body, "less_than", {{"X", {"i"}}, {"Y", {"n"}}}, {{"Out", {"cond"}}});
  for (const char* v : {"ax", "parity", "odd"}) body->Var(v);
  odd->Var("acc_minus");
  return p;
}

TEST(ControlFlow, WhileLoopWithANestedConditionalBlock) {
  operators::RegisterAllOps();
  const ProgramDesc program = LoopProgram();
  const std::vector<double> x = {0.5, -1.0, 2.0, 0.25};
  for (int n : {0, 1, 5}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto out = RunProgram(
        program,
        {{"x", MakeTensor<float>({2, 2}, x)}, {"n", MakeTensor<int64_t>({1}, {double(n)})}},
        {"acc", "i"});
    std::vector<double> want(4, 1.0);
    for (int i = 0; i < n; ++i) {
      for (size_t k = 0; k < 4; ++k) want[k] = want[k] * x[k] + x[k] - (i % 2 == 1 ? 1 : 0);
    }
    ExpectNear(ToDoubles(out[0]), want, 1e-6, 1e-6, "acc");
    EXPECT_EQ(ToDoubles(out[1]), (std::vector<double>{double(n)}));
  }
}

// FLAGS_max_while_iterations lets a loop run that many iterations and stops the next one.
TEST(ControlFlow, IterationCapStopsALoopWithATypedError) {
  operators::RegisterAllOps();
  gflags::FlagSaver restore_flags;
  const ProgramDesc program = LoopProgram();
  const auto run = [&](int64_t n) {
    return RunProgram(program,
                      {{"x", MakeTensor<float>({2, 2}, {1, 1, 1, 1})},
                       {"n", MakeTensor<int64_t>({1}, {double(n)})}},
                      {"i"});
  };
  FLAGS_max_while_iterations = 3;
  EXPECT_EQ(ToDoubles(run(3)[0]), (std::vector<double>{3}));
  ExpectError<platform::OutOfRangeError>(
      [&] { run(4); }, {"op `while` (condition `cond`)", "FLAGS_max_while_iterations = 3"});
  FLAGS_max_while_iterations = 0;
  EXPECT_EQ(ToDoubles(run(40)[0]), (std::vector<double>{40}));
}

// y = select_input([x - 1 (false branch), 2 x (true branch)], sum(x) > t); each branch a
// `block_op` (conditional_block, or conditional_block_infer as older inference programs
// have it).
ProgramDesc CondProgram(bool scalar_condition, const std::string& block_op = "conditional_block") {
  ProgramDesc p;
  BlockDesc* main = &p.MutableBlock(0);
  for (const char* fed : {"x", "t"}) main->Var(fed);
  AddOp(main, "reduce_sum", {{"X", {"x"}}}, {{"Out", {"s"}}}, {{"reduce_all", true}});
  AddOp(main, "reshape2", {{"X", {"s"}}}, {{"Out", {"s1"}}, {"XShape", {"s_shape"}}},
        {{"shape", std::vector<int>{1}}});
  AddOp(main, "greater_than", {{"X", {"s1"}}, {"Y", {"t"}}}, {{"Out", {"pred"}}});
  AddOp(main, "logical_not", {{"X", {"pred"}}}, {{"Out", {"not_pred"}}});
  if (!scalar_condition) {
    // Non-scalar conditions run a block when every Cond tensor has elements: `masked` has
    // them only where pred holds (where_index of a one-element bool).
    AddOp(main, "where_index", {{"Condition", {"pred"}}}, {{"Out", {"pred_rows"}}});
    AddOp(main, "where_index", {{"Condition", {"not_pred"}}}, {{"Out", {"not_pred_rows"}}});
  }
  const char* conds[2] = {scalar_condition ? "pred" : "pred_rows",
                          scalar_condition ? "not_pred" : "not_pred_rows"};
  BlockDesc* yes = p.AppendBlock(*main);
  AddOp(main, block_op, {{"Cond", {conds[0]}}, {"Input", {"x"}}}, {{"Out", {"y_true"}}},
        {{"sub_block", BlockIndex{yes->ID()}}, {"is_scalar_condition", scalar_condition}});
  AddOp(yes, "scale", {{"X", {"x"}}}, {{"Out", {"twice"}}}, {{"scale", 2.0f}});
  AddOp(yes, "assign", {{"X", {"twice"}}}, {{"Out", {"y_true"}}});
  yes->Var("twice");
  BlockDesc* no = p.AppendBlock(*main);
  AddOp(main, block_op, {{"Cond", {conds[1]}}, {"Input", {"x"}}}, {{"Out", {"y_false"}}},
        {{"sub_block", BlockIndex{no->ID()}}, {"is_scalar_condition", scalar_condition}});
  AddOp(no, "scale", {{"X", {"x"}}}, {{"Out", {"less"}}}, {{"bias", -1.0f}});
  AddOp(no, "assign", {{"X", {"less"}}}, {{"Out", {"y_false"}}});
  no->Var("less");
  AddOp(main, "cast", {{"X", {"pred"}}}, {{"Out", {"mask"}}},
        {{"in_dtype", static_cast<int>(DataType::BOOL)},
         {"out_dtype", static_cast<int>(DataType::INT32)}});
  AddOp(main, "select_input", {{"X", {"y_false", "y_true"}}, {"Mask", {"mask"}}}, {{"Out", {"y"}}});
  return p;
}

TEST(ControlFlow, ConditionalBlocksAndSelectInputTakeOneBranch) {
  operators::RegisterAllOps();
  const std::vector<double> x = {1, 2, -0.5, 3};
  for (const char* block_op : {"conditional_block", "conditional_block_infer"}) {
    for (bool scalar : {true, false}) {
      const ProgramDesc program = CondProgram(scalar, block_op);
      for (double t : {0.0, 10.0}) {
        SCOPED_TRACE(std::string(block_op) + (scalar ? " scalar" : " non-scalar") +
                     " t = " + std::to_string(t));
        const auto out = RunProgram(
            program, {{"x", MakeTensor<float>({2, 2}, x)}, {"t", MakeTensor<float>({1}, {t})}},
            {"y"});
        std::vector<double> want;
        for (double v : x) want.push_back(5.5 > t ? 2 * v : v - 1);
        EXPECT_EQ(ToDoubles(out[0]), want);
      }
    }
  }
}

// In block 0 of `p`, where `arr` (a tensor array) and `x` are declared: i = 0; n = 3;
// while i < n: <body>. The loop reads i, n and `reads`, writes i, arr and its condition.
// The caller fills the body, then EndCountedLoop appends i += 1 and the condition.
BlockDesc* BeginCountedLoop(ProgramDesc* p, std::vector<std::string> reads) {
  BlockDesc* main = &p->MutableBlock(0);
  Fill(main, "i", {1}, 0, DataType::INT64);
  Fill(main, "n", {1}, 3, DataType::INT64);
  AddOp(main, "less_than", {{"X", {"i"}}, {"Y", {"n"}}}, {{"Out", {"cond"}}});
  BlockDesc* body = p->AppendBlock(*main);
  reads.insert(reads.begin(), {"i", "n"});
  AddOp(main, "while", {{"X", reads}, {"Condition", {"cond"}}}, {{"Out", {"i", "arr", "cond"}}},
        {{"sub_block", BlockIndex{body->ID()}}});
  return body;
}

void EndCountedLoop(BlockDesc* body) {
  AddOp(body, "increment", {{"X", {"i"}}}, {{"Out", {"i"}}}, {{"step", 1.0f}});
  AddOp(body, "less_than", {{"X", {"i"}}, {"Y", {"n"}}}, {{"Out", {"cond"}}});
}

ProgramDesc ProgramWithArray() {
  ProgramDesc p;
  p.MutableBlock(0).Var("arr")->SetKind(framework::VarKind::kDenseTensorArray);
  p.MutableBlock(0).Var("x");
  return p;
}

TEST(ControlFlow, TensorArrayFilledInALoop) {
  operators::RegisterAllOps();
  ProgramDesc p = ProgramWithArray();
  BlockDesc* main = &p.MutableBlock(0);
  BlockDesc* body = BeginCountedLoop(&p, {"x"});
  AddOp(body, "cast", {{"X", {"i"}}}, {{"Out", {"fi"}}},
        {{"in_dtype", static_cast<int>(DataType::INT64)},
         {"out_dtype", static_cast<int>(DataType::FLOAT32)}});
  AddOp(body, "elementwise_mul", {{"X", {"x"}}, {"Y", {"fi"}}}, {{"Out", {"xi"}}});
  AddOp(body, "write_to_array", {{"X", {"xi"}}, {"I", {"i"}}}, {{"Out", {"arr"}}});
  EndCountedLoop(body);
  Fill(main, "k", {1}, 2, DataType::INT64);
  AddOp(main, "read_from_array", {{"X", {"arr"}}, {"I", {"k"}}}, {{"Out", {"last"}}});
  AddOp(main, "lod_array_length", {{"X", {"arr"}}}, {{"Out", {"len"}}});
  AddOp(main, "tensor_array_to_tensor", {{"X", {"arr"}}},
        {{"Out", {"joined"}}, {"OutIndex", {"idx"}}}, {{"axis", 0}, {"use_stack", true}});
  const std::vector<double> x = {1, -2, 3};
  const auto out =
      RunProgram(p, {{"x", MakeTensor<float>({3}, x)}}, {"last", "len", "joined", "idx"});
  EXPECT_EQ(ToDoubles(out[0]), (std::vector<double>{2, -4, 6}));
  EXPECT_EQ(ToDoubles(out[1]), (std::vector<double>{3}));
  EXPECT_EQ(out[2].dims(), DDim({3, 3}));
  EXPECT_EQ(ToDoubles(out[2]), (std::vector<double>{0, 0, 0, 1, -2, 3, 2, -4, 6}));
  EXPECT_EQ(ToDoubles(out[3]), (std::vector<double>{1, 1, 1}));
}

// PaddlePaddle's while_loop copies an array that the body replaces through `assign`:
// arr = [x]; 3 times: fresh = [arr[0] * 2 + 1]; arr = fresh. The array's tensors are handed
// over, and the next iteration's writes into `fresh` leave `arr` alone.
TEST(ControlFlow, AssignCopiesATensorArrayThatALoopReplaces) {
  operators::RegisterAllOps();
  ProgramDesc p = ProgramWithArray();
  BlockDesc* main = &p.MutableBlock(0);
  Fill(main, "zero", {1}, 0, DataType::INT64);
  AddOp(main, "write_to_array", {{"X", {"x"}}, {"I", {"zero"}}}, {{"Out", {"arr"}}});
  BlockDesc* body = BeginCountedLoop(&p, {"arr", "zero"});
  body->Var("fresh")->SetKind(framework::VarKind::kDenseTensorArray);
  AddOp(body, "read_from_array", {{"X", {"arr"}}, {"I", {"zero"}}}, {{"Out", {"v"}}});
  AddOp(body, "scale", {{"X", {"v"}}}, {{"Out", {"v2"}}}, {{"scale", 2.0f}, {"bias", 1.0f}});
  AddOp(body, "write_to_array", {{"X", {"v2"}}, {"I", {"zero"}}}, {{"Out", {"fresh"}}});
  AddOp(body, "assign", {{"X", {"fresh"}}}, {{"Out", {"arr"}}});
  EndCountedLoop(body);
  AddOp(main, "read_from_array", {{"X", {"arr"}}, {"I", {"zero"}}}, {{"Out", {"last"}}});
  AddOp(main, "lod_array_length", {{"X", {"arr"}}}, {{"Out", {"len"}}});
  const std::vector<double> x = {1, -2, 0.5};
  const auto out = RunProgram(p, {{"x", MakeTensor<float>({3}, x)}}, {"last", "len"});
  std::vector<double> want;
  for (double v : x) want.push_back(8 * v + 7);
  EXPECT_EQ(ToDoubles(out[0]), want);
  EXPECT_EQ(ToDoubles(out[1]), (std::vector<double>{1}));
}

// PaddlePaddle's programs declare an array outside a loop, list it among the loop's inputs
// before anything has written it (an empty array: its length is 0) and slice it afterwards:
// one element as a tensor with decrease_axis ([-1:0] meaning the last), a range as an array.
// A prepared program run again starts with the array empty.
TEST(ControlFlow, ArraysStartEmptyAndSliceIntoTensorsOrArrays) {
  operators::RegisterAllOps();
  ProgramDesc p;
  BlockDesc* main = &p.MutableBlock(0);
  main->Var("arr")->SetKind(framework::VarKind::kDenseTensorArray);
  main->Var("part")->SetKind(framework::VarKind::kDenseTensorArray);
  main->Var("x");
  Fill(main, "i", {1}, 0, DataType::INT64);
  Fill(main, "n", {1}, 3, DataType::INT64);
  AddOp(main, "less_than", {{"X", {"i"}}, {"Y", {"n"}}}, {{"Out", {"cond"}}});
  BlockDesc* body = p.AppendBlock(*main);
  AddOp(main, "while", {{"X", {"arr", "i", "n", "x"}}, {"Condition", {"cond"}}},
        {{"Out", {"i", "arr", "cond"}}}, {{"sub_block", BlockIndex{body->ID()}}});
  // Appends x * (length + 1) at the array's current length.
  AddOp(body, "lod_array_length", {{"X", {"arr"}}}, {{"Out", {"len"}}});
  AddOp(body, "increment", {{"X", {"len"}}}, {{"Out", {"len1"}}}, {{"step", 1.0f}});
  AddOp(body, "cast", {{"X", {"len1"}}}, {{"Out", {"f"}}},
        {{"in_dtype", static_cast<int>(DataType::INT64)},
         {"out_dtype", static_cast<int>(DataType::FLOAT32)}});
  AddOp(body, "elementwise_mul", {{"X", {"x"}}, {"Y", {"f"}}}, {{"Out", {"xf"}}});
  AddOp(body, "write_to_array", {{"X", {"xf"}}, {"I", {"len"}}}, {{"Out", {"arr"}}});
  AddOp(body, "increment", {{"X", {"i"}}}, {{"Out", {"i"}}}, {{"step", 1.0f}});
  AddOp(body, "less_than", {{"X", {"i"}}, {"Y", {"n"}}}, {{"Out", {"cond"}}});
  const auto slice = [&](const char* out, int start, int end, bool decrease) {
    AddOp(main, "slice", {{"Input", {"arr"}}}, {{"Out", {out}}},
          {{"axes", std::vector<int>{0}},
           {"starts", std::vector<int>{start}},
           {"ends", std::vector<int>{end}},
           {"decrease_axis", decrease ? std::vector<int>{0} : std::vector<int>{}}});
  };
  slice("second", 1, 2, true);
  slice("last", -1, 0, true);
  slice("part", 1, 100, false);
  AddOp(main, "lod_array_length", {{"X", {"part"}}}, {{"Out", {"part_len"}}});
  // Each run of the prepared program starts with the array empty again.
  for (int repeat : {1, 3}) {
    framework::Scope scope;
    framework::Executor::RunOptions options;
    options.repeat = repeat;
    const auto out = framework::Executor(platform::CPUPlace())
                         .Run(p, &scope, {{"x", MakeTensor<float>({2}, {1, -2})}},
                              {"second", "last", "part_len"}, options);
    EXPECT_EQ(ToDoubles(out[0]), (std::vector<double>{2, -4})) << repeat;
    EXPECT_EQ(ToDoubles(out[1]), (std::vector<double>{3, -6})) << repeat;
    EXPECT_EQ(ToDoubles(out[2]), (std::vector<double>{2})) << repeat;
  }
}

TEST(ControlFlow, ErrorsNameTheOp) {
  operators::RegisterAllOps();
  ProgramDesc p;
  BlockDesc* main = &p.MutableBlock(0);
  main->Var("c");
  BlockDesc* body = p.AppendBlock(*main);
  AddOp(main, "while", {{"Condition", {"c"}}}, {}, {{"sub_block", BlockIndex{body->ID()}}});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunProgram(p, {{"c", MakeTensor<float>({1}, {1})}}, {});
      },
      {"op `while` input `Condition` (variable `c`)", "bool tensor of one element", "float32"});
  ProgramDesc q;
  BlockDesc* qmain = &q.MutableBlock(0);
  qmain->Var("arr")->SetKind(framework::VarKind::kDenseTensorArray);
  Fill(qmain, "k", {1}, 0, DataType::INT64);
  AddOp(qmain, "read_from_array", {{"X", {"arr"}}, {"I", {"k"}}}, {{"Out", {"v"}}});
  ExpectError<platform::InvalidArgumentError>([&] { RunProgram(q, {}, {"v"}); },
                                              {"op `read_from_array`", "position 0", "length 0"});
  // A sub_block that is not a later block is refused when the program is read.
  ProgramDesc bad;
  AddOp(&bad.MutableBlock(0), "conditional_block", {{"Cond", {"c"}}}, {},
        {{"sub_block", BlockIndex{0}}});
  ExpectError<platform::InvalidArgumentError>(
      [&] { ProgramDesc::FromBinary(bad.ToBinary()); },
      {"block 0 op #0 `conditional_block` attribute `sub_block`", "block index 0"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

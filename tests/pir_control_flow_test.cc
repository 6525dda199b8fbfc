// Control flow in PaddlePaddle 3's PIR programs (pd_op.if, pd_op.while with cf.yield, tensor
// arrays): translated into conditional_block / select_input / while sub-blocks and run, with
// results computed here by hand (both branches, loops that run zero and several times, loop
// values that trade places, an array filled in a loop, in-place writes to loop values);
// damaged control flow is a typed error. Real programs: pir_control_flow_tiny in
// paddle_op_fixtures_test.cc, against PaddlePaddle's own outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/pir/pir_translation.h"
#include "framework/program_desc.h"
#include "operators/registry.h"
#include "tests/op_test_util.h"
#include "tests/pir_json_builder.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::ProgramDesc;

ProgramDesc Translate(const std::string& text) {
  operators::RegisterAllOps();
  return framework::ProgramFromPirJson(text, "model.json");
}

std::vector<DenseTensor> RunTranslated(const ProgramDesc& p,
                                       const std::map<std::string, DenseTensor>& feeds) {
  framework::Scope scope;
  return framework::Executor(platform::CPUPlace()).Run(p, &scope, feeds, p.FetchTargetNames());
}

std::vector<std::string> OpTypes(const framework::BlockDesc& b) {
  std::vector<std::string> types;
  for (const auto* op : b.AllOps()) types.push_back(op->Type());
  return types;
}

const std::string kF2 = Tensor("t_f32", "2");
const std::string kF1 = Tensor("t_f32", "1");
const std::string kI1 = Tensor("t_i64", "1");
const std::string kB1 = Tensor("t_bool", "1");
const std::string kArray =
    R"({"#": "1.t_dense_tensor_array", "D": [{"#": "0.t_f32"}, [2], "NCHW"]})";

// r0, r1 = if t > 0 { exp(x), x } else { x, tanh(x) }: one branch yields a value of the
// enclosing block as it is.
std::string IfProgram() {
  return Program({Data(1, "x", "2"), Data(2, "t", "1"), Full(3, "0"),
                  Op("1.greater_than", {2, 3}, {{4, kB1}}),
                  Op("1.if", {4}, {{5, kF2}, {6, kF2}}, {},
                     {Region({}, {Op("1.exp", {1}, {{7, kF2}}), Yield({7, 1})}),
                      Region({}, {Op("1.tanh", {1}, {{8, kF2}}), Yield({1, 8})})}),
                  Fetch(5, 9, "fetch_name_0", 0), Fetch(6, 10, "fetch_name_1", 1)});
}

TEST(PirControlFlow, AnIfRunsTheBranchItsConditionPicks) {
  const ProgramDesc p = Translate(IfProgram());
  ASSERT_EQ(p.Size(), 3u);  // The program and one sub-block per branch.
  const std::vector<std::string> types = OpTypes(p.Block(0));
  EXPECT_EQ(std::count(types.begin(), types.end(), "conditional_block"), 2);
  EXPECT_EQ(std::count(types.begin(), types.end(), "select_input"), 2);
  for (const auto* op : p.Block(0).AllOps()) {
    if (op->Type() != "conditional_block") continue;
    // What a branch reads from the enclosing block is its input: kept alive until it runs.
    EXPECT_EQ(op->Input("Input"), std::vector<std::string>({"x"}));
    EXPECT_TRUE(std::get<bool>(op->GetAttr("is_scalar_condition")));
  }
  const std::vector<double> x = {0.5, -1.25};
  for (const float t : {1.0f, -1.0f}) {
    SCOPED_TRACE(t);
    const auto out =
        RunTranslated(p, {{"x", MakeTensor<float>({2}, x)}, {"t", MakeTensor<float>({1}, {t})}});
    ASSERT_EQ(out.size(), 2u);
    for (int i = 0; i < 2; ++i) {
      const float xi = static_cast<float>(x[i]);
      const float expected0 = t > 0 ? std::exp(xi) : xi;
      const float expected1 = t > 0 ? xi : std::tanh(xi);
      EXPECT_FLOAT_EQ(out[0].data<float>()[i], expected0);
      EXPECT_FLOAT_EQ(out[1].data<float>()[i], expected1);
    }
  }
}

// r = if t > 0 { if u > 0 { exp(x) } else { 0 * x } + 1 } else { tanh(x) }: the inner if's
// variables are its own, whichever branches run.
TEST(PirControlFlow, NestedIfsRunTheirOwnBranches) {
  const ProgramDesc p = Translate(
      Program({Data(1, "x", "2"), Data(2, "t", "1"), Data(3, "u", "1"), Full(4, "0"),
               Op("1.greater_than", {2, 4}, {{5, kB1}}), Op("1.greater_than", {3, 4}, {{6, kB1}}),
               Op("1.if", {5}, {{7, kF2}}, {},
                  {Region({}, {Op("1.if", {6}, {{8, kF2}}, {},
                                  {Region({}, {Op("1.exp", {1}, {{9, kF2}}), Yield({9})}),
                                   Region({}, {Op("1.scale", {1, 4}, {{10, kF2}},
                                                  {Attr("bias", "0.a_f32", "0.0"),
                                                   Attr("bias_after_scale", "0.a_bool", "true")}),
                                               Yield({10})})}),
                               Full(11, "1"), Op("1.add", {8, 11}, {{12, kF2}}), Yield({12})}),
                   Region({}, {Op("1.tanh", {1}, {{13, kF2}}), Yield({13})})}),
               Fetch(7, 14, "r", 0)}));
  const std::vector<double> x = {0.5, -1.25};
  for (const float t : {1.0f, -1.0f}) {
    for (const float u : {1.0f, -1.0f}) {
      SCOPED_TRACE(std::to_string(t) + " " + std::to_string(u));
      const auto out = RunTranslated(p, {{"x", MakeTensor<float>({2}, x)},
                                         {"t", MakeTensor<float>({1}, {t})},
                                         {"u", MakeTensor<float>({1}, {u})}});
      ASSERT_EQ(out.size(), 1u);
      for (int i = 0; i < 2; ++i) {
        const float xi = static_cast<float>(x[i]);
        const float inner = u > 0 ? std::exp(xi) : 0.0f * xi;
        EXPECT_FLOAT_EQ(out[0].data<float>()[i], t > 0 ? inner + 1.0f : std::tanh(xi));
      }
    }
  }
}

// i, a, b, f, g = 0, 2, 3, 1, 1; while i < n: i, a, b, f, g = i + 1, b, a, g, f + g.
// a and b trade places (each one's next value is the other loop value, read before either is
// rewritten); f and g walk the Fibonacci numbers. The initial values are fetched too: the
// loop must not change them.
std::string SwapLoopProgram() {
  return Program(
      {Data(1, "n", "1", "int64"), Full(2, "0", "int64"), Full(3, "2"), Full(4, "3"), Full(5, "1"),
       Op("1.less_than", {2, 1}, {{6, kB1}}),
       Op("1.while", {6, 2, 3, 4, 5, 5}, {{7, kI1}, {8, kF1}, {9, kF1}, {10, kF1}, {11, kF1}}, {},
          {Region({{-1, kI1}, {-2, kF1}, {-3, kF1}, {-4, kF1}, {-5, kF1}},
                  {Full(12, "1", "int64"), Op("1.add", {-1, 12}, {{13, kI1}}),
                   Op("1.add", {-4, -5}, {{14, kF1}}), Op("1.less_than", {13, 1}, {{15, kB1}}),
                   Yield({15, 13, -3, -2, -5, 14})})}),
       Fetch(7, 20, "i", 0), Fetch(8, 21, "a", 1), Fetch(9, 22, "b", 2), Fetch(11, 23, "g", 3),
       Fetch(3, 24, "a0", 4)});
}

TEST(PirControlFlow, AWhileCarriesItsValuesEvenWhenTheyTradePlaces) {
  const ProgramDesc p = Translate(SwapLoopProgram());
  ASSERT_EQ(p.Size(), 2u);
  const std::vector<std::string> types = OpTypes(p.Block(0));
  EXPECT_EQ(std::count(types.begin(), types.end(), "while"), 1);
  // n, 0: the loop runs 7 times, or never (the results are the initial values).
  const std::vector<int64_t> fibonacci = {1, 1, 2, 3, 5, 8, 13, 21, 34};
  for (const int64_t n : {int64_t{7}, int64_t{0}}) {
    SCOPED_TRACE(n);
    const auto out = RunTranslated(p, {{"n", MakeTensor<int64_t>({1}, {static_cast<double>(n)})}});
    ASSERT_EQ(out.size(), 5u);
    EXPECT_EQ(out[0].data<int64_t>()[0], n);
    EXPECT_EQ(out[1].data<float>()[0], n % 2 == 1 ? 3.0f : 2.0f);
    EXPECT_EQ(out[2].data<float>()[0], n % 2 == 1 ? 2.0f : 3.0f);
    EXPECT_EQ(out[3].data<float>()[0], static_cast<float>(fibonacci[static_cast<size_t>(n) + 1]));
    EXPECT_EQ(out[4].data<float>()[0], 2.0f);
  }
}

// The form PaddlePaddle's translation of a ProgramDesc loop takes: the body writes the loop
// values in place (assign_out_ into its arguments and into the enclosing block's
// condition) and yields what those writes return.
TEST(PirControlFlow, InPlaceWritesToLoopValuesAreSeenByTheNextIteration) {
  const ProgramDesc p = Translate(
      Program({Data(1, "n", "1", "int64"), Data(2, "x", "1"), Full(3, "0", "int64"),
               Op("1.less_than", {3, 1}, {{4, kB1}}),
               Op("1.while", {4, 3, 2}, {{5, kI1}, {6, kF1}}, {},
                  {Region({{-1, kI1}, {-2, kF1}},
                          {Op("1.increment", {-1}, {{7, kI1}}, {Attr("value", "0.a_f32", "1.0")}),
                           Op("1.add", {-2, -2}, {{8, kF1}}), Op("1.less_than", {7, 1}, {{9, kB1}}),
                           Op("1.assign_out_", {7, -1}, {{10, kI1}}),
                           Op("1.assign_out_", {8, -2}, {{11, kF1}}),
                           Op("1.assign_out_", {9, 4}, {{12, kB1}}), Yield({12, 10, 11})})}),
               Fetch(5, 13, "i", 0), Fetch(6, 14, "y", 1)}));
  const auto out = RunTranslated(
      p, {{"n", MakeTensor<int64_t>({1}, {5})}, {"x", MakeTensor<float>({1}, {0.75f})}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].data<int64_t>()[0], 5);
  EXPECT_FLOAT_EQ(out[1].data<float>()[0], 0.75f * 32);
}

// The form paddle.nn.RNN's loops take: the counter, a value of the enclosing block, is
// advanced by an in-place increment_ whose result nothing reads, and the condition is computed
// from the counter's own value, which must see the increment (else the loop never ends).
TEST(PirControlFlow, InPlaceOpsChangeTheValueTheyWrite) {
  const ProgramDesc p = Translate(
      Program({Data(1, "n", "1", "int64"), Data(2, "x", "1"), Full(3, "0", "int64"),
               Op("1.less_than", {3, 1}, {{4, kB1}}),
               Op("1.while", {4, 2}, {{5, kF1}}, {},
                  {Region({{-1, kF1}},
                          {Op("1.add", {-1, -1}, {{7, kF1}}),
                           Op("1.increment_", {3}, {{8, kI1}}, {Attr("value", "0.a_f32", "1.0")}),
                           Op("1.less_than", {3, 1}, {{9, kB1}}), Yield({9, 7})})}),
               Fetch(5, 13, "y", 0), Fetch(3, 14, "i", 1)}));
  const auto out = RunTranslated(
      p, {{"n", MakeTensor<int64_t>({1}, {4})}, {"x", MakeTensor<float>({1}, {0.5f})}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_FLOAT_EQ(out[0].data<float>()[0], 0.5f * 16);
  EXPECT_EQ(out[1].data<int64_t>()[0], 4);
}

// s = x; for j in [0, n): s = s + s; steps[j] = s. Then its length, steps[0], the steps
// stacked, and steps[1] through slice_array_dense.
TEST(PirControlFlow, ATensorArrayIsFilledInALoopAndRead) {
  const ProgramDesc p = Translate(Program(
      {Data(1, "x", "2"), Data(2, "n", "1", "int64"),
       Op("1.create_array", {}, {{3, kArray}}, {Attr("dtype", "1.a_dtype", "\"float32\"")}),
       Full(4, "0", "int64"), Op("1.less_than", {4, 2}, {{5, kB1}}),
       Op("1.while", {5, 4, 1}, {{6, kI1}, {7, kF2}}, {},
          {Region(
              {{-1, kI1}, {-2, kF2}},
              {Op("1.add", {-2, -2}, {{8, kF2}}), Op("1.array_write_", {3, 8, -1}, {{9, kArray}}),
               Full(10, "1", "int64"), Op("1.add", {-1, 10}, {{11, kI1}}),
               Op("1.less_than", {11, 2}, {{12, kB1}}), Yield({12, 11, 8})})}),
       Op("1.array_length", {3}, {{13, kI1}}), Full(14, "0", "int64"),
       Op("1.array_read", {3, 14}, {{15, kF2}}),
       Op("1.array_to_tensor", {3}, {{16, Tensor("t_f32", "-1, 2")}, {17, Tensor("t_i32", "-1")}},
          {Attr("axis", "0.a_i32", "0"), Attr("use_stack", "0.a_bool", "true")}),
       IntArray(18, "1"), Op("1.slice_array_dense", {3, 18}, {{19, kF2}}),
       Fetch(13, 20, "length", 0), Fetch(15, 21, "first", 1), Fetch(16, 22, "stacked", 2),
       Fetch(19, 23, "second", 3)}));
  EXPECT_EQ(p.Block(0).FindVar("create_array.tmp_3")->GetKind(),
            framework::VarKind::kDenseTensorArray);
  const auto out = RunTranslated(
      p, {{"x", MakeTensor<float>({2}, {1.0f, -0.5f})}, {"n", MakeTensor<int64_t>({1}, {3})}});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].data<int64_t>()[0], 3);
  EXPECT_EQ(ToDoubles(out[1]), std::vector<double>({2, -1}));
  EXPECT_EQ(out[2].dims(), framework::DDim({3, 2}));
  EXPECT_EQ(ToDoubles(out[2]), std::vector<double>({2, -1, 4, -2, 8, -4}));
  EXPECT_EQ(ToDoubles(out[3]), std::vector<double>({4, -2}));
}

// A PyLayer (a layer with its own gradient) runs its forward region in place: r0 = x * x * x
// from the region, r1 = x passed through it as a copy of its own.
TEST(PirControlFlow, APyLayerRunsItsForwardRegion) {
  const ProgramDesc p = Translate(Program(
      {Data(1, "x", "2"),
       Op("1.pylayer", {1}, {{2, kF2}, {3, kF2}}, {Attr("backward_function_id", "0.a_i32", "7")},
          {Region({}, {Op("1.multiply", {1, 1}, {{4, kF2}}), Op("1.multiply", {4, 1}, {{5, kF2}}),
                       Yield({5, 1})})}),
       Fetch(2, 6, "cube", 0), Fetch(3, 7, "same", 1)}));
  EXPECT_EQ(p.Size(), 1u);  // No sub-block: the forward region joins the program's block.
  const auto out = RunTranslated(p, {{"x", MakeTensor<float>({2}, {1.5, -2})}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(ToDoubles(out[0]), std::vector<double>({3.375, -8}));
  EXPECT_EQ(ToDoubles(out[1]), std::vector<double>({1.5, -2}));
}

TEST(PirControlFlow, DamagedControlFlowIsATypedError) {
  // An if whose branch yields fewer values than it has results.
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Translate(Program({Data(1, "x", "2"), Data(2, "c", "1", "bool"),
                           Op("1.if", {2}, {{3, kF2}, {4, kF2}}, {},
                              {Region({}, {Yield({1})}), Region({}, {Yield({1, 1})})})}));
      },
      {"op 2 (`pd_op.if`)", "region 0 yields 1 values for 2 results"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Translate(Program({Data(1, "x", "2"), Data(2, "c", "1", "bool"),
                           Op("1.if", {2}, {{3, kF2}}, {}, {Region({}, {Yield({1})})})}));
      },
      {"op 2 (`pd_op.if`)", "one condition and has two regions"});
  // A loop with a result per loop value, and a body that takes them.
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Translate(Program({Data(1, "x", "2"), Data(2, "c", "1", "bool"),
                           Op("1.while", {2, 1}, {{3, kF2}}, {}, {Region({}, {Yield({2, 1})})})}));
      },
      {"op 2 (`pd_op.while`)", "region 0 takes 0 arguments, expected 1"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Translate(
            Program({Data(1, "x", "2"), Data(2, "c", "1", "bool"),
                     Op("1.while", {2, 1}, {{3, kF2}}, {}, {Region({{-1, kF2}}, {Yield({-1})})})}));
      },
      {"op 2 (`pd_op.while`)", "the body yields 1 values, expected the condition and 1"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Translate(Program({Data(1, "x", "2"), Yield({1})}));
      },
      {"op 1 (`cf.yield`)", "outside the region of an if or a while"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Translate(Program({Data(1, "x", "2"), Data(2, "c", "1", "bool"),
                           Op("1.if", {2}, {}, {},
                              {Region({}, {Yield({}), Op("1.relu", {1}, {{3, kF2}})}),
                               Region({}, {Yield({})})})}));
      },
      {"op 2, region 0, op 0 (`cf.yield`)", "yield before the end of its block"});
  // Regions nested past any model's depth.
  std::string nested = Yield({});
  for (int depth = 0; depth < 80; ++depth) {
    nested = Op("1.if", {2}, {}, {}, {Region({}, {nested, Yield({})}), Region({}, {Yield({})})});
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        Translate(Program({Data(1, "x", "2"), Data(2, "c", "1", "bool"), nested}));
      },
      {"regions nested more than 64 deep"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Translate(Program({Data(1, "x", "2"), Op("1.pylayer", {1}, {{2, kF2}, {3, kF2}}, {},
                                                 {Region({}, {Yield({1})})})}));
      },
      {"op 1 (`pd_op.pylayer`)", "its region yields 1 values for 2 results"});
  // An array position counted from the end has no fixed place before the array is filled.
  ExpectError<platform::UnimplementedError>(
      [] {
        Translate(Program(
            {Op("1.create_array", {}, {{1, kArray}}, {Attr("dtype", "1.a_dtype", "\"float32\"")}),
             IntArray(2, "-1"), Op("1.slice_array_dense", {1, 2}, {{3, kF2}})}));
      },
      {"op 2 (`pd_op.slice_array_dense`)", "a start of [-1]", "position >= 0"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

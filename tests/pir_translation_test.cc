// PaddlePaddle 3's PIR programs (JSON) translated into ProgramDescs: the structure of the
// translation (feeds, parameters, fetch names, constant operands as attributes, shapes read at
// run time as tensor inputs) and the errors of damaged or unsupported files. The numbers of
// whole saved models are checked against PaddlePaddle in paddle_op_fixtures_test.cc
// (tests/fixtures/models/pir_*).
#include "framework/pir/pir_translation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/program_desc.h"
#include "framework/scope.h"
#include "operators/registry.h"
#include "tests/fuzz/program_validation.h"
#include "tests/op_test_util.h"
#include "tests/pir_json_builder.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::ProgramDesc;

std::vector<std::string> OpTypes(const ProgramDesc& p) {
  std::vector<std::string> types;
  for (const auto* op : p.Block(0).AllOps()) types.push_back(op->Type());
  return types;
}

const framework::OpDesc* FindOp(const ProgramDesc& p, const std::string& type) {
  for (const auto* op : p.Block(0).AllOps()) {
    if (op->Type() == type) return op;
  }
  return nullptr;
}

ProgramDesc Translate(const std::string& text) {
  operators::RegisterAllOps();
  return framework::ProgramFromPirJson(text, "model.json");
}

TEST(PirTranslation, FeedsParametersAndFetches) {
  const ProgramDesc p = Translate(Program({
      Parameter(1, "fc.w_0", "3, 2"), Data(2, "x", "-1, 3"),
      Op("1.matmul", {2, 1}, {{3, Tensor("t_f32", "-1, 2")}},
         {Attr("transpose_x", "0.a_bool", "false"), Attr("transpose_y", "0.a_bool", "false")}),
      Full(4, "2.5"), Op("1.add", {3, 4}, {{5, Tensor("t_f32", "-1, 2")}}),
      Op("1.relu", {5}, {{6, Tensor("t_f32", "-1, 2")}}), Fetch(6, 7, "fetch_name_0", 0),
      Fetch(2, 8, "fetch_name_1", 1),  // A feed fetched as is: copied under the fetch's name.
  }));
  EXPECT_EQ(p.FeedTargetNames(), std::vector<std::string>({"x"}));
  EXPECT_EQ(p.FetchTargetNames(), std::vector<std::string>({"fetch_name_0", "fetch_name_1"}));
  EXPECT_EQ(OpTypes(p),
            std::vector<std::string>({"feed", "matmul_v2", "fill_constant", "elementwise_add",
                                      "relu", "fetch", "assign", "fetch"}));
  const auto& block = p.Block(0);
  ASSERT_NE(block.FindVar("fc.w_0"), nullptr);
  EXPECT_TRUE(block.FindVar("fc.w_0")->Persistable());
  EXPECT_EQ(block.FindVar("fc.w_0")->GetShape(), std::vector<int64_t>({3, 2}));
  EXPECT_EQ(block.FindVar("x")->GetShape(), std::vector<int64_t>({-1, 3}));
  EXPECT_TRUE(block.FindVar("x")->NeedCheckFeed());
  // The relu writes the fetched variable itself.
  EXPECT_EQ(FindOp(p, "relu")->Output("Out"), std::vector<std::string>({"fetch_name_0"}));
  const auto* add = FindOp(p, "elementwise_add");
  EXPECT_EQ(std::get<int>(add->GetAttr("axis")), -1);
  const auto* full = FindOp(p, "fill_constant");
  EXPECT_FLOAT_EQ(std::get<float>(full->GetAttr("value")), 2.5f);
  EXPECT_EQ(std::get<std::vector<int64_t>>(full->GetAttr("shape")), std::vector<int64_t>({1}));
  const auto* matmul = FindOp(p, "matmul_v2");
  EXPECT_FALSE(std::get<bool>(matmul->GetAttr("trans_y")));
}

// A parameter that is not persistable (an RNN's dropout state) has no record in the
// parameters file: it is declared, not loaded.
TEST(PirTranslation, BuffersThatAreNotPersistableAreNotLoaded) {
  const ProgramDesc p = Translate(
      Program({Parameter(1, "fc.w_0", "3"),
               Parameter(2, "rnn.dropout_state__non_persistable", "0", false), Data(3, "x", "3"),
               Op("1.add", {3, 1}, {{4, Tensor("t_f32", "3")}}), Fetch(4, 5, "out", 0)}));
  EXPECT_TRUE(p.Block(0).FindVar("fc.w_0")->Persistable());
  ASSERT_NE(p.Block(0).FindVar("rnn.dropout_state__non_persistable"), nullptr);
  EXPECT_FALSE(p.Block(0).FindVar("rnn.dropout_state__non_persistable")->Persistable());
}

TEST(PirTranslation, ConstantOperandsBecomeAttributes) {
  const ProgramDesc p = Translate(Program({
      Data(1, "x", "-1, 4, 8, 8"),
      IntArray(2, "2,2"),
      Op("1.pool2d", {1, 2}, {{3, Tensor("t_f32", "-1, 4, 4, 4")}},
         {Attr("strides", "0.a_array", R"([{"#": "0.a_i64", "D": 2}, {"#": "0.a_i64", "D": 2}])"),
          Attr("paddings", "0.a_array", "[]"), Attr("pooling_type", "0.a_str", "\"max\"")}),
      Op("0.combine", {3, 3}, {{4, R"({"#": "0.t_vec", "D": []})"}}),
      Full(5, "1", "int32"),
      Op("1.concat", {4, 5}, {{6, Tensor("t_f32", "-1, 8, 4, 4")}}),
      Fetch(6, 7, "out", 0),
  }));
  // Constants that became attributes leave no op behind.
  EXPECT_EQ(OpTypes(p), std::vector<std::string>({"feed", "pool2d", "concat", "fetch"}));
  const auto* pool = FindOp(p, "pool2d");
  EXPECT_EQ(std::get<std::vector<int>>(pool->GetAttr("ksize")), std::vector<int>({2, 2}));
  EXPECT_EQ(std::get<std::vector<int>>(pool->GetAttr("strides")), std::vector<int>({2, 2}));
  EXPECT_EQ(std::get<std::string>(pool->GetAttr("pooling_type")), "max");
  const auto* concat = FindOp(p, "concat");
  EXPECT_EQ(std::get<int>(concat->GetAttr("axis")), 1);
  EXPECT_EQ(concat->Input("X").size(), 2u);
  EXPECT_FALSE(concat->HasInput("AxisTensor"));
}

TEST(PirTranslation, ShapesReadAtRunTimeStayTensors) {
  const ProgramDesc p = Translate(Program({
      Data(1, "x", "-1, 6"),
      Op("1.shape64", {1}, {{2, Tensor("t_i64", "2")}}),
      Op("1.reshape", {1, 2}, {{3, Tensor("t_f32", "-1, 6")}}),
      Fetch(3, 4, "out", 0),
  }));
  EXPECT_EQ(OpTypes(p), std::vector<std::string>({"feed", "shape", "cast", "reshape2", "fetch"}));
  const auto* reshape = FindOp(p, "reshape2");
  EXPECT_EQ(reshape->Input("Shape"), FindOp(p, "cast")->Output("Out"));
  EXPECT_FALSE(reshape->HasAttr("shape"));
  const auto* cast = FindOp(p, "cast");
  EXPECT_EQ(std::get<int>(cast->GetAttr("out_dtype")), static_cast<int>(DataType::INT64));
}

// A shape combined from scalars, some read at run time, goes to the op's list slot; the
// constant scalar among them stays an op since the list reads it as a tensor.
// Bounds computed at run time as one 1-D tensor go to a slot of one-element tensors
// (set_value's EndsTensorList) split into their values; a tensor whose length is not known
// before the program runs cannot be.
TEST(PirTranslation, RunTimeBoundsAreSplitIntoOneElementTensors) {
  const std::vector<std::string> attrs = {
      Attr("axes", "0.a_array", R"([{"#": "0.a_i64", "D": 0}, {"#": "0.a_i64", "D": 1}])"),
      Attr("decrease_axes", "0.a_array", "[]"), Attr("none_axes", "0.a_array", "[]")};
  const ProgramDesc p = Translate(Program({
      Data(1, "x", "4, 4"),
      Data(2, "v", "1"),
      IntArray(3, "0, 0"),
      IntArray(4, "1, 1"),
      Op("1.shape64", {1}, {{5, Tensor("t_i64", "2")}}),
      Op("1.set_value_with_tensor_", {1, 2, 3, 5, 4}, {{6, Tensor("t_f32", "4, 4")}}, attrs),
      Fetch(6, 7, "out", 0),
  }));
  EXPECT_EQ(OpTypes(p), std::vector<std::string>(
                            {"feed", "feed", "shape", "cast", "split", "set_value", "fetch"}));
  const auto* split = FindOp(p, "split");
  EXPECT_EQ(std::get<int>(split->GetAttr("num")), 2);
  EXPECT_EQ(FindOp(p, "set_value")->Input("EndsTensorList"), split->Output("Out"));
  EXPECT_EQ(p.Block(0).FindVar(split->Output("Out")[1])->GetShape(), std::vector<int64_t>({1}));
  // `ends` computed at run time with a shape of `ends_dims`.
  const auto translate_with_ends = [&](const std::string& ends_dims) {
    Translate(Program({
        Data(1, "x", "4, 4"),
        Data(2, "v", "1"),
        Data(3, "ends", ends_dims),
        IntArray(4, "0, 0"),
        IntArray(5, "1, 1"),
        Op("1.set_value_with_tensor_", {1, 2, 4, 3, 5}, {{6, Tensor("t_f32", "4, 4")}}, attrs),
    }));
  };
  ExpectError<platform::UnimplementedError>([&] { translate_with_ends("-1"); },
                                            {"op 5 (`pd_op.set_value_with_tensor_`)", "operand 3",
                                             "shape [-1]", "number of values known"});
  // A damaged length is refused, not split into that many variables.
  ExpectError<platform::InvalidArgumentError>(
      [&] { translate_with_ends("1000000000000"); },
      {"op 5 (`pd_op.set_value_with_tensor_`)", "operand 3 holds 1000000000000 values"});
}

TEST(PirTranslation, ShapesCombinedFromScalarsGoToListSlots) {
  const ProgramDesc p = Translate(Program({
      Op("1.feed", {}, {{1, Tensor("t_f32", "-1, 6")}},
         {Attr("name", "0.a_str", "\"y\""), Attr("col", "0.a_i32", "1")}),
      Op("1.feed", {}, {{2, Tensor("t_f32", "-1, 6")}},
         {Attr("name", "0.a_str", "\"x\""), Attr("col", "0.a_i32", "0")}),
      Op("1.shape64", {2}, {{3, Tensor("t_i64", "2")}}),
      IntArray(4, "0"),
      IntArray(5, "1"),
      Op("1.slice", {3, 4, 5}, {{6, Tensor("t_i64", "")}},
         {Attr("axes", "0.a_array", R"([{"#": "0.a_i64", "D": 0}])"),
          Attr("decrease_axis", "0.a_array", R"([{"#": "0.a_i64", "D": 0}])")}),
      Full(7, "-1", "int64"),
      Op("0.combine", {6, 7}, {{8, R"({"#": "0.t_vec", "D": []})"}}),
      Op("1.reshape", {1, 8}, {{9, Tensor("t_f32", "-1, -1")}}),
      Fetch(9, 10, "out", 0),
  }));
  // Feeds keep the columns they were saved with.
  EXPECT_EQ(p.FeedTargetNames(), std::vector<std::string>({"x", "y"}));
  const auto* reshape = FindOp(p, "reshape2");
  ASSERT_NE(reshape, nullptr);
  ASSERT_EQ(reshape->Input("ShapeTensor").size(), 2u);
  EXPECT_EQ(reshape->Input("ShapeTensor")[0], FindOp(p, "slice")->Output("Out")[0]);
  EXPECT_EQ(reshape->Input("ShapeTensor")[1], FindOp(p, "fill_constant")->Output("Out")[0]);
  EXPECT_FALSE(reshape->HasInput("Shape"));
  const auto* slice = FindOp(p, "slice");
  EXPECT_EQ(std::get<std::vector<int>>(slice->GetAttr("starts")), std::vector<int>({0}));
  EXPECT_EQ(std::get<std::vector<int>>(slice->GetAttr("decrease_axis")), std::vector<int>({0}));
}

TEST(PirTranslation, IntegerConstantsKeepEveryDigit) {
  const ProgramDesc p = Translate(Program({
      Data(1, "x", "2"),
      Full(2, "9007199254740993", "int64"),
      Op("1.cast", {1}, {{3, Tensor("t_i64", "2")}}, {Attr("dtype", "1.a_dtype", "\"int64\"")}),
      Op("1.add", {3, 2}, {{4, Tensor("t_i64", "2")}}),
      Fetch(4, 5, "out", 0),
  }));
  const auto* full = FindOp(p, "fill_constant");
  ASSERT_NE(full, nullptr);
  EXPECT_EQ(std::get<int>(full->GetAttr("dtype")), static_cast<int>(DataType::INT64));
  // The JSON number 2^53 + 1 reads as a double (2^53); str_value carries what the double holds.
  EXPECT_EQ(std::get<std::string>(full->GetAttr("str_value")), "9007199254740992");
  const auto* cast = FindOp(p, "cast");
  EXPECT_EQ(std::get<int>(cast->GetAttr("in_dtype")), static_cast<int>(DataType::FLOAT32));
}

// Complex constants (paddle.to_tensor of complex values) keep both parts of each value.
TEST(PirTranslation, ComplexConstantsKeepBothParts) {
  const auto program = [](const std::string& values) {
    return Program({
        Data(1, "x", "3"),
        Op("1.assign_value", {}, {{2, Tensor("t_c64", "3")}},
           {Attr("shape", "0.a_array", R"([{"#": "0.a_i32", "D": 3}])"),
            Attr("dtype", "1.a_dtype", "\"complex64\""), Attr("values", "0.a_array", values)}),
        Op("1.cast", {1}, {{3, Tensor("t_c64", "3")}},
           {Attr("dtype", "1.a_dtype", "\"complex64\"")}),
        Op("1.multiply", {3, 2}, {{4, Tensor("t_c64", "3")}}),
        Fetch(4, 5, "out", 0),
    });
  };
  const ProgramDesc p = Translate(program(
      R"([{"#": "0.a_c128", "D": [0.0, 1.0]}, {"#": "0.a_c128", "D": [2.0, 0.0]},
          {"#": "0.a_c128", "D": [3.0, -1.5]}])"));
  const auto* constant = FindOp(p, "assign_value");
  ASSERT_NE(constant, nullptr);
  const auto& values = std::get<std::vector<framework::Scalar>>(constant->GetAttr("values"));
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[2].type, framework::Scalar::Type::COMPLEX128);
  EXPECT_EQ(values[2].c_imag, -1.5);
  framework::Scope scope;
  const auto out =
      framework::Executor(platform::CPUPlace())
          .Run(p, &scope, {{"x", MakeTensor<float>({3}, {2, -1, 0.5})}}, p.FetchTargetNames());
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].dtype(), DataType::COMPLEX64);
  // x * [1j, 2, 3 - 1.5j] with x real.
  EXPECT_EQ(ToDoubles(out[0]), std::vector<double>({0, 2, -2, 0, 1.5, -0.75}));
  ExpectError<platform::InvalidArgumentError>(
      [&] { Translate(program(R"([{"#": "0.a_c128", "D": [1.0]}])")); },
      {"op 1", "a_array", "[real, imaginary]"});
}

// pd_op.rms_norm (no CPU kernel in PaddlePaddle 3.3 to compare with) runs as rms_norm over
// the trailing normalized_shape dims: y = x / sqrt(mean(x^2) + epsilon) * scale.
TEST(PirTranslation, RmsNormNormalizesTheTrailingDims) {
  const ProgramDesc p = Translate(Program({
      Data(1, "x", "2, 3, 4"),
      Data(2, "scale", "3, 4"),
      Op("1.rms_norm", {1, 2}, {{3, Tensor("t_f32", "2, 3, 4")}, {4, Tensor("t_f32", "2")}},
         {Attr("normalized_shape", "0.a_array",
               R"([{"#": "0.a_i64", "D": 3}, {"#": "0.a_i64", "D": 4}])"),
          Attr("epsilon", "0.a_f64", "0.25")}),
      Fetch(3, 5, "out", 0),
  }));
  std::vector<double> x(24), scale(12);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(1.7 * static_cast<double>(i)) * 2.0;
  for (size_t i = 0; i < scale.size(); ++i) scale[i] = 0.5 + 0.1 * static_cast<double>(i);
  framework::Scope scope;
  const auto out = framework::Executor(platform::CPUPlace())
                       .Run(p, &scope,
                            {{"x", MakeTensor<float>({2, 3, 4}, x)},
                             {"scale", MakeTensor<float>({3, 4}, scale)}},
                            p.FetchTargetNames());
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].dims(), framework::DDim({2, 3, 4}));
  const float* y = out[0].data<float>();
  for (int row = 0; row < 2; ++row) {
    double squares = 0;
    for (int i = 0; i < 12; ++i) squares += x[row * 12 + i] * x[row * 12 + i];
    const double inv = 1.0 / std::sqrt(squares / 12 + 0.25);  // epsilon 0.25 matters here.
    for (int i = 0; i < 12; ++i) {
      EXPECT_NEAR(y[row * 12 + i], x[row * 12 + i] * inv * scale[i], 1e-6) << row << " " << i;
    }
  }
}

// PaddlePaddle writes legacy_reshape and legacy_matmul when it reads a 1.x ProgramDesc as PIR
// (they keep reshape's and matmul's 1.x meaning), and empty_like, whose values are left
// unset, only through paddle._C_ops.
TEST(PirTranslation, OpsOfProgramsReadFromOlderFormats) {
  const ProgramDesc p = Translate(Program({
      Data(1, "x", "2, 3, 4"),
      Data(2, "y", "2, 5, 4"),
      Op("1.legacy_matmul", {1, 2}, {{3, Tensor("t_f32", "2, 3, 5")}},
         {Attr("transpose_x", "0.a_bool", "false"), Attr("transpose_y", "0.a_bool", "true"),
          Attr("alpha", "0.a_f32", "0.5")}),
      IntArray(4, "2,-1"),
      Op("1.legacy_reshape", {3, 4}, {{5, Tensor("t_f32", "2, 15")}}),
      Op("1.empty_like", {5}, {{6, Tensor("t_f64", "2, 15")}},
         {Attr("dtype", "1.a_dtype", "\"float64\"")}),
      Fetch(5, 7, "out", 0),
      Fetch(6, 8, "like", 1),
  }));
  EXPECT_EQ(OpTypes(p), std::vector<std::string>({"feed", "feed", "matmul", "reshape",
                                                  "fill_any_like", "fetch", "fetch"}));
  EXPECT_EQ(std::get<std::vector<int>>(FindOp(p, "reshape")->GetAttr("shape")),
            std::vector<int>({2, -1}));
  std::vector<double> x(24), y(40);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.3 * static_cast<double>(i));
  for (size_t i = 0; i < y.size(); ++i) y[i] = std::cos(0.7 * static_cast<double>(i));
  framework::Scope scope;
  const auto out =
      framework::Executor(platform::CPUPlace())
          .Run(p, &scope,
               {{"x", MakeTensor<float>({2, 3, 4}, x)}, {"y", MakeTensor<float>({2, 5, 4}, y)}},
               p.FetchTargetNames());
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[0].dims(), framework::DDim({2, 15}));
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 5; ++j) {
        double dot = 0;
        for (int k = 0; k < 4; ++k) dot += x[(b * 3 + i) * 4 + k] * y[(b * 5 + j) * 4 + k];
        EXPECT_NEAR(out[0].data<float>()[b * 15 + i * 5 + j], 0.5 * dot, 1e-6) << b << i << j;
      }
    }
  }
  EXPECT_EQ(out[1].dims(), framework::DDim({2, 15}));
  EXPECT_EQ(out[1].dtype(), DataType::FLOAT64);
}

// lookup_table (1.x embeddings: ids [N, 1], padding_idx rows read as zeros) and box_clip, which
// PIR hands one image's boxes without a LoD.
TEST(PirTranslation, LookupTableAndBoxClip) {
  const ProgramDesc p = Translate(Program({
      Data(1, "ids", "3, 1", "int64"),
      Data(2, "table", "4, 2"),
      Op("1.lookup_table", {2, 1}, {{3, Tensor("t_f32", "3, 2")}},
         {Attr("padding_idx", "0.a_i64", "2")}),
      Data(4, "boxes", "2, 4"),
      Data(5, "im_info", "1, 3"),
      Op("1.box_clip", {4, 5}, {{6, Tensor("t_f32", "2, 4")}}),
      Fetch(3, 7, "rows", 0),
      Fetch(6, 8, "clipped", 1),
  }));
  framework::Scope scope;
  const auto out =
      framework::Executor(platform::CPUPlace())
          .Run(p, &scope,
               {{"ids", MakeTensor<int64_t>({3, 1}, {3, 2, 0})},
                {"table", MakeTensor<float>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8})},
                {"boxes", MakeTensor<float>({2, 4}, {-3, 2, 50, 70, 10, -1, 20, 30})},
                // Height 60, width 40, scale 2: boxes are clipped to [0, 19] x [0, 29].
                {"im_info", MakeTensor<float>({1, 3}, {60, 40, 2})}},
               p.FetchTargetNames());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(ToDoubles(out[0]), std::vector<double>({7, 8, 0, 0, 1, 2}));
  EXPECT_EQ(ToDoubles(out[1]), std::vector<double>({0, 2, 19, 29, 10, 0, 19, 29}));
}

// Ops of 1.x programs and of PaddlePaddle's CPU fusion passes, as PaddlePaddle holds them
// once it has read such a program as PIR: each operand and result goes to its slot (absent
// optional operands to none), renamed attributes to their ProgramDesc names.
TEST(PirTranslation, SequenceAndFusedOpsOfOlderProgramsFindTheirSlots) {
  const ProgramDesc p = Translate(Program({
      Data(1, "seq", "5, 12"),
      Parameter(2, "w_x", "12, 12"),
      Parameter(3, "w_h", "4, 12"),
      Parameter(4, "b", "1, 12"),
      Op("1.fusion_gru", {1, 0, 2, 3, 4},
         {{5, Tensor("t_f32", "-1")},
          {6, Tensor("t_f32", "-1")},
          {7, Tensor("t_f32", "-1")},
          {8, Tensor("t_f32", "-1")},
          {9, Tensor("t_f32", "5, 4")}},
         {Attr("origin_mode", "0.a_bool", "true")}),
      Parameter(10, "lstm_w", "4, 16"),
      Parameter(11, "lstm_b", "1, 28"),
      Op("1.lstm", {1, 0, 0, 10, 11},
         {{12, Tensor("t_f32", "5, 4")},
          {13, Tensor("t_f32", "5, 4")},
          {14, Tensor("t_f32", "-1")},
          {15, Tensor("t_f32", "-1")}},
         {Attr("is_reverse", "0.a_bool", "true")}),
      Parameter(16, "conv_w", "36, 4"),
      Parameter(17, "conv_b", "1, 4"),
      Op("1.fusion_seqconv_eltadd_relu", {1, 16, 17},
         {{18, Tensor("t_f32", "5, 4")}, {19, Tensor("t_f32", "-1")}},
         {Attr("context_length", "0.a_i32", "3"), Attr("context_start", "0.a_i32", "-1"),
          Attr("context_stride", "0.a_i32", "1")}),
      Fetch(9, 20, "gru", 0),
      Fetch(12, 21, "lstm", 1),
      Fetch(18, 22, "conv", 2),
  }));
  const framework::OpDesc* gru = FindOp(p, "fusion_gru");
  ASSERT_NE(gru, nullptr);
  EXPECT_TRUE(gru->Input("H0").empty());
  EXPECT_EQ(gru->Input("WeightX"), std::vector<std::string>({"w_x"}));
  EXPECT_EQ(gru->Input("WeightH"), std::vector<std::string>({"w_h"}));
  EXPECT_EQ(gru->Input("Bias"), std::vector<std::string>({"b"}));
  EXPECT_EQ(gru->Output("Hidden"), std::vector<std::string>({"gru"}));
  EXPECT_TRUE(std::get<bool>(gru->GetAttr("origin_mode")));
  const framework::OpDesc* lstm = FindOp(p, "lstm");
  ASSERT_NE(lstm, nullptr);
  EXPECT_TRUE(lstm->Input("H0").empty());
  EXPECT_TRUE(lstm->Input("C0").empty());
  EXPECT_EQ(lstm->Input("Weight"), std::vector<std::string>({"lstm_w"}));
  EXPECT_EQ(lstm->Output("Hidden"), std::vector<std::string>({"lstm"}));
  EXPECT_TRUE(std::get<bool>(lstm->GetAttr("is_reverse")));
  const framework::OpDesc* conv = FindOp(p, "fusion_seqconv_eltadd_relu");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->Input("Filter"), std::vector<std::string>({"conv_w"}));
  EXPECT_EQ(std::get<int>(conv->GetAttr("contextLength")), 3);
  EXPECT_EQ(std::get<int>(conv->GetAttr("contextStart")), -1);
}

// fusion_squared_mat_sub, a layout pass's trans_layout and a device copy run as the ops they
// name: ((XY)^2 - X^2 Y^2) * scalar, a transpose, a copy.
TEST(PirTranslation, FusedMatrixOpsLayoutTransposesAndCopiesRun) {
  const ProgramDesc p = Translate(Program({
      Data(1, "x", "2, 3"),
      Data(2, "y", "3, 2"),
      Op("1.fusion_squared_mat_sub", {1, 2},
         {{3, Tensor("t_f32", "-1")},
          {4, Tensor("t_f32", "-1")},
          {5, Tensor("t_f32", "-1")},
          {6, Tensor("t_f32", "2, 2")}},
         {Attr("scalar", "0.a_f32", "0.5")}),
      Op("1.trans_layout", {1}, {{7, Tensor("t_f32", "3, 2")}},
         {Attr("perm", "0.a_array", R"([{"#": "0.a_i32", "D": 1}, {"#": "0.a_i32", "D": 0}])")}),
      Op("1.memcpy_d2h", {7}, {{8, Tensor("t_f32", "3, 2")}},
         {Attr("dst_place_type", "0.a_i32", "0")}),
      Fetch(6, 9, "sub", 0),
      Fetch(8, 10, "t", 1),
  }));
  const std::vector<double> x = {1, -2, 3, 0.5, 4, -1}, y = {2, 1, -1, 3, 0.5, -2};
  framework::Scope scope;
  const auto out =
      framework::Executor(platform::CPUPlace())
          .Run(p, &scope,
               {{"x", MakeTensor<float>({2, 3}, x)}, {"y", MakeTensor<float>({3, 2}, y)}},
               p.FetchTargetNames());
  ASSERT_EQ(out.size(), 2u);
  const std::vector<double> got = ToDoubles(out[0]);
  ASSERT_EQ(got.size(), 4u);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      double xy = 0, x2y2 = 0;
      for (int k = 0; k < 3; ++k) {
        xy += x[i * 3 + k] * y[k * 2 + j];
        x2y2 += x[i * 3 + k] * x[i * 3 + k] * y[k * 2 + j] * y[k * 2 + j];
      }
      EXPECT_NEAR(got[i * 2 + j], (xy * xy - x2y2) * 0.5, 1e-5) << i << j;
    }
  }
  EXPECT_EQ(out[1].dims(), framework::DDim({3, 2}));
  EXPECT_EQ(ToDoubles(out[1]), std::vector<double>({1, 0.5, -2, 4, 3, -1}));
}

// paddle.nn.functional.batch_norm without weight and bias: PIR leaves the operands out, the
// translation fills ones and zeros shaped like the running mean.
TEST(PirTranslation, BatchNormWithoutScaleOrBias) {
  const ProgramDesc p = Translate(Program({
      Data(1, "x", "2, 3, 1, 2"),
      Data(2, "mean", "3"),
      Data(3, "variance", "3"),
      Op("1.batch_norm", {1, 2, 3, 0, 0},
         {{4, Tensor("t_f32", "2, 3, 1, 2")},
          {5, Tensor("t_f32", "3")},
          {6, Tensor("t_f32", "3")},
          {7, Tensor("t_f32", "3")},
          {8, Tensor("t_f32", "3")},
          {9, Tensor("t_f32", "0")}},
         {Attr("is_test", "0.a_bool", "true"), Attr("momentum", "0.a_f32", "0.9"),
          Attr("epsilon", "0.a_f32", "0"), Attr("data_format", "0.a_str", "\"NCHW\""),
          Attr("use_global_stats", "0.a_bool", "false"),
          Attr("trainable_statistics", "0.a_bool", "false")}),
      Fetch(4, 10, "y", 0),
  }));
  EXPECT_NE(FindOp(p, "fill_any_like"), nullptr);
  framework::Scope scope;
  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const auto out = framework::Executor(platform::CPUPlace())
                       .Run(p, &scope,
                            {{"x", MakeTensor<float>({2, 3, 1, 2}, x)},
                             {"mean", MakeTensor<float>({3}, {1, 2, 3})},
                             {"variance", MakeTensor<float>({3}, {4, 1, 16})}},
                            p.FetchTargetNames());
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> want;
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = (i / 2) % 3;
    want.push_back((x[i] - (c + 1.0)) / std::sqrt(std::vector<double>{4, 1, 16}[c]));
  }
  ExpectNear(ToDoubles(out[0]), want, 1e-6, 0, "batch_norm without scale and bias");
}

// nn.SyncBatchNorm exported (on a GPU: PaddlePaddle's CPU build has no kernel for it): an
// inference program's sync_batch_norm_ is batch_norm.
TEST(PirTranslation, SyncBatchNormIsBatchNorm) {
  const ProgramDesc p = Translate(Program({
      Data(1, "x", "1, 2, 1, 2"),
      Data(2, "mean", "2"),
      Data(3, "variance", "2"),
      Data(4, "scale", "2"),
      Data(5, "bias", "2"),
      Op("1.sync_batch_norm_", {1, 2, 3, 4, 5},
         {{6, Tensor("t_f32", "1, 2, 1, 2")},
          {7, Tensor("t_f32", "2")},
          {8, Tensor("t_f32", "2")},
          {9, Tensor("t_f32", "2")},
          {10, Tensor("t_f32", "2")},
          {11, Tensor("t_f32", "0")}},
         {Attr("is_test", "0.a_bool", "true"), Attr("momentum", "0.a_f32", "0.9"),
          Attr("epsilon", "0.a_f32", "0"), Attr("data_format", "0.a_str", "\"NCHW\""),
          Attr("use_global_stats", "0.a_bool", "false"),
          Attr("trainable_statistics", "0.a_bool", "false")}),
      Fetch(6, 12, "y", 0),
  }));
  EXPECT_NE(FindOp(p, "batch_norm"), nullptr);
  EXPECT_TRUE(framework::PirOpIsTranslated("pd_op.sync_batch_norm"));
  framework::Scope scope;
  const auto out = framework::Executor(platform::CPUPlace())
                       .Run(p, &scope,
                            {{"x", MakeTensor<float>({1, 2, 1, 2}, {1, 2, 3, 4})},
                             {"mean", MakeTensor<float>({2}, {1, 2})},
                             {"variance", MakeTensor<float>({2}, {4, 16})},
                             {"scale", MakeTensor<float>({2}, {2, 3})},
                             {"bias", MakeTensor<float>({2}, {0.5, -1})}},
                            p.FetchTargetNames());
  ASSERT_EQ(out.size(), 1u);
  // 2 (x - 1) / 2 + 0.5 and 3 (x - 2) / 4 - 1.
  ExpectNear(ToDoubles(out[0]), {0.5, 1.5, -0.25, 0.5}, 1e-6, 0, "sync_batch_norm_");
}

// JSON has no infinities: PIR writes them as "VD" strings.
TEST(PirTranslation, InfinitiesAreRead) {
  const ProgramDesc p = Translate(Program({
      Data(1, "x", "2"),
      Op("1.full", {}, {{2, Tensor("t_f32", "1")}},
         {Attr("shape", "1.a_intarray", "[1]"),
          R"({"AT": {"#": "0.a_f64", "VD": "-INF"}, "N": "value"})",
          Attr("dtype", "1.a_dtype", "\"float32\"")}),
      Op("1.maximum", {1, 2}, {{3, Tensor("t_f32", "2")}}),
      Op("1.leaky_relu", {3}, {{4, Tensor("t_f32", "2")}},
         {R"({"AT": {"#": "0.a_f32", "VD": "NaN"}, "N": "negative_slope"})"}),  // As written.
      Fetch(4, 5, "out", 0),
  }));
  EXPECT_EQ(std::get<float>(FindOp(p, "fill_constant")->GetAttr("value")),
            -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(std::get<float>(FindOp(p, "leaky_relu")->GetAttr("alpha"))));
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Translate(
            Program({Data(1, "x", "2"),
                     Op("1.leaky_relu", {1}, {{2, Tensor("t_f32", "2")}},
                        {R"({"AT": {"#": "0.a_f32", "VD": "LOTS"}, "N": "negative_slope"})"})}));
      },
      {"op 1", "a_f32", "without a value"});
}

TEST(PirTranslation, DamagedFilesAreTypedErrors) {
  ExpectError<platform::InvalidArgumentError>([] { Translate("{\"base_code\": "); },
                                              {"model.json", "not valid JSON"});
  ExpectError<platform::InvalidArgumentError>(
      [] { Translate(R"({"base_code": {"magic": "onnx", "version": 1}})"); },
      {"model.json", "magic"});
  ExpectError<platform::InvalidArgumentError>(
      [] { Translate(R"({"base_code": {"magic": "pir", "version": "4"}})"); },
      {"model.json", "version", "integer"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Translate(Program({Op("1.relu", {9}, {{2, Tensor("t_f32", "2")}})}));
      },
      {"op 0", "pd_op.relu", "operand 0", "value 9", "no earlier op"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Translate(Program({Data(1, "x", "2"), Op("1.relu", {1}, {{1, Tensor("t_f32", "2")}})}));
      },
      {"op 1", "value 1", "defined twice"});
  // An attribute of the wrong kind for the op that reads it.
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Translate(Program({Data(1, "x", "1, 1, 4, 4"), Parameter(2, "w", "1, 1, 1, 1"),
                           Op("1.conv2d", {1, 2}, {{3, Tensor("t_f32", "1, 1, 4, 4")}},
                              {Attr("strides", "0.a_str", "\"two\"")})}));
      },
      {"op 2", "pd_op.conv2d", "attribute `strides`", "two", "INTS"});
  // Numbers that do not fit the attribute's kind.
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Translate(Program({Data(1, "x", "2"), Op("1.softmax", {1}, {{2, Tensor("t_f32", "2")}},
                                                 {Attr("axis", "0.a_i32", "1e300")})}));
      },
      {"op 1", "pd_op.softmax", "a_i32", "expected an integer"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Translate(Program({Data(1, "x", "2"), Op("1.softmax", {1}, {{2, Tensor("t_f32", "2")}},
                                                 {Attr("axis", "0.a_i32", "5000000000")})}));
      },
      {"op 1", "out of range"});
  // A constant too large to keep as numbers is still an op (no overflow counting it).
  const ProgramDesc big = Translate(
      Program({Op("1.full", {}, {{1, Tensor("t_f32", "-1")}},
                  {Attr("shape", "1.a_intarray", "[4611686018427387904, 4611686018427387904]"),
                   Attr("value", "0.a_f64", "1e300"), Attr("dtype", "1.a_dtype", "\"int64\"")}),
               Fetch(1, 2, "out", 0)}));
  EXPECT_EQ(std::get<std::string>(FindOp(big, "fill_constant")->GetAttr("str_value")),
            "1.0000000000000001e+300");  // %.17g: reads back as the same double.
  // Keys of the wrong JSON type.
  ExpectError<platform::InvalidArgumentError>(
      [] { Translate(Program({R"({"#": "1.relu", "I": 3, "O": []})"})); },
      {"op 0", "`I` should be an array"});
  // An attribute of a kind this reader does not know is refused where the op needs it (a
  // damaged `a_f32`: the default would silently change what the op computes), and ignored
  // where the ProgramDesc op has no such attribute (PIR's places).
  const auto scale = [](const std::string& bias_kind) {
    return Program(
        {Data(1, "x", "2"), Full(2, "2"),
         Op("1.scale", {1, 2}, {{3, Tensor("t_f32", "2")}},
            {Attr("bias", bias_kind, "1.0"), Attr("bias_after_scale", "0.a_bool", "true"),
             Attr("place", "1.a_place", R"([0, 0, ""])")}),
         Fetch(3, 4, "out", 0)});
  };
  EXPECT_FLOAT_EQ(std::get<float>(FindOp(Translate(scale("0.a_f32")), "scale")->GetAttr("bias")),
                  1.0f);
  ExpectError<platform::InvalidArgumentError>(
      [&] { Translate(scale("0.a_f02")); },
      {"op 2 (`pd_op.scale`)", "attribute `bias` is of kind `0.a_f02`", "does not read"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        Translate(Program({Op("1.full", {}, {{1, Tensor("t_f32", "1")}},
                              {Attr("shape", "1.a_intarray", "[1]"), Attr("value", "0.a_x64", "1"),
                               Attr("dtype", "1.a_dtype", "\"float32\"")})}));
      },
      {"op 0 (`pd_op.full`)", "attribute `value` is of kind `0.a_x64`"});
}

TEST(PirTranslation, UnsupportedProgramsSayWhy) {
  ExpectError<platform::UnimplementedError>([] { Translate(Program({}, 99)); },
                                            {"model.json", "PIR version 99", "newer"});
  ExpectError<platform::UnimplementedError>(
      [] {
        Translate(
            Program({Data(1, "x", "2"), Op("1.frobnicate", {1}, {{2, Tensor("t_f32", "2")}})}));
      },
      {"op 1", "pd_op.frobnicate", "no ProgramDesc op"});
  const std::string region_op = Op("1.some_region_op", {1}, {}, {},
                                   {Region({}, {Op("1.relu", {1}, {{5, Tensor("t_f32", "2")}})})});
  ExpectError<platform::UnimplementedError>(
      [&] {
        Translate(Program({Data(1, "x", "2"), region_op}));
      },
      {"op 1", "pd_op.some_region_op", "control flow"});
  // Every missing kind of op at once, with its first place and count, inside regions too.
  ExpectError<platform::UnimplementedError>(
      [&] {
        Translate(Program(
            {Data(1, "x", "2"), Op("1.frobnicate", {1}, {{2, Tensor("t_f32", "2")}}), region_op,
             Op("1.if", {1}, {}, {},
                {Region({}, {Op("1.frobnicate", {2}, {{3, Tensor("t_f32", "2")}}), Yield({})}),
                 Region({}, {Op("1.unknown_op", {2}, {{4, Tensor("t_f32", "2")}}), Yield({})})})}));
      },
      {"3 kind(s)", "op 1 (`pd_op.frobnicate`, 2 times)",
       "op 2 (`pd_op.some_region_op`, control flow)", "op 3, region 1, op 0 (`pd_op.unknown_op`)",
       "FLAGS_enable_pir_api=0"});
  // A pool size computed when the program runs has no place in pool2d's attributes.
  ExpectError<platform::UnimplementedError>(
      [] {
        Translate(
            Program({Data(1, "x", "1, 1, 4, 4"), Op("1.shape64", {1}, {{2, Tensor("t_i64", "4")}}),
                     Op("1.pool2d", {1, 2}, {{3, Tensor("t_f32", "1, 1, 2, 2")}})}));
      },
      {"op 2", "pd_op.pool2d", "attribute `ksize`", "constant"});
}

TEST(PirTranslation, OpsOfTheFixturesAreTranslated) {
  operators::RegisterAllOps();
  EXPECT_TRUE(framework::PirOpIsTranslated("pd_op.conv2d"));
  EXPECT_TRUE(framework::PirOpIsTranslated("pd_op.batch_norm_"));  // In-place variant.
  EXPECT_TRUE(framework::PirOpIsTranslated("builtin.combine"));
  EXPECT_TRUE(framework::PirOpIsTranslated("pd_op.fetch"));
  EXPECT_FALSE(framework::PirOpIsTranslated("pd_op.frobnicate"));
  EXPECT_TRUE(framework::PirOpIsTranslated("pd_op.if"));
  EXPECT_TRUE(framework::PirOpIsTranslated("pd_op.while"));
  EXPECT_TRUE(framework::PirOpIsTranslated("cf.yield"));  // Within an if or a while.
  EXPECT_TRUE(framework::PirOpIsTranslated("pd_op.pylayer"));
}

// The translations of the saved fixtures pass the checks a loader runs, shape inference
// included (feeds keep their -1 dims).
TEST(PirTranslation, SavedProgramsValidate) {
  operators::RegisterAllOps();
  for (const char* name :
       {"pir_convnet_tiny", "pir_transformer_tiny", "pir_ops_tiny", "pir_vision_ops_tiny",
        "pir_elementwise_ops_tiny", "pir_seq2seq_tiny", "pir_control_flow_tiny",
        "pir_faster_rcnn_tiny", "pir_mask_rcnn_tiny", "pir_detection_ops_tiny", "pir_rnn_tiny",
        "pir_more_ops_tiny", "pir_special_ops_tiny", "pir_operator_ops_tiny"}) {
    SCOPED_TRACE(name);
    const std::string path =
        std::string(PL_SOURCE_DIR "/tests/fixtures/models/") + name + "/model.json";
    const ProgramDesc p = ProgramDesc::Load(path);
    EXPECT_NO_THROW(fuzz::ValidateAndInferShapes(p));
    EXPECT_FALSE(p.FeedTargetNames().empty());
    EXPECT_FALSE(p.FetchTargetNames().empty());
  }
}

// Every prefix of a real saved program (one with control flow among them) is either the whole
// program or a typed error; flipped bytes are parsed or refused, never a crash.
TEST(PirTranslation, TruncatedProgramsNeverCrash) {
  operators::RegisterAllOps();
  for (const char* name : {"pir_transformer_tiny", "pir_control_flow_tiny"}) {
    SCOPED_TRACE(name);
    const std::string path =
        std::string(PL_SOURCE_DIR "/tests/fixtures/models/") + name + "/model.json";
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << path;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(text.size(), 1000u);
    EXPECT_GT(ProgramDesc::FromBytes(text, path).Block(0).OpSize(), 10u);
    int errors = 0;
    for (size_t n = 1; n < text.size(); n += 97) {
      try {
        ProgramDesc::FromBytes(text.substr(0, n), path);
      } catch (const platform::Error&) {
        ++errors;
      }
    }
    EXPECT_EQ(errors, static_cast<int>((text.size() - 2) / 97 + 1));
    for (size_t at = 0; at < text.size(); at += 211) {
      std::string damaged = text;
      damaged[at] = damaged[at] == '1' ? '7' : '1';
      try {
        fuzz::ValidateAndInferShapes(ProgramDesc::FromBytes(damaged, path));
      } catch (const platform::Error&) {
      }
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

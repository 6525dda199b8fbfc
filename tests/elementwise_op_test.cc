// elementwise_add/sub/mul/div: forward against a naive double reference over a table of
// broadcasting cases (each with its expected alignment, written out by hand), both dtypes;
// build-time shapes with unknown dims; declarations; errors.
#include <functional>

#include "framework/op_info.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct BinaryOp {
  const char* type;
  double (*reference)(double, double);
};

const BinaryOp kOps[] = {
    {"elementwise_add", [](double a, double b) { return a + b; }},
    {"elementwise_sub", [](double a, double b) { return a - b; }},
    {"elementwise_mul", [](double a, double b) { return a * b; }},
    {"elementwise_div", [](double a, double b) { return a / b; }},
};

// X and Y with `axis`, the shapes they take once aligned to the output rank, and Out.
struct BroadcastCase {
  DDim x, y;
  int axis;
  DDim x_aligned, y_aligned, out;
};

const BroadcastCase kCases[] = {
    // Same shape.
    {{2, 3, 4}, {2, 3, 4}, -1, {2, 3, 4}, {2, 3, 4}, {2, 3, 4}},
    {{5}, {5}, 0, {5}, {5}, {5}},
    // Y = [N], right-aligned.
    {{2, 3, 4}, {4}, -1, {2, 3, 4}, {1, 1, 4}, {2, 3, 4}},
    // Y in the middle or at the front with an explicit axis.
    {{2, 3, 4}, {3}, 1, {2, 3, 4}, {1, 3, 1}, {2, 3, 4}},
    {{2, 3, 4}, {2}, 0, {2, 3, 4}, {2, 1, 1}, {2, 3, 4}},
    {{2, 3, 4}, {2, 3}, 0, {2, 3, 4}, {2, 3, 1}, {2, 3, 4}},
    {{2, 3, 4, 5}, {3, 4}, 1, {2, 3, 4, 5}, {1, 3, 4, 1}, {2, 3, 4, 5}},
    // Y with trailing 1s: inside X, and dropped where they would run past X's end.
    {{2, 3, 4}, {3, 1}, 1, {2, 3, 4}, {1, 3, 1}, {2, 3, 4}},
    {{2, 3}, {3, 1}, 1, {2, 3}, {1, 3}, {2, 3}},
    {{2, 3, 4, 5}, {3, 4, 1, 1}, 1, {2, 3, 4, 5}, {1, 3, 4, 1}, {2, 3, 4, 5}},
    // Size-1 dims broadcast on both sides.
    {{2, 1, 4}, {3, 1}, -1, {2, 1, 4}, {1, 3, 1}, {2, 3, 4}},
    {{2, 1, 4}, {2, 3, 1}, -1, {2, 1, 4}, {2, 3, 1}, {2, 3, 4}},
    {{2, 3}, {1, 1}, -1, {2, 3}, {1, 1}, {2, 3}},
    {{1, 3}, {2, 1}, 0, {1, 3}, {2, 1}, {2, 3}},
    // X of lower rank than Y.
    {{3}, {2, 3}, -1, {1, 3}, {2, 3}, {2, 3}},
    {{4, 1}, {2, 3, 1, 5}, -1, {1, 1, 4, 1}, {2, 3, 1, 5}, {2, 3, 4, 5}},
    {{3}, {2, 3, 4}, 1, {1, 3, 1}, {2, 3, 4}, {2, 3, 4}},
    // Single elements and 0-D tensors.
    {{1}, {1}, -1, {1}, {1}, {1}},
    {{}, {2, 3}, -1, {1, 1}, {2, 3}, {2, 3}},
    {{2, 3}, {}, -1, {2, 3}, {1, 1}, {2, 3}},
    {{}, {}, -1, {}, {}, {}},
    // Zero-size dims.
    {{0, 3}, {3}, -1, {0, 3}, {1, 3}, {0, 3}},
    {{2, 0}, {1}, -1, {2, 0}, {1, 1}, {2, 0}},
    {{2, 1}, {1, 0}, -1, {2, 1}, {1, 0}, {2, 0}},
    // Large enough to be split across threads, with each input stride kind innermost.
    {{64, 300}, {300}, -1, {64, 300}, {1, 300}, {64, 300}},
    {{3, 20000}, {3, 1}, -1, {3, 20000}, {3, 1}, {3, 20000}},
    {{7, 1, 5000}, {1, 6, 1}, -1, {7, 1, 5000}, {1, 6, 1}, {7, 6, 5000}},
};

// Row-major offset into a tensor of `dims` for an output index, broadcasting size-1 dims.
int64_t BroadcastOffset(const std::vector<int64_t>& out_index, const DDim& dims) {
  int64_t offset = 0;
  for (int i = 0; i < dims.size(); ++i) {
    offset = offset * dims[i] + (dims[i] == 1 ? 0 : out_index[i]);
  }
  return offset;
}

std::vector<double> Reference(const BinaryOp& op, const BroadcastCase& c,
                              const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> out;
  const int rank = c.out.size();
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t n = 0; n < c.out.numel(); ++n) {
    int64_t rest = n;
    for (int i = rank - 1; i >= 0; --i) {
      index[i] = rest % c.out[i];
      rest /= c.out[i];
    }
    out.push_back(op.reference(x[BroadcastOffset(index, c.x_aligned)],
                               y[BroadcastOffset(index, c.y_aligned)]));
  }
  return out;
}

template <typename T>
std::vector<double> Rounded(const std::vector<double>& v) {
  std::vector<double> r;
  for (double a : v) r.push_back(static_cast<double>(static_cast<T>(a)));
  return r;
}

template <typename T>
void CheckCase(const BinaryOp& op, const BroadcastCase& c) {
  const std::string what = std::string(op.type) + " X" + c.x.ToString() + " Y" +
                           c.y.ToString() + " axis=" + std::to_string(c.axis);
  const auto x = Rounded<T>(RandomValues(c.x.numel(), -2, 2, 3));
  // Y away from 0 so that division stays well conditioned.
  auto y = Rounded<T>(RandomValues(c.y.numel(), 0.5, 2, 5));
  for (size_t i = 0; i < y.size(); i += 2) y[i] = -y[i];
  auto r = RunOp(op.type, {{"X", {MakeTensor<T>(c.x, x)}}, {"Y", {MakeTensor<T>(c.y, y)}}},
                 {{"Out", 1}}, {{"axis", c.axis}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), c.out) << what;
  EXPECT_EQ(out.dtype(), platform::ToDataType<T>()) << what;
  const DataType t = platform::ToDataType<T>();
  ExpectNear(ToDoubles(out), Reference(op, c, x, y), RelTol(t), AbsTol(t), what);
}

TEST(ElementwiseOps, ForwardMatchesReference) {
  for (const auto& op : kOps) {
    for (const auto& c : kCases) {
      CheckCase<float>(op, c);
      CheckCase<double>(op, c);
    }
  }
}

TEST(ElementwiseOps, DefaultAxisIsRightAlignment) {
  auto r = RunOp("elementwise_add",
                 {{"X", {MakeTensor<double>({2, 3}, {1, 2, 3, 4, 5, 6})}},
                  {"Y", {MakeTensor<double>({3}, {10, 20, 30})}}},
                 {{"Out", 1}});
  ExpectNear(ToDoubles(r.outputs["Out"][0]), {11, 22, 33, 14, 25, 36}, 0, 0, "add");
}

TEST(ElementwiseOps, InputsAreLeftUnchanged) {
  const std::vector<double> xv = {1, 2, 3, 4, 5, 6}, yv = {2, 4};
  DenseTensor x = MakeTensor<float>({2, 3}, xv), y = MakeTensor<float>({2}, yv);
  RunOp("elementwise_div", {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}}, {{"axis", 0}});
  ExpectNear(ToDoubles(x), xv, 0, 0, "X");
  ExpectNear(ToDoubles(y), yv, 0, 0, "Y");
}

// Shapes inferred on VarDescs, where -1 marks a dim unknown until run time.
std::vector<int64_t> BuildTimeShape(const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                                    int axis, bool set_axis = true) {
  operators::RegisterAllOps();
  framework::ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  b.Var("x")->SetShape(x);
  b.Var("x")->SetDataType(DataType::FLOAT32);
  b.Var("y")->SetShape(y);
  b.Var("y")->SetDataType(DataType::FLOAT32);
  framework::OpDesc* op = b.AppendOp();
  op->SetType("elementwise_mul");
  op->SetInput("X", {"x"});
  op->SetInput("Y", {"y"});
  op->SetOutput("Out", {"out"});
  if (set_axis) op->SetAttr("axis", axis);
  framework::InferVarTypeAndShape(op, &b);
  EXPECT_EQ(b.FindVar("out")->GetDataType(), DataType::FLOAT32);
  return b.FindVar("out")->GetShape();
}

TEST(ElementwiseOps, BuildTimeShapesWithUnknownDims) {
  using V = std::vector<int64_t>;
  EXPECT_EQ(BuildTimeShape({-1, 3, 4}, {3}, 1), (V{-1, 3, 4}));
  EXPECT_EQ(BuildTimeShape({-1, 1}, {5}, -1), (V{-1, 5}));
  EXPECT_EQ(BuildTimeShape({-1}, {1}, -1), (V{-1}));
  EXPECT_EQ(BuildTimeShape({-1, 3}, {-1, 1}, -1), (V{-1, 3}));
  EXPECT_EQ(BuildTimeShape({2, 3}, {-1}, -1), (V{2, 3}));
  // Without an `axis` in the description the registered default -1 applies.
  EXPECT_EQ(BuildTimeShape({-1, 3}, {3}, 0, false), (V{-1, 3}));
}

TEST(ElementwiseOps, DeclarationsAndVersion) {
  operators::RegisterAllOps();
  for (const auto& op : kOps) {
    const auto& info = framework::OpInfoMap::Instance().Get(op.type);
    EXPECT_EQ(info.version(), 1) << op.type;
    ASSERT_EQ(info.checkpoints.size(), 1u);
    EXPECT_EQ(info.checkpoints[0].note,
              std::string("Register ") + op.type + " for adding the attribute of Scale_y");
    EXPECT_NE(info.spec.comment.find("$$Out = X"), std::string::npos) << op.type;
    const auto* axis = info.spec.FindAttr("axis");
    ASSERT_NE(axis, nullptr);
    EXPECT_FALSE(axis->extra);
    EXPECT_EQ(std::get<int>(axis->default_value), -1);
    EXPECT_EQ(std::get<bool>(info.spec.FindAttr("use_mkldnn")->default_value), false);
    for (const char* name : {"Scale_x", "Scale_y", "Scale_out"}) {
      const auto* a = info.spec.FindAttr(name);
      ASSERT_NE(a, nullptr) << name;
      EXPECT_TRUE(a->extra);
      EXPECT_EQ(std::get<float>(a->default_value), 1.0f);
    }
    for (const char* name : {"x_data_format", "y_data_format", "use_mkldnn"}) {
      ASSERT_NE(info.spec.FindAttr(name), nullptr) << name;
      EXPECT_TRUE(info.spec.FindAttr(name)->extra) << name;
    }
    EXPECT_EQ(std::get<std::string>(info.spec.FindAttr("x_data_format")->default_value), "");
  }
}

// Runs `fn`, expecting an InvalidArgumentError whose message contains every `parts`.
void ExpectInvalidArgument(const std::function<void()>& fn,
                           const std::vector<std::string>& parts) {
  try {
    fn();
    FAIL() << "expected InvalidArgumentError";
  } catch (const platform::InvalidArgumentError& e) {
    for (const auto& p : parts) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << p << " in: " << e.what();
    }
  }
}

void RunBinary(const char* type, const DDim& x, const DDim& y, int axis) {
  RunOp(type,
        {{"X", {MakeTensor<float>(x, std::vector<double>(x.numel(), 1.0))}},
         {"Y", {MakeTensor<float>(y, std::vector<double>(y.numel(), 1.0))}}},
        {{"Out", 1}}, {{"axis", axis}});
}

TEST(ElementwiseOps, IncompatibleShapesNameOpShapesAndAxis) {
  ExpectInvalidArgument([] { RunBinary("elementwise_add", {2, 3}, {4}, -1); },
                        {"op `elementwise_add`", "input `X` shape [2, 3]", "input `Y` shape [4]",
                         "cannot be broadcast with axis=-1"});
  ExpectInvalidArgument([] { RunBinary("elementwise_sub", {2, 3, 4}, {4}, 1); },
                        {"op `elementwise_sub`", "input `X` shape [2, 3, 4]",
                         "input `Y` shape [4]", "cannot be broadcast with axis=1"});
  ExpectInvalidArgument([] { RunBinary("elementwise_mul", {0, 3}, {2, 3}, -1); },
                        {"op `elementwise_mul`", "cannot be broadcast"});
}

TEST(ElementwiseOps, BadAxisNamesAttribute) {
  ExpectInvalidArgument([] { RunBinary("elementwise_div", {2, 3, 4}, {3}, 3); },
                        {"op `elementwise_div` attribute `axis`", "received 3"});
  ExpectInvalidArgument([] { RunBinary("elementwise_div", {2, 3, 4}, {3}, -2); },
                        {"op `elementwise_div` attribute `axis`", "received -2"});
  ExpectInvalidArgument([] { RunBinary("elementwise_add", {2, 3}, {2, 3, 4}, 2); },
                        {"op `elementwise_add` attribute `axis`"});
  ExpectInvalidArgument([] { RunBinary("elementwise_add", {2, 3}, {1, 3}, 1); },
                        {"op `elementwise_add` attribute `axis`", "[0, 0]", "received 1"});
}

// PaddlePaddle adds bool tensors as `or` and multiplies them as `and` (masks combined by DETR
// heads); the other ops take no bool.
TEST(ElementwiseOps, BoolAddIsOrAndMulIsAnd) {
  const DenseTensor a = MakeTensor<bool>({2, 2}, {1, 1, 0, 0});
  const DenseTensor b = MakeTensor<bool>({2}, {1, 0});  // Broadcast along the rows.
  const auto add = RunOp("elementwise_add", {{"X", {a}}, {"Y", {b}}}, {{"Out", 1}});
  const DenseTensor& sum = add.outputs.at("Out")[0];
  EXPECT_EQ(sum.dtype(), DataType::BOOL);
  EXPECT_EQ(ToDoubles(sum), (std::vector<double>{1, 1, 1, 0}));
  const auto mul = RunOp("elementwise_mul", {{"X", {a}}, {"Y", {b}}}, {{"Out", 1}});
  EXPECT_EQ(mul.outputs.at("Out")[0].dtype(), DataType::BOOL);
  EXPECT_EQ(ToDoubles(mul.outputs.at("Out")[0]), (std::vector<double>{1, 0, 0, 0}));
  ExpectError<platform::NotFoundError>(
      [&] {
        RunOp("elementwise_sub", {{"X", {a}}, {"Y", {b}}}, {{"Out", 1}});
      },
      {"elementwise_sub", "bool"});
}

TEST(ElementwiseOps, MixedIntegerInputNamesSlot) {
  DenseTensor y({3}, DataType::INT64);
  y.mutable_data<int64_t>(platform::CPUPlace());
  ExpectInvalidArgument(
      [&] {
        RunOp("elementwise_add", {{"X", {MakeTensor<float>({3}, {1, 2, 3})}}, {"Y", {y}}},
              {{"Out", 1}});
      },
      {"op `elementwise_add` input `Y`", "expected dtype float32", "int64"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

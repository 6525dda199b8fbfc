// flatten_contiguous_range, flatten2 / flatten, concat, split and slice: forward against naive index arithmetic
// in double, tensor inputs that override attributes, gradients against finite differences
// (second order through the differentiable grad ops), the backward ops the grad makers emit,
// build-time shapes and error messages.
#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/var_type_inference.h"
#include "operators/tensor/tensor_op_util.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::BlockDesc;
using framework::OpDesc;
using framework::ProgramDesc;

template <typename ErrorT>
void ExpectError(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected an error";
  } catch (const ErrorT& e) {
    for (const auto& p : parts) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
  }
}

// Row-major multi-index of element `flat` of `dims`.
std::vector<int64_t> Unravel(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    idx[i] = flat % dims[i];
    flat /= dims[i];
  }
  return idx;
}

int64_t Ravel(const std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  int64_t flat = 0;
  for (size_t i = 0; i < dims.size(); ++i) flat = flat * dims[i] + idx[i];
  return flat;
}

// The box [offset, offset + box) of x (dims `dims`), in row-major box order.
std::vector<double> NaiveBox(const std::vector<double>& x, const std::vector<int64_t>& dims,
                             const std::vector<int64_t>& offset, const std::vector<int64_t>& box) {
  int64_t n = 1;
  for (int64_t d : box) n *= d;
  std::vector<double> out;
  for (int64_t k = 0; k < n; ++k) {
    std::vector<int64_t> idx = Unravel(k, box);
    for (size_t i = 0; i < idx.size(); ++i) idx[i] += offset[i];
    out.push_back(x[Ravel(idx, dims)]);
  }
  return out;
}

void AddOp(BlockDesc* b, const std::string& type, const framework::VariableNameMap& in,
           const framework::VariableNameMap& out, const AttributeMap& attrs = {}) {
  OpDesc* op = b->AppendOp();
  op->SetType(type);
  for (const auto& kv : in) op->SetInput(kv.first, kv.second);
  for (const auto& kv : out) op->SetOutput(kv.first, kv.second);
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::InferVarTypeAndShape(op, b);
}

framework::VarDesc* Declare(BlockDesc* b, const std::string& name, DataType dtype,
                            const std::vector<int64_t>& shape) {
  framework::VarDesc* v = b->Var(name);
  v->SetDataType(dtype);
  v->SetShape(shape);
  return v;
}

std::vector<std::string> BackwardOpTypes(const ProgramDesc& program, size_t first) {
  std::vector<std::string> types;
  for (size_t i = first; i < program.Block(0).OpSize(); ++i) {
    types.push_back(program.Block(0).Op(i)->Type());
  }
  return types;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// ---- flatten_contiguous_range ----

struct FlattenCase {
  DDim x;
  int start, stop;
  DDim out;
};

const FlattenCase kFlattenCases[] = {
    {{2, 3, 4, 5}, 1, 2, {2, 12, 5}},
    {{2, 3, 4, 5}, 0, -1, {120}},
    {{2, 3, 4}, 1, 1, {2, 3, 4}},
    {{2, 3, 4}, -2, -1, {2, 12}},
    {{3}, 0, 0, {3}},
    {{}, 0, -1, {1}},
    {{2, 0, 3}, 0, 1, {0, 3}},
};

template <typename T>
void CheckFlattenForward() {
  unsigned seed = 1;
  for (const auto& c : kFlattenCases) {
    SCOPED_TRACE(c.x.ToString());
    const auto x = RandomValues(c.x.numel(), -5, 5, seed++);
    const auto r =
        RunOp("flatten_contiguous_range", {{"X", {MakeTensor<T>(c.x, x)}}},
              {{"Out", 1}, {"XShape", 1}}, {{"start_axis", c.start}, {"stop_axis", c.stop}});
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), c.out);
    std::vector<int64_t> xs = c.x.ToVector();
    xs.insert(xs.begin(), 0);
    EXPECT_EQ(r.outputs.at("XShape")[0].dims(), DDim(xs));
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), ToDoubles(MakeTensor<T>(c.x, x)), 0, 0, "out");
  }
}

TEST(FlattenContiguousRange, ForwardFloat) { CheckFlattenForward<float>(); }
TEST(FlattenContiguousRange, ForwardDouble) { CheckFlattenForward<double>(); }
TEST(FlattenContiguousRange, ForwardInt64) { CheckFlattenForward<int64_t>(); }

TEST(FlattenContiguousRangeGrad, MatchesFiniteDifferencesToSecondOrder) {
  unsigned seed = 10;
  for (const auto& c : kFlattenCases) {
    if (c.x.numel() == 0) continue;
    SCOPED_TRACE(c.x.ToString());
    GradCheck check;
    check.op_type = "flatten_contiguous_range";
    check.inputs = {{"X", {MakeTensor<double>(c.x, RandomValues(c.x.numel(), -2, 2, seed++))}}};
    check.outputs = {{"Out", 1}, {"XShape", 1}};
    check.loss_outputs = {"Out"};
    check.attrs = {{"start_axis", c.start}, {"stop_axis", c.stop}};
    check.max_order = 2;
    CheckGradients(check);
  }
}

TEST(FlattenContiguousRangeGrad, GradOpReadsOnlyXShapeAndOutGrad) {
  operators::RegisterAllOps();
  ProgramDesc program;
  BlockDesc& b = program.Block(0);
  Declare(&b, "x", DataType::FLOAT32, {-1, 3, 4});
  AddOp(&b, "flatten_contiguous_range", {{"X", {"x"}}}, {{"Out", {"y"}}, {"XShape", {"xs"}}},
        {{"start_axis", 1}, {"stop_axis", -1}});
  EXPECT_EQ(b.FindVar("y")->GetShape(), (std::vector<int64_t>{-1, 12}));
  EXPECT_EQ(b.FindVar("xs")->GetShape(), (std::vector<int64_t>{0, -1, 3, 4}));
  const size_t forward_ops = b.OpSize();
  framework::AppendBackward(&program, "y");
  const OpDesc* g = nullptr;
  for (size_t i = forward_ops; i < b.OpSize(); ++i) {
    if (b.Op(i)->Type() == "flatten_contiguous_range_grad") g = b.Op(i);
  }
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->Inputs(),
            (framework::VariableNameMap{{"XShape", {"xs"}}, {"Out@GRAD", {"y@GRAD"}}}));
  EXPECT_EQ(b.FindVar("x@GRAD")->GetShape(), (std::vector<int64_t>{-1, 3, 4}));
  EXPECT_EQ(b.FindVar("x@GRAD")->GetDataType(), DataType::FLOAT32);
}

TEST(FlattenContiguousRange, Errors) {
  const DenseTensor x = MakeTensor<float>({2, 3, 4}, RandomValues(24, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("flatten_contiguous_range", {{"X", {x}}}, {{"Out", 1}, {"XShape", 1}},
              {{"start_axis", 2}, {"stop_axis", 1}});
      },
      {"flatten_contiguous_range", "attribute `stop_axis`"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("flatten_contiguous_range", {{"X", {x}}}, {{"Out", 1}, {"XShape", 1}},
              {{"start_axis", 3}, {"stop_axis", 3}});
      },
      {"flatten_contiguous_range", "attribute `start_axis`", "received 3"});
}

// ---- flatten2 / flatten (1.x) ----

struct MatrixFlattenCase {
  DDim x;
  int axis;
  DDim out;
};

const MatrixFlattenCase kMatrixFlattenCases[] = {
    {{3, 2, 4, 4}, 2, {6, 16}}, {{3, 2, 4}, 0, {1, 24}}, {{3, 2, 4}, 3, {24, 1}},
    {{5, 7}, 1, {5, 7}},        {{2, 0, 3}, 2, {0, 3}},
};

TEST(Flatten2, ForwardMakesAMatrixAtAxisInEveryForm) {
  unsigned seed = 30;
  for (const char* op : {"flatten2", "flatten"}) {
    for (const auto& c : kMatrixFlattenCases) {
      SCOPED_TRACE(std::string(op) + " " + c.x.ToString() + " axis " + std::to_string(c.axis));
      const auto x = RandomValues(c.x.numel(), -5, 5, seed++);
      std::map<std::string, int> outputs = {{"Out", 1}};
      if (std::string(op) == "flatten2") outputs["XShape"] = 1;
      const auto r = RunOp(op, {{"X", {MakeTensor<float>(c.x, x)}}}, outputs, {{"axis", c.axis}});
      EXPECT_EQ(r.outputs.at("Out")[0].dims(), c.out);
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), ToDoubles(MakeTensor<float>(c.x, x)), 0, 0,
                 "out");
      if (std::string(op) == "flatten2") {
        std::vector<int64_t> xs = c.x.ToVector();
        xs.insert(xs.begin(), 0);
        EXPECT_EQ(r.outputs.at("XShape")[0].dims(), DDim(xs));
      }
    }
  }
}

TEST(Flatten2Grad, MatchesFiniteDifferencesToSecondOrder) {
  unsigned seed = 40;
  for (const char* op : {"flatten2", "flatten"}) {
    for (const auto& c : kMatrixFlattenCases) {
      if (c.x.numel() == 0) continue;
      SCOPED_TRACE(std::string(op) + " " + c.x.ToString());
      GradCheck check;
      check.op_type = op;
      check.inputs = {{"X", {MakeTensor<double>(c.x, RandomValues(c.x.numel(), -2, 2, seed++))}}};
      check.outputs = {{"Out", 1}};
      if (std::string(op) == "flatten2") check.outputs["XShape"] = 1;
      check.loss_outputs = {"Out"};
      check.attrs = {{"axis", c.axis}};
      check.max_order = 2;
      CheckGradients(check);
    }
  }
}

TEST(Flatten2Grad, GradOpsReadOnlyDimsAndOutGrad) {
  operators::RegisterAllOps();
  for (const std::string op : {"flatten2", "flatten"}) {
    ProgramDesc program;
    BlockDesc& b = program.Block(0);
    Declare(&b, "x", DataType::FLOAT32, {-1, 3, 4});
    framework::VariableNameMap outputs = {{"Out", {"y"}}};
    if (op == "flatten2") outputs["XShape"] = {"xs"};
    AddOp(&b, op, {{"X", {"x"}}}, outputs, {{"axis", 1}});
    EXPECT_EQ(b.FindVar("y")->GetShape(), (std::vector<int64_t>{-1, 12}));
    const size_t forward_ops = b.OpSize();
    framework::AppendBackward(&program, "y");
    const OpDesc* g = nullptr;
    for (size_t i = forward_ops; i < b.OpSize(); ++i) {
      if (b.Op(i)->Type() == op + "_grad") g = b.Op(i);
    }
    ASSERT_NE(g, nullptr) << op;
    const framework::VariableNameMap want =
        op == "flatten2"
            ? framework::VariableNameMap{{"XShape", {"xs"}}, {"Out@GRAD", {"y@GRAD"}}}
            : framework::VariableNameMap{{"X", {"x"}}, {"Out@GRAD", {"y@GRAD"}}};
    EXPECT_EQ(g->Inputs(), want);
    EXPECT_EQ(b.FindVar("x@GRAD")->GetShape(), (std::vector<int64_t>{-1, 3, 4}));
  }
}

TEST(Flatten2, AxisOutsideTheRankIsNamed) {
  const DenseTensor x = MakeTensor<float>({2, 3, 4}, RandomValues(24, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("flatten2", {{"X", {x}}}, {{"Out", 1}, {"XShape", 1}}, {{"axis", 4}}); },
      {"op `flatten2` attribute `axis`", "expected a value in [0, 3]", "received 4"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("flatten", {{"X", {x}}}, {{"Out", 1}}, {{"axis", -1}}); },
      {"op `flatten` attribute `axis`", "received -1"});
}

// ---- concat ----

// Naive concat: the element at each output index comes from the input covering it.
std::vector<double> NaiveConcat(const std::vector<DDim>& dims,
                                const std::vector<std::vector<double>>& xs, int axis,
                                DDim* out_dims) {
  std::vector<int64_t> out = dims[0].ToVector();
  out[axis] = 0;
  for (const auto& d : dims) out[axis] += d[axis];
  *out_dims = DDim(out);
  std::vector<double> result;
  for (int64_t k = 0; k < out_dims->numel(); ++k) {
    std::vector<int64_t> idx = Unravel(k, out);
    size_t i = 0;
    while (idx[axis] >= dims[i][axis]) idx[axis] -= dims[i++][axis];
    result.push_back(xs[i][Ravel(idx, dims[i].ToVector())]);
  }
  return result;
}

struct ConcatCase {
  std::vector<DDim> dims;
  int axis;
};

const ConcatCase kConcatCases[] = {
    {{{2, 3}, {1, 3}}, 0},
    {{{2, 3}, {2, 1}, {2, 2}}, 1},
    {{{2, 3, 4}, {2, 2, 4}}, -2},
    {{{2, 3, 4}, {2, 3, 1}}, -1},
    {{{5}}, 0},
    {{{2, 3}, {0, 3}, {1, 3}}, 0},
    {{{1, 2, 1}, {1, 2, 3}}, 2},
};

template <typename T>
void CheckConcatForward() {
  unsigned seed = 20;
  for (const auto& c : kConcatCases) {
    SCOPED_TRACE("axis " + std::to_string(c.axis) + " first " + c.dims[0].ToString());
    std::vector<std::vector<double>> xs;
    std::vector<DenseTensor> ts;
    for (const auto& d : c.dims) {
      xs.push_back(RandomValues(d.numel(), -9, 9, seed++));
      ts.push_back(MakeTensor<T>(d, xs.back()));
    }
    const int axis = c.axis < 0 ? c.axis + c.dims[0].size() : c.axis;
    DDim out_dims;
    const auto want = NaiveConcat(c.dims, xs, axis, &out_dims);
    const auto r = RunOp("concat", {{"X", ts}}, {{"Out", 1}}, {{"axis", c.axis}});
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), out_dims);
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), ToDoubles(MakeTensor<T>(out_dims, want)), 0, 0,
               "concat");
    // The axis from AxisTensor overrides the attribute.
    const auto rt = RunOp(
        "concat",
        {{"X", ts}, {"AxisTensor", {MakeTensor<int32_t>({1}, {static_cast<double>(c.axis)})}}},
        {{"Out", 1}}, {{"axis", 99}});
    EXPECT_EQ(rt.outputs.at("Out")[0].dims(), out_dims);
  }
}

TEST(Concat, ForwardFloat) { CheckConcatForward<float>(); }
TEST(Concat, ForwardDouble) { CheckConcatForward<double>(); }
TEST(Concat, ForwardInt32) { CheckConcatForward<int32_t>(); }

TEST(ConcatGrad, MatchesFiniteDifferencesToSecondOrder) {
  unsigned seed = 40;
  for (const auto& c : kConcatCases) {
    SCOPED_TRACE("axis " + std::to_string(c.axis) + " first " + c.dims[0].ToString());
    std::vector<DenseTensor> ts;
    for (const auto& d : c.dims) {
      ts.push_back(MakeTensor<double>(d, RandomValues(d.numel(), -2, 2, seed++)));
    }
    GradCheck check;
    check.op_type = "concat";
    check.inputs = {{"X", ts}};
    check.outputs = {{"Out", 1}};
    check.attrs = {{"axis", c.axis}};
    check.max_order = 2;
    CheckGradients(check);
  }
}

// concat of x0 and x1 with the backward appended; returns the backward op types.
std::vector<std::string> ConcatBackward(ProgramDesc* program, const std::vector<int64_t>& shape0,
                                        const std::vector<int64_t>& shape1) {
  operators::RegisterAllOps();
  BlockDesc& b = program->Block(0);
  Declare(&b, "x0", DataType::FLOAT64, shape0);
  Declare(&b, "x1", DataType::FLOAT64, shape1);
  AddOp(&b, "concat", {{"X", {"x0", "x1"}}}, {{"Out", {"y"}}}, {{"axis", -1}});
  const size_t forward_ops = b.OpSize();
  framework::AppendBackward(program, "y");
  return BackwardOpTypes(*program, forward_ops);
}

TEST(ConcatGrad, SplitWhenSizesAreKnownFusedOpOtherwise) {
  {
    ProgramDesc program;
    const auto types = ConcatBackward(&program, {-1, 2}, {-1, 3});
    EXPECT_TRUE(Contains(types, "split"));
    EXPECT_FALSE(Contains(types, "concat_grad"));
    const BlockDesc& b = program.Block(0);
    for (size_t i = 0; i < b.OpSize(); ++i) {
      if (b.Op(i)->Type() != "split") continue;
      EXPECT_EQ(b.Op(i)->Attr<std::vector<int>>("sections"), (std::vector<int>{2, 3}));
      EXPECT_EQ(b.Op(i)->Attr<int>("axis"), 1);
    }
  }
  ProgramDesc program;
  const auto types = ConcatBackward(&program, {2, -1}, {2, 3});
  EXPECT_TRUE(Contains(types, "concat_grad"));
  EXPECT_EQ(program.Block(0).FindVar("x0@GRAD")->GetShape(), (std::vector<int64_t>{2, -1}));
  // Run it: the gradient of sum(y) is ones, in each input's shape.
  framework::Scope scope;
  const auto out = framework::Executor(platform::CPUPlace())
                       .Run(program, &scope,
                            {{"x0", MakeTensor<double>({2, 4}, RandomValues(8, 0, 1))},
                             {"x1", MakeTensor<double>({2, 3}, RandomValues(6, 0, 1))}},
                            {"x0@GRAD", "x1@GRAD"});
  EXPECT_EQ(out[0].dims(), DDim({2, 4}));
  EXPECT_EQ(out[1].dims(), DDim({2, 3}));
  ExpectNear(ToDoubles(out[0]), std::vector<double>(8, 1.0), 0, 0, "dx0");
}

TEST(ConcatGrad, RepeatedInputGetsTheSumOfItsPieces) {
  operators::RegisterAllOps();
  ProgramDesc program;
  BlockDesc& b = program.Block(0);
  Declare(&b, "x", DataType::FLOAT64, {2, 2});
  Declare(&b, "w", DataType::FLOAT64, {2, 4})->SetStopGradient(true);
  AddOp(&b, "concat", {{"X", {"x", "x"}}}, {{"Out", {"y"}}}, {{"axis", 1}});
  AddOp(&b, "elementwise_mul", {{"X", {"y"}}, {"Y", {"w"}}}, {{"Out", {"z"}}});
  framework::AppendBackward(&program, "z");
  framework::Scope scope;
  const auto out = framework::Executor(platform::CPUPlace())
                       .Run(program, &scope,
                            {{"x", MakeTensor<double>({2, 2}, {1, 2, 3, 4})},
                             {"w", MakeTensor<double>({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})}},
                            {"x@GRAD"});
  ExpectNear(ToDoubles(out[0]), {1 + 3, 2 + 4, 5 + 7, 6 + 8}, 0, 0, "dx");
}

TEST(ConcatGrad, FusedOpMatchesFiniteDifferences) {
  // concat_grad on its own (linear in Out@GRAD; its gradient is a concat).
  const DenseTensor x0 = MakeTensor<double>({2, 1, 3}, RandomValues(6, 0, 1, 1));
  const DenseTensor x1 = MakeTensor<double>({2, 2, 3}, RandomValues(12, 0, 1, 2));
  GradCheck check;
  check.op_type = "concat_grad";
  check.inputs = {{"X", {x0, x1}},
                  {"Out@GRAD", {MakeTensor<double>({2, 3, 3}, RandomValues(18, -1, 1, 3))}}};
  check.outputs = {{"X@GRAD", 2}};
  check.attrs = {{"axis", 1}};
  check.wrt = {"Out@GRAD"};
  check.max_order = 2;
  CheckGradients(check);
}

TEST(Concat, Errors) {
  const DenseTensor a = MakeTensor<float>({2, 3}, RandomValues(6, 0, 1));
  const DenseTensor b = MakeTensor<float>({3, 2}, RandomValues(6, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("concat", {{"X", {a, b}}}, {{"Out", 1}}, {{"axis", 0}});
      },
      {"concat", "input `X`", "tensor #1", "[3, 2]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("concat", {{"X", {a, a}}}, {{"Out", 1}}, {{"axis", 2}});
      },
      {"concat", "attribute `axis`", "received 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("concat", {{"X", {MakeTensor<float>({}, {1}), MakeTensor<float>({}, {2})}}},
              {{"Out", 1}});
      },
      {"concat", "0-D"});
}

// ---- split ----

struct SplitCase {
  DDim x;
  int axis, num;
  std::vector<int> sections;
  std::vector<int64_t> sizes;  // Expected.
};

const SplitCase kSplitCases[] = {
    {{4}, 0, 2, {}, {2, 2}},
    {{5, 2}, 0, 0, {2, -1}, {2, 3}},
    {{2, 6}, -1, 3, {}, {2, 2, 2}},
    {{2, 3, 4}, 1, 0, {1, 0, 2}, {1, 0, 2}},
    {{2, 3, 4}, 2, 0, {-1, 1}, {3, 1}},
    {{3, 2}, 1, 1, {}, {2}},
};

template <typename T>
void CheckSplitForward() {
  unsigned seed = 60;
  for (const auto& c : kSplitCases) {
    SCOPED_TRACE(c.x.ToString() + " axis " + std::to_string(c.axis));
    const auto x = RandomValues(c.x.numel(), -9, 9, seed++);
    const int axis = c.axis < 0 ? c.axis + c.x.size() : c.axis;
    const int n = static_cast<int>(c.sizes.size());
    auto check = [&](const OpRunResult& r) {
      int64_t offset = 0;
      for (int i = 0; i < n; ++i) {
        std::vector<int64_t> box = c.x.ToVector();
        box[axis] = c.sizes[i];
        std::vector<int64_t> off(box.size(), 0);
        off[axis] = offset;
        offset += c.sizes[i];
        const DenseTensor& piece = r.outputs.at("Out")[i];
        EXPECT_EQ(piece.dims(), DDim(box));
        ExpectNear(ToDoubles(piece),
                   ToDoubles(MakeTensor<T>(DDim(box), NaiveBox(x, c.x.ToVector(), off, box))), 0, 0,
                   "piece " + std::to_string(i));
      }
    };
    check(RunOp("split", {{"X", {MakeTensor<T>(c.x, x)}}}, {{"Out", n}},
                {{"axis", c.axis}, {"num", c.num}, {"sections", c.sections}}));
    // The same from AxisTensor and SectionsTensorList.
    if (c.num == 0) {
      std::vector<DenseTensor> list;
      for (int s : c.sections) list.push_back(MakeTensor<int64_t>({1}, {static_cast<double>(s)}));
      check(RunOp("split",
                  {{"X", {MakeTensor<T>(c.x, x)}},
                   {"AxisTensor", {MakeTensor<int64_t>({1}, {static_cast<double>(c.axis)})}},
                   {"SectionsTensorList", list}},
                  {{"Out", n}}, {{"axis", 0}, {"sections", std::vector<int>(n, 7)}}));
    }
  }
}

TEST(Split, ForwardFloat) { CheckSplitForward<float>(); }
TEST(Split, ForwardDouble) { CheckSplitForward<double>(); }
TEST(Split, ForwardInt64) { CheckSplitForward<int64_t>(); }

TEST(SplitGrad, MatchesFiniteDifferencesToSecondOrder) {
  unsigned seed = 80;
  for (const auto& c : kSplitCases) {
    SCOPED_TRACE(c.x.ToString() + " axis " + std::to_string(c.axis));
    GradCheck check;
    check.op_type = "split";
    check.inputs = {{"X", {MakeTensor<double>(c.x, RandomValues(c.x.numel(), -2, 2, seed++))}}};
    check.outputs = {{"Out", static_cast<int>(c.sizes.size())}};
    check.attrs = {{"axis", c.axis}, {"num", c.num}, {"sections", c.sections}};
    check.max_order = 2;
    CheckGradients(check);
  }
}

TEST(SplitGrad, UnusedPiecesGetZeroGradient) {
  operators::RegisterAllOps();
  ProgramDesc program;
  BlockDesc& b = program.Block(0);
  Declare(&b, "x", DataType::FLOAT64, {6, 2});
  AddOp(&b, "split", {{"X", {"x"}}}, {{"Out", {"p0", "p1", "p2"}}}, {{"num", 3}});
  EXPECT_EQ(b.FindVar("p1")->GetShape(), (std::vector<int64_t>{2, 2}));
  AddOp(&b, "scale", {{"X", {"p1"}}}, {{"Out", {"y"}}}, {{"scale", 3.0f}});
  const size_t forward_ops = b.OpSize();
  framework::AppendBackward(&program, "y");
  EXPECT_TRUE(Contains(BackwardOpTypes(program, forward_ops), "concat"));
  framework::Scope scope;
  const auto out =
      framework::Executor(platform::CPUPlace())
          .Run(program, &scope, {{"x", MakeTensor<double>({6, 2}, RandomValues(12, 0, 1))}},
               {"x@GRAD"});
  ExpectNear(ToDoubles(out[0]), {0, 0, 0, 0, 3, 3, 3, 3, 0, 0, 0, 0}, 0, 0, "dx");
}

TEST(Split, Errors) {
  const DenseTensor x = MakeTensor<float>({5, 2}, RandomValues(10, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("split", {{"X", {x}}}, {{"Out", 2}}, {{"num", 2}});
      },
      {"split", "attribute `num`", "not divisible by 2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("split", {{"X", {x}}}, {{"Out", 2}}, {{"sections", std::vector<int>{2, 2}}});
      },
      {"split", "attribute `sections`", "adding up to the split dim 5"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("split", {{"X", {x}}}, {{"Out", 3}}, {{"sections", std::vector<int>{2, 3}}});
      },
      {"split", "output `Out`", "expected 2 variables"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("split", {{"X", {x}}}, {{"Out", 2}}, {{"sections", std::vector<int>{-1, -1}}});
      },
      {"split", "at most one -1"});
}

// ---- slice ----

// Python's clamping for step 1: the [start, end) actually taken from a dim of size `dim`.
void PythonBounds(int64_t start, int64_t end, int64_t dim, int64_t* s, int64_t* len) {
  start = start < 0 ? std::max<int64_t>(start + dim, 0) : std::min(start, dim);
  end = end < 0 ? std::max<int64_t>(end + dim, 0) : std::min(end, dim);
  *s = start;
  *len = std::max<int64_t>(end - start, 0);
}

struct SliceCase {
  DDim x;
  std::vector<int> axes, starts, ends, decrease;
};

const SliceCase kSliceCases[] = {
    {{3, 4}, {1}, {1}, {100}, {}},
    {{3, 4}, {1}, {-1}, {4}, {1}},
    {{3, 4}, {0, 1}, {-100, 1}, {2, -1}, {}},
    {{2, 3, 4}, {2, 0}, {1, 1}, {3, 2}, {0}},
    {{5}, {0}, {3}, {1}, {}},                  // end < start: empty.
    {{2, 3}, {0, 1}, {1, 2}, {2, 3}, {0, 1}},  // All dims removed: 0-D.
    {{4, 2}, {-2}, {-3}, {-1}, {}},
};

template <typename T>
void CheckSliceForward() {
  unsigned seed = 100;
  for (const auto& c : kSliceCases) {
    SCOPED_TRACE(c.x.ToString() + " axes " + operators::ListToString(c.axes));
    const auto x = RandomValues(c.x.numel(), -9, 9, seed++);
    std::vector<int64_t> off(c.x.size(), 0), box = c.x.ToVector();
    for (size_t k = 0; k < c.axes.size(); ++k) {
      const int a = c.axes[k] < 0 ? c.axes[k] + c.x.size() : c.axes[k];
      PythonBounds(c.starts[k], c.ends[k], c.x[a], &off[a], &box[a]);
    }
    std::vector<int64_t> out_dims;
    for (int i = 0; i < c.x.size(); ++i) {
      if (std::find(c.decrease.begin(), c.decrease.end(), i) == c.decrease.end()) {
        out_dims.push_back(box[i]);
      }
    }
    const auto want =
        ToDoubles(MakeTensor<T>(DDim(out_dims), NaiveBox(x, c.x.ToVector(), off, box)));
    const AttributeMap attrs = {
        {"axes", c.axes}, {"starts", c.starts}, {"ends", c.ends}, {"decrease_axis", c.decrease}};
    auto r = RunOp("slice", {{"Input", {MakeTensor<T>(c.x, x)}}}, {{"Out", 1}}, attrs);
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim(out_dims));
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 0, 0, "slice");
    // Bounds from StartsTensor and EndsTensorList override the attributes.
    std::vector<double> starts(c.starts.begin(), c.starts.end());
    std::vector<DenseTensor> ends;
    for (int e : c.ends) ends.push_back(MakeTensor<int32_t>({1}, {static_cast<double>(e)}));
    AttributeMap other = attrs;
    other["starts"] = std::vector<int>(c.axes.size(), 0);
    other["ends"] = std::vector<int>(c.axes.size(), 0);
    r = RunOp(
        "slice",
        {{"Input", {MakeTensor<T>(c.x, x)}},
         {"StartsTensor", {MakeTensor<int64_t>({static_cast<int64_t>(starts.size())}, starts)}},
         {"EndsTensorList", ends}},
        {{"Out", 1}}, other);
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim(out_dims));
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 0, 0, "slice from tensors");
  }
}

TEST(Slice, ForwardFloat) { CheckSliceForward<float>(); }
TEST(Slice, ForwardDouble) { CheckSliceForward<double>(); }
TEST(Slice, ForwardInt32) { CheckSliceForward<int32_t>(); }

TEST(SliceGrad, MatchesFiniteDifferencesToSecondOrder) {
  unsigned seed = 120;
  for (const auto& c : kSliceCases) {
    SCOPED_TRACE(c.x.ToString() + " axes " + operators::ListToString(c.axes));
    GradCheck check;
    check.op_type = "slice";
    check.inputs = {{"Input", {MakeTensor<double>(c.x, RandomValues(c.x.numel(), -2, 2, seed++))}}};
    check.outputs = {{"Out", 1}};
    check.attrs = {
        {"axes", c.axes}, {"starts", c.starts}, {"ends", c.ends}, {"decrease_axis", c.decrease}};
    check.max_order = 2;
    CheckGradients(check);
  }
}

TEST(SliceGrad, ZeroPadsTheGradient) {
  const auto r = RunOp("slice_grad",
                       {{"Input", {MakeTensor<float>({2, 3}, std::vector<double>(6, 9))}},
                        {"Out@GRAD", {MakeTensor<float>({2}, {1, 2})}}},
                       {{"Input@GRAD", 1}},
                       {{"axes", std::vector<int>{1}},
                        {"starts", std::vector<int>{-2}},
                        {"ends", std::vector<int>{-1}},
                        {"decrease_axis", std::vector<int>{1}}});
  EXPECT_EQ(r.outputs.at("Input@GRAD")[0].dims(), DDim({2, 3}));
  ExpectNear(ToDoubles(r.outputs.at("Input@GRAD")[0]), {0, 1, 0, 0, 2, 0}, 0, 0, "dx");
}

TEST(Slice, BuildTimeShapes) {
  operators::RegisterAllOps();
  ProgramDesc program;
  BlockDesc& b = program.Block(0);
  Declare(&b, "x", DataType::FLOAT32, {-1, 6, 4});
  Declare(&b, "s", DataType::INT64, {1});
  AddOp(&b, "slice", {{"Input", {"x"}}}, {{"Out", {"y"}}},
        {{"axes", std::vector<int>{1, 2}},
         {"starts", std::vector<int>{1, 0}},
         {"ends", std::vector<int>{-1, 1}},
         {"decrease_axis", std::vector<int>{2}}});
  EXPECT_EQ(b.FindVar("y")->GetShape(), (std::vector<int64_t>{-1, 4}));
  AddOp(&b, "slice", {{"Input", {"x"}}, {"StartsTensor", {"s"}}}, {{"Out", {"z"}}},
        {{"axes", std::vector<int>{1}},
         {"starts", std::vector<int>{0}},
         {"ends", std::vector<int>{3}},
         {"infer_flags", std::vector<int>{-1}}});
  EXPECT_EQ(b.FindVar("z")->GetShape(), (std::vector<int64_t>{-1, -1, 4}));
}

TEST(Slice, Errors) {
  const DenseTensor x = MakeTensor<float>({3, 4}, RandomValues(12, 0, 1));
  auto run = [&](const AttributeMap& attrs) {
    return [=] { RunOp("slice", {{"Input", {x}}}, {{"Out", 1}}, attrs); };
  };
  ExpectError<platform::InvalidArgumentError>(run({{"axes", std::vector<int>{2}},
                                                   {"starts", std::vector<int>{0}},
                                                   {"ends", std::vector<int>{1}}}),
                                              {"slice", "attribute `axes`", "[2]"});
  ExpectError<platform::InvalidArgumentError>(run({{"axes", std::vector<int>{1}},
                                                   {"starts", std::vector<int>{0}},
                                                   {"ends", std::vector<int>{2}},
                                                   {"decrease_axis", std::vector<int>{1}}}),
                                              {"slice", "attribute `decrease_axis`", "size 2"});
  ExpectError<platform::InvalidArgumentError>(run({{"axes", std::vector<int>{0, 1}},
                                                   {"starts", std::vector<int>{0}},
                                                   {"ends", std::vector<int>{1, 1}}}),
                                              {"slice", "`starts`/`ends`", "one per axis"});
  ExpectError<platform::InvalidArgumentError>(run({{"axes", std::vector<int>{1, -1}},
                                                   {"starts", std::vector<int>{0, 0}},
                                                   {"ends", std::vector<int>{1, 1}}}),
                                              {"slice", "distinct"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

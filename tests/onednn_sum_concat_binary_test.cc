// oneDNN kernels of sum, concat and elementwise_add/_sub/_mul/_div: FLAGS_use_onednn decides
// between the oneDNN and the plain kernel, and both give the same values, dims and LoD (the
// plain kernels are checked against double references in sum_op_test.cc,
// concat_split_slice_op_test.cc and elementwise_op_test.cc). Also: what the oneDNN kernels
// hand to the plain ones (SelectedRows, one input, broadcasting X, small inputs), empty
// tensors, outputs written over inputs (sum, elementwise), and float64 on the plain kernels.
#include <string>
#include <vector>

#include "framework/selected_rows.h"
#include "platform/init.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LibraryType;
using framework::VariableNameMap;

class OneDNNSumConcatBinaryTest : public OneDNNKernelTestBase {};

DenseTensor Random(const DDim& dims, unsigned seed, double lo = -2, double hi = 2) {
  return MakeTensor<float>(dims, RandomValues(dims.numel(), lo, hi, seed));
}

struct Run {
  LibraryType backend;
  DenseTensor out;
};

// The op on named variables with FLAGS_use_onednn = `use_onednn`; returns variable `out`.
Run RunWith(bool use_onednn, const std::string& type, const VariableNameMap& inputs,
            const VariableNameMap& outputs, const std::map<std::string, DenseTensor>& feeds,
            const AttributeMap& attrs, const std::string& out) {
  ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
  NamedOpRun r = RunNamedOp(type, inputs, outputs, feeds, attrs);
  return {r.kernel->key.backend, r.vars.at(out)};
}

// Runs both kernels; checks the choice (`onednn_backend`: kOneDNN unless float64), and that
// dims, LoD and values agree (`atol` for sums of a few terms; 0: bitwise).
void CheckBoth(const std::string& type, const VariableNameMap& inputs,
               const VariableNameMap& outputs, const std::map<std::string, DenseTensor>& feeds,
               const AttributeMap& attrs, double atol, const std::string& what,
               LibraryType onednn_backend = LibraryType::kOneDNN) {
  const std::string out = outputs.at("Out")[0];
  const Run onednn = RunWith(true, type, inputs, outputs, feeds, attrs, out);
  const Run plain = RunWith(false, type, inputs, outputs, feeds, attrs, out);
  EXPECT_EQ(onednn.backend, onednn_backend) << what;
  EXPECT_EQ(plain.backend, LibraryType::kPlain) << what;
  EXPECT_EQ(onednn.out.dims(), plain.out.dims()) << what;
  EXPECT_EQ(onednn.out.lod(), plain.out.lod()) << what;
  EXPECT_EQ(onednn.out.dtype(), plain.out.dtype()) << what;
  ExpectNear(ToDoubles(onednn.out), ToDoubles(plain.out), atol == 0 ? 0 : 1e-6, atol, what);
}

// ------------------------------------------------------------------------------------- sum

// x0..x{n-1} of `dims` (x0 with a LoD), summed into `out`.
void CheckSum(const DDim& dims, int n, const std::string& out, const std::string& what) {
  std::map<std::string, DenseTensor> feeds;
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) {
    names.push_back("x" + std::to_string(i));
    feeds[names.back()] = Random(dims, 10 + i);
  }
  if (dims.size() > 0 && dims[0] > 1) feeds["x0"].set_lod({{0, 1, static_cast<size_t>(dims[0])}});
  CheckBoth("sum", {{"X", names}}, {{"Out", {out}}}, feeds, {}, 1e-6 * n, what);
}

TEST_F(OneDNNSumConcatBinaryTest, SumMatchesPlainKernel) {
  for (const DDim& dims : {DDim({5, 7}), DDim({2, 3, 4, 5}), DDim({64, 500})}) {
    for (int n : {2, 3, 4}) {
      CheckSum(dims, n, "out", "sum of " + std::to_string(n) + " " + dims.ToString());
    }
  }
}

// Out written over X[0] (in place), over a later input, and over X[0] listed twice.
TEST_F(OneDNNSumConcatBinaryTest, SumWrittenOverItsInputs) {
  CheckSum({6, 5}, 3, "x0", "sum into x0");
  CheckSum({6, 5}, 3, "x2", "sum into x2");
  const std::map<std::string, DenseTensor> feeds = {{"a", Random({4, 9}, 20)},
                                                    {"b", Random({4, 9}, 21)}};
  CheckBoth("sum", {{"X", {"a", "b", "a"}}}, {{"Out", {"a"}}}, feeds, {}, 1e-6, "a = a + b + a");
  CheckBoth("sum", {{"X", {"b", "a", "a"}}}, {{"Out", {"a"}}}, feeds, {}, 1e-6, "a = b + a + a");
}

// One input (a copy) and empty tensors go to the plain kernel: bitwise its results.
TEST_F(OneDNNSumConcatBinaryTest, SumHandsOverOneInputAndEmptyTensors) {
  CheckBoth("sum", {{"X", {"x"}}}, {{"Out", {"out"}}}, {{"x", Random({3, 4}, 30)}}, {}, 0,
            "sum of one input");
  CheckBoth("sum", {{"X", {"x", "y"}}}, {{"Out", {"out"}}},
            {{"x", Random({0, 4}, 31)}, {"y", Random({0, 4}, 32)}}, {}, 0, "sum of empty tensors");
}

// A SelectedRows input goes to the plain kernel, which adds its rows into the dense sum.
TEST_F(OneDNNSumConcatBinaryTest, SumWithSelectedRowsRunsThePlainKernel) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  for (const char* name : {"d0", "d1", "s", "out"}) {
    framework::VarDesc* v = b.Var(name);
    v->SetPersistable(true);
    v->SetDataType(DataType::FLOAT32);
    v->SetShape({4, 2});
  }
  b.FindVar("s")->SetKind(framework::VarKind::kSelectedRows);
  framework::OpDesc* op = b.AppendOp();
  op->SetType("sum");
  op->SetInput("X", {"d0", "s", "d1"});
  op->SetOutput("Out", {"out"});
  framework::Scope scope;
  *scope.Var("d0")->GetMutable<DenseTensor>() = MakeTensor<float>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  *scope.Var("d1")->GetMutable<DenseTensor>() = MakeTensor<float>({4, 2}, {1, 1, 1, 1, 1, 1, 1, 1});
  framework::SelectedRows rows({3, 0, 3}, 4);
  *rows.mutable_value() = MakeTensor<float>({3, 2}, {10, 20, 30, 40, 50, 60});
  *scope.Var("s")->GetMutable<framework::SelectedRows>() = rows;
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program, 0, &scope, {});
  exec.Run(prepared.get());
  EXPECT_EQ(prepared->op(0).kernel()->key.backend, LibraryType::kOneDNN);
  ExpectNear(ToDoubles(scope.FindVar("out")->Get<DenseTensor>()), {32, 43, 4, 5, 6, 7, 68, 89}, 0,
             0, "dense + SelectedRows");
}

// --------------------------------------------------------------------------------- concat

// x0..x{n-1} of `dims` (x0 with a LoD) joined along `axis` into `out`.
void CheckConcat(const std::vector<DDim>& dims, int axis, const std::string& out,
                 const std::string& what, const DenseTensor* axis_tensor = nullptr) {
  std::map<std::string, DenseTensor> feeds;
  std::vector<std::string> names;
  for (size_t i = 0; i < dims.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    feeds[names.back()] = Random(dims[i], 40 + i);
  }
  if (dims[0].size() > 1 && dims[0][0] > 1)
    feeds["x0"].set_lod({{0, 1, static_cast<size_t>(dims[0][0])}});
  VariableNameMap inputs = {{"X", names}};
  if (axis_tensor != nullptr) {
    feeds["axis"] = *axis_tensor;
    inputs["AxisTensor"] = {"axis"};
  }
  CheckBoth("concat", inputs, {{"Out", {out}}}, feeds, {{"axis", axis}}, 0, what);
}

TEST_F(OneDNNSumConcatBinaryTest, ConcatMatchesPlainKernel) {
  CheckConcat({{2, 3, 4}, {5, 3, 4}, {1, 3, 4}}, 0, "out", "concat axis 0");
  CheckConcat({{2, 3, 4}, {2, 1, 4}, {2, 5, 4}}, 1, "out", "concat axis 1");
  CheckConcat({{2, 3, 4}, {2, 3, 7}}, -1, "out", "concat axis -1");
  CheckConcat({{6}, {3}, {9}}, 0, "out", "concat 1-D");
  CheckConcat({{4, 32, 14, 14}, {4, 32, 14, 14}, {4, 32, 14, 14}}, 1, "out", "concat channels");
  const DenseTensor axis = MakeTensor<int32_t>({1}, {-2});
  CheckConcat({{2, 3, 4}, {2, 6, 4}}, 0, "out", "concat AxisTensor -2", &axis);
}

// Empty inputs are left out; all empty goes to the plain kernel.
TEST_F(OneDNNSumConcatBinaryTest, ConcatEmptyInputs) {
  CheckConcat({{2, 0, 4}, {2, 3, 4}, {2, 0, 4}, {2, 2, 4}}, 1, "out", "concat with empty inputs");
  CheckConcat({{0, 3}, {4, 3}}, 0, "out", "concat empty first input");
  CheckConcat({{2, 0, 4}, {2, 0, 4}}, 1, "out", "concat of empty inputs");
}

// ---------------------------------------------------------------------------- elementwise

const char* const kBinaryOps[] = {"elementwise_add", "elementwise_sub", "elementwise_mul",
                                  "elementwise_div"};

// X (with a LoD) (op) Y with `axis` into `out`, for every op; Y avoids (-0.5, 0.5).
void CheckBinary(const DDim& x, const DDim& y, int axis, const std::string& out,
                 LibraryType backend = LibraryType::kOneDNN) {
  std::vector<double> yv = RandomValues(y.numel(), 0.5, 2, 51);
  for (size_t i = 0; i < yv.size(); i += 2) yv[i] = -yv[i];
  std::map<std::string, DenseTensor> feeds = {{"x", Random(x, 50)},
                                              {"y", MakeTensor<float>(y, yv)}};
  if (x.size() > 0 && x[0] > 1) feeds["x"].set_lod({{0, 1, static_cast<size_t>(x[0])}});
  for (const char* type : kBinaryOps) {
    CheckBoth(type, {{"X", {"x"}}, {"Y", {"y"}}}, {{"Out", {out}}}, feeds, {{"axis", axis}}, 0,
              std::string(type) + " X " + x.ToString() + " Y " + y.ToString() + " axis " +
                  std::to_string(axis) + " into " + out,
              backend);
  }
}

TEST_F(OneDNNSumConcatBinaryTest, BinaryMatchesPlainKernel) {
  CheckBinary({5, 7}, {5, 7}, -1, "out");
  CheckBinary({64, 50}, {50}, -1, "out");
  CheckBinary({4, 3, 5}, {3}, 1, "out");
  CheckBinary({2, 3, 4, 5}, {3, 4}, 1, "out");
  CheckBinary({2, 3, 4, 5}, {3, 1}, 1, "out");  // Y's trailing 1 dropped.
  CheckBinary({2, 3, 4, 5}, {2, 1, 4, 1}, -1, "out");
  CheckBinary({2, 3}, {1}, -1, "out");
  CheckBinary({7}, {7}, -1, "out");
}

// X broadcast along some dim, 0-D and empty tensors: the plain kernel runs.
TEST_F(OneDNNSumConcatBinaryTest, BinaryHandsOverWhatThePrimitiveCannotBroadcast) {
  CheckBinary({2, 1, 4}, {3, 1}, -1, "out");
  CheckBinary({3}, {2, 3}, -1, "out");
  CheckBinary({}, {}, -1, "out");
  CheckBinary({0, 3}, {3}, -1, "out");
}

TEST_F(OneDNNSumConcatBinaryTest, BinaryWrittenOverAnInput) {
  CheckBinary({6, 5}, {5}, -1, "x");
  CheckBinary({6, 5}, {6, 5}, -1, "x");
  CheckBinary({6, 5}, {6, 5}, -1, "y");
}

// ----------------------------------------------------------------------- small and float64

// With the handover on (the default), small inputs run the plain kernels inside the oneDNN
// ones: bitwise their results, while large ones run the primitive.
TEST_F(OneDNNSumConcatBinaryTest, SmallInputsRunThePlainKernel) {
  FLAGS_onednn_small_input_fallback = true;
  CheckSum({4, 5}, 3, "out", "small sum");
  CheckConcat({{2, 3}, {2, 4}}, 1, "out", "small concat");
  const std::map<std::string, DenseTensor> feeds = {{"x", Random({4, 6}, 60)},
                                                    {"y", Random({6}, 61, 0.5, 2)}};
  for (const char* type : kBinaryOps) {
    CheckBoth(type, {{"X", {"x"}}, {"Y", {"y"}}}, {{"Out", {"out"}}}, feeds, {}, 0,
              std::string("small ") + type);
  }
}

TEST_F(OneDNNSumConcatBinaryTest, Float64StaysOnThePlainKernels) {
  const std::map<std::string, DenseTensor> feeds = {
      {"x", MakeTensor<double>({3, 4}, RandomValues(12, -1, 1, 70))},
      {"y", MakeTensor<double>({3, 4}, RandomValues(12, 1, 2, 71))}};
  CheckBoth("sum", {{"X", {"x", "y"}}}, {{"Out", {"out"}}}, feeds, {}, 0, "sum float64",
            LibraryType::kPlain);
  CheckBoth("concat", {{"X", {"x", "y"}}}, {{"Out", {"out"}}}, feeds, {{"axis", 1}}, 0,
            "concat float64", LibraryType::kPlain);
  for (const char* type : kBinaryOps) {
    CheckBoth(type, {{"X", {"x"}}, {"Y", {"y"}}}, {{"Out", {"out"}}}, feeds, {}, 0,
              std::string(type) + " float64", LibraryType::kPlain);
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

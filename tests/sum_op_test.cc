// sum: forward against a double reference for 1..4 inputs and both float dtypes; SelectedRows
// inputs (all sparse: concatenated; mixed: dense), their var-type and shape inference; errors.
#include "framework/selected_rows.h"
#include "framework/var_type_inference.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

template <typename T>
void CheckSum(int count, const DDim& dims) {
  std::vector<DenseTensor> xs;
  std::vector<double> expected(static_cast<size_t>(dims.numel()), 0.0);
  for (int k = 0; k < count; ++k) {
    const auto v = RandomValues(dims.numel(), -2, 2, 100 + static_cast<unsigned>(k));
    for (size_t i = 0; i < v.size(); ++i) expected[i] += static_cast<double>(static_cast<T>(v[i]));
    xs.push_back(MakeTensor<T>(dims, v));
  }
  auto r = RunOp("sum", {{"X", xs}}, {{"Out", 1}});
  const DataType t = platform::ToDataType<T>();
  EXPECT_EQ(r.outputs["Out"][0].dims(), dims);
  ExpectNear(ToDoubles(r.outputs["Out"][0]), expected, RelTol(t), AbsTol(t) * count, "sum");
}

TEST(SumOp, MatchesReference) {
  for (int count : {1, 2, 4}) {
    for (const DDim& d : {DDim({3, 4}), DDim({1}), DDim({0, 2}), DDim({})}) {
      CheckSum<float>(count, d);
      CheckSum<double>(count, d);
    }
  }
}

TEST(SumOp, ShapeMismatchNamesOpAndSlot) {
  try {
    RunOp("sum", {{"X", {MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({3}, {1, 2, 3})}}}, {{"Out", 1}});
    FAIL();
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `sum` input `X`: expected every tensor to have shape [2], received [3]"),
              std::string::npos) << e.what();
  }
}

TEST(SumOp, MixedDtypesAreRejected) {
  try {
    RunOp("sum", {{"X", {MakeTensor<float>({2}, {1, 2}), MakeTensor<double>({2}, {1, 2})}}}, {{"Out", 1}});
    FAIL();
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `sum` input `X`"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("expected dtype float32, received float64"), std::string::npos) << e.what();
  }
}

// ---- SelectedRows inputs ----

using framework::SelectedRows;
using framework::VarKind;

// One input of `sum`: a dense tensor or a SelectedRows.
struct SumInput {
  DenseTensor dense;
  SelectedRows rows;
  bool sparse = false;
};

template <typename T>
SumInput Rows(const std::vector<int64_t>& rows, int64_t height, int64_t width,
              const std::vector<double>& values) {
  SumInput in;
  in.sparse = true;
  in.rows = SelectedRows(rows, height);
  *in.rows.mutable_value() = MakeTensor<T>({static_cast<int64_t>(rows.size()), width}, values);
  return in;
}

template <typename T>
SumInput Dense(const DDim& dims, const std::vector<double>& values) {
  SumInput in;
  in.dense = MakeTensor<T>(dims, values);
  return in;
}

// The dense tensor an input stands for, by naive loops.
std::vector<double> Densified(const SumInput& in) {
  if (!in.sparse) return ToDoubles(in.dense);
  const int64_t width = in.rows.value().dims()[1];
  std::vector<double> d(static_cast<size_t>(in.rows.height() * width), 0.0);
  const auto v = ToDoubles(in.rows.value());
  for (size_t i = 0; i < in.rows.rows().size(); ++i) {
    for (int64_t k = 0; k < width; ++k) d[in.rows.rows()[i] * width + k] += v[i * width + k];
  }
  return d;
}

struct SumRun {
  framework::ProgramDesc program;
  framework::Scope scope;
  std::unique_ptr<framework::PreparedProgram> prepared;
  VarKind out_kind = VarKind::kDenseTensor;
  std::vector<int64_t> out_shape;
  const framework::Variable* out = nullptr;
};

// sum over `ins` as a program: inputs declared with their kinds and complete dims, Out by
// var-type and shape inference (then `declare_out` overrides its kind when given).
void RunSum(SumRun* r, const std::vector<SumInput>& ins, const VarKind* declare_out = nullptr) {
  operators::RegisterAllOps();
  framework::BlockDesc& b = r->program.Block(0);
  std::vector<std::string> names;
  for (size_t i = 0; i < ins.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    framework::VarDesc* v = b.Var(names.back());
    v->SetKind(ins[i].sparse ? VarKind::kSelectedRows : VarKind::kDenseTensor);
    const DenseTensor& t = ins[i].sparse ? ins[i].rows.value() : ins[i].dense;
    v->SetDataType(t.dtype());
    v->SetShape((ins[i].sparse ? ins[i].rows.dense_dims() : t.dims()).ToVector());
  }
  framework::OpDesc* op = b.AppendOp();
  op->SetType("sum");
  op->SetInput("X", names);
  op->SetOutput("Out", {"out"});
  framework::InferVarTypeAndShape(op, &b);
  if (declare_out != nullptr) b.FindVar("out")->SetKind(*declare_out);
  r->out_kind = b.FindVar("out")->GetKind();
  r->out_shape = b.FindVar("out")->GetShape();
  framework::Executor exec{platform::CPUPlace()};
  r->prepared = exec.Prepare(r->program, 0, &r->scope, {"out"});
  framework::Scope* local = r->prepared->local_scope();
  for (size_t i = 0; i < ins.size(); ++i) {
    framework::Variable* v = local->FindVar(names[i]);
    if (ins[i].sparse) {
      *v->GetMutable<SelectedRows>() = ins[i].rows;
    } else {
      *v->GetMutable<DenseTensor>() = ins[i].dense;
    }
  }
  exec.Run(r->prepared.get());
  r->out = local->FindVar("out");
}

template <typename T>
void CheckAllSelectedRows() {
  const std::vector<SumInput> ins = {
      Rows<T>({4, 1, 4}, 6, 2, RandomValues(6, -1, 1, 1)),
      Rows<T>({0, 4}, 6, 2, RandomValues(4, -1, 1, 2)),
      Rows<T>({}, 6, 2, {}),
      Rows<T>({5, 1, 1}, 6, 2, RandomValues(6, -1, 1, 3)),
  };
  SumRun r;
  RunSum(&r, ins);
  EXPECT_EQ(r.out_kind, VarKind::kSelectedRows);
  EXPECT_EQ(r.out_shape, (std::vector<int64_t>{6, 2}));
  ASSERT_TRUE(r.out->IsType<SelectedRows>());
  const SelectedRows& out = r.out->Get<SelectedRows>();
  // Rows and value rows of every input, in input order.
  EXPECT_EQ(out.rows(), (std::vector<int64_t>{4, 1, 4, 0, 4, 5, 1, 1}));
  EXPECT_EQ(out.height(), 6);
  EXPECT_EQ(out.value().dims(), DDim({8, 2}));
  EXPECT_EQ(out.value().dtype(), platform::ToDataType<T>());
  std::vector<double> stacked;
  for (const auto& in : ins) {
    for (double v : ToDoubles(in.rows.value())) stacked.push_back(v);
  }
  ExpectNear(ToDoubles(out.value()), stacked, 0, 0, "stacked values");
  // It stands for the sum of what the inputs stand for.
  std::vector<double> want(12, 0.0);
  for (const auto& in : ins) {
    const auto d = Densified(in);
    for (size_t i = 0; i < want.size(); ++i) want[i] += d[i];
  }
  SumInput got;
  got.sparse = true;
  got.rows = out;
  const DataType t = platform::ToDataType<T>();
  ExpectNear(Densified(got), want, RelTol(t), AbsTol(t), "densified sum");
}

TEST(SumOp, AllSelectedRowsConcatenate) {
  CheckAllSelectedRows<float>();
  CheckAllSelectedRows<double>();
}

template <typename T>
void CheckMixed() {
  const std::vector<SumInput> ins = {
      Rows<T>({2, 0, 2}, 3, 4, RandomValues(12, -1, 1, 4)),
      Dense<T>({3, 4}, RandomValues(12, -1, 1, 5)),
      Rows<T>({1}, 3, 4, RandomValues(4, -1, 1, 6)),
      Dense<T>({3, 4}, RandomValues(12, -1, 1, 7)),
  };
  SumRun r;
  RunSum(&r, ins);
  EXPECT_EQ(r.out_kind, VarKind::kDenseTensor);
  ASSERT_TRUE(r.out->IsType<DenseTensor>());
  const DenseTensor& out = r.out->Get<DenseTensor>();
  EXPECT_EQ(out.dims(), DDim({3, 4}));
  std::vector<double> want(12, 0.0);
  for (const auto& in : ins) {
    const auto d = Densified(in);
    for (size_t i = 0; i < want.size(); ++i) want[i] += d[i];
  }
  const DataType t = platform::ToDataType<T>();
  ExpectNear(ToDoubles(out), want, RelTol(t), 4 * AbsTol(t), "mixed sum");
}

TEST(SumOp, DenseAndSelectedRowsMixedGiveDense) {
  CheckMixed<float>();
  CheckMixed<double>();
  // Only SelectedRows, but Out declared dense: the rows are added into a dense result.
  const VarKind dense = VarKind::kDenseTensor;
  SumRun r;
  RunSum(&r, {Rows<double>({1, 1}, 2, 1, {3, 4}), Rows<double>({0}, 2, 1, {5})}, &dense);
  ASSERT_TRUE(r.out->IsType<DenseTensor>());
  ExpectNear(ToDoubles(r.out->Get<DenseTensor>()), {5, 7}, 0, 0, "declared dense");
}

TEST(SumOp, SelectedRowsMismatchesNameOpAndInput) {
  SumRun height;
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunSum(&height, {Rows<float>({0}, 6, 2, {1, 2}), Rows<float>({0}, 7, 2, {1, 2})});
      },
      {"op `sum` input `X`", "input #1",
       "a SelectedRows of height 6 and rows of shape [2]",
       "received a SelectedRows of height 7 and rows of shape [2]"});
  SumRun width;
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunSum(&width, {Rows<float>({0}, 6, 2, {1, 2}), Rows<float>({0}, 6, 3, {1, 2, 3})});
      },
      {"op `sum` input `X`", "rows of shape [3]"});
  SumRun mixed;
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunSum(&mixed, {Rows<float>({0}, 2, 2, {1, 2}), Dense<float>({3, 2}, RandomValues(6, 0, 1))});
      },
      {"op `sum` input `X`", "input #1", "received shape [3, 2]"});
  // Out declared SelectedRows while an input is dense.
  const VarKind sparse = VarKind::kSelectedRows;
  SumRun declared;
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunSum(&declared,
               {Rows<float>({0}, 2, 2, {1, 2}), Dense<float>({2, 2}, RandomValues(4, 0, 1))},
               &sparse);
      },
      {"op `sum` input `X` (variable `x1`)", "expected a SelectedRows like output `Out`",
       "found DenseTensor"});
  SumRun dtype;
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunSum(&dtype, {Rows<float>({0}, 2, 1, {1}), Rows<double>({1}, 2, 1, {2})}); },
      {"op `sum` input `X` (variable `x1`)", "expected dtype float32, received float64"});
}

TEST(SumOp, BuildTimeShapeOfSelectedRowsWithUnknownHeight) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  for (const char* name : {"a", "b"}) {
    framework::VarDesc* v = b.Var(name);
    v->SetKind(VarKind::kSelectedRows);
    v->SetDataType(DataType::FLOAT32);
    v->SetShape({-1, 5});
  }
  b.FindVar("b")->SetShape({10, 5});
  framework::OpDesc* op = b.AppendOp();
  op->SetType("sum");
  op->SetInput("X", {"a", "b"});
  op->SetOutput("Out", {"s"});
  framework::InferVarTypeAndShape(op, &b);
  EXPECT_EQ(b.FindVar("s")->GetKind(), VarKind::kSelectedRows);
  EXPECT_EQ(b.FindVar("s")->GetDataType(), DataType::FLOAT32);
  EXPECT_EQ(b.FindVar("s")->GetShape(), (std::vector<int64_t>{-1, 5}));
  b.FindVar("b")->SetShape({10, 4});
  ExpectError<platform::InvalidArgumentError>(
      [&] { framework::InferVarTypeAndShape(op, &b); },
      {"op `sum` input `X`", "rows of shape [5]", "rows of shape [4]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// SelectedRows in the framework: run-time shape inference (complete dims in, height out, the
// variable stays sparse), the executor creating declared SelectedRows variables, fetching one
// (as the dense tensor it stands for), and the errors of ops that are not sparse-aware.
#include "framework/backward.h"
#include "framework/selected_rows.h"
#include "framework/shape_inference_contexts.h"
#include "framework/var_type_inference.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::SelectedRows;
using framework::Variable;
using framework::VarKind;

void SetRows(Variable* var, const std::vector<int64_t>& rows, int64_t height,
             const DenseTensor& value) {
  SelectedRows* s = var->GetMutable<SelectedRows>();
  *s->mutable_rows() = rows;
  s->set_height(height);
  *s->mutable_value() = value;
}

TEST(SelectedRowsShapeInference, RuntimeKeepsSelectedRowsAndSetsHeight) {
  operators::RegisterAllOps();
  auto op = framework::OpRegistry::CreateOp("relu", {{"X", {"x"}}}, {{"Out", {"y"}}}, {});
  Variable x, sparse_out, empty_out;
  SetRows(&x, {3, 0, 3}, 5, MakeTensor<float>({3, 2, 4}, RandomValues(24, -1, 1)));
  sparse_out.GetMutable<SelectedRows>();
  framework::RuntimeContext rc;
  rc.inputs["X"] = {&x};
  rc.outputs["Out"] = {&sparse_out};
  framework::RuntimeInferShapeContext runtime_ctx(*op, rc);
  framework::InferShapeContext& ctx = runtime_ctx;
  // An input counts with its complete dims, [height] + the dims of one value row.
  EXPECT_EQ(ctx.GetInputDim("X"), DDim({5, 2, 4}));
  EXPECT_EQ(ctx.GetInputDataType("X"), DataType::FLOAT32);
  EXPECT_EQ(ctx.GetInputVarKind("X"), VarKind::kSelectedRows);
  ctx.SetOutputDim("Out", DDim({9, 2, 4}));
  ASSERT_TRUE(sparse_out.IsType<SelectedRows>());
  EXPECT_EQ(sparse_out.Get<SelectedRows>().height(), 9);
  ctx.ShareLoD("X", "Out");  // Nothing to share, and no error.
  EXPECT_THROW(ctx.SetOutputDim("Out", DDim(std::vector<int64_t>{})),
               platform::InvalidArgumentError);

  // An empty output becomes a dense tensor of the dims; a dense input reports dense.
  rc.outputs["Out"] = {&empty_out};
  framework::RuntimeInferShapeContext runtime_dense_ctx(*op, rc);
  framework::InferShapeContext& dense_ctx = runtime_dense_ctx;
  dense_ctx.SetOutputDim("Out", DDim({5, 2, 4}));
  ASSERT_TRUE(empty_out.IsType<DenseTensor>());
  EXPECT_EQ(empty_out.Get<DenseTensor>().dims(), DDim({5, 2, 4}));
  rc.inputs["X"] = {&empty_out};
  EXPECT_EQ(dense_ctx.GetInputVarKind("X"), VarKind::kDenseTensor);
}

// ids -> lookup_table_v2 (is_sparse) -> reduce_sum -> loss, with the backward pass: W@GRAD
// is a SelectedRows.
framework::ProgramDesc SparseEmbeddingProgram() {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  framework::VarDesc* w = b.Var("w");
  w->SetDataType(DataType::FLOAT32);
  w->SetShape({5, 2});
  w->SetPersistable(true);
  framework::VarDesc* ids = b.Var("ids");
  ids->SetDataType(DataType::INT64);
  ids->SetShape({4});
  ids->SetStopGradient(true);
  auto add = [&](const std::string& type, const framework::VariableNameMap& in,
                 const framework::VariableNameMap& out, const AttributeMap& attrs) {
    framework::OpDesc* op = b.AppendOp();
    op->SetType(type);
    for (const auto& kv : in) op->SetInput(kv.first, kv.second);
    for (const auto& kv : out) op->SetOutput(kv.first, kv.second);
    for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
    framework::InferVarTypeAndShape(op, &b);
  };
  add("lookup_table_v2", {{"W", {"w"}}, {"Ids", {"ids"}}}, {{"Out", {"e"}}},
      {{"is_sparse", true}});
  add("reduce_sum", {{"X", {"e"}}}, {{"Out", {"loss"}}},
      {{"reduce_all", true}, {"dim", std::vector<int>{}}});
  framework::AppendBackward(&program, "loss");
  return program;
}

const DenseTensor kW = MakeTensor<float>({5, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
const DenseTensor kIds = MakeTensor<int64_t>({4}, {3, 0, 3, 1});

TEST(SelectedRowsExecutor, DeclaredSelectedRowsVariablesAreCreatedSparse) {
  const framework::ProgramDesc program = SparseEmbeddingProgram();
  ASSERT_EQ(program.Block(0).FindVar("w@GRAD")->GetKind(), VarKind::kSelectedRows);
  framework::Scope scope;
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program, 0, &scope, {"w@GRAD", "ids"});
  const Variable* dw = prepared->local_scope()->FindVar("w@GRAD");
  ASSERT_NE(dw, nullptr);
  EXPECT_TRUE(dw->IsType<SelectedRows>()) << "before any op runs";
  *scope.FindVar("w")->GetMutable<DenseTensor>() = kW;
  *prepared->local_scope()->FindVar("ids")->GetMutable<DenseTensor>() = kIds;
  for (int run = 0; run < 2; ++run) {  // The second run finds the variables typed.
    exec.Run(prepared.get());
    ASSERT_TRUE(dw->IsType<SelectedRows>());
    EXPECT_EQ(dw->Get<SelectedRows>().rows(), (std::vector<int64_t>{3, 0, 3, 1}));
    EXPECT_EQ(dw->Get<SelectedRows>().height(), 5);
  }
}

TEST(SelectedRowsFetch, FetchGivesTheDenseTensor) {
  framework::Scope scope;
  *scope.Var("w")->GetMutable<DenseTensor>() = kW;
  framework::Executor exec{platform::CPUPlace()};
  const auto out =
      exec.Run(SparseEmbeddingProgram(), &scope, {{"ids", kIds}}, {"w@GRAD", "loss"});
  ASSERT_EQ(out.size(), 2u);
  // d loss / d W: the number of times each row was looked up, in every column.
  EXPECT_EQ(out[0].dims(), DDim({5, 2}));
  EXPECT_EQ(out[0].dtype(), DataType::FLOAT32);
  ExpectNear(ToDoubles(out[0]), {1, 1, 1, 1, 0, 0, 2, 2, 0, 0}, 0, 0, "fetched w@GRAD");
  ExpectNear(ToDoubles(out[1]), {7 + 8 + 1 + 2 + 7 + 8 + 3 + 4}, 0, 0, "fetched loss");
}

TEST(SelectedRowsFetch, FetchOpInAProgram) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  b.Var("g")->SetKind(VarKind::kSelectedRows);
  b.Var("fetch")->SetKind(VarKind::kFetchList);
  b.FindVar("fetch")->SetPersistable(true);
  framework::OpDesc* op = b.AppendOp();
  op->SetType("fetch");
  op->SetInput("X", {"g"});
  op->SetOutput("Out", {"fetch"});
  op->SetAttr("col", 1);
  framework::Scope scope;
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program, 0, &scope);
  SetRows(prepared->local_scope()->FindVar("g"), {2, 0, 2}, 4,
          MakeTensor<double>({3, 1}, {1.5, 2, 3}));
  exec.Run(prepared.get());
  const auto& list = scope.FindVar("fetch")->Get<framework::FetchList>();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[1].dims(), DDim({4, 1}));
  EXPECT_EQ(list[1].dtype(), DataType::FLOAT64);
  ExpectNear(ToDoubles(list[1]), {2, 0, 4.5, 0}, 0, 0, "fetched rows");

  // Integer values have no dense conversion here.
  SetRows(prepared->local_scope()->FindVar("g"), {0}, 1, MakeTensor<int32_t>({1, 1}, {1}));
  ExpectError<platform::UnimplementedError>([&] { exec.Run(prepared.get()); },
                                            {"op `fetch` input `X` (variable `g`)", "int32"});
}

// A program feeding one SelectedRows variable `g` to `type`; returns the error of running it.
// `d` is a dense [3, 2] tensor; `sparse_out`, when given, is the output, declared SelectedRows.
void RunOnSelectedRows(const std::string& type, const framework::VariableNameMap& inputs,
                       const std::string& sparse_out = "", const AttributeMap& attrs = {}) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  b.Var("g")->SetKind(VarKind::kSelectedRows);
  b.Var("d");
  if (!sparse_out.empty()) b.Var(sparse_out)->SetKind(VarKind::kSelectedRows);
  framework::OpDesc* op = b.AppendOp();
  op->SetType(type);
  for (const auto& kv : inputs) op->SetInput(kv.first, kv.second);
  op->SetOutput("Out", {sparse_out.empty() ? "out" : sparse_out});
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::Scope scope;
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program, 0, &scope);
  framework::Scope* local = prepared->local_scope();
  SetRows(local->FindVar("g"), {1}, 3, MakeTensor<float>({1, 2}, {1, 2}));
  *local->FindVar("d")->GetMutable<DenseTensor>() = MakeTensor<float>({3, 2}, RandomValues(6, 0, 1));
  exec.Run(prepared.get());
}

TEST(SelectedRowsErrors, OpsThatAreNotSparseAwareSaySo) {
  ExpectError<platform::InvalidArgumentError>(
      [] { RunOnSelectedRows("relu", {{"X", {"g"}}}); },
      {"op `relu` input `X` (variable `g`): expected a dense tensor, found SelectedRows"});
  ExpectError<platform::InvalidArgumentError>(
      [] { RunOnSelectedRows("elementwise_add", {{"X", {"d"}}, {"Y", {"g"}}}); },
      {"op `elementwise_add` input `Y` (variable `g`): expected a dense tensor, found "
       "SelectedRows"});
  // Ops with their own kernel dtype choice reach the same check.
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOnSelectedRows("cast", {{"X", {"g"}}}, "",
                          {{"in_dtype", static_cast<int>(DataType::FLOAT32)},
                           {"out_dtype", static_cast<int>(DataType::FLOAT64)}});
      },
      {"op `cast` input `X` (variable `g`): expected a dense tensor, found SelectedRows"});
  ExpectError<platform::InvalidArgumentError>(
      [] { RunOnSelectedRows("lookup_table_v2", {{"W", {"g"}}, {"Ids", {"d"}}}); },
      {"op `lookup_table_v2` input `W` (variable `g`): expected a dense tensor, found "
       "SelectedRows"});
  // An output declared SelectedRows for a dense kernel.
  ExpectError<platform::InvalidArgumentError>(
      [] { RunOnSelectedRows("relu", {{"X", {"d"}}}, "s"); },
      {"op `relu` output `Out` (variable `s`): expected a dense tensor, found SelectedRows"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

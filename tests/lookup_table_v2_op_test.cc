// lookup_table_v2 (embedding) and the SelectedRows helpers: forward against a naive gather,
// padding_idx, dense gradients against finite differences, sparse gradients (SelectedRows
// with the VarDesc kind set by var-type inference) equal to the dense ones after merging,
// MergeSelectedRows / SelectedRowsToDense, a table looked up twice and trained by sgd and
// adam with sparse gradients (summed as SelectedRows) equal to the dense training, and error
// messages.
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/op_info.h"
#include "framework/var_type_inference.h"
#include "operators/math/selected_rows_functor.h"
#include "paddle_like/layers/optimizer.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::BlockDesc;
using framework::OpDesc;
using framework::ProgramDesc;
using framework::SelectedRows;

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

std::vector<double> NaiveLookup(const std::vector<double>& w, int64_t d,
                                const std::vector<double>& ids, int64_t padding_row) {
  std::vector<double> out;
  for (double id : ids) {
    for (int64_t k = 0; k < d; ++k) {
      out.push_back(static_cast<int64_t>(id) == padding_row ? 0.0
                                                            : w[static_cast<int64_t>(id) * d + k]);
    }
  }
  return out;
}

template <typename T>
void CheckForward() {
  const DataType dt = platform::ToDataType<T>();
  const int64_t v = 7, d = 3;
  const auto w = RandomValues(v * d, -1, 1, 3);
  struct Case {
    DDim ids;
    int64_t padding_idx, padding_row;
  };
  unsigned seed = 10;
  for (const Case& c : {Case{{5}, -1, -1}, Case{{2, 3}, 2, 2}, Case{{4, 1}, -2, 5},
                        Case{{2, 2, 2}, 0, 0}, Case{{0}, -1, -1}, Case{{}, -1, -1}}) {
    SCOPED_TRACE(c.ids.ToString() + " padding_idx " + std::to_string(c.padding_idx));
    std::vector<double> ids = RandomValues(c.ids.numel(), 0, v, seed++);
    for (auto& id : ids) id = std::floor(id);
    if (!ids.empty()) ids[0] = static_cast<double>(c.padding_row < 0 ? 1 : c.padding_row);
    std::vector<int64_t> out_dims = c.ids.ToVector();
    out_dims.push_back(d);
    for (bool int32_ids : {false, true}) {
      const DenseTensor ids_t =
          int32_ids ? MakeTensor<int32_t>(c.ids, ids) : MakeTensor<int64_t>(c.ids, ids);
      const auto r = RunOp("lookup_table_v2", {{"W", {MakeTensor<T>({v, d}, w)}}, {"Ids", {ids_t}}},
                           {{"Out", 1}}, {{"padding_idx", c.padding_idx}});
      const DenseTensor& out = r.outputs.at("Out")[0];
      EXPECT_EQ(out.dims(), DDim(out_dims));
      EXPECT_EQ(out.dtype(), dt);
      ExpectNear(ToDoubles(out),
                 ToDoubles(MakeTensor<T>(DDim(out_dims), NaiveLookup(w, d, ids, c.padding_row))), 0,
                 0, "out");
    }
  }
}

TEST(LookupTableV2, ForwardFloat) { CheckForward<float>(); }
TEST(LookupTableV2, ForwardDouble) { CheckForward<double>(); }

TEST(LookupTableV2, DocExampleAndVersion) {
  const DenseTensor w = MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  auto r = RunOp("lookup_table_v2", {{"W", {w}}, {"Ids", {MakeTensor<int64_t>({2}, {2, 0})}}},
                 {{"Out", 1}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), {5, 6, 1, 2}, 0, 0, "out");
  r = RunOp("lookup_table_v2", {{"W", {w}}, {"Ids", {MakeTensor<int64_t>({2}, {2, 0})}}},
            {{"Out", 1}}, {{"padding_idx", int64_t{0}}});
  ExpectNear(ToDoubles(r.outputs.at("Out")[0]), {5, 6, 0, 0}, 0, 0, "out with padding");
  operators::RegisterAllOps();
  EXPECT_EQ(framework::OpInfoMap::Instance().Get("lookup_table_v2").version(), 1);
}

TEST(LookupTableV2Grad, DenseMatchesFiniteDifferences) {
  for (int64_t padding_idx : {int64_t{-1}, int64_t{1}, int64_t{-2}}) {
    SCOPED_TRACE("padding_idx " + std::to_string(padding_idx));
    GradCheck check;
    check.op_type = "lookup_table_v2";
    check.inputs = {{"W", {MakeTensor<double>({4, 3}, RandomValues(12, -1, 1, 5))}},
                    {"Ids", {MakeTensor<int64_t>({2, 3}, {1, 3, 1, 0, 2, 3})}}};
    check.outputs = {{"Out", 1}};
    check.wrt = {"W"};
    check.attrs = {{"padding_idx", padding_idx}};
    check.max_order = 2;  // The dense grad op is linear in Out@GRAD and differentiable.
    CheckGradients(check);
  }
}

// Builds ids -> lookup_table_v2 -> out, loss = sum(out * weight), appends the backward, runs
// it and returns the scope variable holding W's gradient.
struct EmbeddingRun {
  ProgramDesc program;
  framework::Scope scope;
  std::unique_ptr<framework::PreparedProgram> prepared;
  const framework::Variable* dw = nullptr;
  framework::VarKind dw_kind = framework::VarKind::kDenseTensor;
};

void RunEmbedding(EmbeddingRun* run, bool is_sparse, const DenseTensor& w, const DenseTensor& ids,
                  const DenseTensor& weight, int64_t padding_idx) {
  operators::RegisterAllOps();
  BlockDesc& b = run->program.Block(0);
  auto declare = [&](const std::string& name, const DenseTensor& t, bool stop) {
    framework::VarDesc* v = b.Var(name);
    v->SetDataType(t.dtype());
    v->SetShape(t.dims().ToVector());
    v->SetStopGradient(stop);
  };
  declare("w", w, false);
  declare("ids", ids, true);
  declare("weight", weight, true);
  auto add = [&](const std::string& type, const framework::VariableNameMap& in,
                 const framework::VariableNameMap& out, const AttributeMap& attrs) {
    OpDesc* op = b.AppendOp();
    op->SetType(type);
    for (const auto& kv : in) op->SetInput(kv.first, kv.second);
    for (const auto& kv : out) op->SetOutput(kv.first, kv.second);
    for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
    framework::InferVarTypeAndShape(op, &b);
  };
  add("lookup_table_v2", {{"W", {"w"}}, {"Ids", {"ids"}}}, {{"Out", {"out"}}},
      {{"is_sparse", is_sparse}, {"padding_idx", padding_idx}});
  add("elementwise_mul", {{"X", {"out"}}, {"Y", {"weight"}}}, {{"Out", {"prod"}}}, {});
  add("reduce_sum", {{"X", {"prod"}}}, {{"Out", {"loss"}}},
      {{"reduce_all", true}, {"dim", std::vector<int>{}}});
  const auto result = framework::AppendBackward(&run->program, "loss");
  ASSERT_EQ(result.grad_of.count("w"), 1u);
  const std::string dw = result.grad_of.at("w");
  run->dw_kind = b.FindVar(dw)->GetKind();
  framework::Executor exec{platform::CPUPlace()};
  run->prepared = exec.Prepare(run->program, 0, &run->scope, {dw, "w"});
  framework::Scope* local = run->prepared->local_scope();
  *local->FindVar("w")->GetMutable<DenseTensor>() = w;
  *local->FindVar("ids")->GetMutable<DenseTensor>() = ids;
  *local->FindVar("weight")->GetMutable<DenseTensor>() = weight;
  exec.Run(run->prepared.get());
  run->dw = local->FindVar(dw);
}

template <typename T>
void CheckSparseEqualsDense(int64_t padding_idx) {
  const int64_t v = 6, d = 4;
  const DenseTensor w = MakeTensor<T>({v, d}, RandomValues(v * d, -1, 1, 7));
  const std::vector<double> id_values = {3, 1, 3, 0, 5, 3, 1, 2};
  const DenseTensor ids = MakeTensor<int64_t>({2, 4}, id_values);
  const DenseTensor weight = MakeTensor<T>({2, 4, d}, RandomValues(2 * 4 * d, -2, 2, 8));

  EmbeddingRun dense;
  RunEmbedding(&dense, false, w, ids, weight, padding_idx);
  ASSERT_NE(dense.dw, nullptr);
  EXPECT_EQ(dense.dw_kind, framework::VarKind::kDenseTensor);
  ASSERT_TRUE(dense.dw->IsType<DenseTensor>());
  const DenseTensor& dense_dw = dense.dw->Get<DenseTensor>();
  EXPECT_EQ(dense_dw.dims(), DDim({v, d}));

  EmbeddingRun sparse;
  RunEmbedding(&sparse, true, w, ids, weight, padding_idx);
  ASSERT_NE(sparse.dw, nullptr);
  EXPECT_EQ(sparse.dw_kind, framework::VarKind::kSelectedRows);
  ASSERT_TRUE(sparse.dw->IsType<SelectedRows>());
  const SelectedRows& rows = sparse.dw->Get<SelectedRows>();
  // Rows are the ids in order, value rows the matching dOut rows (dOut = weight here).
  EXPECT_EQ(rows.rows(), (std::vector<int64_t>{3, 1, 3, 0, 5, 3, 1, 2}));
  EXPECT_EQ(rows.height(), v);
  EXPECT_EQ(rows.value().dims(), DDim({8, d}));
  const auto value = ToDoubles(rows.value());
  const auto dout = ToDoubles(weight);
  const int64_t pad = padding_idx < -1 ? padding_idx + v : padding_idx;
  for (int64_t i = 0; i < 8; ++i) {
    for (int64_t k = 0; k < d; ++k) {
      const double want = static_cast<int64_t>(id_values[i]) == pad ? 0.0 : dout[i * d + k];
      ASSERT_EQ(value[i * d + k], want) << "value row " << i;
    }
  }
  // Merged, it is the dense gradient: sorted unique rows, sums in a fixed order.
  SelectedRows merged;
  operators::math::MergeSelectedRows(rows, &merged);
  EXPECT_EQ(merged.rows(), (std::vector<int64_t>{0, 1, 2, 3, 5}));
  DenseTensor from_sparse;
  operators::math::SelectedRowsToDense(merged, &from_sparse);
  EXPECT_EQ(from_sparse.dims(), DDim({v, d}));
  ExpectNear(ToDoubles(from_sparse), ToDoubles(dense_dw), 0, 0, "sparse vs dense");
}

TEST(LookupTableV2Grad, SparseEqualsDenseAfterMergingFloat) { CheckSparseEqualsDense<float>(-1); }
TEST(LookupTableV2Grad, SparseEqualsDenseAfterMergingDouble) {
  CheckSparseEqualsDense<double>(-1);
  CheckSparseEqualsDense<double>(3);
  CheckSparseEqualsDense<double>(-3);  // Row 3 again, counted from V.
}

TEST(LookupTableV2Grad, SparseGradientFeedsSgdLikeTheDenseOne) {
  // One training step: W -= lr * dW, with dW dense or a SelectedRows with repeated rows.
  const int64_t v = 5, d = 3;
  const DenseTensor w = MakeTensor<double>({v, d}, RandomValues(v * d, -1, 1, 21));
  const DenseTensor ids = MakeTensor<int64_t>({6}, {4, 1, 4, 0, 1, 4});
  const DenseTensor weight = MakeTensor<double>({6, d}, RandomValues(6 * d, -2, 2, 22));
  std::vector<double> updated[2];
  for (int sparse = 0; sparse < 2; ++sparse) {
    EmbeddingRun run;
    RunEmbedding(&run, sparse == 1, w, ids, weight, -1);
    framework::Scope* local = run.prepared->local_scope();
    DenseTensor* param = local->FindVar("w")->GetMutable<DenseTensor>();
    framework::Variable* lr = local->Var("lr");
    *lr->GetMutable<DenseTensor>() = MakeTensor<double>({1}, {0.5});
    auto sgd = framework::OpRegistry::CreateOp(
        "sgd", {{"Param", {"w"}}, {"LearningRate", {"lr"}}, {"Grad", {"w@GRAD"}}},
        {{"ParamOut", {"w"}}}, {});
    sgd->Run(*local, platform::CPUPlace());
    updated[sparse] = ToDoubles(*param);
  }
  EXPECT_NE(updated[0], ToDoubles(w));
  ExpectNear(updated[1], updated[0], 1e-15, 1e-15, "sparse vs dense sgd step");
}

// One table W [V, D] looked up twice: loss = sum(lookup(W, ids1) * c1) + sum(lookup(W, ids2)
// * c2), optionally + sum(W * c3) (a dense use of W besides the sparse ones). Minimize
// appends the backward pass and the optimizer; returns W after `steps` training steps.
struct TwiceLookedUp {
  static constexpr int64_t kV = 7, kD = 3;
  DenseTensor w = MakeTensor<double>({kV, kD}, RandomValues(kV * kD, -1, 1, 31));
  DenseTensor ids1 = MakeTensor<int64_t>({5}, {4, 1, 4, 6, 1});
  DenseTensor ids2 = MakeTensor<int64_t>({2, 2}, {1, 0, 4, 4});
  DenseTensor c1 = MakeTensor<double>({5, kD}, RandomValues(5 * kD, -2, 2, 32));
  DenseTensor c2 = MakeTensor<double>({2, 2, kD}, RandomValues(4 * kD, -2, 2, 33));
  DenseTensor c3 = MakeTensor<double>({kV, kD}, RandomValues(kV * kD, -2, 2, 34));

  std::vector<double> Train(bool is_sparse, bool dense_use, const layers::OptimizerConfig& config,
                            int steps, ProgramDesc* main_out = nullptr) const {
    layers::ProgramBuilder b;
    b.CreatePersistable("w", {kV, kD}, DataType::FLOAT64, /*is_parameter=*/true);
    auto data = [&](const std::string& name, const DenseTensor& t) {
      b.CreateVar(name, t.dims().ToVector(), t.dtype()).desc()->SetStopGradient(true);
    };
    data("ids1", ids1);
    data("ids2", ids2);
    data("c1", c1);
    data("c2", c2);
    data("c3", c3);
    const AttributeMap sparse = {{"is_sparse", is_sparse}};
    const AttributeMap all = {{"reduce_all", true}, {"dim", std::vector<int>{}}};
    b.AppendOp("lookup_table_v2", {{"W", {"w"}}, {"Ids", {"ids1"}}}, {{"Out", {"e1"}}}, sparse);
    b.AppendOp("lookup_table_v2", {{"W", {"w"}}, {"Ids", {"ids2"}}}, {{"Out", {"e2"}}}, sparse);
    b.AppendOp("elementwise_mul", {{"X", {"e1"}}, {"Y", {"c1"}}}, {{"Out", {"p1"}}});
    b.AppendOp("elementwise_mul", {{"X", {"e2"}}, {"Y", {"c2"}}}, {{"Out", {"p2"}}});
    b.AppendOp("reduce_sum", {{"X", {"p1"}}}, {{"Out", {"s1"}}}, all);
    b.AppendOp("reduce_sum", {{"X", {"p2"}}}, {{"Out", {"s2"}}}, all);
    b.AppendOp("elementwise_add", {{"X", {"s1"}}, {"Y", {"s2"}}}, {{"Out", {"loss"}}});
    std::string loss = "loss";
    if (dense_use) {
      b.AppendOp("elementwise_mul", {{"X", {"w"}}, {"Y", {"c3"}}}, {{"Out", {"p3"}}});
      b.AppendOp("reduce_sum", {{"X", {"p3"}}}, {{"Out", {"s3"}}}, all);
      b.AppendOp("elementwise_add", {{"X", {"loss"}}, {"Y", {"s3"}}}, {{"Out", {"loss2"}}});
      loss = "loss2";
    }
    layers::Minimize(&b, b.Find(loss), config);
    if (main_out != nullptr) *main_out = b.main_program();

    framework::Scope scope;
    framework::Executor exec{platform::CPUPlace()};
    exec.Run(exec.Prepare(b.startup_program(), 0, &scope).get());
    *scope.Var("w")->GetMutable<DenseTensor>() = w;
    const std::map<std::string, DenseTensor> feeds = {
        {"ids1", ids1}, {"ids2", ids2}, {"c1", c1}, {"c2", c2}, {"c3", c3}};
    std::vector<DenseTensor> fetched;
    for (int i = 0; i < steps; ++i) fetched = exec.Run(b.main_program(), &scope, feeds, {"w"});
    return ToDoubles(fetched.at(0));
  }

  // dLoss/dW of the program without the dense use, by naive loops.
  std::vector<double> Gradient() const {
    std::vector<double> g(kV * kD, 0.0);
    const auto i1 = ToDoubles(ids1), i2 = ToDoubles(ids2), v1 = ToDoubles(c1), v2 = ToDoubles(c2);
    for (size_t i = 0; i < i1.size(); ++i) {
      for (int64_t k = 0; k < kD; ++k) g[static_cast<int64_t>(i1[i]) * kD + k] += v1[i * kD + k];
    }
    for (size_t i = 0; i < i2.size(); ++i) {
      for (int64_t k = 0; k < kD; ++k) g[static_cast<int64_t>(i2[i]) * kD + k] += v2[i * kD + k];
    }
    return g;
  }
};

TEST(LookupTableV2Grad, TableLookedUpTwiceSumsSelectedRows) {
  TwiceLookedUp t;
  ProgramDesc main;
  layers::OptimizerConfig sgd;
  sgd.learning_rate = 0.5f;
  t.Train(true, false, sgd, 1, &main);
  // The two sparse gradients go to renamed SelectedRows copies, added by a `sum` whose output
  // is declared SelectedRows too; sgd reads that.
  const BlockDesc& b = main.Block(0);
  const OpDesc* sum = nullptr;
  for (const OpDesc* op : b.AllOps()) {
    if (op->Type() == "sum") sum = op;
  }
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->Output("Out"), (std::vector<std::string>{"w@GRAD"}));
  ASSERT_EQ(sum->Input("X").size(), 2u);
  for (const auto& name : sum->Input("X")) {
    EXPECT_NE(name.find("w@GRAD@RENAME@block0@"), std::string::npos) << name;
    EXPECT_EQ(b.FindVar(name)->GetKind(), framework::VarKind::kSelectedRows) << name;
  }
  const framework::VarDesc* dw = b.FindVar("w@GRAD");
  EXPECT_EQ(dw->GetKind(), framework::VarKind::kSelectedRows);
  EXPECT_EQ(dw->GetDataType(), DataType::FLOAT64);
  EXPECT_EQ(dw->GetShape(), (std::vector<int64_t>{TwiceLookedUp::kV, TwiceLookedUp::kD}));
}

TEST(LookupTableV2Grad, TableLookedUpTwiceTrainsLikeDense) {
  TwiceLookedUp t;
  layers::OptimizerConfig sgd;
  sgd.learning_rate = 0.5f;
  // sgd, one step, against the closed form W - lr * dW.
  const std::vector<double> w0 = ToDoubles(t.w), g = t.Gradient();
  std::vector<double> want(w0.size());
  for (size_t i = 0; i < w0.size(); ++i) want[i] = w0[i] - 0.5 * g[i];
  ExpectNear(t.Train(true, false, sgd, 1), want, 1e-12, 1e-12, "sparse sgd vs closed form");
  ExpectNear(t.Train(false, false, sgd, 1), want, 1e-12, 1e-12, "dense sgd vs closed form");

  // Several steps of sgd and adam (absent rows decay like dense ones: lazy_mode off), and
  // adam with weight decay, which adds the dense decay to the sparse gradient (mixed sum).
  layers::OptimizerConfig adam;
  adam.kind = layers::OptimizerConfig::Kind::kAdam;
  adam.learning_rate = 0.1f;
  layers::OptimizerConfig adam_decay = adam;
  adam_decay.weight_decay = 0.05f;
  for (const auto& config : {sgd, adam, adam_decay}) {
    SCOPED_TRACE("optimizer " + std::to_string(static_cast<int>(config.kind)) + " decay " +
                 std::to_string(config.weight_decay));
    const auto dense = t.Train(false, false, config, 3);
    EXPECT_NE(dense, w0);
    ExpectNear(t.Train(true, false, config, 3), dense, 1e-12, 1e-12, "sparse vs dense");
  }
}

// Clipping by global norm keeps the gradient sparse (its duplicate rows merged first) and
// trains like the dense program; the norm is small enough that clipping scales every step.
TEST(LookupTableV2Grad, ClippedSparseGradientTrainsLikeDense) {
  TwiceLookedUp t;
  const std::vector<double> g = t.Gradient();
  double norm = 0;
  for (double v : g) norm += v * v;
  norm = std::sqrt(norm);
  ASSERT_GT(norm, 1.0);
  layers::OptimizerConfig sgd;
  sgd.learning_rate = 0.5f;
  sgd.clip_global_norm = 1.0f;
  ProgramDesc main;
  const std::vector<double> w0 = ToDoubles(t.w);
  const std::vector<double> one_step = t.Train(true, false, sgd, 1, &main);
  bool clipped_sparse = false;
  for (const OpDesc* op : main.Block(0).AllOps()) {
    if (op->Type() != "clip_by_global_norm") continue;
    clipped_sparse = main.Block(0).FindVar(op->Output("Out")[0])->GetKind() ==
                     framework::VarKind::kSelectedRows;
  }
  EXPECT_TRUE(clipped_sparse) << "the clipped gradient should be declared SelectedRows";
  // One step by hand: W - lr * dW / |dW| (|dW| > max_global_norm = 1).
  std::vector<double> want(w0.size());
  for (size_t i = 0; i < w0.size(); ++i) want[i] = w0[i] - 0.5 * g[i] / norm;
  ExpectNear(one_step, want, 1e-12, 1e-12, "clipped sparse sgd vs closed form");
  layers::OptimizerConfig adam = sgd;
  adam.kind = layers::OptimizerConfig::Kind::kAdam;
  adam.learning_rate = 0.1f;
  for (const auto& config : {sgd, adam}) {
    ExpectNear(t.Train(true, false, config, 3), t.Train(false, false, config, 3), 1e-12, 1e-12,
               "clipped sparse vs clipped dense");
  }
}

TEST(LookupTableV2Grad, SparseAndDenseUsesOfOneTableSumToDense) {
  TwiceLookedUp t;
  ProgramDesc main;
  layers::OptimizerConfig sgd;
  sgd.learning_rate = 0.25f;
  const auto sparse = t.Train(true, true, sgd, 2, &main);
  EXPECT_EQ(main.Block(0).FindVar("w@GRAD")->GetKind(), framework::VarKind::kDenseTensor);
  ExpectNear(sparse, t.Train(false, true, sgd, 2), 1e-12, 1e-12, "mixed vs dense");
  // One step from W0 by hand: dW = the lookups' gradient + c3.
  const auto w0 = ToDoubles(t.w), g = t.Gradient(), c3 = ToDoubles(t.c3);
  std::vector<double> want(w0.size());
  for (size_t i = 0; i < w0.size(); ++i) want[i] = w0[i] - 0.25 * (g[i] + c3[i]);
  ExpectNear(t.Train(true, true, sgd, 1), want, 1e-12, 1e-12, "mixed sgd vs closed form");
}

TEST(LookupTableV2Grad, DenseGradientIsDeterministic) {
  const DenseTensor w = MakeTensor<float>({50, 8}, RandomValues(400, -1, 1, 1));
  std::vector<double> ids(300);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<double>((i * 7) % 50);
  const DenseTensor ids_t = MakeTensor<int64_t>({300}, ids);
  const DenseTensor dout = MakeTensor<float>({300, 8}, RandomValues(2400, -1, 1, 2));
  auto run = [&] {
    return ToDoubles(RunOp("lookup_table_v2_grad",
                           {{"W", {w}}, {"Ids", {ids_t}}, {"Out@GRAD", {dout}}}, {{"W@GRAD", 1}})
                         .outputs.at("W@GRAD")[0]);
  };
  EXPECT_EQ(run(), run());
}

TEST(LookupTableV2Grad, GradOpReadsWIdsAndOutGrad) {
  operators::RegisterAllOps();
  ProgramDesc program;
  BlockDesc& b = program.Block(0);
  framework::VarDesc* w = b.Var("w");
  w->SetDataType(DataType::FLOAT32);
  w->SetShape({10, 4});
  w->SetPersistable(true);
  framework::VarDesc* ids = b.Var("ids");
  ids->SetDataType(DataType::INT64);
  ids->SetShape({-1, 5});
  OpDesc* op = b.AppendOp();
  op->SetType("lookup_table_v2");
  op->SetInput("W", {"w"});
  op->SetInput("Ids", {"ids"});
  op->SetOutput("Out", {"out"});
  op->SetAttr("is_sparse", true);
  framework::InferVarTypeAndShape(op, &b);
  EXPECT_EQ(b.FindVar("out")->GetShape(), (std::vector<int64_t>{-1, 5, 4}));
  EXPECT_EQ(b.FindVar("out")->GetDataType(), DataType::FLOAT32);
  const size_t forward_ops = b.OpSize();
  const auto result = framework::AppendBackward(&program, "out");
  const OpDesc* g = nullptr;
  for (size_t i = forward_ops; i < b.OpSize(); ++i) {
    if (b.Op(i)->Type() == "lookup_table_v2_grad") g = b.Op(i);
  }
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->Inputs(), (framework::VariableNameMap{
                             {"W", {"w"}}, {"Ids", {"ids"}}, {"Out@GRAD", {"out@GRAD"}}}));
  EXPECT_TRUE(g->Attr<bool>("is_sparse"));
  const framework::VarDesc* dw = b.FindVar("w@GRAD");
  ASSERT_NE(dw, nullptr);
  EXPECT_EQ(dw->GetKind(), framework::VarKind::kSelectedRows);
  EXPECT_EQ(dw->GetDataType(), DataType::FLOAT32);
  EXPECT_EQ(dw->GetShape(), (std::vector<int64_t>{10, 4}));
  EXPECT_EQ(result.grad_of.at("w"), "w@GRAD");
}

TEST(LookupTableV2, Errors) {
  const DenseTensor w = MakeTensor<float>({4, 2}, RandomValues(8, 0, 1));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lookup_table_v2", {{"W", {w}}, {"Ids", {MakeTensor<int64_t>({3}, {0, 4, 1})}}},
              {{"Out", 1}});
      },
      {"lookup_table_v2", "input `Ids`", "id 4", "[0, 4)"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lookup_table_v2", {{"W", {w}}, {"Ids", {MakeTensor<int32_t>({1}, {-1})}}},
              {{"Out", 1}});
      },
      {"lookup_table_v2", "input `Ids`", "id -1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lookup_table_v2", {{"W", {w}}, {"Ids", {MakeTensor<int64_t>({1}, {0})}}},
              {{"Out", 1}}, {{"padding_idx", int64_t{4}}});
      },
      {"lookup_table_v2", "attribute `padding_idx`", "received 4"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lookup_table_v2",
              {{"W", {MakeTensor<float>({8}, RandomValues(8, 0, 1))}},
               {"Ids", {MakeTensor<int64_t>({1}, {0})}}},
              {{"Out", 1}});
      },
      {"lookup_table_v2", "input `W`", "2-D"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("lookup_table_v2", {{"W", {w}}, {"Ids", {MakeTensor<float>({1}, {0})}}},
              {{"Out", 1}});
      },
      {"lookup_table_v2", "input `Ids`", "int64 or int32"});
}

// ---- MergeSelectedRows / SelectedRowsToDense ----

SelectedRows MakeRows(const std::vector<int64_t>& rows, int64_t height, int64_t width,
                      const std::vector<double>& values) {
  SelectedRows s(rows, height);
  *s.mutable_value() = MakeTensor<double>({static_cast<int64_t>(rows.size()), width}, values);
  return s;
}

TEST(MergeSelectedRows, SortsUniqueAndSumsInOrder) {
  const SelectedRows in = MakeRows({4, 1, 4, 0, 1}, 6, 2, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  SelectedRows out;
  operators::math::MergeSelectedRows(in, &out);
  EXPECT_EQ(out.rows(), (std::vector<int64_t>{0, 1, 4}));
  EXPECT_EQ(out.height(), 6);
  EXPECT_EQ(out.value().dims(), DDim({3, 2}));
  ExpectNear(ToDoubles(out.value()), {7, 8, 3 + 9, 4 + 10, 1 + 5, 2 + 6}, 0, 0, "merged");
  DenseTensor dense;
  operators::math::SelectedRowsToDense(in, &dense);
  EXPECT_EQ(dense.dims(), DDim({6, 2}));
  ExpectNear(ToDoubles(dense), {7, 8, 12, 14, 0, 0, 0, 0, 6, 8, 0, 0}, 0, 0, "dense");
  // Summation order is that of `in`: merging a float32 copy twice gives identical bits.
  SelectedRows f(in.rows(), in.height());
  framework::CastTensor(in.value(), DataType::FLOAT32, f.mutable_value());
  SelectedRows m1, m2;
  operators::math::MergeSelectedRows(f, &m1);
  operators::math::MergeSelectedRows(f, &m2);
  EXPECT_EQ(ToDoubles(m1.value()), ToDoubles(m2.value()));
  EXPECT_EQ(m1.value().dtype(), DataType::FLOAT32);
}

TEST(MergeSelectedRows, EmptyAndErrors) {
  SelectedRows empty = MakeRows({}, 3, 2, {});
  SelectedRows out;
  operators::math::MergeSelectedRows(empty, &out);
  EXPECT_TRUE(out.rows().empty());
  EXPECT_EQ(out.value().dims(), DDim({0, 2}));
  DenseTensor dense;
  operators::math::SelectedRowsToDense(empty, &dense);
  ExpectNear(ToDoubles(dense), std::vector<double>(6, 0.0), 0, 0, "dense of nothing");

  const SelectedRows bad_row = MakeRows({0, 3}, 3, 1, {1, 2});
  ExpectError<platform::InvalidArgumentError>(
      [&] { operators::math::MergeSelectedRows(bad_row, &out); },
      {"MergeSelectedRows", "row index 3", "[0, 3)"});
  SelectedRows bad_value = MakeRows({0, 1}, 3, 1, {1, 2});
  bad_value.mutable_rows()->push_back(2);
  ExpectError<platform::InvalidArgumentError>(
      [&] { operators::math::SelectedRowsToDense(bad_value, &dense); },
      {"SelectedRowsToDense", "[3, ...]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

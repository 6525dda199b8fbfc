// scale_fuse_pass and dead_op_elimination_pass (inference/passes/): what each rewrites, the
// same numbers before and after, and what each must leave alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "framework/ir/pass.h"
#include "framework/scope.h"
#include "inference/passes/passes.h"
#include "operators/registry.h"
#include "tests/pass_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::ProgramDesc;
using framework::Scope;

struct Model : ProgramWithParams {
  Model() { Declare("x", {2, 4, 5, 5}, false); }
  void Conv(const std::string& x, const std::string& w, const std::string& y) {
    Param(w, {6, 4, 3, 3}, -0.5, 0.5);
    Declare(y, {2, 6, 5, 5}, false);
    Op("conv2d", {{"Input", {x}}, {"Filter", {w}}}, {{"Output", {y}}},
       {{"paddings", std::vector<int>{1, 1}}});
  }
  void Scale(const std::string& x, const std::string& y, float scale, float bias,
             bool after = true, const std::vector<int64_t>& shape = {2, 6, 5, 5}) {
    Declare(y, shape, false);
    Op("scale", {{"X", {x}}}, {{"Out", {y}}},
       {{"scale", scale}, {"bias", bias}, {"bias_after_scale", after}});
  }
  void Unary(const std::string& type, const std::string& x, const std::string& y,
             const std::vector<int64_t>& shape = {2, 6, 5, 5}) {
    Declare(y, shape, false);
    Op(type, {{"X", {x}}}, {{"Out", {y}}});
  }
  // fetch ops for `names`, in order, as a saved inference program has them.
  void Fetch(const std::vector<std::string>& names) {
    framework::VarDesc* holder = program.Block(0).Var("fetch");
    holder->SetKind(framework::VarKind::kFetchList);
    holder->SetPersistable(true);
    for (size_t i = 0; i < names.size(); ++i) {
      Op("fetch", {{"X", {names[i]}}}, {{"Out", {"fetch"}}}, {{"col", static_cast<int>(i)}});
    }
  }
};

int Apply(const std::string& pass, ProgramDesc* p, Scope* params) {
  operators::RegisterAllOps();
  inference::RegisterInferencePasses();
  return framework::ir::ApplyPass(*framework::ir::CreatePass(pass), p, params);
}

const DenseTensor& Input() {
  static const DenseTensor x = MakeTensor<float>({2, 4, 5, 5}, RandomValues(200, -1, 1, 3));
  return x;
}

// Runs `m` unchanged and after `pass`; expects the same `fetch` values and returns the
// optimised program's op types.
std::vector<std::string> SameNumbersAfter(const Model& m, const std::string& pass,
                                          int rewrites, const std::string& fetch = "out") {
  operators::RegisterAllOps();
  Scope before_scope, after_scope;
  m.Fill(&before_scope);
  m.Fill(&after_scope);
  const auto before = RunProgram(m.program, &before_scope, Input(), fetch);
  ProgramDesc p = m.program;
  Scope params;
  m.Fill(&params);
  EXPECT_EQ(Apply(pass, &p, &params), rewrites) << pass;
  Scope run_scope;
  for (const auto& name : params.LocalVarNames()) {
    *run_scope.Var(name)->GetMutable<DenseTensor>() =
        params.FindVar(name)->Get<DenseTensor>();
  }
  ExpectNear(RunProgram(p, &run_scope, Input(), fetch), before, 1e-5, 1e-5, pass);
  return OpTypes(p);
}

TEST(ScaleFusePass, FoldsIntoConvWeightsAndBias) {
  for (bool after : {true, false}) {
    for (bool with_bias : {false, true}) {
      Model m;
      m.Conv("x", "w", "y");
      std::string conv_out = "y";
      if (with_bias) {
        m.Param("b", {6}, -1, 1);
        m.program.Block(0).Op(0)->SetInput("Bias", {"b"});
      }
      m.Scale(conv_out, "s", 0.5f, 0.25f, after);
      m.Unary("relu", "s", "out");
      m.Fetch({"out"});
      SCOPED_TRACE(std::string("bias_after_scale ") + (after ? "1" : "0") + ", conv bias " +
                   (with_bias ? "1" : "0"));
      EXPECT_EQ(SameNumbersAfter(m, "scale_fuse_pass", 1),
                (std::vector<std::string>{"conv2d", "relu", "fetch"}));
    }
  }
}

TEST(ScaleFusePass, FoldsIntoFcAndRemovesIdentityScales) {
  Model m;
  m.Declare("flat", {2, 100}, false);
  m.Op("flatten_contiguous_range", {{"X", {"x"}}}, {{"Out", {"flat"}}},
       {{"start_axis", 1}, {"stop_axis", 3}});
  m.Param("fw", {100, 3}, -0.2, 0.2);
  m.Param("fb", {3}, -1, 1);
  m.Declare("f", {2, 3}, false);
  m.Op("fc", {{"Input", {"flat"}}, {"W", {"fw"}}, {"Bias", {"fb"}}}, {{"Out", {"f"}}},
       {{"in_num_col_dims", 1}});
  const std::vector<int64_t> fc_out = {2, 3};
  m.Scale("f", "g", 2.0f, -1.0f, true, fc_out);
  m.Unary("tanh", "g", "t", fc_out);
  m.Scale("t", "u", 1.0f, 0.0f, true, fc_out);  // Identity, Out temporary: readers read X.
  m.Unary("sigmoid", "u", "v", fc_out);
  m.Scale("v", "out", 1.0f, 0.0f, true, fc_out);  // Identity, Out fetched: sigmoid writes it.
  m.Fetch({"out"});
  EXPECT_EQ(SameNumbersAfter(m, "scale_fuse_pass", 3),
            (std::vector<std::string>{"flatten_contiguous_range", "fc", "tanh", "sigmoid",
                                      "fetch"}));
}

TEST(ScaleFusePass, LeavesAloneWhatItCannotFold) {
  Model m;
  m.Conv("x", "w", "y");
  m.Scale("y", "s", 3.0f, 1.0f);  // y is also read below.
  m.Unary("relu", "y", "r");
  m.Declare("both", {2, 6, 5, 5}, false);
  m.Op("elementwise_add", {{"X", {"s"}}, {"Y", {"r"}}}, {{"Out", {"both"}}});
  // A conv with an activation fused: the scale comes after the activation.
  m.Param("w2", {6, 6, 3, 3}, -0.5, 0.5);
  m.Declare("z", {2, 6, 5, 5}, false);
  m.Op("conv2d", {{"Input", {"both"}}, {"Filter", {"w2"}}}, {{"Output", {"z"}}},
       {{"paddings", std::vector<int>{1, 1}}});
  m.program.Block(0).Op(4)->SetAttr("fuse_activation", std::string("relu"));
  m.Scale("z", "zs", 2.0f, 0.0f);
  // A filter two convs share.
  m.Declare("z2", {2, 6, 5, 5}, false);
  m.Op("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"z2"}}},
       {{"paddings", std::vector<int>{1, 1}}});
  m.Scale("z2", "z2s", 2.0f, 0.0f);
  m.Declare("out", {2, 6, 5, 5}, false);
  m.Op("elementwise_add", {{"X", {"zs"}}, {"Y", {"z2s"}}}, {{"Out", {"out"}}});
  m.Fetch({"out"});
  ProgramDesc p = m.program;
  Scope params;
  m.Fill(&params);
  const std::string before = p.ToBinary();
  EXPECT_EQ(Apply("scale_fuse_pass", &p, &params), 0);
  EXPECT_EQ(p.ToBinary(), before);
}

TEST(DeadOpEliminationPass, RemovesUnreadBranchesAndTheirParameters) {
  operators::RegisterAllOps();
  Model m;
  m.Unary("relu", "x", "out", {2, 4, 5, 5});
  // An auxiliary head nobody fetches: conv -> sigmoid -> tanh.
  m.Conv("x", "aux_w", "aux");
  m.Unary("sigmoid", "aux", "aux_s");
  m.Unary("tanh", "aux_s", "aux_t");
  // Random ops stay even unread (removing one would shift the others' streams).
  m.Declare("noise", {2, 2}, false);
  m.Op("uniform_random", {}, {{"Out", {"noise"}}},
       {{"shape", std::vector<int64_t>{2, 2}}, {"min", -1.0f}, {"max", 1.0f}, {"seed", 1}});
  m.Fetch({"out"});
  ProgramDesc p = m.program;
  Scope params;
  m.Fill(&params);
  EXPECT_EQ(Apply("dead_op_elimination_pass", &p, &params), 3);
  EXPECT_EQ(OpTypes(p), (std::vector<std::string>{"relu", "uniform_random", "fetch"}));
  EXPECT_EQ(p.Block(0).FindVar("aux_w"), nullptr) << "the parameter only the head read";
  EXPECT_EQ(params.FindVar("aux_w"), nullptr);
  EXPECT_EQ(p.Block(0).FindVar("aux_s"), nullptr);
  Scope optimised_scope, original_scope;
  m.Fill(&original_scope);
  ExpectNear(RunProgram(p, &optimised_scope, Input()), RunProgram(m.program, &original_scope, Input()),
             0, 0, "relu");

  // Without fetch ops what the caller reads is unknown: nothing goes.
  ProgramDesc bare = m.program;
  framework::BlockDesc& b = bare.Block(0);
  b.RemoveOp(b.OpSize() - 1, b.OpSize());
  EXPECT_EQ(Apply("dead_op_elimination_pass", &bare, nullptr), 0);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

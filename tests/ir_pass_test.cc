// The graph view for passes (framework/ir): producers and consumers, the pattern matcher
// (types, attribute predicates, single-consumer edges), rewrite helpers that keep the
// program valid, the pass capability check, and delete_dropout_pass giving the same numbers
// with fewer ops.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/ir/graph.h"
#include "framework/ir/pass.h"
#include "framework/ir/pattern.h"
#include "framework/ir/rewrite.h"
#include "inference/passes/passes.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::OpDesc;
using framework::ProgramDesc;
using framework::ir::FindMatches;
using framework::ir::Graph;
using framework::ir::Pattern;

OpDesc* Add(ProgramDesc* p, const std::string& type, const framework::VariableNameMap& in,
            const framework::VariableNameMap& out, const AttributeMap& attrs = {}) {
  OpDesc* op = p->Block(0).AppendOp();
  op->SetType(type);
  for (const auto& kv : in) op->SetInput(kv.first, kv.second);
  for (const auto& kv : out) {
    op->SetOutput(kv.first, kv.second);
    for (const auto& n : kv.second) p->Block(0).Var(n);
  }
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  return op;
}

// x -> conv2d -> y -> relu -> r -> pool2d(max) -> p, and y also read by `scale` when `fork`.
ProgramDesc ConvReluPool(bool fork) {
  ProgramDesc p;
  p.Block(0).Var("x");
  p.Block(0).Var("w")->SetPersistable(true);
  Add(&p, "conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"y"}}});
  Add(&p, "relu", {{"X", {"y"}}}, {{"Out", {"r"}}});
  Add(&p, "pool2d", {{"X", {"r"}}}, {{"Out", {"p"}}}, {{"pooling_type", std::string("max")}});
  if (fork) Add(&p, "scale", {{"X", {"y"}}}, {{"Out", {"s"}}});
  return p;
}

class IrPassTest : public ::testing::Test {
 protected:
  void SetUp() override {
    operators::RegisterAllOps();
    inference::RegisterInferencePasses();
  }
};

TEST_F(IrPassTest, GraphLinksProducersAndConsumers) {
  const ProgramDesc p = ConvReluPool(true);
  const Graph g(p.Block(0));
  EXPECT_EQ(g.Producers("y"), std::vector<size_t>({0}));
  EXPECT_EQ(g.Consumers("y"), std::vector<size_t>({1, 3}));
  EXPECT_EQ(g.Consumers("w"), std::vector<size_t>({0}));
  EXPECT_TRUE(g.Producers("x").empty());
  EXPECT_TRUE(g.IsPersistable("w"));
  EXPECT_FALSE(g.IsPersistable("y"));
  EXPECT_FALSE(g.IsVisibleOutside("p"));
}

// A sub-block that reads one temporary of block 0 and writes another makes both visible
// outside block 0, so passes keep their names.
TEST_F(IrPassTest, VariablesOfSubBlocksAreVisibleOutside) {
  ProgramDesc p = ConvReluPool(true);
  framework::BlockDesc* sub = p.AppendBlock(p.Block(0));
  framework::OpDesc* op = sub->AppendOp();
  op->SetType("scale");
  op->SetInput("X", {"y"});
  op->SetOutput("Out", {"z"});
  const Graph g(p.Block(0));
  EXPECT_TRUE(g.IsVisibleOutside("y"));
  EXPECT_TRUE(g.IsVisibleOutside("z"));
  EXPECT_FALSE(g.IsVisibleOutside("p"));
}

Pattern ConvReluPattern(int* conv, int* relu) {
  Pattern pattern;
  *conv = pattern.AddOp("conv2d");
  *relu = pattern.AddOp("relu");
  pattern.Connect(*conv, "Output", *relu, "X");
  return pattern;
}

TEST_F(IrPassTest, PatternMatchesAChainWithASingleConsumer) {
  int conv = 0, relu = 0;
  const Pattern pattern = ConvReluPattern(&conv, &relu);
  const ProgramDesc chain = ConvReluPool(false);
  const auto matches = FindMatches(Graph(chain.Block(0)), pattern);
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].ops[conv], 0u);
  EXPECT_EQ(matches[0].ops[relu], 1u);
  EXPECT_EQ(matches[0].Var(conv, "Output"), "y");
  // y read by a second op: fusing would lose it.
  const ProgramDesc forked = ConvReluPool(true);
  EXPECT_TRUE(FindMatches(Graph(forked.Block(0)), pattern).empty());
  // Without the single-consumer constraint it matches.
  Pattern loose;
  const int c = loose.AddOp("conv2d");
  loose.Connect(c, "Output", loose.AddOp("relu"), "X", /*single_consumer=*/false);
  EXPECT_EQ(FindMatches(Graph(forked.Block(0)), loose).size(), 1u);
}

TEST_F(IrPassTest, PatternPredicatesSeeAttributes) {
  const ProgramDesc p = ConvReluPool(false);
  const auto pooling_is = [](const std::string& kind) {
    Pattern pattern;
    const int relu = pattern.AddOp("relu");
    const int pool = pattern.AddOp("pool2d", [kind](const OpDesc& op) {
      return op.HasAttr("pooling_type") && op.Attr<std::string>("pooling_type") == kind;
    });
    pattern.Connect(relu, "Out", pool, "X");
    return pattern;
  };
  EXPECT_EQ(FindMatches(Graph(p.Block(0)), pooling_is("max")).size(), 1u);
  EXPECT_TRUE(FindMatches(Graph(p.Block(0)), pooling_is("avg")).empty());
  // A match may also grow backwards, from the anchor to its producer.
  Pattern backwards;
  const int relu = backwards.AddOp("relu");
  backwards.Connect(backwards.AddOp("conv2d"), "Output", relu, "X");
  EXPECT_EQ(FindMatches(Graph(p.Block(0)), backwards).size(), 1u);
}

TEST_F(IrPassTest, DisconnectedPatternIsAnError) {
  Pattern pattern;
  pattern.AddOp("conv2d");
  pattern.AddOp("relu");
  const ProgramDesc p = ConvReluPool(false);
  ExpectError<platform::InvalidArgumentError>([&] { FindMatches(Graph(p.Block(0)), pattern); },
                                              {"pattern", "connected"});
}

TEST_F(IrPassTest, ReplaceOpsKeepsTheProgramValid) {
  ProgramDesc p = ConvReluPool(false);
  int conv = 0, relu = 0;
  const auto m = FindMatches(Graph(p.Block(0)), ConvReluPattern(&conv, &relu))[0];
  // Stand-in for a fused op: any registered op with the same outer variables.
  framework::ir::ReplaceOps(&p.Block(0), m.ops,
                            OpDesc("conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}},
                                   {{"Output", {"r"}}}, {}));
  ASSERT_EQ(p.Block(0).OpSize(), 2u);
  EXPECT_EQ(p.Block(0).Op(0)->Type(), "conv2d");
  EXPECT_EQ(p.Block(0).Op(1)->Type(), "pool2d");
  EXPECT_FALSE(p.Block(0).HasVar("y"));  // The intermediate is gone ...
  EXPECT_TRUE(p.Block(0).HasVar("w"));   // ... parameters stay.
  const ProgramDesc reloaded = ProgramDesc::FromBinary(p.ToBinary());
  EXPECT_EQ(reloaded.Block(0).OpSize(), 2u);
}

// x -> relu -> a -> dropout(downgrade, p) -> b -> dropout(upscale) -> c -> scale(2) -> d,
// d fetched.
ProgramDesc DropoutProgram(bool is_test) {
  ProgramDesc p;
  p.Block(0).Var("x");
  Add(&p, "relu", {{"X", {"x"}}}, {{"Out", {"a"}}});
  Add(&p, "dropout", {{"X", {"a"}}}, {{"Out", {"b"}}, {"Mask", {"m1"}}},
      {{"is_test", is_test}, {"dropout_prob", 0.25f}});
  Add(&p, "dropout", {{"X", {"b"}}}, {{"Out", {"c"}}, {"Mask", {"m2"}}},
      {{"is_test", is_test}, {"dropout_prob", 0.5f},
       {"dropout_implementation", std::string("upscale_in_train")}});
  Add(&p, "scale", {{"X", {"c"}}}, {{"Out", {"d"}}}, {{"scale", 2.0f}});
  return p;
}

std::vector<double> RunDropoutProgram(const ProgramDesc& p, const std::vector<double>& x) {
  framework::Scope scope;
  framework::Executor exec{platform::CPUPlace()};
  const auto out = exec.Run(p, &scope, {{"x", MakeTensor<float>(DDim({2, 3}), x)}}, {"d"});
  return ToDoubles(out.at(0));
}

TEST_F(IrPassTest, DeleteDropoutPassGivesTheSameNumbersWithFewerOps) {
  const std::vector<double> x = {-1, 0.5, 2, -3, 4, 0.25};
  ProgramDesc p = DropoutProgram(true);
  const std::vector<double> before = RunDropoutProgram(p, x);
  // relu, then * 0.75, then * 1, then * 2.
  std::vector<double> want;
  for (double v : x) want.push_back(std::max(v, 0.0) * 0.75 * 2);
  ExpectNear(before, want, 1e-6, 1e-6, "before the pass");
  const auto pass = framework::ir::CreatePass("delete_dropout_pass");
  EXPECT_EQ(framework::ir::ApplyPass(*pass, &p), 2);
  ASSERT_EQ(p.Block(0).OpSize(), 3u);
  EXPECT_EQ(p.Block(0).Op(1)->Type(), "scale");
  EXPECT_EQ(p.Block(0).Op(1)->Attr<float>("scale"), 0.75f);
  EXPECT_EQ(p.Block(0).Op(2)->Input("X"), std::vector<std::string>({"b"}));
  for (const char* gone : {"m1", "m2", "c"}) EXPECT_FALSE(p.Block(0).HasVar(gone)) << gone;
  const ProgramDesc reloaded = ProgramDesc::FromBinary(p.ToBinary());
  ExpectNear(RunDropoutProgram(reloaded, x), want, 1e-6, 1e-6, "after the pass");
}

TEST_F(IrPassTest, DeleteDropoutPassLeavesTrainingDropoutAlone) {
  ProgramDesc p = DropoutProgram(false);
  const std::string before = p.ToBinary();
  EXPECT_EQ(framework::ir::ApplyPass(*framework::ir::CreatePass("delete_dropout_pass"), &p), 0);
  EXPECT_EQ(p.ToBinary(), before);
}

TEST_F(IrPassTest, ProgramOutsideThePassCapabilityIsLeftUnchanged) {
  ProgramDesc p = DropoutProgram(true);
  (*p.MutableOpVersions())["dropout"] = 3;  // Saved where dropout changed meaning.
  const auto pass = framework::ir::CreatePass("delete_dropout_pass");
  EXPECT_NE(framework::ir::CapabilityProblem(p, pass->Capability()).find("op `dropout`"),
            std::string::npos);
  const std::string before = p.ToBinary();
  EXPECT_EQ(framework::ir::ApplyPass(*pass, &p), 0);
  EXPECT_EQ(p.ToBinary(), before);
  // Within the capability it applies.
  (*p.MutableOpVersions())["dropout"] = 0;
  EXPECT_EQ(framework::ir::ApplyPass(*pass, &p), 2);
}

TEST_F(IrPassTest, UnknownPassNamesTheRegisteredOnes) {
  ExpectError<platform::NotFoundError>([] { framework::ir::CreatePass("no_such_pass"); },
                                       {"no_such_pass", "delete_dropout_pass"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

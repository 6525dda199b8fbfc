// Memory planning (framework/memory_planning.h): when temporaries die, and which (input,
// output) pairs may reuse a dying input's buffer.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "framework/memory_planning.h"
#include "framework/op_registry.h"
#include "operators/registry.h"

namespace paddle_like {
namespace framework {
namespace {

struct Planned {
  std::vector<std::unique_ptr<OperatorBase>> owned;
  MemoryPlan plan;
};

Planned Plan(const ProgramDesc& program, const std::set<std::string>& temporaries) {
  operators::RegisterAllOps();
  Planned p;
  std::vector<const OperatorBase*> ops;
  for (const OpDesc* d : program.Block(0).AllOps()) {
    p.owned.push_back(OpRegistry::CreateOp(*d));
    ops.push_back(p.owned.back().get());
  }
  p.plan = PlanMemory(program, 0, ops, temporaries);
  return p;
}

void Append(BlockDesc* block, const std::string& type, const VariableNameMap& in,
            const VariableNameMap& out) {
  OpDesc* op = block->AppendOp();
  op->SetType(type);
  for (const auto& kv : in) op->SetInput(kv.first, kv.second);
  for (const auto& kv : out) op->SetOutput(kv.first, kv.second);
}

std::vector<std::string> Describe(const std::vector<PreparedOp::InPlaceCandidate>& cs) {
  std::vector<std::string> out;
  for (const auto& c : cs) {
    out.push_back(c.in_slot + "[" + std::to_string(c.in_index) + "]->" + c.out_slot + "[" +
                  std::to_string(c.out_index) + "]");
  }
  return out;
}

using Strings = std::vector<std::string>;

TEST(MemoryPlanning, AChainReusesEachTemporaryAtItsOnlyReader) {
  ProgramDesc program;
  BlockDesc& b = program.Block(0);
  Append(&b, "relu", {{"X", {"a"}}}, {{"Out", {"t1"}}});
  Append(&b, "relu", {{"X", {"t1"}}}, {{"Out", {"t2"}}});
  Append(&b, "scale", {{"X", {"t2"}}}, {{"Out", {"y"}}});
  // "a" is fed (not a temporary of the plan), "y" is kept.
  const Planned p = Plan(program, {"t1", "t2"});
  EXPECT_EQ(Describe(p.plan.in_place[0]), Strings{});
  EXPECT_EQ(Describe(p.plan.in_place[1]), Strings{"X[0]->Out[0]"});
  EXPECT_EQ(Describe(p.plan.in_place[2]), Strings{"X[0]->Out[0]"});
  EXPECT_EQ(p.plan.free_after[0], Strings{});
  EXPECT_EQ(p.plan.free_after[1], Strings{"t1"});
  EXPECT_EQ(p.plan.free_after[2], Strings{"t2"});
}

TEST(MemoryPlanning, OnlyTheLastReaderOfATemporaryMayReuseIt) {
  ProgramDesc program;
  BlockDesc& b = program.Block(0);
  Append(&b, "relu", {{"X", {"a"}}}, {{"Out", {"t"}}});
  Append(&b, "relu", {{"X", {"t"}}}, {{"Out", {"u"}}});
  Append(&b, "elementwise_add", {{"X", {"u"}}, {"Y", {"t"}}}, {{"Out", {"y"}}});
  const Planned p = Plan(program, {"t", "u"});
  EXPECT_EQ(Describe(p.plan.in_place[1]), Strings{});  // "t" is read again later.
  EXPECT_EQ(Describe(p.plan.in_place[2]), (Strings{"X[0]->Out[0]", "Y[0]->Out[0]"}));
  EXPECT_EQ(p.plan.free_after[2], (Strings{"t", "u"}));
}

TEST(MemoryPlanning, AnInputReadTwiceOrWrittenByItsOpIsNeverReused) {
  ProgramDesc program;
  BlockDesc& b = program.Block(0);
  Append(&b, "relu", {{"X", {"a"}}}, {{"Out", {"t"}}});
  Append(&b, "elementwise_mul", {{"X", {"t"}}, {"Y", {"t"}}}, {{"Out", {"u"}}});
  Append(&b, "relu", {{"X", {"u"}}}, {{"Out", {"u"}}});
  Append(&b, "sum", {{"X", {"u", "v"}}}, {{"Out", {"y"}}});
  const Planned p = Plan(program, {"t", "u", "v"});
  EXPECT_EQ(Describe(p.plan.in_place[1]), Strings{});
  EXPECT_EQ(Describe(p.plan.in_place[2]), Strings{});
  // Duplicable slots: each dying entry is a candidate.
  EXPECT_EQ(Describe(p.plan.in_place[3]), (Strings{"X[0]->Out[0]", "X[1]->Out[0]"}));
}

TEST(MemoryPlanning, AnOutputTheOpAlsoReadsNeverTakesAnInputsBuffer) {
  ProgramDesc program;
  BlockDesc& b = program.Block(0);
  Append(&b, "relu", {{"X", {"a"}}}, {{"Out", {"t"}}});
  // Out is Y: giving it X's buffer before the kernel reads Y would lose Y.
  Append(&b, "elementwise_add", {{"X", {"t"}}, {"Y", {"acc"}}}, {{"Out", {"acc"}}});
  const Planned p = Plan(program, {"t", "acc"});
  EXPECT_EQ(Describe(p.plan.in_place[1]), Strings{});
}

TEST(MemoryPlanning, VariablesOfTheCallerOrOfOtherBlocksAreLeftAlone) {
  ProgramDesc program;
  BlockDesc& b = program.Block(0);
  Append(&b, "relu", {{"X", {"a"}}}, {{"Out", {"t"}}});
  Append(&b, "relu", {{"X", {"t"}}}, {{"Out", {"kept"}}});
  Append(&b, "relu", {{"X", {"kept"}}}, {{"Out", {"s"}}});
  Append(&b, "relu", {{"X", {"s"}}}, {{"Out", {"y"}}});
  BlockDesc* sub = program.AppendBlock(b);
  Append(sub, "relu", {{"X", {"s"}}}, {{"Out", {"z"}}});
  // "kept" is not a temporary (kept or persistable); "s" is read by block 1.
  const Planned p = Plan(program, {"t", "s"});
  EXPECT_EQ(Describe(p.plan.in_place[1]), Strings{"X[0]->Out[0]"});
  EXPECT_EQ(Describe(p.plan.in_place[2]), Strings{});
  EXPECT_EQ(Describe(p.plan.in_place[3]), Strings{});
  EXPECT_EQ(p.plan.free_after[3], Strings{});
}

}  // namespace
}  // namespace framework
}  // namespace paddle_like

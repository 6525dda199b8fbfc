// Structured op-version checkpoints (framework/op_info.h): every registered op's recorded
// changes agree with its proto, a mistaken record is reported, and a pass's capability check
// lets through a program at a newer version only when its ops use none of what changed; every
// op is at least at the version PaddlePaddle gives it (tests/fixtures/paddle_op_versions.txt).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "framework/ir/pass.h"
#include "framework/op_registry.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::OpVersionDesc;
using framework::ProgramDesc;

class CheckpointMaker : public framework::OpProtoAndCheckerMaker {
  void Make() override {
    AddInput("X", "x");
    AddInput("Extra", "a later, dispensable input").AsDispensable();
    AddInput("Required", "a later input that old programs lack");
    AddOutput("Out", "out");
    AddAttr<float>("gain", "a later attribute").SetDefault(1.0f);
    AddAttr<int>("mode", "an attribute without default");
    AddComment("$$Out = gain X$$");
  }
};

class CheckpointOp : public framework::OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

TEST(OpVersionTest, EveryRegisteredCheckpointAgreesWithItsOp) {
  operators::RegisterAllOps();
  size_t changes = 0;
  for (const auto& kv : framework::OpInfoMap::Instance().map()) {
    for (const std::string& problem : framework::CheckpointProblems(kv.first)) {
      ADD_FAILURE() << problem;
    }
    for (const auto& c : kv.second.checkpoints) {
      EXPECT_FALSE(c.changes.empty()) << "op `" << kv.first << "` checkpoint `" << c.note
                                      << "` records no changes";
      changes += c.changes.size();
    }
  }
  EXPECT_GE(changes, 20u);
}

// A program PaddlePaddle saves records its ops' versions there; a runtime behind on one refuses
// the program (an op it has changed since), so each registered op must have caught up.
TEST(OpVersionTest, EveryOpIsAtLeastAtPaddlePaddlesVersion) {
  operators::RegisterAllOps();
  std::ifstream in(PL_SOURCE_DIR "/tests/fixtures/paddle_op_versions.txt");
  ASSERT_TRUE(in.good()) << "tests/fixtures/paddle_op_versions.txt is missing";
  std::string op;
  int version = 0, listed = 0, registered = 0;
  const auto& ops = framework::OpInfoMap::Instance().map();
  while (in >> op >> version) {
    ++listed;
    const auto it = ops.find(op);
    if (it == ops.end()) continue;
    ++registered;
    EXPECT_GE(it->second.version(), version)
        << "op `" << op << "` is at version " << it->second.version() << ", PaddlePaddle's at "
        << version << ": add the checkpoints it lacks";
  }
  EXPECT_GE(listed, 50);
  EXPECT_GE(registered, 40);
}

TEST(OpVersionTest, MistakenRecordsAreReported) {
  operators::RegisterAllOps();
  static bool registered = false;
  if (!registered) {
    framework::RegisterOp<CheckpointOp, CheckpointMaker>("test_checkpoints")
        .Checkpoint("fine", OpVersionDesc()
                                .NewAttr("gain", "scales Out", 1.0f)
                                .NewInput("Extra", "optional")
                                .BugfixWithBehaviorChanged("rounding"))
        .Checkpoint("mistakes", OpVersionDesc()
                                    .NewAttr("gain", "wrong default", 2.0f)
                                    .NewAttr("missing", "not declared", 0)
                                    .ModifyAttr("mode", "no default", 0)
                                    .NewInput("Required", "not dispensable")
                                    .NewOutput("Nothing", "not declared")
                                    .BugfixWithBehaviorChanged(""));
    registered = true;
  }
  const auto problems = framework::CheckpointProblems("test_checkpoints");
  ASSERT_EQ(problems.size(), 6u);
  const std::vector<std::string> expected = {
      "checkpoint 2, new attribute `gain`: the recorded default is not the declared one",
      "checkpoint 2, new attribute `missing`: not an attribute of the op",
      "checkpoint 2, modified attribute `mode`: the attribute has no default",
      "checkpoint 2, new input `Required`: the slot is not dispensable",
      "checkpoint 2, new output `Nothing`: not a slot of the op",
      "checkpoint 2, bug fix with changed behaviour ``: no remark",
  };
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NE(problems[i].find(expected[i]), std::string::npos) << problems[i];
    EXPECT_EQ(problems[i].rfind("op `test_checkpoints`", 0), 0u) << problems[i];
  }
}

// A pass written for fill_constant version 0 (before ValueTensor and place_type) and arg_max
// version 0 (before `flatten` and the int64 default of `dtype`).
class OldPass : public framework::ir::Pass {
 public:
  std::string Name() const override { return "old_pass"; }
  framework::ir::PassCapability Capability() const override {
    return {{{"fill_constant", 0}, {"arg_max", 0}}};
  }
  int ApplyImpl(ProgramDesc*, framework::Scope*) const override { return 1; }
};

ProgramDesc FillConstantProgram(const framework::AttributeMap& attrs,
                                const std::vector<std::string>& value_tensor) {
  ProgramDesc p;
  framework::OpDesc* op = p.Block(0).AppendOp();
  op->SetType("fill_constant");
  op->SetOutput("Out", {"y"});
  op->SetAttr("shape", std::vector<int64_t>{2});
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  if (!value_tensor.empty()) op->SetInput("ValueTensor", value_tensor);
  return p;
}

TEST(OpVersionTest, PassCapabilityLooksAtWhatTheNewerVersionsChanged) {
  operators::RegisterAllOps();
  ASSERT_EQ(framework::OpInfoMap::Instance().Get("fill_constant").version(), 2);
  const OldPass pass;
  // Version 2 programs whose fill_constant keeps the old behaviour: the pass runs.
  ProgramDesc plain = FillConstantProgram({}, {});
  EXPECT_EQ(framework::ir::CapabilityProblem(plain, pass.Capability()), "");
  ProgramDesc at_default = FillConstantProgram({{"place_type", -1}}, {});
  EXPECT_EQ(framework::ir::CapabilityProblem(at_default, pass.Capability()), "");
  EXPECT_EQ(framework::ir::ApplyPass(pass, &at_default), 1);

  ProgramDesc new_attr = FillConstantProgram({{"place_type", 0}}, {});
  EXPECT_NE(framework::ir::CapabilityProblem(new_attr, pass.Capability())
                .find("sets new attribute `place_type` at version 2"),
            std::string::npos);
  ProgramDesc new_input = FillConstantProgram({}, {"v"});
  const std::string problem = framework::ir::CapabilityProblem(new_input, pass.Capability());
  EXPECT_NE(problem.find("op `fill_constant` (block 0)"), std::string::npos) << problem;
  EXPECT_NE(problem.find("uses new input `ValueTensor` at version 1"), std::string::npos)
      << problem;
  const ProgramDesc before = new_input;
  EXPECT_EQ(framework::ir::ApplyPass(pass, &new_input), 0);
  EXPECT_EQ(new_input.ToBinary(), before.ToBinary());

  // arg_max's version 1 changed what `dtype` means by default: never compatible.
  ProgramDesc arg_max;
  framework::OpDesc* op = arg_max.Block(0).AppendOp();
  op->SetType("arg_max");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"y"});
  EXPECT_NE(framework::ir::CapabilityProblem(arg_max, pass.Capability())
                .find("attribute `dtype` changed meaning"),
            std::string::npos);
  // A program saved at version 0 is within the capability whatever it uses.
  arg_max.MutableOpVersions()->operator[]("arg_max") = 0;
  EXPECT_EQ(framework::ir::CapabilityProblem(arg_max, pass.Capability()), "");
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

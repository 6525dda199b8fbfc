// framework::ValidateProgram, the checks a loader runs on a whole program before anything of
// it runs: the version field, every variable an op names declared in its block or an
// ancestor, feed/fetch columns, and each op against its registration. The Predictor refuses
// such a program at CreatePredictor; a saved model of the fixtures passes.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "framework/model_loading.h"
#include "framework/program_validation.h"
#include "operators/registry.h"
#include "paddle_like/inference_api.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::ProgramDesc;

class ProgramValidation : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

// feed x -> scale -> y -> fetch, all declared; `cols` gives the fetch ops' col attributes.
ProgramDesc FeedScaleFetch(std::vector<int> fetch_cols = {0}) {
  ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  for (const char* name : {"x", "y"}) {
    b.Var(name)->SetShape({-1, 4});
    b.Var(name)->SetDataType(DataType::FLOAT32);
  }
  b.Var("feed")->SetKind(framework::VarKind::kFeedMinibatch);
  b.Var("fetch")->SetKind(framework::VarKind::kFetchList);
  framework::OpDesc* feed = b.AppendOp();
  feed->SetType("feed");
  feed->SetInput("X", {"feed"});
  feed->SetOutput("Out", {"x"});
  feed->SetAttr("col", 0);
  framework::OpDesc* scale = b.AppendOp();
  scale->SetType("scale");
  scale->SetInput("X", {"x"});
  scale->SetOutput("Out", {"y"});
  for (int col : fetch_cols) {
    framework::OpDesc* fetch = b.AppendOp();
    fetch->SetType("fetch");
    fetch->SetInput("X", {"y"});
    fetch->SetOutput("Out", {"fetch"});
    fetch->SetAttr("col", col);
  }
  p.SetVersion(2006002);
  return p;
}

TEST_F(ProgramValidation, AWellFormedProgramPasses) {
  framework::ValidateProgram(FeedScaleFetch({0, 1}), "ok.pdmodel");
}

TEST_F(ProgramValidation, UndeclaredVariableIsNamed) {
  ProgramDesc p = FeedScaleFetch();
  p.Block(0).Op(1)->SetOutput("Out", {"z"});
  ExpectError<platform::NotFoundError>(
      [&] { framework::ValidateProgram(p, "m.pdmodel"); },
      {"program `m.pdmodel` block 0 op #1 `scale` output `Out`: variable `z` is not declared"});
}

TEST_F(ProgramValidation, VariablesOfAnAncestorBlockCount) {
  ProgramDesc p = FeedScaleFetch();
  framework::BlockDesc* sub = p.AppendBlock(p.Block(0));
  framework::OpDesc* op = sub->AppendOp();
  op->SetType("scale");
  op->SetInput("X", {"x"});  // Declared in block 0, the parent.
  op->SetOutput("Out", {"y"});
  framework::ValidateProgram(p, "m.pdmodel");
  op->SetInput("X", {"nowhere"});
  ExpectError<platform::NotFoundError>([&] { framework::ValidateProgram(p, "m.pdmodel"); },
                                       {"block 1 op #0 `scale` input `X`: variable `nowhere`"});
}

TEST_F(ProgramValidation, FetchColumnsMustBeZeroToNOnceEach) {
  ExpectError<platform::InvalidArgumentError>(
      [&] { framework::ValidateProgram(FeedScaleFetch({0, 0}), "m.pdmodel"); },
      {"the 2 `fetch` ops must have `col` 0 to 1 once each, found col 0 twice"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { framework::ValidateProgram(FeedScaleFetch({0, 2}), "m.pdmodel"); },
      {"found col 2 out of range"});
}

// PaddlePaddle's loader requires `col` (no default) on feed and fetch ops, and so does ours.
TEST_F(ProgramValidation, FeedAndFetchOpsWithoutColAreRefused) {
  for (size_t op : {size_t{0}, size_t{2}}) {
    ProgramDesc p = FeedScaleFetch();
    p.Block(0).Op(op)->RemoveAttr("col");
    const std::string type = op == 0 ? "feed" : "fetch";
    ExpectError<platform::InvalidArgumentError>(
        [&] { framework::ValidateProgram(p, "m.pdmodel"); },
        {"op `" + type + "` attribute `col`: required INT attribute is missing"});
  }
}

// op_role takes PaddlePaddle's OpRole values and the combinations it writes; its loader
// refuses others, and so does ours.
TEST_F(ProgramValidation, OpRoleOutsidePaddlePaddlesRolesIsRefused) {
  for (int role : {0, 1, 2, 4, 8, 16, 256, 257, 18, 4096}) {
    ProgramDesc p = FeedScaleFetch();
    p.Block(0).Op(1)->SetAttr("op_role", role);
    framework::ValidateProgram(p, "m.pdmodel");
  }
  for (const framework::Attribute& role :
       {framework::Attribute(1000), framework::Attribute(1 << 30), framework::Attribute(3),
        framework::Attribute(-1)}) {
    ProgramDesc p = FeedScaleFetch();
    p.Block(0).Op(1)->SetAttr("op_role", role);
    ExpectError<platform::InvalidArgumentError>(
        [&] { framework::ValidateProgram(p, "m.pdmodel"); },
        {"op `scale` attribute `op_role`: expected one of {0, 1, 2, 4, 8, 16, 256, 257, 18, "
         "4096}"});
  }
  // A long where the op reads an int is refused by type, as PaddlePaddle refuses it.
  ProgramDesc p = FeedScaleFetch();
  p.Block(0).Op(1)->SetAttr("op_role", int64_t{1});
  ExpectError<platform::InvalidArgumentError>(
      [&] { framework::ValidateProgram(p, "m.pdmodel"); },
      {"op `scale` attribute `op_role`: expected type INT, received LONG 1"});
}

// An op that reads a tensor no earlier op wrote (and that is neither a parameter nor fed) is
// refused by name: ops out of order. Variables a caller feeds directly count as written.
TEST_F(ProgramValidation, ATensorReadBeforeAnyOpWritesItIsRefused) {
  ProgramDesc p = FeedScaleFetch();
  framework::BlockDesc& b = p.Block(0);
  b.Var("z")->SetShape({-1, 4});
  framework::OpDesc* relu = b.InsertOp(1);  // Reads z, which the scale op after it writes.
  relu->SetType("relu");
  relu->SetInput("X", {"z"});
  relu->SetOutput("Out", {"x2"});
  b.Var("x2")->SetShape({-1, 4});
  b.Op(2)->SetOutput("Out", {"z"});
  b.Op(3)->SetInput("X", {"x2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { framework::ValidateProgram(p, "m.pdmodel"); },
      {"program `m.pdmodel` block 0 op #1 `relu` input `X`: variable `z` is read before any op "
       "writes it"});
  framework::ValidateProgram(p, "m.pdmodel", {"z"});  // Fed by the caller.
  b.Var("z")->SetPersistable(true);                   // Or a parameter.
  framework::ValidateProgram(p, "m.pdmodel");
}

// A control-flow op lists whatever its sub-block reads from outside, including loop-carried
// variables the sub-block writes first (a tensor array filled in a loop): those are not
// refused, and the ops after the loop read what it wrote.
TEST_F(ProgramValidation, LoopCarriedInputsOfAControlFlowOpPass) {
  ProgramDesc p = FeedScaleFetch();
  framework::BlockDesc& b = p.Block(0);
  b.Var("arr")->SetKind(framework::VarKind::kDenseTensorArray);
  b.Var("cond")->SetDataType(DataType::BOOL);
  framework::BlockDesc* body = p.AppendBlock(b);
  framework::OpDesc* loop = b.InsertOp(2);
  loop->SetType("while");
  loop->SetInput("X", {"arr", "y"});
  loop->SetInput("Condition", {"cond"});
  loop->SetOutput("Out", {"arr"});
  loop->SetAttr("sub_block", framework::BlockIndex{body->ID()});
  framework::ValidateProgram(p, "m.pdmodel", {"cond"});
}

// A tensor array starts every run empty: reading it before any op writes it reads length 0,
// not a value a misplaced producer should have made.
TEST_F(ProgramValidation, AnArrayReadBeforeAnyWriteIsEmptyNotRefused) {
  ProgramDesc p = FeedScaleFetch();
  framework::BlockDesc& b = p.Block(0);
  b.Var("arr")->SetKind(framework::VarKind::kDenseTensorArray);
  b.Var("n")->SetDataType(DataType::INT64);
  framework::OpDesc* length = b.InsertOp(2);
  length->SetType("lod_array_length");
  length->SetInput("X", {"arr"});
  length->SetOutput("Out", {"n"});
  framework::ValidateProgram(p, "m.pdmodel");
  b.Var("arr")->SetKind(framework::VarKind::kDenseTensor);
  ExpectError<platform::InvalidArgumentError>(
      [&] { framework::ValidateProgram(p, "m.pdmodel"); },
      {"op #2 `lod_array_length` input `X`: variable `arr` is read before any op writes it"});
}

// An op with kernels reads and writes tensors: a variable declared as a holder the runtime
// makes (fetch list, step scopes ...) in one of its slots is refused by name, as
// PaddlePaddle refuses it; feed and fetch take theirs.
TEST_F(ProgramValidation, AnOpWithKernelsTakesOnlyTensors) {
  for (const auto kind : {framework::VarKind::kFetchList, framework::VarKind::kStepScopes,
                          framework::VarKind::kReader, framework::VarKind::kRaw}) {
    ProgramDesc p = FeedScaleFetch();
    p.Block(0).Var("y")->SetKind(kind);
    ExpectError<platform::InvalidArgumentError>(
        [&] { framework::ValidateProgram(p, "m.pdmodel"); },
        {"program `m.pdmodel` block 0 op #1 `scale` output `Out`: variable `y` is declared as " +
             framework::VarKindName(static_cast<int>(kind)),
         "expected a tensor"});
  }
  ProgramDesc p = FeedScaleFetch();
  p.Block(0).Var("y")->SetKind(framework::VarKind::kSelectedRows);
  framework::ValidateProgram(p, "m.pdmodel");
}

// conv2d declares PaddlePaddle's extra attributes (oneDNN int8 scales, cuDNN options) with
// their types: a value of another type is refused, as PaddlePaddle refuses it.
TEST_F(ProgramValidation, ConvExtraAttributesAreTyped) {
  ProgramDesc p = FeedScaleFetch();
  framework::BlockDesc& b = p.Block(0);
  b.Var("w")->SetShape({4, 4, 1, 1});
  b.Var("w")->SetPersistable(true);
  b.Var("c")->SetShape({-1, 4, 1, 1});
  framework::OpDesc* conv = b.InsertOp(1);
  conv->SetType("conv2d");
  conv->SetInput("Input", {"x"});
  conv->SetInput("Filter", {"w"});
  conv->SetOutput("Output", {"c"});
  conv->SetAttr("Scale_weights", std::vector<float>{0.5f, 2.0f});
  conv->SetAttr("force_fp32_output", true);
  framework::ValidateProgram(p, "m.pdmodel");
  conv->SetAttr("force_fp32_output", std::vector<double>{1.0});
  ExpectError<platform::InvalidArgumentError>(
      [&] { framework::ValidateProgram(p, "m.pdmodel"); },
      {"op `conv2d` attribute `force_fp32_output`: expected type BOOLEAN"});
  conv->SetAttr("force_fp32_output", false);
  conv->SetAttr("Scale_weights", std::vector<std::string>{"a"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { framework::ValidateProgram(p, "m.pdmodel"); },
      {"op `conv2d` attribute `Scale_weights`: expected type FLOATS"});
}

TEST_F(ProgramValidation, VersionFieldOfANewerFrameworkIsRefused) {
  ProgramDesc p = FeedScaleFetch();
  p.SetVersion(4001000);
  ExpectError<platform::UnimplementedError>(
      [&] { framework::ValidateProgram(p, "new.pdmodel"); },
      {"program `new.pdmodel`: saved by framework version 4.1.0", "up to 3.x"});
  p.SetVersion(0);  // Programs of old frameworks carry 0.
  framework::ValidateProgram(p, "old.pdmodel");
}

TEST_F(ProgramValidation, OpsAreCheckedAgainstTheirRegistration) {
  ProgramDesc p = FeedScaleFetch();
  p.Block(0).Op(1)->SetAttr("scale", std::string("two"));
  ExpectError<platform::InvalidArgumentError>([&] { framework::ValidateProgram(p, "m.pdmodel"); },
                                              {"scale", "attribute `scale`"});
}

// Persistables that no parameter file holds: a reader is skipped (as PaddlePaddle's loaders
// do), a tensor array or step scopes is refused by name rather than read from the next
// variable's record.
TEST_F(ProgramValidation, PersistablesThatAreNotTensorsAreSkippedOrRefused) {
  ProgramDesc p = FeedScaleFetch();
  framework::BlockDesc& b = p.Block(0);
  b.Var("w")->SetPersistable(true);
  b.Var("reader")->SetKind(framework::VarKind::kReader);
  b.Var("reader")->SetPersistable(true);
  EXPECT_EQ(framework::ParameterNames(p), (std::vector<std::string>{"w"}));
  for (const auto kind : {framework::VarKind::kStepScopes, framework::VarKind::kDenseTensorArray}) {
    ProgramDesc q = p;
    q.Block(0).Var("steps")->SetKind(kind);
    q.Block(0).Var("steps")->SetPersistable(true);
    ExpectError<platform::InvalidArgumentError>(
        [&] { framework::ParameterNames(q); },
        {"persistable variable `steps` of block 0: declared as " +
             framework::VarKindName(static_cast<int>(kind)),
         "holds only DENSE_TENSOR and SELECTED_ROWS variables"});
  }
}

TEST_F(ProgramValidation, PredictorRefusesAnInvalidProgramAtCreation) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("pl_validation_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ProgramDesc p = FeedScaleFetch();
  p.Block(0).Op(1)->SetOutput("Out", {"z"});
  p.Save((dir / "model.pdmodel").string());
  ExpectError<platform::NotFoundError>(
      [&] { infer::CreatePredictor(infer::Config((dir / "model.pdmodel").string(), "")); },
      {"model.pdmodel", "variable `z` is not declared"});
  fs::remove_all(dir);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

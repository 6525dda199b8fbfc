// Ops of the predictor run by chunks of the batch: the first ops while their activations
// are large (inference/chunked_head.h) and the last op when its output is read
// (inference/chunked_tail.h). Which ops qualify, that the chunks give the values of the
// whole ops (oneDNN and plain kernels, row-major and blocked operands, batches that split
// into chunks of one and of several rows, batch sizes changing between runs), and that the
// handles keep their meaning: shape and type before reading, data() in place, two reads
// alike, and an input overwritten before reading leaves the output that of its run.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/model_loading.h"
#include "framework/scope.h"
#include "inference/chunked_head.h"
#include "inference/chunked_tail.h"
#include "operators/registry.h"
#include "paddle_like/inference_api.h"
#include "paddle_like/io/save_inference_model.h"
#include "paddle_like/layers/layers.h"
#include "paddle_like/layers/program_builder.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

namespace fs = std::filesystem;
using infer::ChunkedHead;
using infer::ChunkedTail;
using infer::Config;
using infer::CreatePredictor;
using infer::Predictor;

constexpr int64_t kChannels = 4, kSide = 96, kOutChannels = 16;

// x [-1, 4, 96, 96] -> conv 3x3 (8, relu) -> conv 3x3 (16): a 16-image batch gives a
// 9.4 MB output, split into chunks of two images, and 2.4 + 4.7 MB (more when blocked) for
// the first convolution, split into chunks of four. With `classifier`, an fc of 10 follows,
// which no chunks run.
struct SavedModel {
  std::string dir;
  std::string prefix() const { return dir + "/model"; }
  ~SavedModel() { fs::remove_all(dir); }
};

SavedModel Save(bool classifier) {
  operators::RegisterAllOps();
  layers::ProgramBuilder b(7);
  layers::Var x = layers::Data(&b, "x", {-1, kChannels, kSide, kSide});
  layers::Var h = layers::Conv2d(&b, x, 8, 3, 1, 1, 1, "relu");
  layers::Var y = layers::Conv2d(&b, h, kOutChannels, 3, 1, 1);
  if (classifier) y = layers::Fc(&b, y, 10);
  framework::Scope scope;
  framework::Executor(platform::CPUPlace()).Run(b.startup_program(), &scope, {}, {});
  char tmpl[] = "/tmp/chunked_batch_test.XXXXXX";
  SavedModel m{mkdtemp(tmpl)};
  io::SaveInferenceModel(m.prefix(), {"x"}, {y.name()}, b.main_program(), scope);
  return m;
}

const SavedModel& Model(bool classifier = false) {
  static const SavedModel convolutions = Save(false);
  static const SavedModel with_fc = Save(true);
  return classifier ? with_fc : convolutions;
}

std::vector<float> Input(int64_t batch, float shift = 0.0f) {
  std::vector<float> v(static_cast<size_t>(batch * kChannels * kSide * kSide));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>((i * 7919) % 1000) / 500.0f - 1.0f + shift;
  return v;
}

std::vector<float> Read(Predictor* p) {
  auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
  std::vector<float> values(static_cast<size_t>(out->numel()));
  out->CopyToCpu(values.data());
  return values;
}

Config ModelConfig(bool classifier = false) {
  return Config(Model(classifier).prefix() + ".pdmodel", Model(classifier).prefix() + ".pdiparams");
}

std::vector<float> RunWhole(bool onednn, int64_t batch, const std::vector<float>& input,
                            bool classifier = false) {
  Config config = ModelConfig(classifier);
  if (!onednn) config.DisableMKLDNN();
  config.SwitchBatchChunks(false);
  auto p = CreatePredictor(config);
  auto in = p->GetInputHandle("x");
  in->Reshape({static_cast<int>(batch), kChannels, kSide, kSide});
  in->CopyFromCpu(input.data());
  EXPECT_TRUE(p->Run());
  return Read(p.get());
}

void ExpectClose(const std::vector<float>& got, const std::vector<float>& want,
                 const std::string& what) {
  ExpectNear(std::vector<double>(got.begin(), got.end()),
             std::vector<double>(want.begin(), want.end()), 1e-5, 1e-6, what);
}

framework::ProgramDesc Program(const std::vector<std::string>& types, const std::string& fetched,
                               bool persistable_input = false) {
  framework::ProgramDesc program;
  framework::BlockDesc& block = program.Block(0);
  block.Var("in")->SetPersistable(persistable_input);
  std::string x = "in";
  for (size_t i = 0; i < types.size(); ++i) {
    const std::string out = i + 1 == types.size() ? fetched : "t" + std::to_string(i);
    block.Var(out);
    framework::OpDesc* op = block.AppendOp();
    op->SetType(types[i]);
    op->SetInput("X", {x});
    op->SetOutput("Out", {out});
    x = out;
  }
  return program;
}

TEST(ChunkedTail, QualifiesOnlyABatchwiseLastOpWritingAFetchedOutput) {
  EXPECT_NE(ChunkedTail::Plan(Program({"relu", "sigmoid"}, "y").Block(0), {"y"}), nullptr);
  // Not batchwise: a softmax may normalise over the batch dim.
  EXPECT_EQ(ChunkedTail::Plan(Program({"relu", "softmax"}, "y").Block(0), {"y"}), nullptr);
  // The last op's output is not fetched.
  EXPECT_EQ(ChunkedTail::Plan(Program({"relu", "sigmoid"}, "y").Block(0), {"t0"}), nullptr);
  // Nothing to split: the only input is a parameter.
  EXPECT_EQ(ChunkedTail::Plan(Program({"relu"}, "y", true).Block(0), {"y"}), nullptr);
  // In place: its chunks would read what they write.
  EXPECT_EQ(ChunkedTail::Plan(Program({"relu", "sigmoid"}, "t0").Block(0), {"t0"}), nullptr);
  EXPECT_EQ(ChunkedTail::Plan(framework::ProgramDesc().Block(0), {"y"}), nullptr);
  auto tail = ChunkedTail::Plan(Program({"relu", "sigmoid"}, "y").Block(0), {"y"});
  EXPECT_EQ(tail->op_index(), 1u);
  EXPECT_EQ(tail->output(), "y");
  EXPECT_EQ(tail->batch_inputs(), std::vector<std::string>{"t0"});
}

// The tail on its own, on the executor: Start computes one chunk and gives the whole
// output's dims; Deliver writes what the whole program computes.
TEST(ChunkedTail, StartsAndDeliversTheWholeOutput) {
  framework::ProgramDesc program = framework::ProgramDesc::Load(Model().prefix() + ".pdmodel");
  framework::BlockDesc& block = program.Block(0);
  const std::vector<std::string> outputs = program.FetchTargetNames();
  for (size_t i = block.OpSize(); i-- > 0;) {
    if (block.Op(i)->Type() == "feed" || block.Op(i)->Type() == "fetch") block.RemoveOp(i, i + 1);
  }
  // The saved program ends with the saver's `scale`: a batchwise op too.
  auto tail = ChunkedTail::Plan(block, outputs);
  ASSERT_NE(tail, nullptr);
  EXPECT_EQ(block.Op(tail->op_index())->Type(), "scale");

  framework::Scope params;
  framework::ParameterSource source;
  source.combined_file = Model().prefix() + ".pdiparams";
  framework::LoadParameters(program, Model().prefix() + ".pdmodel", source, &params);
  framework::Executor executor{platform::CPUPlace()};
  std::vector<std::string> keep = {"x", outputs[0]};
  keep.insert(keep.end(), tail->batch_inputs().begin(), tail->batch_inputs().end());
  auto prepared = executor.Prepare(program, 0, &params, keep, {}, keep);
  const int64_t batch = 16;
  const std::vector<float> input = Input(batch);
  auto* x = prepared->local_scope()->FindVar("x")->GetMutable<DenseTensor>();
  x->Resize(framework::DDim({batch, kChannels, kSide, kSide}));
  std::copy(input.begin(), input.end(), x->mutable_data<float>(platform::CPUPlace()));

  executor.RunOps(prepared.get(), 0, tail->op_index());
  ASSERT_TRUE(tail->Start(&executor, prepared.get()));
  EXPECT_TRUE(tail->pending());
  EXPECT_EQ(tail->dims(), framework::DDim({batch, kOutChannels, kSide, kSide}));
  const auto& held = prepared->local_scope()->FindVar(outputs[0])->Get<DenseTensor>();
  EXPECT_LT(held.dims()[0], batch) << "Start computed more than one chunk";
  std::vector<float> chunked(static_cast<size_t>(tail->dims().numel()));
  tail->Deliver(chunked.data());
  ExpectClose(chunked, RunWhole(true, batch, input), "delivered");
}

TEST(ChunkedTail, PredictorOutputsEqualTheWholeOpsOnEveryBatch) {
  for (bool onednn : {true, false}) {
    // 16: chunks of two images; 15: of three; 17: of one; 5: too small to split.
    for (int64_t batch : {16, 15, 17, 5}) {
      SCOPED_TRACE(std::string(onednn ? "oneDNN" : "plain") + ", batch " + std::to_string(batch));
      const std::vector<float> input = Input(batch);
      const std::vector<float> whole = RunWhole(onednn, batch, input);
      Config config = ModelConfig();
      if (!onednn) config.DisableMKLDNN();
      auto p = CreatePredictor(config);
      auto in = p->GetInputHandle("x");
      in->Reshape({static_cast<int>(batch), kChannels, kSide, kSide});
      in->CopyFromCpu(input.data());
      ASSERT_TRUE(p->Run());
      auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
      EXPECT_EQ(out->shape(),
                (std::vector<int>{static_cast<int>(batch), kOutChannels, kSide, kSide}));
      EXPECT_EQ(out->type(), infer::DataType::FLOAT32);
      EXPECT_EQ(out->numel(), batch * kOutChannels * kSide * kSide);
      EXPECT_TRUE(out->lod().empty());
      const std::vector<float> first = Read(p.get());
      ExpectClose(first, whole, "CopyToCpu");
      EXPECT_EQ(Read(p.get()), first) << "a second read differs";
      const float* in_place = out->data<float>(nullptr, nullptr);
      EXPECT_EQ(std::vector<float>(in_place, in_place + first.size()), first) << "data()";
      EXPECT_EQ(Read(p.get()), first) << "CopyToCpu after data()";
    }
  }
}

TEST(ChunkedTail, AnInputOverwrittenBeforeReadingLeavesTheOutputOfItsRun) {
  const int64_t batch = 16;
  const std::vector<float> a = Input(batch), b = Input(batch, 0.5f);
  Config config = ModelConfig();
  auto p = CreatePredictor(config);
  auto in = p->GetInputHandle("x");
  in->Reshape({static_cast<int>(batch), kChannels, kSide, kSide});
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    in->CopyFromCpu(a.data());
    ASSERT_TRUE(p->Run());
    in->CopyFromCpu(b.data());  // Before the output is read.
    ExpectClose(Read(p.get()), RunWhole(true, batch, a), "output of the first input");
    ASSERT_TRUE(p->Run());
    in->Reshape({static_cast<int>(batch), kChannels, kSide, kSide});
    float* raw = in->mutable_data<float>();
    std::copy(a.begin(), a.end(), raw);  // Written through mutable_data, before reading.
    ExpectClose(Read(p.get()), RunWhole(true, batch, b), "output of the second input");
  }
}

TEST(ChunkedTail, ABadInputFailsInRun) {
  Config config = ModelConfig();
  auto p = CreatePredictor(config);
  auto in = p->GetInputHandle("x");
  in->Reshape({16, kChannels + 1, kSide, kSide});
  const std::vector<float> wrong(16 * (kChannels + 1) * kSide * kSide, 0.0f);
  in->CopyFromCpu(wrong.data());
  ExpectError<platform::InvalidArgumentError>([&] { p->Run(); }, {"conv2d"});
}

TEST(ChunkedHead, QualifiesTheLeadingBatchwiseOps) {
  auto head =
      ChunkedHead::Plan(Program({"relu", "sigmoid", "softmax", "relu"}, "y").Block(0), {"y"}, 4);
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->chunked_ops(), 0u) << "chosen before any run";
  // The first op not batchwise.
  EXPECT_EQ(ChunkedHead::Plan(Program({"softmax", "relu"}, "y").Block(0), {"y"}, 2), nullptr);
  // Nothing before the ops the tail runs.
  EXPECT_EQ(ChunkedHead::Plan(Program({"relu", "sigmoid"}, "y").Block(0), {"y"}, 0), nullptr);
  // Only parameters to split.
  EXPECT_EQ(ChunkedHead::Plan(Program({"relu"}, "y", true).Block(0), {"y"}, 1), nullptr);
}

// The head on its own, on the executor: the first run at new dims measures and runs its
// candidates whole, the next ones run the first ops by chunks; the rest of the program then
// computes what the whole program does.
TEST(ChunkedHead, ChunksTheFirstConvolutionAndAssemblesWhatTheRestReads) {
  framework::ProgramDesc program = framework::ProgramDesc::Load(Model(true).prefix() + ".pdmodel");
  framework::BlockDesc& block = program.Block(0);
  const std::vector<std::string> outputs = program.FetchTargetNames();
  for (size_t i = block.OpSize(); i-- > 0;) {
    if (block.Op(i)->Type() == "feed" || block.Op(i)->Type() == "fetch") block.RemoveOp(i, i + 1);
  }
  auto head = ChunkedHead::Plan(block, outputs, block.OpSize());
  ASSERT_NE(head, nullptr);
  framework::Scope params;
  framework::ParameterSource source;
  source.combined_file = Model(true).prefix() + ".pdiparams";
  framework::LoadParameters(program, Model(true).prefix() + ".pdmodel", source, &params);
  framework::Executor executor{platform::CPUPlace()};
  std::vector<std::string> keep = {"x", outputs[0]};
  auto prepared = executor.Prepare(program, 0, &params, keep);
  auto* x = prepared->local_scope()->FindVar("x")->GetMutable<DenseTensor>();
  const std::vector<float> expected = RunWhole(true, 16, Input(16), true);
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    const std::vector<float> input = Input(16, 0.1f * static_cast<float>(run % 2));
    x->Resize(framework::DDim({16, kChannels, kSide, kSide}));
    std::copy(input.begin(), input.end(), x->mutable_data<float>(platform::CPUPlace()));
    const size_t begin = head->Run(&executor, prepared.get());
    // Unoptimised, the program starts conv2d, elementwise_add, relu, conv2d, elementwise_add
    // (how many of them are chunked depends on the layouts oneDNN picks on this machine).
    if (run == 0) {
      EXPECT_GE(begin, 5u) << "the measuring run runs the candidates";
      EXPECT_GE(head->chunked_ops(), 1u);
      EXPECT_GE(head->rows(), 1);
      EXPECT_LE(head->rows(), 8);
    } else {
      EXPECT_EQ(begin, head->chunked_ops());
    }
    executor.RunOps(prepared.get(), begin, prepared->OpCount());
    const auto& y = prepared->local_scope()->FindVar(outputs[0])->Get<DenseTensor>();
    const std::vector<float> got(y.data<float>(), y.data<float>() + y.numel());
    if (run % 2 == 0) ExpectClose(got, expected, "output");
    if (run % 2 == 1) ExpectClose(got, RunWhole(true, 16, input, true), "output");
  }
}

TEST(ChunkedHead, PredictorOutputsEqualTheWholeOpsAsTheBatchChanges) {
  for (bool onednn : {true, false}) {
    Config config = ModelConfig(true);
    if (!onednn) config.DisableMKLDNN();
    auto p = CreatePredictor(config);
    auto in = p->GetInputHandle("x");
    // Each new batch is measured on its first run and chunked on the next.
    for (int64_t batch : {16, 16, 15, 15, 5, 16}) {
      SCOPED_TRACE(std::string(onednn ? "oneDNN" : "plain") + ", batch " + std::to_string(batch));
      const std::vector<float> input = Input(batch);
      in->Reshape({static_cast<int>(batch), kChannels, kSide, kSide});
      in->CopyFromCpu(input.data());
      ASSERT_TRUE(p->Run());
      ExpectClose(Read(p.get()), RunWhole(onednn, batch, input, true), "output");
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

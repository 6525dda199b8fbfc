// The parts of the inference API that code ported from PaddlePaddle's `paddle_infer` calls
// beyond the basic run (paddle_like/inference_api.h): the pass builder, program and
// parameter files set apart, memory optimisation on and off, zero-copy inputs from the
// caller's memory, clearing a predictor's tensors and shrinking the allocator's cache, the
// declared output shapes and types, the predictor pool, the summary and the version. Tests
// skip with a message where the models folder is absent.
#include <glog/logging.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "framework/execution_profile.h"
#include "inference/passes/passes.h"
#include "paddle_like/inference_api.h"
#include "platform/allocator.h"
#include "tests/model_goldens.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

namespace fs = std::filesystem;
using infer::Config;
using infer::CreatePredictor;
using infer::DataLayout;
using infer::PlaceType;
using infer::Predictor;

const std::string kModels = kSharedModels;

std::vector<float> Pattern(const std::vector<int>& shape) {
  const DenseTensor t = InputPattern(DDim(std::vector<int64_t>(shape.begin(), shape.end())));
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
}

std::vector<float> Output(Predictor* p) {
  auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
  std::vector<float> values(static_cast<size_t>(out->numel()));
  out->CopyToCpu(values.data());
  return values;
}

std::vector<float> RunCopied(Predictor* p, const std::vector<int>& shape,
                             const std::vector<float>& input) {
  auto in = p->GetInputHandle(p->GetInputNames()[0]);
  in->Reshape(shape);
  in->CopyFromCpu(input.data());
  EXPECT_TRUE(p->Run());
  return Output(p);
}

int CountOps(const framework::ExecutionProfile& profile, const std::string& type) {
  return static_cast<int>(std::count_if(profile.ops.begin(), profile.ops.end(),
                                        [&](const auto& op) { return op.type == type; }));
}

// DeletePass keeps PaddlePaddle's meaning (the passes have its names): without
// conv_bn_fuse_pass the batch norms run as ops of their own, with the same results; an
// unknown name is a typed error when the predictor is made; a change of device brings that
// device's default order back, less what was deleted.
TEST(PredictorApi, PassBuilderDeletesInsertsAndAppendsPasses) {
  SKIP_WITHOUT_SHARED_MODEL("pplcnet_3cls");
  const std::string dir = kModels + "/pplcnet_3cls";
  const std::vector<int> shape = {1, 3, 224, 224};
  const std::vector<float> input = Pattern(shape);
  Config fused(dir);
  fused.EnableProfile();
  EXPECT_EQ(fused.passes(), inference::InferencePassOrder());
  auto with_fusion = CreatePredictor(fused);
  const std::vector<float> expected = RunCopied(with_fusion.get(), shape, input);
  EXPECT_EQ(CountOps(*with_fusion->profile(), "batch_norm"), 0);

  Config unfused(dir);
  unfused.EnableProfile();
  unfused.pass_builder()->DeletePass("conv_bn_fuse_pass");
  unfused.pass_builder()->DeletePass("batch_norm_relu_fuse_pass");
  unfused.pass_builder()->DeletePass("no_such_pass");  // As in PaddlePaddle: nothing to delete.
  auto without_fusion = CreatePredictor(unfused);
  const std::vector<float> got = RunCopied(without_fusion.get(), shape, input);
  EXPECT_GT(CountOps(*without_fusion->profile(), "batch_norm"), 10);
  ExpectNear(std::vector<double>(got.begin(), got.end()),
             std::vector<double>(expected.begin(), expected.end()), 1e-5, 1e-6, "unfused");

  const std::vector<std::string> cpu = unfused.passes();
  EXPECT_EQ(std::count(cpu.begin(), cpu.end(), "conv_bn_fuse_pass"), 0);
  EXPECT_EQ(cpu.size(), inference::InferencePassOrder().size() - 2);
  unfused.EnableUseGpu(100, 0);
  std::vector<std::string> gpu = inference::GpuInferencePassOrder();
  gpu.erase(std::remove(gpu.begin(), gpu.end(), "conv_bn_fuse_pass"), gpu.end());
  EXPECT_EQ(unfused.passes(), gpu);
  unfused.DisableGpu();
  EXPECT_EQ(unfused.passes(), cpu);

  Config by_index(dir);
  infer::PassStrategy* passes = by_index.pass_builder();
  passes->DeletePass(size_t{0});
  EXPECT_EQ(passes->AllPasses().front(), inference::InferencePassOrder()[1]);
  passes->InsertPass(0, inference::InferencePassOrder()[0]);
  EXPECT_EQ(passes->AllPasses(), inference::InferencePassOrder());
  ExpectError<platform::OutOfRangeError>([&] { passes->InsertPass(99, "fc_fuse_pass"); },
                                         {"InsertPass(99", "holds"});
  ExpectError<platform::OutOfRangeError>([&] { passes->DeletePass(size_t{99}); },
                                         {"DeletePass(99)"});
  passes->AppendPass("no_such_pass");
  ExpectError<platform::NotFoundError>([&] { CreatePredictor(by_index); }, {"no_such_pass"});
  passes->ClearPasses();
  EXPECT_EQ(RunCopied(CreatePredictor(by_index).get(), shape, input).size(), expected.size());
}

TEST(PredictorApi, ProgramAndParamsFilesSetApart) {
  SKIP_WITHOUT_SHARED_MODEL("ppocr_cls_v2");
  const std::string dir = kModels + "/ppocr_cls_v2";
  const std::vector<int> shape = {1, 3, 48, 192};
  const std::vector<float> input = Pattern(shape);
  Config apart;
  apart.SetProgFile(dir + "/inference.pdmodel");
  apart.SetParamsFile(dir + "/inference.pdiparams");
  EXPECT_EQ(apart.prog_file(), dir + "/inference.pdmodel");
  EXPECT_EQ(apart.params_file(), dir + "/inference.pdiparams");
  EXPECT_NE(apart.Summary().find("program file: " + dir + "/inference.pdmodel"), std::string::npos)
      << apart.Summary();
  EXPECT_EQ(RunCopied(CreatePredictor(apart).get(), shape, input),
            RunCopied(CreatePredictor(Config(dir)).get(), shape, input));
}

// Memory optimisation off keeps every temporary between runs: the same bits, more bytes
// held after a run.
TEST(PredictorApi, MemoryOptimOffKeepsTemporariesAndGivesTheSameBits) {
  SKIP_WITHOUT_SHARED_MODEL("ppocr_cls_v2");
  const std::string dir = kModels + "/ppocr_cls_v2";
  const std::vector<int> shape = {2, 3, 48, 192};
  const std::vector<float> input = Pattern(shape);
  auto held_after_run = [&](bool optim, std::vector<float>* out) {
    Config config(dir);
    config.EnableMemoryOptim(optim);
    EXPECT_EQ(config.enable_memory_optim(), optim);
    auto predictor = CreatePredictor(config);
    const size_t before = platform::CpuBytesInUse();
    *out = RunCopied(predictor.get(), shape, input);
    return platform::CpuBytesInUse() - before;
  };
  std::vector<float> on, off;
  const size_t held_on = held_after_run(true, &on);
  const size_t held_off = held_after_run(false, &off);
  EXPECT_EQ(on, off);
  // The classifier's first feature maps alone are 2 x 16 x 24 x 96 floats (590 KB).
  EXPECT_GT(held_off, held_on + 500000) << held_off << " against " << held_on;
}

// An input read in place from the caller's memory: the same bits as a copy, the caller's
// buffer never written, its later values seen by the next run, and a later copy going to a
// buffer of the predictor's own. Through a model whose leading ops run by batch chunks.
TEST(PredictorApi, ShareExternalDataReadsTheCallersMemory) {
  SKIP_WITHOUT_SHARED_MODEL("pplcnet_3cls");
  auto predictor = CreatePredictor(Config(kModels + "/pplcnet_3cls"));
  const std::vector<int> shape = {2, 3, 224, 224};
  std::vector<float> pixels = Pattern(shape);
  const std::vector<float> copied = RunCopied(predictor.get(), shape, pixels);

  auto in = predictor->GetInputHandle(predictor->GetInputNames()[0]);
  const std::vector<float> original = pixels;
  in->ShareExternalData(pixels.data(), shape);
  EXPECT_EQ(in->shape(), shape);
  EXPECT_EQ(in->place(), PlaceType::kCPU);
  EXPECT_TRUE(predictor->Run());
  EXPECT_EQ(Output(predictor.get()), copied);
  EXPECT_EQ(pixels, original);

  // The caller changes its buffer: the next run reads the new values.
  std::vector<float> flipped(pixels.rbegin(), pixels.rend());
  std::copy(flipped.begin(), flipped.end(), pixels.begin());
  EXPECT_TRUE(predictor->Run());
  const std::vector<float> from_shared = Output(predictor.get());
  auto fresh = predictor->Clone();
  EXPECT_EQ(from_shared, RunCopied(fresh.get(), shape, flipped));
  EXPECT_NE(from_shared, copied);

  // A copy after sharing writes the predictor's own buffer, not the caller's.
  in->Reshape(shape);
  in->CopyFromCpu(original.data());
  EXPECT_EQ(pixels, flipped);
  EXPECT_TRUE(predictor->Run());
  EXPECT_EQ(Output(predictor.get()), copied);

  auto out = predictor->GetOutputHandle(predictor->GetOutputNames()[0]);
  ExpectError<platform::PreconditionNotMetError>(
      [&] { out->ShareExternalData(pixels.data(), shape); }, {"is an output"});
  ExpectError<platform::UnimplementedError>(
      [&] { in->ShareExternalData(pixels.data(), shape, PlaceType::kGPU); }, {"CPU memory only"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { in->ShareExternalData(pixels.data(), shape, PlaceType::kCPU, DataLayout::kNHWC); },
      {"row-major", "layout 1"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { in->ShareExternalData(static_cast<const float*>(nullptr), shape); }, {"null pointer"});
  const float* misaligned =
      reinterpret_cast<const float*>(reinterpret_cast<const char*>(pixels.data()) + 1);
  ExpectError<platform::InvalidArgumentError>([&] { in->ShareExternalData(misaligned, shape); },
                                              {"not aligned to 4 bytes"});
}

// ClearIntermediateTensor lets go of inputs, outputs and kept temporaries: reading an output
// or running without inputs is then a typed error, and setting the inputs again gives the
// same bits. TryShrinkMemory returns the freed blocks the allocator kept.
TEST(PredictorApi, ClearedPredictorRunsAgainToTheSameBits) {
  SKIP_WITHOUT_SHARED_MODEL("pplcnet_3cls");
  auto predictor = CreatePredictor(Config(kModels + "/pplcnet_3cls"));
  const std::vector<int> shape = {2, 3, 224, 224};
  const std::vector<float> input = Pattern(shape);
  const std::vector<float> first = RunCopied(predictor.get(), shape, input);
  predictor->ClearIntermediateTensor();
  auto out = predictor->GetOutputHandle(predictor->GetOutputNames()[0]);
  std::vector<float> values(first.size());
  ExpectError<platform::PreconditionNotMetError>([&] { out->CopyToCpu(values.data()); },
                                                 {"has no value yet"});
  ExpectError<platform::InvalidArgumentError>([&] { predictor->Run(); }, {"has no value"});
  EXPECT_EQ(RunCopied(predictor.get(), shape, input), first);

  // The run's input alone (1.2 MB) went back to the cache when it was cleared.
  EXPECT_GE(predictor->TryShrinkMemory(), 2u * 3 * 224 * 224 * sizeof(float));
  EXPECT_EQ(RunCopied(predictor.get(), shape, input), first);
}

TEST(PredictorApi, DeclaredOutputShapesAndTypes) {
  SKIP_WITHOUT_SHARED_MODEL("mnist_cnn_fluid");
  auto predictor = CreatePredictor(Config(kModels + "/mnist_cnn_fluid"));
  const std::string output = predictor->GetOutputNames()[0];
  const auto shapes = predictor->GetOutputTensorShape();
  ASSERT_EQ(shapes.size(), 1u);
  EXPECT_EQ(shapes.at(output), (std::vector<int64_t>{-1, 10}));
  EXPECT_EQ(predictor->GetOutputTypes().at(output), infer::DataType::FLOAT32);
}

// A pool of predictors over one program: distinct predictors, each giving the first's bits.
TEST(PredictorApi, PredictorPoolHandsOutClones) {
  SKIP_WITHOUT_SHARED_MODEL("mnist_cnn_fluid");
  infer::services::PredictorPool pool(Config(kModels + "/mnist_cnn_fluid"), 3);
  ASSERT_EQ(pool.size(), 3u);
  const std::vector<int> shape = {2, 1, 28, 28};
  const std::vector<float> input = Pattern(shape);
  const std::vector<float> expected = RunCopied(pool.Retrive(0), shape, input);
  for (size_t i = 1; i < pool.size(); ++i) {
    EXPECT_NE(pool.Retrive(i), pool.Retrive(0));
    EXPECT_EQ(RunCopied(pool.Retrive(i), shape, input), expected);
  }
  ExpectError<platform::OutOfRangeError>([&] { pool.Retrive(3); },
                                         {"Retrive(3)", "holds 3 predictors"});
  ExpectError<platform::InvalidArgumentError>(
      [] { infer::services::PredictorPool(Config(kModels + "/mnist_cnn_fluid"), 0); },
      {"at least 1"});
}

TEST(PredictorApi, SummaryVersionAndGlogSwitch) {
  SKIP_WITHOUT_SHARED_MODEL("mnist_cnn_fluid");
  EXPECT_EQ(infer::GetVersion().rfind("paddle_like ", 0), 0u) << infer::GetVersion();
  Config config(kModels + "/mnist_cnn_fluid");
  config.SetCpuMathLibraryNumThreads(0);
  config.DisableMKLDNN();
  config.SetMkldnnCacheCapacity(10);
  EXPECT_EQ(config.mkldnn_cache_capacity(), 10);
  config.DisableGlogInfo();
  const std::string summary = config.Summary();
  for (const char* line : {"model dir: ", "place: CPU", "oneDNN: off", "ir optim: on",
                           "passes: sync_batch_norm_pass, delete_dropout_pass, ",
                           "memory optim: on", "glog info: off"}) {
    EXPECT_NE(summary.find(line), std::string::npos) << line << " in\n" << summary;
  }
  const int level = FLAGS_minloglevel;
  CreatePredictor(config);
  EXPECT_GE(FLAGS_minloglevel, 2);
  FLAGS_minloglevel = level;
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

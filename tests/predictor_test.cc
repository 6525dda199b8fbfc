// The inference API (paddle_like/inference_api.h) on the shared models: PaddlePaddle's own
// outputs through a Predictor (oneDNN on and off, passes on and off, from files and from
// memory), clones in threads (a control-flow program among them)
// giving the single-threaded bits, inputs changing shape between runs, and the typed errors
// of misuse. Tests skip with a message where the models folder is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "framework/execution_profile.h"
#include "framework/npy_io.h"
#include "paddle_like/inference_api.h"
#include "platform/file_util.h"
#include "tests/model_goldens.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

namespace fs = std::filesystem;
using infer::Config;
using infer::CreatePredictor;
using infer::Predictor;

const std::string kModels = kSharedModels;

std::vector<float> Values(const DenseTensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
}

std::vector<float> RunOnce(Predictor* p, const std::vector<int>& shape,
                           const std::vector<float>& input, std::vector<int>* out_shape = nullptr) {
  auto in = p->GetInputHandle(p->GetInputNames()[0]);
  in->Reshape(shape);
  in->CopyFromCpu(input.data());
  EXPECT_TRUE(p->Run());
  auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
  std::vector<float> values(static_cast<size_t>(out->numel()));
  out->CopyToCpu(values.data());
  if (out_shape != nullptr) *out_shape = out->shape();
  return values;
}

TEST(Predictor, PpLcNetGivesPaddlePaddlesOutputs) {
  SKIP_WITHOUT_SHARED_MODEL("pplcnet_3cls");
  const Golden golden = ReadGolden("pplcnet_3cls");
  const std::vector<float> input = Values(InputPattern({2, 3, 224, 224}));
  for (bool onednn : {true, false}) {
    for (bool ir : {true, false}) {
      SCOPED_TRACE(std::string(onednn ? "oneDNN" : "plain") + (ir ? ", passes" : ", no passes"));
      Config config(kModels + "/pplcnet_3cls");  // A directory with inference.pdmodel.
      if (!onednn) config.DisableMKLDNN();
      config.SwitchIrOptim(ir);
      auto predictor = CreatePredictor(config);
      ASSERT_EQ(predictor->GetInputNames().size(), 1u);
      std::vector<int> shape;
      const std::vector<float> out = RunOnce(predictor.get(), {2, 3, 224, 224}, input, &shape);
      EXPECT_EQ(std::vector<int64_t>(shape.begin(), shape.end()), golden.dims);
      ExpectNear(std::vector<double>(out.begin(), out.end()), golden.values, 1e-4, 2e-6,
                 "probabilities");
    }
  }
}

TEST(Predictor, ProgramAndParamsFilesGiveTheSameAsTheDirectory) {
  SKIP_WITHOUT_SHARED_MODEL("ppocr_cls_v2");
  const std::string dir = kModels + "/ppocr_cls_v2";
  const std::vector<float> input = Values(InputPattern({2, 3, 48, 192}));
  const Golden golden = ReadGolden("ppocr_cls_v2");
  auto by_dir = CreatePredictor(Config(dir));
  auto by_files =
      CreatePredictor(Config(dir + "/inference.pdmodel", dir + "/inference.pdiparams"));
  const std::vector<float> a = RunOnce(by_dir.get(), {2, 3, 48, 192}, input);
  EXPECT_EQ(a, RunOnce(by_files.get(), {2, 3, 48, 192}, input));
  ExpectNear(std::vector<double>(a.begin(), a.end()), golden.values, 1e-4, 2e-6, "ppocr_cls_v2");
}

// A model held in memory (Config::SetModelBuffer) gives the bits of the same files; a
// truncated parameter buffer and a corrupt program are typed errors naming what is wrong.
TEST(Predictor, ModelBufferGivesTheSameAsTheFiles) {
  SKIP_WITHOUT_SHARED_MODEL("ppocr_cls_v2");
  const std::string dir = kModels + "/ppocr_cls_v2";
  const std::string program = platform::ReadFile(dir + "/inference.pdmodel");
  const std::string params = platform::ReadFile(dir + "/inference.pdiparams");
  const std::vector<float> input = Values(InputPattern({1, 3, 48, 192}));
  Config config;
  config.SetModelBuffer(program.data(), program.size(), params.data(), params.size());
  auto from_memory = CreatePredictor(config);
  auto from_files =
      CreatePredictor(Config(dir + "/inference.pdmodel", dir + "/inference.pdiparams"));
  EXPECT_EQ(RunOnce(from_memory.get(), {1, 3, 48, 192}, input),
            RunOnce(from_files.get(), {1, 3, 48, 192}, input));

  Config truncated;
  truncated.SetModelBuffer(program.data(), program.size(), params.data(), params.size() - 7);
  ExpectError<platform::InvalidArgumentError>([&] { CreatePredictor(truncated); },
                                              {"<parameter buffer>", "record"});
  Config corrupt;
  const std::string garbage = "\x0a\xff\xff\xff\xff\x0f" + program.substr(0, 64);
  corrupt.SetModelBuffer(garbage.data(), garbage.size(), params.data(), params.size());
  ExpectError<platform::InvalidArgumentError>([&] { CreatePredictor(corrupt); },
                                              {"<program buffer>"});
  Config null_params;
  ExpectError<platform::InvalidArgumentError>(
      [&] { null_params.SetModelBuffer(program.data(), program.size(), nullptr, 5); },
      {"Config::SetModelBuffer", "null with size 5"});
}

// Runs `clones` clones of `predictor` in as many threads, `runs` times each; returns, per
// clone, how many runs `matches(clone, clone index, run index)` found wrong.
template <typename Matches>
std::vector<int> MismatchesOfClonesInThreads(Predictor* predictor, int clones, int runs,
                                             Matches matches) {
  std::vector<std::unique_ptr<Predictor>> copies;
  for (int i = 0; i < clones; ++i) copies.push_back(predictor->Clone());
  std::vector<int> mismatches(clones, 0);
  std::vector<std::thread> threads;
  for (int c = 0; c < clones; ++c) {
    threads.emplace_back([&, c] {
      for (int r = 0; r < runs; ++r) {
        if (!matches(copies[c].get(), c, r)) ++mismatches[c];
      }
    });
  }
  for (auto& t : threads) t.join();
  return mismatches;
}

// The legacy layout (__model__ and one file per parameter), a batch that changes between
// runs, and 8 clones in 8 threads (200 runs each) giving the single-threaded bits.
TEST(Predictor, ClonesInThreadsMatchOneThreadBitwise) {
  SKIP_WITHOUT_SHARED_MODEL("mnist_cnn_fluid");
  auto predictor = CreatePredictor(Config(kModels + "/mnist_cnn_fluid"));
  const std::vector<double> pixels = RandomValues(3 * 28 * 28, -1, 1, 17);
  const std::vector<float> batch3(pixels.begin(), pixels.end());
  const std::vector<float> first(batch3.begin(), batch3.begin() + 28 * 28);
  std::vector<int> shape;
  const std::vector<float> one = RunOnce(predictor.get(), {1, 1, 28, 28}, first, &shape);
  EXPECT_EQ(shape, (std::vector<int>{1, 10}));
  const std::vector<float> three = RunOnce(predictor.get(), {3, 1, 28, 28}, batch3, &shape);
  EXPECT_EQ(shape, (std::vector<int>{3, 10}));
  // The same image in a batch of 3 (other kernel blockings: equal to rounding).
  ExpectNear(std::vector<double>(three.begin(), three.begin() + 10),
             std::vector<double>(one.begin(), one.end()), 1e-5, 1e-7, "row 0 of batch 3");

  const std::vector<int> mismatches =
      MismatchesOfClonesInThreads(predictor.get(), 8, 200, [&](Predictor* clone, int c, int r) {
        const bool big = (r + c) % 2 == 0;
        return (big ? RunOnce(clone, {3, 1, 28, 28}, batch3)
                    : RunOnce(clone, {1, 1, 28, 28}, first)) == (big ? three : one);
      });
  for (size_t c = 0; c < mismatches.size(); ++c) EXPECT_EQ(mismatches[c], 0) << "clone " << c;
  // The original still runs after its clones.
  EXPECT_EQ(RunOnce(predictor.get(), {1, 1, 28, 28}, first), one);
}

// Control flow (while loops, ifs, tensor arrays in sub-blocks, a PIR program from the
// fixtures): 8 clones in 8 threads give the single-threaded bits of every output, run after
// run (the sub-blocks are prepared per run, on each clone's own scope).
TEST(Predictor, ControlFlowClonesInThreadsMatchOneThreadBitwise) {
  const std::string dir = PL_SOURCE_DIR "/tests/fixtures/models/pir_control_flow_tiny";
  Config config;
  config.SetModel(dir + "/model.json", dir + "/model.pdiparams");
  config.SetCpuMathLibraryNumThreads(1);
  auto predictor = CreatePredictor(config);
  const DenseTensor x = framework::ReadNpy(dir + "/x.npy");
  const DenseTensor n = framework::ReadNpy(dir + "/n.npy");
  // Every output's bytes after one run.
  const auto run = [&](Predictor* p) {
    auto in_x = p->GetInputHandle("x");
    in_x->Reshape({static_cast<int>(x.dims()[0]), static_cast<int>(x.dims()[1])});
    in_x->CopyFromCpu(x.data<float>());
    auto in_n = p->GetInputHandle("n");
    in_n->Reshape({1});
    in_n->CopyFromCpu(n.data<int64_t>());
    EXPECT_TRUE(p->Run());
    std::vector<std::vector<char>> outputs;
    for (const std::string& name : p->GetOutputNames()) {
      auto out = p->GetOutputHandle(name);
      std::vector<char> bytes(static_cast<size_t>(out->numel()) * 8);
      if (out->type() == infer::DataType::INT64) {
        out->CopyToCpu(reinterpret_cast<int64_t*>(bytes.data()));
      } else {
        out->CopyToCpu(reinterpret_cast<float*>(bytes.data()));
      }
      outputs.push_back(std::move(bytes));
    }
    return outputs;
  };
  const auto want = run(predictor.get());
  ASSERT_EQ(want.size(), 10u);
  const std::vector<int> mismatches = MismatchesOfClonesInThreads(
      predictor.get(), 8, 50, [&](Predictor* clone, int, int) { return run(clone) == want; });
  for (size_t c = 0; c < mismatches.size(); ++c) EXPECT_EQ(mismatches[c], 0) << "clone " << c;
}

// A model ending in a convolution (conv2d + batch_norm + relu, fused by the passes): its
// output stays in oneDNN's blocked layout after Run, as the profile shows, and the handles
// still give row-major values equal to the plain kernels': CopyToCpu reorders into the
// caller's buffer and data() converts once in place, and runs after either give the same.
TEST(Predictor, OutputsLeftInOneDNNLayoutAreReadRowMajor) {
  SKIP_WITHOUT_SHARED_MODEL("paddlelite_simple_model");
  const std::string dir = kModels + "/paddlelite_simple_model";
  const std::vector<int> shape = {2, 3, 40, 36};
  const std::vector<float> input = Values(InputPattern({2, 3, 40, 36}));
  Config plain_config(dir + "/model.pdmodel", dir + "/model.pdiparams");
  plain_config.DisableMKLDNN();
  std::vector<int> out_shape;
  const std::vector<float> expected =
      RunOnce(CreatePredictor(plain_config).get(), shape, input, &out_shape);
  ASSERT_EQ(out_shape, (std::vector<int>{2, 32, 20, 18}));

  Config config(dir + "/model.pdmodel", dir + "/model.pdiparams");
  config.EnableProfile();
  auto predictor = CreatePredictor(config);
  const std::vector<float> copied = RunOnce(predictor.get(), shape, input);
  ExpectNear(std::vector<double>(copied.begin(), copied.end()),
             std::vector<double>(expected.begin(), expected.end()), 1e-5, 1e-6, "CopyToCpu");
  ASSERT_NE(predictor->profile(), nullptr);
  const framework::OpRecord& last = predictor->profile()->ops.back();
  EXPECT_EQ(last.type, "conv2d");
  EXPECT_EQ(last.opaque_outputs.size(), 1u) << "the output was reordered inside Run";

  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("data() after run " + std::to_string(round + 2));
    ASSERT_TRUE(predictor->Run());
    auto out = predictor->GetOutputHandle(predictor->GetOutputNames()[0]);
    infer::PlaceType place = infer::PlaceType::kGPU;
    int size = 0;
    const float* values = out->data<float>(&place, &size);
    EXPECT_EQ(place, infer::PlaceType::kCPU);
    ASSERT_EQ(size, static_cast<int>(expected.size()));
    // A second read (and a second handle) sees the converted values without converting again.
    EXPECT_EQ(
        predictor->GetOutputHandle(predictor->GetOutputNames()[0])->data<float>(nullptr, nullptr),
        values);
    ExpectNear(std::vector<double>(values, values + size),
               std::vector<double>(expected.begin(), expected.end()), 1e-5, 1e-6, "data()");
  }
  const std::vector<float> again = RunOnce(predictor.get(), shape, input);
  EXPECT_EQ(again, copied);
}

TEST(Predictor, MisuseIsATypedError) {
  SKIP_WITHOUT_SHARED_MODEL("mnist_cnn_fluid");
  auto p = CreatePredictor(Config(kModels + "/mnist_cnn_fluid"));
  const std::string input = p->GetInputNames()[0];
  ExpectError<platform::NotFoundError>([&] { p->GetInputHandle("nope"); },
                                       {"`nope` is not an input of the model", input});
  ExpectError<platform::NotFoundError>([&] { p->GetOutputHandle("nope"); },
                                       {"`nope` is not an output of the model"});
  ExpectError<platform::InvalidArgumentError>([&] { p->Run(); },
                                              {"input `" + input + "` has no value"});
  auto in = p->GetInputHandle(input);
  in->Reshape({3, 28, 28});
  const std::vector<float> zeros(3 * 28 * 28, 0.0f);
  in->CopyFromCpu(zeros.data());
  ExpectError<platform::InvalidArgumentError>(
      [&] { p->Run(); }, {"input `" + input + "`", "expected shape", "(rank 4)", "[3, 28, 28]"});
  // Sizes other than the declared ones reach the ops, which name what they need.
  in->Reshape({1, 3, 28, 28});
  in->CopyFromCpu(zeros.data());
  ExpectError<platform::InvalidArgumentError>([&] { p->Run(); },
                                              {"op `conv2d` input `Filter`", "[1, 3, 28, 28]"});
  const std::vector<int64_t> ints(28 * 28, 0);
  in->Reshape({1, 1, 28, 28});
  in->CopyFromCpu(ints.data());
  ExpectError<platform::InvalidArgumentError>([&] { p->Run(); },
                                              {"input `" + input + "`", "expected dtype float32"});
  in->CopyFromCpu(zeros.data());
  EXPECT_TRUE(p->Run());
  auto out = p->GetOutputHandle(p->GetOutputNames()[0]);
  std::vector<double> wrong(10);
  ExpectError<platform::InvalidArgumentError>([&] { out->CopyToCpu(wrong.data()); },
                                              {"holds float32, not the float64 asked for"});
  ExpectError<platform::PreconditionNotMetError>([&] { out->Reshape({1}); }, {"is an output"});
  ExpectError<platform::NotFoundError>(
      [] { CreatePredictor(Config("/no/such/model_dir")); }, {"/no/such/model_dir"});
  ExpectError<platform::InvalidArgumentError>([] { CreatePredictor(Config()); },
                                              {"no model set"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

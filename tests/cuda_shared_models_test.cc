// The real models that PaddlePaddle saved (../shared/models, or the folder named by
// PL_SHARED_MODELS_DIR) through a GPU predictor against a CPU predictor on the same input:
// every float output within 1e-4 of the CPU's (relative, over the whole output) and, for the
// mobile models with goldens (tests/fixtures/mobile_models, or PL_GOLDENS_DIR), within the
// mobile models test's tolerances of PaddlePaddle's own outputs. Skips without CUDA, without
// a device or without the models folder.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "framework/program_desc.h"
#include "paddle_like/inference_api.h"
#include "platform/init.h"
#include "tests/model_goldens.h"

namespace paddle_like {
namespace testing {
namespace {

namespace fs = std::filesystem;

fs::path FromEnv(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return fs::path(v != nullptr ? v : fallback);
}

const fs::path kModels = FromEnv("PL_SHARED_MODELS_DIR", PL_SHARED_DIR "/models");

// The program file of a model folder, and its combined parameters file (empty: one file per
// parameter next to `__model__`).
struct ModelFiles {
  fs::path program, params;
};
ModelFiles Locate(const fs::path& dir) {
  for (const char* stem : {"inference", "model"}) {
    const fs::path program = dir / (std::string(stem) + ".pdmodel");
    if (fs::exists(program)) return {program, dir / (std::string(stem) + ".pdiparams")};
  }
  return {dir / "__model__", {}};
}

struct ModelOutputs {
  std::vector<std::vector<double>> values;
  std::vector<std::vector<int>> shapes;
};

// Where a predictor runs: the CPU, or the GPU with cuDNN's algorithms timed (the default) or
// taken from its heuristics.
enum class Device { kCpu, kGpu, kGpuHeuristics };

ModelOutputs RunModel(const ModelFiles& files, const std::vector<DenseTensor>& inputs,
                      Device device) {
  infer::Config config;
  if (files.params.empty()) {
    config.SetModel(files.program.parent_path().string());
  } else {
    config.SetModel(files.program.string(), files.params.string());
  }
  config.SetCpuMathLibraryNumThreads(1);
  if (device != Device::kCpu) config.EnableUseGpu(0, 0);
  config.SwitchCudnnExhaustiveSearch(device != Device::kGpuHeuristics);
  auto predictor = infer::CreatePredictor(config);
  const std::vector<std::string> names = predictor->GetInputNames();
  EXPECT_EQ(names.size(), inputs.size());
  for (size_t i = 0; i < names.size() && i < inputs.size(); ++i) {
    auto h = predictor->GetInputHandle(names[i]);
    const DDim& d = inputs[i].dims();
    h->Reshape(std::vector<int>(d.data(), d.data() + d.size()));
    h->CopyFromCpu(inputs[i].data<float>());
  }
  EXPECT_TRUE(predictor->Run());
  ModelOutputs out;
  for (const std::string& name : predictor->GetOutputNames()) {
    auto h = predictor->GetOutputHandle(name);
    const std::vector<int> shape = h->shape();
    int64_t n = 1;
    for (int v : shape) n *= v;
    std::vector<float> values(static_cast<size_t>(n));
    if (n > 0) h->CopyToCpu(values.data());
    out.values.emplace_back(values.begin(), values.end());
    out.shapes.push_back(shape);
  }
  return out;
}

// The input of each feed target: its declared dims with a batch of 2 for a leading -1, and
// the model's usual size for other unknown dims.
std::vector<DenseTensor> InputsOf(const std::string& model, const fs::path& program_file) {
  const framework::ProgramDesc program = framework::ProgramDesc::Load(program_file.string());
  std::vector<DenseTensor> inputs;
  for (const std::string& name : program.FeedTargetNames()) {
    std::vector<int64_t> dims = program.Block(0).FindVar(name)->GetShape();
    if (model == "ppocr_cls_v2") dims = {-1, 3, 48, 192};
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] < 0) dims[i] = i == 0 ? 2 : 32;
    }
    inputs.push_back(InputPattern(DDim(dims)));
  }
  return inputs;
}

class CudaSharedModelsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    operators::RegisterAllOps();
    if (!platform::BuiltWithCuda()) GTEST_SKIP() << "built without CUDA";
    if (platform::CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device on this machine";
    if (!fs::is_directory(kModels / GetParam())) {
      GTEST_SKIP() << "`" << (kModels / GetParam()).string() << "` is absent";
    }
  }
};

TEST_P(CudaSharedModelsTest, GpuPredictorMatchesCpuPredictor) {
  const std::string model = GetParam();
  const ModelFiles files = Locate(kModels / model);
  const std::vector<DenseTensor> inputs = InputsOf(model, files.program);
  const ModelOutputs cpu = RunModel(files, inputs, Device::kCpu);
  for (const Device device : {Device::kGpuHeuristics, Device::kGpu}) {
    const ModelOutputs gpu = RunModel(files, inputs, device);
    const std::string mode = device == Device::kGpu ? " (timed cuDNN algorithms)" : " (heuristics)";
    ASSERT_EQ(gpu.values.size(), cpu.values.size());
    for (size_t i = 0; i < cpu.values.size(); ++i) {
      SCOPED_TRACE(model + " output " + std::to_string(i) + mode);
      ASSERT_EQ(gpu.shapes[i], cpu.shapes[i]);
      double diff = 0, norm = 0, worst = 0;
      for (size_t k = 0; k < cpu.values[i].size(); ++k) {
        const double d = gpu.values[i][k] - cpu.values[i][k];
        diff += d * d;
        norm += cpu.values[i][k] * cpu.values[i][k];
        worst = std::max(worst, std::abs(d));
        ASSERT_TRUE(std::isfinite(gpu.values[i][k])) << "element " << k;
      }
      EXPECT_LE(std::sqrt(diff), 1e-4 * std::sqrt(norm) + 1e-9)
          << "largest elementwise difference " << worst;
    }
    // PaddlePaddle's own outputs, where the mobile models test has them (for a batch of 2).
    const fs::path goldens = FromEnv("PL_GOLDENS_DIR", kGoldens);
    if (fs::exists(goldens / (model + ".txt"))) {
      const Golden golden = ReadGolden(model, goldens.string());
      ASSERT_EQ(std::vector<int64_t>(gpu.shapes[0].begin(), gpu.shapes[0].end()), golden.dims);
      ExpectNear(gpu.values[0], golden.values, 1e-4, 2e-6,
                 model + " on the GPU against PaddlePaddle" + mode);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, CudaSharedModelsTest,
                         ::testing::Values("fit_a_line", "mnist_mlp_fluid21", "mnist_cnn_fluid",
                                           "paddlelite_simple_model", "resnet_cifar10",
                                           "pplcnet_3cls", "ppocr_cls_v2"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace testing
}  // namespace paddle_like

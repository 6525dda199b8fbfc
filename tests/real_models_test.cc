// Golden figures for real models saved by PaddlePaddle (../shared/models, see SOURCES.md
// there) on real data: scikit-learn's digits and Boston house prices, fetched into
// build/datasets by scripts/fetch_datasets.sh. Each test skips with a message when the models,
// the data or one of the model's ops is missing.
//
// The expected figures come from SOURCES.md ("What they should give"); where it is cheap the
// model is also recomputed here with plain loops in double from its parameter files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/model_loading.h"
#include "framework/op_info.h"
#include "framework/program_desc.h"
#include "framework/scope.h"
#include "framework/tensor_io.h"
#include "operators/registry.h"
#include "paddle_like/datasets/digits_images.h"
#include "paddle_like/datasets/sklearn_datasets.h"
#include "platform/file_util.h"

namespace paddle_like {
namespace {

namespace fs = std::filesystem;
using datasets::Dataset;
using datasets::DigitsAsMnist;
using datasets::DigitToMnist;
using framework::DDim;
using framework::DenseTensor;
using framework::ProgramDesc;
using framework::Scope;

const std::string kModels = PL_SHARED_DIR "/models";
const std::string kSklearn = PL_DATASETS_DIR "/sklearn";

constexpr int kSide = 28;  // MNIST images are 28x28.

// Why a model or data file cannot be used here, or empty when it can.
std::string MissingFile(const std::string& path) {
  if (!fs::is_directory(kModels)) return "no models folder at " + kModels;
  if (!fs::exists(path)) {
    return "`" + path + "` is absent (data: run scripts/fetch_datasets.sh " PL_DATASETS_DIR ")";
  }
  return "";
}

// The op types of `program` that this runtime does not register, comma-separated.
std::string MissingOps(const ProgramDesc& program) {
  std::set<std::string> missing;
  for (size_t b = 0; b < program.Size(); ++b) {
    for (const framework::OpDesc* op : program.Block(b).AllOps()) {
      if (!framework::OpInfoMap::Instance().Has(op->Type())) missing.insert(op->Type());
    }
  }
  std::string list;
  for (const auto& t : missing) list += (list.empty() ? "" : ", ") + t;
  return list;
}

// A loaded model: its program and a scope holding its parameters.
struct LoadedModel {
  std::string dir;
  ProgramDesc program;
  Scope scope;
};

// Loads `dir/__model__` and its parameters; `*skip` says why it cannot run here.
std::unique_ptr<LoadedModel> LoadModel(const std::string& name, std::string* skip) {
  const std::string dir = kModels + "/" + name;
  *skip = MissingFile(dir + "/__model__");
  if (!skip->empty()) return nullptr;
  operators::RegisterAllOps();
  auto model = std::make_unique<LoadedModel>();
  model->dir = dir;
  model->program = ProgramDesc::Load(dir + "/__model__");
  const std::string missing = MissingOps(model->program);
  if (!missing.empty()) {
    *skip = name + " needs ops that are not registered: " + missing;
    return nullptr;
  }
  framework::LoadParameters(model->program, dir + "/__model__", {}, &model->scope);
  return model;
}

// A parameter read straight from its file (`save` op format), as doubles.
std::vector<double> ReadParameter(const std::string& dir, const std::string& name,
                                  std::vector<int64_t>* dims) {
  const std::string path = dir + "/" + name;
  const std::string bytes = platform::ReadFile(path);
  size_t offset = 0;
  const DenseTensor t = framework::ReadTensorRecord(bytes, &offset, path);
  EXPECT_EQ(t.dtype(), platform::DataType::FLOAT32) << path;
  *dims = t.dims().ToVector();
  return std::vector<double>(t.data<float>(), t.data<float>() + t.numel());
}

// ---------------------------------------------------------------------------------------------
// Digits: 8x8 scikit-learn images turned into MNIST-like 28x28 inputs (SOURCES.md).

// The preprocessing itself, DigitToMnist and DigitsAsMnist, lives in
// paddle_like/datasets/digits_images.h.

TEST(DigitsPreprocessing, MatchesTheDescribedSteps) {
  // Pixel (1, 1) of the 8x8 image covers rows and columns 2..4 of the 20x20 one
  // ((2i + 1) / 5 == 1 for i = 2, 3, 4), i.e. 6..8 of the 28x28 image. Its centre 7 is
  // shifted by round(6.5) = 6 (ties to even) to 12..14.
  std::vector<float> pixels(64, 0.0f);
  pixels[1 * 8 + 1] = 16;
  std::vector<float> img = DigitToMnist(pixels.data());
  for (int y = 0; y < kSide; ++y) {
    for (int x = 0; x < kSide; ++x) {
      const bool lit = y >= 12 && y <= 14 && x >= 12 && x <= 14;
      ASSERT_EQ(img[y * kSide + x], lit ? 1.0f : -1.0f) << y << "," << x;
    }
  }
  // Pixel (0, 7) with value 8 covers rows 0..1 and columns 17..19 of the 20x20 image
  // (4..5 and 21..23 after padding); its centre (4.5, 22) moves by (9, round(-8.5) = -8) to
  // rows 13..14 and columns 13..15.
  pixels.assign(64, 0.0f);
  pixels[7] = 8;
  img = DigitToMnist(pixels.data());
  for (int y = 0; y < kSide; ++y) {
    for (int x = 0; x < kSide; ++x) {
      const bool lit = y >= 13 && y <= 14 && x >= 13 && x <= 15;
      ASSERT_EQ(img[y * kSide + x], lit ? 0.0f : -1.0f) << y << "," << x;
    }
  }
}

struct DigitsResult {
  double accuracy = 0;
  int64_t correct = 0;
  std::vector<float> probabilities;  // [rows, 10]
};

// Runs a digits model on every image in batches and checks the softmax rows.
DigitsResult RunOnDigits(LoadedModel* model, const Dataset& digits) {
  const std::vector<std::string> feeds = model->program.FeedTargetNames();
  const std::vector<std::string> fetches = model->program.FetchTargetNames();
  EXPECT_EQ(feeds.size(), 1u);
  EXPECT_EQ(fetches.size(), 1u);
  // The declared input shape with the batch dim left open, e.g. [-1, 1, 28, 28].
  std::vector<int64_t> shape = model->program.Block(0).FindVar(feeds[0])->GetShape();
  int64_t per_image = 1;
  for (size_t i = 1; i < shape.size(); ++i) per_image *= shape[i];
  EXPECT_EQ(per_image, kSide * kSide) << DDim(shape).ToString();

  const std::vector<float> images = DigitsAsMnist(digits);
  framework::Executor executor{platform::CPUPlace()};
  constexpr int64_t kBatch = 512;
  DigitsResult result;
  for (int64_t begin = 0; begin < digits.rows; begin += kBatch) {
    const int64_t n = std::min(kBatch, digits.rows - begin);
    shape[0] = n;
    DenseTensor input(DDim(shape), platform::DataType::FLOAT32);
    float* p = input.mutable_data<float>(platform::CPUPlace());
    std::copy_n(images.data() + begin * per_image, n * per_image, p);
    const std::vector<DenseTensor> out =
        executor.Run(model->program, &model->scope, {{feeds[0], input}}, fetches);
    EXPECT_EQ(out[0].dims(), DDim({n, 10}));
    const float* prob = out[0].data<float>();
    result.probabilities.insert(result.probabilities.end(), prob, prob + n * 10);
  }
  for (int64_t r = 0; r < digits.rows; ++r) {
    const float* row = result.probabilities.data() + r * 10;
    double sum = 0;
    for (int c = 0; c < 10; ++c) sum += row[c];
    EXPECT_NEAR(sum, 1.0, 1e-5) << "softmax row " << r;
    const int64_t predicted = std::max_element(row, row + 10) - row;
    result.correct += predicted == digits.labels[r];
  }
  result.accuracy = static_cast<double>(result.correct) / static_cast<double>(digits.rows);
  return result;
}

// The 784-100-100-10 MLP recomputed in double from its parameter files: probabilities
// [rows, 10].
std::vector<double> ReferenceMlp(const std::string& dir, const std::vector<float>& images,
                                 int64_t rows) {
  std::vector<double> act(images.begin(), images.end());
  int64_t width = kSide * kSide;
  for (int layer = 0; layer < 3; ++layer) {
    std::vector<int64_t> wd, bd;
    const std::string fc = "fc_" + std::to_string(layer);
    const std::vector<double> w = ReadParameter(dir, fc + ".w_0", &wd);
    const std::vector<double> b = ReadParameter(dir, fc + ".b_0", &bd);
    EXPECT_EQ(wd, (std::vector<int64_t>{width, bd.at(0)}));
    const int64_t out_width = bd[0];
    std::vector<double> next(static_cast<size_t>(rows * out_width));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t o = 0; o < out_width; ++o) {
        double s = b[o];
        for (int64_t i = 0; i < width; ++i) s += act[r * width + i] * w[i * out_width + o];
        next[r * out_width + o] = layer < 2 ? std::max(s, 0.0) : s;  // relu, then softmax
      }
    }
    act.swap(next);
    width = out_width;
  }
  for (int64_t r = 0; r < rows; ++r) {
    double* row = act.data() + r * width;
    const double top = *std::max_element(row, row + width);
    double sum = 0;
    for (int64_t c = 0; c < width; ++c) sum += row[c] = std::exp(row[c] - top);
    for (int64_t c = 0; c < width; ++c) row[c] /= sum;
  }
  return act;
}

// Valid 5x5 convolution, stride 1, of one image [in_c, size, size] with `w` [out_c, in_c, 5, 5]
// and bias `b`, then relu and 2x2 max pooling with stride 2: [out_c, size2, size2] with
// size2 = (size - 4) / 2.
std::vector<double> ConvReluPool(const std::vector<double>& in, int in_c, int size,
                                 const std::vector<double>& w, const std::vector<double>& b,
                                 int out_c) {
  const int conv = size - 4, pooled = conv / 2;
  std::vector<double> out(static_cast<size_t>(out_c) * pooled * pooled);
  std::vector<double> plane(static_cast<size_t>(conv) * conv);
  for (int o = 0; o < out_c; ++o) {
    std::fill(plane.begin(), plane.end(), b[o]);
    for (int c = 0; c < in_c; ++c) {
      const double* image = in.data() + static_cast<size_t>(c) * size * size;
      const double* k = w.data() + (static_cast<size_t>(o) * in_c + c) * 25;
      for (int y = 0; y < conv; ++y) {
        for (int x = 0; x < conv; ++x) {
          double s = 0;
          for (int ky = 0; ky < 5; ++ky) {
            for (int kx = 0; kx < 5; ++kx) s += image[(y + ky) * size + x + kx] * k[ky * 5 + kx];
          }
          plane[y * conv + x] += s;
        }
      }
    }
    for (int y = 0; y < pooled; ++y) {
      for (int x = 0; x < pooled; ++x) {
        double m = 0;  // Relu then max: the maximum is at least 0.
        for (int dy = 0; dy < 2; ++dy) {
          for (int dx = 0; dx < 2; ++dx) m = std::max(m, plane[(2 * y + dy) * conv + 2 * x + dx]);
        }
        out[(static_cast<size_t>(o) * pooled + y) * pooled + x] = m;
      }
    }
  }
  return out;
}

// The LeNet-style CNN of mnist_cnn_fluid recomputed in double from its parameter files:
// conv 5x5 (20) + relu + max pool 2, batch norm (moving statistics, epsilon 1e-5),
// conv 5x5 (50) + relu + max pool 2, fc 800 -> 10, softmax. Probabilities [rows, 10].
std::vector<double> ReferenceCnn(const std::string& dir, const std::vector<float>& images,
                                 int64_t rows) {
  std::vector<int64_t> d;
  const auto param = [&](const std::string& name) { return ReadParameter(dir, name, &d); };
  const std::vector<double> w0 = param("conv2d_0.w_0"), b0 = param("conv2d_0.b_0");
  const std::vector<double> w1 = param("conv2d_1.w_0"), b1 = param("conv2d_1.b_0");
  const std::vector<double> scale = param("batch_norm_0.w_0"), shift = param("batch_norm_0.b_0");
  const std::vector<double> mean = param("batch_norm_0.w_1"), var = param("batch_norm_0.w_2");
  const std::vector<double> fw = param("fc_0.w_0"), fb = param("fc_0.b_0");
  EXPECT_EQ(w0.size(), 20u * 1 * 25);
  EXPECT_EQ(w1.size(), 50u * 20 * 25);
  EXPECT_EQ(fw.size(), 800u * 10);
  constexpr double kEpsilon = 1e-5;
  std::vector<double> probabilities(static_cast<size_t>(rows) * 10);
  for (int64_t r = 0; r < rows; ++r) {
    const float* img = images.data() + r * kSide * kSide;
    std::vector<double> a = ConvReluPool(std::vector<double>(img, img + kSide * kSide), 1, kSide,
                                         w0, b0, 20);  // [20, 12, 12]
    for (int c = 0; c < 20; ++c) {
      const double k = scale[c] / std::sqrt(var[c] + kEpsilon);
      for (int i = 0; i < 144; ++i) a[c * 144 + i] = (a[c * 144 + i] - mean[c]) * k + shift[c];
    }
    const std::vector<double> f = ConvReluPool(a, 20, 12, w1, b1, 50);  // [50, 4, 4]
    double* out = probabilities.data() + r * 10;
    for (int o = 0; o < 10; ++o) {
      out[o] = fb[o];
      for (int i = 0; i < 800; ++i) out[o] += f[i] * fw[i * 10 + o];
    }
    const double top = *std::max_element(out, out + 10);
    double sum = 0;
    for (int o = 0; o < 10; ++o) sum += out[o] = std::exp(out[o] - top);
    for (int o = 0; o < 10; ++o) out[o] /= sum;
  }
  return probabilities;
}

int64_t CountCorrect(const std::vector<double>& probabilities, const Dataset& digits) {
  int64_t correct = 0;
  for (int64_t r = 0; r < digits.rows; ++r) {
    const double* row = probabilities.data() + r * 10;
    correct += std::max_element(row, row + 10) - row == digits.labels[r];
  }
  return correct;
}

// Loads the digits or says why they are absent.
bool LoadDigitsOrSkip(Dataset* digits, std::string* skip) {
  const std::string path = kSklearn + "/digits.csv.gz";
  *skip = MissingFile(path);
  if (!skip->empty()) return false;
  *digits = datasets::LoadDigits(path);
  EXPECT_EQ(digits->rows, 1797);
  return true;
}

TEST(RealModels, MnistMlpOnSklearnDigits) {
  std::string skip;
  Dataset digits;
  if (!LoadDigitsOrSkip(&digits, &skip)) GTEST_SKIP() << skip;
  const auto model = LoadModel("mnist_mlp_fluid21", &skip);
  if (!model) GTEST_SKIP() << skip;

  const DigitsResult result = RunOnDigits(model.get(), digits);
  std::printf("mnist_mlp_fluid21 on %lld sklearn digits: accuracy %.4f (%lld correct)\n",
              static_cast<long long>(digits.rows), result.accuracy,
              static_cast<long long>(result.correct));
  EXPECT_NEAR(result.accuracy, 0.77, 0.02);

  // The same network in double, straight from the parameter files.
  const std::vector<double> expected = ReferenceMlp(model->dir, DigitsAsMnist(digits), digits.rows);
  ASSERT_EQ(expected.size(), result.probabilities.size());
  double worst = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    worst = std::max(worst, std::abs(expected[i] - result.probabilities[i]));
  }
  EXPECT_LT(worst, 1e-4) << "largest difference from the double-precision reference";
}

// The figure SOURCES.md gives for the CNN, from the double-precision reference alone: it holds
// whether or not the runtime registers the CNN's ops, and is what the runtime must reproduce.
TEST(RealModels, MnistCnnReferenceOnSklearnDigits) {
  std::string skip;
  Dataset digits;
  if (!LoadDigitsOrSkip(&digits, &skip)) GTEST_SKIP() << skip;
  const std::string dir = kModels + "/mnist_cnn_fluid";
  skip = MissingFile(dir + "/__model__");
  if (!skip.empty()) GTEST_SKIP() << skip;
  const std::vector<double> p = ReferenceCnn(dir, DigitsAsMnist(digits), digits.rows);
  const int64_t correct = CountCorrect(p, digits);
  const double accuracy = static_cast<double>(correct) / static_cast<double>(digits.rows);
  std::printf(
      "mnist_cnn_fluid (double reference) on %lld sklearn digits: accuracy %.4f "
      "(%lld correct)\n",
      static_cast<long long>(digits.rows), accuracy, static_cast<long long>(correct));
  EXPECT_NEAR(accuracy, 0.82, 0.02);
}

TEST(RealModels, MnistCnnOnSklearnDigits) {
  std::string skip;
  Dataset digits;
  if (!LoadDigitsOrSkip(&digits, &skip)) GTEST_SKIP() << skip;
  const auto model = LoadModel("mnist_cnn_fluid", &skip);
  if (!model) GTEST_SKIP() << skip;

  const DigitsResult result = RunOnDigits(model.get(), digits);
  std::printf("mnist_cnn_fluid on %lld sklearn digits: accuracy %.4f (%lld correct)\n",
              static_cast<long long>(digits.rows), result.accuracy,
              static_cast<long long>(result.correct));
  EXPECT_NEAR(result.accuracy, 0.82, 0.02);

  const std::vector<double> expected = ReferenceCnn(model->dir, DigitsAsMnist(digits), digits.rows);
  ASSERT_EQ(expected.size(), result.probabilities.size());
  double worst = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    worst = std::max(worst, std::abs(expected[i] - result.probabilities[i]));
  }
  EXPECT_LT(worst, 1e-4) << "largest difference from the double-precision reference";
}

// ---------------------------------------------------------------------------------------------
// fit_a_line: linear regression on the Boston house prices.

TEST(RealModels, FitALineOnBostonHousing) {
  const std::string path = kSklearn + "/boston_house_prices.csv";
  std::string skip = MissingFile(path);
  if (!skip.empty()) GTEST_SKIP() << skip;
  const auto model = LoadModel("fit_a_line", &skip);
  if (!model) GTEST_SKIP() << skip;
  const Dataset boston = datasets::LoadBostonHousing(path);
  ASSERT_EQ(boston.rows, 506);
  ASSERT_EQ(boston.cols, 13);

  // Each feature as (x - mean) / (max - min) over all rows, computed in double.
  const int64_t rows = boston.rows, cols = boston.cols;
  std::vector<double> x(boston.features.begin(), boston.features.end());
  for (int64_t c = 0; c < cols; ++c) {
    double sum = 0, lo = x[c], hi = x[c];
    for (int64_t r = 0; r < rows; ++r) {
      const double v = x[r * cols + c];
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    const double mean = sum / static_cast<double>(rows);
    for (int64_t r = 0; r < rows; ++r) x[r * cols + c] = (x[r * cols + c] - mean) / (hi - lo);
  }

  const std::vector<std::string> feeds = model->program.FeedTargetNames();
  const std::vector<std::string> fetches = model->program.FetchTargetNames();
  ASSERT_EQ(feeds.size(), 1u);
  ASSERT_EQ(fetches.size(), 1u);
  DenseTensor input(DDim({rows, cols}), platform::DataType::FLOAT32);
  float* p = input.mutable_data<float>(platform::CPUPlace());
  for (size_t i = 0; i < x.size(); ++i) p[i] = static_cast<float>(x[i]);
  const std::vector<DenseTensor> out =
      framework::Executor(platform::CPUPlace())
          .Run(model->program, &model->scope, {{feeds[0], input}}, fetches);
  ASSERT_EQ(out[0].dims(), DDim({rows, 1}));
  const float* predicted = out[0].data<float>();

  // The same prediction with a plain loop over the parameter files.
  std::vector<int64_t> wd, bd;
  const std::vector<double> w = ReadParameter(model->dir, "fc_0.w_0", &wd);
  const std::vector<double> b = ReadParameter(model->dir, "fc_0.b_0", &bd);
  ASSERT_EQ(wd, (std::vector<int64_t>{cols, 1}));
  ASSERT_EQ(bd, (std::vector<int64_t>{1}));
  double squared = 0, reference_squared = 0, worst = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double reference = b[0];
    for (int64_t c = 0; c < cols; ++c) reference += x[r * cols + c] * w[c];
    worst = std::max(worst, std::abs(reference - predicted[r]));
    squared += std::pow(predicted[r] - boston.targets[r], 2);
    reference_squared += std::pow(reference - boston.targets[r], 2);
  }
  const double mse = squared / static_cast<double>(rows);
  std::printf("fit_a_line on %lld Boston rows: mean squared error %.4f (double reference %.4f)\n",
              static_cast<long long>(rows), mse, reference_squared / static_cast<double>(rows));
  EXPECT_LT(worst, 1e-4) << "largest difference from the double-precision reference";
  EXPECT_NEAR(mse, 48.45, 0.5);
}

}  // namespace
}  // namespace paddle_like

// Every case under tests/fixtures/ops (written by tests/fixtures/make_op_fixtures.py with
// PaddlePaddle itself: a saved one-op program, its inputs and PaddlePaddle's outputs) and
// tests/fixtures/models (real deploy models from public repositories, with inputs and
// PaddlePaddle's outputs, by tests/fixtures/make_model_fixtures.py; PIR programs saved by
// PaddlePaddle 3, `model.json`, by tests/fixtures/make_pir_fixtures.py) run through the Predictor
// and compared with PaddlePaddle's outputs: floats within the case's rtol/atol, integers and
// bools exactly, output LoDs exactly; NMS rows of tied scores in either order. Each case runs with
// the inference passes on and off, and the two runs agree within 1e-5 relative error (2-norm of
// each output).
//
// A case whose op is not registered yet is skipped only when the op is listed in
// kPendingOps; the list is checked against the registry both ways, so an op cannot be
// forgotten and a finished op cannot stay listed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "framework/inference_fused_ops.h"
#include "framework/npy_io.h"
#include "framework/op_info.h"
#include "framework/pir/pir_translation.h"
#include "operators/registry.h"
#include "paddle_like/inference_api.h"
#include "platform/data_type_complex_visit.h"
#include "platform/init.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

namespace fs = std::filesystem;

// One-op programs (tests/fixtures/make_op_fixtures.py) and real deploy models
// (tests/fixtures/make_model_fixtures.py), in the same case format. A case is named
// "<root>/<dir>". PL_FIXTURES_DIR (environment) names another copy of the directory, for a
// test program run away from its source tree.
const fs::path kFixtures = std::getenv("PL_FIXTURES_DIR") != nullptr
                               ? fs::path(std::getenv("PL_FIXTURES_DIR"))
                               : fs::path(PL_SOURCE_DIR "/tests/fixtures");
// PL_TEST_GPU=1 (environment) runs every case on the first CUDA device instead.
const bool kOnGpu = std::getenv("PL_TEST_GPU") != nullptr;
const char* const kRoots[] = {"ops", "models"};

// Ops with fixtures but no implementation yet.
const std::set<std::string> kPendingOps = {
};

using LoD = std::vector<std::vector<size_t>>;

struct Feed {
  std::string name, file;
  LoD lod;
};
struct Fetch {
  size_t index = 0;
  std::string file;
  LoD lod;
  bool has_lod = false;
};
struct Case {
  std::string name;
  std::vector<std::string> ops;
  std::vector<Feed> feeds;
  std::vector<Fetch> fetches;
  double rtol = 1e-5, atol = 1e-6;
  std::string params = "model.pdiparams";  // Relative to the case's directory.
};

// "0,2,5" (one level) or "0,1,3;0,2,4,5" (levels separated by ';').
LoD ParseLoD(const std::string& s) {
  LoD lod;
  std::stringstream levels(s);
  std::string level_text;
  while (std::getline(levels, level_text, ';')) {
    std::vector<size_t> level;
    std::stringstream in(level_text);
    std::string item;
    while (std::getline(in, item, ',')) level.push_back(std::stoul(item));
    lod.push_back(std::move(level));
  }
  return lod;
}

Case ReadCase(const std::string& name) {
  Case c;
  c.name = name;
  std::ifstream in(kFixtures / name / "case.txt");
  std::string line;
  while (std::getline(in, line)) {
    std::stringstream words(line);
    std::string key;
    words >> key;
    if (key == "op") {
      std::string op;
      words >> op;
      c.ops.push_back(op);
    } else if (key == "feed" || key == "fetch") {
      std::string a, file, lod_word, lod;
      words >> a >> file >> lod_word >> lod;
      if (key == "feed") {
        c.feeds.push_back({a, file, lod_word == "lod" ? ParseLoD(lod) : LoD{}});
      } else {
        c.fetches.push_back({std::stoul(a), file, lod_word == "lod" ? ParseLoD(lod) : LoD{},
                             lod_word == "lod"});
      }
    } else if (key == "rtol") {
      words >> c.rtol;
    } else if (key == "atol") {
      words >> c.atol;
    } else if (key == "params") {  // Another fixture's parameters (the same model, saved twice).
      words >> c.params;
    }
  }
  return c;
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  for (const char* root : kRoots) {
    if (!fs::is_directory(kFixtures / root)) continue;
    for (const auto& e : fs::directory_iterator(kFixtures / root)) {
      if (fs::exists(e.path() / "case.txt")) {
        names.push_back(std::string(root) + "/" + e.path().filename().string());
      }
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The element types a predictor's tensor handles take.
template <typename T>
constexpr bool kHandleType =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, int64_t> || std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> ||
    std::is_same_v<T, bool> || std::is_same_v<T, std::complex<float>> ||
    std::is_same_v<T, std::complex<double>>;
template <typename T>
constexpr bool kIsComplex =
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

// Values as doubles; complex ones interleaved (real, imaginary, ...).
template <typename T>
std::vector<double> AsDoubles(const T* p, int64_t n) {
  std::vector<double> out;
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (kIsComplex<T>) {
      out.push_back(p[i].real());
      out.push_back(p[i].imag());
    } else {
      out.push_back(static_cast<double>(p[i]));
    }
  }
  return out;
}

// A PIR program's case names its ops with their dialect ("pd_op.conv2d"): those need a
// translation to a registered op.
bool Registered(const std::string& op) {
  operators::RegisterAllOps();
  if (op.find('.') != std::string::npos) return framework::PirOpIsTranslated(op);
  // oneDNN's fused ops are written back as the ops they fused when a program loads.
  return framework::OpInfoMap::Instance().Has(op) || framework::IsInferenceFusedOpType(op);
}

void Feed(infer::Predictor* p, const struct Feed& f, const fs::path& dir) {
  const DenseTensor t = framework::ReadNpy((dir / f.file).string());
  auto h = p->GetInputHandle(f.name);
  std::vector<int> shape(t.dims().data(), t.dims().data() + t.dims().size());
  h->Reshape(shape);
  platform::VisitDataTypeOrComplex(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kHandleType<T>) {
      T* dst = h->mutable_data<T>();
      if (t.numel() > 0) std::memcpy(dst, t.data<T>(), sizeof(T) * t.numel());
    } else {
      FAIL() << "feed " << f.name << ": unexpected dtype " << platform::DataTypeName(t.dtype());
    }
  });
  if (!f.lod.empty()) h->SetLoD(f.lod);
}

// NMS outputs: [No, 6] rows [label, score, box] with a LoD of rows per image. Rows whose
// scores tie, or differ by less than the tolerance, may come in either order (the scores
// themselves differ by rounding between runtimes), so each expected row is matched with an unused row of the same
// image that is within tolerance everywhere; the result is `got` in the matched order, rows
// left unmatched at their place (where the comparison then fails).
std::vector<double> MatchDetectionRows(const std::vector<double>& got,
                                       const std::vector<double>& want,
                                       const std::vector<size_t>& offsets, double rtol,
                                       double atol) {
  auto close = [&](size_t a, size_t b) {
    for (size_t k = 0; k < 6; ++k) {
      if (std::abs(got[a * 6 + k] - want[b * 6 + k]) > atol + rtol * std::abs(want[b * 6 + k])) {
        return false;
      }
    }
    return true;
  };
  std::vector<double> out = got;
  for (size_t image = 0; image + 1 < offsets.size(); ++image) {
    const size_t begin = offsets[image], end = std::min(offsets[image + 1], got.size() / 6);
    std::vector<bool> used(end, false);
    for (size_t row = begin; row < end; ++row) {
      if (close(row, row) && !used[row]) {
        used[row] = true;
        continue;
      }
      for (size_t other = begin; other < end; ++other) {
        if (!used[other] && close(other, row)) {
          used[other] = true;
          std::copy(got.begin() + other * 6, got.begin() + other * 6 + 6, out.begin() + row * 6);
          break;
        }
      }
    }
  }
  return out;
}

class PaddleOpFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(PaddleOpFixture, MatchesPaddlePaddle) {
  if (kOnGpu && platform::CudaDeviceCount() == 0) GTEST_SKIP() << "PL_TEST_GPU: no CUDA device";
  const Case c = ReadCase(GetParam());
  ASSERT_FALSE(c.ops.empty()) << c.name << ": case.txt names no op";
  for (const auto& op : c.ops) {
    if (!Registered(op)) {
      ASSERT_TRUE(kPendingOps.count(op)) << "op `" << op << "` of case " << c.name
                                         << " is not registered and not listed as pending";
      GTEST_SKIP() << "op `" << op << "` is pending";
    }
  }
  const fs::path dir = kFixtures / c.name;
  const fs::path params = dir / c.params;
  std::vector<std::vector<double>> by_ir[2];  // Float outputs without / with the passes.
  for (bool ir : {true, false}) {
    SCOPED_TRACE(ir ? "passes on" : "passes off");
    // model.pdmodel (or PaddlePaddle 3's model.json) with its .pdiparams, or a legacy
    // directory (__model__ and one file per parameter).
    infer::Config config;
    const fs::path program =
        fs::exists(dir / "model.pdmodel") ? dir / "model.pdmodel" : dir / "model.json";
    if (fs::exists(program)) {
      config.SetModel(program.string(), fs::exists(params) ? params.string() : std::string());
    } else {
      config.SetModel(dir.string());
    }
    config.SetCpuMathLibraryNumThreads(1);
    config.SwitchIrOptim(ir);
    if (kOnGpu) config.EnableUseGpu(0, 0);
    auto predictor = infer::CreatePredictor(config);
    for (const auto& f : c.feeds) Feed(predictor.get(), f, dir);
    ASSERT_TRUE(predictor->Run());
    const std::vector<std::string> outputs = predictor->GetOutputNames();
    for (const auto& f : c.fetches) {
      ASSERT_LT(f.index, outputs.size()) << c.name;
      SCOPED_TRACE(c.name + " output " + outputs[f.index]);
      const DenseTensor want = framework::ReadNpy((dir / f.file).string());
      auto h = predictor->GetOutputHandle(outputs[f.index]);
      const std::vector<int> shape = h->shape();
      ASSERT_EQ(DDim(std::vector<int64_t>(shape.begin(), shape.end())), want.dims());
      if (f.has_lod) {
        EXPECT_EQ(h->lod(), f.lod);
      }
      platform::VisitDataTypeOrComplex(want.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (kHandleType<T>) {
          // Not std::vector<T>: vector<bool> has no data().
          std::unique_ptr<T[]> got(new T[static_cast<size_t>(want.numel()) + 1]);
          h->CopyToCpu(got.get());
          std::vector<double> got_d = AsDoubles(got.get(), want.numel()),
                              want_d = AsDoubles(want.data<T>(), want.numel());
          if constexpr (std::is_floating_point_v<T> || kIsComplex<T>) {
            if (!kIsComplex<T> && want.dims().size() == 2 && want.dims()[1] == 6) {
              // Without a LoD (a detector's output after its last op) the rows of all images
              // are matched together.
              const std::vector<size_t> all = {0, static_cast<size_t>(want.dims()[0])};
              got_d = MatchDetectionRows(got_d, want_d, f.has_lod ? f.lod[0] : all, c.rtol,
                                         c.atol);
            }
            ExpectNear(got_d, want_d, c.rtol, c.atol, c.name);
            by_ir[ir].push_back(got_d);
          } else {
            EXPECT_EQ(got_d, want_d);
          }
        } else {
          FAIL() << "unexpected dtype " << platform::DataTypeName(want.dtype());
        }
      });
    }
  }
  ASSERT_EQ(by_ir[0].size(), by_ir[1].size());
  // Relative error of the whole output (2-norm): folding a batch_norm into the filter rounds
  // each weight once more, which a deep network turns into elementwise differences of a few
  // 1e-5 in its small outputs.
  for (size_t i = 0; i < by_ir[0].size(); ++i) {
    ASSERT_EQ(by_ir[1][i].size(), by_ir[0][i].size());
    double diff = 0, norm = 0;
    for (size_t k = 0; k < by_ir[0][i].size(); ++k) {
      const double a = by_ir[0][i][k], b = by_ir[1][i][k];
      if (std::isnan(a) || std::isnan(b)) {  // A NaN must be one on both sides.
        EXPECT_TRUE(std::isnan(a) && std::isnan(b))
            << c.name << ": passes on against passes off, float output " << i << " at " << k;
        continue;
      }
      diff += (b - a) * (b - a);
      norm += a * a;
    }
    EXPECT_LE(std::sqrt(diff), 1e-5 * std::sqrt(norm) + 1e-12)
        << c.name << ": passes on against passes off, float output " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, PaddleOpFixture, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '/', '_');
                           return name;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PaddleOpFixture);

TEST(PaddleOpFixtures, PendingOpsAreExactlyTheUnregisteredOnes) {
  std::set<std::string> unregistered;
  for (const auto& name : CaseNames()) {
    for (const auto& op : ReadCase(name).ops) {
      if (!Registered(op)) unregistered.insert(op);
    }
  }
  for (const auto& op : kPendingOps) {
    EXPECT_FALSE(Registered(op)) << "op `" << op << "` is registered: remove it from kPendingOps";
  }
  for (const auto& op : unregistered) {
    EXPECT_TRUE(kPendingOps.count(op)) << "op `" << op << "` has fixtures but no registration";
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// The inputs and PaddlePaddle's outputs for the shared mobile models
// (tests/fixtures/make_mobile_model_goldens.py writes the outputs).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {

inline const std::string kGoldens = PL_SOURCE_DIR "/tests/fixtures/mobile_models";

// The models PaddlePaddle saved (../shared/models).
inline const std::string kSharedModels = PL_SHARED_DIR "/models";

// Skips the test with a message when shared model `dir` is absent.
#define SKIP_WITHOUT_SHARED_MODEL(dir)                                             \
  if (!std::filesystem::exists(::paddle_like::testing::kSharedModels + "/" + dir)) \
  GTEST_SKIP() << "`" << ::paddle_like::testing::kSharedModels << "/" << dir << "` is absent"

// Element i of the flattened input is ((i * 7919) % 2001) / 1000 - 1, as the golden script
// builds it.
inline DenseTensor InputPattern(const DDim& dims) {
  DenseTensor t(dims, DataType::FLOAT32);
  float* p = t.mutable_data<float>(platform::CPUPlace());
  for (int64_t i = 0; i < t.numel(); ++i) {
    p[i] = static_cast<float>(static_cast<double>((i * 7919) % 2001) / 1000.0 - 1.0);
  }
  return t;
}

struct Golden {
  std::vector<int64_t> dims;
  std::vector<double> values;
};

// The golden of model `name` in `dir` (the fixtures folder unless another copy is named).
inline Golden ReadGolden(const std::string& name, const std::string& dir = kGoldens) {
  std::ifstream in(dir + "/" + name + ".txt");
  EXPECT_TRUE(in.good()) << "golden of " << name << " is missing";
  Golden g;
  std::string first;
  std::getline(in, first);
  std::istringstream dims(first);
  for (int64_t d; dims >> d;) g.dims.push_back(d);
  for (double v; in >> v;) g.values.push_back(v);
  return g;
}

}  // namespace testing
}  // namespace paddle_like

// The whole path a deployed model takes, on fit_a_line: Config::SetModelBuffer with the real
// program and fuzzed parameters, CreatePredictor (load, op versions, parameters against
// their VarDescs, the inference passes, preparation), a fuzzed feed, Run and the output read
// back. Input layout: parameter bytes, then `rows` x 13 float32 feed values, then one byte
// giving rows - 1 (0-7); missing feed bytes are zeros.
#include <algorithm>
#include <cstring>
#include <vector>

#include "paddle_like/inference_api.h"
#include "tests/fuzz/fit_a_line.h"

using namespace paddle_like;  // NOLINT: a fuzz target's two functions.

namespace {
constexpr size_t kFeatures = 13;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::string& params = fuzz::FitALine::Get().combined_params;
  std::string feed(kFeatures * sizeof(float), '\0');
  const float x[kFeatures] = {0.1f, -0.2f, 0.3f,  0.f, 1.f,   0.5f, -1.f,
                              2.f,  0.25f, 0.f, -0.5f, 1.5f, 0.f};
  std::memcpy(&feed[0], x, sizeof(x));
  fuzz::WriteSeed("fit_a_line_1row", params + feed + std::string(1, '\0'));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::FitALine& m = fuzz::FitALine::Get();
  if (size == 0) return 0;
  const size_t rows = data[size - 1] % 8 + 1;
  const size_t feed_bytes = std::min(size - 1, rows * kFeatures * sizeof(float));
  const size_t params_size = size - 1 - feed_bytes;
  std::vector<float> feed(rows * kFeatures, 0.0f);
  std::memcpy(feed.data(), data + params_size, feed_bytes);
  fuzz::ExpectOnlyTypedErrors([&] {
    infer::Config config;
    config.SetModelBuffer(m.program_bytes.data(), m.program_bytes.size(),
                          reinterpret_cast<const char*>(data), params_size);
    config.SetCpuMathLibraryNumThreads(1);
    auto predictor = infer::CreatePredictor(config);
    auto input = predictor->GetInputHandle(predictor->GetInputNames()[0]);
    input->Reshape({static_cast<int>(rows), static_cast<int>(kFeatures)});
    input->CopyFromCpu(feed.data());
    predictor->Run();
    auto output = predictor->GetOutputHandle(predictor->GetOutputNames()[0]);
    std::vector<float> out(static_cast<size_t>(output->numel()));
    output->CopyToCpu(out.data());
  });
  return 0;
}

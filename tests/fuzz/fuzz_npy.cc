// NumPy .npy bytes (framework::ParseNpy), as `paddle_like run` and `infer` read feeds.
// Seeds: every .npy file of the fixtures.
#include "framework/npy_io.h"
#include "tests/fuzz/fuzzing.h"

using namespace paddle_like;  // NOLINT: a fuzz target's two functions.

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  int i = 0;
  for (const auto& path : fuzz::FixtureFiles({".npy"})) {
    const std::string bytes = fuzz::ReadBytes(path);
    if (bytes.size() <= (1u << 14)) fuzz::WriteSeed(std::to_string(i++), bytes);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::ExpectOnlyTypedErrors([&] { framework::ParseNpy(fuzz::AsString(data, size), "fuzz"); });
  return 0;
}

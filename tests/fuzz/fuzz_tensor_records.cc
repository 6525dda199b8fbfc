// PaddlePaddle tensor records (FORMATS.md section 2), read back to back as a combined
// parameter file holds them, until the bytes end. Seeds: the fixtures' parameter files.
#include "framework/tensor_io.h"
#include "tests/fuzz/fuzzing.h"

using namespace paddle_like;  // NOLINT: a fuzz target's two functions.

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  int i = 0;
  for (const auto& path : fuzz::FixtureFiles({".pdiparams", "__params__"})) {
    const std::string bytes = fuzz::ReadBytes(path);
    if (bytes.size() <= (1u << 16)) fuzz::WriteSeed(std::to_string(i++), bytes);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = fuzz::AsString(data, size);
  fuzz::ExpectOnlyTypedErrors([&] {
    size_t offset = 0;
    while (offset < bytes.size()) framework::ReadTensorRecord(bytes, &offset, "fuzz");
  });
  return 0;
}

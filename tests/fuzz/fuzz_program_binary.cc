// Binary ProgramDesc bytes: parsing (ProgramDesc::FromBinary) and the validation a loader
// runs before anything executes. Seeds: every saved program of the fixtures and shared models.
#include "operators/registry.h"
#include "tests/fuzz/fuzzing.h"
#include "tests/fuzz/program_validation.h"

using namespace paddle_like;  // NOLINT: a fuzz target's two functions.

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  operators::RegisterAllOps();
  int i = 0;
  for (const auto& path : fuzz::FixtureFiles({".pdmodel", "__model__"})) {
    fuzz::WriteSeed(std::to_string(i++), fuzz::ReadBytes(path));
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::ExpectOnlyTypedErrors([&] {
    const std::string bytes = fuzz::AsString(data, size);
    fuzz::ValidateAndInferShapes(framework::ProgramDesc::FromBinary(bytes, "fuzz"));
  });
  return 0;
}

// Text-format ProgramDesc: parsing (ProgramDesc::FromText) and the validation a loader runs.
// Seeds: the text form of every saved program of the fixtures, and examples/*.pbtxt.
#include "operators/registry.h"
#include "tests/fuzz/fuzzing.h"
#include "tests/fuzz/program_validation.h"

using namespace paddle_like;  // NOLINT: a fuzz target's two functions.

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  operators::RegisterAllOps();
  if (fuzz::SeedDir().empty()) return 0;
  int i = 0;
  for (const auto& path : fuzz::FixtureFiles({".pdmodel", "__model__", ".pbtxt"})) {
    fuzz::ExpectOnlyTypedErrors([&] {
      fuzz::WriteSeed(std::to_string(i++), framework::ProgramDesc::Load(path).ToText());
    });
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::ExpectOnlyTypedErrors([&] {
    const std::string text = fuzz::AsString(data, size);
    fuzz::ValidateAndInferShapes(framework::ProgramDesc::FromText(text, "fuzz"));
  });
  return 0;
}

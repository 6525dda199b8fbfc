// PaddlePaddle 3's PIR programs (JSON): parsing, translation into a ProgramDesc
// (framework/pir/) and the validation a loader runs on the result.
// Seeds: the PIR programs of the fixtures (tests/fixtures/models/pir_*/model.json).
#include "framework/pir/pir_translation.h"
#include "operators/registry.h"
#include "platform/file_util.h"
#include "tests/fuzz/fuzzing.h"
#include "tests/fuzz/program_validation.h"

using namespace paddle_like;  // NOLINT: a fuzz target's two functions.

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  operators::RegisterAllOps();
  if (fuzz::SeedDir().empty()) return 0;
  int i = 0;
  for (const auto& path : fuzz::FixtureFiles({"model.json"})) {
    fuzz::ExpectOnlyTypedErrors([&] {
      fuzz::WriteSeed(std::to_string(i++), platform::ReadFile(path, {"program", 1 << 26}));
    });
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::ExpectOnlyTypedErrors([&] {
    const std::string text = fuzz::AsString(data, size);
    fuzz::ValidateAndInferShapes(framework::ProgramFromPirJson(text, "fuzz"));
  });
  return 0;
}

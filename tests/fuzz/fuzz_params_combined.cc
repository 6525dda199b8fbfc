// A combined parameter file (`.pdiparams`, `__params__`) against a fixed program
// (fit_a_line): every record read in ParameterNames order, the file ending exactly after the
// last one, each tensor checked against its VarDesc. Seed: fit_a_line's own parameters.
#include "framework/model_loading.h"
#include "framework/scope.h"
#include "framework/tensor_io.h"
#include "tests/fuzz/fit_a_line.h"

using namespace paddle_like;  // NOLINT: a fuzz target's two functions.

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::WriteSeed("fit_a_line", fuzz::FitALine::Get().combined_params);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::FitALine& m = fuzz::FitALine::Get();
  fuzz::ExpectOnlyTypedErrors([&] {
    framework::Scope scope;
    framework::LoadCombinedParamsFromBytes(fuzz::AsString(data, size), "fuzz",
                                           framework::ParameterNames(m.program), &scope);
    framework::CheckParametersAgainstProgram(m.program, scope);
  });
  return 0;
}

// The small real model of the parameter and model targets: fit_a_line from
// ../shared/models (PaddlePaddle's linear regression, 13 inputs, one fc), its program bytes
// and its parameters as one combined file (the per-variable files of the saved model put
// back to back, in ParameterNames order).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "framework/model_loading.h"
#include "framework/program_desc.h"
#include "tests/fuzz/fuzzing.h"

namespace paddle_like {
namespace fuzz {

struct FitALine {
  std::string program_bytes;
  framework::ProgramDesc program;
  std::string combined_params;

  static const FitALine& Get() {
    static const FitALine model = Load();
    return model;
  }

 private:
  static FitALine Load() {
    const std::string dir = SharedModelsDir();
    if (dir.empty()) {
      // scripts/fuzz.sh reports exit code 77 after this line as a skipped target.
      std::fprintf(stderr,
                   "fuzz: skipped: ../shared/models is absent; this target needs fit_a_line\n");
      std::exit(77);
    }
    FitALine m;
    m.program_bytes = ReadBytes(dir + "/fit_a_line/__model__");
    m.program = framework::ProgramDesc::FromBinary(m.program_bytes, "fit_a_line/__model__");
    for (const auto& name : framework::ParameterNames(m.program)) {
      m.combined_params += ReadBytes(dir + "/fit_a_line/" + name);
    }
    return m;
  }
};

}  // namespace fuzz
}  // namespace paddle_like

// SaveInferenceModel: writes `<prefix>.pdmodel` and `<prefix>.pdiparams` the way
// PaddlePaddle's `paddle.static.save_inference_model` does (FORMATS.md 3.2), so that
// PaddlePaddle's loader and `paddle_like run` accept them:
//   - the main program is pruned to the ops that compute the fetch targets from the feeds;
//   - every `is_test` attribute is set to true;
//   - each fetch target gets a `scale` op (scale 1) named save_infer_model/scale_<i>, whose
//     output becomes the saved fetch target;
//   - feed ops (prepended, so in reverse col order) and fetch ops with `col` are added;
//   - the parameters are the persistable variables the pruned program uses, written with
//     save_combine's format in ascending name order.
// Both files are written to temporary files and renamed, so an interrupted save never
// leaves a partial model.
#pragma once

#include <string>
#include <vector>

#include "framework/program_desc.h"
#include "framework/scope.h"

namespace paddle_like {
namespace io {

// Returns the pruned inference program (as saved).
framework::ProgramDesc SaveInferenceModel(const std::string& path_prefix,
                                          const std::vector<std::string>& feed_names,
                                          const std::vector<std::string>& fetch_names,
                                          const framework::ProgramDesc& main_program,
                                          const framework::Scope& scope);

// The pruned, is_test inference program with feed/fetch ops, without writing anything.
framework::ProgramDesc BuildInferenceProgram(const std::vector<std::string>& feed_names,
                                             const std::vector<std::string>& fetch_names,
                                             const framework::ProgramDesc& main_program);

}  // namespace io
}  // namespace paddle_like

// Reading the PIR programs that PaddlePaddle 3 saves by default (`inference.json` beside
// `inference.pdiparams`, FORMATS.md 3.1): the program is translated into the equivalent
// ProgramDesc, so that loading, checking, passes and kernels are the ones every saved
// program goes through.
//
// The translation mirrors PaddlePaddle's own mapping between its two program forms
// (op_compat): `pd_op.data` and `pd_op.fetch` become feed and fetch ops on the `feed` and
// `fetch` variables, `builtin.parameter` a persistable variable of the same name (so the
// `.pdiparams` records, sorted by name, load as for a ProgramDesc), constant ops feeding
// shapes, axes and scalars become the attributes the ProgramDesc op holds them in, and each
// other op becomes its ProgramDesc counterpart (pir_op_table.h). A fetched value is named by
// its fetch (`fetch_name_0` ...), as PaddlePaddle's predictor names its outputs.
#pragma once

#include <string>

#include "framework/program_desc.h"

namespace paddle_like {
namespace framework {

// InvalidArgumentError naming `source` for text that is not a PIR program;
// UnimplementedError naming the op (position and name) for an op with no ProgramDesc
// counterpart here, control flow (ops with regions), or a newer PIR version.
ProgramDesc ProgramFromPirJson(const std::string& text, const std::string& source);

// Whether ProgramFromPirJson translates PIR op `full_name` ("pd_op.conv2d",
// "builtin.combine"): what a test of saved PIR programs checks its ops against.
bool PirOpIsTranslated(const std::string& full_name);

}  // namespace framework
}  // namespace paddle_like

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
// its fetch (`fetch_name_0` ...), as PaddlePaddle's predictor names its outputs. Control flow
// (`pd_op.if`, `pd_op.while` and their regions) becomes conditional_block / select_input and
// while ops over sub-blocks, tensor arrays tensor array variables.
#pragma once

#include <string>

#include "framework/program_desc.h"

namespace paddle_like {
namespace framework {

// InvalidArgumentError naming `source` for text that is not a PIR program (or whose control
// flow does not hold together: yields that do not match results, misplaced yields);
// UnimplementedError naming the op (position and name) for an op with no ProgramDesc
// counterpart here (control flow other than if and while included), or a newer PIR version.
ProgramDesc ProgramFromPirJson(const std::string& text, const std::string& source);

// Whether ProgramFromPirJson translates PIR op `full_name` ("pd_op.conv2d",
// "builtin.combine"): what a test of saved PIR programs checks its ops against.
bool PirOpIsTranslated(const std::string& full_name);

}  // namespace framework
}  // namespace paddle_like

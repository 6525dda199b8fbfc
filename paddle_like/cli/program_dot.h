// A ProgramDesc as a Graphviz graph (`paddle_like inspect --dot`): ops are boxes, variables
// ellipses (parameters filled grey, with dtype and shape), edges carry the slot names; each
// block is a cluster, and a variable belongs to the block that declares it.
#pragma once

#include <ostream>

#include "framework/program_desc.h"

namespace paddle_like {
namespace cli {

void WriteProgramDot(const framework::ProgramDesc& program, std::ostream& os);

}  // namespace cli
}  // namespace paddle_like

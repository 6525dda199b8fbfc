// Layout planning: which temporaries of a block may stay in a kernel library's own layout
// (oneDNN's blocked formats) from the op that writes them to the ops that read them.
//
// A variable qualifies when every reader can take it that way, so one reorder happens at each
// boundary between library and row-major code and none inside a chain of library ops. It
// must be a temporary of the block (not persistable, not kept for the caller, not read by
// another block), read by at least one op, written by no op that also reads it (shape
// inference would drop the layout), and every op reading it must be allowed the library by
// the flags and its placement and have a kernel of that library declaring the slot it is
// read through (KernelInfo::opaque_inputs); a slot read for its metadata only (no_need_buffer)
// neither takes nor refuses the layout. Whatever kernel the readers end up running, the
// prepared ops convert an input the kernel cannot read, so the plan affects speed, never
// results.
//
// `kept_any_layout` names kept variables whose reader converts them itself (the inference
// library's output handles, which reorder straight into the caller's buffer): one written by
// an op qualifies like a temporary, whether or not an op reads it.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "framework/operator.h"
#include "framework/program_desc.h"

namespace paddle_like {
namespace framework {

std::set<std::string> PlanOpaqueLayouts(const ProgramDesc& program, int block_id,
                                        const std::vector<const OperatorBase*>& ops,
                                        const std::vector<OpPlacement>& placements,
                                        const platform::Place& place,
                                        const std::set<std::string>& persistable,
                                        const std::set<std::string>& keep,
                                        const std::set<std::string>& kept_any_layout = {});

}  // namespace framework
}  // namespace paddle_like

// Host-side shape resolution of expand_v2 and tile, shared by their CPU kernels (defined in
// expand_v2_op.cc and tile_op.cc) and their CUDA kernels (tensor_op.cu).
#pragma once

#include <string>
#include <vector>

#include "operators/common.h"

namespace paddle_like {
namespace operators {

// expand_v2's target dims with -1 resolved; X's dims left-padded with 1s to its rank go to
// x_aligned (when not null). InvalidArgumentError naming `op` and `origin` ("attribute
// `shape`", "input `Shape`") for a shape X cannot expand to.
DDim ExpandV2TargetDims(const std::string& op, const std::string& origin, const DDim& x,
                        const std::vector<int64_t>& shape, DDim* x_aligned);

// X's dims padded to the rank of the repeats (and the repeats to X's rank), and Out's dims.
struct TileShapes {
  DDim x;
  DDim out;
};

// The tile shapes for repeats given by `origin`; InvalidArgumentError for negative repeats or
// too many dims.
TileShapes ComputeTileShapes(const std::string& op, const std::string& origin, const DDim& x,
                             std::vector<int64_t> repeats);

// The tile shapes of a tile or tile_grad kernel: the repeats read from RepeatTimes,
// repeat_times_tensor or attribute repeat_times (on the host wherever they live).
TileShapes KernelTileShapes(const ExecutionContext& ctx, const DDim& x);

}  // namespace operators
}  // namespace paddle_like

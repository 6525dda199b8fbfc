// Helpers shared by concat, concat_grad and split: the axis (attribute or AxisTensor), the
// sizes of split's pieces, the box copies between the whole and its pieces, and the zero
// gradients their grad makers substitute for missing ones.
#pragma once

#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/tensor/tensor_op_util.h"
#include "operators/tensor/copy_box.h"

namespace paddle_like {
namespace operators {

// The axis of a concat/split kernel: input AxisTensor when given, else attribute `axis`;
// normalised against `rank`.
int KernelAxis(const ExecutionContext& ctx, int rank);

// Sizes of split's `num_outputs` pieces of a dim of size `dim` (-1 if unknown at build
// time): `num` equal pieces when num > 0, else `sections` (one entry may be -1, inferred).
// Unknown results are -1. Errors name `op` and the attribute or `origin` of the sections.
std::vector<int64_t> SplitSizes(const std::string& op, int64_t dim, int num,
                                const std::vector<int64_t>& sections, size_t num_outputs,
                                const std::string& origin);

// Out's dims for `xs` (at least one) joined along the normalised `axis`: each must have the
// dims of xs[0] except along `axis` (CheckSameDimsExceptAxis), where the sizes add up (-1 when
// one is unknown at build time). InvalidArgumentError naming `op` and input `X` when that sum
// overflows int64 (dims read from a program can be anything, and a tensor with a zero dim
// elsewhere can have any size along `axis`).
DDim ConcatDims(const std::string& op, const std::vector<DDim>& xs, int axis);

// Copies piece `piece` (dims `piece_dims`, starting at `offset` along `axis`) out of or into
// the whole tensor of dims `whole_dims`, both on `place`.
template <typename T>
void CopyPiece(const platform::Place& place, const DDim& whole_dims, const DDim& piece_dims,
               int axis, int64_t offset, const T* src, T* dst, bool to_whole) {
  BoxGeometry g;
  g.big = whole_dims.ToVector();
  g.box = piece_dims.ToVector();
  g.offset.assign(g.big.size(), 0);
  g.offset[axis] = offset;
  CopyBox(place, g, src, dst, to_whole);
}

// Checks that `piece` has the rank of `first` and the same dims except along `axis`
// (unknown dims pass). Errors name `op`, `slot` and the index.
void CheckSameDimsExceptAxis(const std::string& op, const std::string& slot, size_t index,
                             const DDim& first, const DDim& piece, int axis);

// The gradients of the forward output slot `slot`, with `@EMPTY@` entries (outputs that get
// no gradient) replaced by new zero tensors shaped like the forward outputs.
std::vector<std::string> OutputGradsOrZeros(framework::GradOpBuilder* g, const std::string& slot);

// The gradient names of input slot `slot`, with `@EMPTY@` entries replaced by new temporaries
// (for ops whose outputs are positional and all written).
std::vector<std::string> InputGradsOrTemps(framework::GradOpBuilder* g, const std::string& slot);

}  // namespace operators
}  // namespace paddle_like

// The gradient of a composite op: one that computes what a short chain of registered forward
// ops would (fused_elemwise_activation is an elementwise op then an activation). Its grad
// maker describes that chain, and AppendCompositeGrad emits the chain's gradient through the
// parts' own grad makers, in reverse order. What those makers write with differentiable ops
// stays differentiable, so the composite gets the parts' higher-order gradients too.
//
//   // Out = relu(X + Y), through a temporary t:
//   framework::AppendCompositeGrad(g, {
//       OpDesc("elementwise_add", {{"X", g->Input("X")}, {"Y", g->Input("Y")}}, {{"Out", {"t"}}},
//              {{"axis", -1}}),
//       OpDesc("relu", {{"X", {"t"}}}, {{"Out", g->Output("Out")}}, {})});
//
// The parts read the composite's inputs and write its outputs under their own names; any
// other variable is an intermediate that exactly one part writes. The parts must compute
// the composite's outputs exactly, since their makers read those outputs' values. The
// intermediates are computed again in the backward pass (the parts that write them are
// emitted first, under new names), so the composite need not keep them.
#pragma once

#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/op_desc.h"

namespace paddle_like {
namespace framework {

void AppendCompositeGrad(GradOpBuilder* g, std::vector<OpDesc> parts);

}  // namespace framework
}  // namespace paddle_like

// The backward of the slice-like ops (slice, strided_slice): their grad ops read the forward
// op's Input (its dims), Out@GRAD and the same bound tensors and attributes, and are linear in
// Out@GRAD, so their own gradient is the forward op again.
#pragma once

#include <cstddef>

#include "framework/grad_op_maker.h"

namespace paddle_like {
namespace operators {

// Copies whichever of the bound tensors `tensor_slots` and attributes `attrs` the forward op
// carries.
template <size_t N, size_t M>
void CopySliceLikeSlots(const framework::GradOpBuilder& g, const char* const (&tensor_slots)[N],
                        const char* const (&attrs)[M], framework::VariableNameMap* inputs,
                        framework::AttributeMap* out_attrs) {
  for (const char* slot : tensor_slots) {
    if (g.HasInput(slot)) (*inputs)[slot] = g.Input(slot);
  }
  for (const char* name : attrs) {
    if (g.Forward().HasAttr(name)) (*out_attrs)[name] = g.Forward().GetAttr(name);
  }
}

// The grad maker of a slice-like op: one `grad_op` writing Input@GRAD.
template <size_t N, size_t M>
void SliceLikeGradMaker(framework::GradOpBuilder* g, const char* grad_op,
                        const char* const (&tensor_slots)[N], const char* const (&attrs)[M]) {
  if (!g->WantsInputGrad("Input")) return;
  framework::VariableNameMap inputs = {{"Input", g->Input("Input")},
                                       {"Out@GRAD", g->OutputGrad("Out")}};
  framework::AttributeMap out_attrs;
  CopySliceLikeSlots(*g, tensor_slots, attrs, &inputs, &out_attrs);
  g->AddOp(grad_op, inputs, {{"Input@GRAD", g->InputGrad("Input")}}, out_attrs);
}

// The grad maker of that grad op, linear in Out@GRAD: the forward op `forward_op` applied to
// the gradient of Input@GRAD.
template <size_t N, size_t M>
void SliceLikeGradGradMaker(framework::GradOpBuilder* g, const char* forward_op,
                            const char* const (&tensor_slots)[N], const char* const (&attrs)[M]) {
  if (!g->WantsInputGrad("Out@GRAD")) return;
  framework::VariableNameMap inputs = {{"Input", g->OutputGrad("Input@GRAD")}};
  framework::AttributeMap out_attrs;
  CopySliceLikeSlots(*g, tensor_slots, attrs, &inputs, &out_attrs);
  g->AddOp(forward_op, inputs, {{"Out", g->InputGrad("Out@GRAD")}}, out_attrs);
}

}  // namespace operators
}  // namespace paddle_like

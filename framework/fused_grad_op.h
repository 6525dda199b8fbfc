// Fused grad ops: PaddlePaddle's `<type>_grad` op for a forward op whose gradient is one
// kernel (relu_grad, gelu_grad, ...). Declared once, from the forward op, so the pieces
// cannot disagree:
//   - its inputs are the forward slots the formula reads ("The forward op's X.") and the
//     gradients of forward outputs (Out@GRAD); its outputs the gradients of forward inputs
//     (X@GRAD, dispensable when there are several);
//   - its attributes are the forward op's, with the same types, defaults, checks and docs;
//   - FusedGradMaker emits it carrying every attribute the forward op declares.
//
//   const framework::FusedGradDecl grad{{"X"}, {"Out"}, {"X"}, R"(dX = dOut \cdot f'(X))"};
//   RegisterOp<GeluOp, GeluOpMaker>("gelu").GradOpMaker(framework::FusedGradMaker(grad));
//   framework::RegisterFusedGradOp("gelu", grad).InferShape(...);   // registers gelu_grad
//   RegisterPlainCpuFloatKernels<GeluGradKernel>("gelu_grad");
//
// Grad ops from fused kernels are not differentiable again; write a backward with
// differentiable forward ops instead where higher orders are wanted.
#pragma once

#include <string>

#include "framework/op_registry.h"

namespace paddle_like {
namespace framework {

// Registers `<forward_type>_grad` as described above; the forward op must be registered
// first (NotFoundError otherwise), and every slot `decl` names must be one of its slots
// (InvalidArgumentError). Set its shape inference on the returned registrar.
OpRegistrar RegisterFusedGradOp(const std::string& forward_type, const FusedGradDecl& decl);

// The grad maker emitting `<forward>_grad` per `decl`; it emits nothing when no gradient of
// `decl.input_grads` is wanted.
GradOpMakerFn FusedGradMaker(const FusedGradDecl& decl);

}  // namespace framework
}  // namespace paddle_like

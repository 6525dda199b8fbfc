// What a grad maker knows of the forward op's variables when the program is built: their
// declarations in the forward block (shape, dtype), and the conjugate that the gradients of
// complex products take.
#pragma once

#include <string>

#include "framework/ddim.h"
#include "framework/grad_op_maker.h"
#include "framework/var_desc.h"

namespace paddle_like {
namespace framework {

// The declaration of `name` in the forward op's block (or a block around it); nullptr when
// the op has no block or nothing declares the name.
const VarDesc* FindForwardVar(const GradOpBuilder& g, const std::string& name);

// The declared dims of the forward variable `name` read through `slot`; PreconditionNotMet
// naming the op, the slot and the variable when no block declares it (its rank is needed).
DDim DeclaredForwardDims(const GradOpBuilder& g, const std::string& slot, const std::string& name);

// Whether `name` is declared as a complex tensor.
bool IsComplexForwardVar(const GradOpBuilder& g, const std::string& name);

// `var` itself, or for a complex `var` a new temporary holding conj(var) (emitted here): the
// gradient of a real loss by z = a + ib is dL/da + i dL/db, so the gradients of products take
// the conjugates of the other factors.
std::string ConjugatedIfComplex(GradOpBuilder* g, const std::string& var);

}  // namespace framework
}  // namespace paddle_like

// Var-type inference of the ops between real and complex values (the complex parts ops, the
// Fourier transforms): Out's dtype follows X's through one of three maps.
#pragma once

#include <string>

#include "framework/var_type_inference.h"
#include "operators/common.h"

namespace paddle_like {
namespace operators {

enum class ComplexMap {
  kParts,    // complex64 -> float32, complex128 -> float64; real types unchanged.
  kComplex,  // float32 -> complex64, float64 -> complex128; complex types unchanged.
  kSame,
};

// `t` through `map`. For kComplex, InvalidArgumentError naming `op` and `slot` when `t` is
// neither float32, float64 nor complex.
DataType MapComplexType(ComplexMap map, DataType t, const std::string& op, const std::string& slot);

// Out: a dense tensor of X's dtype through `map` (left open while X's is).
framework::InferVarTypeFn OutputOfType(ComplexMap map);

}  // namespace operators
}  // namespace paddle_like

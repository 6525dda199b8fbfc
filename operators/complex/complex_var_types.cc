#include "operators/complex/complex_var_types.h"

namespace paddle_like {
namespace operators {

DataType MapComplexType(ComplexMap map, DataType t, const std::string& op,
                        const std::string& slot) {
  switch (map) {
    case ComplexMap::kParts:
      return platform::RealPartType(t);
    case ComplexMap::kComplex:
      if (platform::IsComplex(t)) return t;
      PL_ENFORCE(t == DataType::FLOAT32 || t == DataType::FLOAT64,
                 errors::InvalidArgument("op `%s` input `%s`: expected float32, float64 or a "
                                         "complex type, received %s",
                                         op, slot, platform::DataTypeName(t)));
      return platform::ComplexTypeOf(t);
    case ComplexMap::kSame:
      return t;
  }
  return t;
}

framework::InferVarTypeFn OutputOfType(ComplexMap map) {
  return [map](framework::VarTypeInferenceContext* ctx) {
    ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
    const DataType in = ctx->GetInputDataType("X");
    ctx->SetOutputDataType(
        "Out", in == DataType::UNDEFINED ? in : MapComplexType(map, in, ctx->OpType(), "X"));
  };
}

}  // namespace operators
}  // namespace paddle_like

#include "operators/tensor/shape_inputs.h"

#include <string>

#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

std::vector<int64_t> ShapeAttr(const framework::AttributeMap& attrs) {
  const framework::Attribute& a = attrs.at("shape");
  if (const auto* l = std::get_if<std::vector<int64_t>>(&a)) return *l;
  const auto& i = std::get<std::vector<int>>(a);
  return std::vector<int64_t>(i.begin(), i.end());
}

void ShapeInputsInferShape(InferShapeContext* ctx, const char* out) {
  ctx->RequireOutput(out);
  const std::string op = ctx->OpType();
  const std::vector<int64_t> shape = ShapeAttr(ctx->Attrs());
  const bool from_tensor = ctx->HasInput("ShapeTensor") || ctx->HasInput("ShapeTensorList");
  if (ctx->IsRuntime()) {
    if (from_tensor) return;  // The kernel reads the values.
    CheckShapeValues(op, "attribute `shape`", shape, false);
    ctx->SetOutputDim(out, DDim(shape));
    return;
  }
  // Build time: a non-empty attribute may spell the known dims (-1 for the others).
  if (!shape.empty() || !from_tensor) {
    CheckShapeValues(op, "attribute `shape`", shape, true);
    ctx->SetOutputDim(out, DDim(shape));
  } else if (ctx->HasInput("ShapeTensor")) {
    // The rank is checked before a vector of that many dims is built.
    const int64_t rank = ctx->GetInputDim("ShapeTensor").numel();
    if (rank >= 0) ctx->SetOutputDim(out, UnknownDims(op, "input `ShapeTensor`", rank));
  } else {
    const auto rank = static_cast<int64_t>(ctx->InputSize("ShapeTensorList"));
    ctx->SetOutputDim(out, UnknownDims(op, "input `ShapeTensorList`", rank));
  }
}

DDim ShapeFromInputs(const ExecutionContext& ctx) {
  std::vector<int64_t> shape;
  std::string origin = "attribute `shape`";
  if (ctx.HasInput("ShapeTensor")) {
    const DenseTensor* t = ctx.Input("ShapeTensor");
    PL_ENFORCE(t->dims().size() <= 1,
               errors::InvalidArgument("op `%s` input `ShapeTensor`: expected a 1-D tensor, "
                                       "received shape %s",
                                       ctx.Type(), t->dims().ToString()));
    shape = ReadIntValues(*t, ctx.Type(), "ShapeTensor");
    origin = "input `ShapeTensor`";
  } else if (ctx.HasInput("ShapeTensorList")) {
    shape = ReadOneElementInts(ctx, "ShapeTensorList");
    origin = "input `ShapeTensorList`";
  } else {
    shape = ShapeAttr(ctx.op().Attrs());
  }
  CheckShapeValues(ctx.Type(), origin, shape, false);
  return DDim(shape);
}

}  // namespace operators
}  // namespace paddle_like

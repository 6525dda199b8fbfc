// Attribute access for shape-inference functions that also works on build-time op
// descriptions, which may not carry attributes left at their registered defaults.
#pragma once

#include <string>
#include <variant>

#include "framework/op_info.h"
#include "framework/shape_inference.h"

namespace paddle_like {
namespace operators {
namespace math {

// The op's attribute `name`, or its registered default when the description lacks it.
template <typename T>
T AttrOrDefault(const framework::InferShapeContext& ctx, const std::string& name) {
  if (ctx.Attrs().count(name) > 0) return ctx.Attr<T>(name);
  const framework::OpAttrSpec* spec =
      framework::OpInfoMap::Instance().Get(ctx.OpType()).spec.FindAttr(name);
  PL_ENFORCE(spec != nullptr && spec->has_default,
             errors::NotFound("op `%s` has no attribute `%s`", ctx.OpType(), name));
  return std::get<T>(spec->default_value);
}

}  // namespace math
}  // namespace operators
}  // namespace paddle_like

// CompletedAttrs: an op's attributes as inference functions should see them.
//
// At run time an operator's attributes were completed and checked when it was created. At
// program-build time an OpDesc may lack attributes that have defaults, or hold INTS where
// LONGS are declared; CompletedAttrs then runs the op's attribute checker on a copy, so
// defaults are filled in, types coerced and constraints checked, with the usual errors.
#pragma once

#include <string>

#include "framework/attribute.h"
#include "framework/shape_inference.h"

namespace paddle_like {
namespace operators {

class CompletedAttrs {
 public:
  // `checked`: the attributes already went through the op's checker (no copy is made).
  CompletedAttrs(const std::string& op_type, const framework::AttributeMap& attrs, bool checked);
  explicit CompletedAttrs(const framework::InferShapeContext& ctx)
      : CompletedAttrs(ctx.OpType(), ctx.Attrs(), ctx.IsRuntime()) {}

  // InvalidArgumentError naming the op and attribute when the type differs.
  template <typename T>
  const T& Get(const std::string& name) const {
    const framework::Attribute& a = Find(name);
    const T* v = std::get_if<T>(&a);
    PL_ENFORCE(v != nullptr, errors::InvalidArgument(
                                 "op `%s` attribute `%s`: expected type %s, received %s", op_type_,
                                 name, framework::AttrTypeName(framework::AttrTypeOf<T>()),
                                 framework::AttrTypeName(framework::GetAttrType(a))));
    return *v;
  }

 private:
  const framework::Attribute& Find(const std::string& name) const;

  std::string op_type_;
  const framework::AttributeMap* attrs_;
  framework::AttributeMap completed_;
};

}  // namespace operators
}  // namespace paddle_like

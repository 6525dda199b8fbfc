// InferShapeContext: what a shape-inference function sees. One function per op serves both
// program-build time (on VarDescs, unknown dims = -1) and run time (on the variables of the
// scope, all dims known):
//
//   void QuadraticInferShape(InferShapeContext* ctx) {
//     ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
//     ctx->ShareLoD("X", "Out");
//   }
//
// Errors name the op and the slot: use ctx->OpType() in messages.
//
// SelectedRows variables take part with their complete dims, [height] + the dims of one value
// row (the dense tensor they stand for), at both times: GetInputDim returns them and
// SetOutputDim on a SelectedRows output sets its height (the number of value rows is the
// kernel's business). So one function serves VarDescs and variables alike.
#pragma once

#include <string>
#include <vector>

#include "framework/attribute.h"
#include "framework/ddim.h"
#include "framework/var_desc.h"
#include "platform/data_type.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {

using platform::DataType;

class InferShapeContext {
 public:
  virtual ~InferShapeContext() = default;

  virtual const std::string& OpType() const = 0;
  virtual bool IsRuntime() const = 0;
  virtual const AttributeMap& Attrs() const = 0;

  // Number of variables given for a slot (0 if absent).
  virtual size_t InputSize(const std::string& slot) const = 0;
  virtual size_t OutputSize(const std::string& slot) const = 0;
  bool HasInput(const std::string& slot) const { return InputSize(slot) > 0; }
  bool HasOutput(const std::string& slot) const { return OutputSize(slot) > 0; }

  virtual DDim GetInputDim(const std::string& slot, size_t i = 0) const = 0;
  virtual DataType GetInputDataType(const std::string& slot, size_t i = 0) const = 0;
  // kSelectedRows or kDenseTensor: the VarDesc's kind at build time, what the variable holds
  // at run time (an empty variable counts as dense).
  virtual VarKind GetInputVarKind(const std::string& slot, size_t i = 0) const = 0;
  virtual void SetOutputDim(const std::string& slot, const DDim& dims, size_t i = 0) = 0;
  // Build time: sets the output VarDesc's dtype. Run time: no-op (kernels set dtypes).
  virtual void SetOutputDataType(const std::string& slot, DataType dtype, size_t i = 0) = 0;
  virtual void ShareLoD(const std::string& in, const std::string& out) = 0;

  std::vector<DDim> GetInputsDim(const std::string& slot) const;

  template <typename T>
  const T& Attr(const std::string& name) const {
    auto it = Attrs().find(name);
    PL_ENFORCE(it != Attrs().end(),
               errors::NotFound("op `%s` has no attribute `%s`", OpType(), name));
    const T* v = std::get_if<T>(&it->second);
    PL_ENFORCE(v != nullptr, errors::InvalidArgument(
                                 "op `%s` attribute `%s`: expected type %s, received %s", OpType(),
                                 name, AttrTypeName(AttrTypeOf<T>()),
                                 AttrTypeName(GetAttrType(it->second))));
    return *v;
  }

  // Throws NotFoundError "op `x` input `X`: required but not given".
  void RequireInput(const std::string& slot) const;
  void RequireOutput(const std::string& slot) const;
};

}  // namespace framework
}  // namespace paddle_like

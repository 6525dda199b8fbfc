// GradOpBuilder: what a grad maker sees and uses to emit the backward ops of one forward op.
//
// A grad maker names only what its formula reads. Where the formula can be written with
// differentiable forward ops, it should be (sin's backward multiplies by cos(X)): running the
// backward builder on the result then gives higher-order gradients.
//
//   void SinGradMaker(GradOpBuilder* g) {
//     const std::string cos_x = g->NewTemp("cos");
//     g->AddOp("cos", {{"X", g->Input("X")}}, {{"Out", {cos_x}}});
//     g->AddOp("elementwise_mul", {{"X", g->OutputGrad("Out")}, {"Y", {cos_x}}},
//              {{"Out", g->InputGrad("X")}});
//   }
//
// Gradient names follow PaddlePaddle: the gradient of `x` is `x@GRAD` (or a renamed variant
// when that name is already taken, see backward.h); an input whose gradient is not wanted
// gets `@EMPTY@`, and ops whose outputs are all `@EMPTY@` are dropped.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/op_desc.h"

namespace paddle_like {
namespace framework {

constexpr char kEmptyVarName[] = "@EMPTY@";
constexpr char kGradSuffix[] = "@GRAD";

class GradOpBuilder {
 public:
  // `grad_name_of(var)` gives the gradient name of a forward variable, or "" when its
  // gradient is not wanted. `temp_counter` numbers temporaries across the whole pass.
  GradOpBuilder(const OpDesc& forward,
                std::function<std::string(const std::string&)> grad_name_of,
                int* temp_counter);

  const OpDesc& Forward() const { return forward_; }
  const std::string& ForwardType() const { return forward_.Type(); }

  // Forward variables of a slot.
  const std::vector<std::string>& Input(const std::string& slot) const { return forward_.Input(slot); }
  const std::vector<std::string>& Output(const std::string& slot) const { return forward_.Output(slot); }
  bool HasInput(const std::string& slot) const { return forward_.HasInput(slot); }
  // Gradient names of the variables of a forward output slot. A gradient that no later op
  // produced is filled with zeros by the backward builder when a maker reads it.
  std::vector<std::string> OutputGrad(const std::string& slot) const;
  // Gradient names to produce for a forward input slot; `@EMPTY@` where not wanted.
  std::vector<std::string> InputGrad(const std::string& slot) const;
  // Whether any gradient of the input slot is wanted.
  bool WantsInputGrad(const std::string& slot) const;

  const AttributeMap& Attrs() const { return forward_.Attrs(); }
  template <typename T>
  const T& Attr(const std::string& name) const {
    return forward_.Attr<T>(name);
  }

  // Appends a backward op. Output slots that hold only `@EMPTY@` are dropped; an op left
  // without outputs is not emitted.
  void AddOp(const std::string& type, const VariableNameMap& inputs, const VariableNameMap& outputs,
             const AttributeMap& attrs = {});
  // A new variable name for an intermediate result, unique within the pass.
  std::string NewTemp(const std::string& hint);

  std::vector<std::unique_ptr<OpDesc>> TakeOps() { return std::move(ops_); }
  // Forward output variables whose gradients the maker read through OutputGrad().
  const std::vector<std::string>& ReadOutputGradsOf() const { return read_output_grads_of_; }

 private:
  const OpDesc& forward_;
  std::function<std::string(const std::string&)> grad_name_of_;
  int* temp_counter_;
  std::vector<std::unique_ptr<OpDesc>> ops_;
  mutable std::vector<std::string> read_output_grads_of_;
};

// The default maker: one `<type>_grad` op with every forward input and output, every output
// gradient (`<Slot>@GRAD`) and every wanted input gradient. Use it for ops whose backward is
// a fused kernel registered as `<type>_grad` (those are not differentiable again).
void DefaultGradOpMaker(GradOpBuilder* builder);

// The grad maker of ops through which no gradient flows (integer or piecewise-constant
// outputs, random draws): it emits nothing, so their inputs get no gradient from them.
inline void NoGradient(GradOpBuilder*) {}

}  // namespace framework
}  // namespace paddle_like

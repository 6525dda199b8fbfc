// Helpers shared by the optimizer ops (sgd, momentum, adam): the op class that takes its
// kernel dtype from Param, 1-element inputs (learning rate, beta powers), the gradient as a
// DenseTensor or SelectedRows (duplicate rows merged), master-parameter access and build-time
// dtypes.
//
// In-place contract: ParamOut usually names the same variable as Param (and Moment1Out the
// same as Moment1 ...). The kernels take every input pointer before allocating any output
// and compute element i only from elements i of the inputs, so an output that is its own
// input is updated in place; an output sharing a buffer with another tensor is given a new
// buffer by mutable_data(), and the input pointers keep reading the old one.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "framework/selected_rows.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/math/selected_rows_functor.h"

namespace paddle_like {
namespace operators {

using framework::SelectedRows;

// The optimizer op class: the kernel dtype is Param's; only Grad is cast to it (the learning
// rate, beta powers and SkipUpdate are read in their own dtype, the state tensors must have
// the compute dtype and are checked by the kernel).
class OptimizerOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override;
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override;
};

// Writes `value` into the 1-element output `slot` (its i-th variable), with the given dtype
// (float32/float64) and dims.
void WriteScalarOutput(const ExecutionContext& ctx, const std::string& slot, DataType dtype,
                       const DDim& dims, double value, size_t i = 0);

// Requires the tensor of `slot` (its i-th variable) to have dtype `dtype` and dims `dims`.
void CheckStateInput(const ExecutionContext& ctx, const std::string& slot, DataType dtype,
                     const DDim& dims, size_t i = 0);

// Grad as the kernel sees it: exactly one of the two is set.
struct GradInput {
  const DenseTensor* dense = nullptr;
  const SelectedRows* sparse = nullptr;
};

// Resolves Grad and checks it against Param: a DenseTensor of Param's dims, or SelectedRows
// of height dims[0] with value [rows, dims[1:]] and every row in [0, height). Its elements
// must have dtype `dtype`.
GradInput GetGrad(const ExecutionContext& ctx, const DDim& param_dims, DataType dtype);

// For each row index in [0, height): its position in `rows`, or -1.
std::vector<int64_t> RowPositions(const std::vector<int64_t>& rows, int64_t height);

// The gradient element by element over Param's elements: Grad itself when dense; for
// SelectedRows the merged rows, with 0 (and Present() false) in rows that are absent.
template <typename T>
class GradView {
 public:
  GradView(const GradInput& g, const DDim& param_dims) {
    if (g.dense != nullptr) {
      dense_ = g.dense->data<T>();
      return;
    }
    width_ = param_dims.size() == 0 ? 1 : framework::Product(param_dims, 1, param_dims.size());
    math::MergeSelectedRows(*g.sparse, &merged_);
    values_ = merged_.value().numel() > 0 ? merged_.value().data<T>() : nullptr;
    pos_ = RowPositions(merged_.rows(), g.sparse->height());
  }
  bool sparse() const { return dense_ == nullptr; }
  const T* dense() const { return dense_; }  // Null when sparse.
  bool Present(int64_t i) const { return dense_ != nullptr || pos_[i / width_] >= 0; }
  T operator[](int64_t i) const {
    if (dense_ != nullptr) return dense_[i];
    const int64_t p = pos_[i / width_];
    return p < 0 ? T(0) : values_[p * width_ + i % width_];
  }

 private:
  const T* dense_ = nullptr;
  int64_t width_ = 1;
  SelectedRows merged_;  // Duplicate rows added (math::MergeSelectedRows).
  const T* values_ = nullptr;
  std::vector<int64_t> pos_;
};

// The parameter as the update reads and writes it. With multi_precision the update runs on
// MasterParam (type MT) and ParamOut receives the result converted to T; otherwise MT == T
// and the master pointers are null.
template <typename T, typename MT>
struct ParamAccess {
  const T* param = nullptr;
  const MT* master = nullptr;
  T* param_out = nullptr;
  MT* master_out = nullptr;

  MT Get(int64_t i) const { return master ? master[i] : static_cast<MT>(param[i]); }
  MT GetOut(int64_t i) const { return master_out ? master_out[i] : static_cast<MT>(param_out[i]); }
  void Set(int64_t i, MT v) const {
    if (master_out) master_out[i] = v;
    param_out[i] = static_cast<T>(v);
  }
};

// Reads the input pointers of the parameter (call before allocating outputs).
template <typename T, typename MT>
ParamAccess<T, MT> ParamInputs(const ExecutionContext& ctx) {
  ParamAccess<T, MT> a;
  a.param = ctx.Input("Param")->template data<T>();
  if (ctx.Attr<bool>("multi_precision")) a.master = ctx.Input("MasterParam")->template data<MT>();
  return a;
}

// Allocates ParamOut (and MasterParamOut) with Param's dims.
template <typename T, typename MT>
void AllocParamOutputs(const ExecutionContext& ctx, ParamAccess<T, MT>* a) {
  const DDim dims = ctx.Input("Param")->dims();
  a->param_out = ctx.Output("ParamOut")->Resize(dims).template mutable_data<T>(ctx.GetPlace());
  if (a->master != nullptr) {
    a->master_out =
        ctx.Output("MasterParamOut")->Resize(dims).template mutable_data<MT>(ctx.GetPlace());
  }
}

// Calls fn(MT{}) with the compute type: MasterParam's dtype (float32 or float64) when
// multi_precision is set (MasterParam and MasterParamOut are then required and checked
// against Param's dims), else T.
template <typename T, typename Fn>
void WithComputeType(const ExecutionContext& ctx, Fn&& fn) {
  if (!ctx.Attr<bool>("multi_precision")) {
    fn(T{});
    return;
  }
  PL_ENFORCE(ctx.HasInput("MasterParam") && ctx.HasOutput("MasterParamOut"),
             errors::InvalidArgument("op `%s` input `MasterParam` and output `MasterParamOut`: "
                                     "required when attribute `multi_precision` is true",
                                     ctx.Type()));
  const DenseTensor* master = ctx.Input("MasterParam");
  PL_ENFORCE(
      master->dims() == ctx.Input("Param")->dims(),
      errors::InvalidArgument("op `%s` input `MasterParam` (variable `%s`): expected "
                              "Param's shape %s, received %s",
                              ctx.Type(), ctx.InputName("MasterParam"),
                              ctx.Input("Param")->dims().ToString(), master->dims().ToString()));
  if (master->dtype() == DataType::FLOAT32) {
    fn(float{});
  } else if (master->dtype() == DataType::FLOAT64) {
    fn(double{});
  } else {
    throw errors::InvalidArgument(
        "op `%s` input `MasterParam` (variable `%s`): expected float32 or float64, received %s",
        ctx.Type(), ctx.InputName("MasterParam"), platform::DataTypeName(master->dtype()));
  }
}

// The data of state input `slot` (Moment, ...), checked to have dtype MT and Param's `dims`.
// Take every input pointer before allocating any output (outputs may be their inputs).
template <typename MT>
const MT* StateInput(const ExecutionContext& ctx, const std::string& slot, const DDim& dims) {
  CheckStateInput(ctx, slot, platform::ToDataType<MT>(), dims);
  return ctx.Input(slot)->template data<MT>();
}

// State output `slot` with Param's `dims`, allocated as MT.
template <typename MT>
MT* StateOutput(const ExecutionContext& ctx, const std::string& slot, const DDim& dims) {
  return ctx.Output(slot)->Resize(dims).template mutable_data<MT>(ctx.GetPlace());
}

// Shape inference of an optimizer op: requires `inputs` and `outputs`, 1-element `scalars`
// (learning rate, beta powers), and gives each output of `state` its input's dims.
void InferOptimizerShape(InferShapeContext* ctx, std::initializer_list<const char*> inputs,
                         std::initializer_list<const char*> outputs,
                         std::initializer_list<const char*> scalars,
                         const std::vector<std::pair<std::string, std::string>>& state);

// Writes output `out` = input `in` * beta (with `multiply`; else `in` itself), a 1-element
// tensor computed in the input's dtype (float32 or float64, else InvalidArgumentError).
void UpdateBetaPow(const ExecutionContext& ctx, const char* in, const char* out, double beta,
                   bool multiply);

// Requires each input of `slots` to hold 1 element (or an unknown count at build time):
// the learning rate and beta powers.
void CheckOneElementInputs(InferShapeContext* ctx, std::initializer_list<const char*> slots);

// Build-time dtypes: each (output slot, input slot) pair copies the input's dtype.
void SetOutputTypesLike(framework::VarTypeInferenceContext* ctx,
                        const std::vector<std::pair<std::string, std::string>>& pairs);

// Registers optimizer `type` (OptimizerOp with MakerT) with `infer_shape`, build-time dtypes
// from `state` (each output takes its input's dtype) and KernelT<float>, KernelT<double>.
template <typename MakerT, template <typename> class KernelT>
void RegisterOptimizerOp(const std::string& type, framework::InferShapeFn infer_shape,
                         const std::vector<std::pair<std::string, std::string>>& state) {
  framework::RegisterOp<OptimizerOp, MakerT>(type)
      .InferShape(std::move(infer_shape))
      .InferVarType(
          [state](framework::VarTypeInferenceContext* ctx) { SetOutputTypesLike(ctx, state); });
  RegisterPlainCpuFloatKernels<KernelT>(type);
}

// Run/build-time shapes: each (output slot, input slot) pair copies the input's dims, variable
// by variable for duplicable slots.
void SetOutputDimsLike(InferShapeContext* ctx,
                       const std::vector<std::pair<std::string, std::string>>& pairs);

}  // namespace operators
}  // namespace paddle_like

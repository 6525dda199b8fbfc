// Shared by the reduce ops with PaddlePaddle's reduce attributes (reduce_sum, reduce_mean)
// and by the gradient of mean: the attribute declarations, the gradient written with
// differentiable ops, and the body of the fused `<op>_grad` kernels of PaddlePaddle's
// programs.
#pragma once

#include <string>
#include <vector>

#include "operators/common.h"
#include "operators/math/broadcast.h"
#include "operators/math/reduce.h"

namespace paddle_like {
namespace framework {
class GradOpBuilder;
}  // namespace framework

namespace operators {

class ReduceOpMaker : public OpProtoAndCheckerMaker {
 protected:
  // Declares `dim`, `keep_dim`, `reduce_all` (and the extra `use_mkldnn`); `verb` says what
  // happens over the reduced dims ("sum", "average"). `int64_dims`: `dim` holds int64 values,
  // as PaddlePaddle declares it for reduce_all and reduce_any.
  void AddReduceAttrs(const std::string& verb, bool int64_dims = false);
  // Declares `in_dtype` and `out_dtype` (extra) for ops that compute in X's dtype only: -1.
  void AddOwnDtypeAttrs();
};

// The `dim` attribute as ints, whether the op declares it as int32 or int64 values ({0} when
// absent, its default).
std::vector<int> ReduceDimsOf(const framework::AttributeMap& attrs);

// The op class of the fused grad ops: the kernel computes in X's dtype (an Out@GRAD of
// another dtype, from out_dtype, is converted to it).
class ReduceGradOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

// Shape inference of the grad ops (X, Out@GRAD -> X@GRAD): X@GRAD has X's dims and LoD.
void ReduceGradInferShape(InferShapeContext* ctx);

// Appends dX = expand_as_v2(unsqueeze2(dout, reduced dims), X) for the forward reduce op of
// `g` (the unsqueeze2 only when the reduced dims were removed and some dims remain; a 0-D
// dout broadcasts as it is), then a cast from `from_dtype` to X's dtype when from_dtype >= 0
// differs from it. X must be declared in the forward op's block (its rank is needed).
void AppendReduceGradBroadcast(framework::GradOpBuilder* g, const std::string& dout,
                               int from_dtype);

// The dtype in which the gradient of forward variable `x` flows: x's declared floating or
// complex dtype, else float32 (x undeclared, or of an integer dtype).
DataType GradValueType(const framework::GradOpBuilder& g, const std::string& x);

// Appends cast(size(var), dtype) and returns its name (a new temporary named after `hint`):
// the element count that the gradients of means divide by.
std::string AppendCountAs(framework::GradOpBuilder* g, const std::string& var,
                          const std::string& hint, DataType dtype);

// Appends the gradient of the mean of all elements of `x` (a 0-D `dout`) as differentiable
// ops: dx = expand_as_v2(dout / cast(size(x)), x), the division on the 0-D gradient. The
// cast goes to GradValueType(x).
void AppendMeanOfAllGrad(framework::GradOpBuilder* g, const std::string& x,
                         const std::vector<std::string>& dout, const std::vector<std::string>& dx);

// Appends the ops that broadcast `value` (shaped like the forward reduce op's Out) back to X's
// shape (unsqueeze2 where the reduced dims were removed, then expand_as_v2), and returns the
// name of the result, a new temporary named after `hint`.
std::string AppendBroadcastToX(framework::GradOpBuilder* g, const std::string& value,
                               const std::string& hint);

// Out = the sums (or, with `mean`, the means) of a complex X (C = std::complex<float> or
// std::complex<double>) over the dims of `shape`, accumulated in double per part in a fixed
// order, each part rounded once. A mean over an empty dim is NaN.
template <typename C>
void ComplexSumsInto(const ExecutionContext& ctx, const DenseTensor& x,
                     const math::ReduceShape& shape, bool mean, DenseTensor* out) {
  const int64_t n = shape.out.numel();
  DenseTensor result(shape.out, x.dtype());
  C* o = result.mutable_data<C>(ctx.GetPlace());
  if (n > 0) {
    std::vector<double> parts(static_cast<size_t>(2 * n));
    math::SumOverDims(ctx.device_context<platform::CPUDeviceContext>(),
                      x.numel() > 0 ? x.data<C>() : nullptr, x.dims(), shape.reduced, parts.data());
    const double count = mean ? static_cast<double>(x.numel() / n) : 1.0;
    using R = typename C::value_type;
    for (int64_t i = 0; i < n; ++i) {
      o[i] = C(static_cast<R>(parts[2 * i] / count), static_cast<R>(parts[2 * i + 1] / count));
    }
  }
  *out = std::move(result);
}

// The body of the fused grad kernels: X@GRAD = broadcast of Out@GRAD / divisor to X's
// shape, where Out@GRAD holds X's dims with the `reduced` ones removed (or kept as 1) and
// divisor is 1 for sums (`mean` false) or the number of elements averaged into each output.
template <typename T>
void ComputeReduceGrad(const ExecutionContext& ctx, const std::vector<bool>& reduced, bool mean) {
  const DenseTensor x = *ctx.Input("X");
  const DenseTensor dout = *ctx.Input("Out@GRAD");
  const DDim dims = x.dims();
  std::vector<int64_t> kept(static_cast<size_t>(dims.size()));
  for (int i = 0; i < dims.size(); ++i) kept[i] = reduced[i] ? 1 : dims[i];
  const DDim aligned(kept);
  PL_ENFORCE(dout.numel() == aligned.numel(),
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected %lld elements (the "
                                     "reduced shape of X %s), received shape %s",
                                     ctx.Type(), static_cast<long long>(aligned.numel()),
                                     dims.ToString(), dout.dims().ToString()));
  DenseTensor result(dims, platform::ToDataType<T>());
  T* o = result.mutable_data<T>(ctx.GetPlace());
  if (dims.numel() > 0) {
    const T* g = dout.data<T>();
    std::vector<T> scaled;
    if (mean) {
      const T count = static_cast<T>(dims.numel() / aligned.numel());
      scaled.resize(static_cast<size_t>(aligned.numel()));
      for (size_t i = 0; i < scaled.size(); ++i) scaled[i] = g[i] / count;
      g = scaled.data();
    }
    math::BroadcastTo(ctx.device_context<platform::CPUDeviceContext>(), g, aligned, dims, o);
  }
  result.set_lod(x.lod());
  *ctx.Output("X@GRAD") = std::move(result);
}

}  // namespace operators
}  // namespace paddle_like

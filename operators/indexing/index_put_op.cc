// index_put (x[indices] = value, or += with accumulate, as paddle.index_put and
// Tensor.__setitem__ with tensor indices) and its fused gradient.
//
// The index tensors address X's leading dims: an int32/int64 tensor one dim (negative values
// count from the end), a bool tensor as many dims as its rank (its true positions, in
// row-major order). The int index tensors broadcast together to a shape B; every position b
// of B picks a slice of X over the dims left, and value broadcasts to B + those dims.
// Positions written twice take the last value, or the sum of all with accumulate.
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/math/broadcast.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "index_put";

class IndexPutOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("x", "The tensor written into (not modified: out is a copy).");
    AddInput("indices", "int32, int64 or bool tensors addressing x's leading dims.").AsDuplicable();
    AddInput("value", "Values of x's dtype, broadcast to the indexed shape.");
    AddOutput("out", "x with the indexed elements replaced (or increased) by value.");
    AddAttr<bool>("accumulate", "Add value to the indexed elements instead of replacing them.")
        .SetDefault(false);
    AddComment(R"DOC(
index_put: with the index tensors broadcast to positions b and S_b the slice of x they
address,
$$out = x, \quad out[S_b] = value_b \;\; (\text{or } out[S_b] \mathrel{+}= value_b)$$
in order of b (a position written twice keeps the last value without accumulate).

Gradient (fused op index_put_grad): $$dx = dout$$ with the indexed elements zeroed
(unless accumulate), $$dvalue = \text{sum to value's shape of } dout[S_b]$$.
)DOC");
  }
};

class IndexPutOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("out@GRAD") ? "out@GRAD" : "x");
  }
  // value must have x's dtype, as in PaddlePaddle; indices keep theirs.
  bool CastsInput(const std::string& slot, DataType, DataType) const override {
    return slot == "out@GRAD";
  }
};

void IndexPutInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("x");
  ctx->RequireInput("value");
  ctx->RequireOutput("out");
  PL_ENFORCE(ctx->HasInput("indices"),
             errors::InvalidArgument("op `%s` input `indices`: expected at least one index "
                                     "tensor, received none",
                                     ctx->OpType()));
  ctx->SetOutputDim("out", ctx->GetInputDim("x"));
}

// Where the writes go: X offsets of the addressed slices, one per index position, and for
// each element of the indexed shape (index positions x slice) the value element it takes.
struct PutPlan {
  DDim target;                        // B + X's dims left
  int64_t slice = 1;                  // elements per slice
  std::vector<int64_t> slice_starts;  // per position of B
  std::vector<int64_t> value_of;      // per element of target: the value element
};

// The int index tensors (bool ones turned into one coordinate vector per dim), as int64
// values with their dims.
struct IndexList {
  std::vector<std::vector<int64_t>> values;
  std::vector<DDim> dims;
};

IndexList ExpandIndices(const std::string& op, const DDim& x,
                        const std::vector<const DenseTensor*>& indices) {
  IndexList list;
  for (size_t i = 0; i < indices.size(); ++i) {
    const DenseTensor& t = *indices[i];
    const int at = static_cast<int>(list.values.size());
    if (t.dtype() == DataType::BOOL) {
      bool fits = at + t.dims().size() <= x.size();
      for (int d = 0; fits && d < t.dims().size(); ++d) fits = t.dims()[d] == x[at + d];
      PL_ENFORCE(fits, errors::InvalidArgument("op `%s` input `indices` #%zu: a bool mask of "
                                               "shape %s must match dims %d.. of x %s",
                                               op, i, t.dims().ToString(), at, x.ToString()));
      const int r = t.dims().size();
      std::vector<std::vector<int64_t>> coords(static_cast<size_t>(r));
      const bool* m = t.data<bool>();
      for (int64_t k = 0; k < t.numel(); ++k) {
        if (!m[k]) continue;
        int64_t rest = k;
        for (int d = r - 1; d >= 0; --d) {
          coords[d].push_back(rest % t.dims()[d]);
          rest /= t.dims()[d];
        }
      }
      for (auto& c : coords) {
        list.dims.push_back(DDim({static_cast<int64_t>(c.size())}));
        list.values.push_back(std::move(c));
      }
      continue;
    }
    PL_ENFORCE(t.dtype() == DataType::INT32 || t.dtype() == DataType::INT64,
               errors::InvalidArgument("op `%s` input `indices` #%zu: expected int32, int64 or "
                                       "bool, received %s",
                                       op, i, DataTypeName(t.dtype())));
    PL_ENFORCE(at < x.size(), errors::InvalidArgument("op `%s` input `indices`: %d index "
                                                      "tensors for x of rank %d",
                                                      op, at + 1, x.size()));
    std::vector<int64_t> v = ReadIntValues(t, op, "indices");
    for (size_t k = 0; k < v.size(); ++k) {
      PL_ENFORCE(v[k] >= -x[at] && v[k] < x[at],
                 errors::InvalidArgument("op `%s` input `indices` #%zu: element %zu is %lld, "
                                         "outside [%lld, %lld) for dim %d of x %s",
                                         op, i, k, static_cast<long long>(v[k]),
                                         static_cast<long long>(-x[at]),
                                         static_cast<long long>(x[at]), at, x.ToString()));
      if (v[k] < 0) v[k] += x[at];
    }
    list.dims.push_back(t.dims());
    list.values.push_back(std::move(v));
  }
  return list;
}

// `dims` padded with leading 1s to `rank`.
DDim PadLeft(const DDim& dims, int rank) {
  std::vector<int64_t> d(static_cast<size_t>(rank - dims.size()), 1);
  for (int i = 0; i < dims.size(); ++i) d.push_back(dims[i]);
  return DDim(d);
}

std::vector<int64_t> BroadcastIota(const platform::CPUDeviceContext& dev, const DDim& from,
                                   const DDim& to) {
  std::vector<int64_t> iota(static_cast<size_t>(from.numel()));
  std::iota(iota.begin(), iota.end(), int64_t{0});
  std::vector<int64_t> out(static_cast<size_t>(to.numel()));
  if (!out.empty()) {
    math::BroadcastTo(dev, iota.data(), PadLeft(from, to.size()), to, out.data());
  }
  return out;
}

PutPlan MakePutPlan(const ExecutionContext& ctx, const DDim& x, const DDim& value) {
  const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
  const IndexList list = ExpandIndices(ctx.Type(), x, ctx.MultiInput("indices"));
  const int k = static_cast<int>(list.values.size());
  PL_ENFORCE(k >= 1, errors::InvalidArgument("op `%s` input `indices`: expected at least one "
                                             "index tensor, received none",
                                             ctx.Type()));
  DDim b = list.dims[0];
  for (int i = 1; i < k; ++i) {
    b = math::ComputeBroadcastDims(ctx.Type() + " (input `indices`)", b, list.dims[i], -1).out;
  }
  PutPlan plan;
  std::vector<int64_t> target = b.ToVector();
  for (int d = k; d < x.size(); ++d) {
    target.push_back(x[d]);
    plan.slice *= x[d];
  }
  plan.target = DDim(target);
  std::vector<int64_t> strides(static_cast<size_t>(x.size()), 1);
  for (int d = x.size() - 2; d >= 0; --d) strides[d] = strides[d + 1] * x[d + 1];
  plan.slice_starts.assign(static_cast<size_t>(b.numel()), 0);
  for (int i = 0; i < k; ++i) {
    const std::vector<int64_t> at = BroadcastIota(dev, list.dims[i], b);
    for (size_t p = 0; p < at.size(); ++p) {
      plan.slice_starts[p] += list.values[i][at[p]] * strides[i];
    }
  }
  bool fits = value.size() <= plan.target.size();
  for (int d = 1; fits && d <= value.size(); ++d) {
    const int64_t v = value[value.size() - d], t = plan.target[plan.target.size() - d];
    fits = v == t || v == 1;
  }
  PL_ENFORCE(fits, errors::InvalidArgument("op `%s` input `value`: shape %s does not broadcast "
                                           "to the indexed shape %s",
                                           ctx.Type(), value.ToString(), plan.target.ToString()));
  plan.value_of = BroadcastIota(dev, value, plan.target);
  return plan;
}

void CheckValueDtype(const ExecutionContext& ctx, const DenseTensor& x, const DenseTensor& v) {
  PL_ENFORCE(x.dtype() == v.dtype(),
             errors::InvalidArgument("op `%s` input `value`: expected x's dtype %s, received %s",
                                     ctx.Type(), DataTypeName(x.dtype()), DataTypeName(v.dtype())));
}

template <typename T>
struct IndexPutKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor& x = *ctx.Input("x");
    const DenseTensor& value = *ctx.Input("value");
    CheckValueDtype(ctx, x, value);
    const PutPlan plan = MakePutPlan(ctx, x.dims(), value.dims());
    const bool accumulate = ctx.Attr<bool>("accumulate");
    DenseTensor out(x.dims(), x.dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    if (x.numel() > 0) std::memcpy(o, x.data<T>(), sizeof(T) * x.numel());
    const T* v = value.data<T>();
    for (size_t p = 0; p < plan.slice_starts.size(); ++p) {
      T* dst = o + plan.slice_starts[p];
      const int64_t* from = plan.value_of.data() + p * plan.slice;
      for (int64_t j = 0; j < plan.slice; ++j) {
        dst[j] = accumulate ? static_cast<T>(dst[j] + v[from[j]]) : v[from[j]];
      }
    }
    *ctx.Output("out") = std::move(out);
  }
};

void IndexPutGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("out@GRAD");
  if (ctx->HasOutput("x@GRAD")) ctx->SetOutputDim("x@GRAD", ctx->GetInputDim("x"));
  if (ctx->HasOutput("value@GRAD")) ctx->SetOutputDim("value@GRAD", ctx->GetInputDim("value"));
}

template <typename T>
struct IndexPutGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor& x = *ctx.Input("x");
    const DenseTensor& value = *ctx.Input("value");
    const DenseTensor& dout = *ctx.Input("out@GRAD");
    PL_ENFORCE(dout.dims() == x.dims(),
               errors::InvalidArgument("op `%s` input `out@GRAD`: expected x's shape %s, "
                                       "received %s",
                                       ctx.Type(), x.dims().ToString(), dout.dims().ToString()));
    const PutPlan plan = MakePutPlan(ctx, x.dims(), value.dims());
    const T* g = dout.data<T>();
    if (DenseTensor* dx_out = ctx.Output("x@GRAD")) {
      DenseTensor dx(x.dims(), dout.dtype());
      T* d = dx.mutable_data<T>(ctx.GetPlace());
      if (x.numel() > 0) std::memcpy(d, g, sizeof(T) * x.numel());
      if (!ctx.Attr<bool>("accumulate")) {
        for (int64_t start : plan.slice_starts) std::fill(d + start, d + start + plan.slice, T(0));
      }
      *dx_out = std::move(dx);
    }
    if (DenseTensor* dv_out = ctx.Output("value@GRAD")) {
      DenseTensor dv(value.dims(), dout.dtype());
      T* d = dv.mutable_data<T>(ctx.GetPlace());
      std::fill(d, d + value.numel(), T(0));
      for (size_t p = 0; p < plan.slice_starts.size(); ++p) {
        const int64_t* to = plan.value_of.data() + p * plan.slice;
        for (int64_t j = 0; j < plan.slice; ++j) d[to[j]] += g[plan.slice_starts[p] + j];
      }
      *dv_out = std::move(dv);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterIndexPutOp) {
  const framework::FusedGradDecl grad{
      {"x", "indices", "value"},
      {"out"},
      {"x", "value"},
      R"DOC($$dx = dout$$ zeroed at the indexed elements (unless accumulate);
$$dvalue = \text{sum to value's shape of } dout[S_b]$$)DOC"};
  framework::RegisterOp<IndexPutOp, IndexPutOpMaker>(kOp)
      .InferShape(IndexPutInferShape)
      .InferVarType(OutputDataTypeOf("x", "out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuKernels<IndexPutKernel, float, double, int32_t, int64_t, bool, uint8_t, int8_t,
                          int16_t>(kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(IndexPutGradInferShape);
  RegisterPlainCpuFloatKernels<IndexPutGradKernel>("index_put_grad");
}

}  // namespace operators
}  // namespace paddle_like

// set_value: assignment to a strided slice, `x[1:3, ::2] = v`, as PaddlePaddle writes it in
// static programs (dynamic-to-static exports are full of it), and its gradient op
// set_value_grad. Out is a new tensor (Input is never written), so a program may name the same
// variable as Input and Out.
#include <algorithm>
#include <complex>
#include <string>
#include <type_traits>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/strided_box.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "set_value";
constexpr char kGradOp[] = "set_value_grad";
const char* const kBoundLists[] = {"StartsTensorList", "EndsTensorList", "StepsTensorList"};

class SetValueAttrsMaker : public OpProtoAndCheckerMaker {
 protected:
  void AddShared() {
    AddInput("StartsTensorList",
             "Optional one-element int32/int64 starts, one per axis; "
             "replaces attribute `starts`.")
        .AsDispensable()
        .AsDuplicable();
    AddInput("EndsTensorList", "Optional one-element int32/int64 ends, one per axis.")
        .AsDispensable()
        .AsDuplicable();
    AddInput("StepsTensorList", "Optional one-element int32/int64 steps, one per axis.")
        .AsDispensable()
        .AsDuplicable();
    AddAttr<int>("dtype", "Element type of Input as a VarType number (informational).")
        .SetDefault(static_cast<int>(DataType::FLOAT32));
    AddAttr<std::vector<int64_t>>("axes", "The sliced axes.").SetDefault({});
    AddAttr<std::vector<int64_t>>("starts", "Start per axis (negative from the end).")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("ends", "End per axis, excluded (negative from the end).")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("steps", "Step per axis (not 0); empty means all 1.")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("decrease_axes",
                                  "Axes indexed by an integer: absent from the value's shape.")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("none_axes",
                                  "Positions of `None` in the index: unit dims of the value.")
        .SetDefault({});
    AddAttr<std::vector<framework::Scalar>>(
        "values", "The value as scalars (PaddlePaddle 3), in row-major order of `shape`.")
        .SetDefault({});
    AddAttr<std::vector<int>>("bool_values", "The value, bool (earlier programs).").SetDefault({});
    AddAttr<std::vector<float>>("fp32_values", "The value, float32 (earlier programs).")
        .SetDefault({});
    AddAttr<std::vector<int>>("int32_values", "The value, int32 (earlier programs).")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("int64_values", "The value, int64 (earlier programs).")
        .SetDefault({});
    AddAttr<std::vector<double>>("fp64_values", "The value, float64 (earlier programs).")
        .SetDefault({});
    AddAttr<std::vector<float>>("fp16_values", "The value, float16 stored as float32.")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("shape", "Shape of the attribute value.").SetDefault({});
  }
};

class SetValueOpMaker : public SetValueAttrsMaker {
 public:
  void Make() override {
    AddInput("Input", "The tensor assigned to.");
    AddInput("ValueTensor", "The value; when absent, the attributes hold it.").AsDispensable();
    AddOutput("Out", "Input with the slice replaced by the value.");
    AddShared();
    AddComment(R"DOC(
Assigns a value to a strided slice of Input: Out is a copy of Input except at the slice,

$$Out[\ldots, first_a + k \, t_a, \ldots] = V[\ldots, k, \ldots]$$

where along each axis a of `axes`, with start s, end e, step t (from the tensor lists when
given, else the attributes) and size n: for t > 0, s and e get n added when negative and are
clamped to [0, n]; for t < 0, s gets n added when negative and is clamped to at most n - 1,
e gets n added when below -1 and is clamped to at least -1 (e = -1 reaches element 0). The
slice has ceil((e - s) / t) elements along a, and runs from first_a = s. A start beyond its
end for the step's direction is an error.

V is the value (ValueTensor, else `values` with `shape`, else the non-empty typed list with
`shape`) broadcast, right-aligned as numpy does, to the slice's shape with the `decrease_axes`
dims removed and a unit dim at each position of `none_axes`. Example: X of shape [3, 4],
axes [1], starts [0], ends [4], steps [2], value 7: columns 0 and 2 become 7.

Gradient (set_value_grad): Input@GRAD is Out@GRAD with the slice zeroed; ValueTensor@GRAD sums
Out@GRAD over the slice down to ValueTensor's shape.
)DOC");
  }
};

class SetValueGradOpMaker : public SetValueAttrsMaker {
 public:
  void Make() override {
    AddInput("Out@GRAD", "Gradient of Out.");
    AddInput("ValueTensor", "The forward op's ValueTensor (its dims).").AsDispensable();
    AddOutput("Input@GRAD", "Out@GRAD with the slice set to 0.").AsDispensable();
    AddOutput("ValueTensor@GRAD", "Out@GRAD over the slice, summed to ValueTensor's shape.")
        .AsDispensable();
    AddShared();
    AddComment(R"DOC(
Gradient of `set_value`:
$$dInput = dOut \cdot [\text{outside the slice}], \quad
  dV[j] = \sum_{k \text{ in the slice}: \ V \text{ broadcast reads } j} dOut[k]$$
)DOC");
  }
};

// The kernel follows the data, not the integer bound tensors.
class SetValueOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "Input");
  }
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot != "StartsTensorList" && slot != "EndsTensorList" && slot != "StepsTensorList" &&
           OperatorWithKernel::CastsInput(slot, from, to);
  }
};

// The slice: per dim of Input its first index, step and count, and the shape the value is
// broadcast to.
struct SetValueBox : StridedBox {
  DDim value_target;
};

SetValueBox ComputeBox(const std::string& op, const DDim& in, const framework::AttributeMap& attrs,
                       std::vector<int64_t> starts, std::vector<int64_t> ends,
                       std::vector<int64_t> steps) {
  const int rank = in.size();
  const auto& axes = std::get<std::vector<int64_t>>(attrs.at("axes"));
  if (steps.empty()) steps.assign(axes.size(), 1);
  PL_ENFORCE(
      starts.size() == axes.size() && ends.size() == axes.size() && steps.size() == axes.size(),
      errors::InvalidArgument("op `%s`: expected as many starts, ends and steps as axes "
                              "(%zu), received %zu, %zu and %zu",
                              op, axes.size(), starts.size(), ends.size(), steps.size()));
  SetValueBox box;
  box.first.assign(static_cast<size_t>(rank), 0);
  box.step.assign(static_cast<size_t>(rank), 1);
  for (int d = 0; d < rank; ++d) box.count.push_back(in[d]);
  for (size_t k = 0; k < axes.size(); ++k) {
    PL_ENFORCE(axes[k] >= 0 && axes[k] < rank,
               errors::InvalidArgument("op `%s` attribute `axes`: expected values in [0, %d) for "
                                       "input `Input` of shape %s, received %lld",
                                       op, rank, in.ToString(), static_cast<long long>(axes[k])));
    const auto d = static_cast<size_t>(axes[k]);
    const int64_t n = in[static_cast<int>(d)], t = steps[k];
    PL_ENFORCE(t != 0, errors::InvalidArgument("op `%s` steps: expected non-zero values, "
                                               "received 0 for axis %zu",
                                               op, d));
    int64_t s = starts[k] < 0 ? starts[k] + n : starts[k];
    int64_t e = t > 0 && ends[k] < 0 ? ends[k] + n : ends[k];
    s = std::max<int64_t>(s, 0);
    e = std::min(e, n);
    if (n == 0) {
      box.count[d] = 0;
      continue;
    }
    if (t > 0) {
      s = std::min(s, n);
      e = std::max<int64_t>(e, 0);
    } else {
      s = std::min(s, n - 1);
      if (e < -1) e += n;
      e = std::max<int64_t>(e, -1);
    }
    PL_ENFORCE((t > 0 && e >= s) || (t < 0 && s >= e),
               errors::InvalidArgument("op `%s` axis %zu: the range from %lld to %lld runs "
                                       "against the step %lld",
                                       op, d, static_cast<long long>(starts[k]),
                                       static_cast<long long>(ends[k]), static_cast<long long>(t)));
    box.first[d] = s;
    box.step[d] = t;
    box.count[d] = t > 0 ? (e - s + t - 1) / t : (s - e - t - 1) / -t;
  }
  const auto& decrease = std::get<std::vector<int64_t>>(attrs.at("decrease_axes"));
  const auto& none = std::get<std::vector<int64_t>>(attrs.at("none_axes"));
  std::vector<bool> dropped(static_cast<size_t>(rank), false);
  for (int64_t a : decrease) {
    PL_ENFORCE(a >= 0 && a < rank && box.count[static_cast<size_t>(a)] == 1,
               errors::InvalidArgument("op `%s` attribute `decrease_axes`: expected axes of "
                                       "size 1 after slicing in [0, %d), received %lld",
                                       op, rank, static_cast<long long>(a)));
    dropped[static_cast<size_t>(a)] = true;
  }
  // PaddlePaddle's order: a None placed before slice axis i comes first, then axis i unless
  // decreased; Nones past the last axis go at the end.
  std::vector<int64_t> target;
  size_t next_none = 0;
  for (int i = 0; i < rank; ++i) {
    while (next_none < none.size() && none[next_none] <= i) {
      target.push_back(1);
      ++next_none;
    }
    if (!dropped[static_cast<size_t>(i)]) target.push_back(box.count[static_cast<size_t>(i)]);
  }
  for (; next_none < none.size(); ++next_none) target.push_back(1);
  box.value_target = DDim(target);
  return box;
}

std::vector<int64_t> BoundsOf(const ExecutionContext& ctx, const char* list, const char* attr) {
  if (ctx.HasInput(list)) return ReadOneElementInts(ctx, list);
  return ctx.Attr<std::vector<int64_t>>(attr);
}

SetValueBox KernelBox(const ExecutionContext& ctx, const DDim& in) {
  return ComputeBox(ctx.Type(), in, ctx.op().Attrs(), BoundsOf(ctx, "StartsTensorList", "starts"),
                    BoundsOf(ctx, "EndsTensorList", "ends"),
                    BoundsOf(ctx, "StepsTensorList", "steps"));
}

// For each element of the slice in row-major order, the offset of the value element that the
// broadcast reads (the slice and value_target list the same elements in the same order).
std::vector<int64_t> ValueOffsets(const std::string& op, const SetValueBox& box,
                                  const DDim& value) {
  const DDim& target = box.value_target;
  const int tr = target.size(), vr = value.size();
  bool fits = vr <= tr || value.numel() == target.numel();
  std::vector<int64_t> vstride(static_cast<size_t>(tr), 0);
  int64_t stride = 1;
  for (int i = 1; i <= vr && fits; ++i) {
    const int64_t v = value[vr - i];
    if (i > tr) {
      fits = v == 1;
      continue;
    }
    const int64_t t = target[tr - i];
    fits = v == t || v == 1;
    vstride[static_cast<size_t>(tr - i)] = v == 1 ? 0 : stride;
    stride *= v;
  }
  PL_ENFORCE(fits, errors::InvalidArgument("op `%s`: the value of shape %s cannot be broadcast "
                                           "to the slice's shape %s",
                                           op, value.ToString(), target.ToString()));
  const int64_t total = target.numel();
  std::vector<int64_t> offsets(static_cast<size_t>(total));
  std::vector<int64_t> index(static_cast<size_t>(tr), 0);
  int64_t off = 0;
  for (int64_t e = 0; e < total; ++e) {
    offsets[static_cast<size_t>(e)] = off;
    for (int d = tr - 1; d >= 0; --d) {
      off += vstride[static_cast<size_t>(d)];
      if (++index[static_cast<size_t>(d)] < target[d]) break;
      off -= vstride[static_cast<size_t>(d)] * target[d];
      index[static_cast<size_t>(d)] = 0;
    }
  }
  return offsets;
}

// The value held in the attributes: `values`, else the first non-empty typed list.
template <typename T>
std::vector<T> AttributeValue(const ExecutionContext& ctx, DDim* dims) {
  const auto& shape = ctx.Attr<std::vector<int64_t>>("shape");
  *dims = DDim(shape);
  std::vector<T> out;
  const auto append = [&out](const auto& list) {
    for (const auto& v : list) out.push_back(ConvertElement<T>(v));
  };
  const char* source = "values";
  if (const auto& s = ctx.Attr<std::vector<framework::Scalar>>("values"); !s.empty()) {
    for (const framework::Scalar& v : s) out.push_back(ScalarAs<T>(v));
  } else {
    const char* float_lists[] = {"fp32_values", "fp16_values"};
    const char* int_lists[] = {"int32_values", "bool_values"};
    for (const char* name : float_lists) {
      if (out.empty() && !ctx.Attr<std::vector<float>>(name).empty()) {
        append(ctx.Attr<std::vector<float>>(name));
        source = name;
      }
    }
    for (const char* name : int_lists) {
      if (out.empty() && !ctx.Attr<std::vector<int>>(name).empty()) {
        append(ctx.Attr<std::vector<int>>(name));
        source = name;
      }
    }
    if (out.empty() && !ctx.Attr<std::vector<int64_t>>("int64_values").empty()) {
      append(ctx.Attr<std::vector<int64_t>>("int64_values"));
      source = "int64_values";
    }
    if (out.empty() && !ctx.Attr<std::vector<double>>("fp64_values").empty()) {
      append(ctx.Attr<std::vector<double>>("fp64_values"));
      source = "fp64_values";
    }
  }
  PL_ENFORCE(!out.empty(), errors::InvalidArgument("op `%s`: no value to assign: expected input "
                                                   "`ValueTensor` or a non-empty value attribute",
                                                   kOp));
  PL_ENFORCE(static_cast<int64_t>(out.size()) == dims->numel(),
             errors::InvalidArgument("op `%s` attribute `%s`: expected %lld values (the product "
                                     "of `shape` %s), received %zu",
                                     kOp, source, static_cast<long long>(dims->numel()),
                                     dims->ToString(), out.size()));
  return out;
}

void SetValueInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", ctx->GetInputDim("Input"));
}

template <typename T>
struct SetValueKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* in = ctx.Input("Input");
    const SetValueBox box = KernelBox(ctx, in->dims());
    DenseTensor attr_value;  // A tensor rather than std::vector, whose bool is packed.
    DDim value_dims;
    const T* value = nullptr;
    if (const DenseTensor* v = ctx.Input("ValueTensor")) {
      value_dims = v->dims();
      value = v->data<T>();
    } else {
      const std::vector<T> values = AttributeValue<T>(ctx, &value_dims);
      attr_value = DenseTensor(value_dims, in->dtype());
      T* p = attr_value.mutable_data<T>(platform::CPUPlace());
      for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
      value = p;
    }
    const std::vector<int64_t> offsets = ValueOffsets(ctx.Type(), box, value_dims);
    DenseTensor fresh(in->dims(), in->dtype());
    T* o = fresh.mutable_data<T>(ctx.GetPlace());
    const T* x = in->data<T>();
    std::copy(x, x + in->numel(), o);
    ForEachInBox(in->dims(), box, [&](int64_t dst, int64_t e) { o[dst] = value[offsets[e]]; });
    *ctx.Output("Out") = std::move(fresh);
  }
};

void SetValueGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Out@GRAD");
  if (ctx->HasOutput("Input@GRAD")) ctx->SetOutputDim("Input@GRAD", ctx->GetInputDim("Out@GRAD"));
  if (ctx->HasOutput("ValueTensor@GRAD")) {
    ctx->RequireInput("ValueTensor");
    ctx->SetOutputDim("ValueTensor@GRAD", ctx->GetInputDim("ValueTensor"));
  }
}

void SetValueGradInferVarType(framework::VarTypeInferenceContext* ctx) {
  for (const char* slot : {"Input@GRAD", "ValueTensor@GRAD"}) {
    if (!ctx->HasOutput(slot)) continue;
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(slot, ctx->GetInputDataType("Out@GRAD"));
  }
}

template <typename T>
struct SetValueGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const SetValueBox box = KernelBox(ctx, dout->dims());
    const T* g = dout->data<T>();
    if (DenseTensor* dv_out = ctx.Output("ValueTensor@GRAD")) {
      const DenseTensor* v = ctx.Input("ValueTensor");
      PL_ENFORCE(v != nullptr, errors::InvalidArgument("op `%s`: output `ValueTensor@GRAD` "
                                                       "needs input `ValueTensor`",
                                                       kGradOp));
      const std::vector<int64_t> offsets = ValueOffsets(kGradOp, box, v->dims());
      DenseTensor dv(v->dims(), dout->dtype());
      T* d = dv.mutable_data<T>(ctx.GetPlace());
      std::fill(d, d + dv.numel(), T(0));
      ForEachInBox(dout->dims(), box, [&](int64_t src, int64_t e) { d[offsets[e]] += g[src]; });
      *dv_out = std::move(dv);
    }
    if (DenseTensor* dx_out = ctx.Output("Input@GRAD")) {
      DenseTensor dx(dout->dims(), dout->dtype());
      T* d = dx.mutable_data<T>(ctx.GetPlace());
      std::copy(g, g + dout->numel(), d);
      ForEachInBox(dout->dims(), box, [&](int64_t dst, int64_t) { d[dst] = T(0); });
      *dx_out = std::move(dx);
    }
  }
};

void SetValueGradMaker(framework::GradOpBuilder* g) {
  const bool has_value = g->HasInput("ValueTensor");
  if (!g->WantsInputGrad("Input") && !(has_value && g->WantsInputGrad("ValueTensor"))) return;
  framework::VariableNameMap inputs = {{"Out@GRAD", g->OutputGrad("Out")}};
  framework::VariableNameMap outputs = {{"Input@GRAD", g->InputGrad("Input")}};
  if (has_value) {
    inputs["ValueTensor"] = g->Input("ValueTensor");
    outputs["ValueTensor@GRAD"] = g->InputGrad("ValueTensor");
  }
  for (const char* slot : kBoundLists) {
    if (g->HasInput(slot)) inputs[slot] = g->Input(slot);
  }
  g->AddOp(kGradOp, inputs, outputs, g->Attrs());
}

}  // namespace

PL_REGISTER_OPS(RegisterSetValueOp) {
  framework::RegisterOp<SetValueOp, SetValueOpMaker>(kOp)
      .InferShape(SetValueInferShape)
      .InferVarType(OutputDataTypeOf("Input", "Out"))
      .GradOpMaker(SetValueGradMaker)
      .Checkpoint("tensor lists for starts, ends and steps; attribute steps",
                  framework::OpVersionDesc()
                      .NewInput("StartsTensorList", "starts as one-element tensors")
                      .NewInput("EndsTensorList", "ends as one-element tensors")
                      .NewInput("StepsTensorList", "steps as one-element tensors")
                      .NewAttr("steps", "step per axis", std::vector<int64_t>{}))
      .Checkpoint("attribute decrease_axes",
                  framework::OpVersionDesc().NewAttr("decrease_axes", "axes indexed by an integer",
                                                     std::vector<int64_t>{}))
      .Checkpoint("attribute none_axes",
                  framework::OpVersionDesc().NewAttr("none_axes", "positions of None",
                                                     std::vector<int64_t>{}))
      .Checkpoint("PaddlePaddle 3: the value as scalars in `values`",
                  framework::OpVersionDesc().NewAttr(
                      "values", "the value as scalars; the typed lists stay for earlier programs",
                      std::vector<framework::Scalar>{}));
  RegisterPlainCpuKernels<SetValueKernel, float, double, int32_t, int64_t, bool,
                          std::complex<float>, std::complex<double>>(kOp);
  framework::RegisterOp<SetValueOp, SetValueGradOpMaker>(kGradOp)
      .InferShape(SetValueGradInferShape)
      .InferVarType(SetValueGradInferVarType);
  RegisterPlainCpuKernels<SetValueGradKernel, float, double, std::complex<float>,
                          std::complex<double>>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like

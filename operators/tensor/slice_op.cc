// slice: a box of the input given per axis by [start, end) (clamped like Python), and
// slice_grad, which zero-pads the gradient back to the input's dims.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/copy_box.h"
#include "operators/tensor/slice_like_grad.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "slice";
constexpr char kGradOp[] = "slice_grad";
const char* const kTensorSlots[] = {"StartsTensor", "EndsTensor", "StartsTensorList",
                                    "EndsTensorList"};
const char* const kAttrNames[] = {"axes", "starts", "ends", "infer_flags", "decrease_axis"};

// Declares the attributes and the optional start/end inputs slice and slice_grad share.
class SliceAttrsMaker : public OpProtoAndCheckerMaker {
 protected:
  void AddShared() {
    AddInput("StartsTensor", "Optional 1-D int32/int64 tensor of starts; overrides the rest.")
        .AsDispensable();
    AddInput("EndsTensor", "Optional 1-D int32/int64 tensor of ends; overrides the rest.")
        .AsDispensable();
    AddInput("StartsTensorList",
             "Optional list of 1-element int32/int64 tensors, one start per axis; overrides "
             "`starts`.")
        .AsDuplicable()
        .AsDispensable();
    AddInput("EndsTensorList",
             "Optional list of 1-element int32/int64 tensors, one end per axis; overrides `ends`.")
        .AsDuplicable()
        .AsDispensable();
    AddAttr<std::vector<int>>("axes", "The sliced dims (distinct; negative counts from the end).");
    AddAttr<std::vector<int>>("starts",
                              "Start of each sliced dim; negative counts from the end, then "
                              "clamped to [0, dim].")
        .SetDefault({});
    AddAttr<std::vector<int>>("ends",
                              "End (exclusive) of each sliced dim; negative counts from the "
                              "end, then clamped to [start, dim].")
        .SetDefault({});
    AddAttr<std::vector<int>>("infer_flags",
                              "Per axis, -1 when the start/end comes from a tensor (accepted "
                              "for compatibility).")
        .SetDefault({});
    AddAttr<std::vector<int>>("decrease_axis",
                              "Sliced dims of size 1 removed from Out (all removed: 0-D).")
        .SetDefault({});
  }
};

class SliceOpMaker : public SliceAttrsMaker {
 public:
  void Make() override {
    AddInput("Input", "Tensor to slice.");
    AddOutput("Out", "The slice.");
    AddShared();
    AddComment(R"DOC(
Slice operator.

$$Out = Input[\ldots, s_k : e_k, \ldots] \quad \text{for each } k \in axes$$

with s = starts, e = ends taken from StartsTensor/EndsTensor, else the tensor lists, else
the attributes. Like Python slicing, a negative value counts from the end (adds the dim),
then s is clamped to [0, dim] and e to [s, dim], so out-of-range bounds give a shorter or
empty slice instead of an error. Dims in decrease_axis (each of size 1 after slicing) are
removed. Example: Input of shape [3, 4], axes = [1], starts = [1], ends = [100] -> shape
[3, 3]; starts = [-1], ends = [4], decrease_axis = [1] -> shape [3].

Gradient, by slice_grad (reads Input's dims and Out@GRAD; differentiable again, its gradient
is a slice): $$dInput = 0 \text{ except } dInput[\ldots, s_k : e_k, \ldots] = dOut$$
)DOC");
  }
};

class SliceGradOpMaker : public SliceAttrsMaker {
 public:
  void Make() override {
    AddInput("Input", "The forward op's Input (only its dims are read).").AsNoNeedBuffer();
    AddInput("Out@GRAD", "Gradient of the forward op's Out.");
    AddOutput("Input@GRAD", "Gradient of Input: zeros with Out@GRAD in the sliced box.");
    AddShared();
    AddComment(R"DOC(
Gradient of slice: $$dInput = 0 \text{ except } dInput[\ldots, s_k : e_k, \ldots] = dOut$$
Its gradient is slice of the gradient of Input@GRAD with the same bounds.
)DOC");
  }
};

void SliceTensorArray(const framework::OperatorBase& op, const framework::Scope& scope,
                      const platform::Place& place);

// The kernel follows the data (Input or Out@GRAD), not the integer bound tensors. An Input
// declared as a tensor array is sliced by the op itself (SliceTensorArray), not by a kernel.
class SliceOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  bool HasKernels() const override { return !SlicesArray(); }
  bool SlicesArray() const {
    const framework::BlockDesc* block = Block();
    if (block == nullptr || !HasInput("Input")) return false;
    const framework::VarDesc* v = block->FindVarRecursive(Input("Input"));
    return v != nullptr && v->GetKind() == framework::VarKind::kDenseTensorArray;
  }
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    const char* slot = ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "Input";
    return InputDataType(ctx, slot);
  }
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return (slot == "Input" || slot == "Out@GRAD") &&
           OperatorWithKernel::CastsInput(slot, from, to);
  }

 protected:
  void RunImpl(const framework::Scope& scope, const platform::Place& place) const override {
    if (SlicesArray()) {
      SliceTensorArray(*this, scope, place);
    } else {
      OperatorWithKernel::RunImpl(scope, place);
    }
  }
};

// Where the slice lies in the input, and Out's dims.
struct SliceBox {
  BoxGeometry geometry;
  DDim out;
};

std::vector<int64_t> ToLong(const std::vector<int>& v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

// `bounds_known` is false at build time when starts/ends come from tensors: the sliced dims
// are then unknown.
SliceBox ComputeSlice(const std::string& op, const DDim& in, const std::vector<int>& axes_attr,
                      const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                      const std::vector<int>& decrease_attr, bool bounds_known) {
  const int rank = in.size();
  std::vector<int> axes;
  for (int a : axes_attr) {
    PL_ENFORCE(a >= -rank && a < rank,
               errors::InvalidArgument("op `%s` attribute `axes`: expected values in [%d, %d) for "
                                       "input `Input` of shape %s, received %s",
                                       op, -rank, rank, in.ToString(), ListToString(axes_attr)));
    const int n = a < 0 ? a + rank : a;
    PL_ENFORCE(std::find(axes.begin(), axes.end(), n) == axes.end(),
               errors::InvalidArgument("op `%s` attribute `axes`: expected distinct dims, "
                                       "received %s",
                                       op, ListToString(axes_attr)));
    axes.push_back(n);
  }
  if (bounds_known) {
    PL_ENFORCE(starts.size() == axes.size() && ends.size() == axes.size(),
               errors::InvalidArgument("op `%s` attributes `starts`/`ends`: expected %zu values "
                                       "each (one per axis), received starts %s and ends %s",
                                       op, axes.size(), ListToString(starts), ListToString(ends)));
  }
  SliceBox s;
  s.geometry.big = in.ToVector();
  s.geometry.box = in.ToVector();
  s.geometry.offset.assign(static_cast<size_t>(rank), 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    const int a = axes[k];
    const int64_t dim = in[a];
    if (!bounds_known || dim < 0) {
      s.geometry.box[a] = -1;
      continue;
    }
    int64_t start = starts[k] < 0 ? starts[k] + dim : starts[k];
    int64_t end = ends[k] < 0 ? ends[k] + dim : ends[k];
    start = std::min(std::max<int64_t>(start, 0), dim);
    end = std::min(std::max(end, start), dim);
    s.geometry.offset[a] = start;
    s.geometry.box[a] = end - start;
  }
  std::vector<bool> drop(static_cast<size_t>(rank), false);
  for (int d : decrease_attr) {
    const int n = d < 0 ? d + rank : d;
    PL_ENFORCE(n >= 0 && n < rank && std::find(axes.begin(), axes.end(), n) != axes.end(),
               errors::InvalidArgument("op `%s` attribute `decrease_axis`: expected sliced dims "
                                       "(axes %s), received %s",
                                       op, ListToString(axes_attr), ListToString(decrease_attr)));
    const int64_t size = s.geometry.box[n];
    PL_ENFORCE(size == 1 || size == -1,
               errors::InvalidArgument("op `%s` attribute `decrease_axis`: dim %d has size %lld "
                                       "after slicing, expected 1",
                                       op, n, static_cast<long long>(size)));
    drop[n] = true;
  }
  std::vector<int64_t> out;
  for (int i = 0; i < rank; ++i) {
    if (!drop[i]) out.push_back(s.geometry.box[i]);
  }
  s.out = DDim(out);
  return s;
}

bool HasTensorBounds(const InferShapeContext& ctx) {
  for (const char* slot : kTensorSlots) {
    if (ctx.HasInput(slot)) return true;
  }
  return false;
}

// Starts or ends from the tensor, the tensor list, or the attribute.
std::vector<int64_t> KernelBounds(const ExecutionContext& ctx, const char* which) {
  const std::string name(which);  // "Starts" or "Ends"
  if (const DenseTensor* t = ctx.Input(name + "Tensor")) {
    return ReadIntValues(*t, ctx.Type(), name + "Tensor");
  }
  if (ctx.HasInput(name + "TensorList")) {
    return ReadOneElementInts(ctx, name + "TensorList");
  }
  return ToLong(ctx.Attr<std::vector<int>>(name == "Starts" ? "starts" : "ends"));
}

SliceBox KernelSlice(const ExecutionContext& ctx, const DDim& in) {
  return ComputeSlice(ctx.Type(), in, ctx.Attr<std::vector<int>>("axes"),
                      KernelBounds(ctx, "Starts"), KernelBounds(ctx, "Ends"),
                      ctx.Attr<std::vector<int>>("decrease_axis"), true);
}

SliceBox InferSlice(InferShapeContext* ctx, const DDim& in) {
  const bool known = !HasTensorBounds(*ctx);
  return ComputeSlice(ctx->OpType(), in, ctx->Attr<std::vector<int>>("axes"),
                      ToLong(ctx->Attr<std::vector<int>>("starts")),
                      ToLong(ctx->Attr<std::vector<int>>("ends")),
                      ctx->Attr<std::vector<int>>("decrease_axis"), known);
}

// The one start or end of a slice of a tensor array: from the tensor, the tensor list or
// the attribute, read from `scope`.
int64_t ArrayBound(const framework::OperatorBase& op, const framework::Scope& scope,
                   const std::string& which) {
  std::vector<int64_t> values;
  const std::string attr = which == "Starts" ? "starts" : "ends";
  for (const std::string& slot : {which + "Tensor", which + "TensorList"}) {
    if (!op.HasInput(slot)) continue;
    for (const std::string& name : op.InputNames(slot)) {
      const framework::Variable* v = scope.FindVar(name);
      const DenseTensor* t = v != nullptr ? v->GetIf<DenseTensor>() : nullptr;
      PL_ENFORCE(t != nullptr && t->initialized(),
                 errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected an int "
                                         "tensor with a value",
                                         op.Type(), slot, name));
      const std::vector<int64_t> got = ReadIntValues(*t, op.Type(), slot);
      values.insert(values.end(), got.begin(), got.end());
    }
    break;
  }
  if (values.empty()) values = ToLong(op.Attr<std::vector<int>>(attr));
  PL_ENFORCE(values.size() == 1,
             errors::InvalidArgument("op `%s` %s: expected one value when slicing a tensor array "
                                     "(input `Input` %s), received %s",
                                     op.Type(), attr, op.Input("Input"), ListToString(values)));
  return values[0];
}

// PaddlePaddle's slice of a tensor array: elements [start, end) of the array (negative bounds
// count from its length), as an array, or the element at start as a tensor when Out is
// declared a tensor.
void SliceTensorArray(const framework::OperatorBase& op, const framework::Scope& scope,
                      const platform::Place& place) {
  static const framework::DenseTensorArray kEmpty;
  const std::string in_name = op.Input("Input");
  const framework::Variable* in = scope.FindVar(in_name);
  PL_ENFORCE(in != nullptr, errors::NotFound("op `%s` input `Input`: variable `%s` not found",
                                             op.Type(), in_name));
  const framework::DenseTensorArray* array = in->IsInitialized() ? in->GetIf<framework::DenseTensorArray>() : &kEmpty;
  PL_ENFORCE(array != nullptr,
             errors::InvalidArgument("op `%s` input `Input` (variable `%s`): declared a tensor "
                                     "array, holds %s",
                                     op.Type(), in_name, framework::HeldTypeName(*in)));
  const auto n = static_cast<int64_t>(array->size());
  const int64_t first = ArrayBound(op, scope, "Starts"), last = ArrayBound(op, scope, "Ends");
  const int64_t start = std::max<int64_t>(first < 0 ? first + n : first, 0);
  int64_t end = std::min(std::max<int64_t>(last < 0 ? last + n : last, 0), n);
  if (first == -1 && end == 0) end = start + 1;  // [-1:0] means the last element.
  PL_ENFORCE(end > start && start < n,
             errors::InvalidArgument("op `%s` input `Input` (variable `%s`): slice [%lld, %lld) "
                                     "of a tensor array of %lld elements is empty",
                                     op.Type(), in_name, static_cast<long long>(first),
                                     static_cast<long long>(last), static_cast<long long>(n)));
  const std::string out_name = op.Output("Out");
  framework::Variable* out = scope.FindVar(out_name);
  PL_ENFORCE(out != nullptr, errors::NotFound("op `%s` output `Out`: variable `%s` not found",
                                              op.Type(), out_name));
  const framework::VarDesc* out_desc =
      op.Block() != nullptr ? op.Block()->FindVarRecursive(out_name) : nullptr;
  if (out_desc != nullptr && out_desc->GetKind() == framework::VarKind::kDenseTensorArray) {
    framework::DenseTensorArray picked(static_cast<size_t>(end - start));
    for (int64_t i = start; i < end; ++i) {
      if ((*array)[i].initialized()) framework::CopyTensor((*array)[i], place, &picked[i - start]);
      picked[i - start].set_lod((*array)[i].lod());
    }
    *out->GetMutable<framework::DenseTensorArray>() = std::move(picked);
    return;
  }
  const DenseTensor& element = (*array)[start];
  PL_ENFORCE(element.initialized(),
             errors::InvalidArgument("op `%s` input `Input` (variable `%s`): element %lld of the "
                                     "tensor array holds no value",
                                     op.Type(), in_name, static_cast<long long>(start)));
  DenseTensor copy;
  framework::CopyTensor(element, place, &copy);
  copy.set_lod(element.lod());
  *out->GetMutable<DenseTensor>() = std::move(copy);
}

void SliceInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireOutput("Out");
  if (ctx->IsRuntime() && HasTensorBounds(*ctx)) return;  // The kernel reads the bounds.
  const DDim in = ctx->GetInputDim("Input");
  const SliceBox s = InferSlice(ctx, in);
  ctx->SetOutputDim("Out", s.out);
  if (s.out.size() > 0 && in.size() > 0 && s.out[0] == in[0] && s.out[0] >= 0) {
    ctx->ShareLoD("Input", "Out");
  }
}

void SliceInferVarType(framework::VarTypeInferenceContext* ctx) {
  // A slice of a tensor array is an array, or one of its tensors with decrease_axis.
  const bool array = ctx->HasInput("Input") &&
                     ctx->GetInputKind("Input") == framework::VarKind::kDenseTensorArray &&
                     ctx->Attr<std::vector<int>>("decrease_axis").empty();
  ctx->SetOutputKind("Out", array ? framework::VarKind::kDenseTensorArray
                                  : framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("Input"));
}

template <typename T>
struct SliceKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* in = ctx.Input("Input");
    const SliceBox s = KernelSlice(ctx, in->dims());
    DenseTensor fresh(s.out, in->dtype());
    CopyBox(ctx.GetPlace(), s.geometry, in->data<T>(), fresh.mutable_data<T>(ctx.GetPlace()),
            false);
    if (s.out.size() > 0 && in->dims().size() > 0 && s.out[0] == in->dims()[0]) {
      fresh.set_lod(in->lod());
    }
    *ctx.Output("Out") = std::move(fresh);
  }
};

// ---- slice_grad ----

void SliceGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("Input@GRAD");
  const DDim in = ctx->GetInputDim("Input");
  if (!HasTensorBounds(*ctx)) {
    const DDim want = InferSlice(ctx, in).out;
    const DDim dout = ctx->GetInputDim("Out@GRAD");
    PL_ENFORCE(want.HasUnknown() || dout.HasUnknown() || want == dout,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx->OpType(), want.ToString(), dout.ToString()));
  }
  ctx->SetOutputDim("Input@GRAD", in);
  ctx->ShareLoD("Input", "Input@GRAD");
}

void SliceGradInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Input@GRAD", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Input@GRAD", ctx->GetInputDataType("Out@GRAD"));
}

template <typename T>
struct SliceGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* in = ctx.Input("Input");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const SliceBox s = KernelSlice(ctx, in->dims());
    PL_ENFORCE(dout->dims() == s.out,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       kGradOp, s.out.ToString(), dout->dims().ToString()));
    DenseTensor fresh(in->dims(), dout->dtype());
    T* dx = fresh.mutable_data<T>(ctx.GetPlace());
    platform::SetZero(ctx.GetPlace(), dx, sizeof(T) * fresh.numel());
    CopyBox(ctx.GetPlace(), s.geometry, dout->data<T>(), dx, true);
    fresh.set_lod(in->lod());
    *ctx.Output("Input@GRAD") = std::move(fresh);
  }
};

void SliceGradMaker(framework::GradOpBuilder* g) {
  SliceLikeGradMaker(g, kGradOp, kTensorSlots, kAttrNames);
}

// slice_grad is linear in Out@GRAD: its gradient slices the gradient of Input@GRAD.
void SliceGradGradMaker(framework::GradOpBuilder* g) {
  SliceLikeGradGradMaker(g, kOp, kTensorSlots, kAttrNames);
}

}  // namespace

PL_REGISTER_OPS(RegisterSliceOp) {
  framework::RegisterOp<SliceOp, SliceOpMaker>(kOp)
      .InferShape(SliceInferShape)
      .InferVarType(SliceInferVarType)
      .GradOpMaker(SliceGradMaker);
  RegisterPlainElementKernelsOnEveryDevice<SliceKernel>(kOp);
  framework::RegisterOp<SliceOp, SliceGradOpMaker>(kGradOp)
      .InferShape(SliceGradInferShape)
      .InferVarType(SliceGradInferVarType)
      .GradOpMaker(SliceGradGradMaker);
  RegisterPlainKernelsOnEveryDevice<SliceGradKernel, float, double, std::complex<float>,
                                    std::complex<double>>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like

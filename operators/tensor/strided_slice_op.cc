// strided_slice: Python's x[start:end:stride] along chosen axes (what PaddlePaddle writes for
// slicing with a step), and its gradient op strided_slice_grad, which scatters Out@GRAD into
// zeros and is differentiable again (its gradient is strided_slice).
#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/slice_like_grad.h"
#include "operators/tensor/strided_box.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "strided_slice";
constexpr char kGradOp[] = "strided_slice_grad";
const char* const kTensorSlots[] = {"StartsTensor",   "StartsTensorList", "EndsTensor",
                                    "EndsTensorList", "StridesTensor",    "StridesTensorList"};
const char* const kAttrNames[] = {"axes",    "starts",      "ends",
                                  "strides", "infer_flags", "decrease_axis"};

class StridedSliceAttrsMaker : public OpProtoAndCheckerMaker {
 protected:
  void AddShared() {
    AddInput("StartsTensor", "Optional 1-D int32/int64 starts, before the list and attribute.")
        .AsDispensable();
    AddInput("StartsTensorList", "Optional one-element int32/int64 starts, one per axis.")
        .AsDispensable()
        .AsDuplicable();
    AddInput("EndsTensor", "Optional 1-D int32/int64 ends.").AsDispensable();
    AddInput("EndsTensorList", "Optional one-element int32/int64 ends, one per axis.")
        .AsDispensable()
        .AsDuplicable();
    AddInput("StridesTensor", "Optional 1-D int32/int64 strides.").AsDispensable();
    AddInput("StridesTensorList", "Optional one-element int32/int64 strides, one per axis.")
        .AsDispensable()
        .AsDuplicable();
    AddAttr<std::vector<int>>("axes", "The sliced axes (negative from the end).").SetDefault({});
    AddAttr<std::vector<int>>("starts", "Start per axis (negative from the end).").SetDefault({});
    AddAttr<std::vector<int>>("ends", "End per axis, excluded (negative from the end).")
        .SetDefault({});
    AddAttr<std::vector<int>>("strides", "Step per axis, not 0; negative walks backwards.")
        .SetDefault({});
    AddAttr<std::vector<int>>("infer_flags",
                              "-1 where a bound is only known at run time (build-time shapes).")
        .SetDefault({});
    AddAttr<std::vector<int>>("decrease_axis", "Axes (of size 1 after slicing) to drop.")
        .SetDefault({});
  }
};

class StridedSliceOpMaker : public StridedSliceAttrsMaker {
 public:
  void Make() override {
    AddInput("Input", "The tensor to slice.");
    AddOutput("Out", "The slice.");
    AddShared();
    AddComment(R"DOC(
Strided slice operator: along each axis a of `axes`, with its start s, end e and stride t
(from the tensor inputs when given, else from the list inputs, else from the attributes) and
size n, after s += n where s < 0 and e += n where e < 0 (so e = -1 is the last element, as
in PaddlePaddle; a reversed slice to the first element ends below -n, e.g. at INT_MIN as
PaddlePaddle writes x[::-1]):

$$Out[\ldots, k, \ldots] = Input[\ldots, first + k \, t, \ldots], \quad 0 \le k < count$$

For t > 0: first = max(s, 0), the indices stay below min(e, n). For t < 0: first =
min(s, n - 1), the indices stay above max(e, -1). An empty range gives a dim of 0; a range
running the wrong way for its stride (s > e for t > 0, s < e for t < 0) is an error, as in
PaddlePaddle. Dims in decrease_axis (each of size 1 after slicing) are dropped.

Gradient (strided_slice_grad): Input@GRAD is zero except at the sliced elements, which
receive Out@GRAD; its own gradient is the strided slice of the gradient of Input@GRAD.
)DOC");
  }
};

class StridedSliceGradOpMaker : public StridedSliceAttrsMaker {
 public:
  void Make() override {
    AddInput("Input", "The forward op's Input (only its dims are read).");
    AddInput("Out@GRAD", "Gradient of the slice.");
    AddOutput("Input@GRAD", "Gradient of Input: Out@GRAD at the sliced elements, 0 elsewhere.");
    AddShared();
    AddComment(R"DOC(
Gradient of `strided_slice`: $$dInput[\ldots, first + k \, t, \ldots] = dOut[\ldots, k, \ldots]$$
and 0 at the elements the slice skips. Linear in Out@GRAD; its gradient is `strided_slice`.
)DOC");
  }
};

// The kernel follows the data (Input or Out@GRAD), not the integer bound tensors.
class StridedSliceOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    const char* slot = ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "Input";
    return InputDataType(ctx, slot);
  }
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return (slot == "Input" || slot == "Out@GRAD") &&
           OperatorWithKernel::CastsInput(slot, from, to);
  }
};

// Per dim of Input: the first index, the step and the count the slice takes.
struct StridedSliceBox : StridedBox {
  DDim out;  // count with decrease_axis dropped.
};

std::vector<int64_t> ToLong(const std::vector<int>& v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

// `bounds_known` false: the values come from tensors at run time, the sliced dims are -1.
StridedSliceBox ComputeStridedSlice(const std::string& op, const DDim& in,
                                    const std::vector<int>& axes_attr,
                                    const std::vector<int64_t>& starts,
                                    const std::vector<int64_t>& ends,
                                    const std::vector<int64_t>& strides,
                                    const std::vector<int>& decrease_attr, bool bounds_known) {
  const int rank = in.size();
  std::vector<int> axes;
  for (int a : axes_attr) {
    PL_ENFORCE(a >= -rank && a < rank,
               errors::InvalidArgument("op `%s` attribute `axes`: expected values in [%d, %d) "
                                       "for input `Input` of shape %s, received %d",
                                       op, -rank, rank, in.ToString(), a));
    axes.push_back(a < 0 ? a + rank : a);
  }
  StridedSliceBox box;
  for (int d = 0; d < rank; ++d) {
    box.first.push_back(0);
    box.step.push_back(1);
    box.count.push_back(in[d]);
  }
  if (bounds_known) {
    PL_ENFORCE(
        starts.size() == axes.size() && ends.size() == axes.size() && strides.size() == axes.size(),
        errors::InvalidArgument("op `%s`: expected as many starts, ends and strides as "
                                "axes (%zu), received %zu, %zu and %zu",
                                op, axes.size(), starts.size(), ends.size(), strides.size()));
  }
  for (size_t k = 0; k < axes.size(); ++k) {
    const int d = axes[k];
    const int64_t n = in[d];
    if (!bounds_known || n < 0) {
      box.count[d] = -1;
      continue;
    }
    const int64_t t = strides[k];
    PL_ENFORCE(t != 0, errors::InvalidArgument("op `%s` strides: expected non-zero values, "
                                               "received 0 for axis %d",
                                               op, d));
    int64_t s = starts[k], e = ends[k];
    if (s < 0) s += n;
    if (e < 0) e += n;
    PL_ENFORCE(!(t > 0 && s > e) && !(t < 0 && s < e),
               errors::InvalidArgument("op `%s` axis %d: the range from %s to %s runs against "
                                       "the stride %s",
                                       op, d, std::to_string(starts[k]), std::to_string(ends[k]),
                                       std::to_string(t)));
    if (t > 0) {
      const int64_t lo = std::max<int64_t>(s, 0), hi = std::min(e, n);
      box.first[d] = lo;
      box.count[d] = hi > lo ? (hi - lo + t - 1) / t : 0;
    } else {
      const int64_t hi = std::min(s, n - 1), lo = std::max<int64_t>(e, -1);
      box.first[d] = hi;
      box.count[d] = hi > lo ? (hi - lo - t - 1) / -t : 0;
    }
    box.step[d] = t;
  }
  std::vector<bool> dropped(static_cast<size_t>(rank), false);
  for (int d : decrease_attr) {
    PL_ENFORCE(d >= -rank && d < rank,
               errors::InvalidArgument("op `%s` attribute `decrease_axis`: expected values in "
                                       "[%d, %d), received %d",
                                       op, -rank, rank, d));
    const int a = d < 0 ? d + rank : d;
    PL_ENFORCE(box.count[a] == 1 || box.count[a] < 0,
               errors::InvalidArgument("op `%s` attribute `decrease_axis`: axis %d has size %s "
                                       "after slicing, expected 1",
                                       op, a, std::to_string(box.count[a])));
    dropped[a] = true;
  }
  std::vector<int64_t> out;
  for (int d = 0; d < rank; ++d) {
    if (!dropped[d]) out.push_back(box.count[d]);
  }
  box.out = DDim(out);
  return box;
}

bool HasTensorBounds(const InferShapeContext& ctx) {
  for (const char* slot : kTensorSlots) {
    if (ctx.HasInput(slot)) return true;
  }
  return false;
}

const char* AttrOf(const std::string& name) {
  return name == "Starts" ? "starts" : (name == "Ends" ? "ends" : "strides");
}

// Starts, ends or strides from the tensor, the tensor list, or the attribute.
std::vector<int64_t> KernelValues(const ExecutionContext& ctx, const std::string& name) {
  if (const DenseTensor* t = ctx.Input(name + "Tensor")) {
    return ReadIntValues(*t, ctx.Type(), name + "Tensor");
  }
  if (ctx.HasInput(name + "TensorList")) {
    return ReadOneElementInts(ctx, name + "TensorList");
  }
  return ToLong(ctx.Attr<std::vector<int>>(AttrOf(name)));
}

StridedSliceBox KernelBox(const ExecutionContext& ctx, const DDim& in) {
  return ComputeStridedSlice(ctx.Type(), in, ctx.Attr<std::vector<int>>("axes"),
                             KernelValues(ctx, "Starts"), KernelValues(ctx, "Ends"),
                             KernelValues(ctx, "Strides"),
                             ctx.Attr<std::vector<int>>("decrease_axis"), true);
}

StridedSliceBox InferBox(InferShapeContext* ctx, const DDim& in) {
  return ComputeStridedSlice(ctx->OpType(), in, ctx->Attr<std::vector<int>>("axes"),
                             ToLong(ctx->Attr<std::vector<int>>("starts")),
                             ToLong(ctx->Attr<std::vector<int>>("ends")),
                             ToLong(ctx->Attr<std::vector<int>>("strides")),
                             ctx->Attr<std::vector<int>>("decrease_axis"), !HasTensorBounds(*ctx));
}

void StridedSliceInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireOutput("Out");
  if (ctx->IsRuntime() && HasTensorBounds(*ctx)) return;  // The kernel reads the bounds.
  ctx->SetOutputDim("Out", InferBox(ctx, ctx->GetInputDim("Input")).out);
}

void StridedSliceInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("Input"));
}

template <typename T>
struct StridedSliceKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* in = ctx.Input("Input");
    const StridedSliceBox box = KernelBox(ctx, in->dims());
    DenseTensor fresh(box.out, in->dtype());
    T* o = fresh.mutable_data<T>(ctx.GetPlace());
    const T* x = in->data<T>();
    ForEachInBox(in->dims(), box, [&](int64_t src, int64_t dst) { o[dst] = x[src]; });
    *ctx.Output("Out") = std::move(fresh);
  }
};

void StridedSliceGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("Input@GRAD");
  const DDim in = ctx->GetInputDim("Input");
  if (!HasTensorBounds(*ctx)) {
    const DDim want = InferBox(ctx, in).out;
    const DDim dout = ctx->GetInputDim("Out@GRAD");
    PL_ENFORCE(want.HasUnknown() || dout.HasUnknown() || want == dout,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx->OpType(), want.ToString(), dout.ToString()));
  }
  ctx->SetOutputDim("Input@GRAD", in);
}

void StridedSliceGradInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Input@GRAD", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Input@GRAD", ctx->GetInputDataType("Out@GRAD"));
}

template <typename T>
struct StridedSliceGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* in = ctx.Input("Input");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const StridedSliceBox box = KernelBox(ctx, in->dims());
    PL_ENFORCE(dout->dims() == box.out,
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       kGradOp, box.out.ToString(), dout->dims().ToString()));
    DenseTensor fresh(in->dims(), dout->dtype());
    T* dx = fresh.mutable_data<T>(ctx.GetPlace());
    std::fill(dx, dx + fresh.numel(), T(0));
    const T* g = dout->data<T>();
    ForEachInBox(in->dims(), box, [&](int64_t src, int64_t dst) { dx[src] = g[dst]; });
    *ctx.Output("Input@GRAD") = std::move(fresh);
  }
};

void StridedSliceGradMaker(framework::GradOpBuilder* g) {
  SliceLikeGradMaker(g, kGradOp, kTensorSlots, kAttrNames);
}

// strided_slice_grad is linear in Out@GRAD: its gradient slices the gradient of Input@GRAD.
void StridedSliceGradGradMaker(framework::GradOpBuilder* g) {
  SliceLikeGradGradMaker(g, kOp, kTensorSlots, kAttrNames);
}

}  // namespace

PL_REGISTER_OPS(RegisterStridedSliceOp) {
  framework::RegisterOp<StridedSliceOp, StridedSliceOpMaker>(kOp)
      .InferShape(StridedSliceInferShape)
      .InferVarType(StridedSliceInferVarType)
      .GradOpMaker(StridedSliceGradMaker);
  RegisterPlainCpuElementKernels<StridedSliceKernel>(kOp);
  framework::RegisterOp<StridedSliceOp, StridedSliceGradOpMaker>(kGradOp)
      .InferShape(StridedSliceGradInferShape)
      .InferVarType(StridedSliceGradInferVarType)
      .GradOpMaker(StridedSliceGradGradMaker);
  RegisterPlainCpuKernels<StridedSliceGradKernel, float, double, std::complex<float>,
                          std::complex<double>>(kGradOp);
}

}  // namespace operators
}  // namespace paddle_like

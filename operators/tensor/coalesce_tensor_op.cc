// coalesce_tensor: lays several tensors out back to back in one buffer and makes them views
// of it, so that one op (an all-reduce of gradients) can work on all of them at once.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "operators/common.h"
#include "operators/op_family.h"
#include "platform/enforce.h"
#include "platform/float16.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr size_t kDefaultAlignBytes = 256;

class CoalesceTensorOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "The tensors to lay out together (all of dtype `dtype`).")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("Output", "Views of FusedOutput, one per Input, with Input's dims (usually the "
                        "same variables as Input).")
        .AsDuplicable();
    AddOutput("FusedOutput", "The buffer: a 1-D tensor holding every Output in turn.");
    AddAttr<int>("dtype", "Element type of every tensor, as a VarType number.");
    AddAttr<bool>("copy_data", "Copy each Input's data into its place in FusedOutput.")
        .SetDefault(false);
    AddAttr<bool>("set_constant", "Fill FusedOutput with `constant`.").SetDefault(false);
    AddAttr<bool>("persist_output", "Kept for PaddlePaddle's programs; no effect here.")
        .SetDefault(false);
    AddAttr<float>("constant", "The value set_constant fills with.").SetDefault(0.0f);
    AddAttr<bool>("use_align", "Start every tensor at a multiple of the alignment.")
        .SetDefault(true);
    AddAttr<int>("align_size", "The alignment in bytes (<= 0: 256).").SetDefault(-1);
    AddAttr<int>("user_defined_size_of_dtype",
                 "Element size in bytes used for the layout (<= 0: the dtype's).")
        .SetDefault(-1);
    AddAttr<std::vector<int64_t>>("concated_shapes",
                                  "Without Input: the dims of every Output, one after another.")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("concated_ranks",
                                  "Without Input: the rank of every Output.")
        .SetDefault({});
    AddComment(R"DOC(
CoalesceTensor operator.

$$offset_0 = 0, \quad offset_{i+1} = \mathrm{align}(offset_i + |X_i|), \quad
FusedOutput[offset_i : offset_i + |X_i|] = X_i, \quad Output_i = \mathrm{view}(FusedOutput, offset_i)$$

where |X_i| is the byte size of tensor i and align rounds up to a multiple of the alignment
(256 bytes unless align_size says otherwise; 1 without use_align). FusedOutput holds the
copies when copy_data is set, `constant` when set_constant is set, and zeros otherwise (the
padding is always zero). An op that writes FusedOutput in place (c_allreduce_sum with X = Out)
is then seen through every Output, and the next op writing an Output variable writes into
its place in FusedOutput. When the op runs again with copy_data (gradients coalesced every
step) and FusedOutput still holds its buffer, held by nothing else, an Input that is its view
at its own offset is not copied: its data is there already.
)DOC");
  }
};

class CoalesceTensorOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext&) const override {
    return static_cast<DataType>(Attr<int>("dtype"));
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

// The dims of each Output: Input's, or from concated_shapes/concated_ranks.
template <typename GetDim>
std::vector<DDim> OutputDims(const std::string& op, size_t inputs, GetDim get_dim,
                             const std::vector<int64_t>& shapes,
                             const std::vector<int64_t>& ranks) {
  std::vector<DDim> dims;
  if (inputs > 0) {
    for (size_t i = 0; i < inputs; ++i) dims.push_back(get_dim(i));
    return dims;
  }
  size_t at = 0;
  for (int64_t r : ranks) {
    PL_ENFORCE(r >= 0 && at + static_cast<size_t>(r) <= shapes.size(),
               errors::InvalidArgument("op `%s`: attribute `concated_ranks` asks for more dims "
                                       "than `concated_shapes` holds (%zu)",
                                       op, shapes.size()));
    dims.push_back(DDim(std::vector<int64_t>(shapes.begin() + at, shapes.begin() + at + r)));
    at += static_cast<size_t>(r);
  }
  PL_ENFORCE(at == shapes.size(),
             errors::InvalidArgument("op `%s`: attribute `concated_shapes` holds %zu dims, "
                                     "`concated_ranks` uses %zu",
                                     op, shapes.size(), at));
  return dims;
}

size_t Alignment(bool use_align, int align_size) {
  if (!use_align) return 1;
  return align_size > 0 ? static_cast<size_t>(align_size) : kDefaultAlignBytes;
}

// Byte offsets of each tensor and the total, in elements of `element` bytes; -1 total when
// a dim is unknown.
int64_t LayOut(const std::vector<DDim>& dims, size_t element, size_t align,
               std::vector<size_t>* offsets) {
  size_t at = 0;
  for (const DDim& d : dims) {
    const int64_t n = d.numel();
    if (n < 0) return -1;
    offsets->push_back(at);
    at += static_cast<size_t>(n) * element;
    at = (at + align - 1) / align * align;
  }
  return static_cast<int64_t>((at + element - 1) / element);
}

size_t ElementBytes(const framework::AttributeMap& attrs, DataType dtype) {
  auto it = attrs.find("user_defined_size_of_dtype");
  const int* user = it == attrs.end() ? nullptr : std::get_if<int>(&it->second);
  return user != nullptr && *user > 0 ? static_cast<size_t>(*user) : platform::SizeOf(dtype);
}

void CoalesceTensorInferShape(InferShapeContext* ctx) {
  const DataType dtype = static_cast<DataType>(ctx->Attr<int>("dtype"));
  const size_t inputs = ctx->InputSize("Input");
  const std::vector<DDim> dims = OutputDims(
      ctx->OpType(), inputs, [&](size_t i) { return ctx->GetInputDim("Input", i); },
      ctx->Attr<std::vector<int64_t>>("concated_shapes"),
      ctx->Attr<std::vector<int64_t>>("concated_ranks"));
  PL_ENFORCE(dims.size() == ctx->OutputSize("Output"),
             errors::InvalidArgument("op `coalesce_tensor`: %zu tensors to lay out but %zu "
                                     "outputs `Output`",
                                     dims.size(), ctx->OutputSize("Output")));
  for (size_t i = 0; i < dims.size(); ++i) {
    ctx->SetOutputDim("Output", dims[i], i);
    ctx->SetOutputDataType("Output", dtype, i);
  }
  std::vector<size_t> offsets;
  const int64_t total = LayOut(dims, ElementBytes(ctx->Attrs(), dtype),
                               Alignment(ctx->Attr<bool>("use_align"),
                                         ctx->Attr<int>("align_size")),
                               &offsets);
  ctx->SetOutputDim("FusedOutput", DDim({total}));
  ctx->SetOutputDataType("FusedOutput", dtype);
}

template <typename T>
struct CoalesceTensorKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DataType dtype = platform::ToDataType<T>();
    const std::vector<const DenseTensor*> inputs = ctx.MultiInput("Input");
    const std::vector<DenseTensor*> outputs = ctx.MultiOutput("Output");
    for (size_t i = 0; i < inputs.size(); ++i) {
      PL_ENFORCE(inputs[i]->dtype() == dtype,
                 errors::InvalidArgument("op `coalesce_tensor` input `Input` #%zu (variable "
                                         "`%s`): expected %s (attribute dtype), found %s",
                                         i, ctx.InputName("Input", i),
                                         platform::DataTypeName(dtype),
                                         platform::DataTypeName(inputs[i]->dtype())));
    }
    const std::vector<DDim> dims = OutputDims(
        ctx.Type(), inputs.size(), [&](size_t i) { return inputs[i]->dims(); },
        ctx.Attr<std::vector<int64_t>>("concated_shapes"),
        ctx.Attr<std::vector<int64_t>>("concated_ranks"));
    PL_ENFORCE(dims.size() == outputs.size(),
               errors::InvalidArgument("op `coalesce_tensor`: %zu tensors to lay out but %zu "
                                       "outputs `Output`",
                                       dims.size(), outputs.size()));
    const size_t element = ElementBytes(ctx.op().Attrs(), dtype);
    PL_ENFORCE(element == sizeof(T) || !ctx.Attr<bool>("copy_data"),
               errors::InvalidArgument("op `coalesce_tensor`: copy_data with "
                                       "user_defined_size_of_dtype %zu, the data is %zu bytes "
                                       "an element",
                                       element, sizeof(T)));
    std::vector<size_t> offsets;
    const int64_t total =
        LayOut(dims, element, Alignment(ctx.Attr<bool>("use_align"), ctx.Attr<int>("align_size")),
               &offsets);
    DenseTensor* fused_out = ctx.Output("FusedOutput");
    const bool copy_data = ctx.Attr<bool>("copy_data");
    // Gradients coalesced every step: where this op's last buffer is still FusedOutput's and
    // the inputs were written into their views of it, nothing needs copying.
    std::vector<bool> in_place;
    const bool reuse = copy_data && ReusableBuffer(*fused_out, total, dtype, ctx.GetPlace(), inputs,
                                                   outputs, offsets, &in_place);
    // The inputs as they are now (Output may be the same variables and is rebound below).
    std::vector<DenseTensor> sources;
    for (const DenseTensor* in : inputs) sources.push_back(*in);

    DenseTensor fused = reuse ? *fused_out : DenseTensor(DDim({total}), dtype);
    T* base = reuse ? fused.data<T>() : fused.mutable_data<T>(ctx.GetPlace());
    if (reuse) {
      // The padding stayed 0 (no view covers it); only inputs written elsewhere are copied.
      for (size_t i = 0; i < sources.size(); ++i) {
        if (in_place[i] || sources[i].numel() == 0) continue;
        const DenseTensor plain = framework::PlainTensor(sources[i]);
        std::memcpy(reinterpret_cast<char*>(base) + offsets[i], plain.data<T>(),
                    plain.numel() * sizeof(T));
      }
      BindViews(fused, dims, offsets, sources, outputs);
      return;
    }
    const T fill = ctx.Attr<bool>("set_constant") ? static_cast<T>(ctx.Attr<float>("constant"))
                                                  : static_cast<T>(0.0f);
    // The inputs' data where copy_data is set, the fill value everywhere else. Offsets that
    // are whole elements (every alignment but an odd align_size) let the fill skip the data.
    const bool whole_elements =
        std::all_of(offsets.begin(), offsets.end(), [](size_t o) { return o % sizeof(T) == 0; });
    int64_t filled = 0;  // Elements of `base` written so far.
    auto fill_to = [&](int64_t end) {
      for (; filled < end; ++filled) base[filled] = fill;
    };
    if (!whole_elements) fill_to(total);
    if (ctx.Attr<bool>("copy_data")) {
      for (size_t i = 0; i < sources.size(); ++i) {
        const DenseTensor plain = framework::PlainTensor(sources[i]);
        if (whole_elements) fill_to(static_cast<int64_t>(offsets[i] / sizeof(T)));
        if (plain.numel() > 0) {
          std::memcpy(reinterpret_cast<char*>(base) + offsets[i], plain.data<T>(),
                      plain.numel() * sizeof(T));
          if (whole_elements) filled = static_cast<int64_t>(offsets[i] / sizeof(T)) + plain.numel();
        }
      }
    }
    fill_to(total);
    *fused_out = fused;
    BindViews(fused, dims, offsets, sources, outputs);
  }

 private:
  // Makes each output the view of `fused` at its offset, which the next op writing the
  // variable may write into while only FusedOutput and the views hold the buffer (a lasting
  // grant, DenseTensor::ShareBufferInPlace): a gradient written there by the next step's
  // backward is already in place when this op runs again.
  static void BindViews(const DenseTensor& fused, const std::vector<DDim>& dims,
                        const std::vector<size_t>& offsets, const std::vector<DenseTensor>& sources,
                        const std::vector<DenseTensor*>& outputs) {
    std::vector<const DenseTensor*> distinct;
    for (const DenseTensor* out : outputs) {
      if (std::find(distinct.begin(), distinct.end(), out) == distinct.end()) {
        distinct.push_back(out);
      }
    }
    const long holders = 1 + static_cast<long>(distinct.size());  // FusedOutput too.
    for (size_t i = 0; i < outputs.size(); ++i) {
      DenseTensor view(dims[i], fused.dtype());
      if (i < sources.size()) view.set_lod(sources[i].lod());
      view.ShareDataWithOffset(fused, offsets[i]);
      *outputs[i] = view;
      outputs[i]->ShareBufferInPlace(view, holders);
    }
  }

  // Whether `fused` is a plain buffer of `total` elements that no one holds but the op's
  // tensors, with no input viewing it anywhere but at its own offset; in_place[i]: input i
  // is that view (its data is there already).
  static bool ReusableBuffer(const DenseTensor& fused, int64_t total, DataType dtype,
                             const platform::Place& place,
                             const std::vector<const DenseTensor*>& inputs,
                             const std::vector<DenseTensor*>& outputs,
                             const std::vector<size_t>& offsets, std::vector<bool>* in_place) {
    if (!fused.initialized() || !fused.is_plain() || fused.dtype() != dtype ||
        fused.numel() != total || !(fused.place() == place)) {
      return false;
    }
    const platform::AllocationPtr& holder = fused.holder();
    std::vector<const DenseTensor*> holding = {&fused};
    auto note = [&](const DenseTensor* t) {
      if (t->holder() == holder && std::find(holding.begin(), holding.end(), t) == holding.end()) {
        holding.push_back(t);
      }
    };
    in_place->assign(inputs.size(), false);
    const char* base = static_cast<const char*>(fused.raw_data());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const DenseTensor& in = *inputs[i];
      note(&in);
      if (in.holder() != holder) continue;
      // A view elsewhere in the buffer would be overwritten by another input's copy.
      if (!in.is_plain() || in.raw_data() != base + offsets[i]) return false;
      (*in_place)[i] = true;
    }
    for (const DenseTensor* out : outputs) note(out);
    return holder.use_count() == static_cast<long>(holding.size());
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterCoalesceTensorOp) {
  framework::RegisterOp<CoalesceTensorOp, CoalesceTensorOpMaker>("coalesce_tensor")
      .InferShape(CoalesceTensorInferShape)
      .Checkpoint("Upgrade coalesce_tensor: add a new attribute [use_align]",
                  framework::OpVersionDesc().NewAttr("use_align", "align every tensor", true))
      .Checkpoint("Upgrade coalesce_tensor: add a new attribute [align_size]",
                  framework::OpVersionDesc().NewAttr("align_size", "alignment in bytes", -1));
  RegisterPlainCpuKernels<CoalesceTensorKernel, float, double, platform::float16,
                          platform::bfloat16, int32_t, int64_t>("coalesce_tensor");
}

}  // namespace operators
}  // namespace paddle_like

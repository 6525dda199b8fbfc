// unsqueeze2 / squeeze2: insert or remove size-1 dims (same elements, same order). Each is
// the other's gradient.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/grad_forward_vars.h"
#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kUnsqueeze[] = "unsqueeze2";
constexpr char kSqueeze[] = "squeeze2";

// Output dims of unsqueeze2. The axes are applied one after the other, each inserting a 1
// at its position in the shape built so far (a negative axis a means a + rank + 1 there).
// `inserted`, if given, receives per output dim whether it is one of the new ones.
DDim UnsqueezeDims(const DDim& x, const std::vector<int>& axes, std::vector<bool>* inserted) {
  // Compared as sizes: a huge list must not wrap around when counted as an int.
  PL_ENFORCE(axes.size() <= static_cast<size_t>(DDim::kMaxRank - x.size()),
             errors::InvalidArgument("op `%s` attribute `axes`: input `X` of shape %s with %zu "
                                     "new dims exceeds the maximum rank %d",
                                     kUnsqueeze, x.ToString(), axes.size(), DDim::kMaxRank));
  std::vector<int64_t> dims = x.ToVector();
  std::vector<bool> added(dims.size(), false);
  for (int axis : axes) {
    const int rank = static_cast<int>(dims.size());
    PL_ENFORCE(axis >= -rank - 1 && axis <= rank,
               errors::InvalidArgument("op `%s` attribute `axes`: expected each value in [%d, %d] "
                                       "(input `X` shape %s, axes %s), received %d",
                                       kUnsqueeze, -rank - 1, rank, x.ToString(),
                                       ListToString(axes), axis));
    const int cur = axis < 0 ? axis + rank + 1 : axis;
    dims.insert(dims.begin() + cur, 1);
    added.insert(added.begin() + cur, true);
  }
  if (inserted != nullptr) *inserted = added;
  return DDim(dims);
}

// Output dims of squeeze2: dims listed in `axes` (negative values count from the end) are
// removed when they are 1 and kept otherwise; empty axes remove every size-1 dim. At build
// time (`runtime` false) a listed unknown dim (-1) is taken to be 1. `squeezed`, if given,
// receives per input dim whether it is removed.
DDim SqueezeDims(const DDim& x, const std::vector<int>& axes, bool runtime,
                 std::vector<bool>* squeezed) {
  const int rank = x.size();
  std::vector<bool> drop(static_cast<size_t>(rank), false);
  if (axes.empty()) {
    for (int i = 0; i < rank; ++i) drop[i] = x[i] == 1;
  }
  for (int axis : axes) {
    if (rank == 0) {  // A 0-D input accepts 0 and -1 and stays 0-D.
      PL_ENFORCE(axis == 0 || axis == -1,
                 errors::InvalidArgument("op `%s` attribute `axes`: expected 0 or -1 for a 0-D "
                                         "input `X`, received %d",
                                         kSqueeze, axis));
      continue;
    }
    PL_ENFORCE(
        axis >= -rank && axis < rank,
        errors::InvalidArgument("op `%s` attribute `axes`: expected each value in [%d, %d] "
                                "(input `X` shape %s, axes %s), received %d",
                                kSqueeze, -rank, rank - 1, x.ToString(), ListToString(axes), axis));
    const int cur = axis < 0 ? axis + rank : axis;
    drop[cur] = x[cur] == 1 || (!runtime && x[cur] == -1);
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) {
    if (!drop[i]) dims.push_back(x[i]);
  }
  if (squeezed != nullptr) *squeezed = drop;
  return DDim(dims);
}

DDim XShapeDims(const std::string& op, const DDim& x) {
  std::vector<int64_t> d = x.ToVector();
  d.insert(d.begin(), 0);
  PL_ENFORCE(d.size() <= static_cast<size_t>(DDim::kMaxRank),
             errors::InvalidArgument("op `%s` output `XShape`: input `X` of rank %d leaves no "
                                     "room for the leading 0 (max rank %d)",
                                     op, x.size(), DDim::kMaxRank));
  return DDim(d);
}

template <bool kUnsqueezeOp>
class SqueezeFamilyOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The input tensor.");
    AddInput("AxesTensor",
             "Optional 1-D int tensor of axes, overriding `axes` (not supported here).")
        .AsDispensable();
    AddInput("AxesTensorList",
             "Optional list of 1-element int tensors, overriding `axes` (not supported here).")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("Out", "X with size-1 dims inserted or removed; same elements and dtype.");
    AddOutput("XShape", "[0] + X.dims; carries no data.").AsIntermediate().AsDispensable();
    if (kUnsqueezeOp) {
      AddAttr<std::vector<int>>("axes",
                                "Positions of the new size-1 dims, applied in order; a "
                                "negative value a means a + rank + 1 of the shape so far.")
          .SetDefault({});
      AddComment(R"DOC(
Unsqueeze operator (version 2, with XShape).

$$Out = \mathrm{reshape}(X, \mathrm{dims}(X) \text{ with 1s inserted at } axes)$$

The axes are applied one after the other: each inserts a size-1 dim at its position in the
shape built so far. Example: X [3, 4] with axes [0, 2] -> [1, 3, 4] -> Out [1, 3, 1, 4];
axes [-1] -> Out [3, 4, 1].

Gradient: $$dX = \mathrm{squeeze2}(dOut, p)$$ with p the positions of the inserted dims in
Out (so dX has X's shape exactly).
)DOC");
    } else {
      AddAttr<std::vector<int>>("axes",
                                "Dims to remove (negative values count from the end); listed "
                                "dims that are not 1 are kept. Empty: every size-1 dim.")
          .SetDefault({});
      AddComment(R"DOC(
Squeeze operator (version 2, with XShape).

$$Out = \mathrm{reshape}(X, \mathrm{dims}(X) \text{ without the size-1 dims in } axes)$$

Listed dims that are not 1 are kept, as in PaddlePaddle; empty axes remove every size-1
dim. Example: X [1, 3, 1, 4] with axes [0, 2] -> Out [3, 4]; axes [] -> [3, 4]; axes [1]
-> [1, 3, 1, 4].

Gradient: $$dX = \mathrm{unsqueeze2}(dOut, p)$$ with p the removed dims of X in ascending
order (known from X's build-time shape; a listed dim unknown at build time counts as 1).
)DOC");
    }
  }
};

class SqueezeFamilyOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  // The kernel follows X, not the integer axes inputs.
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void CheckNoAxesTensors(const std::string& op, bool axes_tensor, bool axes_tensor_list) {
  PL_ENFORCE(!axes_tensor && !axes_tensor_list,
             errors::Unimplemented("op `%s` input `%s`: axes given as tensors are not "
                                   "supported; use the attribute `axes`",
                                   op, axes_tensor ? "AxesTensor" : "AxesTensorList"));
}

template <bool kUnsqueezeOp>
DDim OutDims(const DDim& x, const std::vector<int>& axes, bool runtime) {
  if (kUnsqueezeOp) return UnsqueezeDims(x, axes, nullptr);
  return SqueezeDims(x, axes, runtime, nullptr);
}

template <bool kUnsqueezeOp>
void SqueezeFamilyInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  CheckNoAxesTensors(ctx->OpType(), ctx->HasInput("AxesTensor"), ctx->HasInput("AxesTensorList"));
  const DDim x = ctx->GetInputDim("X");
  if (ctx->HasOutput("XShape")) ctx->SetOutputDim("XShape", XShapeDims(ctx->OpType(), x));
  const DDim out = OutDims<kUnsqueezeOp>(x, ctx->Attr<std::vector<int>>("axes"), ctx->IsRuntime());
  ctx->SetOutputDim("Out", out);
  if (out.size() > 0 && x.size() > 0 && out[0] == x[0]) ctx->ShareLoD("X", "Out");
}

void SqueezeFamilyInferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType dtype = ctx->GetInputDataType("X");
  for (const char* slot : {"Out", "XShape"}) {
    if (!ctx->HasOutput(slot)) continue;
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(slot, dtype);
  }
}

template <bool kUnsqueezeOp>
struct SqueezeFamilyKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      CheckNoAxesTensors(ctx.Type(), ctx.HasInput("AxesTensor"), ctx.HasInput("AxesTensorList"));
      const DenseTensor* x = ctx.Input("X");
      DenseTensor* out = ctx.Output("Out");
      const DDim x_dims = x->dims();
      const DDim dims =
          OutDims<kUnsqueezeOp>(x_dims, ctx.Attr<std::vector<int>>("axes"), /*runtime=*/true);
      if (DenseTensor* xshape = ctx.Output("XShape")) {
        xshape->Resize(XShapeDims(ctx.Type(), x_dims));
        xshape->set_lod({});
        xshape->mutable_data<T>(ctx.GetPlace());  // 0 elements: marks it as produced.
      }
      if (out == x) {  // In place: only the dims change.
        out->Resize(dims);
        return;
      }
      const bool keep_lod = dims.size() > 0 && x_dims.size() > 0 && dims[0] == x_dims[0];
      out->set_lod(keep_lod ? x->lod() : framework::LoD{});
      out->Resize(dims);
      // Out gets its own copy: nothing written to Out later can reach X.
      T* o = out->mutable_data<T>(ctx.GetPlace());
      if (x->numel() > 0) {
        platform::Copy(ctx.GetPlace(), o, x->place(), x->data<T>(), x->numel() * sizeof(T));
      }
    }
  };
};

std::vector<int> Positions(const std::vector<bool>& flags) {
  std::vector<int> p;
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i]) p.push_back(static_cast<int>(i));
  }
  return p;
}

const std::vector<int>& AxesOf(const framework::GradOpBuilder& g) {
  static const std::vector<int> kNone;
  return g.Forward().HasAttr("axes") ? g.Attr<std::vector<int>>("axes") : kNone;
}

// dX = squeeze2(dOut, positions of the inserted dims in Out).
void Unsqueeze2GradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  std::vector<bool> inserted;
  UnsqueezeDims(framework::DeclaredForwardDims(*g, "X", g->Input("X")[0]), AxesOf(*g), &inserted);
  g->AddOp(kSqueeze, {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
           {{"axes", Positions(inserted)}});
}

// dX = unsqueeze2(dOut, removed dims of X in ascending order).
void Squeeze2GradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  std::vector<bool> squeezed;
  SqueezeDims(framework::DeclaredForwardDims(*g, "X", g->Input("X")[0]), AxesOf(*g),
              /*runtime=*/false, &squeezed);
  g->AddOp(kUnsqueeze, {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
           {{"axes", Positions(squeezed)}});
}

template <bool kUnsqueezeOp>
void RegisterOne(const std::string& type, framework::GradOpMakerFn grad_maker) {
  framework::RegisterOp<SqueezeFamilyOp, SqueezeFamilyOpMaker<kUnsqueezeOp>>(type)
      .InferShape(SqueezeFamilyInferShape<kUnsqueezeOp>)
      .InferVarType(SqueezeFamilyInferVarType)
      .GradOpMaker(std::move(grad_maker));
  RegisterPlainElementKernelsOnEveryDevice<SqueezeFamilyKernel<kUnsqueezeOp>::template Kernel>(
      type);
}

}  // namespace

PL_REGISTER_OPS(RegisterUnsqueezeSqueezeOps) {
  RegisterOne<true>(kUnsqueeze, Unsqueeze2GradMaker);
  RegisterOne<false>(kSqueeze, Squeeze2GradMaker);
}

}  // namespace operators
}  // namespace paddle_like

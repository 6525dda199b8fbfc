// transpose2: Out = X with its dims permuted; transpose, the first version (no XShape, in
// older programs), shares everything but XShape.
#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "transpose2";

// kV2: transpose2 (with XShape); else transpose, the first version.
template <bool kV2>
class Transpose2OpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Tensor to transpose.");
    AddOutput("Out", "X with permuted dims.");
    if (kV2) {
      AddOutput("XShape", "[0] + X.dims; carries no data, kept for the grad op.")
          .AsIntermediate()
          .AsDispensable();
    }
    AddAttr<std::vector<int>>("axis",
                              "A permutation of [0, rank(X)); negative entries count from the "
                              "end. Out.dims[i] = X.dims[axis[i]].");
    AddAttr<std::string>("data_format", "Layout hint; the plain kernels ignore it.")
        .SetDefault("AnyLayout")
        .AsExtra();
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel (FLAGS_use_onednn decides here).")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
Transpose operator (transpose2, with XShape; transpose, the first version, has none).

$$Out[i_0, \ldots, i_{n-1}] = X[j_0, \ldots, j_{n-1}], \quad j_{axis[k]} = i_k$$

Example: X of shape [2, 3, 4] with axis = [2, 0, 1] gives Out of shape [4, 2, 3].

Gradient: $$dX = \mathrm{transpose2}(dOut, axis^{-1}), \quad axis^{-1}[axis[k]] = k$$
a transpose2 op itself, so it can be differentiated again. X is not read.
)DOC");
  }
};

class Transpose2Op : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void Transpose2InferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const std::vector<int> axis = CheckedTransposeAxis(ctx->Attr<std::vector<int>>("axis"), x.size());
  DDim out = x;
  for (size_t i = 0; i < axis.size(); ++i) out[static_cast<int>(i)] = x[axis[i]];
  if (ctx->HasOutput("XShape")) {
    std::vector<int64_t> d = x.ToVector();
    d.insert(d.begin(), 0);
    PL_ENFORCE(d.size() <= static_cast<size_t>(DDim::kMaxRank),
               errors::InvalidArgument("op `%s` output `XShape`: input `X` of rank %d leaves no "
                                       "room for the leading 0 (max rank %d)",
                                       ctx->OpType(), x.size(), DDim::kMaxRank));
    ctx->SetOutputDim("XShape", DDim(d));
  }
  ctx->SetOutputDim("Out", out);
}

void Transpose2InferVarType(framework::VarTypeInferenceContext* ctx) {
  const DataType dtype = ctx->GetInputDataType("X");
  for (const char* slot : {"Out", "XShape"}) {
    if (!ctx->HasOutput(slot)) continue;
    ctx->SetOutputKind(slot, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(slot, dtype);
  }
}

template <typename T>
struct Transpose2Kernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    PL_ENFORCE(out != x, errors::Unimplemented("op `%s` output `Out`: cannot be input `X` itself "
                                               "(variable `%s`); transpose into a new variable",
                                               ctx.Type(), ctx.InputName("X")));
    const DDim in_dims = x->dims();
    const std::vector<int> axis =
        CheckedTransposeAxis(ctx.Attr<std::vector<int>>("axis"), in_dims.size());
    const int rank = in_dims.size();
    // Row-major strides of X, then the X stride of each Out dim.
    std::vector<int64_t> in_stride(rank, 1), src_stride(rank), out_dims(rank);
    for (int i = rank - 2; i >= 0; --i) in_stride[i] = in_stride[i + 1] * in_dims[i + 1];
    for (int i = 0; i < rank; ++i) {
      src_stride[i] = in_stride[axis[i]];
      out_dims[i] = in_dims[axis[i]];
    }
    const T* in = x->data<T>();
    out->set_lod({});
    T* o = out->mutable_data<T>(ctx.GetPlace());
    if (DenseTensor* xshape = ctx.Output("XShape")) xshape->mutable_data<T>(ctx.GetPlace());
    const int64_t n = x->numel();
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n, 1 << 14, [&](int64_t begin, int64_t end) {
          // Decode the first output index, then walk it like an odometer.
          std::vector<int64_t> idx(rank, 0);
          int64_t src = 0;
          for (int64_t r = begin, i = rank - 1; i >= 0; --i) {
            idx[i] = r % out_dims[i];
            r /= out_dims[i];
            src += idx[i] * src_stride[i];
          }
          for (int64_t k = begin; k < end; ++k) {
            o[k] = in[src];
            for (int i = rank - 1; i >= 0; --i) {
              src += src_stride[i];
              if (++idx[i] < out_dims[i]) break;
              src -= src_stride[i] * out_dims[i];
              idx[i] = 0;
            }
          }
        });
  }
};

// dX = transpose2(dOut, inverse permutation); its XShape goes to a temporary.
void Transpose2GradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::vector<int>& axis = g->Attr<std::vector<int>>("axis");
  const std::vector<int> resolved = CheckedTransposeAxis(axis, static_cast<int>(axis.size()));
  std::vector<int> inverse(resolved.size());
  for (size_t k = 0; k < resolved.size(); ++k) inverse[resolved[k]] = static_cast<int>(k);
  g->AddOp(kOp, {{"X", g->OutputGrad("Out")}},
           {{"Out", g->InputGrad("X")}, {"XShape", {g->NewTemp("xshape")}}},
           {{"axis", inverse}});
}

}  // namespace

PL_REGISTER_OPS(RegisterTranspose2Op) {
  for (const bool v2 : {true, false}) {
    const std::string type = v2 ? kOp : "transpose";
    framework::OpRegistrar op =
        v2 ? framework::RegisterOp<Transpose2Op, Transpose2OpMaker<true>>(type)
           : framework::RegisterOp<Transpose2Op, Transpose2OpMaker<false>>(type);
    op.InferShape(Transpose2InferShape)
        .InferVarType(Transpose2InferVarType)
        .GradOpMaker(Transpose2GradMaker);
    RegisterPlainCpuElementKernels<Transpose2Kernel>(type);
  }
}

}  // namespace operators
}  // namespace paddle_like

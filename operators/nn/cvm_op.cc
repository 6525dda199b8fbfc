// cvm: the continuous value model of PaddlePaddle's click-through-rate programs. Each row of X
// starts with a show count and a click count; cvm turns them into log features or drops them.
// Its backward (cvm_grad) is not a derivative: as in PaddlePaddle, the show and click columns
// of X@GRAD receive the values of input CVM, which the training program feeds for them.
#include <cmath>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class CvmOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X",
             "[N, D], D >= 2: show and click counts, then D - 2 features (a level-1 LoD "
             "groups rows into instances for the backward).");
    AddInput("CVM",
             "[instances, 2]: the show and click values the backward writes into "
             "X@GRAD (one row per LoD sequence, or per row of X without a LoD).")
        .AsNoNeedBuffer();
    AddOutput("Y", "[N, D] with use_cvm, else [N, D - 2].");
    AddAttr<bool>("use_cvm", "Keep the counts as log features; otherwise drop them.")
        .SetDefault(true);
    AddComment(R"DOC(
With s = X[:, 0] and c = X[:, 1], with use_cvm:
$$Y[:, 0] = \log(s + 1), \quad Y[:, 1] = \log(c + 1) - \log(s + 1), \quad Y[:, 2:] = X[:, 2:]$$
and without it Y = X[:, 2:].
)DOC");
  }
};

void CheckCvmShapes(InferShapeContext* ctx) {
  const std::string& op = ctx->OpType();
  const DDim x = ctx->GetInputDim("X");
  PL_ENFORCE(x.size() == 2 && (x[1] < 0 || x[1] >= 2),
             errors::InvalidArgument("op `%s` input `X`: expected [N, D] with D >= 2 (show, "
                                     "click, features), received shape %s",
                                     op, x.ToString()));
  const DDim cvm = ctx->GetInputDim("CVM");
  PL_ENFORCE(cvm.size() == 2 && (cvm[1] < 0 || cvm[1] == 2),
             errors::InvalidArgument("op `%s` input `CVM`: expected [instances, 2], received "
                                     "shape %s",
                                     op, cvm.ToString()));
}

void CvmInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "CVM"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Y");
  CheckCvmShapes(ctx);
  const DDim x = ctx->GetInputDim("X");
  const bool use_cvm = ctx->Attr<bool>("use_cvm");
  ctx->SetOutputDim("Y", DDim{x[0], use_cvm || x[1] < 0 ? x[1] : x[1] - 2});
  ctx->ShareLoD("X", "Y");
}

class CvmOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Y@GRAD") ? "Y@GRAD" : "X");
  }
};

template <typename T>
struct CvmKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const int64_t n = x->dims()[0], d = x->dims()[1];
    const bool use_cvm = ctx.Attr<bool>("use_cvm");
    const int64_t out_d = use_cvm ? d : d - 2;
    DenseTensor y(DDim{n, out_d}, x->dtype());
    T* o = y.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (int64_t r = 0; r < n; ++r) {
      const T* row = in + r * d;
      T* out = o + r * out_d;
      if (use_cvm) {
        const T show = std::log(row[0] + T(1));
        out[0] = show;
        out[1] = std::log(row[1] + T(1)) - show;
        for (int64_t j = 2; j < d; ++j) out[j] = row[j];
      } else {
        for (int64_t j = 2; j < d; ++j) out[j - 2] = row[j];
      }
    }
    y.set_lod(x->lod());
    *ctx.Output("Y") = std::move(y);
  }
};

// ---- cvm_grad ----

void CvmGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"X", "CVM", "Y@GRAD"}) ctx->RequireInput(slot);
  CheckCvmShapes(ctx);
  if (ctx->HasOutput("X@GRAD")) {
    ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
    ctx->ShareLoD("X", "X@GRAD");
  }
}

template <typename T>
struct CvmGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    DenseTensor* dx_out = ctx.Output("X@GRAD");
    if (dx_out == nullptr) return;
    const std::string& op = ctx.Type();
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* cvm = ctx.Input("CVM");
    const DenseTensor* dy = ctx.Input("Y@GRAD");
    const int64_t n = x->dims()[0], d = x->dims()[1];
    const bool use_cvm = ctx.Attr<bool>("use_cvm");
    const int64_t dy_d = use_cvm ? d : d - 2;
    PL_ENFORCE(dy->dims() == DDim({n, dy_d}),
               errors::InvalidArgument("op `%s` input `Y@GRAD`: expected shape [%lld, %lld], "
                                       "received %s",
                                       op, static_cast<long long>(n), static_cast<long long>(dy_d),
                                       dy->dims().ToString()));
    // Row r of X takes the CVM row of its instance: its LoD sequence, or itself.
    std::vector<int64_t> instance(static_cast<size_t>(n));
    if (x->lod().empty()) {
      for (int64_t r = 0; r < n; ++r) instance[r] = r;
    } else {
      const std::vector<size_t>& offsets = x->lod().back();
      for (size_t s = 0; s + 1 < offsets.size(); ++s) {
        for (size_t r = offsets[s]; r < offsets[s + 1]; ++r) instance[r] = static_cast<int64_t>(s);
      }
    }
    const int64_t instances =
        x->lod().empty() ? n : static_cast<int64_t>(x->lod().back().size()) - 1;
    PL_ENFORCE(
        cvm->dims()[0] == instances,
        errors::InvalidArgument("op `%s` input `CVM`: expected %lld rows (one per "
                                "instance of X), received shape %s",
                                op, static_cast<long long>(instances), cvm->dims().ToString()));
    DenseTensor dx(x->dims(), x->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    const T* c = cvm->data<T>();
    const T* dyd = dy->data<T>();
    for (int64_t r = 0; r < n; ++r) {
      T* row = g + r * d;
      row[0] = c[instance[r] * 2];
      row[1] = c[instance[r] * 2 + 1];
      const T* from = dyd + r * dy_d + (use_cvm ? 2 : 0);
      for (int64_t j = 2; j < d; ++j) row[j] = from[j - 2];
    }
    dx.set_lod(x->lod());
    *dx_out = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterCvmOp) {
  const framework::FusedGradDecl grad{
      {"X", "CVM"},
      {"Y"},
      {"X"},
      R"DOC(Not a derivative, as in PaddlePaddle: with i the instance of row r (its LoD sequence,
or r itself without a LoD),
$$X@GRAD[r, 0:2] = CVM[i, 0:2], \quad X@GRAD[r, 2:] = Y@GRAD[r, k:]$$
with k = 2 under use_cvm and 0 otherwise.)DOC"};
  framework::RegisterOp<CvmOp, CvmOpMaker>("cvm")
      .InferShape(CvmInferShape)
      .InferVarType(OutputDataTypeOf("X", "Y"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<CvmKernel>("cvm");
  framework::RegisterFusedGradOp("cvm", grad).InferShape(CvmGradInferShape);
  RegisterPlainCpuFloatKernels<CvmGradKernel>("cvm_grad");
}

}  // namespace operators
}  // namespace paddle_like

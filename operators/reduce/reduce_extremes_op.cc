// reduce_max, reduce_min, reduce_amax, reduce_amin, reduce_prod (float, double, int32, int64;
// reduce_prod also complex64 and complex128) and reduce_all, reduce_any
// (bool, float, double, int32, int64 in; bool out): X reduced over some (or all) dims with
// PaddlePaddle's reduce attributes, the output shape as reduce_sum's. Each output folds its
// elements in the row-major order of X, so the results do not depend on the number of threads.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "framework/grad_forward_vars.h"
#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/math/reduce.h"
#include "operators/op_family.h"
#include "operators/reduce/reduce_op_util.h"

namespace paddle_like {
namespace operators {
namespace {

// One reduction: its op type, the verb of its docs, its formula and the fold.
struct MaxFold {
  static constexpr bool kLongDims = false;
  static constexpr bool kLogical = false;
  static constexpr const char* kType = "reduce_max";
  static constexpr const char* kVerb = "take the maximum";
  static constexpr const char* kFormula = "Out = \\max_{i \\in dim} X";
  static constexpr bool kEmptyAllowed = false;
  template <typename T>
  static T Fold(T acc, T v) {
    if (acc != acc) return acc;  // NaN stays.
    return (v != v || v > acc) ? v : acc;
  }
};
struct MinFold {
  static constexpr bool kLongDims = false;
  static constexpr bool kLogical = false;
  static constexpr const char* kType = "reduce_min";
  static constexpr const char* kVerb = "take the minimum";
  static constexpr const char* kFormula = "Out = \\min_{i \\in dim} X";
  static constexpr bool kEmptyAllowed = false;
  template <typename T>
  static T Fold(T acc, T v) {
    if (acc != acc) return acc;
    return (v != v || v < acc) ? v : acc;
  }
};
// amax and amin: max and min with int64 dims (and axis tensors) in PaddlePaddle's proto, and a
// gradient shared evenly by the elements that equal the result.
struct AMaxFold : MaxFold {
  static constexpr bool kLongDims = true;
  static constexpr const char* kType = "reduce_amax";
};
struct AMinFold : MinFold {
  static constexpr bool kLongDims = true;
  static constexpr const char* kType = "reduce_amin";
};
struct ProdFold {
  static constexpr bool kLongDims = false;
  static constexpr bool kLogical = false;
  static constexpr const char* kType = "reduce_prod";
  static constexpr const char* kVerb = "multiply";
  static constexpr const char* kFormula = "Out = \\prod_{i \\in dim} X";
  static constexpr bool kEmptyAllowed = true;  // An empty product is 1.
  template <typename T>
  static T Identity() {
    return T(1);
  }
  template <typename T>
  static T Fold(T acc, T v) {
    return acc * v;
  }
};
struct AllFold {
  // PaddlePaddle declares their `dim` as int64 values, with optional axis tensors.
  static constexpr bool kLongDims = true;
  static constexpr bool kLogical = true;
  static constexpr const char* kType = "reduce_all";
  static constexpr const char* kVerb = "take the logical and";
  static constexpr const char* kFormula = "Out = \\bigwedge_{i \\in dim} X";
  static constexpr bool kEmptyAllowed = true;  // true
  template <typename T>
  static T Identity() {
    return true;
  }
  template <typename T>
  static T Fold(T acc, T v) {
    return acc && v;
  }
};
struct AnyFold {
  // PaddlePaddle declares their `dim` as int64 values, with optional axis tensors.
  static constexpr bool kLongDims = true;
  static constexpr bool kLogical = true;
  static constexpr const char* kType = "reduce_any";
  static constexpr const char* kVerb = "take the logical or";
  static constexpr const char* kFormula = "Out = \\bigvee_{i \\in dim} X";
  static constexpr bool kEmptyAllowed = true;  // false
  template <typename T>
  static T Identity() {
    return false;
  }
  template <typename T>
  static T Fold(T acc, T v) {
    return acc || v;
  }
};

template <typename Fold>
class ReduceFoldOpMaker : public ReduceOpMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", Fold::kLogical ? "bool: the reduced truth values (nonzero is true)."
                                    : "The reduced values, with X's dtype.");
    if constexpr (Fold::kLongDims) {
      AddInput("AxisTensor", "The dims as a tensor; not supported here (give `dim`).")
          .AsDispensable();
      AddInput("AxisTensorList", "The dims as 1-element tensors; not supported here.")
          .AsDuplicable()
          .AsDispensable();
    }
    AddReduceAttrs(Fold::kVerb, Fold::kLongDims);
    AddOwnDtypeAttrs();
    std::string doc = std::string("Reduce operator `") + Fold::kType + "`.\n\n$$" + Fold::kFormula +
                      "$$\n\nover the dims in `dim` (all of them with `reduce_all` or an "
                      "empty `dim`); reduced dims are removed, or kept as size 1 with "
                      "`keep_dim`.";
    const std::string type = Fold::kType;
    if (type == "reduce_amax" || type == "reduce_amin") {
      doc +=
          " A NaN among the values gives NaN. Reducing an empty dim is an error. Gradient: "
          "dOut is shared evenly by the elements equal to the result,\n\n$$dX = dOut \\cdot "
          "\\frac{[X = Out]}{\\sum_{i \\in dim} [X = Out]}$$\n";
    } else if (type == "reduce_max" || type == "reduce_min") {
      doc +=
          " A NaN among the values gives NaN. Reducing an empty dim is an error. Gradient: "
          "dOut goes to every element equal to the result,\n\n$$dX = dOut \\cdot [X = "
          "Out]$$\n";
    } else if (std::string(Fold::kType) == "reduce_prod") {
      doc +=
          " The product of an empty dim is 1. Gradient:\n\n$$dX = dOut \\cdot \\frac{Out}{X}$$"
          "\n(inf or NaN where X is 0, as in PaddlePaddle).\n";
    } else {
      doc += std::string(" Nonzero values count as true; Out is bool. An empty dim gives ") +
             (std::string(Fold::kType) == "reduce_all" ? "true" : "false") +
             ". Not differentiable.\n";
    }
    AddComment(doc);
  }
};

class ReduceFoldOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// Dims given as tensors are not read yet: refused with the op's name.
template <typename Context>
void RefuseAxisTensors(const Context& ctx, const std::string& op) {
  for (const char* slot : {"AxisTensor", "AxisTensorList"}) {
    PL_ENFORCE(!ctx.HasInput(slot),
               errors::Unimplemented("op `%s` input `%s`: dims given as tensors are not "
                                     "supported; give them in attribute `dim`",
                                     op, slot));
  }
}

void ReduceFoldInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  RefuseAxisTensors(*ctx, ctx->OpType());
  const math::ReduceShape shape =
      math::ComputeReduceShape(ctx->OpType(), ctx->GetInputDim("X"), ReduceDimsOf(ctx->Attrs()),
                               ctx->Attr<bool>("keep_dim"), ctx->Attr<bool>("reduce_all"));
  ctx->SetOutputDim("Out", shape.out);
}

template <typename Fold>
struct ReduceFoldKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x = ctx.Input("X");
      const DDim dims = x->dims();
      const math::ReduceShape shape =
          math::ComputeReduceShape(ctx.Type(), dims, ReduceDimsOf(ctx.op().Attrs()),
                                   ctx.Attr<bool>("keep_dim"), ctx.Attr<bool>("reduce_all"));
      const int64_t outputs = shape.out.numel();
      PL_ENFORCE(Fold::kEmptyAllowed || dims.numel() > 0 || outputs == 0,
                 errors::InvalidArgument("op `%s` input `X`: cannot reduce an empty dim (shape "
                                         "%s)",
                                         ctx.Type(), dims.ToString()));
      // reduce_all and reduce_any give bool whatever X holds (nonzero is true).
      using OutT = std::conditional_t<Fold::kLogical, bool, T>;
      DenseTensor out(shape.out, platform::ToDataType<OutT>());
      OutT* o = out.mutable_data<OutT>(ctx.GetPlace());
      // The output index of each element of X, by strides over the kept dims.
      const int rank = dims.size();
      std::vector<int64_t> out_stride(static_cast<size_t>(rank), 0);
      int64_t stride = 1;
      for (int i = rank - 1; i >= 0; --i) {
        if (!shape.reduced[i]) {
          out_stride[i] = stride;
          stride *= dims[i];
        }
      }
      std::vector<bool> started(static_cast<size_t>(outputs), false);
      if constexpr (Fold::kEmptyAllowed) {
        std::fill(o, o + outputs, Fold::template Identity<OutT>());
        started.assign(started.size(), true);
      }
      const T* in = x->data<T>();
      std::vector<int64_t> index(static_cast<size_t>(rank), 0);
      int64_t target = 0;
      for (int64_t e = 0; e < dims.numel(); ++e) {
        const OutT v = Fold::kLogical ? static_cast<OutT>(in[e] != T(0)) : static_cast<OutT>(in[e]);
        if (started[target]) {
          o[target] = Fold::Fold(o[target], v);
        } else {
          o[target] = v;
          started[target] = true;
        }
        // Advance the row-major index of X and the output index with it.
        for (int i = rank - 1; i >= 0; --i) {
          target += out_stride[i];
          if (++index[i] < dims[i]) break;
          target -= out_stride[i] * dims[i];
          index[i] = 0;
        }
      }
      out.set_lod({});
      *ctx.Output("Out") = std::move(out);
    }
  };
};

// dX = where(X == expand(Out), expand(dOut), 0): every element equal to the result receives
// dOut.
void ReduceExtremeGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::string out = AppendBroadcastToX(g, g->Output("Out")[0], "out_expanded");
  const std::string dout = AppendBroadcastToX(g, g->OutputGrad("Out")[0], "dout_expanded");
  const std::string hit = g->NewTemp("is_extreme");
  g->AddOp("equal", {{"X", g->Input("X")}, {"Y", {out}}}, {{"Out", {hit}}}, {{"axis", -1}});
  const std::string zeros = g->NewTemp("zeros");
  g->AddOp("fill_any_like", {{"X", {dout}}}, {{"Out", {zeros}}}, {{"value", 0.0f}, {"dtype", -1}});
  g->AddOp("where", {{"Condition", {hit}}, {"X", {dout}}, {"Y", {zeros}}},
           {{"Out", g->InputGrad("X")}});
}

// dX = m * expand(dOut) / expand(reduce_sum(m)) with m = [X == expand(Out)] in X's dtype: the
// elements equal to the result share dOut evenly.
void ReduceAExtremeGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::string out = AppendBroadcastToX(g, g->Output("Out")[0], "out_expanded");
  const std::string dout = AppendBroadcastToX(g, g->OutputGrad("Out")[0], "dout_expanded");
  const std::string hit = g->NewTemp("is_extreme");
  g->AddOp("equal", {{"X", g->Input("X")}, {"Y", {out}}}, {{"Out", {hit}}}, {{"axis", -1}});
  const std::string zeros = g->NewTemp("zeros");
  const std::string ones = g->NewTemp("ones");
  g->AddOp("fill_any_like", {{"X", g->Input("X")}}, {{"Out", {zeros}}},
           {{"value", 0.0f}, {"dtype", -1}});
  g->AddOp("fill_any_like", {{"X", g->Input("X")}}, {{"Out", {ones}}},
           {{"value", 1.0f}, {"dtype", -1}});
  const std::string mask = g->NewTemp("extreme_mask");
  g->AddOp("where", {{"Condition", {hit}}, {"X", {ones}}, {"Y", {zeros}}}, {{"Out", {mask}}});
  const std::string count = g->NewTemp("extreme_count");
  g->AddOp("reduce_sum", {{"X", {mask}}}, {{"Out", {count}}},
           {{"dim", ReduceDimsOf(g->Forward().Attrs())},
            {"keep_dim", g->Attr<bool>("keep_dim")},
            {"reduce_all", g->Attr<bool>("reduce_all")}});
  const std::string count_expanded = AppendBroadcastToX(g, count, "count_expanded");
  const std::string share = g->NewTemp("extreme_share");
  g->AddOp("elementwise_div", {{"X", {mask}}, {"Y", {count_expanded}}}, {{"Out", {share}}},
           {{"axis", -1}});
  g->AddOp("elementwise_mul", {{"X", {dout}}, {"Y", {share}}}, {{"Out", g->InputGrad("X")}},
           {{"axis", -1}});
}

// dX = expand(dOut) * expand(Out) / X; of complex values dX = expand(dOut) * conj(expand(Out)
// / X) (PaddlePaddle's dL/da + i dL/db).
void ReduceProdGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::string out =
      AppendBroadcastToX(g, framework::ConjugatedIfComplex(g, g->Output("Out")[0]), "out_expanded");
  const std::string dout = AppendBroadcastToX(g, g->OutputGrad("Out")[0], "dout_expanded");
  const std::string ratio = g->NewTemp("out_over_x");
  g->AddOp("elementwise_div",
           {{"X", {out}}, {"Y", {framework::ConjugatedIfComplex(g, g->Input("X")[0])}}},
           {{"Out", {ratio}}}, {{"axis", -1}});
  g->AddOp("elementwise_mul", {{"X", {dout}}, {"Y", {ratio}}}, {{"Out", g->InputGrad("X")}},
           {{"axis", -1}});
}

void LogicalInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", DataType::BOOL);
}

template <typename Fold>
framework::OpRegistrar RegisterFold(void (*grad)(framework::GradOpBuilder*)) {
  framework::OpRegistrar r =
      framework::RegisterOp<ReduceFoldOp, ReduceFoldOpMaker<Fold>>(Fold::kType)
          .InferShape(ReduceFoldInferShape)
          .GradOpMaker(grad);
  if (Fold::kLogical) r.InferVarType(LogicalInferVarType);
  return r;
}

}  // namespace

PL_REGISTER_OPS(RegisterReduceExtremeOps) {
  RegisterFold<MaxFold>(ReduceExtremeGradMaker);
  RegisterFold<MinFold>(ReduceExtremeGradMaker);
  RegisterFold<AMaxFold>(ReduceAExtremeGradMaker);
  RegisterFold<AMinFold>(ReduceAExtremeGradMaker);
  RegisterFold<ProdFold>(ReduceProdGradMaker);
  RegisterFold<AllFold>(framework::NoGradient);
  RegisterFold<AnyFold>(framework::NoGradient);
  RegisterPlainCpuKernels<ReduceFoldKernel<MaxFold>::Kernel, float, double, int32_t, int64_t>(
      MaxFold::kType);
  RegisterPlainCpuKernels<ReduceFoldKernel<MinFold>::Kernel, float, double, int32_t, int64_t>(
      MinFold::kType);
  RegisterPlainCpuKernels<ReduceFoldKernel<AMaxFold>::Kernel, float, double, int32_t, int64_t>(
      AMaxFold::kType);
  RegisterPlainCpuKernels<ReduceFoldKernel<AMinFold>::Kernel, float, double, int32_t, int64_t>(
      AMinFold::kType);
  RegisterPlainCpuKernels<ReduceFoldKernel<ProdFold>::Kernel, float, double, int32_t, int64_t,
                          std::complex<float>, std::complex<double>>(ProdFold::kType);
  RegisterPlainCpuKernels<ReduceFoldKernel<AllFold>::Kernel, bool, float, double, int32_t, int64_t>(
      AllFold::kType);
  RegisterPlainCpuKernels<ReduceFoldKernel<AnyFold>::Kernel, bool, float, double, int32_t, int64_t>(
      AnyFold::kType);
}

}  // namespace operators
}  // namespace paddle_like

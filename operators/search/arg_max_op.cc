// arg_max and arg_min: the index of the largest (smallest) value along one dim (or of the
// whole flattened tensor).
#include "operators/search/arg_max_op.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

ArgMaxShape AnalyzeArgMax(const std::string& op, const DDim& x, int64_t axis, bool keepdims,
                          bool flatten) {
  ArgMaxShape s;
  const int rank = x.size();
  if (flatten) {
    s.n = x.numel();
    s.out = keepdims ? DDim(std::vector<int64_t>(rank, 1)) : DDim();
    return s;
  }
  const int lo = rank == 0 ? -1 : -rank;
  const int hi = rank == 0 ? 1 : rank;
  PL_ENFORCE(axis >= lo && axis < hi,
             errors::InvalidArgument("op `%s` attribute `axis`: expected a value in [%d, %d) for "
                                     "input `X` of shape %s, received %lld",
                                     op, lo, hi, x.ToString(), static_cast<long long>(axis)));
  if (rank == 0) return s;  // Out is 0-D too.
  const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
  s.outer = framework::Product(x, 0, a);
  s.n = x[a];
  s.inner = framework::Product(x, a + 1, rank);
  std::vector<int64_t> out;
  for (int i = 0; i < rank; ++i) {
    if (i != a) {
      out.push_back(x[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  s.out = DDim(out);
  return s;
}

DataType ArgMaxOutDataType(int dtype) {
  return dtype == static_cast<int>(DataType::INT32) ? DataType::INT32 : DataType::INT64;
}

ArgMaxShape PrepareArgMax(const ExecutionContext& ctx, DataType* out_type) {
  const DenseTensor* x = ctx.Input("X");
  const std::string& op = ctx.Type();
  const ArgMaxShape s = AnalyzeArgMax(op, x->dims(), ctx.Attr<int64_t>("axis"),
                                      ctx.Attr<bool>("keepdims"), ctx.Attr<bool>("flatten"));
  PL_ENFORCE(s.n > 0 || s.outer * s.inner == 0,
             errors::InvalidArgument("op `%s` input `X`: cannot search an empty dim (shape "
                                     "%s)",
                                     op, x->dims().ToString()));
  *out_type = ArgMaxOutDataType(ctx.Attr<int>("dtype"));
  PL_ENFORCE(*out_type == DataType::INT64 || s.n <= std::numeric_limits<int32_t>::max(),
             errors::InvalidArgument("op `%s` attribute `dtype`: int32 cannot hold indices up "
                                     "to %lld",
                                     op, static_cast<long long>(s.n)));
  DenseTensor* out = ctx.Output("Out");
  out->Resize(s.out);
  out->set_lod({});
  return s;
}

namespace {

constexpr const char* kOp = kArgMaxOp;
// `dtype` values (VarType numbers); -1 is the legacy spelling of int64.
constexpr int kDtypeLegacyInt64 = -1;
constexpr int kDtypeInt32 = static_cast<int>(DataType::INT32);
constexpr int kDtypeInt64 = static_cast<int>(DataType::INT64);

template <bool kMax>
class ArgExtremeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    const std::string extreme = kMax ? "maxima" : "minima";
    AddInput("X", "Input tensor of any rank.");
    AddOutput("Out", "Indices of the " + extreme +
                         ": X's dims without dim `axis` (kept as 1 with keepdims); with "
                         "flatten, a 0-D tensor (all-ones dims of X's rank with keepdims).");
    AddAttr<int64_t>("axis", "The dim to search; negative values count from the end.")
        .SetDefault(-1);
    AddAttr<bool>("keepdims", "Keep the searched dim as size 1.").SetDefault(false);
    AddAttr<bool>("flatten", "Search the flattened X; `axis` is ignored.").SetDefault(false);
    AddAttr<int>("dtype", "Element type of Out: 3 int64 (-1 also means int64), 2 int32.")
        .SetDefault(kDtypeInt64)
        .InEnum({kDtypeLegacyInt64, kDtypeInt32, kDtypeInt64});
    const std::string extremum = kMax ? "maximum" : "minimum";
    AddComment(std::string(kMax ? "ArgMax" : "ArgMin") +
               " operator.\n\n$$Out[\\ldots] = \\mathrm{" + (kMax ? "argmax" : "argmin") +
               "}_j\\, X[\\ldots, j, \\ldots] \\quad (j \\text{ runs along } axis)$$\n\nThe "
               "first " +
               extremum + " wins on ties; a NaN counts as the " + extremum +
               " (the first NaN wins). Example: " +
               (kMax
                    ? "X [[1, 3, 3], [5, 0, 2]], axis = 1 -> Out [1, 0]; flatten -> Out 3 (0-D)."
                    : "X [[1, 0, 0], [5, 7, 2]], axis = 1 -> Out [1, 2]; flatten -> Out 1 (0-D).") +
               " A 0-D X gives 0.\nNot differentiable: the op has no gradient.\n");
  }
};

class ArgMaxOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void ArgMaxInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const ArgMaxShape s =
      AnalyzeArgMax(ctx->OpType(), ctx->GetInputDim("X"), ctx->Attr<int64_t>("axis"),
                    ctx->Attr<bool>("keepdims"), ctx->Attr<bool>("flatten"));
  ctx->SetOutputDim("Out", s.out);
}

void ArgMaxInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", ArgMaxOutDataType(ctx->Attr<int>("dtype")));
}

template <bool kMax, typename T, typename IndexT>
void ArgExtremeLoop(const T* x, IndexT* out, const ArgMaxShape& s) {
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      out[o * s.inner + i] =
          static_cast<IndexT>(ArgExtremeAlong<kMax>(x + o * s.n * s.inner + i, s.n, s.inner));
    }
  }
}

template <bool kMax>
struct ArgExtremeKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x = ctx.Input("X");
      DataType out_type;
      const ArgMaxShape s = PrepareArgMax(ctx, &out_type);
      DenseTensor* out = ctx.Output("Out");
      if (out_type == DataType::INT32) {
        ArgExtremeLoop<kMax>(x->data<T>(), out->mutable_data<int32_t>(ctx.GetPlace()), s);
      } else {
        ArgExtremeLoop<kMax>(x->data<T>(), out->mutable_data<int64_t>(ctx.GetPlace()), s);
      }
    }
  };
};

// Registers arg_max (kMax) or arg_min with its plain CPU kernels.
template <bool kMax>
void RegisterArgExtremeOp(const char* type) {
  framework::RegisterOp<ArgMaxOp, ArgExtremeOpMaker<kMax>>(type)
      .InferShape(ArgMaxInferShape)
      .InferVarType(ArgMaxInferVarType)
      .Checkpoint("add attribute `flatten`; `dtype` defaults to int64",
                  framework::OpVersionDesc()
                      .NewAttr("flatten", "search the flattened X", false)
                      .ModifyAttr("dtype", "defaults to int64", kDtypeInt64));
  RegisterPlainCpuKernels<ArgExtremeKernel<kMax>::template Kernel, float, double, int32_t, int64_t,
                          int16_t, uint8_t>(type);
}

}  // namespace

PL_REGISTER_OPS(RegisterArgMaxOp) {
  RegisterArgExtremeOp<true>(kArgMaxOp);
  RegisterArgExtremeOp<false>(kArgMinOp);
}

}  // namespace operators
}  // namespace paddle_like

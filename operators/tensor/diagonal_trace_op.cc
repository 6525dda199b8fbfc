// diagonal (the diagonals of the 2-D slices over two dims) and trace (their sums), with fused
// backwards that write dOut back onto those diagonals.
//
// With Input's dims D, the two dims a1 != a2 and the offset k (above the main diagonal for
// k > 0), each slice's diagonal has L = max(0, min(D[a1] - max(-k, 0), D[a2] - max(k, 0)))
// elements; element i sits at index i + max(-k, 0) along a1 and i + max(k, 0) along a2.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

template <bool kTrace>
class DiagonalOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "Rank >= 2.");
    AddOutput("Out", kTrace ? "Input's dims without axis1 and axis2 (0-D for a matrix)."
                            : "Input's dims without axis1 and axis2, then the diagonal's length.");
    AddAttr<int>("offset", "Which diagonal: 0 the main one, > 0 above it, < 0 below.")
        .SetDefault(0);
    AddAttr<int>("axis1", "The first dim of the 2-D slices (negative counts from the end).")
        .SetDefault(0);
    AddAttr<int>("axis2", "The second dim of the 2-D slices, other than axis1.").SetDefault(1);
    if (kTrace) {
      AddComment(R"DOC(
Trace: the sum of each 2-D slice's diagonal over dims axis1 and axis2,
$$Out[r] = \sum_{i} Input[r; i + \max(-k, 0), i + \max(k, 0)]$$
with k = offset and r the other dims. Example: [[1, 2], [3, 4]] -> 5; offset 1 -> 2.

Gradient, by the fused op trace_grad: dOut on each diagonal element, 0 elsewhere.
)DOC");
    } else {
      AddComment(R"DOC(
Diagonal: each 2-D slice's diagonal over dims axis1 and axis2, as a new last dim,
$$Out[r, i] = Input[r; i + \max(-k, 0), i + \max(k, 0)]$$
with k = offset and r the other dims. Example: [[1, 2], [3, 4]] -> [1, 4]; offset 1 -> [2];
offset -1 -> [3].

Gradient, by the fused op diagonal_grad: dOut written back onto the diagonals, 0 elsewhere.
)DOC");
    }
  }
};

class DiagonalOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "Input");
  }
};

// Where the diagonals sit in Input: the other dims with their strides, the diagonal's
// length, the offset of its first element and the step between elements.
struct DiagonalPlan {
  std::vector<int64_t> rest_dims, rest_strides;
  int64_t length = 0, start = 0, step = 0;
  DDim out_dims(bool trace) const {
    std::vector<int64_t> d = rest_dims;
    if (!trace) d.push_back(length);
    return DDim(d);
  }
};

DiagonalPlan PlanDiagonal(const std::string& op, const DDim& in, int offset, int axis1, int axis2) {
  PL_ENFORCE(in.size() >= 2, errors::InvalidArgument("op `%s` input `Input`: expected rank >= 2, "
                                                     "received shape %s",
                                                     op, in.ToString()));
  const int a1 = NormalizeAxis(op, "attribute `axis1`", axis1, in.size());
  const int a2 = NormalizeAxis(op, "attribute `axis2`", axis2, in.size());
  PL_ENFORCE(a1 != a2, errors::InvalidArgument("op `%s` attributes `axis1` and `axis2`: expected "
                                               "two different dims, both name dim %d",
                                               op, a1));
  std::vector<int64_t> strides(in.size(), 1);
  for (int d = in.size() - 2; d >= 0; --d) strides[d] = strides[d + 1] * in[d + 1];
  DiagonalPlan p;
  for (int d = 0; d < in.size(); ++d) {
    if (d == a1 || d == a2) continue;
    p.rest_dims.push_back(in[d]);
    p.rest_strides.push_back(strides[d]);
  }
  const int64_t k = offset, row0 = std::max<int64_t>(-k, 0), col0 = std::max<int64_t>(k, 0);
  if (in[a1] >= 0 && in[a2] >= 0) {
    p.length = std::max<int64_t>(0, std::min(in[a1] - row0, in[a2] - col0));
  } else {
    p.length = -1;
  }
  p.start = row0 * strides[a1] + col0 * strides[a2];
  p.step = strides[a1] + strides[a2];
  return p;
}

// fn(offset of diagonal element i of slice r in Input, flat index of (r, i) in the diagonals).
template <typename Fn>
void ForEachDiagonalElement(const DiagonalPlan& p, Fn&& fn) {
  int64_t slices = 1;
  for (int64_t d : p.rest_dims) slices *= d;
  const int rank = static_cast<int>(p.rest_dims.size());
  std::vector<int64_t> index(rank, 0);
  for (int64_t r = 0; r < slices; ++r) {
    int64_t base = p.start;
    for (int d = 0; d < rank; ++d) base += index[d] * p.rest_strides[d];
    for (int64_t i = 0; i < p.length; ++i) fn(base + i * p.step, r * p.length + i, r);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < p.rest_dims[d]) break;
      index[d] = 0;
    }
  }
}

DiagonalPlan PlanOf(const std::string& op, const DDim& in, const framework::AttributeMap& attrs) {
  return PlanDiagonal(op, in, std::get<int>(attrs.at("offset")), std::get<int>(attrs.at("axis1")),
                      std::get<int>(attrs.at("axis2")));
}

template <bool kTrace>
void DiagonalInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim(
      "Out", PlanOf(ctx->OpType(), ctx->GetInputDim("Input"), ctx->Attrs()).out_dims(kTrace));
}

template <bool kTrace>
struct DiagonalKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* in = ctx.Input("Input");
      const DiagonalPlan p = PlanOf(ctx.Type(), in->dims(), ctx.op().Attrs());
      DenseTensor out(p.out_dims(kTrace), in->dtype());
      T* o = out.mutable_data<T>(ctx.GetPlace());
      if (kTrace) std::fill(o, o + out.numel(), T(0));
      const T* x = in->numel() > 0 ? in->data<T>() : nullptr;
      ForEachDiagonalElement(p, [&](int64_t at, int64_t flat, int64_t slice) {
        if (kTrace) {
          o[slice] += x[at];
        } else {
          o[flat] = x[at];
        }
      });
      *ctx.Output("Out") = std::move(out);
    }
  };
};

void DiagonalGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Out@GRAD");
  if (ctx->HasOutput("Input@GRAD")) ctx->SetOutputDim("Input@GRAD", ctx->GetInputDim("Input"));
}

template <bool kTrace>
struct DiagonalGradKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DDim dims = ctx.Input("Input")->dims();
      const DenseTensor* dout = ctx.Input("Out@GRAD");
      const DiagonalPlan p = PlanOf(ctx.Type(), dims, ctx.op().Attrs());
      const DDim want = p.out_dims(kTrace);
      PL_ENFORCE(dout->dims() == want,
                 errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                         ctx.Type(), want.ToString(), dout->dims().ToString()));
      DenseTensor dx(dims, dout->dtype());
      T* d = dx.mutable_data<T>(ctx.GetPlace());
      std::fill(d, d + dx.numel(), T(0));
      const T* g = dout->numel() > 0 ? dout->data<T>() : nullptr;
      ForEachDiagonalElement(
          p, [&](int64_t at, int64_t flat, int64_t slice) { d[at] = kTrace ? g[slice] : g[flat]; });
      *ctx.Output("Input@GRAD") = std::move(dx);
    }
  };
};

template <bool kTrace>
framework::OpRegistrar RegisterDiagonal(const std::string& type) {
  const framework::FusedGradDecl grad{
      {"Input"},
      {"Out"},
      {"Input"},
      kTrace ? R"DOC($$dInput[r; i + \max(-k, 0), i + \max(k, 0)] = dOut[r]$$, 0 elsewhere)DOC"
             : R"DOC($$dInput[r; i + \max(-k, 0), i + \max(k, 0)] = dOut[r, i]$$, 0 elsewhere)DOC"};
  framework::OpRegistrar op = framework::RegisterOp<DiagonalOp, DiagonalOpMaker<kTrace>>(type)
                                  .InferShape(DiagonalInferShape<kTrace>)
                                  .InferVarType(OutputDataTypeOf("Input", "Out"))
                                  .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuKernels<DiagonalKernel<kTrace>::template Kernel, float, double, int32_t, int64_t>(
      type);
  framework::RegisterFusedGradOp(type, grad).InferShape(DiagonalGradInferShape);
  RegisterPlainCpuFloatKernels<DiagonalGradKernel<kTrace>::template Kernel>(type + "_grad");
  return op;
}

}  // namespace

PL_REGISTER_OPS(RegisterDiagonalTraceOps) {
  RegisterDiagonal<false>("diagonal");
  // PaddlePaddle's version 1 of trace names the dims axis1 and axis2.
  RegisterDiagonal<true>("trace").Checkpoint(
      "trace: the dims as axis1 and axis2",
      framework::OpVersionDesc()
          .NewAttr("axis1", "the first dim of the 2-D slices", 0)
          .NewAttr("axis2", "the second dim of the 2-D slices", 1));
}

}  // namespace operators
}  // namespace paddle_like

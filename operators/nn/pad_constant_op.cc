// pad: constant padding before and after every dim (PaddlePaddle 1.x's fluid.layers.pad).
// Its gradient is a slice of dOut, so every order is differentiable.
#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/copy_box.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "pad";

class PadOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to pad, of any rank.");
    AddOutput("Out", "X with dim d widened by paddings[2 d] + paddings[2 d + 1].");
    AddAttr<std::vector<int>>("paddings",
                              "2 rank(X) values >= 0: the padding before and after each dim, in "
                              "dim order.")
        .SetDefault({});
    AddAttr<float>("pad_value", "The value of the padding.").SetDefault(0.0f);
    AddComment(R"DOC(
Pad operator. With b_d = paddings[2 d] and n_d the dims of X:
$$Out[i_0, \ldots, i_{r-1}] = \begin{cases} X[i_0 - b_0, \ldots, i_{r-1} - b_{r-1}] &
b_d \le i_d < b_d + n_d \text{ for every } d \\ pad\_value & \text{otherwise} \end{cases}$$
Example: X [[1, 2]] with paddings [1, 0, 0, 1] gives [[0, 0, 0], [1, 2, 0]].

Gradient, written with slice (so differentiable again):
$$dX = dOut[b_0 : b_0 + n_0, \ldots]$$
)DOC");
  }
};

class PadOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// The paddings, checked against X's rank.
std::vector<int> CheckPaddings(const DDim& x, const std::vector<int>& paddings) {
  PL_ENFORCE(paddings.size() == static_cast<size_t>(2 * x.size()),
             errors::InvalidArgument("op `%s` attribute `paddings`: expected %d values (two per "
                                     "dim of X %s), received %s",
                                     kOp, 2 * x.size(), x.ToString(), ListToString(paddings)));
  for (int p : paddings) {
    PL_ENFORCE(p >= 0, errors::InvalidArgument("op `%s` attribute `paddings`: expected values "
                                               ">= 0, received %s",
                                               kOp, ListToString(paddings)));
  }
  return paddings;
}

DDim PaddedDims(const DDim& x, const std::vector<int>& paddings) {
  std::vector<int64_t> out = x.ToVector();
  for (int d = 0; d < x.size(); ++d) {
    if (out[d] >= 0) out[d] += paddings[2 * d] + paddings[2 * d + 1];
  }
  return DDim(out);
}

void PadInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  ctx->SetOutputDim("Out",
                    PaddedDims(x, CheckPaddings(x, ctx->Attr<std::vector<int>>("paddings"))));
}

template <typename T>
struct PadKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const std::vector<int> paddings =
        CheckPaddings(x->dims(), ctx.Attr<std::vector<int>>("paddings"));
    DenseTensor out(PaddedDims(x->dims(), paddings), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    std::fill(o, o + out.numel(), static_cast<T>(ctx.Attr<float>("pad_value")));
    if (x->numel() > 0) {
      BoxGeometry g;
      g.big = out.dims().ToVector();
      g.box = x->dims().ToVector();
      for (int d = 0; d < x->dims().size(); ++d) g.offset.push_back(paddings[2 * d]);
      CopyBox(ctx.GetPlace(), g, x->data<T>(), o, /*to_big=*/true);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

// dX = slice(dOut): from b_d to the end less the padding after (no end where there is none).
void PadGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::vector<int>& paddings = g->Attr<std::vector<int>>("paddings");
  std::vector<int> axes, starts, ends;
  for (size_t d = 0; d * 2 + 1 < paddings.size(); ++d) {
    axes.push_back(static_cast<int>(d));
    starts.push_back(paddings[2 * d]);
    ends.push_back(paddings[2 * d + 1] > 0 ? -paddings[2 * d + 1] : INT_MAX);
  }
  g->AddOp(
      "slice", {{"Input", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
      {{"axes", axes}, {"starts", starts}, {"ends", ends}, {"decrease_axis", std::vector<int>{}}});
}

}  // namespace

PL_REGISTER_OPS(RegisterPadConstantOp) {
  framework::RegisterOp<PadOp, PadOpMaker>(kOp).InferShape(PadInferShape).GradOpMaker(PadGradMaker);
  RegisterPlainCpuKernels<PadKernel, float, double, int32_t, int64_t>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

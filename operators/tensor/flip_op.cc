// flip: X with the order of its elements reversed along the dims in `axis` (paddle.flip),
// and reverse, its PaddlePaddle 1.x twin. The gradient of each is the op applied to dOut, so
// every order is differentiable.
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "flip";
constexpr char kReverse[] = "reverse";

class FlipOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any rank >= 1.");
    AddOutput("Out", "X reversed along the dims of `axis`, with X's shape and dtype.");
    AddAttr<std::vector<int>>("axis",
                              "The dims to reverse; negative values count from the end; "
                              "a dim listed twice is reversed once.")
        .SetDefault({0});
    AddAttr<std::vector<int>>("dims",
                              "The name of `axis` in programs of op version 0; when "
                              "non-empty it is used instead.")
        .SetDefault({});
    AddComment(R"DOC(
Flip operator.

$$Out[i_0, \ldots, i_{r-1}] = X[j_0, \ldots, j_{r-1}], \quad j_d = \begin{cases}
n_d - 1 - i_d & d \in axis \\ i_d & \text{otherwise} \end{cases}$$

Gradient, written with the op itself:
$$dX = \mathrm{flip}(dOut, axis)$$
)DOC");
  }
};

class ReverseOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor of any rank >= 1.");
    AddOutput("Out", "X reversed along the dims of `axis`, with X's shape and dtype.");
    AddAttr<std::vector<int>>("axis",
                              "The dims to reverse; negative values count from the end; "
                              "a dim listed twice is reversed once.");
    AddComment(R"DOC(
Reverse operator (PaddlePaddle 1.x; the same as flip).

$$Out[i_0, \ldots, i_{r-1}] = X[j_0, \ldots, j_{r-1}], \quad j_d = \begin{cases}
n_d - 1 - i_d & d \in axis \\ i_d & \text{otherwise} \end{cases}$$

Gradient, written with the op itself:
$$dX = \mathrm{reverse}(dOut, axis)$$
)DOC");
  }
};

class FlipOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// The dims to reverse: `dims` (op version 0) when non-empty, else `axis`.
template <typename Context>
const std::vector<int>& FlipAxes(const Context& ctx) {
  const std::vector<int>& dims = ctx.template Attr<std::vector<int>>("dims");
  return dims.empty() ? ctx.template Attr<std::vector<int>>("axis") : dims;
}

// Which dims of `x` the attribute reverses; InvalidArgumentError naming the op and attribute.
std::vector<bool> FlippedDims(const char* op, const DDim& x, const std::vector<int>& axis) {
  const int rank = x.size();
  std::vector<bool> flipped(static_cast<size_t>(rank), false);
  for (int a : axis) {
    PL_ENFORCE(rank > 0 && a >= -rank && a < rank,
               errors::InvalidArgument("op `%s` attribute `axis`: expected values in [%d, %d) "
                                       "for input `X` of shape %s, received %d",
                                       op, -rank, rank, x.ToString(), a));
    flipped[a < 0 ? a + rank : a] = true;
  }
  return flipped;
}

void FlipInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  FlippedDims(kOp, x, FlipAxes(*ctx));
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

// X reversed along the dims marked in `flipped`.
template <typename T>
DenseTensor Flipped(const DenseTensor& x, const std::vector<bool>& flipped,
                    const platform::Place& place) {
  const DDim dims = x.dims();
  DenseTensor out(dims, x.dtype());
  T* o = out.mutable_data<T>(place);
  const T* in = x.data<T>();
  const int rank = dims.size();
  // Source offset of output element e, tracked with an odometer over the output index: a
  // flipped dim walks its source backwards.
  std::vector<int64_t> stride(static_cast<size_t>(rank), 1), index(static_cast<size_t>(rank), 0);
  for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * dims[d + 1];
  int64_t src = 0;
  for (int d = 0; d < rank; ++d) {
    if (flipped[d]) src += (dims[d] - 1) * stride[d];
  }
  for (int64_t e = 0; e < dims.numel(); ++e) {
    o[e] = in[src];
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t step = flipped[d] ? -stride[d] : stride[d];
      src += step;
      if (++index[d] < dims[d]) break;
      src -= step * dims[d];
      index[d] = 0;
    }
  }
  out.set_lod(x.lod());
  return out;
}

template <typename T>
struct FlipKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    *ctx.Output("Out") = Flipped<T>(*x, FlippedDims(kOp, x->dims(), FlipAxes(ctx)), ctx.GetPlace());
  }
};

// reverse (PaddlePaddle 1.x) is flip with `axis` only.
template <typename T>
struct ReverseKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    *ctx.Output("Out") = Flipped<T>(
        *x, FlippedDims(kReverse, x->dims(), ctx.Attr<std::vector<int>>("axis")), ctx.GetPlace());
  }
};

void FlipGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp(kOp, {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
           {{"axis", g->Forward().HasAttr("dims") && !g->Attr<std::vector<int>>("dims").empty()
                         ? g->Attr<std::vector<int>>("dims")
                         : g->Attr<std::vector<int>>("axis")}});
}

void ReverseInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  FlippedDims(kReverse, x, ctx->Attr<std::vector<int>>("axis"));
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

void ReverseGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  g->AddOp(kReverse, {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
           {{"axis", g->Attr<std::vector<int>>("axis")}});
}

}  // namespace

PL_REGISTER_OPS(RegisterFlipOp) {
  framework::RegisterOp<FlipOp, FlipOpMaker>(kOp)
      .InferShape(FlipInferShape)
      .GradOpMaker(FlipGradMaker)
      .Checkpoint("attribute `dims` renamed `axis`",
                  framework::OpVersionDesc().NewAttr("axis", "the dims to reverse (was `dims`)",
                                                     std::vector<int>{0}));
  RegisterPlainCpuKernels<FlipKernel, float, double, int32_t, int64_t, bool, uint8_t,
                          std::complex<float>, std::complex<double>>(kOp);
  framework::RegisterOp<FlipOp, ReverseOpMaker>(kReverse)
      .InferShape(ReverseInferShape)
      .GradOpMaker(ReverseGradMaker);
  RegisterPlainCpuKernels<ReverseKernel, float, double, int32_t, int64_t, bool, uint8_t>(kReverse);
}

}  // namespace operators
}  // namespace paddle_like

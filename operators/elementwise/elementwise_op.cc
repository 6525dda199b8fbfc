// Binary elementwise ops with broadcasting (elementwise_add, _sub, _mul, _div): one op
// class, one maker template and one kernel template, instantiated per tag of
// elementwise_op.h.
#include "operators/elementwise/elementwise_op.h"

#include <string>

#include "operators/common.h"
#include "operators/math/broadcast.h"
#include "operators/registry_table.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr const char kBroadcastDoc[] = R"DOC(
applied elementwise with broadcasting:
- If X and Y have the same shape, Out has that shape.
- Otherwise the input of lower rank (Y for equal ranks) is aligned to the other one
  starting at dim `axis` (axis = -1: the difference of the ranks, i.e. right alignment as
  in NumPy). Trailing size-1 dims of the aligned input are dropped when they would run
  past the end.
- Aligned dims must be equal or one of them 1; dims of size 1 broadcast on either side.
  Out has the broadcast shape and the LoD of X.

Examples (X shape, Y shape, axis -> Out shape):
  [2, 3, 4, 5], [5],       -1 -> [2, 3, 4, 5]
  [2, 3, 4, 5], [3, 4],     1 -> [2, 3, 4, 5]
  [2, 3, 4, 5], [3, 1],     1 -> [2, 3, 4, 5]
  [2, 3, 4, 5], [2, 1],     0 -> [2, 3, 4, 5]
  [2, 3],       [3, 1],     1 -> [2, 3]
  [2, 1, 4],    [3, 1],    -1 -> [2, 3, 4]
  [3],          [2, 3],    -1 -> [2, 3]
)DOC";

template <typename Tag>
class ElementwiseOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The first operand.");
    AddInput("Y", "The second operand, same dtype as X.");
    AddOutput("Out", "The broadcast result, dtype of X.");
    AddAttr<int>("axis",
                 "Dim of the higher-rank input where the lower-rank input starts; -1 aligns "
                 "the trailing dims.")
        .SetDefault(-1);
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddAttr<std::string>("x_data_format", "Layout of X for oneDNN kernels (unused here).")
        .SetDefault("")
        .AsExtra();
    AddAttr<std::string>("y_data_format", "Layout of Y for oneDNN kernels (unused here).")
        .SetDefault("")
        .AsExtra();
    AddAttr<float>("Scale_x", "Quantization scale of X (int8 kernels only).")
        .SetDefault(1.0f)
        .AsExtra();
    AddAttr<float>("Scale_y", "Quantization scale of Y (int8 kernels only).")
        .SetDefault(1.0f)
        .AsExtra();
    AddAttr<float>("Scale_out", "Quantization scale of Out (int8 kernels only).")
        .SetDefault(1.0f)
        .AsExtra();
    AddComment(std::string("Elementwise operator `") + Tag::kType + "`.\n\n$$" + Tag::kFormula +
               "$$\n" + kBroadcastDoc);
  }
};

class ElementwiseOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void ElementwiseInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  const math::BroadcastDims dims = math::ComputeBroadcastDims(
      ctx->OpType(), ctx->GetInputDim("X"), ctx->GetInputDim("Y"),
      ctx->Attr<int>("axis"));
  ctx->SetOutputDim("Out", dims.out);
  ctx->ShareLoD("X", "Out");
}

// Out[k] = f(x[k * xs], y[k * ys]) for k < n; the strides are 0 or 1, and the branches let
// the compiler vectorise each case.
template <typename T, typename F>
void BinaryRun(const F& f, const T* x, int64_t xs, const T* y, int64_t ys, T* out, int64_t n) {
  if (xs == 1 && ys == 1) {
    for (int64_t k = 0; k < n; ++k) out[k] = f(x[k], y[k]);
  } else if (xs == 1) {
    const T b = y[0];
    for (int64_t k = 0; k < n; ++k) out[k] = f(x[k], b);
  } else if (ys == 1) {
    const T a = x[0];
    for (int64_t k = 0; k < n; ++k) out[k] = f(a, y[k]);
  } else {
    const T v = f(x[0], y[0]);
    for (int64_t k = 0; k < n; ++k) out[k] = v;
  }
}

// Floating inputs were cast to the kernel dtype by the framework; an integer one was not.
template <typename T>
void CheckDataType(const ExecutionContext& ctx, const char* slot, const DenseTensor& t) {
  const DataType expected = platform::ToDataType<T>();
  PL_ENFORCE(t.dtype() == expected,
             errors::InvalidArgument("op `%s` input `%s`: expected dtype %s, received %s",
                                     ctx.Type(), slot, platform::DataTypeName(expected),
                                     platform::DataTypeName(t.dtype())));
}

template <typename Tag>
struct ElementwiseCpuKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      const DenseTensor* x = ctx.Input("X");
      const DenseTensor* y = ctx.Input("Y");
      DenseTensor* out = ctx.Output("Out");
      CheckDataType<T>(ctx, "X", *x);
      CheckDataType<T>(ctx, "Y", *y);
      const math::BroadcastPlan plan = math::MakeBroadcastPlan(math::ComputeBroadcastDims(
          ctx.Type(), x->dims(), y->dims(), ctx.Attr<int>("axis")));
      T* o = out->mutable_data<T>(ctx.GetPlace());
      if (plan.numel == 0) return;
      const T* xp = x->data<T>();
      const T* yp = y->data<T>();
      const typename Tag::template Functor<T> f{};
      const int64_t xs = plan.x_inner_stride();
      const int64_t ys = plan.y_inner_stride();
      ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
          plan.numel, 1 << 14, [&](int64_t begin, int64_t end) {
            math::ForEachBroadcastRun(
                plan, begin, end, [&](int64_t oo, int64_t xo, int64_t yo, int64_t n) {
                  BinaryRun(f, xp + xo, xs, yp + yo, ys, o + oo, n);
                });
          });
    }
  };
};

}  // namespace

void RegisterElementwiseOps() {
  ForEachElementwise([](auto tag) {
    using Tag = decltype(tag);
    const std::string type = Tag::kType;
    // PaddlePaddle's saved programs record version 1 for these ops.
    framework::RegisterOp<ElementwiseOp, ElementwiseOpMaker<Tag>>(type)
        .InferShape(ElementwiseInferShape)
        .Checkpoint("Register " + type + " for adding the attribute of Scale_y");
    RegisterPlainCpuFloatKernels<ElementwiseCpuKernel<Tag>::template Kernel>(type);
  });
}

}  // namespace operators
}  // namespace paddle_like

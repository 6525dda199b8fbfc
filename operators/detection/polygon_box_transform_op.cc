// polygon_box_transform: EAST-style geometry maps (offsets from each pixel, at a stride of 4,
// to the corners of its text polygon) turned into absolute corner coordinates.
#include <string>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "polygon_box_transform";

class PolygonBoxTransformOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "[N, 2n, H, W] offsets: channel 2k holds x offsets, 2k + 1 y offsets.");
    AddOutput("Output", "Input's shape: the corner coordinates.");
    AddComment(R"DOC(
polygon_box_transform, at pixel (h, w) of channel c:
$$Output_{n,c,h,w} = 4w - Input_{n,c,h,w} \;\; (c \text{ even}), \qquad
Output_{n,c,h,w} = 4h - Input_{n,c,h,w} \;\; (c \text{ odd})$$
No gradient.
)DOC");
  }
};

class PolygonBoxTransformOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Input");
  }
};

void CheckGeometryDims(const std::string& op, const DDim& d) {
  PL_ENFORCE(d.size() == 4 && (d[1] < 0 || d[1] % 2 == 0),
             errors::InvalidArgument("op `%s` input `Input`: expected [N, 2n, H, W] (an even "
                                     "channel count), received %s",
                                     op, d.ToString()));
}

void PolygonBoxTransformInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireOutput("Output");
  const DDim in = ctx->GetInputDim("Input");
  CheckGeometryDims(ctx->OpType(), in);
  ctx->SetOutputDim("Output", in);
}

template <typename T>
struct PolygonBoxTransformKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* in_t = ctx.Input("Input");
    const DDim d = in_t->dims();
    CheckGeometryDims(ctx.Type(), d);
    DenseTensor out_t(d, in_t->dtype());
    T* out = out_t.mutable_data<T>(ctx.GetPlace());
    const T* in = in_t->data<T>();
    const int64_t planes = d[0] * d[1], h = d[2], w = d[3];
    for (int64_t p = 0; p < planes; ++p) {
      const bool x_plane = (p % d[1]) % 2 == 0;
      for (int64_t i = 0; i < h; ++i) {
        for (int64_t j = 0; j < w; ++j) {
          const int64_t at = (p * h + i) * w + j;
          out[at] = static_cast<T>(4 * (x_plane ? j : i)) - in[at];
        }
      }
    }
    *ctx.Output("Output") = std::move(out_t);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterPolygonBoxTransformOp) {
  framework::RegisterOp<PolygonBoxTransformOp, PolygonBoxTransformOpMaker>(kOp)
      .InferShape(PolygonBoxTransformInferShape)
      .InferVarType(OutputDataTypeOf("Input", "Output"))
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuFloatKernels<PolygonBoxTransformKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

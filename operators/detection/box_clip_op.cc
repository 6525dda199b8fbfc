// box_clip: boxes clipped to their image (PaddlePaddle's box_clip, used after box decoding in
// two-stage detectors). The boxes of all images are stacked with a LoD of boxes per image.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "operators/common.h"
#include "operators/detection/image_rows.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "box_clip";

class BoxClipOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input",
             "Boxes [M, ..., 4] as (x1, y1, x2, y2), the boxes of all images stacked "
             "along dim 0 with a level-1 LoD of rows per image (not needed for one "
             "image).");
    AddInput("ImInfo", "[N, 3]: each image's height, width and scale.");
    AddOutput("Output", "Input's shape and LoD, each box clipped.");
    AddComment(R"DOC(
Box clip. For image n with ImInfo (h, w, s) let W = round(w / s) and H = round(h / s); each
of its boxes becomes
$$(\mathrm{clip}(x_1, 0, W - 1), \mathrm{clip}(y_1, 0, H - 1), \mathrm{clip}(x_2, 0, W - 1),
\mathrm{clip}(y_2, 0, H - 1))$$
)DOC");
  }
};

class BoxClipOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Input");
  }
};

void CheckBoxClip(const std::string& op, const DDim& input, const DDim& im_info) {
  PL_ENFORCE(input.size() >= 2 && (input[input.size() - 1] == 4 || input[input.size() - 1] < 0),
             errors::InvalidArgument("op `%s` input `Input`: expected [M, ..., 4], received "
                                     "shape %s",
                                     op, input.ToString()));
  PL_ENFORCE(im_info.size() == 2 && (im_info[1] == 3 || im_info[1] < 0),
             errors::InvalidArgument("op `%s` input `ImInfo`: expected [N, 3], received shape "
                                     "%s",
                                     op, im_info.ToString()));
}

void BoxClipInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("ImInfo");
  ctx->RequireOutput("Output");
  const DDim input = ctx->GetInputDim("Input");
  CheckBoxClip(ctx->OpType(), input, ctx->GetInputDim("ImInfo"));
  ctx->SetOutputDim("Output", input);
  ctx->ShareLoD("Input", "Output");
}

template <typename T>
struct BoxClipKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* im_info = ctx.Input("ImInfo");
    CheckBoxClip(kOp, input->dims(), im_info->dims());
    const int64_t rows = input->dims()[0], images = im_info->dims()[0];
    const std::vector<int64_t> starts =
        input->lod().empty() && images == 1
            ? std::vector<int64_t>{0, rows}
            : ImageRowStarts(ctx, "Input", "", rows, "box clipping");
    PL_ENFORCE(static_cast<int64_t>(starts.size()) - 1 == images,
               errors::InvalidArgument("op `%s`: Input holds boxes of %zu images, ImInfo %lld", kOp,
                                       starts.size() - 1, static_cast<long long>(images)));
    const int64_t per_row = input->numel() / std::max<int64_t>(rows, 1);
    DenseTensor out(input->dims(), input->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = input->data<T>();
    const T* info = im_info->data<T>();
    for (int64_t n = 0; n < images; ++n) {
      const T w = std::round(info[n * 3 + 1] / info[n * 3 + 2]);
      const T h = std::round(info[n * 3] / info[n * 3 + 2]);
      for (int64_t i = starts[n] * per_row; i < starts[n + 1] * per_row; ++i) {
        const T bound = (i % 4 == 0 || i % 4 == 2) ? w - 1 : h - 1;
        o[i] = std::max(std::min(in[i], bound), T(0));
      }
    }
    out.set_lod(input->lod());
    *ctx.Output("Output") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterBoxClipOp) {
  framework::RegisterOp<BoxClipOp, BoxClipOpMaker>(kOp).InferShape(BoxClipInferShape);
  RegisterPlainCpuFloatKernels<BoxClipKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

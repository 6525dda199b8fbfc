// yolo_box: decodes one YOLOv3 head into boxes in image pixels and per-class scores, as
// PaddlePaddle computes them (scale_x_y, iou_aware, clip_bbox).
#include <string>
#include <vector>

#include "operators/common.h"
#include "operators/detection/yolo_box_util.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

class YoloBoxOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Head output [N, A * (5 + class_num), H, W] (iou_aware: [N, A * (6 + "
                  "class_num), H, W], the A IoU channels first).");
    AddInput("ImgSize", "int32 [N, 2]: each image's (height, width) in pixels.");
    AddOutput("Boxes", "[N, A * H * W, 4] boxes [x_min, y_min, x_max, y_max] in pixels; zero "
                       "where the confidence is below conf_thresh.");
    AddOutput("Scores", "[N, A * H * W, class_num] confidence * class probability; zero where "
                        "the confidence is below conf_thresh.");
    AddAttr<std::vector<int>>("anchors", "Anchor (width, height) pairs in input pixels.")
        .SetDefault(std::vector<int>{});
    AddAttr<int>("class_num", "Number of classes (> 0).").SetDefault(1);
    AddAttr<float>("conf_thresh", "Boxes with a lower confidence are left zero.")
        .SetDefault(0.01f);
    AddAttr<int>("downsample_ratio", "Input pixels per cell of this head (> 0).").SetDefault(32);
    AddAttr<bool>("clip_bbox", "Clip boxes to the image.").SetDefault(true);
    AddAttr<float>("scale_x_y", "Scale of the centre offsets (YOLOv4's grid sensitivity).")
        .SetDefault(1.0f);
    AddAttr<bool>("iou_aware", "X carries IoU predictions that enter the confidence.")
        .SetDefault(false);
    AddAttr<float>("iou_aware_factor", "Confidence = obj^(1 - f) * iou^f with iou_aware.")
        .SetDefault(0.5f);
    AddComment(R"DOC(
YOLO box operator.

For image n, anchor a with size (p_w, p_h), cell (i, j) (column, row) of an H x W grid,
input size (W d, H d) with d = downsample_ratio, image size (h_img, w_img) and
s = scale_x_y, b = -0.5 (s - 1):
$$c_x = (i + \sigma(t_x) s + b)\, w_{img} / W, \quad c_y = (j + \sigma(t_y) s + b)\, h_{img} / H$$
$$w = e^{t_w} p_w\, w_{img} / (W d), \quad h = e^{t_h} p_h\, h_{img} / (H d)$$
Box = [c_x - w/2, c_y - h/2, c_x + w/2, c_y + h/2], clipped to [0, w_img - 1] x
[0, h_img - 1] with clip_bbox. conf = sigma(t_obj) (iou_aware: sigma(t_obj)^(1-f) sigma(t_iou)^f);
Score[k] = conf sigma(t_k). Where conf < conf_thresh, box and scores stay 0. Rows are
ordered anchor, row, column.
)DOC");
  }
};

class YoloBoxOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string& slot, DataType, DataType) const override {
    return slot == "X";
  }
};

struct YoloGeometry {
  int64_t n = 0, h = 0, w = 0, anchors = 0, classes = 0;
  bool iou_aware = false;
  int64_t BoxCount() const { return anchors * h * w; }
};

YoloGeometry Check(const std::string& op, const DDim& x, const framework::AttributeMap& attrs) {
  PL_ENFORCE(x.size() == 4, errors::InvalidArgument("op `%s` input `X`: expected a 4-D tensor, "
                                                    "received shape %s",
                                                    op, x.ToString()));
  const auto& anchors = std::get<std::vector<int>>(attrs.at("anchors"));
  PL_ENFORCE(!anchors.empty() && anchors.size() % 2 == 0,
             errors::InvalidArgument("op `%s` attribute `anchors`: expected (width, height) "
                                     "pairs, received %zu values",
                                     op, anchors.size()));
  YoloGeometry g;
  g.n = x[0];
  g.h = x[2];
  g.w = x[3];
  g.anchors = static_cast<int64_t>(anchors.size() / 2);
  g.classes = std::get<int>(attrs.at("class_num"));
  g.iou_aware = std::get<bool>(attrs.at("iou_aware"));
  PL_ENFORCE(g.classes > 0, errors::InvalidArgument(
                                "op `%s` attribute `class_num`: expected > 0, received %lld", op,
                                static_cast<long long>(g.classes)));
  PL_ENFORCE(std::get<int>(attrs.at("downsample_ratio")) > 0,
             errors::InvalidArgument("op `%s` attribute `downsample_ratio`: expected > 0, "
                                     "received %d",
                                     op, std::get<int>(attrs.at("downsample_ratio"))));
  const int64_t channels = g.anchors * (5 + g.classes + (g.iou_aware ? 1 : 0));
  PL_ENFORCE(x[1] < 0 || x[1] == channels,
             errors::InvalidArgument("op `%s` input `X`: expected %lld channels (%lld anchors * "
                                     "(%s + class_num %lld)), received shape %s",
                                     op, static_cast<long long>(channels),
                                     static_cast<long long>(g.anchors), g.iou_aware ? "6" : "5",
                                     static_cast<long long>(g.classes), x.ToString()));
  return g;
}

void YoloBoxInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("ImgSize");
  ctx->RequireOutput("Boxes");
  ctx->RequireOutput("Scores");
  const YoloGeometry g = Check(ctx->OpType(), ctx->GetInputDim("X"), ctx->Attrs());
  const int64_t boxes = g.h < 0 || g.w < 0 ? -1 : g.BoxCount();
  ctx->SetOutputDim("Boxes", DDim{g.n, boxes, 4});
  ctx->SetOutputDim("Scores", DDim{g.n, boxes, g.classes});
}

template <typename T>
struct YoloBoxKernel {
  static void Compute(const ExecutionContext& ctx) {
    const yolo::YoloBoxParams p = yolo::ResolveYoloBox(ctx);
    const DenseTensor* x = ctx.Input("X");
    const std::vector<int64_t> sizes = ReadIntValues(*ctx.Input("ImgSize"), ctx.Type(), "ImgSize");
    const auto& anchors = ctx.Attr<std::vector<int>>("anchors");
    const int64_t box_count = p.BoxCount();
    DenseTensor boxes(DDim{p.n, box_count, 4}, x->dtype());
    DenseTensor scores(DDim{p.n, box_count, p.classes}, x->dtype());
    T* bx = boxes.mutable_data<T>(ctx.GetPlace());
    T* sc = scores.mutable_data<T>(ctx.GetPlace());
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    for (int64_t b = 0; b < p.n; ++b) {
      for (int64_t a = 0; a < p.anchors; ++a) {
        for (int64_t cell = 0; cell < p.Stride(); ++cell) {
          const int64_t k = b * box_count + a * p.Stride() + cell;
          yolo::DecodeYoloRow(p, in + b * p.ImageSize(), a, cell, sizes[2 * b], sizes[2 * b + 1],
                              anchors[2 * a], anchors[2 * a + 1], bx + k * 4, sc + k * p.classes);
        }
      }
    }
    *ctx.Output("Boxes") = std::move(boxes);
    *ctx.Output("Scores") = std::move(scores);
  }
};

}  // namespace

namespace yolo {

YoloBoxParams ResolveYoloBox(const ExecutionContext& ctx) {
  const std::string& op = ctx.Type();
  const framework::AttributeMap& attrs = ctx.op().Attrs();
  const YoloGeometry g = Check(op, ctx.Input("X")->dims(), attrs);
  const DenseTensor* img_size = ctx.Input("ImgSize");
  PL_ENFORCE(img_size->dims() == DDim({g.n, 2}),
             errors::InvalidArgument("op `%s` input `ImgSize`: expected shape [%lld, 2], "
                                     "received %s",
                                     op, static_cast<long long>(g.n),
                                     img_size->dims().ToString()));
  PL_ENFORCE(img_size->dtype() == DataType::INT32 || img_size->dtype() == DataType::INT64,
             errors::InvalidArgument("op `%s` input `ImgSize`: expected an int32 or int64 "
                                     "tensor, received %s",
                                     op, platform::DataTypeName(img_size->dtype())));
  YoloBoxParams p;
  p.n = g.n;
  p.h = g.h;
  p.w = g.w;
  p.anchors = g.anchors;
  p.classes = g.classes;
  p.iou_aware = g.iou_aware;
  p.downsample = ctx.Attr<int>("downsample_ratio");
  p.clip = ctx.Attr<bool>("clip_bbox");
  p.conf_thresh = ctx.Attr<float>("conf_thresh");
  p.scale = ctx.Attr<float>("scale_x_y");
  p.bias = -0.5 * (static_cast<double>(p.scale) - 1.);
  p.iou_factor = ctx.Attr<float>("iou_aware_factor");
  return p;
}

}  // namespace yolo

PL_REGISTER_OPS(RegisterYoloBoxOp) {
  framework::RegisterOp<YoloBoxOp, YoloBoxOpMaker>("yolo_box")
      .InferShape(YoloBoxInferShape)
      .Checkpoint("iou_aware", framework::OpVersionDesc()
                                   .NewAttr("iou_aware", "IoU predictions enter the confidence",
                                            false)
                                   .NewAttr("iou_aware_factor", "weight of the IoU prediction",
                                            0.5f));
  RegisterPlainCpuFloatKernels<YoloBoxKernel>("yolo_box");
}

}  // namespace operators
}  // namespace paddle_like

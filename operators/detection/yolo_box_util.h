// yolo_box's decoding (yolo_box_op.cc), shared by its CPU kernel and its CUDA kernel
// (detection_op.cu): the host resolves the geometry and attributes once, and both devices
// decode every (image, anchor, cell) row with the same formulas.
#pragma once

#include <cmath>
#include <cstdint>

#include "operators/common.h"
#include "operators/math/hostdevice.h"

namespace paddle_like {
namespace operators {
namespace yolo {

// X's geometry and the attributes, checked. Rows of Boxes and Scores are ordered image,
// anchor, row, column: row k of image b is a * H W + cell with cell = row * W + column.
struct YoloBoxParams {
  int64_t n = 0, h = 0, w = 0, anchors = 0, classes = 0;
  int64_t downsample = 32;
  bool iou_aware = false, clip = true;
  float conf_thresh = 0.01f, scale = 1.f, iou_factor = 0.5f;
  double bias = 0;  // -0.5 (scale_x_y - 1), rounded to T where used.

  PL_HOSTDEVICE int64_t Stride() const { return h * w; }
  PL_HOSTDEVICE int64_t BoxCount() const { return anchors * h * w; }
  // Values of one image in X: [A IoU planes (iou_aware)] then per anchor 5 + class_num planes.
  PL_HOSTDEVICE int64_t ImageSize() const {
    return anchors * (5 + classes + (iou_aware ? 1 : 0)) * Stride();
  }
};

// Checks X's shape, ImgSize's shape and dtype (int32 or int64, [N, 2]) and the attributes;
// errors name the op. Defined in yolo_box_op.cc.
YoloBoxParams ResolveYoloBox(const ExecutionContext& ctx);

template <typename T>
PL_HOSTDEVICE T Sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

// Decodes row k = a * H W + cell of image b, whose X values start at `image`, with the
// image's size (img_h, img_w) and the anchor's size in input pixels: writes its 4 box
// values to `box` and its class_num scores to `scores`, all zero where the confidence is
// below conf_thresh.
template <typename T>
PL_HOSTDEVICE void DecodeYoloRow(const YoloBoxParams& p, const T* image, int64_t a, int64_t cell,
                                 int64_t img_h, int64_t img_w, int anchor_w, int anchor_h, T* box,
                                 T* scores) {
  const int64_t stride = p.Stride(), entries = (5 + p.classes) * stride;
  const T* heads = image + (p.iou_aware ? p.anchors * stride : 0);
  const T* x = heads + a * entries + cell;
  T conf = Sigmoid(x[4 * stride]);
  if (p.iou_aware) {
    const T iou = Sigmoid(image[a * stride + cell]);
    const T f = static_cast<T>(p.iou_factor);
    conf = std::pow(conf, T(1) - f) * std::pow(iou, f);
  }
  if (conf < static_cast<T>(p.conf_thresh)) {
    for (int c = 0; c < 4; ++c) box[c] = T(0);
    for (int64_t c = 0; c < p.classes; ++c) scores[c] = T(0);
    return;
  }
  const int64_t row = cell / p.w, col = cell % p.w;
  const T scale = static_cast<T>(p.scale), bias = static_cast<T>(p.bias);
  const T cx = (static_cast<T>(col) + Sigmoid(x[0]) * scale + bias) * static_cast<T>(img_w) /
               static_cast<T>(p.w);
  const T cy = (static_cast<T>(row) + Sigmoid(x[stride]) * scale + bias) * static_cast<T>(img_h) /
               static_cast<T>(p.h);
  const T bw = std::exp(x[2 * stride]) * static_cast<T>(anchor_w) * static_cast<T>(img_w) /
               static_cast<T>(p.downsample * p.w);
  const T bh = std::exp(x[3 * stride]) * static_cast<T>(anchor_h) * static_cast<T>(img_h) /
               static_cast<T>(p.downsample * p.h);
  box[0] = cx - bw / 2;
  box[1] = cy - bh / 2;
  box[2] = cx + bw / 2;
  box[3] = cy + bh / 2;
  if (p.clip) {
    box[0] = box[0] > 0 ? box[0] : T(0);
    box[1] = box[1] > 0 ? box[1] : T(0);
    box[2] = box[2] < img_w - 1 ? box[2] : static_cast<T>(img_w - 1);
    box[3] = box[3] < img_h - 1 ? box[3] : static_cast<T>(img_h - 1);
  }
  for (int64_t c = 0; c < p.classes; ++c) scores[c] = conf * Sigmoid(x[(5 + c) * stride]);
}

}  // namespace yolo
}  // namespace operators
}  // namespace paddle_like

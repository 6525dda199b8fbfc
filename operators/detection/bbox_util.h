// Box geometry shared by the detection ops, with PaddlePaddle's conventions: a box is
// [x_min, y_min, x_max, y_max]; with `normalized` false coordinates are pixel indices, so a
// box's width is x_max - x_min + 1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace paddle_like {
namespace operators {

template <typename T>
T BoxArea(const T* box, bool normalized) {
  if (box[2] < box[0] || box[3] < box[1]) return T(0);  // An inverted box has no area.
  const T w = box[2] - box[0], h = box[3] - box[1];
  return normalized ? w * h : (w + 1) * (h + 1);
}

// Intersection over union of two boxes (0 when they do not meet).
template <typename T>
T JaccardOverlap(const T* a, const T* b, bool normalized) {
  if (b[0] > a[2] || b[2] < a[0] || b[1] > a[3] || b[3] < a[1]) return T(0);
  const T norm = normalized ? T(0) : T(1);
  const T inter_w = std::min(a[2], b[2]) - std::max(a[0], b[0]) + norm;
  const T inter_h = std::min(a[3], b[3]) - std::max(a[1], b[1]) + norm;
  const T inter = inter_w * inter_h;
  return inter / (BoxArea(a, normalized) + BoxArea(b, normalized) - inter);
}

// Boxes held one coordinate per row (and their areas), so that the IoU of one box with many is
// a loop without branches that the compiler vectorizes.
template <typename T>
struct BoxRows {
  std::vector<T> x0, y0, x1, y1, area;

  size_t size() const { return x0.size(); }
  void Add(const T* box, bool normalized) {
    x0.push_back(box[0]);
    y0.push_back(box[1]);
    x1.push_back(box[2]);
    y1.push_back(box[3]);
    area.push_back(BoxArea(box, normalized));
  }
  // JaccardOverlap(a, box j) with the same arithmetic in the same order, so the same result:
  // a = [ax0, ay0, ax1, ay1] of area `area_a`; `norm` is 0 (normalized) or 1.
  T IoU(size_t j, T ax0, T ay0, T ax1, T ay1, T area_a, T norm) const {
    const Overlap o = OverlapWith(j, ax0, ay0, ax1, ay1, area_a, norm);
    return o.apart ? T(0) : o.iou;
  }
  // Whether IoU(j, ...) > threshold, as one expression of comparisons the loops over j
  // vectorize. A NaN IoU (two boxes of no area that meet: 0 / 0) counts as above when
  // `nan_above`.
  template <bool nan_above>
  bool IoUAbove(size_t j, T ax0, T ay0, T ax1, T ay1, T area_a, T norm, T threshold) const {
    const Overlap o = OverlapWith(j, ax0, ay0, ax1, ay1, area_a, norm);
    const bool above = nan_above ? !(o.iou <= threshold) : o.iou > threshold;
    return (o.apart & (T(0) > threshold)) | (!o.apart & above);
  }

 private:
  // Every term is computed (the division too, whatever `apart`) and then selected: no branch.
  struct Overlap {
    bool apart;  // The boxes do not meet: the IoU is 0 whatever `iou` holds.
    T iou;
  };
  Overlap OverlapWith(size_t j, T ax0, T ay0, T ax1, T ay1, T area_a, T norm) const {
    const bool apart = (x0[j] > ax1) | (x1[j] < ax0) | (y0[j] > ay1) | (y1[j] < ay0);
    const T inter = (std::min(ax1, x1[j]) - std::max(ax0, x0[j]) + norm) *
                    (std::min(ay1, y1[j]) - std::max(ay0, y0[j]) + norm);
    return {apart, inter / (area_a + area[j] - inter)};
  }
};

// What a NaN IoU does in greedy NMS. PaddlePaddle's multiclass NMS, generate_proposals and
// retinanet_detection_output keep a box while `IoU <= threshold`, so NaN suppresses; its `nms`
// op suppresses when `IoU > threshold`, so NaN keeps.
enum class NanIoU { kSuppresses, kKeeps };

// Greedy non-maximum suppression over candidates visited in `order` (best first): a box is
// kept when its IoU with every kept box is at most the threshold, which is multiplied by eta
// after each kept box while eta < 1 and it is above 0.5. `box_of(i)` gives candidate i's box.
// Returns the kept candidates in the order kept.
template <typename T, typename BoxOf>
std::vector<int64_t> GreedyNms(const std::vector<int64_t>& order, const BoxOf& box_of, T threshold,
                               float eta, bool normalized, NanIoU nan) {
  std::vector<int64_t> kept;
  BoxRows<T> rows;  // The kept boxes.
  const T norm = normalized ? T(0) : T(1);
  // Kept boxes are tested a block at a time: within a block without an early exit (the loop
  // vectorizes), between blocks stopping at the first block that suppresses.
  constexpr size_t kBlock = 64;
  for (int64_t cand : order) {
    const T* b = box_of(cand);
    const T x0 = b[0], y0 = b[1], x1 = b[2], y1 = b[3];  // Locals: no reload per j.
    const T area = BoxArea(b, normalized);
    bool keep = true;
    for (size_t start = 0; keep && start < rows.size(); start += kBlock) {
      const size_t end = std::min(rows.size(), start + kBlock);
      int suppressed = 0;
      if (nan == NanIoU::kSuppresses) {
        for (size_t j = start; j < end; ++j) {
          suppressed |= rows.template IoUAbove<true>(j, x0, y0, x1, y1, area, norm, threshold);
        }
      } else {
        for (size_t j = start; j < end; ++j) {
          suppressed |= rows.template IoUAbove<false>(j, x0, y0, x1, y1, area, norm, threshold);
        }
      }
      keep = suppressed == 0;
    }
    if (!keep) continue;
    kept.push_back(cand);
    rows.Add(b, normalized);
    if (eta < 1 && threshold > T(0.5)) threshold *= eta;
  }
  return kept;
}

}  // namespace operators
}  // namespace paddle_like

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

// Greedy non-maximum suppression over candidates visited in `order` (best first): a box is
// kept when its IoU with every kept box is at most the threshold, which is multiplied by eta
// after each kept box while eta < 1 and it is above 0.5. `box_of(i)` gives candidate i's box.
// Returns the kept candidates in the order kept.
template <typename T, typename BoxOf>
std::vector<int64_t> GreedyNms(const std::vector<int64_t>& order, const BoxOf& box_of, T threshold,
                               float eta, bool normalized) {
  std::vector<int64_t> kept;
  for (int64_t cand : order) {
    bool keep = true;
    for (int64_t k : kept) {
      if (JaccardOverlap(box_of(cand), box_of(k), normalized) > threshold) {
        keep = false;
        break;
      }
    }
    if (keep) kept.push_back(cand);
    if (keep && eta < 1 && threshold > T(0.5)) threshold *= eta;
  }
  return kept;
}

}  // namespace operators
}  // namespace paddle_like

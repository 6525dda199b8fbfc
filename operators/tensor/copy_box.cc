#include "operators/tensor/copy_box.h"

namespace paddle_like {
namespace operators {

BoxGeometry MergeBoxDims(const BoxGeometry& g) {
  BoxGeometry m;
  if (g.box.empty()) {
    m.big = m.box = {1};
    m.offset = {0};
    return m;
  }
  // Walk from the innermost dim; a dim that the box spans fully (offset 0) folds into the
  // dim before it.
  std::vector<int64_t> big = {g.big.back()};
  std::vector<int64_t> box = {g.box.back()};
  std::vector<int64_t> offset = {g.offset.back()};
  for (int i = static_cast<int>(g.box.size()) - 2; i >= 0; --i) {
    if (box.back() == big.back()) {
      const int64_t inner = big.back();
      big.back() = g.big[i] * inner;
      box.back() = g.box[i] * inner;
      offset.back() = g.offset[i] * inner;
    } else {
      big.push_back(g.big[i]);
      box.push_back(g.box[i]);
      offset.push_back(g.offset[i]);
    }
  }
  m.big.assign(big.rbegin(), big.rend());
  m.box.assign(box.rbegin(), box.rend());
  m.offset.assign(offset.rbegin(), offset.rend());
  return m;
}

}  // namespace operators
}  // namespace paddle_like

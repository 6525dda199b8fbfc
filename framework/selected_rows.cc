#include "framework/selected_rows.h"

namespace paddle_like {
namespace framework {

DDim SelectedRows::dense_dims() const {
  std::vector<int64_t> d = value_.dims().ToVector();
  if (d.empty()) return DDim({height_});
  d[0] = height_;
  return DDim(d);
}

}  // namespace framework
}  // namespace paddle_like

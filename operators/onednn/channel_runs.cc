#include "operators/onednn/channel_runs.h"

#include <algorithm>

namespace paddle_like {
namespace operators {

bool ChannelRuns::Fits(const dnnl::memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  if (d.format_kind != dnnl_blocked || d.ndims < 2 || d.ndims > 5) return false;
  const dnnl_blocking_desc_t& b = d.format_desc.blocking;
  if (b.inner_nblks == 1) return b.inner_idxs[0] == 1 && b.inner_blks[0] > 1;
  return b.inner_nblks == 0 && b.strides[1] == 1 && d.dims[1] > 1;
}

ChannelRuns::ChannelRuns(const dnnl::memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  const dnnl_blocking_desc_t& b = d.format_desc.blocking;
  channels_ = d.dims[1];
  if (b.inner_nblks == 1) {
    run_ = b.inner_blks[0];
    runs_ = d.padded_dims[1] / run_;
    run_stride_ = b.strides[1];
  } else {
    run_ = channels_;
    runs_ = 1;
  }
  offset0_ = d.offset0;
  spatial_ = d.ndims - 2;
  for (int i = 0; i < d.ndims; ++i) {
    dims_[i] = d.dims[i];
    strides_[i] = b.strides[i];
  }
  for (int i = 2; i < d.ndims; ++i) positions_ *= d.dims[i];
}

void ChannelRuns::PaddedValues(const float* values, float pad,
                               std::vector<float>* table) const {
  table->assign(static_cast<size_t>(run_ * runs_), pad);
  std::copy(values, values + channels_, table->begin());
}

}  // namespace operators
}  // namespace paddle_like

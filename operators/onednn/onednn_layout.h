// Tensors in oneDNN's own layouts (framework::OpaqueLayout): a blocked format chosen by a
// primitive (nChw8c, for one) kept on the tensor, so the next oneDNN op reads it without a
// reorder. The executor decides which outputs may stay that way (framework/
// layout_planning.h); the kernels below use these helpers to read such inputs and to write
// such outputs, and fall back to row-major data everywhere else.
#pragma once

#include <initializer_list>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "framework/dense_tensor.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

class OneDNNLayout final : public framework::OpaqueLayout {
 public:
  // `desc`: how the data is arranged; `plain`: the row-major arrangement of the same logical
  // dims (nchw, or nhwc for a channel-last tensor), which ToPlain writes.
  OneDNNLayout(dnnl::memory::desc desc, dnnl::memory::desc plain)
      : desc_(std::move(desc)), plain_(std::move(plain)) {}

  const dnnl::memory::desc& desc() const { return desc_; }
  const dnnl::memory::desc& plain_desc() const { return plain_; }

  std::string ToString() const override;  // "oneDNN aBcd8b"
  size_t bytes() const override { return desc_.get_size(); }
  void ToPlain(const void* src, void* dst) const override;
  std::shared_ptr<const framework::OpaqueLayout> Rows(int64_t begin, int64_t count,
                                                      size_t* byte_offset) const override;

 private:
  dnnl::memory::desc desc_, plain_;
};

// A oneDNN tag-like name of `md`'s format: outer dims by decreasing stride, blocked ones in
// capitals, then the inner blocks ("aBcd8b" for nChw8c, "abcd" for nchw).
std::string FormatName(const dnnl::memory::desc& md);

// A reorder primitive from `from` to `to` on `engine`, made once per pair of formats and
// kept per thread: creating one costs more than running it on small tensors (12 of a 14 us
// 1x1 convolution on 1x32x7x7, input and output reordered). Up to a few hundred pairs are
// kept; past that the cache starts over.
const dnnl::reorder& CachedReorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to,
                                   const dnnl::engine& engine);

// Reorders `from` into `to` (same logical dims) on `dev`'s stream with a cached primitive;
// between two formats that place every element alike (SameBytes), a copy of the bytes, or
// nothing when `from` and `to` share their buffer.
void Reorder(dnnl::memory from, dnnl::memory to, const platform::OneDNNContext& dev);

// Whether `a` and `b` place every element of the same dims and data type at the same byte,
// though they may name different formats: nChw8c and nhwc of 8 channels (one block of
// them, no padding: PP-LCNet's first convolution writes the one and the next reads the
// other), or a dim of size 1 anywhere in either.
bool SameBytes(const dnnl::memory::desc& a, const dnnl::memory::desc& b);

// The oneDNN layout of `t`, or null when `t` is row-major.
const OneDNNLayout* OneDNNLayoutOf(const framework::DenseTensor& t);

// How float32 tensor `t` is arranged, given `user`, the descriptor of its row-major data:
// its oneDNN layout when it has one whose row-major form is `user`, else `user`. Returned
// by reference to one of the two, not copied (a memory::desc is 696 bytes, and oneDNN
// kernels ask this for operands on every run): use it while both still exist.
const dnnl::memory::desc& DescOf(const framework::DenseTensor& t, const dnnl::memory::desc& user);

// Memory over input `t` (only read) as arranged by DescOf. A tensor in a oneDNN layout that
// does not fit `user` (another reading of its dims) is converted into a row-major copy the
// returned memory owns.
dnnl::memory InputMemory(const framework::DenseTensor& t, const dnnl::memory::desc& user,
                         const dnnl::engine& engine);

// The layout an output takes when its primitive writes `want` and the kernel may leave it
// there: null (row-major) when `want` is `user` or the output must be row-major.
std::shared_ptr<const OneDNNLayout> OutputLayout(bool may_be_opaque, const dnnl::memory::desc& want,
                                                 const dnnl::memory::desc& user);

// The float32 buffer an output is written to, resized to `dims` and arranged as `layout`
// (row-major when null): `out` itself, or `fresh` when `out` is one of `operands` (the caller
// then moves `fresh` into `out` once every operand has been read).
framework::DenseTensor* OutputTarget(framework::DenseTensor* out,
                                     std::initializer_list<const framework::DenseTensor*> operands,
                                     framework::DenseTensor* fresh, const framework::DDim& dims,
                                     std::shared_ptr<const OneDNNLayout> layout = nullptr);

// The buffer of an output set up by OutputTarget, in whatever layout it has.
inline float* OutputData(framework::DenseTensor* t) { return static_cast<float*>(t->raw_data()); }

}  // namespace operators
}  // namespace paddle_like

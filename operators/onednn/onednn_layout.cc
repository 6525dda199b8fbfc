#include "operators/onednn/onednn_layout.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <typeinfo>
#include <unordered_map>
#include <vector>

#include "operators/onednn/channel_runs.h"
#include "operators/onednn/onednn_memory.h"
#include "platform/device_context_pool.h"

namespace paddle_like {
namespace operators {

using dnnl::memory;
using framework::DenseTensor;

std::string FormatName(const memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  if (d.format_kind != dnnl_blocked) return "non-blocked";
  const auto& b = d.format_desc.blocking;
  std::vector<int> order(static_cast<size_t>(d.ndims));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return b.strides[x] > b.strides[y]; });
  std::vector<bool> blocked(static_cast<size_t>(d.ndims), false);
  for (int i = 0; i < b.inner_nblks; ++i) blocked[static_cast<size_t>(b.inner_idxs[i])] = true;
  std::string name;
  for (int dim : order) name += static_cast<char>((blocked[static_cast<size_t>(dim)] ? 'A' : 'a') + dim);
  for (int i = 0; i < b.inner_nblks; ++i) {
    name += std::to_string(b.inner_blks[i]) + static_cast<char>('a' + b.inner_idxs[i]);
  }
  return name;
}

namespace {
// Two descriptors and an engine: what a reorder primitive is made for. Compared bytewise
// (oneDNN zero-fills descriptors, padding included); hashed on the fields that tell formats
// apart, so a lookup neither allocates nor hashes the descriptors' unused entries.
struct ReorderKey {
  dnnl_memory_desc_t from, to;
  dnnl_engine_t engine;
  bool operator==(const ReorderKey& o) const { return std::memcmp(this, &o, sizeof(*this)) == 0; }
};

struct ReorderKeyHash {
  static void Mix(size_t* h, int64_t v) { *h ^= std::hash<int64_t>()(v) + 0x9e3779b97f4a7c15ULL + (*h << 6) + (*h >> 2); }
  static void MixDesc(size_t* h, const dnnl_memory_desc_t& d) {
    Mix(h, d.ndims);
    Mix(h, d.data_type);
    Mix(h, d.format_kind);
    Mix(h, d.offset0);
    const auto& b = d.format_desc.blocking;
    for (int i = 0; i < d.ndims; ++i) {
      Mix(h, d.dims[i]);
      Mix(h, d.padded_dims[i]);
      Mix(h, b.strides[i]);
    }
    for (int i = 0; i < b.inner_nblks; ++i) Mix(h, b.inner_blks[i] * 16 + b.inner_idxs[i]);
  }
  size_t operator()(const ReorderKey& k) const {
    size_t h = std::hash<const void*>()(k.engine);
    MixDesc(&h, k.from);
    MixDesc(&h, k.to);
    return h;
  }
};
}  // namespace

const dnnl::reorder& CachedReorder(const memory::desc& from, const memory::desc& to,
                                   const dnnl::engine& engine) {
  // Each entry keeps the engine's handle, so that its address is not reused meanwhile.
  struct Entry {
    dnnl::engine engine;
    dnnl::reorder reorder;
  };
  constexpr size_t kMaxEntries = 256;
  thread_local std::unordered_map<ReorderKey, Entry, ReorderKeyHash> cache;
  ReorderKey key;
  std::memset(&key, 0, sizeof(key));  // The struct's own padding takes part in ==.
  key.from = from.data;
  key.to = to.data;
  key.engine = engine.get();
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() >= kMaxEntries) cache.clear();
    dnnl::reorder r(dnnl::reorder::primitive_desc(engine, from, engine, to));
    it = cache.emplace(key, Entry{engine, std::move(r)}).first;
  }
  return it->second.reorder;
}

namespace {

// The element strides of `md` when its format has them: blocked, no padding, at most one
// inner block per dim, each either holding the whole dim or with its blocks one after
// another (the outer stride the block's size times the inner one), so that the offset of
// index i, (i / b) * outer + (i % b) * inner, is i * inner.
// `strides` holds DNNL_MAX_NDIMS values: no allocation, as Reorder and ToFormat ask this for
// every pair of formats they meet.
bool ElementStrides(const memory::desc& md, int64_t* strides) {
  const dnnl_memory_desc_t& d = md.data;
  if (d.format_kind != dnnl_blocked) return false;
  const dnnl_blocking_desc_t& blk = d.format_desc.blocking;
  std::copy(blk.strides, blk.strides + d.ndims, strides);
  for (int i = 0; i < d.ndims; ++i) {
    if (d.padded_dims[i] != d.dims[i] || d.padded_offsets[i] != 0) return false;
  }
  int64_t inner = 1;  // The stride of inner block j: the product of the blocks inside it.
  for (int j = blk.inner_nblks - 1; j >= 0; --j) {
    const int dim = static_cast<int>(blk.inner_idxs[j]);
    const int64_t block = blk.inner_blks[j];
    if (d.dims[dim] % block != 0) return false;
    if (block != d.dims[dim] && blk.strides[dim] != block * inner) return false;
    for (int k = j + 1; k < blk.inner_nblks; ++k) {
      if (blk.inner_idxs[k] == dim) return false;  // Two blocks of one dim.
    }
    strides[dim] = inner;
    inner *= blk.inner_blks[j];
  }
  return true;
}

}  // namespace

bool SameBytes(const memory::desc& a, const memory::desc& b) {
  if (a == b) return true;
  const dnnl_memory_desc_t &x = a.data, &y = b.data;
  if (x.ndims != y.ndims || x.data_type != y.data_type || x.offset0 != y.offset0) return false;
  for (int i = 0; i < x.ndims; ++i) {
    if (x.dims[i] != y.dims[i]) return false;
  }
  int64_t sx[DNNL_MAX_NDIMS], sy[DNNL_MAX_NDIMS];
  if (!ElementStrides(a, sx) || !ElementStrides(b, sy)) return false;
  for (int i = 0; i < x.ndims; ++i) {
    if (x.dims[i] > 1 && sx[i] != sy[i]) return false;
  }
  return true;
}

void Reorder(memory from, memory to, const platform::OneDNNContext& dev) {
  const memory::desc from_md = from.get_desc(), to_md = to.get_desc();
  if (SameBytes(from_md, to_md)) {
    if (from.get_data_handle() != to.get_data_handle()) {
      std::memcpy(to.get_data_handle(), from.get_data_handle(), to_md.get_size());
    }
    return;
  }
  if (CopyBetweenChannelRuns(from_md, from.get_data_handle(), to_md, to.get_data_handle(), dev)) {
    return;
  }
  CachedReorder(from_md, to_md, dev.engine()).execute(dev.stream(), from, to);
}

std::string OneDNNLayout::ToString() const { return "oneDNN " + FormatName(desc_); }

void OneDNNLayout::ToPlain(const void* src, void* dst) const {
  const auto& dev = *platform::DeviceContextPool::Instance().GetAs<platform::OneDNNContext>(
      platform::CPUPlace());
  // oneDNN takes non-const handles; the source is only read.
  memory from(desc_, dev.engine(), const_cast<void*>(src));
  memory to(plain_, dev.engine(), dst);
  Reorder(from, to, dev);
  dev.stream().wait();
}

namespace {

// `md` with dim 0 cut to `count` indices when dim 0 is outermost, unblocked and unpadded
// (each index then is one run of stride[0] elements); false otherwise.
bool CutOuterDim(const memory::desc& md, int64_t count, memory::desc* cut) {
  const dnnl_memory_desc_t& d = md.data;
  if (d.format_kind != dnnl_blocked || d.ndims < 1 || d.offset0 != 0) return false;
  const auto& b = d.format_desc.blocking;
  for (int i = 0; i < b.inner_nblks; ++i) {
    if (b.inner_idxs[i] == 0) return false;
  }
  if (d.padded_dims[0] != d.dims[0] || d.padded_offsets[0] != 0) return false;
  const size_t element = memory::data_type_size(md.data_type());
  if (static_cast<size_t>(b.strides[0]) * static_cast<size_t>(d.dims[0]) * element !=
      md.get_size()) {
    return false;
  }
  *cut = md;
  cut->data.dims[0] = count;
  cut->data.padded_dims[0] = count;
  return true;
}

}  // namespace

std::shared_ptr<const framework::OpaqueLayout> OneDNNLayout::Rows(int64_t begin, int64_t count,
                                                                  size_t* byte_offset) const {
  memory::desc desc, plain;
  if (count <= 0 || !CutOuterDim(desc_, count, &desc) || !CutOuterDim(plain_, count, &plain)) {
    return nullptr;
  }
  *byte_offset = static_cast<size_t>(begin) *
                 static_cast<size_t>(desc_.data.format_desc.blocking.strides[0]) *
                 memory::data_type_size(desc_.data_type());
  return std::make_shared<OneDNNLayout>(desc, plain);
}

const OneDNNLayout* OneDNNLayoutOf(const DenseTensor& t) {
  // OneDNNLayout is final: comparing the type costs less than a dynamic_cast's walk of the
  // class hierarchy, and this runs for every operand of every oneDNN kernel.
  const framework::OpaqueLayout* layout = t.opaque_layout().get();
  return layout != nullptr && typeid(*layout) == typeid(OneDNNLayout)
             ? static_cast<const OneDNNLayout*>(layout)
             : nullptr;
}

const memory::desc& DescOf(const DenseTensor& t, const memory::desc& user) {
  const OneDNNLayout* layout = OneDNNLayoutOf(t);
  return layout != nullptr && layout->plain_desc() == user ? layout->desc() : user;
}

memory InputMemory(const DenseTensor& t, const memory::desc& user, const dnnl::engine& engine) {
  if (t.is_plain()) return WrapTensor(user, engine, t);
  const OneDNNLayout* layout = OneDNNLayoutOf(t);
  if (layout != nullptr && layout->plain_desc() == user) {
    return memory(layout->desc(), engine, const_cast<void*>(t.raw_data()));
  }
  PL_ENFORCE(user.get_size() == static_cast<size_t>(t.numel()) * sizeof(float),
             errors::InvalidArgument("a float32 tensor of shape %s in %s cannot be read as "
                                     "oneDNN memory of %zu bytes",
                                     t.dims().ToString(), t.opaque_layout()->ToString(),
                                     user.get_size()));
  memory copy(user, engine);
  t.opaque_layout()->ToPlain(t.raw_data(), copy.get_data_handle());
  return copy;
}

std::shared_ptr<const OneDNNLayout> OutputLayout(bool may_be_opaque, const memory::desc& want,
                                                 const memory::desc& user) {
  if (!may_be_opaque || want == user) return nullptr;
  return std::make_shared<const OneDNNLayout>(want, user);
}

DenseTensor* OutputTarget(DenseTensor* out, std::initializer_list<const DenseTensor*> operands,
                          DenseTensor* fresh, const framework::DDim& dims,
                          std::shared_ptr<const OneDNNLayout> layout) {
  const bool aliased = std::find(operands.begin(), operands.end(), out) != operands.end();
  DenseTensor* target = aliased ? fresh : out;
  target->Resize(dims);
  target->set_opaque_layout(std::move(layout));
  target->mutable_data<float>(platform::CPUPlace());
  return target;
}

}  // namespace operators
}  // namespace paddle_like

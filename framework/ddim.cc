#include "framework/ddim.h"

#include <ostream>

#include "platform/enforce.h"

namespace paddle_like {
namespace framework {

DDim::DDim(std::initializer_list<int64_t> dims) : DDim(std::vector<int64_t>(dims)) {}

DDim::DDim(const std::vector<int64_t>& dims) : DDim(dims.data(), static_cast<int>(dims.size())) {}

DDim::DDim(const int64_t* dims, int rank) : rank_(rank) {
  PL_ENFORCE(rank >= 0 && rank <= kMaxRank,
             errors::OutOfRange("tensor rank must be in [0, %d], received %d", kMaxRank, rank));
  for (int i = 0; i < rank; ++i) d_[i] = dims[i];
}

int64_t DDim::at(int i) const {
  int idx = i < 0 ? i + rank_ : i;
  PL_ENFORCE(idx >= 0 && idx < rank_,
             errors::OutOfRange("dimension index %d is out of range for shape %s", i, ToString()));
  return d_[idx];
}

int64_t DDim::numel() const {
  int64_t n = 1;
  for (int i = 0; i < rank_; ++i) {
    if (d_[i] < 0) return -1;
    n *= d_[i];
  }
  return n;
}

bool DDim::HasUnknown() const {
  for (int i = 0; i < rank_; ++i) {
    if (d_[i] < 0) return true;
  }
  return false;
}

bool DDim::operator==(const DDim& o) const {
  if (rank_ != o.rank_) return false;
  for (int i = 0; i < rank_; ++i) {
    if (d_[i] != o.d_[i]) return false;
  }
  return true;
}

std::string DDim::ToString() const {
  std::string s = "[";
  for (int i = 0; i < rank_; ++i) {
    if (i) s += ", ";
    s += std::to_string(d_[i]);
  }
  return s + "]";
}

DDim Slice(const DDim& dims, int begin, int end) {
  PL_ENFORCE(begin >= 0 && begin <= end && end <= dims.size(),
             errors::OutOfRange("slice [%d, %d) of shape %s", begin, end, dims.ToString()));
  return DDim(dims.data() + begin, end - begin);
}

int64_t Product(const DDim& dims, int begin, int end) {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) {
    if (dims[i] < 0) return -1;
    n *= dims[i];
  }
  return n;
}

DDim FlattenTo2D(const DDim& dims, int num_col_dims) {
  return DDim({Product(dims, 0, num_col_dims), Product(dims, num_col_dims, dims.size())});
}

std::ostream& operator<<(std::ostream& os, const DDim& dims) { return os << dims.ToString(); }

}  // namespace framework
}  // namespace paddle_like

#include "framework/ddim.h"

#include <ostream>

#include "platform/checked_math.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {

// Straight from the list: a vector in between would cost an allocation per DDim {...}.
DDim::DDim(std::initializer_list<int64_t> dims)
    : DDim(dims.begin(), static_cast<int>(dims.size())) {}

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

namespace {
// Product of d[begin, end): -1 if a dim is unknown, 0 if one is zero. Returns false when the
// non-zero dims overflow int64.
bool CountElements(const int64_t* d, int begin, int end, int64_t* count) {
  int64_t n = 1;
  bool zero = false, unknown = false;
  for (int i = begin; i < end; ++i) {
    if (d[i] < 0) {
      unknown = true;
    } else if (d[i] == 0) {
      zero = true;
    } else if (!platform::CheckedMul(n, d[i], &n)) {
      return false;
    }
  }
  *count = unknown ? -1 : zero ? 0 : n;
  return true;
}

std::string DimsString(const int64_t* d, size_t rank) {
  std::string s = "[";
  for (size_t i = 0; i < rank; ++i) {
    if (i) s += ", ";
    s += std::to_string(d[i]);
  }
  return s + "]";
}
}  // namespace

int64_t DDim::CountNumel() const {
  int64_t n = 0;
  PL_ENFORCE(CountElements(d_, 0, rank_, &n),
             errors::OutOfRange("shape %s has more elements than an int64 can count",
                                ToString()));
  return n;
}

std::string ShapeProblem(const int64_t* dims, size_t rank, bool allow_unknown) {
  if (rank > static_cast<size_t>(DDim::kMaxRank)) {
    return platform::Sprintf("rank %zu exceeds the maximum rank %d", rank, DDim::kMaxRank);
  }
  for (size_t i = 0; i < rank; ++i) {
    if (dims[i] < (allow_unknown ? -1 : 0)) {
      return platform::Sprintf("dim %zu of shape %s is %lld, expected %s", i,
                               DimsString(dims, rank), static_cast<long long>(dims[i]),
                               allow_unknown ? ">= 0 or -1 (unknown)" : ">= 0");
    }
  }
  int64_t n = 0;
  if (!CountElements(dims, 0, static_cast<int>(rank), &n)) {
    return "shape " + DimsString(dims, rank) + " has more elements than an int64 can count";
  }
  return "";
}

bool DDim::HasUnknown() const {
  for (int i = 0; i < rank_; ++i) {
    if (d_[i] < 0) return true;
  }
  return false;
}

std::string DDim::ToString() const { return DimsString(d_, static_cast<size_t>(rank_)); }

DDim Slice(const DDim& dims, int begin, int end) {
  PL_ENFORCE(begin >= 0 && begin <= end && end <= dims.size(),
             errors::OutOfRange("slice [%d, %d) of shape %s", begin, end, dims.ToString()));
  return DDim(dims.data() + begin, end - begin);
}

int64_t Product(const DDim& dims, int begin, int end) {
  PL_ENFORCE(begin >= 0 && begin <= end && end <= dims.size(),
             errors::OutOfRange("product of dims [%d, %d) of shape %s", begin, end,
                                dims.ToString()));
  int64_t n = 0;
  PL_ENFORCE(CountElements(dims.data(), begin, end, &n),
             errors::OutOfRange("dims [%d, %d) of shape %s multiply past int64", begin, end,
                                dims.ToString()));
  return n;
}

DDim FlattenTo2D(const DDim& dims, int num_col_dims) {
  return DDim({Product(dims, 0, num_col_dims), Product(dims, num_col_dims, dims.size())});
}

std::ostream& operator<<(std::ostream& os, const DDim& dims) { return os << dims.ToString(); }

}  // namespace framework
}  // namespace paddle_like

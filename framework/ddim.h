// DDim: the dimensions of a tensor, up to kMaxRank of them. -1 marks a dimension unknown at
// program-build time (shape inference on VarDescs); run-time tensors have only known dims.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace paddle_like {
namespace framework {

class DDim {
 public:
  static constexpr int kMaxRank = 9;

  DDim() = default;
  DDim(std::initializer_list<int64_t> dims);
  explicit DDim(const std::vector<int64_t>& dims);
  DDim(const int64_t* dims, int rank);

  int size() const { return rank_; }  // The rank.
  int64_t operator[](int i) const { return d_[i]; }
  int64_t& operator[](int i) { return d_[i]; }
  // Index with Python-style negative indices; throws OutOfRangeError.
  int64_t at(int i) const;

  const int64_t* data() const { return d_; }
  std::vector<int64_t> ToVector() const { return std::vector<int64_t>(d_, d_ + rank_); }

  // Product of all dims; 1 for rank 0; -1 if any dim is unknown. OutOfRangeError when the
  // non-zero known dims multiply past int64 (so every partial product of a shape that passes
  // fits as well).
  int64_t numel() const {
    // Inline for the usual shape (every dim positive, no overflow); the rest out of line.
    int64_t n = 1;
    for (int i = 0; i < rank_; ++i) {
      if (d_[i] <= 0 || __builtin_mul_overflow(n, d_[i], &n)) return CountNumel();
    }
    return n;
  }
  bool HasUnknown() const;

  bool operator==(const DDim& o) const {
    if (rank_ != o.rank_) return false;
    for (int i = 0; i < rank_; ++i) {
      if (d_[i] != o.d_[i]) return false;
    }
    return true;
  }
  bool operator!=(const DDim& o) const { return !(*this == o); }

  std::string ToString() const;  // "[2, 3]"

 private:
  int64_t CountNumel() const;

  int64_t d_[kMaxRank] = {};
  int rank_ = 0;
};

// Why `dims` (of length `rank`) cannot be a tensor shape, or "" when it can: a rank above
// DDim::kMaxRank, a dim below -1 (below 0 when `allow_unknown` is false), or non-zero dims
// whose product exceeds int64. Readers of files and programs call it before building a DDim
// so that their error names the file and variable.
std::string ShapeProblem(const int64_t* dims, size_t rank, bool allow_unknown);
inline std::string ShapeProblem(const std::vector<int64_t>& dims, bool allow_unknown) {
  return ShapeProblem(dims.data(), dims.size(), allow_unknown);
}

// Dims [begin, end) of `dims` as a new DDim.
DDim Slice(const DDim& dims, int begin, int end);
// Product of dims [begin, end); -1 if one is unknown; OutOfRangeError on overflow.
int64_t Product(const DDim& dims, int begin, int end);
// Flattens to 2-D: [prod(dims[:num_col_dims]), prod(dims[num_col_dims:])].
DDim FlattenTo2D(const DDim& dims, int num_col_dims);

std::ostream& operator<<(std::ostream& os, const DDim& dims);

}  // namespace framework
}  // namespace paddle_like

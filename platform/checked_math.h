// Integer arithmetic that reports overflow instead of wrapping. Every size, element count and
// byte count computed from data a user supplies (file headers, shapes, attributes) goes
// through these before it reaches an allocation, a copy or an index.
#pragma once

#include <cstddef>
#include <cstdint>

namespace paddle_like {
namespace platform {

// *out = a * b; false (and *out unspecified) when the product does not fit.
inline bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
inline bool CheckedMul(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
// *out = a + b; false when the sum does not fit.
inline bool CheckedAdd(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
inline bool CheckedAdd(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

// True when `n` bytes starting at `offset` lie inside a buffer of `size` bytes, without
// computing offset + n (which can wrap).
inline bool FitsIn(size_t offset, size_t n, size_t size) {
  return offset <= size && n <= size - offset;
}

}  // namespace platform
}  // namespace paddle_like

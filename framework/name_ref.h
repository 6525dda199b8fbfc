// NameRef: a slot or attribute name as kernels pass it on the run path, with its hash.
//
// Kernels name their slots and attributes with string literals (ctx.Input("X"),
// ctx.Attr<float>("alpha")). NameRef's constructors are constexpr, so the hash of a literal
// is folded at compile time; an op's slots (SlotMap) and attributes (OperatorBase) are
// indexed by hash when the op is created or prepared, and a lookup compares a few integers,
// then the characters of the one match. No std::string is built and no map is walked.
//
// A NameRef views the characters it was made from: pass it down, never keep it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace paddle_like {
namespace framework {

// FNV-1a over the name's bytes.
constexpr uint64_t HashName(const char* s, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(s[i]);
    h *= 1099511628211ull;
  }
  return h;
}

class NameRef {
 public:
  // Every source is NUL-terminated, so c_str() is valid. A literal's length is bounded by a
  // template argument: the loops have constant bounds and fold where a strlen-bounded one
  // may not. Pointers take the other template (a literal prefers the array one).
  template <size_t N>
  constexpr NameRef(const char (&s)[N]) : NameRef(s, Length(s, N)) {}  // NOLINT: implicit.
  template <typename T, typename = std::enable_if_t<std::is_same_v<T, const char*> ||
                                                    std::is_same_v<T, char*>>>
  constexpr NameRef(T s) : NameRef(s, Length(s)) {}  // NOLINT
  NameRef(const std::string& s) : NameRef(s.c_str(), s.size()) {}  // NOLINT

  constexpr uint64_t hash() const { return hash_; }
  constexpr size_t size() const { return size_; }
  constexpr const char* c_str() const { return data_; }
  constexpr std::string_view view() const { return std::string_view(data_, size_); }
  std::string str() const { return std::string(data_, size_); }

  // Whether `name` (of hash `hash`) is this name; inline, without a call to memcmp.
  bool Matches(uint64_t hash, const std::string& name) const {
    if (hash != hash_ || name.size() != size_) return false;
    const char* p = name.data();
    for (size_t i = 0; i < size_; ++i) {
      if (p[i] != data_[i]) return false;
    }
    return true;
  }

 private:
  constexpr NameRef(const char* s, size_t n) : data_(s), size_(n), hash_(HashName(s, n)) {}
  static constexpr size_t Length(const char* s) {
    size_t n = 0;
    while (s[n] != '\0') ++n;
    return n;
  }
  // The length of the string in an array of `capacity` chars (a buffer may end in NULs).
  static constexpr size_t Length(const char* s, size_t capacity) {
    size_t n = 0;
    while (n + 1 < capacity && s[n] != '\0') ++n;
    return n;
  }

  const char* data_;
  size_t size_;
  uint64_t hash_;
};

}  // namespace framework
}  // namespace paddle_like

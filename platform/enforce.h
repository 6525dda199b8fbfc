// Enforce macros: check a condition and throw a typed error that shows what was expected
// and what was received.
//
//   PL_ENFORCE(x != nullptr, errors::NotFound("op `%s`: variable `%s` not found", op, name));
//   PL_ENFORCE_EQ(a.rank(), 4, errors::InvalidArgument("op `conv2d` input `Filter`: bad rank"));
//   -> InvalidArgumentError: op `conv2d` input `Filter`: bad rank (expected a.rank() == 4, received 2 vs 4)
#pragma once

#include <sstream>
#include <string>

#include "platform/errors.h"

namespace paddle_like {
namespace platform {
namespace detail {

template <typename T>
std::string ToDebugString(const T& v) {
  std::ostringstream os;
  if constexpr (std::is_same_v<T, bool>) {
    os << (v ? "true" : "false");
  } else {
    os << v;
  }
  return os.str();
}

template <typename ErrorT, typename A, typename B>
[[noreturn]] void ThrowCompareError(ErrorT error, const char* expr, const A& a, const B& b) {
  throw ErrorT(error.message() + " (expected " + expr + ", received " + ToDebugString(a) + " vs " +
               ToDebugString(b) + ")");
}

}  // namespace detail
}  // namespace platform
}  // namespace paddle_like

#define PL_ENFORCE(cond, error) \
  do {                          \
    if (!(cond)) throw(error);  \
  } while (0)

#define PL_THROW(error) throw(error)

#define PL_ENFORCE_BINARY_(a, b, op, error)                                                   \
  do {                                                                                        \
    const auto& pl_a_ = (a);                                                                  \
    const auto& pl_b_ = (b);                                                                  \
    if (!(pl_a_ op pl_b_)) {                                                                  \
      ::paddle_like::platform::detail::ThrowCompareError((error), #a " " #op " " #b, pl_a_, pl_b_); \
    }                                                                                         \
  } while (0)

#define PL_ENFORCE_EQ(a, b, error) PL_ENFORCE_BINARY_(a, b, ==, error)
#define PL_ENFORCE_NE(a, b, error) PL_ENFORCE_BINARY_(a, b, !=, error)
#define PL_ENFORCE_GT(a, b, error) PL_ENFORCE_BINARY_(a, b, >, error)
#define PL_ENFORCE_GE(a, b, error) PL_ENFORCE_BINARY_(a, b, >=, error)
#define PL_ENFORCE_LT(a, b, error) PL_ENFORCE_BINARY_(a, b, <, error)
#define PL_ENFORCE_LE(a, b, error) PL_ENFORCE_BINARY_(a, b, <=, error)
#define PL_ENFORCE_NOT_NULL(p, error) PL_ENFORCE((p) != nullptr, error)

// Typed errors raised by every layer of paddle_like.
//
// A user mistake (bad shape, missing input, corrupt file, unknown op ...) never aborts the
// process: it throws one of the `Error` subclasses below. Each carries an `ErrorCode` so
// callers can branch on the kind, and a message of the form
//   op `conv2d` input `Filter`: expected 4-D tensor, received shape [3, 3]
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace paddle_like {
namespace platform {

enum class ErrorCode {
  kInvalidArgument,
  kNotFound,
  kOutOfRange,
  kAlreadyExists,
  kPreconditionNotMet,
  kUnimplemented,
  kUnavailable,
  kFatal,
};

const char* ErrorCodeName(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message);
  ErrorCode code() const { return code_; }
  // The message without the "<Kind>Error: " prefix that what() carries.
  const std::string& message() const { return message_; }

 private:
  ErrorCode code_;
  std::string message_;
};

#define PL_DEFINE_ERROR_TYPE(Name, Code)                                   \
  class Name##Error : public Error {                                      \
   public:                                                                 \
    explicit Name##Error(const std::string& message) : Error(Code, message) {} \
  };
PL_DEFINE_ERROR_TYPE(InvalidArgument, ErrorCode::kInvalidArgument)
PL_DEFINE_ERROR_TYPE(NotFound, ErrorCode::kNotFound)
PL_DEFINE_ERROR_TYPE(OutOfRange, ErrorCode::kOutOfRange)
PL_DEFINE_ERROR_TYPE(AlreadyExists, ErrorCode::kAlreadyExists)
PL_DEFINE_ERROR_TYPE(PreconditionNotMet, ErrorCode::kPreconditionNotMet)
PL_DEFINE_ERROR_TYPE(Unimplemented, ErrorCode::kUnimplemented)
PL_DEFINE_ERROR_TYPE(Unavailable, ErrorCode::kUnavailable)
PL_DEFINE_ERROR_TYPE(Fatal, ErrorCode::kFatal)
#undef PL_DEFINE_ERROR_TYPE

namespace detail {
// One argument of Sprintf, reduced to what the formatter needs: the value by kind, whatever
// its C++ width. Conversions follow the argument's real type, so "%d" given an int64 or a
// size_t prints the number instead of reading past it.
struct FormatArg {
  enum class Kind { kSigned, kUnsigned, kFloat, kString, kPointer };
  Kind kind = Kind::kSigned;
  long long i = 0;
  unsigned long long u = 0;
  double f = 0;
  const char* s = nullptr;
  const void* p = nullptr;
};

template <typename T>
FormatArg MakeFormatArg(const T& v) {
  FormatArg a;
  if constexpr (std::is_same_v<T, std::string>) {
    a.kind = FormatArg::Kind::kString;
    a.s = v.c_str();
  } else if constexpr (std::is_convertible_v<const T&, const char*>) {
    a.kind = FormatArg::Kind::kString;
    a.s = v;
  } else if constexpr (std::is_enum_v<T>) {
    a.i = static_cast<long long>(v);
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    a.i = v;
  } else if constexpr (std::is_integral_v<T>) {
    a.kind = FormatArg::Kind::kUnsigned;
    a.u = v;
  } else if constexpr (std::is_floating_point_v<T>) {
    a.kind = FormatArg::Kind::kFloat;
    a.f = static_cast<double>(v);
  } else {
    static_assert(std::is_pointer_v<T>, "Sprintf takes numbers, strings and pointers");
    a.kind = FormatArg::Kind::kPointer;
    a.p = v;
  }
  return a;
}

// Formats printf-style `fmt` with `args`; a conversion without an argument is printed as
// written, surplus arguments are ignored.
std::string FormatWithArgs(const char* fmt, const FormatArg* args, size_t count);
}  // namespace detail

// printf-style formatting (flags, width and precision as printf) whose conversions adapt to
// the arguments' types, with std::string accepted for %s.
template <typename... Args>
std::string Sprintf(const char* fmt, const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return fmt;
  } else {
    const detail::FormatArg list[] = {detail::MakeFormatArg(args)...};
    return detail::FormatWithArgs(fmt, list, sizeof...(Args));
  }
}

// Error factories: throw errors::InvalidArgument("op `%s` ...", type).
namespace errors {
#define PL_ERROR_FACTORY(Name)                                        \
  template <typename... Args>                                         \
  Name##Error Name(const char* fmt, const Args&... args) {            \
    return Name##Error(Sprintf(fmt, args...));                        \
  }
PL_ERROR_FACTORY(InvalidArgument)
PL_ERROR_FACTORY(NotFound)
PL_ERROR_FACTORY(OutOfRange)
PL_ERROR_FACTORY(AlreadyExists)
PL_ERROR_FACTORY(PreconditionNotMet)
PL_ERROR_FACTORY(Unimplemented)
PL_ERROR_FACTORY(Unavailable)
PL_ERROR_FACTORY(Fatal)
#undef PL_ERROR_FACTORY
}  // namespace errors

// Throws an error of `code`'s kind with `message` (for code that passes errors on).
[[noreturn]] void ThrowError(ErrorCode code, const std::string& message);

// Throws an error of the same kind as `e` whose message is "<context>: <e's message>".
[[noreturn]] void RethrowWithContext(const Error& e, const std::string& context);

// Runs fn(); a paddle_like error it throws gets `context` prepended.
template <typename Fn>
decltype(auto) WithErrorContext(const std::string& context, Fn&& fn) {
  try {
    return fn();
  } catch (const Error& e) {
    RethrowWithContext(e, context);
  }
}

}  // namespace platform

// Most code refers to the error types through this short namespace.
namespace errors = platform::errors;

}  // namespace paddle_like

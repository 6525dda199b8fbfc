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
template <typename T>
decltype(auto) PrintfArg(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return v.c_str();
  } else {
    return v;
  }
}
std::string VFormat(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
}  // namespace detail

// printf-style formatting that also accepts std::string arguments for %s.
template <typename... Args>
std::string Sprintf(const char* fmt, const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return fmt;
  } else {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-security"
    return detail::VFormat(fmt, detail::PrintfArg(args)...);
#pragma GCC diagnostic pop
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

}  // namespace platform

// Most code refers to the error types through this short namespace.
namespace errors = platform::errors;

}  // namespace paddle_like

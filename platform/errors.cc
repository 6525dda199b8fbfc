#include "platform/errors.h"

#include <cstdarg>
#include <vector>

namespace paddle_like {
namespace platform {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "InvalidArgument";
    case ErrorCode::kNotFound: return "NotFound";
    case ErrorCode::kOutOfRange: return "OutOfRange";
    case ErrorCode::kAlreadyExists: return "AlreadyExists";
    case ErrorCode::kPreconditionNotMet: return "PreconditionNotMet";
    case ErrorCode::kUnimplemented: return "Unimplemented";
    case ErrorCode::kUnavailable: return "Unavailable";
    case ErrorCode::kFatal: return "Fatal";
  }
  return "Unknown";
}

Error::Error(ErrorCode code, const std::string& message)
    : std::runtime_error(std::string(ErrorCodeName(code)) + "Error: " + message),
      code_(code),
      message_(message) {}

namespace detail {
std::string VFormat(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out;
  if (n > 0) {
    std::vector<char> buf(static_cast<size_t>(n) + 1);
    std::vsnprintf(buf.data(), buf.size(), fmt, args);
    out.assign(buf.data(), static_cast<size_t>(n));
  }
  va_end(args);
  return out;
}
}  // namespace detail

}  // namespace platform
}  // namespace paddle_like

#include "platform/errors.h"

#include <cctype>
#include <cstdio>
#include <cstring>
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

void ThrowError(ErrorCode code, const std::string& msg) {
  switch (code) {
    case ErrorCode::kInvalidArgument: throw InvalidArgumentError(msg);
    case ErrorCode::kNotFound: throw NotFoundError(msg);
    case ErrorCode::kOutOfRange: throw OutOfRangeError(msg);
    case ErrorCode::kAlreadyExists: throw AlreadyExistsError(msg);
    case ErrorCode::kPreconditionNotMet: throw PreconditionNotMetError(msg);
    case ErrorCode::kUnimplemented: throw UnimplementedError(msg);
    case ErrorCode::kUnavailable: throw UnavailableError(msg);
    case ErrorCode::kFatal: throw FatalError(msg);
  }
  throw FatalError(msg);
}

void RethrowWithContext(const Error& e, const std::string& context) {
  ThrowError(e.code(), context + ": " + e.message());
}

namespace detail {
namespace {

// printf of one conversion `spec` (without length modifier) applied to `value`.
template <typename T>
void AppendPrintf(std::string* out, const std::string& spec, T value) {
  const int n = std::snprintf(nullptr, 0, spec.c_str(), value);
  if (n <= 0) return;
  std::vector<char> buf(static_cast<size_t>(n) + 1);
  std::snprintf(buf.data(), buf.size(), spec.c_str(), value);
  out->append(buf.data(), static_cast<size_t>(n));
}

bool IsIntegerConversion(char c) { return std::strchr("diouxXc", c) != nullptr; }
bool IsFloatConversion(char c) { return std::strchr("fFeEgGaA", c) != nullptr; }

// Formats `a` with the flags, width and precision in `head` ("%-8.3") and conversion `conv`,
// choosing the length modifier (and, on a mismatch, the conversion) from a's kind.
void AppendArg(std::string* out, const std::string& head, char conv, const FormatArg& a) {
  using Kind = FormatArg::Kind;
  switch (a.kind) {
    case Kind::kSigned:
    case Kind::kUnsigned: {
      const bool is_signed = a.kind == Kind::kSigned;
      if (conv == 'c') {
        AppendPrintf(out, head + "c", static_cast<int>(is_signed ? a.i : static_cast<long long>(a.u)));
      } else if (IsFloatConversion(conv)) {
        AppendPrintf(out, head + conv, is_signed ? static_cast<double>(a.i) : static_cast<double>(a.u));
      } else if (conv == 'd' || conv == 'i' || !IsIntegerConversion(conv)) {
        if (is_signed) {
          AppendPrintf(out, head + "lld", a.i);
        } else {
          AppendPrintf(out, head + "llu", a.u);
        }
      } else {  // o, u, x, X: the bits as unsigned.
        AppendPrintf(out, head + "ll" + conv,
                     is_signed ? static_cast<unsigned long long>(a.i) : a.u);
      }
      return;
    }
    case Kind::kFloat:
      AppendPrintf(out, head + (IsFloatConversion(conv) ? conv : 'g'), a.f);
      return;
    case Kind::kString:
      AppendPrintf(out, head + "s", a.s != nullptr ? a.s : "(null)");
      return;
    case Kind::kPointer:
      AppendPrintf(out, std::string("%p"), a.p);
      return;
  }
}

}  // namespace

std::string FormatWithArgs(const char* fmt, const FormatArg* args, size_t count) {
  std::string out;
  size_t next = 0;
  for (const char* c = fmt; *c != '\0'; ++c) {
    if (*c != '%') {
      out += *c;
      continue;
    }
    if (c[1] == '%') {
      out += '%';
      ++c;
      continue;
    }
    // %[flags][width][.precision][length]conversion
    const char* start = c;
    std::string head = "%";
    const char* q = c + 1;
    while (*q != '\0' && std::strchr("-+ #0", *q) != nullptr) head += *q++;
    while (std::isdigit(static_cast<unsigned char>(*q))) head += *q++;
    if (*q == '.') {
      head += *q++;
      while (std::isdigit(static_cast<unsigned char>(*q))) head += *q++;
    }
    while (*q != '\0' && std::strchr("hlLqjzt", *q) != nullptr) ++q;
    if (*q == '\0' || next >= count) {  // Malformed, or no argument left: print it as written.
      out.append(start, static_cast<size_t>((*q == '\0' ? q : q + 1) - start));
      if (*q == '\0') break;
      c = q;
      continue;
    }
    AppendArg(&out, head, *q, args[next++]);
    c = q;
  }
  return out;
}
}  // namespace detail

}  // namespace platform
}  // namespace paddle_like

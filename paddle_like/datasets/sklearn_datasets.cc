#include "paddle_like/datasets/sklearn_datasets.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "paddle_like/datasets/gzip_file.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace datasets {

namespace {

// The lines of `text` without their line ends ("\n" or "\r\n"); a final line end adds no line.
std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

bool IsBlank(const std::string& s) { return s.find_first_not_of(" \t") == std::string::npos; }

std::vector<std::string> SplitFields(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

// Where a value comes from, for error messages.
struct Location {
  const std::string& path;
  size_t line;  // 1-based.
};

double ParseNumber(const std::string& field, const Location& at, size_t column) {
  const char* begin = field.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  while (end != nullptr && (*end == ' ' || *end == '\t')) ++end;
  PL_ENFORCE(end != begin && *end == '\0' && errno != ERANGE && std::isfinite(v),
             errors::InvalidArgument("dataset file `%s` line %zu column %zu: expected a number, "
                                     "found `%s`",
                                     at.path, at.line, column + 1, field));
  return v;
}

std::vector<double> ParseRow(const std::string& line, size_t expected, const char* what,
                             const Location& at) {
  const std::vector<std::string> fields = SplitFields(line);
  PL_ENFORCE(fields.size() == expected,
             errors::InvalidArgument("dataset file `%s` line %zu: expected %zu comma-separated "
                                     "values (%s), found %zu",
                                     at.path, at.line, expected, what, fields.size()));
  std::vector<double> values(expected);
  for (size_t i = 0; i < expected; ++i) values[i] = ParseNumber(fields[i], at, i);
  return values;
}

std::string Unquote(std::string s) {
  const size_t b = s.find_first_not_of(" \t");
  const size_t e = s.find_last_not_of(" \t");
  s = b == std::string::npos ? "" : s.substr(b, e - b + 1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

}  // namespace

Dataset LoadDigits(const std::string& path) {
  constexpr int64_t kPixels = 64;
  constexpr double kMaxPixel = 16, kClasses = 10;
  const std::vector<std::string> lines = SplitLines(ReadMaybeGzip(path));
  Dataset d;
  d.cols = kPixels;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsBlank(lines[i])) continue;
    const Location at{path, i + 1};
    const std::vector<double> v = ParseRow(lines[i], kPixels + 1, "64 pixels and a label", at);
    for (int64_t p = 0; p < kPixels; ++p) {
      PL_ENFORCE(v[p] >= 0 && v[p] <= kMaxPixel,
                 errors::InvalidArgument("dataset file `%s` line %zu column %lld: pixel value "
                                         "%g is outside [0, 16]",
                                         path, at.line, static_cast<long long>(p + 1), v[p]));
      d.features.push_back(static_cast<float>(v[p]));
    }
    const double label = v[kPixels];
    PL_ENFORCE(label >= 0 && label < kClasses && label == std::floor(label),
               errors::InvalidArgument("dataset file `%s` line %zu: label %g is not a digit 0..9",
                                       path, at.line, label));
    d.labels.push_back(static_cast<int64_t>(label));
    ++d.rows;
  }
  PL_ENFORCE(d.rows > 0, errors::InvalidArgument("dataset file `%s` holds no rows", path));
  return d;
}

Dataset LoadBostonHousing(const std::string& path) {
  const std::vector<std::string> lines = SplitLines(ReadMaybeGzip(path));
  PL_ENFORCE(lines.size() >= 2,
             errors::InvalidArgument("dataset file `%s`: expected a line of counts and a line of "
                                     "column names, found %zu lines",
                                     path, lines.size()));
  // Line 1: "<rows>,<features>" followed by empty fields.
  const std::vector<std::string> counts = SplitFields(lines[0]);
  PL_ENFORCE(counts.size() >= 2,
             errors::InvalidArgument("dataset file `%s` line 1: expected \"<rows>,<features>\", "
                                     "found `%s`",
                                     path, lines[0]));
  const double rows = ParseNumber(counts[0], {path, 1}, 0);
  const double cols = ParseNumber(counts[1], {path, 1}, 1);
  PL_ENFORCE(rows >= 1 && cols >= 1 && rows == std::floor(rows) && cols == std::floor(cols),
             errors::InvalidArgument("dataset file `%s` line 1: bad counts %g rows, %g features",
                                     path, rows, cols));
  Dataset d;
  d.rows = static_cast<int64_t>(rows);
  d.cols = static_cast<int64_t>(cols);
  const size_t width = static_cast<size_t>(d.cols) + 1;

  const std::vector<std::string> names = SplitFields(lines[1]);
  PL_ENFORCE(names.size() == width,
             errors::InvalidArgument("dataset file `%s` line 2: expected %zu column names (the "
                                     "features and the target), found %zu",
                                     path, width, names.size()));
  for (size_t i = 0; i + 1 < width; ++i) d.feature_names.push_back(Unquote(names[i]));

  d.features.reserve(static_cast<size_t>(d.rows * d.cols));
  d.targets.reserve(static_cast<size_t>(d.rows));
  int64_t read = 0;
  for (size_t i = 2; i < lines.size(); ++i) {
    if (IsBlank(lines[i])) continue;
    const Location at{path, i + 1};
    PL_ENFORCE(read < d.rows,
               errors::InvalidArgument("dataset file `%s` line %zu: more rows than the %lld "
                                       "that line 1 announces",
                                       path, at.line, static_cast<long long>(d.rows)));
    const std::vector<double> v = ParseRow(lines[i], width, "the features and the target", at);
    for (size_t c = 0; c + 1 < width; ++c) d.features.push_back(static_cast<float>(v[c]));
    d.targets.push_back(static_cast<float>(v[width - 1]));
    ++read;
  }
  PL_ENFORCE(
      read == d.rows,
      errors::InvalidArgument("dataset file `%s`: line 1 announces %lld rows, the file "
                              "holds %lld",
                              path, static_cast<long long>(d.rows), static_cast<long long>(read)));
  return d;
}

}  // namespace datasets
}  // namespace paddle_like

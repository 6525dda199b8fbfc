#include "framework/npy_io.h"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <vector>

#include "platform/enforce.h"
#include "platform/file_util.h"

namespace paddle_like {
namespace framework {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct NpyType {
  DataType dtype;
  const char* descr;  // As written; the byte-order character comes first.
};

constexpr NpyType kNpyTypes[] = {
    {DataType::FLOAT32, "<f4"},   {DataType::FLOAT64, "<f8"},     {DataType::FLOAT16, "<f2"},
    {DataType::INT32, "<i4"},     {DataType::INT64, "<i8"},       {DataType::INT16, "<i2"},
    {DataType::INT8, "|i1"},      {DataType::UINT8, "|u1"},       {DataType::BOOL, "|b1"},
    {DataType::COMPLEX64, "<c8"}, {DataType::COMPLEX128, "<c16"},
};

// Maps a descr such as "<f4" or "|u1" to a DataType; throws for anything else.
DataType DataTypeFromDescr(const std::string& descr, const std::string& source) {
  PL_ENFORCE(descr.size() >= 2,
             errors::InvalidArgument("npy file `%s`: bad dtype descr '%s'", source, descr));
  const char order = descr[0];
  const std::string kind = descr.substr(1);
  for (const auto& t : kNpyTypes) {
    if (kind != t.descr + 1) continue;
    const bool one_byte = platform::SizeOf(t.dtype) == 1;
    // Single-byte types have no byte order; NumPy writes '|' for them.
    PL_ENFORCE(order == '<' || order == '|' || (one_byte && order == '='),
               errors::InvalidArgument("npy file `%s`: dtype '%s' is not little-endian; only "
                                       "'<' or '|' byte orders are supported",
                                       source, descr));
    return t.dtype;
  }
  throw errors::InvalidArgument(
      "npy file `%s`: unsupported dtype '%s' (supported: float16, float32, float64, int8, int16, "
      "int32, int64, uint8, bool, complex64, complex128)",
      source, descr);
}

const char* DescrOf(DataType dtype) {
  for (const auto& t : kNpyTypes) {
    if (t.dtype == dtype) return t.descr;
  }
  throw errors::InvalidArgument("cannot write a %s tensor as .npy: NumPy has no such dtype",
                                platform::DataTypeName(dtype));
}

// A parser for the header: a Python dict literal with string keys whose values are strings,
// booleans or tuples of integers, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& source)
      : text_(text), source_(source) {}

  void Parse(std::string* descr, bool* fortran_order, std::vector<int64_t>* shape) {
    bool has_descr = false, has_order = false, has_shape = false;
    Expect('{');
    while (true) {
      SkipSpace();
      if (Peek() == '}') break;
      const std::string key = ParseString();
      Expect(':');
      SkipSpace();
      if (key == "descr") {
        PL_ENFORCE(Peek() == '\'' || Peek() == '"',
                   Fail("structured or sub-array dtypes are not supported"));
        *descr = ParseString();
        has_descr = true;
      } else if (key == "fortran_order") {
        *fortran_order = ParseBool();
        has_order = true;
      } else if (key == "shape") {
        *shape = ParseTuple();
        has_shape = true;
      } else {
        throw Fail("unexpected key '" + key + "'");
      }
      SkipSpace();
      if (Peek() == ',') ++pos_;
    }
    PL_ENFORCE(has_descr && has_order && has_shape,
               Fail("the header lacks one of 'descr', 'fortran_order', 'shape'"));
  }

 private:
  platform::InvalidArgumentError Fail(const std::string& what) const {
    return errors::InvalidArgument("npy file `%s`: bad header at character %zu: %s (header: %s)",
                                   source_, pos_, what, text_);
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  void Expect(char c) {
    SkipSpace();
    PL_ENFORCE(Peek() == c, Fail(std::string("expected '") + c + "'"));
    ++pos_;
  }
  std::string ParseString() {
    SkipSpace();
    const char quote = Peek();
    PL_ENFORCE(quote == '\'' || quote == '"', Fail("expected a quoted string"));
    const size_t end = text_.find(quote, pos_ + 1);
    PL_ENFORCE(end != std::string::npos, Fail("unterminated string"));
    std::string s = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return s;
  }
  bool ParseBool() {
    if (text_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (text_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    throw Fail("expected True or False");
  }
  std::vector<int64_t> ParseTuple() {
    const char open = Peek();
    PL_ENFORCE(open == '(' || open == '[', Fail("expected a tuple of dimensions"));
    const char close = open == '(' ? ')' : ']';
    ++pos_;
    std::vector<int64_t> dims;
    while (true) {
      SkipSpace();
      if (Peek() == close) {
        ++pos_;
        return dims;
      }
      PL_ENFORCE(std::isdigit(static_cast<unsigned char>(Peek())),
                 Fail("expected a non-negative dimension"));
      int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(Peek()))) {
        PL_ENFORCE(v < (int64_t{1} << 50), Fail("dimension too large"));
        v = v * 10 + (text_[pos_++] - '0');
      }
      if (Peek() == 'L') ++pos_;  // Python 2 long literal.
      dims.push_back(v);
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
      } else {
        PL_ENFORCE(Peek() == close, Fail("expected ',' or the end of the shape"));
      }
    }
  }

  const std::string& text_;
  const std::string& source_;
  size_t pos_ = 0;
};

uint32_t ReadLittleEndian(const std::string& bytes, size_t offset, size_t width) {
  uint32_t v = 0;
  for (size_t i = 0; i < width; ++i) {
    v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  }
  return v;
}

std::string ShapeLiteral(const DDim& dims) {
  std::string s = "(";
  for (int i = 0; i < dims.size(); ++i) {
    s += std::to_string(dims[i]);
    s += (dims.size() == 1 || i + 1 < dims.size()) ? "," : "";
    if (i + 1 < dims.size()) s += " ";
  }
  return s + ")";
}

}  // namespace

DenseTensor ParseNpy(const std::string& bytes, const std::string& source) {
  PL_ENFORCE(bytes.size() >= kMagicSize && bytes.compare(0, kMagicSize, kMagic, kMagicSize) == 0,
             errors::InvalidArgument("npy file `%s`: bad magic (not a NumPy .npy file)", source));
  PL_ENFORCE(bytes.size() >= kMagicSize + 2,
             errors::InvalidArgument("npy file `%s`: truncated before the format version", source));
  const int major = static_cast<unsigned char>(bytes[kMagicSize]);
  const int minor = static_cast<unsigned char>(bytes[kMagicSize + 1]);
  PL_ENFORCE((major == 1 || major == 2 || major == 3) && minor == 0,
             errors::InvalidArgument("npy file `%s`: unsupported format version %d.%d (expected "
                                     "1.0, 2.0 or 3.0)",
                                     source, major, minor));
  const size_t len_width = major == 1 ? 2 : 4;
  const size_t header_start = kMagicSize + 2 + len_width;
  PL_ENFORCE(bytes.size() >= header_start,
             errors::InvalidArgument("npy file `%s`: truncated before the header length", source));
  const size_t header_len = ReadLittleEndian(bytes, kMagicSize + 2, len_width);
  PL_ENFORCE(bytes.size() >= header_start + header_len,
             errors::InvalidArgument("npy file `%s`: truncated header (%zu bytes announced, %zu "
                                     "present)",
                                     source, header_len, bytes.size() - header_start));
  const std::string header = bytes.substr(header_start, header_len);

  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
  HeaderParser(header, source).Parse(&descr, &fortran_order, &shape);
  const DataType dtype = DataTypeFromDescr(descr, source);
  PL_ENFORCE(!fortran_order,
             errors::InvalidArgument("npy file `%s`: fortran_order is True; only C-order arrays "
                                     "are supported (save np.ascontiguousarray(a))",
                                     source));
  PL_ENFORCE(static_cast<int>(shape.size()) <= DDim::kMaxRank,
             errors::InvalidArgument("npy file `%s`: rank %zu exceeds the maximum rank %d", source,
                                     shape.size(), DDim::kMaxRank));

  DenseTensor tensor(DDim(shape), dtype);
  const uint64_t item = platform::SizeOf(dtype);
  uint64_t numel = 1;
  for (int64_t d : shape) {
    PL_ENFORCE(d == 0 || numel <= (uint64_t{1} << 50) / static_cast<uint64_t>(d),
               errors::InvalidArgument("npy file `%s`: shape %s is too large", source,
                                       tensor.dims().ToString()));
    numel *= static_cast<uint64_t>(d);
  }
  const size_t data_start = header_start + header_len;
  const size_t present = bytes.size() - data_start;
  const uint64_t needed = numel * item;
  PL_ENFORCE(present >= needed,
             errors::InvalidArgument("npy file `%s`: truncated data: %s %s needs %llu bytes, the "
                                     "file has %zu",
                                     source, descr, tensor.dims().ToString(),
                                     static_cast<unsigned long long>(needed), present));
  PL_ENFORCE(present == needed,
             errors::InvalidArgument("npy file `%s`: data size mismatch: %s %s needs %llu bytes, "
                                     "the file has %zu",
                                     source, descr, tensor.dims().ToString(),
                                     static_cast<unsigned long long>(needed), present));
  char* out = static_cast<char*>(tensor.mutable_data(platform::CPUPlace(), dtype));
  if (needed > 0) std::memcpy(out, bytes.data() + data_start, needed);
  if (dtype == DataType::BOOL) {
    // Any non-zero byte is true; keep C++ bools canonical.
    for (uint64_t i = 0; i < numel; ++i) out[i] = out[i] != 0 ? 1 : 0;
  }
  return tensor;
}

std::string SerializeNpy(const DenseTensor& tensor) {
  DenseTensor host;
  if (tensor.initialized() && !tensor.place().is_cpu()) {
    CopyTensor(tensor, platform::CPUPlace(), &host);
  } else {
    host = tensor;
  }
  if (!host.is_plain()) host = PlainTensor(host);  // Files hold row-major data.
  const char* descr = DescrOf(host.dtype());
  PL_ENFORCE(!host.dims().HasUnknown(),
             errors::InvalidArgument("cannot write a tensor of shape %s as .npy",
                                     host.dims().ToString()));
  const size_t n = static_cast<size_t>(host.numel()) * platform::SizeOf(host.dtype());
  PL_ENFORCE(n == 0 || host.initialized(),
             errors::PreconditionNotMet("cannot write an uninitialized tensor as .npy"));

  std::string dict = std::string("{'descr': '") + descr +
                     "', 'fortran_order': False, 'shape': " + ShapeLiteral(host.dims()) + ", }";
  // The header (with its trailing newline) pads the prefix to a multiple of 64 bytes.
  size_t len_width = 2;
  size_t total = kMagicSize + 2 + len_width + dict.size() + 1;
  if ((total + 63) / 64 * 64 - kMagicSize - 2 - len_width > 0xffff) {
    len_width = 4;
    total = kMagicSize + 2 + len_width + dict.size() + 1;
  }
  const size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict.push_back('\n');
  const size_t header_len = dict.size();

  std::string out(kMagic, kMagicSize);
  out.push_back(static_cast<char>(len_width == 2 ? 1 : 2));
  out.push_back(0);
  for (size_t i = 0; i < len_width; ++i) {
    out.push_back(static_cast<char>((header_len >> (8 * i)) & 0xff));
  }
  out += dict;
  if (n > 0) out.append(static_cast<const char*>(host.raw_data()), n);
  return out;
}

DenseTensor ReadNpy(const std::string& path) { return ParseNpy(platform::ReadFile(path, {"npy file"}), path); }

void WriteNpy(const std::string& path, const DenseTensor& tensor) {
  platform::WriteFileAtomically(path, SerializeNpy(tensor));
}

}  // namespace framework
}  // namespace paddle_like

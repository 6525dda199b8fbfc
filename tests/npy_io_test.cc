// NumPy .npy reading and writing: round trips for every supported dtype, headers of format
// versions 1.0-3.0, and typed errors for malformed or unsupported files.
#include "framework/npy_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "platform/file_util.h"

namespace paddle_like {
namespace framework {
namespace {

std::string TempPath(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("pl_npy_io_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

// Removes this process's temp dir after the last test.
class TempDirCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(TempPath("x")).parent_path(), ec);
  }
};
const auto* const kCleanup = ::testing::AddGlobalTestEnvironment(new TempDirCleanup);

template <typename T>
DenseTensor MakeTensor(const DDim& dims, const std::vector<T>& values) {
  DenseTensor t(dims, platform::ToDataType<T>());
  T* p = t.mutable_data<T>(platform::CPUPlace());
  for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  return t;
}

void ExpectSameTensor(const DenseTensor& a, const DenseTensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.dims(), b.dims());
  const size_t n = static_cast<size_t>(a.numel()) * platform::SizeOf(a.dtype());
  if (n > 0) {
    EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), n), 0);
  }
}

// A .npy file with the given header dict, format version and payload.
std::string MakeNpy(const std::string& dict, const std::string& payload, int major = 1) {
  std::string header = dict;
  const size_t len_width = major == 1 ? 2 : 4;
  const size_t total = 8 + len_width + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < len_width; ++i) {
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  }
  return out + header + payload;
}

std::string FloatBytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

std::string ErrorOf(const std::string& bytes, platform::ErrorCode* code = nullptr) {
  try {
    ParseNpy(bytes, "bad.npy");
  } catch (const platform::Error& e) {
    if (code != nullptr) *code = e.code();
    return e.what();
  }
  return "";
}

TEST(NpyIo, RoundTripEveryDtype) {
  const DDim dims({2, 3});
  const std::vector<DenseTensor> tensors = {
      MakeTensor<float>(dims, {1.5f, -2, 3, 4, 5, 6e-8f}),
      MakeTensor<double>(dims, {1e300, -2, 3, 4, 5, 0.1}),
      MakeTensor<int32_t>(dims, {1, -2, 3, INT32_MAX, INT32_MIN, 0}),
      MakeTensor<int64_t>(dims, {1, -2, 3, INT64_MAX, INT64_MIN, 0}),
      MakeTensor<int16_t>(dims, {1, -2, 3, 4, 5, 6}),
      MakeTensor<uint8_t>(dims, {0, 1, 2, 127, 128, 255}),
      MakeTensor<int8_t>(dims, {0, 1, -1, 127, -128, 5}),
      MakeTensor<bool>(dims, {true, false, true, true, false, false}),
      MakeTensor<platform::float16>(
          dims, {platform::float16(1.0f), platform::float16(-0.5f), platform::float16(65504.0f),
                 platform::float16(0.0f), platform::float16(3.0f), platform::float16(1e-3f)}),
  };
  for (const auto& t : tensors) {
    SCOPED_TRACE(platform::DataTypeName(t.dtype()));
    const std::string path = TempPath(platform::DataTypeName(t.dtype()) + ".npy");
    WriteNpy(path, t);
    const std::string bytes = platform::ReadFile(path);
    // Version 1.0 with the data starting on a 64-byte boundary, as NumPy writes it.
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    const size_t header_len = static_cast<unsigned char>(bytes[8]) |
                              static_cast<unsigned char>(bytes[9]) << 8;
    EXPECT_EQ((10 + header_len) % 64, 0u);
    EXPECT_EQ(bytes[10 + header_len - 1], '\n');
    ExpectSameTensor(ReadNpy(path), t);
  }
}

TEST(NpyIo, HeaderMatchesNumPy) {
  const std::string bytes = SerializeNpy(MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(bytes.substr(10, 59), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  const std::string vec = SerializeNpy(MakeTensor<int64_t>({4}, {1, 2, 3, 4}));
  EXPECT_NE(vec.find("'shape': (4,), }"), std::string::npos);
  EXPECT_NE(vec.find("'descr': '<i8'"), std::string::npos);
  const std::string u8 = SerializeNpy(MakeTensor<uint8_t>({1}, {7}));
  EXPECT_NE(u8.find("'descr': '|u1'"), std::string::npos);
}

TEST(NpyIo, ScalarsAndEmptyArrays) {
  const DenseTensor scalar = MakeTensor<double>(DDim(std::vector<int64_t>{}), {2.5});
  const DenseTensor s = ParseNpy(SerializeNpy(scalar), "scalar");
  EXPECT_EQ(s.dims().size(), 0);
  EXPECT_EQ(s.data<double>()[0], 2.5);
  EXPECT_NE(SerializeNpy(scalar).find("'shape': (), }"), std::string::npos);

  DenseTensor empty(DDim({0, 3}), platform::DataType::FLOAT32);
  const DenseTensor e = ParseNpy(SerializeNpy(empty), "empty");
  EXPECT_EQ(e.dims(), DDim({0, 3}));
  EXPECT_EQ(e.dtype(), platform::DataType::FLOAT32);
}

TEST(NpyIo, ReadsVersions2And3AndLooseHeaders) {
  const std::string payload = FloatBytes({1, 2, 3, 4});
  for (int major : {1, 2, 3}) {
    SCOPED_TRACE(major);
    const DenseTensor t = ParseNpy(
        MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", payload, major),
        "v.npy");
    EXPECT_EQ(t.dims(), DDim({2, 2}));
    EXPECT_EQ(t.data<float>()[3], 4.0f);
  }
  // Key order, spacing, double quotes and Python 2 longs vary between writers.
  const DenseTensor t = ParseNpy(
      MakeNpy("{\"shape\":(4L,),\"fortran_order\":False,\"descr\":\"<f4\"}", payload), "v.npy");
  EXPECT_EQ(t.dims(), DDim({4}));
  // Booleans that are not 0/1 bytes read as true.
  const DenseTensor b =
      ParseNpy(MakeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
                       std::string("\x00\x02", 2)),
               "b.npy");
  EXPECT_FALSE(b.data<bool>()[0]);
  EXPECT_TRUE(b.data<bool>()[1]);
}

TEST(NpyIo, Errors) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  const std::string good = MakeNpy(dict, FloatBytes({1, 2, 3, 4}));
  platform::ErrorCode code = platform::ErrorCode::kFatal;

  EXPECT_NE(ErrorOf("PK\x03\x04 not numpy at all", &code).find("bad magic"), std::string::npos);
  EXPECT_EQ(code, platform::ErrorCode::kInvalidArgument);
  EXPECT_NE(ErrorOf(good.substr(0, 9)).find("truncated"), std::string::npos);
  EXPECT_NE(ErrorOf(good.substr(0, 40)).find("truncated header"), std::string::npos);
  EXPECT_NE(ErrorOf(good.substr(0, good.size() - 1)).find("truncated data"), std::string::npos);
  EXPECT_NE(ErrorOf(good + "xx").find("data size mismatch"), std::string::npos);

  const std::string big_endian = ErrorOf(MakeNpy(
      "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", FloatBytes({1, 2, 3, 4})));
  EXPECT_NE(big_endian.find("'>f4'"), std::string::npos) << big_endian;
  EXPECT_NE(big_endian.find("little-endian"), std::string::npos) << big_endian;
  EXPECT_NE(big_endian.find("bad.npy"), std::string::npos) << big_endian;

  const std::string unsigned32 = ErrorOf(MakeNpy(
      "{'descr': '<u4', 'fortran_order': False, 'shape': (4,), }", FloatBytes({1, 2, 3, 4})));
  EXPECT_NE(unsigned32.find("unsupported dtype '<u4'"), std::string::npos) << unsigned32;
  // complex64: pairs of float32 (real, imaginary).
  const DenseTensor complex =
      framework::ParseNpy(MakeNpy("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }",
                                  FloatBytes({1, 2, 3, 4})),
                          "complex.npy");
  ASSERT_EQ(complex.dtype(), platform::DataType::COMPLEX64);
  EXPECT_EQ(complex.data<std::complex<float>>()[1], std::complex<float>(3, 4));

  const std::string fortran = ErrorOf(MakeNpy(
      "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", FloatBytes({1, 2, 3, 4})));
  EXPECT_NE(fortran.find("fortran_order"), std::string::npos) << fortran;

  EXPECT_NE(ErrorOf(MakeNpy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                            FloatBytes({1})))
                .find("structured"),
            std::string::npos);
  EXPECT_NE(ErrorOf(MakeNpy("{'descr': '<f4', 'shape': (1,), }", FloatBytes({1}))).find("lacks"),
            std::string::npos);
  EXPECT_NE(ErrorOf(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", ""))
                .find("bad header"),
            std::string::npos);
  std::string v9 = good;
  v9[6] = 9;
  EXPECT_NE(ErrorOf(v9).find("format version 9.0"), std::string::npos);

  try {
    ReadNpy(TempPath("does_not_exist.npy"));
    FAIL() << "expected NotFoundError";
  } catch (const platform::NotFoundError& e) {
    EXPECT_NE(std::string(e.what()).find("does_not_exist.npy"), std::string::npos);
  }
}

TEST(NpyIo, RefusesTypesNumPyLacks) {
  DenseTensor t(DDim({2}), platform::DataType::BFLOAT16);
  t.mutable_data(platform::CPUPlace(), platform::DataType::BFLOAT16);
  EXPECT_THROW(SerializeNpy(t), platform::InvalidArgumentError);
}

}  // namespace
}  // namespace framework
}  // namespace paddle_like

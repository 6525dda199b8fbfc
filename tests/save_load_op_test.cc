// save / load / save_combine / load_combine run as programs: round trips for several dtypes
// and LoD, file bytes equal to framework::AppendTensorRecord, a hand-written record in
// PaddlePaddle's layout, record order, end-of-file checks, overwrite protection and crash
// safety (a failed save leaves the previous file intact).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "framework/executor.h"
#include "framework/tensor_io.h"
#include "platform/file_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

namespace fs = std::filesystem;
using framework::LoD;
using framework::Scope;
using framework::VariableNameMap;

// A fresh directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "pl_save_load_XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs one op in a program; every variable is persistable and lives in `scope`.
void RunOneOp(const std::string& type, const VariableNameMap& inputs,
              const VariableNameMap& outputs, const AttributeMap& attrs, Scope* scope) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& block = program.Block(0);
  framework::OpDesc* op = block.AppendOp();
  op->SetType(type);
  for (const auto& kv : inputs) {
    op->SetInput(kv.first, kv.second);
    for (const auto& n : kv.second) block.Var(n)->SetPersistable(true);
  }
  for (const auto& kv : outputs) {
    op->SetOutput(kv.first, kv.second);
    for (const auto& n : kv.second) block.Var(n)->SetPersistable(true);
  }
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program, 0, scope, {});
  exec.Run(prepared.get());
}

void Put(Scope* scope, const std::string& name, const DenseTensor& t) {
  *scope->Var(name)->GetMutable<DenseTensor>() = t;
}

const DenseTensor& Take(const Scope& scope, const std::string& name) {
  return scope.FindVar(name)->Get<DenseTensor>();
}

std::string Record(const DenseTensor& t) {
  std::string s;
  framework::AppendTensorRecord(t, &s);
  return s;
}

std::string Bytes(const DenseTensor& t) {
  return std::string(static_cast<const char*>(t.raw_data()),
                     static_cast<size_t>(t.numel()) * platform::SizeOf(t.dtype()));
}

void ExpectSameTensor(const DenseTensor& a, const DenseTensor& b, const std::string& what) {
  EXPECT_EQ(a.dtype(), b.dtype()) << what;
  EXPECT_EQ(a.dims(), b.dims()) << what;
  EXPECT_EQ(a.lod(), b.lod()) << what;
  EXPECT_TRUE(Bytes(a) == Bytes(b)) << what;
}

void WriteRaw(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::vector<DenseTensor> SampleTensors() {
  DenseTensor f32 = MakeTensor<float>({2, 3}, RandomValues(6, -1, 1, 1));
  DenseTensor f64 = MakeTensor<double>({4}, RandomValues(4, -1, 1, 2));
  DenseTensor i64 = MakeTensor<int64_t>({3, 2}, {1, -2, 3, 1LL << 40, 5, 6});
  i64.set_lod(LoD{{0, 1, 3}});
  DenseTensor empty = MakeTensor<float>({0, 4}, {});
  return {f32, f64, i64, empty};
}

TEST(SaveLoadOp, RoundTripMatchesTensorRecord) {
  TempDir dir;
  int i = 0;
  for (const DenseTensor& t : SampleTensors()) {
    SCOPED_TRACE("tensor " + std::to_string(i));
    Scope scope;
    Put(&scope, "x", t);
    const std::string path = dir / ("nested/dir/x" + std::to_string(i++));
    RunOneOp("save", {{"X", {"x"}}}, {}, {{"file_path", path}}, &scope);
    EXPECT_TRUE(platform::ReadFile(path) == Record(t)) << "file bytes";
    RunOneOp("load", {}, {{"Out", {"y"}}}, {{"file_path", path}}, &scope);
    ExpectSameTensor(Take(scope, "y"), t, "loaded");
  }
}

TEST(SaveLoadOp, LoadsARecordInPaddlePaddleLayout) {
  // FORMATS.md 2: version, lod_level, tensor version, desc size, TensorDesc{FP32, [2, 3]}, data.
  std::string bytes(
      "\0\0\0\0"
      "\0\0\0\0\0\0\0\0"
      "\0\0\0\0"
      "\x06\0\0\0"
      "\x08\x05\x10\x02\x10\x03",
      26);
  const float data[6] = {1, 2, 3, 4, 5, 6};
  bytes.append(reinterpret_cast<const char*>(data), sizeof(data));
  TempDir dir;
  WriteRaw(dir / "w", bytes);
  Scope scope;
  RunOneOp("load", {}, {{"Out", {"w"}}}, {{"file_path", dir / "w"}}, &scope);
  const DenseTensor& w = Take(scope, "w");
  EXPECT_EQ(w.dtype(), DataType::FLOAT32);
  EXPECT_EQ(w.dims(), DDim({2, 3}));
  EXPECT_EQ(ToDoubles(w), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(SaveLoadOp, CombineKeepsXOrder) {
  TempDir dir;
  const auto ts = SampleTensors();
  Scope scope;
  Put(&scope, "b", ts[0]);
  Put(&scope, "a", ts[1]);
  Put(&scope, "c", ts[2]);
  const std::string path = dir / "params/__params__";
  RunOneOp("save_combine", {{"X", {"b", "a", "c"}}}, {}, {{"file_path", path}}, &scope);
  EXPECT_TRUE(platform::ReadFile(path) == Record(ts[0]) + Record(ts[1]) + Record(ts[2]));
  RunOneOp("load_combine", {}, {{"Out", {"b2", "a2", "c2"}}}, {{"file_path", path}}, &scope);
  ExpectSameTensor(Take(scope, "b2"), ts[0], "b");
  ExpectSameTensor(Take(scope, "a2"), ts[1], "a");
  ExpectSameTensor(Take(scope, "c2"), ts[2], "c");
}

TEST(SaveLoadOp, LoadCombineRequiresExactlyTheRecords) {
  TempDir dir;
  const auto ts = SampleTensors();
  const std::string path = dir / "p";
  WriteRaw(path, Record(ts[0]) + Record(ts[1]) + "x");
  Scope scope;
  Put(&scope, "keep", ts[3]);
  try {
    RunOneOp("load_combine", {}, {{"Out", {"keep", "a"}}}, {{"file_path", path}}, &scope);
    FAIL() << "expected an error";
  } catch (const platform::InvalidArgumentError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("op `load_combine`"), std::string::npos) << msg;
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("1 bytes left"), std::string::npos) << msg;
  }
  ExpectSameTensor(Take(scope, "keep"), ts[3], "no output changes on error");
  WriteRaw(path, Record(ts[0]));
  try {
    RunOneOp("load_combine", {}, {{"Out", {"x", "y"}}}, {{"file_path", path}}, &scope);
    FAIL() << "expected an error";
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("variable `y`"), std::string::npos) << e.what();
  }
  // load also rejects trailing bytes.
  WriteRaw(path, Record(ts[0]) + Record(ts[1]));
  EXPECT_THROW(RunOneOp("load", {}, {{"Out", {"x"}}}, {{"file_path", path}}, &scope),
               platform::InvalidArgumentError);
}

TEST(SaveLoadOp, OverwriteFalseProtectsExistingFile) {
  TempDir dir;
  const std::string path = dir / "w";
  WriteRaw(path, "old");
  Scope scope;
  Put(&scope, "w", SampleTensors()[0]);
  for (const char* op : {"save", "save_combine"}) {
    try {
      RunOneOp(op, {{"X", {"w"}}}, {}, {{"file_path", path}, {"overwrite", false}}, &scope);
      FAIL() << "expected an error from " << op;
    } catch (const platform::AlreadyExistsError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::string("op `") + op + "`"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(platform::ReadFile(path), "old");
  }
  RunOneOp("save", {{"X", {"w"}}}, {}, {{"file_path", path}}, &scope);
  EXPECT_TRUE(platform::ReadFile(path) == Record(SampleTensors()[0]));
}

TEST(SaveLoadOp, FailedSaveLeavesPreviousFileIntact) {
  TempDir dir;
  const std::string path = dir / "params";
  WriteRaw(path, "previous contents");
  Scope scope;
  Put(&scope, "a", SampleTensors()[0]);
  scope.Var("unset");  // Declared but holds no tensor: the save fails after record 1.
  try {
    RunOneOp("save_combine", {{"X", {"a", "unset"}}}, {}, {{"file_path", path}}, &scope);
    FAIL() << "expected an error";
  } catch (const platform::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("op `save_combine` input `X` (variable `unset`)"), std::string::npos) << msg;
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
  }
  EXPECT_EQ(platform::ReadFile(path), "previous contents");

  // The target is a directory: writing fails at the final rename; nothing is left behind.
  const std::string as_dir = dir / "a_directory";
  fs::create_directory(as_dir);
  try {
    RunOneOp("save", {{"X", {"a"}}}, {}, {{"file_path", as_dir}}, &scope);
    FAIL() << "expected an error";
  } catch (const platform::UnavailableError& e) {
    EXPECT_NE(std::string(e.what()).find("variable `a`"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(as_dir), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(as_dir));
  int entries = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    (void)entry;
    ++entries;
  }
  EXPECT_EQ(entries, 2) << "no temporary file is left in " << dir.path();
}

TEST(SaveLoadOp, Float16Conversion) {
  TempDir dir;
  Scope scope;
  const DenseTensor w = MakeTensor<float>({3}, {0.5, -2, 1024});
  Put(&scope, "w", w);
  Put(&scope, "ids", MakeTensor<int64_t>({2}, {7, 8}));
  RunOneOp("save_combine", {{"X", {"w", "ids"}}}, {},
           {{"file_path", dir / "half"}, {"save_as_fp16", true}}, &scope);
  RunOneOp("load_combine", {}, {{"Out", {"w16", "ids2"}}}, {{"file_path", dir / "half"}}, &scope);
  EXPECT_EQ(Take(scope, "w16").dtype(), DataType::FLOAT16);
  EXPECT_EQ(ToDoubles(Take(scope, "w16")), (std::vector<double>{0.5, -2, 1024}));
  EXPECT_EQ(Take(scope, "ids2").dtype(), DataType::INT64) << "integer tensors are kept";
  RunOneOp("save", {{"X", {"w"}}}, {}, {{"file_path", dir / "full"}}, &scope);
  RunOneOp("load", {}, {{"Out", {"w_half"}}}, {{"file_path", dir / "full"}, {"load_as_fp16", true}},
           &scope);
  EXPECT_EQ(Take(scope, "w_half").dtype(), DataType::FLOAT16);
  EXPECT_EQ(ToDoubles(Take(scope, "w_half")), (std::vector<double>{0.5, -2, 1024}));
}

TEST(SaveLoadOp, ErrorsNameOpVariableAndPath) {
  TempDir dir;
  Scope scope;
  const std::string missing = dir / "missing";
  try {
    RunOneOp("load", {}, {{"Out", {"w"}}}, {{"file_path", missing}}, &scope);
    FAIL() << "expected an error";
  } catch (const platform::NotFoundError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("op `load` output `Out` (variable `w`)"), std::string::npos) << msg;
    EXPECT_NE(msg.find(missing), std::string::npos) << msg;
  }
  WriteRaw(dir / "bad", std::string("\x01\0\0\0", 4));
  try {
    RunOneOp("load_combine", {}, {{"Out", {"w"}}}, {{"file_path", dir / "bad"}}, &scope);
    FAIL() << "expected an error";
  } catch (const platform::InvalidArgumentError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("op `load_combine` output `Out` (variable `w`"), std::string::npos) << msg;
    EXPECT_NE(msg.find(dir / "bad"), std::string::npos) << msg;
  }
  EXPECT_THROW(RunOneOp("save", {{"X", {"w"}}}, {}, {{"file_path", std::string()}}, &scope),
               platform::InvalidArgumentError);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

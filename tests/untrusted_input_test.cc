// Regression tests for hostile or damaged model files: each builds the smallest file that
// once crashed the loaders (size overflows, huge LoD levels, ranks past the maximum, streams
// that never end) and expects a typed error naming the file and the variable, or the op and
// the attribute. Also the op-declaration builders, which must stay valid however many slots
// and attributes an op declares after them.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "cli_test_util.h"
#include "framework/ddim.h"
#include "framework/executor.h"
#include "framework/framework.pb.h"
#include "framework/model_loading.h"
#include "framework/npy_io.h"
#include "framework/op_proto_maker.h"
#include "framework/scope.h"
#include "framework/tensor_io.h"
#include "op_test_util.h"
#include "platform/file_util.h"
#include "platform/flags.h"

namespace paddle_like {
namespace {

namespace proto = ::paddle::framework::proto;
using framework::DDim;
using framework::DenseTensor;
using framework::ProgramDesc;
using framework::Scope;
using testing::ExpectError;
using testing::WriteTemp;

template <typename T>
void AppendPod(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

// A tensor record (FORMATS.md section 2) with the given header fields and `data` bytes.
std::string Record(const std::vector<int64_t>& dims, proto::VarType::Type dtype,
                   const std::string& data, const std::vector<std::string>& lod_levels = {}) {
  std::string r;
  AppendPod<uint32_t>(&r, 0);
  AppendPod<uint64_t>(&r, lod_levels.size());
  for (const auto& level : lod_levels) r += level;
  AppendPod<uint32_t>(&r, 0);
  proto::VarType::TensorDesc desc;
  desc.set_data_type(dtype);
  for (int64_t d : dims) desc.add_dims(d);
  const std::string desc_bytes = desc.SerializeAsString();
  AppendPod<int32_t>(&r, static_cast<int32_t>(desc_bytes.size()));
  return r + desc_bytes + data;
}

std::string LoDLevel(uint64_t byte_size, const std::vector<uint64_t>& offsets) {
  std::string l;
  AppendPod<uint64_t>(&l, byte_size);
  for (uint64_t o : offsets) AppendPod<uint64_t>(&l, o);
  return l;
}

DenseTensor ReadOne(const std::string& bytes) {
  size_t offset = 0;
  return framework::ReadTensorRecord(bytes, &offset, "param.bin");
}

// ---- sizes that overflow ----

TEST(UntrustedTensorRecord, ElementCountPastInt64IsRefused) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  ExpectError<platform::InvalidArgumentError>(
      [&] { ReadOne(Record({max}, proto::VarType::FP32, std::string(32, '\0'))); },
      {"param.bin", "needs more than 2^64 bytes"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { ReadOne(Record({max, 4}, proto::VarType::FP32, "")); },
      {"param.bin", "more elements than an int64 can count"});
}

TEST(UntrustedTensorRecord, ByteCountThatWrapsToZeroIsRefused) {
  // 2^62 float32 elements are 2^64 bytes: 0 once wrapped. The data is 16 bytes.
  ExpectError<platform::InvalidArgumentError>(
      [&] { ReadOne(Record({int64_t{1} << 62}, proto::VarType::FP32, std::string(16, '\0'))); },
      {"param.bin", "truncated data"});
  // 2^61 float64 elements, 2^64 bytes, the same wrap for an 8-byte type.
  ExpectError<platform::InvalidArgumentError>(
      [&] { ReadOne(Record({int64_t{1} << 61}, proto::VarType::FP64, "")); },
      {"param.bin"});
}

TEST(UntrustedTensorRecord, RankAboveTheMaximumNamesFile) {
  ExpectError<platform::InvalidArgumentError>(
      [&] { ReadOne(Record(std::vector<int64_t>(64, 1), proto::VarType::FP32, "abcd")); },
      {"param.bin", "rank 64 exceeds the maximum rank 9"});
}

TEST(UntrustedTensorRecord, NegativeDimIsRefused) {
  ExpectError<platform::InvalidArgumentError>(
      [&] { ReadOne(Record({2, -3}, proto::VarType::FP32, "")); },
      {"param.bin", "dim 1 of shape [2, -3] is -3"});
}

TEST(UntrustedTensorRecord, HugeLoDLevelIsRefusedBeforeAllocating) {
  for (uint64_t size : {~uint64_t{0}, uint64_t{1} << 62, ~uint64_t{0} - 7}) {
    ExpectError<platform::InvalidArgumentError>(
        [&] { ReadOne(Record({1}, proto::VarType::FP32, "abcd", {LoDLevel(size, {})})); },
        {"param.bin", "LoD level 0"});
  }
}

TEST(UntrustedTensorRecord, LoDOffsetsMustDescribeTheTensor) {
  const std::string data(3 * 4, '\0');
  // Valid: two sequences of 1 and 2 rows.
  const DenseTensor ok = ReadOne(Record({3}, proto::VarType::FP32, data, {LoDLevel(24, {0, 1, 3})}));
  ASSERT_EQ(ok.lod().size(), 1u);
  EXPECT_EQ(ok.lod()[0], (std::vector<size_t>{0, 1, 3}));
  // Past the rows, decreasing, not starting at 0.
  for (const auto& offsets : std::vector<std::vector<uint64_t>>{
           {0, 1, 1000000}, {0, 2, 1, 3}, {1, 3}, {0}}) {
    ExpectError<platform::InvalidArgumentError>(
        [&] {
          ReadOne(Record({3}, proto::VarType::FP32, data,
                         {LoDLevel(8 * offsets.size(), offsets)}));
        },
        {"param.bin", "LoD level 0"});
  }
}

TEST(UntrustedTensorRecord, LoDProblemFollowsPaddlePaddlesRule) {
  using framework::LoD;
  using framework::LoDProblem;
  EXPECT_EQ(LoDProblem(LoD{{0, 2, 3}}, 3), "");
  EXPECT_EQ(LoDProblem(LoD{{0, 1, 2}, {0, 2, 5}}, 5), "");
  EXPECT_NE(LoDProblem(LoD{{0, 1, 2}, {0, 2, 5}}, 4), "");  // Last level ends past the rows.
  EXPECT_NE(LoDProblem(LoD{{0, 1, 3}, {0, 2, 5}}, 5), "");  // Level 0 ends past level 1.
  EXPECT_NE(LoDProblem(LoD{{}}, 0), "");
}

TEST(UntrustedTensorRecord, CombinedAndSeparateFilesNameTheVariable) {
  ProgramDesc program;
  auto* w = program.Block(0).Var("fc.w");
  w->SetPersistable(true);
  w->SetShape({2});
  const std::string huge = Record({std::numeric_limits<int64_t>::max()}, proto::VarType::FP32,
                                   std::string(32, '\0'));
  const std::string combined = WriteTemp("huge.pdiparams", huge);
  Scope scope;
  framework::ParameterSource source;
  source.combined_file = combined;
  ExpectError<platform::InvalidArgumentError>(
      [&] { framework::LoadParameters(program, "model.pdmodel", source, &scope); },
      {"variable `fc.w`", "huge.pdiparams"});

  const std::string dir = testing::CliTempDir() + "/separate_huge";
  std::filesystem::create_directories(dir);
  WriteTemp("separate_huge/fc.w", huge);
  framework::ParameterSource separate;
  separate.dir = dir;
  ExpectError<platform::InvalidArgumentError>(
      [&] { framework::LoadParameters(program, "model.pdmodel", separate, &scope); },
      {"variable `fc.w`", "separate_huge/fc.w"});
}

TEST(UntrustedShapes, NumelAndProductDetectOverflow) {
  const int64_t big = int64_t{1} << 40;
  EXPECT_THROW(DDim({big, big}).numel(), platform::OutOfRangeError);
  EXPECT_THROW(framework::Product(DDim({3, big, big}), 1, 3), platform::OutOfRangeError);
  // Zero elements, but the non-zero dims still must be countable.
  EXPECT_THROW(DDim({0, big, big}).numel(), platform::OutOfRangeError);
  EXPECT_EQ(DDim({0, big}).numel(), 0);
  EXPECT_EQ(DDim({-1, big}).numel(), -1);
  EXPECT_THROW(DDim({-1, big, big}).numel(), platform::OutOfRangeError);
  EXPECT_EQ(framework::ShapeProblem({2, -1}, true), "");
  EXPECT_NE(framework::ShapeProblem({2, -1}, false), "");
  EXPECT_NE(framework::ShapeProblem({2, -2}, true), "");
  EXPECT_NE(framework::ShapeProblem(std::vector<int64_t>(10, 1), true), "");
}

TEST(UntrustedShapes, AllocationSizeOverflowIsTyped) {
  DenseTensor t(DDim({int64_t{1} << 62}), platform::DataType::FLOAT32);
  ExpectError<platform::OutOfRangeError>(
      [&] { t.mutable_data<float>(platform::CPUPlace()); }, {"[4611686018427387904]", "int64"});
  DenseTensor big(DDim({int64_t{1} << 50}), platform::DataType::FLOAT32);
  ExpectError<platform::UnavailableError>(
      [&] { big.mutable_data<float>(platform::CPUPlace()); }, {"out of CPU memory"});
}

// FLAGS_memory_limit_mb caps the bytes live CPU buffers hold: an op whose output would pass
// it fails with UnavailableError naming the op's place, the request and the limit, and the
// same run succeeds once the limit is lifted.
TEST(UntrustedShapes, MemoryLimitFlagFailsTheAllocationPastIt) {
  operators::RegisterAllOps();
  ProgramDesc program;
  auto& block = program.Block(0);
  for (const char* name : {"x", "y"}) block.Var(name)->SetShape({-1});
  auto* tile = block.AppendOp();
  tile->SetType("tile");
  tile->SetInput("X", {"x"});
  tile->SetOutput("Out", {"y"});
  tile->SetAttr("repeat_times", std::vector<int>{1 << 20});  // 4 x 2^20 floats: 16 MiB.
  std::map<std::string, DenseTensor> feeds;
  feeds["x"] = testing::MakeTensor<float>(DDim({4}), {1, 2, 3, 4});
  const int64_t saved = FLAGS_memory_limit_mb;
  FLAGS_memory_limit_mb = 8;
  {
    Scope scope;
    framework::Executor exec{platform::CPUPlace()};
    ExpectError<platform::UnavailableError>(
        [&] { exec.Run(program, &scope, feeds, {"y"}); },
        {"block 0 op #0", "`tile`", "memory limit reached: 16777216 bytes requested",
         "FLAGS_memory_limit_mb = 8"});
  }
  FLAGS_memory_limit_mb = 64;
  {
    Scope scope;
    framework::Executor exec{platform::CPUPlace()};
    const auto out = exec.Run(program, &scope, feeds, {"y"});
    EXPECT_EQ(out[0].numel(), int64_t{4} << 20);
  }
  FLAGS_memory_limit_mb = saved;
}

// ---- programs ----

std::string ProgramWithShape(const std::vector<int64_t>& dims) {
  proto::ProgramDesc p;
  auto* b = p.add_blocks();
  b->set_idx(0);
  b->set_parent_idx(-1);
  auto* v = b->add_vars();
  v->set_name("x");
  v->mutable_type()->set_type(proto::VarType::LOD_TENSOR);
  auto* t = v->mutable_type()->mutable_lod_tensor()->mutable_tensor();
  t->set_data_type(proto::VarType::FP32);
  for (int64_t d : dims) t->add_dims(d);
  return p.SerializeAsString();
}

TEST(UntrustedProgram, DeclaredShapesAreChecked) {
  EXPECT_NO_THROW(ProgramDesc::FromBinary(ProgramWithShape({-1, 3}), "ok.pdmodel"));
  ExpectError<platform::InvalidArgumentError>(
      [] { ProgramDesc::FromBinary(ProgramWithShape(std::vector<int64_t>(64, 1)), "m.pdmodel"); },
      {"m.pdmodel", "variable `x`", "rank 64"});
  ExpectError<platform::InvalidArgumentError>(
      [] { ProgramDesc::FromBinary(ProgramWithShape({int64_t{1} << 40, int64_t{1} << 40}), "m.pdmodel"); },
      {"m.pdmodel", "variable `x`", "int64"});
  // PaddlePaddle writes products of unknown dims (layer_norm's Mean over [-1, 50] declared
  // [-50] in PP-OCR's recognisers): any negative dim reads as unknown.
  const ProgramDesc products = ProgramDesc::FromBinary(ProgramWithShape({-50, 3}), "m.pdmodel");
  EXPECT_EQ(products.Block(0).FindVar("x")->GetShape(), (std::vector<int64_t>{-1, 3}));
}

TEST(UntrustedProgram, BlockAttributesMustNameABlock) {
  proto::ProgramDesc p;
  p.ParseFromString(ProgramWithShape({1}));
  auto* op = p.mutable_blocks(0)->add_ops();
  op->set_type("while");
  auto* a = op->add_attrs();
  a->set_name("sub_block");
  a->set_type(proto::BLOCK);
  a->set_block_idx(INT_MAX);
  ExpectError<platform::InvalidArgumentError>(
      [&] { ProgramDesc::FromBinary(p.SerializeAsString(), "m.pdmodel"); },
      {"m.pdmodel", "`while` attribute `sub_block`", "2147483647"});
}

// ---- files that never end or are too large ----

TEST(UntrustedFiles, StreamsAreReadWithACap) {
  ExpectError<platform::InvalidArgumentError>(
      [] { platform::ReadFile("/dev/zero", {"npy file", 4096}); },
      {"npy file `/dev/zero`", "4096 bytes", "not a regular file"});
  const std::string path = WriteTemp("five_bytes.bin", "12345");
  ExpectError<platform::InvalidArgumentError>(
      [&] { platform::ReadFile(path, {"program", 4}); },
      {"program `", "five_bytes.bin", "has 5 bytes", "limit of 4 bytes"});
  EXPECT_EQ(platform::ReadFile(path, {"program", 5}), "12345");
}

// PaddlePaddle 3 saves inference.json and inference.pdiparams: the directory resolves to the
// JSON program, and a damaged one gets an error naming the file and what is missing.
TEST(UntrustedFiles, DirectoryOfADamagedPirProgramSaysWhatIsMissing) {
  const std::string dir = testing::CliTempDir() + "/pir_model";
  std::filesystem::create_directories(dir);
  WriteTemp("pir_model/inference.json", "{\"base_code\": {\"magic\": \"pir\"}}");
  WriteTemp("pir_model/inference.pdiparams", "");
  EXPECT_EQ(framework::ResolveProgramPath(dir), dir + "/inference.json");
  const auto run = testing::RunCli({"infer", "--model", dir});
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_TRUE(testing::Contains(run.err, "inference.json")) << run.err;
  EXPECT_TRUE(testing::Contains(run.err, "version")) << run.err;
}

TEST(UntrustedFiles, DevZeroAsProgramParametersOrFeedIsATypedError) {
  const std::string prog = std::string(PL_SOURCE_DIR) + "/examples/quadratic.pbtxt";
  const std::string feed = std::string(PL_SOURCE_DIR) + "/examples/quadratic_x.npy";
  const auto program = testing::RunCli({"run", "--program", "/dev/zero", "--feed", "x=" + feed});
  EXPECT_EQ(program.code, 1) << program.err;
  EXPECT_TRUE(testing::Contains(program.err, "`/dev/zero`")) << program.err;
  const auto params =
      testing::RunCli({"run", "--program", prog, "--params", "/dev/zero", "--feed", "x=" + feed});
  EXPECT_EQ(params.code, 1) << params.err;
  EXPECT_TRUE(testing::Contains(params.err, "`/dev/zero`")) << params.err;
  const auto npy = testing::RunCli({"run", "--program", prog, "--feed", "x=/dev/zero"});
  EXPECT_EQ(npy.code, 1) << npy.err;
  EXPECT_TRUE(testing::Contains(npy.err, "`/dev/zero`")) << npy.err;
  for (const auto* r : {&program, &params, &npy}) {
    EXPECT_FALSE(testing::Contains(r->err, "internal error")) << r->err;
  }
}

TEST(UntrustedFiles, NpyShapePastInt64IsRefused) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }";
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string npy("\x93NUMPY\x01\x00", 8);
  AppendPod<uint16_t>(&npy, static_cast<uint16_t>(header.size()));
  npy += header + std::string(16, '\0');
  ExpectError<platform::InvalidArgumentError>([&] { framework::ParseNpy(npy, "feed.npy"); },
                                              {"feed.npy"});
}

// ---- attributes used as indices ----

TEST(UntrustedAttributes, ElementwiseAxisExtremesAreRefused) {
  using testing::MakeTensor;
  const DenseTensor x = MakeTensor<float>(DDim({2, 3, 4}), std::vector<double>(24, 1.0));
  const DenseTensor y = MakeTensor<float>(DDim({3}), {1, 2, 3});
  for (const char* op : {"elementwise_add", "elementwise_mul", "elementwise_sub", "elementwise_div"}) {
    for (int axis : {INT_MAX, INT_MIN, 1000, 3, -2}) {
      ExpectError<platform::InvalidArgumentError>(
          [&] {
            testing::RunOp(op, {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}}, {{"axis", axis}});
          },
          {std::string("op `") + op + "` attribute `axis`", std::to_string(axis)});
    }
    // The valid alignment still works.
    const auto r = testing::RunOp(op, {{"X", {x}}, {"Y", {y}}}, {{"Out", 1}}, {{"axis", 1}});
    EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim({2, 3, 4}));
  }
}

TEST(UntrustedAttributes, Conv2dWindowExtremesNameTheAttributes) {
  using testing::MakeTensor;
  const DenseTensor input = MakeTensor<float>(DDim({1, 1, 4, 4}), std::vector<double>(16, 1.0));
  const DenseTensor filter = MakeTensor<float>(DDim({1, 1, 3, 3}), std::vector<double>(9, 1.0));
  const auto run = [&](const framework::AttributeMap& attrs) {
    testing::RunOp("conv2d", {{"Input", {input}}, {"Filter", {filter}}}, {{"Output", 1}}, attrs);
  };
  // Paddings that make the output uncountable name the window attributes.
  ExpectError<platform::InvalidArgumentError>(
      [&] { run({{"paddings", std::vector<int>{INT_MAX, INT_MAX}}}); },
      {"op `conv2d` attributes", "paddings [2147483647, 2147483647]"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { run({{"strides", std::vector<int>{INT_MIN, 1}}}); }, {"`strides`"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { run({{"dilations", std::vector<int>{INT_MAX, INT_MAX}}}); }, {"op `conv2d`"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { run({{"groups", INT_MIN}}); }, {"`groups`"});
}

TEST(UntrustedAttributes, ErrorsWhileRunningNameTheOpsPlace) {
  // A program whose second op fails at run time: the error says where.
  operators::RegisterAllOps();
  ProgramDesc program;
  auto& block = program.Block(0);
  for (const char* name : {"x", "y", "z", "w"}) block.Var(name)->SetShape({-1});
  auto* scale = block.AppendOp();
  scale->SetType("scale");
  scale->SetInput("X", {"x"});
  scale->SetOutput("Out", {"y"});
  auto* add = block.AppendOp();
  add->SetType("elementwise_add");
  add->SetInput("X", {"y"});
  add->SetInput("Y", {"z"});
  add->SetOutput("Out", {"w"});
  add->SetAttr("axis", INT_MAX);
  Scope scope;
  framework::Executor exec{platform::CPUPlace()};
  std::map<std::string, DenseTensor> feeds;
  feeds["x"] = testing::MakeTensor<float>(DDim({3}), {1, 2, 3});
  feeds["z"] = testing::MakeTensor<float>(DDim({2}), {1, 2});
  ExpectError<platform::InvalidArgumentError>([&] { exec.Run(program, &scope, feeds, {"w"}); },
                                              {"block 0 op #1 (X: y, Y: z; Out: w): op `elementwise_add` attribute `axis`"});
}

// ---- op declarations ----

// Keeps builders across many later declarations (which grow the spec's lists) and uses them
// afterwards: each flag must land on the slot or attribute it was returned for.
class ManySlotsOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    auto x = AddInput("X", "first input");
    auto out = AddOutput("Out", "first output");
    auto alpha = AddAttr<int>("alpha", "first attribute");
    for (int i = 0; i < 64; ++i) {
      AddInput("In" + std::to_string(i), "more");
      AddOutput("Out" + std::to_string(i), "more");
      AddAttr<float>("attr" + std::to_string(i), "more").SetDefault(0.f);
    }
    x.AsNoNeedBuffer().AsDispensable();
    out.AsIntermediate();
    alpha.SetDefault(7).InRange(0, 10);
    AddComment("Declares many slots.");
  }
};

TEST(OpDeclaration, BuildersStayValidWhileTheSpecGrows) {
  framework::OpSpec spec;
  framework::AttributeChecker checker;
  ManySlotsOpMaker maker;
  maker.Build("many_slots", &spec, &checker);
  ASSERT_EQ(spec.inputs.size(), 65u);
  EXPECT_TRUE(spec.inputs[0].no_need_buffer);
  EXPECT_TRUE(spec.inputs[0].dispensable);
  for (size_t i = 1; i < spec.inputs.size(); ++i) {
    EXPECT_FALSE(spec.inputs[i].no_need_buffer || spec.inputs[i].dispensable) << i;
  }
  EXPECT_TRUE(spec.outputs[0].intermediate);
  const framework::OpAttrSpec* alpha = spec.FindAttr("alpha");
  ASSERT_NE(alpha, nullptr);
  EXPECT_TRUE(alpha->has_default);
  EXPECT_EQ(std::get<int>(alpha->default_value), 7);
  EXPECT_EQ(alpha->constraint, "in [0, 10]");
  EXPECT_TRUE(spec.FindAttr("attr0")->constraint.empty());
}

}  // namespace
}  // namespace paddle_like

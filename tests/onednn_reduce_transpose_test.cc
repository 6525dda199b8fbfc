// oneDNN kernels of reduce_sum, reduce_mean, mean and transpose2: FLAGS_use_onednn decides
// between the oneDNN and the plain kernel, and both give the same dims, LoD and values (sums
// within a tolerance scaled by the reduction length: the primitive sums in float, the plain
// kernels in double); float64 stays on the plain kernels.
#include <algorithm>
#include <cmath>

#include "operators/math/reduce.h"
#include "platform/device_context_pool.h"
#include "platform/init.h"
#include "tests/onednn_test_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LibraryType;

struct KernelRun {
  LibraryType backend;
  DenseTensor out;
  std::vector<double> values;
};

KernelRun RunWith(bool use_onednn, const std::string& type, const DenseTensor& x,
                  const AttributeMap& attrs, std::map<std::string, int> outputs = {{"Out", 1}}) {
  ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
  auto r = RunOp(type, {{"X", {x}}}, outputs, attrs);
  const DenseTensor out = r.outputs["Out"][0];
  return {r.kernel->key.backend, out, ToDoubles(out)};
}

// The number of elements summed into each output of the reduction of `x` by `attrs`.
int64_t ReductionLength(const std::string& type, const DDim& x, const AttributeMap& attrs) {
  if (type == "mean") return x.numel();
  const auto get = [&attrs](const char* name, auto fallback) {
    auto it = attrs.find(name);
    return it == attrs.end() ? fallback : std::get<decltype(fallback)>(it->second);
  };
  const auto shape =
      operators::math::ComputeReduceShape(type, x, get("dim", std::vector<int>{0}),
                                          get("keep_dim", false), get("reduce_all", false));
  return shape.out.numel() == 0 ? 0 : x.numel() / shape.out.numel();
}

// Runs the op with oneDNN on and off on X in [0.5, 1.5): checks the choice, dims, dtype, LoD
// and values.
void CheckReduction(const std::string& type, const DDim& dims, const AttributeMap& attrs,
                    unsigned seed) {
  std::string what = type + " " + dims.ToString();
  for (const auto& kv : attrs) what += " " + kv.first;
  SCOPED_TRACE(what);
  DenseTensor x = MakeTensor<float>(dims, RandomValues(dims.numel(), 0.5, 1.5, seed));
  const KernelRun onednn = RunWith(true, type, x, attrs);
  const KernelRun plain = RunWith(false, type, x, attrs);
  EXPECT_EQ(onednn.backend, LibraryType::kOneDNN);
  EXPECT_EQ(plain.backend, LibraryType::kPlain);
  EXPECT_EQ(onednn.out.dims(), plain.out.dims());
  EXPECT_EQ(onednn.out.dtype(), plain.out.dtype());
  EXPECT_EQ(onednn.out.lod(), plain.out.lod());
  // Summing n positive floats in any order is off by at most (n - 1) * 2^-24 relative; one
  // more rounding each for the plain kernel's result and the mean's division.
  const double rtol = static_cast<double>(ReductionLength(type, dims, attrs) + 2) * 0x1p-24;
  ASSERT_EQ(onednn.values.size(), plain.values.size());
  for (size_t i = 0; i < plain.values.size(); ++i) {
    if (std::isnan(plain.values[i])) {
      EXPECT_TRUE(std::isnan(onednn.values[i])) << "element " << i;
    } else {
      EXPECT_NEAR(onednn.values[i], plain.values[i], rtol * std::abs(plain.values[i]))
          << "element " << i;
    }
  }
}

class OneDNNReduceTransposeTest : public OneDNNKernelTestBase {};

AttributeMap Dims(std::vector<int> dim, bool keep_dim = false) {
  return {{"dim", dim}, {"keep_dim", keep_dim}};
}

TEST_F(OneDNNReduceTransposeTest, ReductionsMatchPlainKernels) {
  const AttributeMap all = {{"reduce_all", true}};
  const DDim scalar(std::vector<int64_t>{});
  struct Case {
    DDim dims;
    AttributeMap attrs;
  };
  const std::vector<Case> cases = {
      {{7}, Dims({0})},
      {{7}, Dims({-1}, true)},
      {{3, 5}, Dims({-1})},
      {{3, 5}, Dims({1}, true)},
      {{3, 5}, Dims({0})},  // Not innermost: the plain kernel inside the oneDNN one.
      {{3, 5}, all},
      {{3, 5}, Dims({})},  // An empty `dim` reduces everything.
      {{2, 3, 4, 5}, Dims({2, 3})},
      {{2, 3, 4, 5}, Dims({-1, -2}, true)},
      {{2, 3, 4, 5}, Dims({0, 2})},
      {{2, 1, 3, 1}, Dims({2})},  // Innermost once size-1 dims are left out.
      {{2, 1, 3, 1}, Dims({1, 3}, true)},
      {{1, 1}, all},
      {{4, 4096}, all},  // A full reduction split into rows.
      {{4, 4096}, Dims({1, 0}, true)},
      {{8, 2, 2048}, Dims({-1})},
      {{0, 3}, Dims({-1})},  // Empty: the plain kernel.
      {{3, 0}, Dims({-1})},  // Empty sums: 0, means: NaN.
      {scalar, Dims({0})},
      {scalar, Dims({-1}, true)},
  };
  unsigned seed = 1;
  for (const char* type : {"reduce_sum", "reduce_mean"}) {
    for (const Case& c : cases) CheckReduction(type, c.dims, c.attrs, ++seed);
  }
  for (const DDim& dims : {DDim{7}, DDim{3, 5}, DDim{4, 4096}, DDim{64, 20, 24, 24}, scalar}) {
    CheckReduction("mean", dims, {}, ++seed);
  }
  // in_dtype float32 and out_dtype float32 keep the primitive.
  CheckReduction("reduce_sum", {3, 5}, {{"dim", std::vector<int>{-1}}, {"out_dtype", 5}}, ++seed);
  CheckReduction("reduce_sum", {3, 5}, {{"dim", std::vector<int>{-1}}, {"in_dtype", 5}}, ++seed);
}

// out_dtype float64: the plain kernel sums into doubles, exactly here.
TEST_F(OneDNNReduceTransposeTest, Float64OutDtypeRunsThePlainKernel) {
  const DenseTensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const KernelRun r =
      RunWith(true, "reduce_sum", x, {{"dim", std::vector<int>{-1}}, {"out_dtype", 6}});
  EXPECT_EQ(r.backend, LibraryType::kOneDNN);
  EXPECT_EQ(r.out.dtype(), DataType::FLOAT64);
  EXPECT_EQ(r.values, (std::vector<double>{6, 15}));
}

// Values near 1 in rows of 4096: the primitive's float sums differ from the plain kernel's
// once-rounded double sums in the last bits, so the bits tell which one ran.
TEST_F(OneDNNReduceTransposeTest, SmallInputsRunThePlainKernel) {
  const DDim dims = {16, 4096};  // Under kReduceMin elements, rows of kRowMin or more.
  const DenseTensor x = MakeTensor<float>(dims, RandomValues(dims.numel(), 0.5, 1.5, 3));
  const AttributeMap attrs = Dims({-1});
  const KernelRun plain = RunWith(false, "reduce_sum", x, attrs);
  const KernelRun primitive = RunWith(true, "reduce_sum", x, attrs);
  EXPECT_EQ(primitive.backend, LibraryType::kOneDNN);
  EXPECT_NE(primitive.values, plain.values);
  FLAGS_onednn_small_input_fallback = true;
  const KernelRun handed_over = RunWith(true, "reduce_sum", x, attrs);
  EXPECT_EQ(handed_over.backend, LibraryType::kOneDNN);
  EXPECT_EQ(handed_over.values, plain.values);
}

// The primitive sums each row on one thread in a fixed order: the same bits on every run and
// for any thread count (the kernels are registered deterministic), split full reductions too.
TEST_F(OneDNNReduceTransposeTest, ReductionsAreReproducible) {
  const DDim dims = {64, 20, 24, 24};
  const DenseTensor x = MakeTensor<float>(dims, RandomValues(dims.numel(), -1, 1, 5));
  const std::vector<AttributeMap> cases = {Dims({-1, -2}), {{"reduce_all", true}}};
  std::vector<std::vector<double>> one_thread;
  const int old = FLAGS_paddle_num_threads;
  for (int threads : {1, 2, 4}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    FLAGS_paddle_num_threads = threads;
    platform::DeviceContextPool::Instance().Clear();
    for (size_t i = 0; i < cases.size(); ++i) {
      const KernelRun first = RunWith(true, "reduce_sum", x, cases[i]);
      EXPECT_EQ(first.values, RunWith(true, "reduce_sum", x, cases[i]).values);
      if (threads == 1) one_thread.push_back(first.values);
      EXPECT_EQ(first.values, one_thread[i]);
    }
  }
  FLAGS_paddle_num_threads = old;
  platform::DeviceContextPool::Instance().Clear();
}

// reduce_as on X in a oneDNN layout (a gradient between oneDNN gradient kernels): one value
// per channel is X summed per channel (against sums in double here, the same bits for 1, 2
// and 3 threads), equal shapes give X back, other targets go to the plain kernel. Blocked
// formats pad 20 channels to 24 or 32; channel-last runs through spans of whole positions
// (the last one shorter).
TEST_F(OneDNNReduceTransposeTest, ReduceAsReadsOneDNNLayouts) {
  using Tag = dnnl::memory::format_tag;
  const DDim dims = {3, 20, 7, 5};
  std::vector<double> values = RandomValues(dims.numel(), -1, 1, 13);
  for (double& v : values) v = static_cast<float>(v);  // What X holds.
  std::vector<double> per_channel(20, 0.0);
  for (int64_t i = 0; i < dims.numel(); ++i) per_channel[(i / 35) % 20] += values[i];
  std::vector<double> per_row(3 * 20 * 7, 0.0);  // Target [3, 20, 7, 1].
  for (int64_t i = 0; i < dims.numel(); ++i) per_row[i / 5] += values[i];
  const int old = FLAGS_paddle_num_threads;
  for (const Tag format : {Tag::acdb, Tag::aBcd8b, Tag::aBcd16b}) {
    const DenseTensor x = OneDNNTensor(dims, values, format);
    const std::string what = x.opaque_layout()->ToString();
    std::vector<double> first;
    for (int threads : {1, 2, 3}) {
      FLAGS_paddle_num_threads = threads;
      platform::DeviceContextPool::Instance().Clear();
      const auto run = [&](const DDim& target, int axis) {
        return RunOp("reduce_as",
                     {{"X", {x}},
                      {"Target", {MakeTensor<float>(target, std::vector<double>(target.numel()))}}},
                     {{"Out", 1}}, {{"axis", axis}});
      };
      auto sums = run({20}, 1);
      EXPECT_EQ(sums.kernel->key.backend, LibraryType::kOneDNN) << what;
      const std::vector<double> got = ToDoubles(sums.outputs["Out"][0]);
      ExpectNear(got, per_channel, 1e-6, 1e-6, what + " per channel");
      if (threads == 1) first = got;
      EXPECT_EQ(got, first) << what << ", " << threads << " threads";
      EXPECT_EQ(sums.outputs["Out"][0].dims(), DDim({20}));
      ExpectNear(ToDoubles(run({1, 20, 1, 1}, -1).outputs["Out"][0]), per_channel, 1e-6, 1e-6,
                 what + " per channel, rank 4");
      ExpectNear(ToDoubles(run(dims, -1).outputs["Out"][0]), values, 0, 0, what + " same shape");
      ExpectNear(ToDoubles(run({3, 20, 7, 1}, -1).outputs["Out"][0]), per_row, 1e-6, 1e-6,
                 what + " over the last dim");
    }
  }
  FLAGS_paddle_num_threads = old;
  platform::DeviceContextPool::Instance().Clear();
}

// transpose2 copies: the values are equal, XShape and Out's LoD are what the plain kernel
// leaves.
void CheckTranspose(const DDim& dims, const std::vector<int>& axis, const framework::LoD& lod) {
  SCOPED_TRACE("transpose2 " + dims.ToString() + " axis " + std::to_string(axis.size()));
  DenseTensor x = MakeTensor<float>(dims, RandomValues(dims.numel(), -2, 2, 9));
  x.set_lod(lod);
  const AttributeMap attrs = {{"axis", axis}};
  ScopedFlag on(&FLAGS_use_onednn, true);
  auto onednn = RunOp("transpose2", {{"X", {x}}}, {{"Out", 1}, {"XShape", 1}}, attrs);
  FLAGS_use_onednn = false;
  auto plain = RunOp("transpose2", {{"X", {x}}}, {{"Out", 1}, {"XShape", 1}}, attrs);
  EXPECT_EQ(onednn.kernel->key.backend, LibraryType::kOneDNN);
  EXPECT_EQ(plain.kernel->key.backend, LibraryType::kPlain);
  for (const char* slot : {"Out", "XShape"}) {
    const DenseTensor& a = onednn.outputs[slot][0];
    const DenseTensor& b = plain.outputs[slot][0];
    EXPECT_EQ(a.dims(), b.dims()) << slot;
    EXPECT_EQ(a.lod(), b.lod()) << slot;
    EXPECT_EQ(a.initialized(), b.initialized()) << slot;
  }
  EXPECT_EQ(ToDoubles(onednn.outputs["Out"][0]), ToDoubles(plain.outputs["Out"][0]));
}

TEST_F(OneDNNReduceTransposeTest, Transpose2MatchesPlainKernel) {
  CheckTranspose({7}, {0}, {});
  CheckTranspose({3, 5}, {1, 0}, {});
  CheckTranspose({3, 5}, {-1, 0}, {{0, 1, 3}});
  CheckTranspose({2, 3, 4, 5}, {0, 2, 3, 1}, {});
  CheckTranspose({2, 3, 4, 5}, {-1, 0, -2, 1}, {});
  CheckTranspose({2, 1, 3}, {2, 1, 0}, {});
  CheckTranspose({16, 20, 8, 8}, {0, 2, 3, 1}, {});
  CheckTranspose({0, 3}, {1, 0}, {});                     // Empty: the plain kernel.
  CheckTranspose(DDim(std::vector<int64_t>{}), {}, {});  // 0-D: the plain kernel.
}

// Runs `type` with `x` in variable "x" and Out in variable `out` (which may be "x").
std::pair<LibraryType, DenseTensor> RunNamed(bool use_onednn, const std::string& type,
                                             const DenseTensor& x, const std::string& out,
                                             const AttributeMap& attrs) {
  ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
  framework::ProgramDesc program;
  framework::BlockDesc& block = program.Block(0);
  framework::VarDesc* v = block.Var("x");
  v->SetDataType(DataType::FLOAT32);
  v->SetShape(x.dims().ToVector());
  if (out != "x") block.Var(out);
  framework::OpDesc* op = block.AppendOp();
  op->SetType(type);
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {out});
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::Scope scope;
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program, 0, &scope, {out});
  *prepared->local_scope()->FindVar("x")->GetMutable<DenseTensor>() = x;
  exec.Run(prepared.get());
  return {prepared->op(0).kernel()->key.backend,
          prepared->local_scope()->FindVar(out)->Get<DenseTensor>()};
}

// A reduction over size-1 dims keeps X's shape, so Out may be X (the oneDNN kernels hand that
// copy to the plain ones); transpose2 refuses it on both kernels.
TEST_F(OneDNNReduceTransposeTest, OutputMayBeTheInput) {
  DenseTensor x = MakeTensor<float>({4, 1, 33}, RandomValues(132, -2, 2, 11));
  x.set_lod(framework::LoD{{0, 1, 4}});
  for (const char* type : {"reduce_sum", "reduce_mean"}) {
    const auto onednn = RunNamed(true, type, x, "x", Dims({1}, true));
    const auto plain = RunNamed(false, type, x, "x", Dims({1}, true));
    EXPECT_EQ(onednn.first, LibraryType::kOneDNN) << type;
    EXPECT_EQ(plain.first, LibraryType::kPlain) << type;
    EXPECT_EQ(onednn.second.dims(), x.dims()) << type;
    EXPECT_EQ(onednn.second.lod(), plain.second.lod()) << type;
    EXPECT_EQ(ToDoubles(onednn.second), ToDoubles(x)) << type;
    EXPECT_EQ(ToDoubles(plain.second), ToDoubles(x)) << type;
  }
  const DenseTensor big = MakeTensor<float>({64, 128}, RandomValues(64 * 128, -2, 2, 12));
  for (bool use_onednn : {true, false}) {
    ExpectError<platform::UnimplementedError>(
        [&] { RunNamed(use_onednn, "transpose2", big, "x", {{"axis", std::vector<int>{1, 0}}}); },
        {"op `transpose2` output `Out`", "variable `x`"});
  }
}

TEST_F(OneDNNReduceTransposeTest, Float64StaysOnThePlainKernels) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  const DenseTensor x = MakeTensor<double>({2, 2}, {-1, 0.5, 2, -3});
  for (const char* type : {"reduce_sum", "reduce_mean", "mean"}) {
    auto r = RunOp(type, {{"X", {x}}}, {{"Out", 1}});
    EXPECT_EQ(r.kernel->key.backend, LibraryType::kPlain) << type;
  }
  auto r = RunOp("transpose2", {{"X", {x}}}, {{"Out", 1}}, {{"axis", std::vector<int>{1, 0}}});
  EXPECT_EQ(r.kernel->key.backend, LibraryType::kPlain);
  EXPECT_EQ(ToDoubles(r.outputs["Out"][0]), (std::vector<double>{-1, 2, 0.5, -3}));
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

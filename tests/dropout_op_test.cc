// dropout and dropout_grad: seeded reproducibility, the keep rate, both implementations in
// training and inference, the gradient dOut * Mask (and its own gradient), and errors.
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/var_type_inference.h"
#include "platform/random.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

const std::map<std::string, int> kOutputs = {{"Out", 1}, {"Mask", 1}};
const std::string kDowngrade = "downgrade_in_infer";
const std::string kUpscale = "upscale_in_train";

struct DropoutRun {
  std::vector<double> x, out, mask;
  DataType mask_dtype;
};

template <typename T>
DropoutRun RunDropout(const DDim& dims, const AttributeMap& attrs, unsigned seed = 1,
                      const SlotTensors& extra = {}) {
  DropoutRun r;
  SlotTensors in = extra;
  in["X"] = {MakeTensor<T>(dims, RandomValues(dims.numel(), 0.5, 2, seed))};
  r.x = ToDoubles(in["X"][0]);
  const auto result = RunOp("dropout", in, kOutputs, attrs);
  r.out = ToDoubles(result.outputs.at("Out")[0]);
  r.mask = ToDoubles(result.outputs.at("Mask")[0]);
  r.mask_dtype = result.outputs.at("Mask")[0].dtype();
  return r;
}

AttributeMap Train(float p, const std::string& impl, int seed = 17) {
  return {
      {"dropout_prob", p}, {"dropout_implementation", impl}, {"fix_seed", true}, {"seed", seed}};
}

TEST(DropoutOp, FixedSeedReproducesBitwise) {
  for (const auto& impl : {kDowngrade, kUpscale}) {
    const DropoutRun a = RunDropout<float>({64, 33}, Train(0.4f, impl));
    const DropoutRun b = RunDropout<float>({64, 33}, Train(0.4f, impl));
    EXPECT_EQ(a.out, b.out) << impl;
    EXPECT_EQ(a.mask, b.mask) << impl;
    const DropoutRun c = RunDropout<float>({64, 33}, Train(0.4f, impl, 18));
    EXPECT_NE(a.mask, c.mask) << impl;
    // The mask does not depend on the dtype.
    EXPECT_EQ(RunDropout<double>({64, 33}, Train(0.4f, impl)).mask, a.mask) << impl;
  }
}

TEST(DropoutOp, SeedTensorOverridesTheAttributes) {
  const DropoutRun by_attr = RunDropout<double>({500}, Train(0.5f, kDowngrade, 99));
  for (DataType t : {DataType::INT32, DataType::INT64}) {
    SlotTensors seed;
    seed["Seed"] = {t == DataType::INT32 ? MakeTensor<int32_t>({1}, {99})
                                         : MakeTensor<int64_t>({1}, {99})};
    const DropoutRun by_tensor = RunDropout<double>({500}, Train(0.5f, kDowngrade, 5), 1, seed);
    EXPECT_EQ(by_tensor.mask, by_attr.mask);
  }
}

// The seed op, as PaddlePaddle's programs feed dropout's Seed: a non-zero attribute comes out
// as it is (unless deterministic), else a non-zero draw from the default generator.
TEST(DropoutOp, SeedOpGivesTheSeedOrADefaultDraw) {
  auto seed_of = [](const AttributeMap& attrs) {
    const auto r = RunOp("seed", {}, {{"Out", 1}}, attrs);
    const DenseTensor& out = r.outputs.at("Out")[0];
    EXPECT_EQ(out.dims(), DDim({1}));
    EXPECT_EQ(out.dtype(), DataType::INT32);
    return out.data<int32_t>()[0];
  };
  EXPECT_EQ(seed_of({{"seed", 99}}), 99);
  EXPECT_EQ(seed_of({{"seed", -7}}), -7);
  platform::SetDefaultSeed(42);
  const int32_t a = seed_of({});
  const int32_t b = seed_of({{"seed", 99}, {"deterministic", true}});
  platform::SetDefaultSeed(42);
  EXPECT_EQ(seed_of({}), a);
  EXPECT_EQ(seed_of({}), b);
  EXPECT_NE(a, 0);
  EXPECT_NE(b, 0);
  EXPECT_NE(a, b);
  // Fed to dropout, it gives the mask of the same seed as an attribute.
  SlotTensors seed;
  seed["Seed"] = {MakeTensor<int32_t>({1}, {static_cast<double>(seed_of({{"seed", 31}}))})};
  EXPECT_EQ(RunDropout<float>({200}, Train(0.5f, kDowngrade, 5), 1, seed).mask,
            RunDropout<float>({200}, Train(0.5f, kDowngrade, 31)).mask);
}

TEST(DropoutOp, DefaultGeneratorIsReproducibleWhenSeeded) {
  const AttributeMap attrs = {{"dropout_prob", 0.5f}};
  platform::SetDefaultSeed(1234);
  const DropoutRun a1 = RunDropout<float>({300}, attrs);
  const DropoutRun a2 = RunDropout<float>({300}, attrs);
  platform::SetDefaultSeed(1234);
  EXPECT_EQ(RunDropout<float>({300}, attrs).mask, a1.mask);
  EXPECT_EQ(RunDropout<float>({300}, attrs).mask, a2.mask);
  EXPECT_NE(a1.mask, a2.mask);
}

TEST(DropoutOp, KeepRateMatchesOneMinusP) {
  const int64_t n = 200000;
  for (float p : {0.1f, 0.3f, 0.5f, 0.9f}) {
    const DropoutRun r = RunDropout<float>({n}, Train(p, kDowngrade));
    EXPECT_EQ(r.mask_dtype, DataType::UINT8);
    double kept = 0;
    for (double m : r.mask) kept += m;
    const double rate = kept / n;
    const double sigma = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(rate, 1 - p, 5 * sigma) << "p = " << p;
  }
}

TEST(DropoutOp, TrainingOutputsFollowTheMask) {
  for (const auto& impl : {kDowngrade, kUpscale}) {
    for (float p : {0.0f, 0.25f, 0.7f, 1.0f}) {
      SCOPED_TRACE(impl + " p = " + std::to_string(p));
      const DropoutRun r = RunDropout<double>({7, 9}, Train(p, impl));
      const double s = impl == kUpscale ? (p == 1.0f ? 0.0 : 1.0 / (1.0 - p)) : 1.0;
      for (size_t k = 0; k < r.x.size(); ++k) {
        ASSERT_TRUE(r.mask[k] == 0 || r.mask[k] == 1);
        EXPECT_DOUBLE_EQ(r.out[k], r.x[k] * r.mask[k] * s) << k;
      }
      double kept = 0;
      for (double m : r.mask) kept += m;
      if (p == 0.0f) {
        EXPECT_EQ(kept, static_cast<double>(r.x.size()));
      }
      if (p == 1.0f) {
        EXPECT_EQ(kept, 0);
      }
    }
  }
}

TEST(DropoutOp, InferenceIsDeterministicScaling) {
  for (const auto& impl : {kDowngrade, kUpscale}) {
    const float p = 0.35f;
    const DropoutRun r = RunDropout<float>(
        {4, 5}, {{"dropout_prob", p}, {"dropout_implementation", impl}, {"is_test", true}});
    std::vector<double> expected;
    for (double v : r.x) {
      expected.push_back(impl == kUpscale ? v
                                          : static_cast<double>(static_cast<float>(v * (1 - p))));
    }
    ExpectNear(r.out, expected, 1e-6, 1e-7, impl);
    EXPECT_EQ(r.mask, std::vector<double>(20, 1.0));
  }
}

// x -> dropout -> out with backward appended for loss `out` (so out@GRAD is all ones).
struct DropoutProgram {
  framework::ProgramDesc program;
  const framework::OpDesc* grad_op = nullptr;
};

void BuildWithBackward(DropoutProgram* p, const AttributeMap& attrs) {
  operators::RegisterAllOps();
  framework::BlockDesc& b = p->program.Block(0);
  framework::VarDesc* x = b.Var("x");
  x->SetDataType(DataType::FLOAT64);
  x->SetShape({6, 7});
  framework::OpDesc* op = b.AppendOp();
  op->SetType("dropout");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"out"});
  op->SetOutput("Mask", {"mask"});
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::InferVarTypeAndShape(op, &b);
  EXPECT_EQ(b.FindVar("mask")->GetDataType(), DataType::UINT8);
  EXPECT_EQ(b.FindVar("out")->GetDataType(), DataType::FLOAT64);
  framework::AppendBackward(&p->program, "out");
  for (size_t i = 0; i < b.OpSize(); ++i) {
    if (b.Op(i)->Type() == "dropout_grad") p->grad_op = b.Op(i);
  }
  EXPECT_EQ(b.FindVar("x@GRAD")->GetDataType(), DataType::FLOAT64);
}

TEST(DropoutGrad, EqualsOutputGradientTimesMask) {
  for (const auto& impl : {kDowngrade, kUpscale}) {
    SCOPED_TRACE(impl);
    const float p = 0.3f;
    DropoutProgram prog;
    BuildWithBackward(&prog, Train(p, impl));
    ASSERT_NE(prog.grad_op, nullptr);
    std::set<std::string> slots;
    for (const auto& kv : prog.grad_op->Inputs()) slots.insert(kv.first);
    EXPECT_EQ(slots, (std::set<std::string>{"Mask", "Out@GRAD"}));
    framework::Scope scope;
    const auto fetched = framework::Executor(platform::CPUPlace())
                             .Run(prog.program, &scope,
                                  {{"x", MakeTensor<double>({6, 7}, RandomValues(42, -1, 1, 3))}},
                                  {"mask", "x@GRAD"});
    const std::vector<double> mask = ToDoubles(fetched[0]);
    const std::vector<double> dx = ToDoubles(fetched[1]);
    const double s = impl == kUpscale ? 1.0 / (1.0 - static_cast<double>(p)) : 1.0;
    std::vector<double> expected;
    for (double m : mask) expected.push_back(m * s);
    ExpectNear(dx, expected, 1e-15, 0, "x@GRAD");
  }
}

TEST(DropoutGrad, InferenceModeReadsNoMask) {
  DropoutProgram prog;
  BuildWithBackward(&prog, {{"dropout_prob", 0.25f}, {"is_test", true}});
  ASSERT_NE(prog.grad_op, nullptr);
  EXPECT_FALSE(prog.grad_op->HasInput("Mask"));
  framework::Scope scope;
  const auto fetched =
      framework::Executor(platform::CPUPlace())
          .Run(prog.program, &scope,
               {{"x", MakeTensor<double>({6, 7}, RandomValues(42, -1, 1, 3))}}, {"x@GRAD"});
  ExpectNear(ToDoubles(fetched[0]), std::vector<double>(42, 0.75), 0, 0, "x@GRAD");
}

TEST(DropoutGrad, MatchesFiniteDifferences) {
  for (const auto& impl : {kDowngrade, kUpscale}) {
    SCOPED_TRACE(impl);
    GradCheck check;
    check.op_type = "dropout";
    check.inputs = {{"X", {MakeTensor<double>({3, 4}, RandomValues(12, -1, 1, 8))}}};
    check.outputs = kOutputs;
    check.attrs = Train(0.4f, impl);
    check.loss_outputs = {"Out"};
    CheckGradients(check);
  }
}

TEST(DropoutGrad, GradientOpIsDifferentiable) {
  // dropout_grad is linear in Out@GRAD: its gradient is dropout_grad with the same mask.
  GradCheck check;
  check.op_type = "dropout_grad";
  check.inputs = {{"Mask", {MakeTensor<uint8_t>({2, 5}, {1, 0, 1, 1, 0, 0, 1, 1, 0, 1})}},
                  {"Out@GRAD", {MakeTensor<double>({2, 5}, RandomValues(10, -1, 1, 4))}}};
  check.outputs = {{"X@GRAD", 1}};
  check.attrs = {{"dropout_prob", 0.5f}, {"dropout_implementation", kUpscale}};
  check.wrt = {"Out@GRAD"};
  check.max_order = 2;
  CheckGradients(check);
}

TEST(DropoutOp, ErrorsNameOpSlotAndAttribute) {
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunDropout<float>({4}, {{"dropout_prob", 1.5f}});
      },
      {"op `dropout`", "attribute `dropout_prob`", "1.5"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunDropout<float>({4}, {{"dropout_implementation", std::string("always")}});
      },
      {"op `dropout`", "attribute `dropout_implementation`", "always"});
  SlotTensors bad_seed;
  bad_seed["Seed"] = {MakeTensor<float>({1}, {3})};
  ExpectError<platform::InvalidArgumentError>([&] { RunDropout<float>({4}, {}, 1, bad_seed); },
                                              {"op `dropout`", "input `Seed`", "int32"});
  SlotTensors two_seeds;
  two_seeds["Seed"] = {MakeTensor<int32_t>({2}, {3, 4})};
  ExpectError<platform::InvalidArgumentError>([&] { RunDropout<float>({4}, {}, 1, two_seeds); },
                                              {"op `dropout`", "input `Seed`", "[2]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// Kernel classes with prepared state (framework/op_kernel.h) and per-op kernel placement
// (framework/kernel_placement.h), through the executor: the oneDNN conv and matmul kernels
// pack their weights once per weight value, repack after a write (an optimizer step, a
// reload), prepare again for new input shapes, and give the values of a naive double
// reference; use_mkldnn / PlacementRules choose the library op by op.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "framework/executor.h"
#include "framework/op_registry.h"
#include "platform/flags.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::ExecutionProfile;
using framework::LibraryType;
using framework::ProgramDesc;
using framework::Scope;

framework::OpDesc* Add(ProgramDesc* p, const std::string& type,
                       const framework::VariableNameMap& in, const framework::VariableNameMap& out,
                       const AttributeMap& attrs = {}) {
  framework::OpDesc* op = p->Block(0).AppendOp();
  op->SetType(type);
  for (const auto& kv : in) op->SetInput(kv.first, kv.second);
  for (const auto& kv : out) op->SetOutput(kv.first, kv.second);
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  return op;
}

void DeclareParameter(ProgramDesc* p, const std::string& name) {
  p->Block(0).Var(name)->SetPersistable(true);
}

// conv2d, NCHW, stride 1, padding `pad`, no groups, in double.
std::vector<double> NaiveConv(const std::vector<double>& x, const DDim& xd,
                              const std::vector<double>& w, const DDim& wd, int64_t pad) {
  const int64_t n = xd[0], c = xd[1], h = xd[2], wi = xd[3], o = wd[0], kh = wd[2], kw = wd[3];
  const int64_t oh = h + 2 * pad - kh + 1, ow = wi + 2 * pad - kw + 1;
  std::vector<double> y(static_cast<size_t>(n * o * oh * ow), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oc = 0; oc < o; ++oc)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double s = 0;
          for (int64_t ic = 0; ic < c; ++ic)
            for (int64_t u = 0; u < kh; ++u)
              for (int64_t v = 0; v < kw; ++v) {
                const int64_t yy = i + u - pad, xx = j + v - pad;
                if (yy < 0 || yy >= h || xx < 0 || xx >= wi) continue;
                s += x[((b * c + ic) * h + yy) * wi + xx] * w[((oc * c + ic) * kh + u) * kw + v];
              }
          y[((b * o + oc) * oh + i) * ow + j] = s;
        }
  return y;
}

size_t PrepacksOf(const ExecutionProfile& profile, const std::string& type) {
  size_t n = 0;
  for (const auto& op : profile.ops) {
    if (op.type != type) continue;
    for (const auto& t : op.transforms) n += t.kind.rfind("prepack", 0) == 0;
  }
  return n;
}

LibraryType LibraryOf(const ExecutionProfile& profile, const std::string& type) {
  for (const auto& op : profile.ops) {
    if (op.type == type) return op.key.backend;
  }
  ADD_FAILURE() << "no op " << type << " in the profile";
  return LibraryType::kPlain;
}

class PreparedKernelTest : public OneDNNKernelTestBase {
 protected:
  void SetUp() override {
    OneDNNKernelTestBase::SetUp();
    onednn_ = FLAGS_use_onednn;
    FLAGS_use_onednn = true;
  }
  void TearDown() override {
    FLAGS_use_onednn = onednn_;
    OneDNNKernelTestBase::TearDown();
  }
  // Sets a tensor variable of `scope` the way a load or feed does (through GetMutable).
  static void Set(Scope* scope, const std::string& name, const DenseTensor& t) {
    *scope->Var(name)->GetMutable<DenseTensor>() = t;
  }
  static std::vector<double> Get(const Scope& scope, const std::string& name) {
    return ToDoubles(scope.FindVar(name)->Get<DenseTensor>());
  }

 private:
  bool onednn_ = true;
};

const DDim kX({2, 16, 9, 9});
const DDim kW({24, 16, 3, 3});

ProgramDesc ConvProgram() {
  ProgramDesc p;
  DeclareParameter(&p, "w");
  p.Block(0).Var("x");  // Fed.
  Add(&p, "conv2d", {{"Input", {"x"}}, {"Filter", {"w"}}}, {{"Output", {"y"}}},
      {{"paddings", std::vector<int>{1, 1}}});
  return p;
}

// The state of `sgd` on w: Param w, Grad g, LearningRate 0.25.
void SetSgdState(Scope* scope, const DDim& dims, const std::vector<double>& w,
                 const std::vector<double>& g) {
  *scope->Var("w")->GetMutable<DenseTensor>() = MakeTensor<float>(dims, w);
  *scope->Var("g")->GetMutable<DenseTensor>() = MakeTensor<float>(dims, g);
  *scope->Var("lr")->GetMutable<DenseTensor>() = MakeTensor<float>(DDim({1}), {0.25});
}

// w -= 0.25 * g in float, as the sgd kernel computes it.
void SgdStep(std::vector<double>* w, const std::vector<double>& g) {
  for (size_t i = 0; i < w->size(); ++i) {
    (*w)[i] = static_cast<float>(static_cast<float>((*w)[i]) - 0.25f * static_cast<float>(g[i]));
  }
}

TEST_F(PreparedKernelTest, ConvPacksTheFilterOnceThenReusesIt) {
  Scope scope;
  const auto x = RandomValues(kX.numel(), -1, 1, 1), w = RandomValues(kW.numel(), -1, 1, 2);
  Set(&scope, "w", MakeTensor<float>(kW, w));
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(ConvProgram(), 0, &scope, {"y"});
  const int64_t packs_before = framework::PrepackCount();
  for (int run = 0; run < 3; ++run) {
    Set(prepared->local_scope(), "x", MakeTensor<float>(kX, x));
    ExecutionProfile profile;
    exec.Run(prepared.get(), &profile);
    EXPECT_EQ(LibraryOf(profile, "conv2d"), LibraryType::kOneDNN);
    // 16 input channels: the primitive computes from a blocked filter format.
    EXPECT_EQ(PrepacksOf(profile, "conv2d"), run == 0 ? 1u : 0u) << "run " << run;
    ExpectNear(Get(*prepared->local_scope(), "y"), NaiveConv(x, kX, w, kW, 1), 1e-5, 1e-4,
               "conv2d run " + std::to_string(run));
  }
  EXPECT_EQ(framework::PrepackCount() - packs_before, 1);
  EXPECT_EQ(prepared->op(0).kernel_choices(), 1);
}

// conv2d with a fused residual add writes over the residual when it dies there: the
// residual is another convolution's output, kept in oneDNN's layout, and the sum post-op
// finds it in place instead of a copy. Values match the naive reference; when the residual
// is fetched too (kept alive) nothing is written over it.
TEST_F(PreparedKernelTest, FusedResidualIsWrittenOverWhenItDies) {
  const DDim w1_dims({16, 16, 3, 3});
  const auto x = RandomValues(kX.numel(), -1, 1, 11);
  const auto w0 = RandomValues(w1_dims.numel(), -0.3, 0.3, 12);
  const auto w1 = RandomValues(w1_dims.numel(), -0.3, 0.3, 13);
  const auto residual = NaiveConv(x, kX, w0, w1_dims, 1);
  std::vector<double> want = NaiveConv(x, kX, w1, w1_dims, 1);
  for (size_t i = 0; i < want.size(); ++i) want[i] += residual[i];
  std::vector<double> want_relu = want;
  for (double& v : want_relu) v = std::max(v, 0.0);
  // With `then_relu`, y is a temporary that stays in oneDNN's layout (the primitive writes
  // it over the residual directly); without, y is fetched row-major (written through a
  // staging buffer).
  for (const auto& [keep_residual, then_relu] :
       std::vector<std::pair<bool, bool>>{{false, false}, {true, false}, {false, true}}) {
    ProgramDesc p;
    DeclareParameter(&p, "w0");
    DeclareParameter(&p, "w1");
    p.Block(0).Var("x");
    const AttributeMap pad = {{"paddings", std::vector<int>{1, 1}}};
    Add(&p, "conv2d", {{"Input", {"x"}}, {"Filter", {"w0"}}}, {{"Output", {"r"}}}, pad);
    AttributeMap fused = pad;
    fused["fuse_residual_connection"] = true;
    Add(&p, "conv2d", {{"Input", {"x"}}, {"Filter", {"w1"}}, {"ResidualData", {"r"}}},
        {{"Output", {"y"}}}, fused);
    if (then_relu) Add(&p, "relu", {{"X", {"y"}}}, {{"Out", {"z"}}});
    Scope scope;
    Set(&scope, "w0", MakeTensor<float>(w1_dims, w0));
    Set(&scope, "w1", MakeTensor<float>(w1_dims, w1));
    framework::Executor exec{platform::CPUPlace()};
    std::vector<std::string> keep = {then_relu ? "z" : "y"};
    if (keep_residual) keep.push_back("r");
    auto prepared = exec.Prepare(p, 0, &scope, keep);
    for (int run = 0; run < 2; ++run) {
      Set(prepared->local_scope(), "x", MakeTensor<float>(kX, x));
      ExecutionProfile profile;
      exec.Run(prepared.get(), &profile);
      const std::string what = std::string(keep_residual ? "kept" : "dying") + " residual" +
                               (then_relu ? " then relu" : "") + ", run " + std::to_string(run);
      EXPECT_EQ(profile.ops.at(1).in_place,
                keep_residual ? std::vector<std::string>{} : std::vector<std::string>{"r -> y"})
          << what;
      if (then_relu) {
        ExpectNear(Get(*prepared->local_scope(), "z"), want_relu, 1e-5, 1e-4, what);
      } else {
        ExpectNear(Get(*prepared->local_scope(), "y"), want, 1e-5, 1e-4, what);
      }
      if (keep_residual) ExpectNear(Get(*prepared->local_scope(), "r"), residual, 1e-5, 1e-4, what);
    }
  }
}

TEST_F(PreparedKernelTest, WritingTheFilterRepacksIt) {
  Scope scope;
  const auto x = RandomValues(kX.numel(), -1, 1, 3);
  framework::Executor exec{platform::CPUPlace()};
  Set(&scope, "w", MakeTensor<float>(kW, RandomValues(kW.numel(), -1, 1, 4)));
  auto prepared = exec.Prepare(ConvProgram(), 0, &scope, {"y"});
  Set(prepared->local_scope(), "x", MakeTensor<float>(kX, x));
  exec.Run(prepared.get());
  // A reload writes new values into the same variable.
  const auto w2 = RandomValues(kW.numel(), -1, 1, 5);
  Set(&scope, "w", MakeTensor<float>(kW, w2));
  Set(prepared->local_scope(), "x", MakeTensor<float>(kX, x));
  ExecutionProfile profile;
  exec.Run(prepared.get(), &profile);
  EXPECT_EQ(PrepacksOf(profile, "conv2d"), 1u);
  ExpectNear(Get(*prepared->local_scope(), "y"), NaiveConv(x, kX, w2, kW, 1), 1e-5, 1e-4,
             "conv2d after the filter was written");
}

TEST_F(PreparedKernelTest, OptimizerStepInvalidatesThePackedFilter) {
  // y = conv(x, w); then sgd: w -= lr * g. Each run must see the updated filter.
  ProgramDesc p = ConvProgram();
  for (const char* v : {"g", "lr"}) DeclareParameter(&p, v);
  Add(&p, "sgd", {{"Param", {"w"}}, {"Grad", {"g"}}, {"LearningRate", {"lr"}}},
      {{"ParamOut", {"w"}}});
  Scope scope;
  auto w = RandomValues(kW.numel(), -1, 1, 6);
  const auto g = RandomValues(kW.numel(), -1, 1, 7);
  const auto x = RandomValues(kX.numel(), -1, 1, 8);
  SetSgdState(&scope, kW, w, g);
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(p, 0, &scope, {"y"});
  for (int step = 0; step < 3; ++step) {
    Set(prepared->local_scope(), "x", MakeTensor<float>(kX, x));
    ExecutionProfile profile;
    exec.Run(prepared.get(), &profile);
    EXPECT_EQ(PrepacksOf(profile, "conv2d"), 1u) << "step " << step;
    ExpectNear(Get(*prepared->local_scope(), "y"), NaiveConv(x, kX, w, kW, 1), 1e-5, 1e-4,
               "conv2d at step " + std::to_string(step));
    SgdStep(&w, g);
  }
}

TEST_F(PreparedKernelTest, NewInputShapePreparesAgainWithoutRepacking) {
  Scope scope;
  const auto w = RandomValues(kW.numel(), -1, 1, 9);
  Set(&scope, "w", MakeTensor<float>(kW, w));
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(ConvProgram(), 0, &scope, {"y"});
  for (int64_t batch : {2, 5, 1}) {
    const DDim xd({batch, 16, 9, 9});
    const auto x = RandomValues(xd.numel(), -1, 1, static_cast<unsigned>(10 + batch));
    Set(prepared->local_scope(), "x", MakeTensor<float>(xd, x));
    ExecutionProfile profile;
    exec.Run(prepared.get(), &profile);
    EXPECT_EQ(PrepacksOf(profile, "conv2d"), batch == 2 ? 1u : 0u) << "batch " << batch;
    const DenseTensor& y = prepared->local_scope()->FindVar("y")->Get<DenseTensor>();
    EXPECT_EQ(y.dims(), DDim({batch, 24, 9, 9}));
    ExpectNear(ToDoubles(y), NaiveConv(x, xd, w, kW, 1), 1e-5, 1e-4,
               "conv2d batch " + std::to_string(batch));
  }
}

// Input@GRAD and Filter@GRAD of NaiveConv, in double.
void NaiveConvGrads(const std::vector<double>& x, const DDim& xd, const std::vector<double>& w,
                    const DDim& wd, const std::vector<double>& dy, int64_t pad,
                    std::vector<double>* dx, std::vector<double>* dw) {
  const int64_t n = xd[0], c = xd[1], h = xd[2], wi = xd[3], o = wd[0], kh = wd[2], kw = wd[3];
  const int64_t oh = h + 2 * pad - kh + 1, ow = wi + 2 * pad - kw + 1;
  dx->assign(x.size(), 0.0);
  dw->assign(w.size(), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t oc = 0; oc < o; ++oc)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          const double g = dy[((b * o + oc) * oh + i) * ow + j];
          for (int64_t ic = 0; ic < c; ++ic)
            for (int64_t u = 0; u < kh; ++u)
              for (int64_t v = 0; v < kw; ++v) {
                const int64_t yy = i + u - pad, xx = j + v - pad;
                if (yy < 0 || yy >= h || xx < 0 || xx >= wi) continue;
                const int64_t xi = ((b * c + ic) * h + yy) * wi + xx;
                const int64_t wj = ((oc * c + ic) * kh + u) * kw + v;
                (*dx)[xi] += g * w[wj];
                (*dw)[wj] += g * x[xi];
              }
        }
}

// The oneDNN conv2d_grad and pool2d_grad kernels keep their primitives between runs and make
// them again when the batch changes; every run gives the naive gradients of its own inputs.
TEST_F(PreparedKernelTest, ConvAndPoolGradientsPrepareAgainForNewShapes) {
  ProgramDesc p;
  for (const char* fed : {"x", "w", "dy", "dp"}) p.Block(0).Var(fed);
  Add(&p, "conv2d_grad", {{"Input", {"x"}}, {"Filter", {"w"}}, {"Output@GRAD", {"dy"}}},
      {{"Input@GRAD", {"dx"}}, {"Filter@GRAD", {"dw"}}}, {{"paddings", std::vector<int>{1, 1}}});
  const AttributeMap pool = {{"pooling_type", std::string("avg")},
                             {"ksize", std::vector<int>{2, 2}},
                             {"strides", std::vector<int>{2, 2}}};
  Add(&p, "pool2d", {{"X", {"x"}}}, {{"Out", {"p"}}}, pool);
  Add(&p, "pool2d_grad", {{"X", {"x"}}, {"Out", {"p"}}, {"Out@GRAD", {"dp"}}},
      {{"X@GRAD", {"dxp"}}}, pool);
  Scope scope;
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(p, 0, &scope, {"dx", "dw", "dxp"});
  const DDim wd({24, 16, 3, 3});
  for (int64_t batch : {2, 5, 2, 1}) {
    const unsigned seed = static_cast<unsigned>(40 + 4 * batch);
    const DDim xd({batch, 16, 8, 8}), yd({batch, 24, 8, 8}), pd({batch, 16, 4, 4});
    const auto x = RandomValues(xd.numel(), -1, 1, seed);
    const auto w = RandomValues(wd.numel(), -1, 1, seed + 1);
    const auto dy = RandomValues(yd.numel(), -1, 1, seed + 2);
    const auto dp = RandomValues(pd.numel(), -1, 1, seed + 3);
    Scope* local = prepared->local_scope();
    Set(local, "x", MakeTensor<float>(xd, x));
    Set(local, "w", MakeTensor<float>(wd, w));
    Set(local, "dy", MakeTensor<float>(yd, dy));
    Set(local, "dp", MakeTensor<float>(pd, dp));
    ExecutionProfile profile;
    exec.Run(prepared.get(), &profile);
    EXPECT_EQ(LibraryOf(profile, "conv2d_grad"), LibraryType::kOneDNN);
    EXPECT_EQ(LibraryOf(profile, "pool2d_grad"), LibraryType::kOneDNN);
    std::vector<double> dx, dw;
    NaiveConvGrads(x, xd, w, wd, dy, 1, &dx, &dw);
    const std::string what = "batch " + std::to_string(batch);
    ExpectNear(Get(*local, "dx"), dx, 1e-5, 1e-4, "Input@GRAD " + what);
    ExpectNear(Get(*local, "dw"), dw, 1e-5, 1e-4 * static_cast<double>(batch),
               "Filter@GRAD " + what);
    std::vector<double> dxp(static_cast<size_t>(xd.numel()));
    for (int64_t i = 0; i < xd.numel(); ++i) {
      const int64_t col = i % 8, row = i / 8 % 8, plane = i / 64;
      dxp[i] = dp[(plane * 4 + row / 2) * 4 + col / 2] / 4;
    }
    ExpectNear(Get(*local, "dxp"), dxp, 1e-6, 1e-7, "X@GRAD of avg pooling " + what);
  }
}

TEST_F(PreparedKernelTest, MatmulWeightIsPackedAtMostOnce) {
  for (const std::string type : {"mul", "matmul_v2"}) {
    ProgramDesc p;
    DeclareParameter(&p, "w");
    p.Block(0).Var("x");
    Add(&p, type, {{"X", {"x"}}, {"Y", {"w"}}}, {{"Out", {"y"}}});
    const DDim xd({64, 96}), wd({96, 40});
    const auto x = RandomValues(xd.numel(), -1, 1, 20), w = RandomValues(wd.numel(), -1, 1, 21);
    std::vector<double> want(64 * 40, 0.0);
    for (int64_t i = 0; i < 64; ++i)
      for (int64_t j = 0; j < 40; ++j)
        for (int64_t k = 0; k < 96; ++k) want[i * 40 + j] += x[i * 96 + k] * w[k * 40 + j];
    Scope scope;
    Set(&scope, "w", MakeTensor<float>(wd, w));
    framework::Executor exec{platform::CPUPlace()};
    auto prepared = exec.Prepare(p, 0, &scope, {"y"});
    for (int run = 0; run < 2; ++run) {
      Set(prepared->local_scope(), "x", MakeTensor<float>(xd, x));
      ExecutionProfile profile;
      exec.Run(prepared.get(), &profile);
      EXPECT_EQ(LibraryOf(profile, type), LibraryType::kOneDNN) << type;
      // oneDNN may compute from the plain weight; it never packs twice.
      EXPECT_LE(PrepacksOf(profile, type), run == 0 ? 1u : 0u) << type << " run " << run;
      ExpectNear(Get(*prepared->local_scope(), "y"), want, 1e-5, 1e-4, type);
    }
  }
}

TEST_F(PreparedKernelTest, MatmulWeightWrittenEveryStepIsNotPackedEveryStep) {
  // y = x * w; then sgd: w -= lr * g. The weight changes every run: after the first pack
  // the kernel reads it as it is, and every step still sees the updated values.
  for (const std::string type : {"mul", "matmul_v2"}) {
    ProgramDesc p;
    for (const char* v : {"w", "g", "lr"}) DeclareParameter(&p, v);
    p.Block(0).Var("x");
    Add(&p, type, {{"X", {"x"}}, {"Y", {"w"}}}, {{"Out", {"y"}}});
    Add(&p, "sgd", {{"Param", {"w"}}, {"Grad", {"g"}}, {"LearningRate", {"lr"}}},
        {{"ParamOut", {"w"}}});
    const DDim xd({64, 96}), wd({96, 40});
    const auto x = RandomValues(xd.numel(), -1, 1, 22);
    auto w = RandomValues(wd.numel(), -1, 1, 23);
    const auto g = RandomValues(wd.numel(), -1, 1, 24);
    Scope scope;
    SetSgdState(&scope, wd, w, g);
    framework::Executor exec{platform::CPUPlace()};
    auto prepared = exec.Prepare(p, 0, &scope, {"y"});
    for (int step = 0; step < 4; ++step) {
      std::vector<double> want(64 * 40, 0.0);
      for (int64_t i = 0; i < 64; ++i)
        for (int64_t j = 0; j < 40; ++j)
          for (int64_t k = 0; k < 96; ++k) want[i * 40 + j] += x[i * 96 + k] * w[k * 40 + j];
      Set(prepared->local_scope(), "x", MakeTensor<float>(xd, x));
      ExecutionProfile profile;
      exec.Run(prepared.get(), &profile);
      EXPECT_EQ(LibraryOf(profile, type), LibraryType::kOneDNN) << type;
      EXPECT_LE(PrepacksOf(profile, type), step == 0 ? 1u : 0u) << type << " step " << step;
      ExpectNear(Get(*prepared->local_scope(), "y"), want, 1e-5, 1e-4,
                 type + " at step " + std::to_string(step));
      SgdStep(&w, g);
    }
  }
}

// conv2d -> relu -> pool2d, the filter a parameter.
ProgramDesc ChainProgram() {
  ProgramDesc p = ConvProgram();
  Add(&p, "relu", {{"X", {"y"}}}, {{"Out", {"r"}}});
  Add(&p, "pool2d", {{"X", {"r"}}}, {{"Out", {"p"}}},
      {{"pooling_type", std::string("max")}, {"ksize", std::vector<int>{2, 2}},
       {"strides", std::vector<int>{2, 2}}});
  return p;
}

struct ChainRun {
  ExecutionProfile profile;
  std::vector<double> out;
};

ChainRun RunChain(const ProgramDesc& p, const framework::PlacementRules& rules = {}) {
  Scope scope;
  *scope.Var("w")->GetMutable<DenseTensor>() =
      MakeTensor<float>(kW, RandomValues(kW.numel(), -1, 1, 30));
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(p, 0, &scope, {"p"}, rules);
  *prepared->local_scope()->Var("x")->GetMutable<DenseTensor>() =
      MakeTensor<float>(kX, RandomValues(kX.numel(), -1, 1, 31));
  ChainRun r;
  exec.Run(prepared.get(), &r.profile);
  r.out = ToDoubles(prepared->local_scope()->FindVar("p")->Get<DenseTensor>());
  return r;
}

TEST_F(PreparedKernelTest, UseMkldnnFalseOpRunsPlainBetweenOneDNNNeighbours) {
  ProgramDesc p = ChainProgram();
  framework::ApplyOneDNNPlacement(&p);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(p.Block(0).Op(i)->Attr<bool>("use_mkldnn")) << p.Block(0).Op(i)->Type();
  }
  p.Block(0).Op(1)->SetAttr("use_mkldnn", false);  // relu
  const ChainRun mixed = RunChain(p);
  EXPECT_EQ(LibraryOf(mixed.profile, "conv2d"), LibraryType::kOneDNN);
  EXPECT_EQ(LibraryOf(mixed.profile, "relu"), LibraryType::kPlain);
  EXPECT_EQ(LibraryOf(mixed.profile, "pool2d"), LibraryType::kOneDNN);
  ChainRun plain;
  {
    ScopedFlag off(&FLAGS_use_onednn, false);  // The flag wins over the placement.
    plain = RunChain(p);
  }
  for (const char* type : {"conv2d", "relu", "pool2d"}) {
    EXPECT_EQ(LibraryOf(plain.profile, type), LibraryType::kPlain) << type;
  }
  ExpectNear(mixed.out, plain.out, 1e-5, 1e-5, "conv-relu-pool, mixed against plain");
}

TEST_F(PreparedKernelTest, UnplacedProgramUsesOneDNNWhereverItCan) {
  // PaddlePaddle saves use_mkldnn=false on every op unless the program was placed.
  ProgramDesc p = ChainProgram();
  for (size_t i = 0; i < 3; ++i) p.Block(0).Op(i)->SetAttr("use_mkldnn", false);
  const ChainRun r = RunChain(p);
  for (const char* type : {"conv2d", "relu", "pool2d"}) {
    EXPECT_EQ(LibraryOf(r.profile, type), LibraryType::kOneDNN) << type;
  }
}

TEST_F(PreparedKernelTest, PlacementRulesRefuseOneDNNForAnOpType) {
  framework::PlacementRules rules;
  rules.no_onednn = {"conv2d"};
  const ChainRun r = RunChain(ChainProgram(), rules);
  EXPECT_EQ(LibraryOf(r.profile, "conv2d"), LibraryType::kPlain);
  EXPECT_EQ(LibraryOf(r.profile, "relu"), LibraryType::kOneDNN);
}

TEST_F(PreparedKernelTest, PlacementOnlyNamedOpTypes) {
  ProgramDesc p = ChainProgram();
  framework::ApplyOneDNNPlacement(&p, {"pool2d"});
  const ChainRun r = RunChain(p);
  EXPECT_EQ(LibraryOf(r.profile, "conv2d"), LibraryType::kPlain);
  EXPECT_EQ(LibraryOf(r.profile, "relu"), LibraryType::kPlain);
  EXPECT_EQ(LibraryOf(r.profile, "pool2d"), LibraryType::kOneDNN);
}

TEST(KernelRegistryTest, AKernelIsAFunctionOrAClassNotBoth) {
  operators::RegisterAllOps();
  framework::KernelInfo both;
  both.key = framework::KernelKey{platform::DeviceType::kCPU, DataType::FLOAT32,
                                  LibraryType::kPlain, framework::DataLayout::kAny};
  both.fn = [](const framework::ExecutionContext&) {};
  struct Nothing : framework::OpKernel {
    void Compute(const framework::ExecutionContext&) override {}
  };
  both.make = &framework::MakeKernel<Nothing>;
  ExpectError<platform::InvalidArgumentError>(
      [&] { framework::KernelRegistry::Instance().Register("kernel_test_both", both); },
      {"kernel_test_both", "exactly one", "both"});
  framework::KernelInfo neither;
  neither.key = both.key;
  ExpectError<platform::InvalidArgumentError>(
      [&] { framework::KernelRegistry::Instance().Register("kernel_test_neither", neither); },
      {"kernel_test_neither", "neither"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

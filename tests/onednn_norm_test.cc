// oneDNN kernels of batch_norm, layer_norm and their grads: FLAGS_use_onednn picks the oneDNN
// kernel for float32 (float64 stays plain), and every output agrees with the plain kernel's
// (cross-kernel consistency) over layouts, ranks, modes, optional inputs and outputs, empty
// tensors, in-place variables, and repeated multi-threaded runs.
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "platform/device_context_pool.h"
#include "platform/init.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LibraryType;
using VarNames = std::map<std::string, std::vector<std::string>>;

struct OpRun {
  LibraryType backend;
  std::map<std::string, DenseTensor> vars;  // Every output variable after the run.
};

// Runs one op whose slots name the variables in `slots_in` / `slots_out`: a variable may be
// both an input and an output (in-place programs). `feeds` gives every input variable.
OpRun RunNamed(bool use_onednn, const std::string& type, const VarNames& slots_in,
               const VarNames& slots_out, const std::map<std::string, DenseTensor>& feeds,
               const AttributeMap& attrs) {
  ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
  const NamedOpRun r = RunNamedOp(type, slots_in, slots_out, feeds, attrs);
  OpRun run{r.kernel->key.backend, {}};
  for (const auto& kv : slots_out) {
    for (const auto& name : kv.second) run.vars[name] = r.vars.at(name);
  }
  return run;
}

// Runs the op with oneDNN on and off; expects the oneDNN kernel, then the plain one, and that
// every output variable agrees: same shape, LoD and values within rtol * |plain| + atol.
void ExpectKernelsAgree(const std::string& type, const VarNames& slots_in,
                        const VarNames& slots_out, const std::map<std::string, DenseTensor>& feeds,
                        const AttributeMap& attrs, const std::string& what, double rtol = 1e-4,
                        double atol = 2e-5) {
  SCOPED_TRACE(type + " " + what);
  const OpRun onednn = RunNamed(true, type, slots_in, slots_out, feeds, attrs);
  const OpRun plain = RunNamed(false, type, slots_in, slots_out, feeds, attrs);
  EXPECT_EQ(onednn.backend, LibraryType::kOneDNN);
  EXPECT_EQ(plain.backend, LibraryType::kPlain);
  for (const auto& kv : plain.vars) {
    const DenseTensor& a = onednn.vars.at(kv.first);
    const DenseTensor& b = kv.second;
    ASSERT_EQ(a.initialized(), b.initialized()) << kv.first;
    if (!b.initialized()) continue;
    EXPECT_EQ(a.dims(), b.dims()) << kv.first;
    EXPECT_EQ(a.lod(), b.lod()) << kv.first;
    ExpectNear(ToDoubles(a), ToDoubles(b), rtol, atol, kv.first);
  }
}

// Slot -> variable of the same name, lower case ("Y@GRAD" -> "y@grad").
VarNames Slots(const std::vector<std::string>& slots) {
  VarNames names;
  for (const auto& s : slots) {
    std::string v = s;
    for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    names[s] = {v};
  }
  return names;
}

std::map<std::string, DenseTensor> Feeds(const VarNames& slots_in,
                                         const std::map<std::string, DenseTensor>& by_slot) {
  std::map<std::string, DenseTensor> feeds;
  for (const auto& kv : slots_in) feeds[kv.second[0]] = by_slot.at(kv.first);
  return feeds;
}

class OneDNNNormTest : public OneDNNKernelTestBase {};

// ---- batch_norm ----

struct BnCase {
  DDim x;
  bool nhwc;
};

// Ranks 2 to 5 in both layouts.
const BnCase kBnCases[] = {
    {{6, 5}, false},          {{6, 5}, true},          {{4, 3, 7}, false},
    {{4, 7, 3}, true},        {{4, 3, 5, 6}, false},   {{4, 5, 6, 3}, true},
    {{2, 3, 2, 3, 4}, false}, {{2, 2, 3, 4, 3}, true}, {{8, 16, 9, 9}, false},
    {{8, 9, 9, 16}, true},
};

int64_t Channels(const BnCase& c) { return c.nhwc ? c.x[c.x.size() - 1] : c.x[1]; }

// Forward inputs by slot; X has a non-zero mean so that the statistics matter.
template <typename T>
std::map<std::string, DenseTensor> BnInputs(const BnCase& c, unsigned seed) {
  const int64_t ch = Channels(c);
  return {{"X", MakeTensor<T>(c.x, RandomValues(c.x.numel(), -1, 3, seed))},
          {"Scale", MakeTensor<T>({ch}, RandomValues(ch, 0.5, 1.5, seed + 1))},
          {"Bias", MakeTensor<T>({ch}, RandomValues(ch, -1, 1, seed + 2))},
          {"Mean", MakeTensor<T>({ch}, RandomValues(ch, -0.5, 1.5, seed + 3))},
          {"Variance", MakeTensor<T>({ch}, RandomValues(ch, 0.5, 2, seed + 4))}};
}

AttributeMap BnAttrs(const BnCase& c, AttributeMap attrs = {}) {
  attrs["data_layout"] = std::string(c.nhwc ? "NHWC" : "NCHW");
  return attrs;
}

const std::vector<std::string> kBnIn = {"X", "Scale", "Bias", "Mean", "Variance"};
const std::vector<std::string> kBnOut = {"Y", "MeanOut", "VarianceOut", "SavedMean",
                                         "SavedVariance"};

std::string Describe(const BnCase& c) { return c.x.ToString() + (c.nhwc ? " NHWC" : " NCHW"); }

TEST_F(OneDNNNormTest, BatchNormMatchesPlainKernelInEveryMode) {
  const std::vector<std::pair<std::string, AttributeMap>> modes = {
      {"training", {}},
      {"is_test", {{"is_test", true}}},
      {"use_global_stats", {{"use_global_stats", true}}},
      {"is_test + trainable_statistics", {{"is_test", true}, {"trainable_statistics", true}}},
      {"momentum 0.6, epsilon 1e-3", {{"momentum", 0.6f}, {"epsilon", 1e-3f}}},
  };
  unsigned seed = 100;
  for (const BnCase& c : kBnCases) {
    const auto inputs = BnInputs<float>(c, seed += 10);
    for (const auto& mode : modes) {
      ExpectKernelsAgree("batch_norm", Slots(kBnIn), Slots(kBnOut), Feeds(Slots(kBnIn), inputs),
                         BnAttrs(c, mode.second), Describe(c) + " " + mode.first);
    }
  }
}

TEST_F(OneDNNNormTest, BatchNormMomentumTensorAndFallbacks) {
  // MomentumTensor overrides the attribute.
  const BnCase c{{3, 4, 2, 2}, false};
  auto inputs = BnInputs<float>(c, 7);
  inputs["MomentumTensor"] = MakeTensor<float>({1}, {0.25});
  auto slots_in = Slots(kBnIn);
  slots_in["MomentumTensor"] = {"momentum_tensor"};
  ExpectKernelsAgree("batch_norm", slots_in, Slots(kBnOut), Feeds(slots_in, inputs), BnAttrs(c),
                     "MomentumTensor");
  // One value per channel (passed through) and empty X go to the plain code.
  for (const BnCase& edge :
       {BnCase{{1, 3}, false}, BnCase{{1, 1, 1, 4}, true}, BnCase{{0, 3, 2, 2}, false}}) {
    for (bool is_test : {false, true}) {
      ExpectKernelsAgree("batch_norm", Slots(kBnIn), Slots(kBnOut),
                         Feeds(Slots(kBnIn), BnInputs<float>(edge, 17)),
                         BnAttrs(edge, {{"is_test", is_test}}),
                         Describe(edge) + (is_test ? " is_test" : " training"));
    }
  }
}

// batch_norm_grad inputs for `c`: SavedMean / SavedVariance from the plain forward kernel.
std::map<std::string, DenseTensor> BnGradInputs(const BnCase& c, unsigned seed) {
  auto inputs = BnInputs<float>(c, seed);
  const OpRun fwd = RunNamed(false, "batch_norm", Slots(kBnIn), Slots(kBnOut),
                             Feeds(Slots(kBnIn), inputs), BnAttrs(c));
  inputs["SavedMean"] = fwd.vars.at("savedmean");
  inputs["SavedVariance"] = fwd.vars.at("savedvariance");
  inputs["Y@GRAD"] = MakeTensor<float>(c.x, RandomValues(c.x.numel(), -1, 1, seed + 9));
  return inputs;
}

// Every non-empty subset of the grad op's outputs that a program may ask for.
const std::vector<std::vector<std::string>> kGradOutputSets = {
    {"X@GRAD", "Scale@GRAD", "Bias@GRAD"},
    {"X@GRAD"},
    {"Scale@GRAD", "Bias@GRAD"},
    {"X@GRAD", "Bias@GRAD"},
    {"Scale@GRAD"},
    {"Bias@GRAD"}};

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& e : v) s += (s.empty() ? "" : ",") + e;
  return s;
}

TEST_F(OneDNNNormTest, BatchNormGradMatchesPlainKernel) {
  // Training reads SavedMean / SavedVariance; inference mode the running Mean / Variance, or
  // MeanOut / VarianceOut as PaddlePaddle 3.x programs pass them.
  struct Mode {
    std::string name;
    AttributeMap attrs;
    std::vector<std::string> stats;  // The slots of the statistics.
  };
  const std::vector<Mode> modes = {
      {"training", {}, {"SavedMean", "SavedVariance"}},
      {"use_global_stats", {{"use_global_stats", true}}, {"Mean", "Variance"}},
      {"is_test", {{"is_test", true}}, {"Mean", "Variance"}},
      {"is_test, MeanOut", {{"is_test", true}}, {"MeanOut", "VarianceOut"}},
      {"epsilon 1e-3", {{"epsilon", 1e-3f}}, {"SavedMean", "SavedVariance"}},
  };
  unsigned seed = 300;
  for (const BnCase& c : kBnCases) {
    auto inputs = BnGradInputs(c, seed += 10);
    inputs["MeanOut"] = inputs["Mean"];
    inputs["VarianceOut"] = inputs["Variance"];
    for (const Mode& mode : modes) {
      // The grad of a forward op with epsilon 1e-3 reads the statistics it saved.
      if (mode.name == "epsilon 1e-3") {
        const OpRun fwd = RunNamed(false, "batch_norm", Slots(kBnIn), Slots(kBnOut),
                                   Feeds(Slots(kBnIn), inputs), BnAttrs(c, mode.attrs));
        inputs["SavedVariance"] = fwd.vars.at("savedvariance");
      }
      VarNames slots_in = Slots({"X", "Scale", "Y@GRAD"});
      for (const auto& s : Slots(mode.stats)) slots_in.insert(s);
      for (const auto& outs : kGradOutputSets) {
        ExpectKernelsAgree("batch_norm_grad", slots_in, Slots(outs), Feeds(slots_in, inputs),
                           BnAttrs(c, mode.attrs),
                           Describe(c) + " " + mode.name + " -> " + Join(outs));
      }
    }
  }
}

TEST_F(OneDNNNormTest, BatchNormGradFallbacks) {
  // One value per channel (dX = dY) and empty X.
  for (const BnCase& edge : {BnCase{{1, 3}, false}, BnCase{{0, 3, 2, 2}, false}}) {
    auto inputs = BnGradInputs(edge, 41);
    const VarNames slots_in = Slots({"X", "Scale", "Y@GRAD", "SavedMean", "SavedVariance"});
    ExpectKernelsAgree("batch_norm_grad", slots_in, Slots(kGradOutputSets[0]),
                       Feeds(slots_in, inputs), BnAttrs(edge), Describe(edge));
  }
}

// ---- layer_norm ----

struct LnCase {
  DDim x;
  int axis;
  bool scale, bias;
};

const LnCase kLnCases[] = {
    {{6, 10}, 1, true, true},       {{4, 5, 6}, 1, true, true},     {{4, 5, 6}, 2, true, true},
    {{2, 3, 4, 5}, 1, true, false}, {{2, 3, 4, 5}, 2, false, true}, {{2, 3, 4, 5}, 3, false, false},
    {{7, 1}, 1, true, true},        {{1, 9}, 1, true, true},        {{16, 197, 64}, 2, true, true},
};

std::string Describe(const LnCase& c) {
  return c.x.ToString() + " axis " + std::to_string(c.axis) + (c.scale ? " Scale" : "") +
         (c.bias ? " Bias" : "");
}

std::map<std::string, DenseTensor> LnInputs(const LnCase& c, unsigned seed) {
  const int64_t right = framework::Product(c.x, c.axis, c.x.size());
  return {{"X", MakeTensor<float>(c.x, RandomValues(c.x.numel(), -1, 3, seed))},
          {"Scale", MakeTensor<float>({right}, RandomValues(right, 0.5, 1.5, seed + 1))},
          {"Bias", MakeTensor<float>({right}, RandomValues(right, -1, 1, seed + 2))}};
}

VarNames LnSlotsIn(const LnCase& c) {
  std::vector<std::string> slots = {"X"};
  if (c.scale) slots.push_back("Scale");
  if (c.bias) slots.push_back("Bias");
  return Slots(slots);
}

const std::vector<std::string> kLnOut = {"Y", "Mean", "Variance"};

TEST_F(OneDNNNormTest, LayerNormMatchesPlainKernel) {
  unsigned seed = 500;
  for (const LnCase& c : kLnCases) {
    for (float eps : {1e-5f, 1e-3f}) {
      const VarNames slots_in = LnSlotsIn(c);
      ExpectKernelsAgree("layer_norm", slots_in, Slots(kLnOut),
                         Feeds(slots_in, LnInputs(c, seed += 10)),
                         {{"begin_norm_axis", c.axis}, {"epsilon", eps}},
                         Describe(c) + " epsilon " + std::to_string(eps));
    }
  }
  // Empty X (the plain code).
  const LnCase empty{{0, 4}, 1, true, true};
  ExpectKernelsAgree("layer_norm", LnSlotsIn(empty), Slots(kLnOut),
                     Feeds(LnSlotsIn(empty), LnInputs(empty, 3)), {{"begin_norm_axis", 1}},
                     "empty");
}

TEST_F(OneDNNNormTest, LayerNormGradMatchesPlainKernel) {
  unsigned seed = 700;
  for (const LnCase& c : kLnCases) {
    auto inputs = LnInputs(c, seed += 10);
    const AttributeMap attrs = {{"begin_norm_axis", c.axis}};
    const OpRun fwd = RunNamed(false, "layer_norm", LnSlotsIn(c), Slots(kLnOut),
                               Feeds(LnSlotsIn(c), inputs), attrs);
    inputs["Mean"] = fwd.vars.at("mean");
    inputs["Variance"] = fwd.vars.at("variance");
    inputs["Y@GRAD"] = MakeTensor<float>(c.x, RandomValues(c.x.numel(), -1, 1, seed + 9));
    VarNames slots_in = Slots({"X", "Mean", "Variance", "Y@GRAD"});
    if (c.scale) slots_in["Scale"] = {"scale"};
    for (const auto& outs : kGradOutputSets) {
      ExpectKernelsAgree("layer_norm_grad", slots_in, Slots(outs), Feeds(slots_in, inputs), attrs,
                         Describe(c) + " -> " + Join(outs));
    }
  }
}

// ---- in place, dtype, threads, errors ----

TEST_F(OneDNNNormTest, InPlaceVariablesMatchPlainKernel) {
  // batch_norm: Y over X, MeanOut / VarianceOut over Mean / Variance (as PaddlePaddle writes).
  const BnCase c{{4, 3, 5, 5}, false};
  const auto bn = BnInputs<float>(c, 61);
  for (bool is_test : {false, true}) {
    VarNames out = Slots(kBnOut);
    out["Y"] = {"x"};
    out["MeanOut"] = {"mean"};
    out["VarianceOut"] = {"variance"};
    ExpectKernelsAgree("batch_norm", Slots(kBnIn), out, Feeds(Slots(kBnIn), bn),
                       BnAttrs(c, {{"is_test", is_test}}), is_test ? "is_test" : "training");
  }
  // batch_norm_grad: X@GRAD over Y@GRAD.
  const auto bn_grad = BnGradInputs(c, 63);
  const VarNames grad_in = Slots({"X", "Scale", "Y@GRAD", "SavedMean", "SavedVariance"});
  VarNames grad_out = Slots(kGradOutputSets[0]);
  grad_out["X@GRAD"] = {"y@grad"};
  ExpectKernelsAgree("batch_norm_grad", grad_in, grad_out, Feeds(grad_in, bn_grad), BnAttrs(c),
                     "X@GRAD over Y@GRAD");
  // layer_norm: Y over X; layer_norm_grad: X@GRAD over Y@GRAD.
  const LnCase l{{6, 4, 5}, 1, true, true};
  auto ln = LnInputs(l, 65);
  VarNames ln_out = Slots(kLnOut);
  ln_out["Y"] = {"x"};
  ExpectKernelsAgree("layer_norm", LnSlotsIn(l), ln_out, Feeds(LnSlotsIn(l), ln),
                     {{"begin_norm_axis", 1}}, "Y over X");
  const OpRun fwd = RunNamed(false, "layer_norm", LnSlotsIn(l), Slots(kLnOut),
                             Feeds(LnSlotsIn(l), ln), {{"begin_norm_axis", 1}});
  ln["Mean"] = fwd.vars.at("mean");
  ln["Variance"] = fwd.vars.at("variance");
  ln["Y@GRAD"] = MakeTensor<float>(l.x, RandomValues(l.x.numel(), -1, 1, 66));
  const VarNames ln_grad_in = Slots({"X", "Scale", "Mean", "Variance", "Y@GRAD"});
  VarNames ln_grad_out = Slots(kGradOutputSets[0]);
  ln_grad_out["X@GRAD"] = {"y@grad"};
  ExpectKernelsAgree("layer_norm_grad", ln_grad_in, ln_grad_out, Feeds(ln_grad_in, ln),
                     {{"begin_norm_axis", 1}}, "X@GRAD over Y@GRAD");
}

TEST_F(OneDNNNormTest, Float64StaysOnThePlainKernels) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  const BnCase c{{2, 3, 2, 2}, false};
  const auto bn = BnInputs<double>(c, 5);
  const OpRun fwd = RunNamed(true, "batch_norm", Slots(kBnIn), Slots(kBnOut),
                             Feeds(Slots(kBnIn), bn), BnAttrs(c));
  EXPECT_EQ(fwd.backend, LibraryType::kPlain);
  auto grad_inputs = bn;
  grad_inputs["SavedMean"] = fwd.vars.at("savedmean");
  grad_inputs["SavedVariance"] = fwd.vars.at("savedvariance");
  grad_inputs["Y@GRAD"] = bn.at("X");
  const VarNames grad_in = Slots({"X", "Scale", "Y@GRAD", "SavedMean", "SavedVariance"});
  EXPECT_EQ(RunNamed(true, "batch_norm_grad", grad_in, Slots(kGradOutputSets[0]),
                     Feeds(grad_in, grad_inputs), BnAttrs(c))
                .backend,
            LibraryType::kPlain);
  const auto x = MakeTensor<double>({3, 4}, RandomValues(12, -1, 1, 6));
  const OpRun ln = RunNamed(true, "layer_norm", Slots({"X"}), Slots(kLnOut), {{"x", x}},
                            {{"begin_norm_axis", 1}});
  EXPECT_EQ(ln.backend, LibraryType::kPlain);
  EXPECT_EQ(RunNamed(true, "layer_norm_grad", Slots({"X", "Mean", "Variance", "Y@GRAD"}),
                     Slots({"X@GRAD"}),
                     {{"x", x},
                      {"mean", ln.vars.at("mean")},
                      {"variance", ln.vars.at("variance")},
                      {"y@grad", x}},
                     {{"begin_norm_axis", 1}})
                .backend,
            LibraryType::kPlain);
}

// Two runs with two threads give bitwise equal outputs (oneDNN's reductions split by thread
// count, which is fixed).
TEST_F(OneDNNNormTest, MultiThreadedRunsAreBitwiseEqual) {
  const int old_threads = FLAGS_paddle_num_threads;
  FLAGS_paddle_num_threads = 2;
  platform::DeviceContextPool::Instance().Clear();
  const BnCase c{{16, 8, 12, 12}, false};
  const auto bn = BnGradInputs(c, 81);
  const VarNames grad_in = Slots({"X", "Scale", "Y@GRAD", "SavedMean", "SavedVariance"});
  const LnCase l{{64, 96}, 1, true, true};
  auto ln = LnInputs(l, 83);
  ln["Mean"] = MakeTensor<float>({64}, RandomValues(64, 0, 1, 84));
  ln["Variance"] = MakeTensor<float>({64}, RandomValues(64, 0.5, 1.5, 85));
  ln["Y@GRAD"] = MakeTensor<float>(l.x, RandomValues(l.x.numel(), -1, 1, 86));
  const VarNames ln_grad_in = Slots({"X", "Scale", "Mean", "Variance", "Y@GRAD"});
  const auto run_all = [&]() {
    std::vector<OpRun> runs = {
        RunNamed(true, "batch_norm", Slots(kBnIn), Slots(kBnOut), Feeds(Slots(kBnIn), bn),
                 BnAttrs(c)),
        RunNamed(true, "batch_norm_grad", grad_in, Slots(kGradOutputSets[0]), Feeds(grad_in, bn),
                 BnAttrs(c)),
        RunNamed(true, "layer_norm", LnSlotsIn(l), Slots(kLnOut), Feeds(LnSlotsIn(l), ln),
                 {{"begin_norm_axis", 1}}),
        RunNamed(true, "layer_norm_grad", ln_grad_in, Slots(kGradOutputSets[0]),
                 Feeds(ln_grad_in, ln), {{"begin_norm_axis", 1}})};
    return runs;
  };
  const std::vector<OpRun> a = run_all();
  const std::vector<OpRun> b = run_all();
  FLAGS_paddle_num_threads = old_threads;
  platform::DeviceContextPool::Instance().Clear();
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].backend, LibraryType::kOneDNN);
    for (const auto& kv : a[i].vars) {
      EXPECT_EQ(ToDoubles(kv.second), ToDoubles(b[i].vars.at(kv.first))) << kv.first;
    }
  }
}

TEST_F(OneDNNNormTest, ErrorsNameOpAndSlot) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  const BnCase c{{2, 3, 4}, false};
  auto bn = BnInputs<float>(c, 91);
  bn["Scale"] = MakeTensor<float>({4}, {1, 1, 1, 1});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunNamed(true, "batch_norm", Slots(kBnIn), Slots(kBnOut), Feeds(Slots(kBnIn), bn),
                 BnAttrs(c));
      },
      {"op `batch_norm`", "`Scale`", "[3]", "[4]"});
  auto ln = LnInputs({{2, 3, 4}, 1, true, true}, 92);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunNamed(true, "layer_norm", Slots({"X", "Scale", "Bias"}), Slots(kLnOut),
                 Feeds(Slots({"X", "Scale", "Bias"}), ln), {{"begin_norm_axis", 3}});
      },
      {"op `layer_norm`", "`begin_norm_axis`", "[1, 3)"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// oneDNN kernels of the activation ops, their fused grad ops, softmax and softmax_grad:
// FLAGS_use_onednn decides between the oneDNN and the plain kernel, and both give the same
// values (cross-kernel consistency), LoD and in-place results; float64 stays on the plain
// kernels.
#include <cmath>

#include "platform/device_context_pool.h"
#include "platform/init.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::LibraryType;

struct KernelRun {
  LibraryType backend;
  DDim dims;
  framework::LoD lod;
  std::vector<double> values;
};

KernelRun RunWith(bool use_onednn, const std::string& type, const SlotTensors& inputs,
                  const AttributeMap& attrs, const std::string& out_slot) {
  ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
  auto r = RunOp(type, inputs, {{out_slot, 1}}, attrs);
  const DenseTensor& out = r.outputs[out_slot][0];
  return {r.kernel->key.backend, out.dims(), out.lod(), ToDoubles(out)};
}

// Elementwise |a - e| <= rtol * |e| + atol, where NaN matches NaN and an infinity itself.
void ExpectClose(const std::vector<double>& actual, const std::vector<double>& expected,
                 double rtol, double atol, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], e = expected[i];
    if (std::isnan(e) || std::isinf(e)) {
      EXPECT_TRUE(std::isnan(e) ? std::isnan(a) : a == e)
          << what << " at element " << i << ": " << a << " vs " << e;
    } else {
      ASSERT_NEAR(a, e, rtol * std::abs(e) + atol) << what << " at element " << i;
    }
  }
}

struct Tol {
  double rtol = 1e-5;
  double atol = 1e-6;
};

// Runs the op with oneDNN on and off; checks the choice, and that dims, LoD and values agree.
void CheckBothKernels(const std::string& type, const SlotTensors& inputs, const AttributeMap& attrs,
                      const std::string& out_slot, const Tol& tol, const std::string& what) {
  const KernelRun onednn = RunWith(true, type, inputs, attrs, out_slot);
  const KernelRun plain = RunWith(false, type, inputs, attrs, out_slot);
  EXPECT_EQ(onednn.backend, LibraryType::kOneDNN) << what;
  EXPECT_EQ(plain.backend, LibraryType::kPlain) << what;
  EXPECT_EQ(onednn.dims, plain.dims) << what;
  EXPECT_EQ(onednn.lod, plain.lod) << what;
  ExpectClose(onednn.values, plain.values, tol.rtol, tol.atol, what);
}

// Random values in [lo, hi), the first ones replaced by `specials` (as many as fit).
std::vector<double> Values(int64_t n, double lo, double hi, const std::vector<double>& specials,
                           unsigned seed) {
  std::vector<double> v = RandomValues(n, lo, hi, seed);
  for (size_t i = 0; i < specials.size() && i < v.size(); ++i) v[i] = specials[i];
  return v;
}

// Zero, negative zero, both signs and large magnitudes.
const std::vector<double> kSpecials = {0.0, -0.0, 1.0, -1.0, 50.0, -50.0, 100.0, -100.0};

const std::vector<DDim> kShapes = {{7}, {3, 5}, {2, 3, 4, 5}, {0, 3}, {64, 1000}};

std::string Describe(const std::string& type, const DDim& dims, const AttributeMap& attrs) {
  std::string s = type + " " + dims.ToString();
  for (const auto& kv : attrs) s += " " + kv.first;
  return s;
}

// Runs `fn` with one thread and with four (the [64, 1000] shapes then split their work).
template <typename Fn>
void WithOneAndFourThreads(Fn&& fn) {
  const int old = FLAGS_paddle_num_threads;
  for (int threads : {1, 4}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    FLAGS_paddle_num_threads = threads;
    platform::DeviceContextPool::Instance().Clear();
    fn();
  }
  FLAGS_paddle_num_threads = old;
  platform::DeviceContextPool::Instance().Clear();
}

class OneDNNEltwiseSoftmaxTest : public OneDNNKernelTestBase {};

// relu_grad of a NaN Out: the plain kernel gives 0, the primitive passes dOut on. Below the
// threshold the oneDNN kernel (still the one chosen) gives the plain kernel's 0.
TEST_F(OneDNNEltwiseSoftmaxTest, SmallInputsRunThePlainKernel) {
  const SlotTensors in = {
      {"Out", {MakeTensor<float>({3}, {std::nan(""), 2.0, 0.0})}},
      {"Out@GRAD", {MakeTensor<float>({3}, {5.0, 7.0, 9.0})}}};
  const KernelRun primitive = RunWith(true, "relu_grad", in, {}, "X@GRAD");
  EXPECT_EQ(primitive.backend, LibraryType::kOneDNN);
  ExpectClose(primitive.values, {5, 7, 0}, 0, 0, "relu_grad on the primitive");
  FLAGS_onednn_small_input_fallback = true;
  const KernelRun handed_over = RunWith(true, "relu_grad", in, {}, "X@GRAD");
  EXPECT_EQ(handed_over.backend, LibraryType::kOneDNN);
  ExpectClose(handed_over.values, {0, 7, 0}, 0, 0, "relu_grad handed to the plain kernel");
}

struct Forward {
  std::string type;
  AttributeMap attrs;
  double lo, hi;  // The random inputs' range (kSpecials come on top).
  Tol tol;
};

std::vector<Forward> ForwardCases() {
  return {
      {"relu", {}, -4, 4, {0, 0}},
      {"sigmoid", {}, -8, 8, {}},
      {"tanh", {}, -4, 4, {}},
      {"exp", {}, -8, 8, {}},
      {"square", {}, -4, 4, {}},
      {"gelu", {{"approximate", false}}, -6, 6, {}},
      {"gelu", {{"approximate", true}}, -6, 6, {}},
      {"leaky_relu", {{"alpha", 0.02f}}, -4, 4, {0, 0}},
      {"leaky_relu", {{"alpha", 0.3f}}, -4, 4, {0, 0}},
      {"leaky_relu", {{"alpha", 1.5f}}, -4, 4, {0, 0}},
  };
}

TEST_F(OneDNNEltwiseSoftmaxTest, ActivationsMatchPlainKernels) {
  WithOneAndFourThreads([] {
    unsigned seed = 1;
    for (const Forward& c : ForwardCases()) {
      for (const DDim& dims : kShapes) {
        const SlotTensors in = {
            {"X", {MakeTensor<float>(dims, Values(dims.numel(), c.lo, c.hi, kSpecials, ++seed))}}};
        CheckBothKernels(c.type, in, c.attrs, "Out", c.tol, Describe(c.type, dims, c.attrs));
      }
    }
  });
}

struct Backward {
  std::string type;
  std::string dep;  // The forward value the grad op reads.
  AttributeMap attrs;
  double lo, hi;  // The range of the forward value.
  Tol tol;
};

std::vector<Backward> BackwardCases() {
  return {
      {"relu_grad", "Out", {}, 0, 4},
      {"sigmoid_grad", "Out", {}, 0, 1},
      {"tanh_grad", "Out", {}, -1, 1},
      {"exp_grad", "Out", {}, 0, 8},
      {"square_grad", "X", {}, -4, 4},
      {"gelu_grad", "X", {{"approximate", false}}, -6, 6},
      // Where tanh saturates, 1 + tanh cancels: each float form of the derivative is within
      // about 1e-6 of the exact one (times |Out@GRAD| <= 3).
      {"gelu_grad", "X", {{"approximate", true}}, -6, 6, {1e-5, 4e-6}},
      {"leaky_relu_grad", "X", {{"alpha", 0.02f}}, -4, 4},
      {"leaky_relu_grad", "X", {{"alpha", 0.3f}}, -4, 4},
      {"leaky_relu_grad", "X", {{"alpha", 1.5f}}, -4, 4},
  };
}

TEST_F(OneDNNEltwiseSoftmaxTest, GradOpsMatchPlainKernels) {
  WithOneAndFourThreads([] {
    unsigned seed = 100;
    for (const Backward& c : BackwardCases()) {
      // A forward value of one sign (relu's, sigmoid's and exp's Out) has zeros; X every sign.
      const std::vector<double> specials =
          c.lo >= 0 ? std::vector<double>{0.0, c.hi, 0.0} : kSpecials;
      for (const DDim& dims : kShapes) {
        const int64_t n = dims.numel();
        const SlotTensors in = {
            {c.dep, {MakeTensor<float>(dims, Values(n, c.lo, c.hi, specials, ++seed))}},
            {"Out@GRAD", {MakeTensor<float>(dims, Values(n, -2, 2, {3.0, -3.0}, ++seed))}}};
        CheckBothKernels(c.type, in, c.attrs, "X@GRAD", c.tol, Describe(c.type, dims, c.attrs));
      }
    }
  });
}

// leaky_relu_grad's slope is 1 at X = 0 (and -0), alpha below and 0 for NaN.
TEST_F(OneDNNEltwiseSoftmaxTest, LeakyReluGradSlopeAtZero) {
  const double nan = std::nan("");
  const SlotTensors in = {{"X", {MakeTensor<float>({5}, {0.0, -0.0, -1.0, 1.0, nan})}},
                          {"Out@GRAD", {MakeTensor<float>({5}, {3, 3, 3, 3, 3})}}};
  const KernelRun onednn = RunWith(true, "leaky_relu_grad", in, {{"alpha", 0.25f}}, "X@GRAD");
  EXPECT_EQ(onednn.backend, LibraryType::kOneDNN);
  ExpectClose(onednn.values, {3, 3, 0.75, 3, 0}, 0, 0, "leaky_relu_grad");
}

TEST_F(OneDNNEltwiseSoftmaxTest, SoftmaxMatchesPlainKernel) {
  struct Case {
    DDim dims;
    int axis;
  };
  const std::vector<Case> cases = {
      {{7}, 0},           {{7}, -1},
      {{3, 5}, -1},       {{3, 5}, 0},
      {{2, 3, 4, 5}, -1}, {{2, 3, 4, 5}, 1},
      {{2, 3, 4, 5}, -3}, {{2, 3, 4, 5}, 0},
      {{0, 3}, -1},       {{3, 0}, 1},
      {{64, 1000}, -1},   {{64, 1000}, 0},
      {{1, 1}, -1},       {DDim(std::vector<int64_t>{}), -1},
  };
  WithOneAndFourThreads([&] {
    unsigned seed = 200;
    for (const Case& c : cases) {
      const AttributeMap attrs = {{"axis", c.axis}};
      const int64_t n = c.dims.numel();
      const std::string what = "softmax " + c.dims.ToString() + " axis " + std::to_string(c.axis);
      // Inputs near +-50 overflow a naive exp() sum.
      CheckBothKernels("softmax",
                       {{"X", {MakeTensor<float>(c.dims, Values(n, -50, 50, kSpecials, ++seed))}}},
                       attrs, "Out", {}, what);
      // softmax_grad from a forward's Out.
      ScopedFlag flag(&FLAGS_use_onednn, false);
      auto fwd =
          RunOp("softmax", {{"X", {MakeTensor<float>(c.dims, RandomValues(n, -3, 3, ++seed))}}},
                {{"Out", 1}}, attrs);
      const SlotTensors grad_in = {
          {"Out", {fwd.outputs["Out"][0]}},
          {"Out@GRAD", {MakeTensor<float>(c.dims, RandomValues(n, -2, 2, ++seed))}}};
      CheckBothKernels("softmax_grad", grad_in, attrs, "X@GRAD", {}, what);
    }
  });
}

TEST_F(OneDNNEltwiseSoftmaxTest, SoftmaxOfLargeInputsStaysFinite) {
  const SlotTensors in = {{"X", {MakeTensor<float>({2, 3}, {50, -50, 49, 1000, 1000, -1000})}}};
  const KernelRun onednn = RunWith(true, "softmax", in, {{"axis", -1}}, "Out");
  EXPECT_EQ(onednn.backend, LibraryType::kOneDNN);
  const double a = 1 / (1 + std::exp(-100.0) + std::exp(-1.0));
  ExpectClose(onednn.values, {a, a * std::exp(-100.0), a * std::exp(-1.0), 0.5, 0.5, 0}, 1e-6, 1e-7,
              "softmax of large inputs");
}

TEST_F(OneDNNEltwiseSoftmaxTest, LoDIsKeptAsThePlainKernelsKeepIt) {
  DenseTensor x = MakeTensor<float>({3, 2}, {-1, 2, 0, 4, -5, 6});
  x.set_lod(framework::LoD{{0, 1, 3}});
  DenseTensor dout = MakeTensor<float>({3, 2}, {1, 1, 1, 1, 1, 1});
  for (const char* type : {"relu", "gelu", "leaky_relu", "softmax"}) {
    CheckBothKernels(type, {{"X", {x}}}, {}, "Out", {}, type);
    EXPECT_EQ(RunWith(true, type, {{"X", {x}}}, {}, "Out").lod, x.lod()) << type;
  }
  for (const char* type : {"relu_grad", "softmax_grad"}) {
    const SlotTensors in = {{"Out", {x}}, {"Out@GRAD", {dout}}};
    CheckBothKernels(type, in, {}, "X@GRAD", {}, type);
    EXPECT_EQ(RunWith(true, type, in, {}, "X@GRAD").lod, x.lod()) << type;
  }
  for (const char* type : {"square_grad", "gelu_grad", "leaky_relu_grad"}) {
    const SlotTensors in = {{"X", {x}}, {"Out@GRAD", {dout}}};
    CheckBothKernels(type, in, {}, "X@GRAD", {}, type);
    EXPECT_EQ(RunWith(true, type, in, {}, "X@GRAD").lod, x.lod()) << type;
  }
}

// Runs one op whose slots name the given variables (several slots may name one variable) and
// returns the fetched variable and the chosen kernel's backend.
std::pair<LibraryType, std::vector<double>> RunNamed(
    bool use_onednn, const std::string& type, const std::map<std::string, std::string>& inputs,
    const std::map<std::string, std::string>& outputs,
    const std::map<std::string, std::vector<double>>& feeds, const DDim& dims,
    const AttributeMap& attrs, const std::string& fetch) {
  ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
  framework::VariableNameMap in_names, out_names;
  for (const auto& kv : inputs) in_names[kv.first] = {kv.second};
  for (const auto& kv : outputs) out_names[kv.first] = {kv.second};
  std::map<std::string, DenseTensor> tensors;
  for (const auto& kv : feeds) tensors[kv.first] = MakeTensor<float>(dims, kv.second);
  const NamedOpRun r = RunNamedOp(type, in_names, out_names, tensors, attrs);
  return {r.kernel->key.backend, ToDoubles(r.vars.at(fetch))};
}

TEST_F(OneDNNEltwiseSoftmaxTest, OutputMayBeAnInput) {
  const DDim dims = {4, 33};
  const std::vector<double> a = Values(dims.numel(), -3, 3, kSpecials, 300);
  const std::vector<double> b = Values(dims.numel(), -2, 2, {}, 301);
  const std::vector<double> p = RandomValues(dims.numel(), 0, 1, 302);
  struct Case {
    std::string type;
    std::map<std::string, std::string> inputs, outputs;
    std::map<std::string, std::vector<double>> feeds;
    AttributeMap attrs;
  };
  const std::vector<Case> cases = {
      {"relu", {{"X", "x"}}, {{"Out", "x"}}, {{"x", a}}, {}},
      {"gelu", {{"X", "x"}}, {{"Out", "x"}}, {{"x", a}}, {{"approximate", true}}},
      {"softmax", {{"X", "x"}}, {{"Out", "x"}}, {{"x", a}}, {{"axis", 0}}},
      {"sigmoid_grad",
       {{"Out", "y"}, {"Out@GRAD", "g"}},
       {{"X@GRAD", "g"}},
       {{"y", p}, {"g", b}},
       {}},
      {"tanh_grad", {{"Out", "y"}, {"Out@GRAD", "g"}}, {{"X@GRAD", "y"}}, {{"y", p}, {"g", b}}, {}},
      {"square_grad", {{"X", "x"}, {"Out@GRAD", "g"}}, {{"X@GRAD", "x"}}, {{"x", a}, {"g", b}}, {}},
      {"leaky_relu_grad",
       {{"X", "x"}, {"Out@GRAD", "g"}},
       {{"X@GRAD", "g"}},
       {{"x", a}, {"g", b}},
       {{"alpha", 0.1f}}},
      {"leaky_relu_grad",
       {{"X", "x"}, {"Out@GRAD", "g"}},
       {{"X@GRAD", "x"}},
       {{"x", a}, {"g", b}},
       {{"alpha", 0.1f}}},
      {"softmax_grad",
       {{"Out", "y"}, {"Out@GRAD", "g"}},
       {{"X@GRAD", "g"}},
       {{"y", p}, {"g", b}},
       {}},
      {"softmax_grad",
       {{"Out", "y"}, {"Out@GRAD", "g"}},
       {{"X@GRAD", "y"}},
       {{"y", p}, {"g", b}},
       {}},
  };
  for (const Case& c : cases) {
    const std::string out = c.outputs.begin()->second;
    const std::string what = c.type + " writing into `" + out + "`";
    const auto onednn = RunNamed(true, c.type, c.inputs, c.outputs, c.feeds, dims, c.attrs, out);
    const auto plain = RunNamed(false, c.type, c.inputs, c.outputs, c.feeds, dims, c.attrs, out);
    EXPECT_EQ(onednn.first, LibraryType::kOneDNN) << what;
    EXPECT_EQ(plain.first, LibraryType::kPlain) << what;
    ExpectClose(onednn.second, plain.second, 1e-5, 1e-6, what);
  }
}

TEST_F(OneDNNEltwiseSoftmaxTest, Float64StaysOnThePlainKernels) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  const DenseTensor x = MakeTensor<double>({2, 2}, {-1, 0.5, 2, -3});
  for (const char* type :
       {"relu", "sigmoid", "tanh", "exp", "log", "square", "gelu", "leaky_relu", "softmax"}) {
    auto r = RunOp(type, {{"X", {x}}}, {{"Out", 1}});
    EXPECT_EQ(r.kernel->key.backend, LibraryType::kPlain) << type;
  }
  for (const char* type : {"relu_grad", "sigmoid_grad", "tanh_grad", "exp_grad", "softmax_grad"}) {
    auto r = RunOp(type, {{"Out", {x}}, {"Out@GRAD", {x}}}, {{"X@GRAD", 1}});
    EXPECT_EQ(r.kernel->key.backend, LibraryType::kPlain) << type;
  }
  for (const char* type : {"square_grad", "gelu_grad", "leaky_relu_grad"}) {
    auto r = RunOp(type, {{"X", {x}}, {"Out@GRAD", {x}}}, {{"X@GRAD", 1}});
    EXPECT_EQ(r.kernel->key.backend, LibraryType::kPlain) << type;
  }
}

// oneDNN 2.6's eltwise_log gives log(1) = -1.43e-6: float32 log keeps the plain kernel.
TEST_F(OneDNNEltwiseSoftmaxTest, LogStaysOnThePlainKernel) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  auto r = RunOp("log", {{"X", {MakeTensor<float>({3}, {1, 0.5, 2})}}}, {{"Out", 1}});
  EXPECT_EQ(r.kernel->key.backend, LibraryType::kPlain);
  EXPECT_EQ(ToDoubles(r.outputs["Out"][0])[0], 0.0);
}

TEST_F(OneDNNEltwiseSoftmaxTest, BadSoftmaxAxisFailsAsOnThePlainKernel) {
  ScopedFlag flag(&FLAGS_use_onednn, true);
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("softmax", {{"X", {MakeTensor<float>({2, 3}, RandomValues(6, -1, 1))}}}, {{"Out", 1}},
              {{"axis", 2}});
      },
      {"op `softmax` attribute `axis`", "received 2"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

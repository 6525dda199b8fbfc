// Helpers for op tests: run one op on given inputs through the real executor path, make
// random tensors, and compare with references computed in double.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/op_registry.h"
#include "operators/registry.h"
#include "platform/flags.h"

namespace paddle_like {
namespace testing {

using framework::AttributeMap;
using framework::DDim;
using framework::DenseTensor;
using platform::DataType;

// A tensor of `dims` from double values, stored as T.
template <typename T>
DenseTensor MakeTensor(const DDim& dims, const std::vector<double>& values) {
  DenseTensor t(dims, platform::ToDataType<T>());
  T* p = t.mutable_data<T>(platform::CPUPlace());
  EXPECT_EQ(static_cast<int64_t>(values.size()), dims.numel());
  for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
  return t;
}

// A complex tensor (T: float or double parts) of `dims` from interleaved values: real,
// imaginary, real, ... (2 * numel values).
template <typename T>
DenseTensor MakeComplexTensor(const DDim& dims, const std::vector<double>& interleaved) {
  using C = std::complex<T>;
  DenseTensor t(dims, platform::ToDataType<C>());
  C* p = t.mutable_data<C>(platform::CPUPlace());
  EXPECT_EQ(static_cast<int64_t>(interleaved.size()), 2 * dims.numel());
  for (int64_t i = 0; i < dims.numel(); ++i) {
    p[i] = C(static_cast<T>(interleaved[2 * i]), static_cast<T>(interleaved[2 * i + 1]));
  }
  return t;
}

// MakeTensor with sequence offsets: a LoD tensor for the sequence ops.
template <typename T>
DenseTensor MakeLoDTensor(const DDim& dims, const std::vector<double>& values,
                          const framework::LoD& lod) {
  DenseTensor t = MakeTensor<T>(dims, values);
  t.set_lod(lod);
  return t;
}

// Uniform random values in [lo, hi), reproducible by seed.
// The names of the directories in `dir`, sorted (fixtures kept one per directory).
std::vector<std::string> SubdirectoryNames(const std::string& dir);

inline std::vector<double> RandomValues(int64_t n, double lo, double hi, unsigned seed = 7) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = dist(gen);
  return v;
}

// The values of any real-typed CPU tensor as doubles; a complex one's interleaved (real,
// imaginary, ...).
std::vector<double> ToDoubles(const DenseTensor& t);

// One variable per slot entry: slot -> list of (tensor). Variables are named "<slot>_<i>".
using SlotTensors = std::map<std::string, std::vector<DenseTensor>>;

struct OpRunResult {
  std::map<std::string, std::vector<DenseTensor>> outputs;
  const framework::KernelInfo* kernel = nullptr;  // The kernel the op chose.
};

// Builds the op from a one-op program, runs it on `place` (the CPU by default) and returns
// every output, copied to the CPU. `output_slots`: slot -> number of variables.
OpRunResult RunOp(const std::string& type, const SlotTensors& inputs,
                  const std::map<std::string, int>& output_slots, const AttributeMap& attrs = {},
                  const platform::Place& place = platform::CPUPlace());

// One op run on named variables: `inputs` and `outputs` map slots to variable names (an
// output may name an input, or the same variable twice), `feeds` holds the inputs' values.
struct NamedOpRun {
  std::map<std::string, DenseTensor> vars;  // Every variable holding a dense tensor after.
  const framework::KernelInfo* kernel = nullptr;
};
NamedOpRun RunNamedOp(const std::string& type, const framework::VariableNameMap& inputs,
                      const framework::VariableNameMap& outputs,
                      const std::map<std::string, DenseTensor>& feeds,
                      const AttributeMap& attrs = {});

// Base fixture of the oneDNN kernel tests: registers every op, skips the test in builds
// without oneDNN, and turns the small-input handover (FLAGS_onednn_small_input_fallback) off
// so that every shape runs the primitives; the flag is restored after each test.
class OneDNNKernelTestBase : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

 private:
  bool small_input_fallback_ = true;
};

// Expects `actual` to equal `expected` elementwise within `rtol * |expected| + atol`.
void ExpectNear(const std::vector<double>& actual, const std::vector<double>& expected,
                double rtol, double atol, const std::string& what);

// For ops that leave equal values in PaddlePaddle's order (top_k, argsort; that order is
// checked against PaddlePaddle's own outputs in paddle_op_fixtures_test): each of the rows of
// `x` (`n` values each) has `k` entries in `indices`, distinct positions in [0, n) whose values
// are that row's entries of `values` (a NaN matching a NaN). `indices`: an integer tensor.
void ExpectIndicesHoldValues(const std::vector<double>& x, int64_t n, const DenseTensor& indices,
                             const std::vector<double>& values, int64_t k, const std::string& what);

// Runs `fn` and expects ErrorT whose what() contains every string of `parts`.
template <typename ErrorT, typename Fn>
void ExpectError(Fn&& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected an error containing " << parts[0];
  } catch (const ErrorT& e) {
    for (const auto& p : parts) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "missing `" << p << "` in " << e.what();
    }
  }
}

// Tolerances per dtype for comparing against double references.
inline double RelTol(DataType t) { return t == DataType::FLOAT64 ? 1e-12 : 1e-5; }
inline double AbsTol(DataType t) { return t == DataType::FLOAT64 ? 1e-12 : 1e-6; }

// Scoped flag value (restored at scope exit).
class ScopedFlag {
 public:
  ScopedFlag(bool* flag, bool value) : flag_(flag), old_(*flag) { *flag = value; }
  ~ScopedFlag() { *flag_ = old_; }

 private:
  bool* flag_;
  bool old_;
};

}  // namespace testing
}  // namespace paddle_like

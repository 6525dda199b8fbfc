#include "tests/op_test_util.h"

#include <algorithm>
#include <filesystem>

#include "framework/data_transform.h"
#include "platform/init.h"

namespace paddle_like {
namespace testing {

std::vector<double> ToDoubles(const DenseTensor& t) {
  if (platform::IsComplex(t.dtype())) {
    std::vector<double> out;
    const auto append = [&](const auto* p) {
      for (int64_t i = 0; i < t.numel(); ++i) {
        out.push_back(p[i].real());
        out.push_back(p[i].imag());
      }
    };
    if (t.dtype() == DataType::COMPLEX64) {
      append(t.data<std::complex<float>>());
    } else {
      append(t.data<std::complex<double>>());
    }
    return out;
  }
  DenseTensor d;
  framework::CastTensor(t, DataType::FLOAT64, &d);
  const double* p = d.data<double>();
  return std::vector<double>(p, p + d.numel());
}

OpRunResult RunOp(const std::string& type, const SlotTensors& inputs,
                  const std::map<std::string, int>& output_slots, const AttributeMap& attrs,
                  const platform::Place& place) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& block = program.Block(0);
  framework::OpDesc* op = block.AppendOp();
  op->SetType(type);
  std::map<std::string, DenseTensor> feeds;
  for (const auto& kv : inputs) {
    std::vector<std::string> names;
    for (size_t i = 0; i < kv.second.size(); ++i) {
      const std::string name = kv.first + "_" + std::to_string(i);
      names.push_back(name);
      framework::VarDesc* v = block.Var(name);
      v->SetDataType(kv.second[i].dtype());
      v->SetShape(kv.second[i].dims().ToVector());
      feeds[name] = kv.second[i];
    }
    op->SetInput(kv.first, names);
  }
  std::vector<std::string> fetches;
  for (const auto& kv : output_slots) {
    std::vector<std::string> names;
    for (int i = 0; i < kv.second; ++i) {
      names.push_back("out_" + kv.first + "_" + std::to_string(i));
      block.Var(names.back());
      fetches.push_back(names.back());
    }
    op->SetOutput(kv.first, names);
  }
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);

  framework::Scope scope;
  framework::Executor exec{place};
  auto prepared = exec.Prepare(program, 0, &scope, fetches);
  for (const auto& kv : feeds) {
    *prepared->local_scope()->FindVar(kv.first)->GetMutable<DenseTensor>() = kv.second;
  }
  exec.Run(prepared.get());
  OpRunResult result;
  result.kernel = prepared->op(0).kernel();
  for (const auto& kv : output_slots) {
    for (int i = 0; i < kv.second; ++i) {
      const std::string name = "out_" + kv.first + "_" + std::to_string(i);
      const auto* var = prepared->local_scope()->FindVar(name);
      DenseTensor t;
      if (var != nullptr && var->IsType<DenseTensor>() && var->Get<DenseTensor>().initialized()) {
        t = var->Get<DenseTensor>();
      }
      if (t.initialized()) t = framework::OnCpu(t);
      result.outputs[kv.first].push_back(t);
    }
  }
  return result;
}

void OneDNNKernelTestBase::SetUp() {
  operators::RegisterAllOps();
  if (!platform::BuiltWithOneDNN()) GTEST_SKIP() << "built without oneDNN";
  small_input_fallback_ = FLAGS_onednn_small_input_fallback;
  FLAGS_onednn_small_input_fallback = false;
}

void OneDNNKernelTestBase::TearDown() {
  FLAGS_onednn_small_input_fallback = small_input_fallback_;
}

std::vector<std::string> SubdirectoryNames(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

NamedOpRun RunNamedOp(const std::string& type, const framework::VariableNameMap& inputs,
                      const framework::VariableNameMap& outputs,
                      const std::map<std::string, DenseTensor>& feeds, const AttributeMap& attrs) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& block = program.Block(0);
  framework::OpDesc* op = block.AppendOp();
  op->SetType(type);
  // Persistable variables live in the given scope and are never freed by the executor.
  for (const auto& [name, t] : feeds) {
    framework::VarDesc* v = block.Var(name);
    v->SetPersistable(true);
    v->SetDataType(t.dtype());
    v->SetShape(t.dims().ToVector());
  }
  for (const auto& [slot, names] : outputs) {
    for (const auto& name : names) {
      if (block.FindVar(name) == nullptr) block.Var(name)->SetPersistable(true);
    }
  }
  for (const auto& [slot, names] : inputs) op->SetInput(slot, names);
  for (const auto& [slot, names] : outputs) op->SetOutput(slot, names);
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::Scope scope;
  for (const auto& [name, t] : feeds) *scope.Var(name)->GetMutable<DenseTensor>() = t;
  framework::Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program, 0, &scope, {});
  exec.Run(prepared.get());
  NamedOpRun result;
  result.kernel = prepared->op(0).kernel();
  for (const auto& name : scope.LocalVarNames()) {
    const framework::Variable* v = scope.FindVar(name);
    if (v->IsType<DenseTensor>()) result.vars[name] = v->Get<DenseTensor>();
  }
  return result;
}

void ExpectNear(const std::vector<double>& actual, const std::vector<double>& expected,
                double rtol, double atol, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    // A NaN is expected where the math has none (sqrt of a negative number): it matches NaN.
    if (std::isnan(expected[i])) {
      ASSERT_TRUE(std::isnan(actual[i])) << what << " at element " << i << ": expected NaN, "
                                         << "received " << actual[i];
      continue;
    }
    const double tol = rtol * std::abs(expected[i]) + atol;
    ASSERT_NEAR(actual[i], expected[i], tol) << what << " at element " << i;
  }
}

void ExpectIndicesHoldValues(const std::vector<double>& x, int64_t n,
                             const DenseTensor& indices_tensor, const std::vector<double>& values,
                             int64_t k, const std::string& what) {
  const std::vector<double> indices = ToDoubles(indices_tensor);  // Whole numbers, exactly.
  const int64_t rows = n == 0 ? 0 : static_cast<int64_t>(x.size()) / n;
  ASSERT_EQ(indices.size(), static_cast<size_t>(rows * k)) << what;
  ASSERT_EQ(values.size(), indices.size()) << what;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<bool> taken(static_cast<size_t>(n), false);
    for (int64_t j = 0; j < k; ++j) {
      const auto i = static_cast<int64_t>(indices[r * k + j]);
      ASSERT_TRUE(i >= 0 && i < n) << what << ": row " << r << " index " << i;
      ASSERT_FALSE(taken[i]) << what << ": row " << r << " takes position " << i << " twice";
      taken[i] = true;
      const double held = x[r * n + i], want = values[r * k + j];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(held)) << what << ": row " << r << " position " << i;
      } else {
        EXPECT_EQ(held, want) << what << ": row " << r << " position " << i;
      }
    }
  }
}

}  // namespace testing
}  // namespace paddle_like

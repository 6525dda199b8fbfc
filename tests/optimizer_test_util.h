// Helpers of the optimizer op tests: one-op programs whose outputs are their input variables
// (ParamOut = Param ...), a kernel run directly on hand-made SelectedRows gradients, the
// dense gradient such a SelectedRows stands for, and tolerances per dtype.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/op_registry.h"
#include "framework/selected_rows.h"
#include "framework/shape_inference_contexts.h"
#include "platform/device_context_pool.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {

using framework::OperatorWithKernel;
using framework::Scope;
using framework::SelectedRows;
using framework::VariableNameMap;

inline DenseTensor Own(const DenseTensor& t) {
  DenseTensor c;
  framework::CopyTensor(t, platform::CPUPlace(), &c);
  return c;
}

template <typename T>
inline DenseTensor Scalar(double v) {
  return MakeTensor<T>({1}, {v});
}

// One op in a program whose variables are all persistable (they live in `scope`), run
// through the executor as often as asked.
class OneOpProgram {
 public:
  OneOpProgram(const std::string& type, const VariableNameMap& inputs,
               const VariableNameMap& outputs, const AttributeMap& attrs) {
    operators::RegisterAllOps();
    framework::BlockDesc& block = program_.Block(0);
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
  }

  // Stores a private copy (the variable then owns its buffer).
  void Set(const std::string& name, const DenseTensor& t) {
    *scope_.Var(name)->GetMutable<DenseTensor>() = Own(t);
  }
  void Run(int steps = 1) {
    if (!prepared_) prepared_ = exec_.Prepare(program_, 0, &scope_, {});
    for (int i = 0; i < steps; ++i) exec_.Run(prepared_.get());
  }
  const DenseTensor& Get(const std::string& name) const {
    return scope_.FindVar(name)->Get<DenseTensor>();
  }
  std::vector<double> Values(const std::string& name) const { return ToDoubles(Get(name)); }

 private:
  framework::ProgramDesc program_;
  Scope scope_;
  framework::Executor exec_{platform::CPUPlace()};
  std::unique_ptr<framework::PreparedProgram> prepared_;
};

// Runs the plain CPU kernel of `type` directly on the variables of `scope`, with run-time
// shape inference first (SelectedRows gradients set up by hand take this path).
inline void RunKernelDirect(const std::string& type, const VariableNameMap& inputs,
                            const VariableNameMap& outputs, const AttributeMap& attrs,
                            Scope* scope) {
  operators::RegisterAllOps();
  auto op = framework::OpRegistry::CreateOp(type, inputs, outputs, attrs);
  const auto* kop = dynamic_cast<const OperatorWithKernel*>(op.get());
  ASSERT_NE(kop, nullptr);
  framework::RuntimeContext rc;
  for (const auto& kv : inputs) {
    for (const auto& n : kv.second) rc.inputs[kv.first].push_back(scope->FindVar(n));
  }
  for (const auto& kv : outputs) {
    for (const auto& n : kv.second) rc.outputs[kv.first].push_back(scope->Var(n));
  }
  const DataType dtype = kop->IndicateDataType(rc);
  const framework::KernelInfo& kernel = framework::KernelRegistry::Instance().Choose(
      type, dtype, framework::DataLayout::kAny, platform::CPUPlace(),
      framework::KernelChoiceOptions{});
  framework::RuntimeInferShapeContext infer(*op, rc);
  kop->InferShape(&infer);
  framework::ExecutionContext ctx(
      *op, rc, *platform::DeviceContextPool::Instance().Get(platform::CPUPlace()), kernel.key);
  kernel.fn(ctx);
}

template <typename T>
inline void SetSparseGrad(Scope* scope, const std::string& name, const std::vector<int64_t>& rows,
                          int64_t height, int64_t width, const std::vector<double>& values) {
  SelectedRows* sr = scope->Var(name)->GetMutable<SelectedRows>();
  *sr->mutable_rows() = rows;
  sr->set_height(height);
  *sr->mutable_value() = MakeTensor<T>({static_cast<int64_t>(rows.size()), width}, values);
}

inline void SetDense(Scope* scope, const std::string& name, const DenseTensor& t) {
  *scope->Var(name)->GetMutable<DenseTensor>() = Own(t);
}

inline std::vector<double> Get(const Scope& scope, const std::string& name) {
  return ToDoubles(scope.FindVar(name)->Get<DenseTensor>());
}

// The dense gradient a SelectedRows stands for (duplicates added) and which rows it lists.
inline std::vector<double> Densify(const std::vector<int64_t>& rows, int64_t height, int64_t width,
                                   const std::vector<double>& values, std::vector<bool>* present) {
  std::vector<double> g(static_cast<size_t>(height * width), 0.0);
  present->assign(g.size(), false);
  for (size_t k = 0; k < rows.size(); ++k) {
    for (int64_t j = 0; j < width; ++j) {
      g[rows[k] * width + j] += values[k * width + j];
      (*present)[rows[k] * width + j] = true;
    }
  }
  return g;
}

template <typename T>
inline double Tol() {
  return std::is_same_v<T, float> ? 2e-5 : 1e-12;
}

}  // namespace testing
}  // namespace paddle_like

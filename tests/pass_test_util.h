// Small programs with parameter values for the inference pass tests: declare variables and
// parameters, append ops, fill a scope, run, list op types.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/program_desc.h"
#include "framework/scope.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {

struct ProgramWithParams {
  framework::ProgramDesc program;
  std::map<std::string, DenseTensor> params;
  unsigned seed = 11;

  // A float32 variable of block 0.
  void Declare(const std::string& name, const std::vector<int64_t>& shape, bool persistable) {
    framework::VarDesc* v = program.Block(0).Var(name);
    v->SetShape(shape);
    v->SetDataType(DataType::FLOAT32);
    v->SetPersistable(persistable);
  }
  // A persistable variable with uniform values in [lo, hi).
  void Param(const std::string& name, const std::vector<int64_t>& shape, double lo = -1,
             double hi = 1) {
    Declare(name, shape, true);
    params[name] = MakeTensor<float>(DDim(shape), RandomValues(DDim(shape).numel(), lo, hi, seed++));
  }
  framework::OpDesc* Op(const std::string& type, const framework::VariableNameMap& in,
                        const framework::VariableNameMap& out, const AttributeMap& attrs = {}) {
    framework::OpDesc* op = program.Block(0).AppendOp();
    *op = framework::OpDesc(type, in, out, attrs);
    return op;
  }
  // Puts every parameter value into `scope`.
  void Fill(framework::Scope* scope) const {
    for (const auto& kv : params) *scope->Var(kv.first)->GetMutable<DenseTensor>() = kv.second;
  }
};

// Runs `p` in `scope` with `x` fed as "x"; the values of `fetch`.
inline std::vector<double> RunProgram(const framework::ProgramDesc& p, framework::Scope* scope,
                                      const DenseTensor& x, const std::string& fetch = "out") {
  framework::Executor exec{platform::CPUPlace()};
  return ToDoubles(exec.Run(p, scope, {{"x", x}}, {fetch}).at(0));
}

inline std::vector<std::string> OpTypes(const framework::ProgramDesc& p) {
  std::vector<std::string> types;
  for (const framework::OpDesc* op : p.Block(0).AllOps()) types.push_back(op->Type());
  return types;
}

}  // namespace testing
}  // namespace paddle_like

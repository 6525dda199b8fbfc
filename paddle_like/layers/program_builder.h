// ProgramBuilder: builds a main program and its startup program in C++, the way
// PaddlePaddle's static-graph Python API does. Layers (layers.h) append ops to the main
// program; parameters get a persistable VarDesc in both programs and an initializer op in
// the startup program. Every appended op goes through build-time var-type and shape
// inference, so VarDescs carry dtypes and shapes (-1 for unknown dims).
//
// Not thread-safe: one builder is used by one thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "framework/program_desc.h"

namespace paddle_like {
namespace layers {

using framework::AttributeMap;
using framework::VariableNameMap;
using platform::DataType;

class ProgramBuilder;

// A handle to a variable of the main program.
class Var {
 public:
  Var() = default;
  Var(ProgramBuilder* builder, std::string name) : builder_(builder), name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  std::vector<int64_t> shape() const;
  DataType dtype() const;
  framework::VarDesc* desc() const;
  bool valid() const { return builder_ != nullptr; }

 private:
  ProgramBuilder* builder_ = nullptr;
  std::string name_;
};

class ProgramBuilder {
 public:
  // `seed` != 0 makes every random initializer and dropout op of the programs seeded
  // deterministically (each op gets its own seed derived from it).
  explicit ProgramBuilder(uint64_t seed = 0);

  framework::ProgramDesc& main_program() { return main_; }
  framework::ProgramDesc& startup_program() { return startup_; }
  const framework::ProgramDesc& main_program() const { return main_; }

  // "fc" -> "fc_0", "fc_1", ... (PaddlePaddle's layer naming).
  std::string UniqueName(const std::string& prefix);
  // The next op seed: 0 when the builder is unseeded.
  int NextSeed();

  // A non-persistable variable of the main program.
  Var CreateVar(const std::string& name, const std::vector<int64_t>& shape, DataType dtype);
  Var Find(const std::string& name);

  // Appends an op to the main (startup) program's block 0 and infers its outputs.
  framework::OpDesc* AppendOp(const std::string& type, const VariableNameMap& inputs,
                              const VariableNameMap& outputs, const AttributeMap& attrs = {});
  framework::OpDesc* AppendStartupOp(const std::string& type, const VariableNameMap& inputs,
                                     const VariableNameMap& outputs,
                                     const AttributeMap& attrs = {});

  // A persistable variable declared in both programs (parameters, optimizer state).
  Var CreatePersistable(const std::string& name, const std::vector<int64_t>& shape,
                        DataType dtype, bool is_parameter);

 private:
  framework::ProgramDesc main_;
  framework::ProgramDesc startup_;
  std::map<std::string, int> name_counters_;
  uint64_t seed_;
  uint64_t seed_state_;
};

}  // namespace layers
}  // namespace paddle_like

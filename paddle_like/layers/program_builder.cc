#include "paddle_like/layers/program_builder.h"

#include "framework/var_type_inference.h"
#include "operators/registry.h"

namespace paddle_like {
namespace layers {

std::vector<int64_t> Var::shape() const { return desc()->GetShape(); }
DataType Var::dtype() const { return desc()->GetDataType(); }
framework::VarDesc* Var::desc() const {
  PL_ENFORCE(builder_ != nullptr, errors::PreconditionNotMet("using an empty Var handle"));
  framework::VarDesc* v = builder_->main_program().Block(0).FindVar(name_);
  PL_ENFORCE(v != nullptr, errors::NotFound("variable `%s` is not in the main program", name_));
  return v;
}

ProgramBuilder::ProgramBuilder(uint64_t seed) : seed_(seed), seed_state_(seed) {
  operators::RegisterAllOps();
}

std::string ProgramBuilder::UniqueName(const std::string& prefix) {
  return prefix + "_" + std::to_string(name_counters_[prefix]++);
}

int ProgramBuilder::NextSeed() {
  if (seed_ == 0) return 0;
  // splitmix64: well-spread, reproducible per-op seeds from one program seed.
  uint64_t z = (seed_state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  const int s = static_cast<int>(z & 0x7fffffff);
  return s == 0 ? 1 : s;
}

Var ProgramBuilder::CreateVar(const std::string& name, const std::vector<int64_t>& shape,
                              DataType dtype) {
  framework::VarDesc* v = main_.Block(0).Var(name);
  v->SetDataType(dtype);
  v->SetShape(shape);
  return Var(this, name);
}

Var ProgramBuilder::Find(const std::string& name) {
  PL_ENFORCE(main_.Block(0).FindVar(name) != nullptr,
             errors::NotFound("variable `%s` is not in the main program", name));
  return Var(this, name);
}

namespace {
framework::OpDesc* Append(framework::BlockDesc* block, const std::string& type,
                          const VariableNameMap& inputs, const VariableNameMap& outputs,
                          const AttributeMap& attrs) {
  framework::OpDesc* op = block->AppendOp();
  op->SetType(type);
  for (const auto& kv : inputs) op->SetInput(kv.first, kv.second);
  for (const auto& kv : outputs) op->SetOutput(kv.first, kv.second);
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  if (!op->HasAttr("op_role")) op->SetAttr("op_role", 0);  // Forward.
  framework::InferVarTypeAndShape(op, block);
  return op;
}
}  // namespace

framework::OpDesc* ProgramBuilder::AppendOp(const std::string& type, const VariableNameMap& inputs,
                                            const VariableNameMap& outputs,
                                            const AttributeMap& attrs) {
  return Append(&main_.Block(0), type, inputs, outputs, attrs);
}

framework::OpDesc* ProgramBuilder::AppendStartupOp(const std::string& type,
                                                   const VariableNameMap& inputs,
                                                   const VariableNameMap& outputs,
                                                   const AttributeMap& attrs) {
  return Append(&startup_.Block(0), type, inputs, outputs, attrs);
}

Var ProgramBuilder::CreatePersistable(const std::string& name, const std::vector<int64_t>& shape,
                                      DataType dtype, bool is_parameter) {
  for (framework::ProgramDesc* p : {&main_, &startup_}) {
    framework::VarDesc* v = p->Block(0).Var(name);
    v->SetDataType(dtype);
    v->SetShape(shape);
    v->SetPersistable(true);
    v->SetIsParameter(is_parameter);
    v->SetStopGradient(!is_parameter);
  }
  return Var(this, name);
}

}  // namespace layers
}  // namespace paddle_like

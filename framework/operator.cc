#include "framework/operator.h"

#include "framework/prepared_op.h"
#include "framework/shape_inference_contexts.h"
#include "platform/denormal.h"

namespace paddle_like {
namespace framework {

namespace {
const std::vector<std::string>& NamesOf(const VariableNameMap& map, const std::string& slot) {
  static const std::vector<std::string> kEmpty;
  auto it = map.find(slot);
  return it == map.end() ? kEmpty : it->second;
}

std::string SingleName(const std::string& type, const char* kind, const VariableNameMap& map,
                       const std::string& slot) {
  const auto& names = NamesOf(map, slot);
  if (names.empty()) return "";
  PL_ENFORCE(names.size() == 1,
             errors::InvalidArgument("op `%s` %s `%s`: expected 1 variable, received %zu", type,
                                     kind, slot, names.size()));
  return names[0];
}

std::string SlotsString(const VariableNameMap& map) {
  std::string s;
  for (const auto& kv : map) {
    s += (s.empty() ? "" : ", ") + kv.first + "=[";
    for (size_t i = 0; i < kv.second.size(); ++i) s += (i ? ", " : "") + kv.second[i];
    s += "]";
  }
  return s;
}
}  // namespace

OperatorBase::OperatorBase(const std::string& type, const VariableNameMap& inputs,
                           const VariableNameMap& outputs, const AttributeMap& attrs)
    : type_(type),
      inputs_(inputs),
      outputs_(outputs),
      attrs_(attrs),
      info_(&OpInfoMap::Instance().Get(type)) {
  attr_index_.reserve(attrs_.size());
  for (const auto& kv : attrs_) {
    attr_index_.push_back({HashName(kv.first.data(), kv.first.size()), &kv.first, &kv.second});
  }
}

void OperatorBase::ThrowNoAttr(NameRef name) const {
  throw errors::NotFound("op `%s` has no attribute `%s`", type_, name.c_str());
}

void OperatorBase::ThrowAttrType(NameRef name, AttrType expected, AttrType found) const {
  throw errors::InvalidArgument("op `%s` attribute `%s`: expected type %s, received %s", type_,
                                name.c_str(), AttrTypeName(expected), AttrTypeName(found));
}

std::string OperatorBase::Input(const std::string& slot) const {
  return SingleName(type_, "input", inputs_, slot);
}
std::string OperatorBase::Output(const std::string& slot) const {
  return SingleName(type_, "output", outputs_, slot);
}
const std::vector<std::string>& OperatorBase::InputNames(const std::string& slot) const {
  return NamesOf(inputs_, slot);
}
const std::vector<std::string>& OperatorBase::OutputNames(const std::string& slot) const {
  return NamesOf(outputs_, slot);
}
bool OperatorBase::HasInput(const std::string& slot) const { return !InputNames(slot).empty(); }
bool OperatorBase::HasOutput(const std::string& slot) const { return !OutputNames(slot).empty(); }

bool OperatorBase::NeedsBuffer(const std::string& input_slot) const {
  return info_ == nullptr || !info_->spec.ReadsOnlyMetadata(input_slot);
}

void OperatorBase::Run(const Scope& scope, const Place& place) const { RunImpl(scope, place); }

std::string OperatorBase::DebugString() const {
  return type_ + "(" + SlotsString(inputs_) + ") -> (" + SlotsString(outputs_) + ")";
}

// ---- ExecutionContext ----

bool ExecutionContext::HasInput(NameRef slot) const { return InputSize(slot) > 0; }
bool ExecutionContext::HasOutput(NameRef slot) const { return OutputSize(slot) > 0; }

size_t ExecutionContext::InputSize(NameRef slot) const {
  const auto it = ctx_.inputs.find(slot);
  return it == ctx_.inputs.end() ? 0 : it->second.size();
}

size_t ExecutionContext::OutputSize(NameRef slot) const {
  const auto it = ctx_.outputs.find(slot);
  return it == ctx_.outputs.end() ? 0 : it->second.size();
}

std::string ExecutionContext::InputName(NameRef slot, size_t i) const {
  const auto& names = op_.InputNames(slot.str());
  return i < names.size() ? names[i] : "";
}

std::string ExecutionContext::OutputName(NameRef slot, size_t i) const {
  const auto& names = op_.OutputNames(slot.str());
  return i < names.size() ? names[i] : "";
}

bool ExecutionContext::InputIsParameter(NameRef slot, size_t i) const {
  const Variable* v = InputVar(slot, i);
  return v != nullptr && ctx_.parameters.count(v) > 0;
}

void ExecutionContext::NotePrepack(NameRef slot, size_t i, size_t bytes,
                                   const std::string& how) const {
  CountPrepack();
  if (prepacks_ == nullptr) return;
  TransformRecord r;
  r.slot = slot.str();
  r.variable = InputName(slot, i);
  r.kind = "prepack: " + how;
  r.bytes = bytes;
  prepacks_->push_back(std::move(r));
}

bool ExecutionContext::OutputMayBeOpaque(NameRef slot, size_t i) const {
  if (ctx_.opaque_outputs.empty()) return false;
  const Variable* v = OutputVar(slot, i);
  return v != nullptr && ctx_.opaque_outputs.count(v) > 0;
}

void ExecutionContext::WithPlainInputs(
    const std::function<void(const ExecutionContext&)>& fn) const {
  const auto is_opaque = [](const Variable* v) {
    return v->IsType<DenseTensor>() && !v->Get<DenseTensor>().is_plain();
  };
  // Slots read for their metadata only (no_need_buffer) are passed as they are.
  bool any_opaque = false;
  for (const auto& kv : ctx_.inputs) {
    if (!op_.NeedsBuffer(kv.first)) continue;
    for (const Variable* v : kv.second) any_opaque = any_opaque || is_opaque(v);
  }
  if (!any_opaque) {  // The common case: no copy of the context.
    fn(*this);
    return;
  }
  RuntimeContext plain = ctx_;
  std::vector<std::unique_ptr<Variable>> copies;
  for (auto& kv : plain.inputs) {
    if (!op_.NeedsBuffer(kv.first)) continue;
    for (Variable*& v : kv.second) {
      if (!is_opaque(v)) continue;
      copies.push_back(std::make_unique<Variable>());
      *copies.back()->GetMutable<DenseTensor>() = PlainTensor(v->Get<DenseTensor>());
      v = copies.back().get();
    }
  }
  plain.opaque_outputs.clear();
  fn(ExecutionContext(op_, plain, device_context_, key_, prepacks_));
}

const DenseTensor* ExecutionContext::CheckedInput(const Variable& var, NameRef slot,
                                                  size_t i) const {
  // A kernel that is not sparse-aware reading a SelectedRows: say so, not "no data".
  PL_ENFORCE(!var.IsInitialized() || var.IsType<DenseTensor>(),
             errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected a dense tensor, "
                                     "found %s",
                                     Type(), slot.c_str(), InputName(slot, i), HeldTypeName(var)));
  // A no-need-buffer input may have had its buffer freed: its dims, dtype and LoD remain.
  PL_ENFORCE(var.IsType<DenseTensor>() &&
                 (var.Get<DenseTensor>().initialized() || !op_.NeedsBuffer(slot.str())),
             errors::PreconditionNotMet("op `%s` input `%s`: variable `%s` holds no data", Type(),
                                        slot.c_str(), InputName(slot, i)));
  return &var.Get<DenseTensor>();
}

void ExecutionContext::ThrowNotDenseOutput(const Variable& var, NameRef slot, size_t i) const {
  throw errors::InvalidArgument(
      "op `%s` output `%s` (variable `%s`): expected a dense tensor, found %s", Type(),
      slot.c_str(), OutputName(slot, i), HeldTypeName(var));
}

std::vector<const DenseTensor*> ExecutionContext::MultiInput(NameRef slot) const {
  std::vector<const DenseTensor*> out;
  for (size_t i = 0; i < InputSize(slot); ++i) out.push_back(Input(slot, i));
  return out;
}

std::vector<DenseTensor*> ExecutionContext::MultiOutput(NameRef slot) const {
  std::vector<DenseTensor*> out;
  for (size_t i = 0; i < OutputSize(slot); ++i) out.push_back(Output(slot, i));
  return out;
}

// ---- OperatorWithKernel ----

DataType OperatorWithKernel::IndicateDataType(const RuntimeContext& ctx) const {
  DataType first = DataType::UNDEFINED, floating = DataType::UNDEFINED;
  for (const auto& kv : ctx.inputs) {
    for (const Variable* v : kv.second) {
      const DenseTensor* tensor = TensorOf(*v);
      if (tensor == nullptr || (!tensor->initialized() && NeedsBuffer(kv.first))) continue;
      const DataType t = tensor->dtype();
      // An op with a complex input computes in complex values (abs_grad of a complex X with
      // its real Out@GRAD).
      if (platform::IsComplex(t)) return t;
      if (floating == DataType::UNDEFINED && platform::IsFloatingPoint(t)) floating = t;
      if (first == DataType::UNDEFINED) first = t;
    }
  }
  if (floating != DataType::UNDEFINED) return floating;
  PL_ENFORCE(first != DataType::UNDEFINED,
             errors::PreconditionNotMet(
                 "op `%s`: cannot choose a kernel data type, no input holds data (inputs: %s)",
                 Type(), DebugString()));
  return first;
}

DataType OperatorWithKernel::InputDataType(const RuntimeContext& ctx,
                                           const std::string& slot) const {
  auto it = ctx.inputs.find(slot);
  PL_ENFORCE(it != ctx.inputs.end() && !it->second.empty(),
             errors::NotFound("op `%s` input `%s`: required but not given", Type(), slot));
  const DenseTensor* t = TensorOf(*it->second[0]);
  PL_ENFORCE(t != nullptr && (t->initialized() || !NeedsBuffer(slot)),
             errors::PreconditionNotMet("op `%s` input `%s`: variable `%s` holds no data", Type(),
                                        slot, InputNames(slot)[0]));
  return t->dtype();
}

bool OperatorWithKernel::CastsInput(const std::string&, DataType from, DataType to) const {
  return platform::IsFloatingPoint(from) && platform::IsFloatingPoint(to);
}

void OperatorWithKernel::InferShape(InferShapeContext* ctx) const {
  if (Info().infer_shape) Info().infer_shape(ctx);
}

void OperatorWithKernel::RunImpl(const Scope& scope, const Place& place) const {
  const platform::ScopedFlushDenormal flush;
  PreparedOp prepared(*this, const_cast<Scope*>(&scope), place);
  prepared.Run();
}

}  // namespace framework
}  // namespace paddle_like

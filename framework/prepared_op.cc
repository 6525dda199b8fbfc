#include "framework/prepared_op.h"

#include <algorithm>
#include <cmath>

#include "framework/data_transform.h"
#include "framework/shape_inference_contexts.h"
#include "platform/device_context_pool.h"
#include "platform/flags.h"

namespace paddle_like {
namespace framework {

namespace {

bool TakesTensorArray(const OperatorBase& op, const Scope& scope) {
  for (const auto& kv : op.Inputs()) {
    for (const auto& name : kv.second) {
      const Variable* v = scope.FindVar(name);
      if (v != nullptr && v->IsType<DenseTensorArray>()) return true;
    }
  }
  return false;
}

}  // namespace

PreparedOp::PreparedOp(const OperatorBase& op, Scope* scope, const Place& place,
                       const OpPlacement& placement,
                       const std::set<std::string>& opaque_outputs)
    : op_(op),
      kernel_op_(op.HasKernels() ? dynamic_cast<const OperatorWithKernel*>(&op) : nullptr),
      scope_(scope),
      place_(place),
      placement_(placement) {
  // Kernels take tensors: an op given a tensor array (assign copying a loop's array) runs
  // through its own RunImpl, which handles it or names what it cannot take.
  if (kernel_op_ != nullptr && TakesTensorArray(op, *scope)) kernel_op_ = nullptr;
  if (kernel_op_ == nullptr) return;  // Ops without kernels look up their own variables.
  for (const auto& kv : op.Inputs()) {
    auto& vars = ctx_.inputs[kv.first];
    for (const auto& name : kv.second) {
      Variable* v = scope->FindVar(name);
      PL_ENFORCE(v != nullptr, errors::NotFound("op `%s` input `%s`: variable `%s` not found in scope",
                                                op.Type(), kv.first, name));
      vars.push_back(v);
      if (scope->FindLocalVar(name) == nullptr) ctx_.parameters.insert(v);
    }
  }
  for (const auto& kv : op.Outputs()) {
    auto& vars = ctx_.outputs[kv.first];
    for (const auto& name : kv.second) {
      Variable* v = scope->FindVar(name);
      vars.push_back(v != nullptr ? v : scope->Var(name));
      if (opaque_outputs.count(name)) ctx_.opaque_outputs.insert(vars.back());
    }
  }
  kernel_ctx_ = ctx_;
}

PreparedOp::~PreparedOp() = default;

bool PreparedOp::IsOutput(const Variable* v) const {
  for (const auto& kv : ctx_.outputs) {
    for (const Variable* out : kv.second) {
      if (out == v) return true;
    }
  }
  return false;
}

bool PreparedOp::GuardHolds() const {
  for (const auto& s : signature_) {
    const DenseTensor* t = TensorOf(*s.var);
    if (t == nullptr || t->dtype() != s.dtype || (t->initialized() && t->place() != s.place) ||
        t->is_plain() == s.opaque) {
      return false;
    }
  }
  return true;
}

bool PreparedOp::SteadyState() const {
  if (!shape_inferred_ || !transforms_.empty()) return false;
  for (const auto& s : signature_) {
    const DenseTensor* t = s.var->GetIf<DenseTensor>();
    if (!s.dense || t == nullptr || t->dtype() != s.dtype ||
        (t->initialized() && t->place() != s.place) || t->is_plain() == s.opaque ||
        t->dims() != s.dims) {
      return false;
    }
  }
  return true;
}

void PreparedOp::RecordInputDims() {
  for (auto& s : signature_) {
    s.dense = s.var->IsType<DenseTensor>();
    if (s.dense) s.dims = s.var->Get<DenseTensor>().dims();
  }
}

void PreparedOp::ChooseKernel() {
  // Every input must hold data before a kernel can be chosen.
  for (const auto& kv : ctx_.inputs) {
    for (size_t i = 0; i < kv.second.size(); ++i) {
      const Variable* v = kv.second[i];
      const DenseTensor* t = TensorOf(*v);
      PL_ENFORCE(t != nullptr && (t->initialized() || !op_.NeedsBuffer(kv.first)),
                 errors::PreconditionNotMet(
                     "op `%s` input `%s`: variable `%s` holds no data (was it fed or loaded?)",
                     op_.Type(), kv.first, op_.InputNames(kv.first)[i]));
    }
  }
  const DataType dtype = kernel_op_->IndicateDataType(ctx_);
  const DataLayout layout = kernel_op_->IndicateLayout(ctx_);
  const KernelInfo* chosen = &KernelRegistry::Instance().Choose(
      op_.Type(), dtype, layout, place_, KernelChoiceOptions::ForOp(place_, placement_));
  // The same kernel again (an input changed layout, say): its prepared state stays.
  if (chosen != kernel_) {
    kernel_ = chosen;
    kernel_object_ = kernel_->make != nullptr ? kernel_->make() : nullptr;
    kernel_prepared_ = false;
  }
  const Place kernel_place =
      kernel_->key.device == DeviceType::kCPU ? Place(platform::CPUPlace()) : place_;
  device_context_ = platform::DeviceContextPool::Instance().Get(kernel_place);
  ++kernel_choices_;

  signature_.clear();
  transforms_.clear();
  shape_inferred_ = false;  // The kernel's inputs are other variables now.
  kernel_ctx_ = ctx_;
  for (const auto& kv : ctx_.inputs) {
    for (size_t i = 0; i < kv.second.size(); ++i) {
      const Variable* v = kv.second[i];
      const DenseTensor& t = *TensorOf(*v);
      signature_.push_back({v, t.dtype(), t.place(), !t.is_plain()});
      if (!v->IsType<DenseTensor>()) continue;  // SelectedRows are handed over as they are.
      if (!op_.NeedsBuffer(kv.first)) continue;  // Metadata only: nothing to convert.
      const bool cast = t.dtype() != kernel_->key.dtype &&
                        kernel_op_->CastsInput(kv.first, t.dtype(), kernel_->key.dtype);
      const bool move = t.place() != kernel_place;
      // Shape inference resizes the outputs, which drops an output's layout: a variable the
      // op also writes reaches it row-major.
      const bool reorder =
          !t.is_plain() && (cast || move || !kernel_->AcceptsOpaque(kv.first) || IsOutput(v));
      if (!cast && !move && !reorder) continue;
      Transform tr{kv.first, i, v, std::make_unique<Variable>(),
                   cast ? kernel_->key.dtype : t.dtype(),
                   reorder ? t.opaque_layout()->ToString() : std::string()};
      kernel_ctx_.inputs[kv.first][i] = tr.target.get();
      transforms_.push_back(std::move(tr));
    }
  }
  kernel_inputs_.clear();
  for (const auto& kv : kernel_ctx_.inputs) {
    kernel_inputs_.insert(kernel_inputs_.end(), kv.second.begin(), kv.second.end());
  }
  MatchInPlaceCandidates();
}

void PreparedOp::ApplyTransforms() {
  const Place kernel_place = device_context_->GetPlace();
  for (auto& tr : transforms_) {
    TransformTensor(tr.source->Get<DenseTensor>(), tr.dtype, kernel_place,
                    tr.target->GetMutable<DenseTensor>());
  }
}

void PreparedOp::InferShape() {
  bool same = shape_inferred_;
  size_t n = 0;
  for (const Variable* v : kernel_inputs_) {
    // A dense input (the usual case) is compared where it is, without copying its dims.
    const DenseTensor* dense = v->GetIf<DenseTensor>();
    if (n < inferred_from_.size() && dense != nullptr) {
      const InputShape& last = inferred_from_[n];
      if (last.type == v->Type() && last.dtype == dense->dtype() && last.dims == dense->dims()) {
        ++n;
        continue;
      }
    }
    InputShape now{v->Type(), DDim(), DataType::UNDEFINED};
    if (dense != nullptr) {
      now.dims = dense->dims();
      now.dtype = dense->dtype();
    } else if (v->IsType<SelectedRows>()) {
      const SelectedRows& rows = v->Get<SelectedRows>();
      now.dims = rows.dense_dims();
      now.dtype = rows.value().dtype();
    }
    if (n == inferred_from_.size()) {
      inferred_from_.push_back(now);
      same = false;
    } else if (!(inferred_from_[n] == now)) {
      inferred_from_[n] = now;
      same = false;
    }
    ++n;
  }
  inferred_from_.resize(n);
  if (same) {
    inferred_.Replay(op_);
    return;
  }
  shape_inferred_ = false;  // Stays false if inference throws.
  inferred_.effects.clear();
  RuntimeInferShapeContext infer_ctx(op_, kernel_ctx_, &inferred_);
  kernel_op_->InferShape(&infer_ctx);
  shape_inferred_ = true;
}

void PreparedOp::PrepareKernelObject(const ExecutionContext& ctx) {
  size_t n = 0;
  bool same = kernel_prepared_;
  for (const Variable* v : kernel_inputs_) {
    static const DDim kNoDims;
    const DenseTensor* t = TensorOf(*v);
    const DDim& dims = t != nullptr ? t->dims() : kNoDims;
    if (n == prepared_dims_.size()) {
      same = false;
      prepared_dims_.push_back(dims);
    } else if (prepared_dims_[n] != dims) {
      same = false;
      prepared_dims_[n] = dims;
    }
    ++n;
  }
  prepared_dims_.resize(n);
  if (same) return;
  kernel_prepared_ = false;  // Stays false if Prepare throws.
  kernel_object_->Prepare(ctx);
  kernel_prepared_ = true;
}

std::vector<TransformRecord> PreparedOp::TransformRecords() const {
  std::vector<TransformRecord> records;
  for (const auto& tr : transforms_) {
    const DenseTensor& from = tr.source->Get<DenseTensor>();
    const DenseTensor* to = TensorOf(*tr.target);
    TransformRecord r;
    r.slot = tr.slot;
    r.variable = op_.InputNames(tr.slot)[tr.index];
    if (!tr.reorder_from.empty()) r.kind = "reorder " + tr.reorder_from + "->row-major";
    if (from.dtype() != tr.dtype) {
      r.kind += (r.kind.empty() ? "cast " : ", cast ") + platform::DataTypeName(from.dtype()) +
                "->" + platform::DataTypeName(tr.dtype);
    }
    if (to != nullptr && to->initialized() && to->place() != from.place()) {
      r.kind += (r.kind.empty() ? "copy " : ", copy ") + from.place().ToString() + "->" +
                to->place().ToString();
    }
    if (to != nullptr && to->initialized()) r.bytes = to->data_bytes();
    records.push_back(std::move(r));
  }
  records.insert(records.end(), prepacks_.begin(), prepacks_.end());
  return records;
}

std::vector<std::string> PreparedOp::OpaqueOutputs() const {
  std::vector<std::string> layouts;
  for (const auto& kv : kernel_ctx_.outputs) {
    for (size_t i = 0; i < kv.second.size(); ++i) {
      const Variable* v = kv.second[i];
      if (!v->IsType<DenseTensor>() || v->Get<DenseTensor>().is_plain()) continue;
      layouts.push_back(op_.OutputNames(kv.first)[i] + ": " +
                        v->Get<DenseTensor>().opaque_layout()->ToString());
    }
  }
  return layouts;
}

void PreparedOp::EnsurePlainOutputs() {
  for (const auto& kv : kernel_ctx_.outputs) {
    for (Variable* v : kv.second) {
      if (!v->IsType<DenseTensor>() || v->Get<DenseTensor>().is_plain()) continue;
      if (kernel_ctx_.opaque_outputs.count(v)) continue;
      DenseTensor* t = v->GetMutable<DenseTensor>();
      *t = PlainTensor(*t);
    }
  }
}

void PreparedOp::CheckNanInf() const {
  for (const auto& kv : kernel_ctx_.outputs) {
    for (size_t i = 0; i < kv.second.size(); ++i) {
      const Variable* v = kv.second[i];
      if (!v->IsType<DenseTensor>()) continue;
      const DenseTensor& t = v->Get<DenseTensor>();
      if (!t.initialized() || !t.place().is_cpu() || !platform::IsFloatingPoint(t.dtype())) continue;
      DenseTensor as_double;
      CastTensor(t, DataType::FLOAT64, &as_double);
      const double* p = as_double.data<double>();
      for (int64_t k = 0; k < as_double.numel(); ++k) {
        PL_ENFORCE(std::isfinite(p[k]),
                   errors::PreconditionNotMet(
                       "op `%s` output `%s`: variable `%s` holds %s at element %lld (FLAGS_check_nan_inf)",
                       op_.Type(), kv.first, op_.OutputNames(kv.first)[i],
                       std::isnan(p[k]) ? "NaN" : "Inf", static_cast<long long>(k)));
      }
    }
  }
}

std::vector<std::string> PreparedOp::InPlaceRecords() const {
  std::vector<std::string> records;
  for (size_t k : in_place_used_) {
    const InPlaceCandidate& c = in_place_candidates_[k];
    records.push_back(op_.Inputs().at(c.in_slot).at(c.in_index) + " -> " +
                      op_.Outputs().at(c.out_slot).at(c.out_index));
  }
  return records;
}

void PreparedOp::SetInPlaceCandidates(std::vector<InPlaceCandidate> candidates) {
  in_place_candidates_ = std::move(candidates);
  MatchInPlaceCandidates();
}

void PreparedOp::MatchInPlaceCandidates() {
  kernel_in_place_.clear();
  if (kernel_ == nullptr) return;
  for (size_t k = 0; k < in_place_candidates_.size(); ++k) {
    const InPlaceCandidate& c = in_place_candidates_[k];
    if (std::find(kernel_->inplace.begin(), kernel_->inplace.end(),
                  std::make_pair(c.in_slot, c.out_slot)) == kernel_->inplace.end()) {
      continue;
    }
    // The kernel must read the variable itself, not a transformed copy.
    Variable* in = ctx_.inputs.at(c.in_slot).at(c.in_index);
    if (kernel_ctx_.inputs.at(c.in_slot).at(c.in_index) != in) continue;
    kernel_in_place_.push_back({k, in, ctx_.outputs.at(c.out_slot).at(c.out_index)});
  }
}

void PreparedOp::GrantInPlace() {
  in_place_used_.clear();
  granted_.clear();
  for (const InPlacePair& pair : kernel_in_place_) {
    Variable* out = pair.out;
    const DenseTensor* in = pair.in->GetIf<DenseTensor>();
    if (in == nullptr || (out->IsInitialized() && !out->IsType<DenseTensor>())) continue;
    const DenseTensor& x = *in;
    // Nobody else may hold the buffer (a caller's fed tensor, a fetched copy), and the
    // output must need exactly the input's bytes in the kernel's type. An input in a
    // library's layout qualifies when that layout has no padding; the kernel (which accepts
    // that layout) writes over it in the same arrangement or stages its output.
    if (!x.initialized() || x.holder().use_count() != 1 || x.dtype() != kernel_->key.dtype ||
        !(x.place() == place_)) {
      continue;
    }
    DenseTensor* y = out->GetMutable<DenseTensor>();
    // The usual case, a row-major input of the output's dims, needs no byte counts.
    if (!(x.is_plain() && y->dims() == x.dims())) {
      const int64_t numel = y->dims().numel();
      if (numel < 0 ||
          static_cast<size_t>(numel) * platform::SizeOf(x.dtype()) != x.data_bytes()) {
        continue;
      }
    }
    if (std::find(granted_.begin(), granted_.end(), y) != granted_.end()) continue;
    y->ShareBufferInPlace(x);  // Keeps the inferred dims and LoD.
    granted_.push_back(y);
    in_place_used_.push_back(pair.candidate);
  }
}

void PreparedOp::Run() {
  if (kernel_op_ == nullptr) {
    op_.Run(*scope_, place_);
    return;
  }
  const bool steady = kernel_ != nullptr && SteadyState();
  if (steady) {
    inferred_.Replay(op_);
  } else {
    if (kernel_ == nullptr || !GuardHolds()) ChooseKernel();
    if (!transforms_.empty()) ApplyTransforms();
    InferShape();
    RecordInputDims();
  }
  // In-place grants last for this kernel call only, also when it throws.
  GrantInPlace();
  struct Withdraw {
    std::vector<DenseTensor*>& granted;
    ~Withdraw() {
      for (DenseTensor* t : granted) t->EndInPlace();
      granted.clear();
    }
  } withdraw{granted_};
  if (kernel_object_ == nullptr) {
    ExecutionContext exec_ctx(op_, kernel_ctx_, *device_context_, kernel_->key);
    kernel_->fn(exec_ctx);
  } else {
    prepacks_.clear();
    ExecutionContext exec_ctx(op_, kernel_ctx_, *device_context_, kernel_->key, &prepacks_);
    // Steady inputs have the dims of the last run, which prepared the kernel already.
    if (!steady || !kernel_prepared_) PrepareKernelObject(exec_ctx);
    kernel_object_->Compute(exec_ctx);
  }
  if (kernel_->key.backend != LibraryType::kPlain) EnsurePlainOutputs();
  if (FLAGS_check_nan_inf) CheckNanInf();
}

}  // namespace framework
}  // namespace paddle_like

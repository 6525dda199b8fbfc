#include "operators/optimizers/optimizer_util.h"

#include <algorithm>

#include "framework/data_transform.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

DataType OptimizerOp::IndicateDataType(const framework::RuntimeContext& ctx) const {
  return InputDataType(ctx, "Param");
}

bool OptimizerOp::CastsInput(const std::string& slot, DataType from, DataType to) const {
  return slot == "Grad" && platform::IsFloatingPoint(from) && platform::IsFloatingPoint(to);
}

void WriteScalarOutput(const ExecutionContext& ctx, const std::string& slot, DataType dtype,
                       const DDim& dims, double value, size_t i) {
  DenseTensor* out = ctx.Output(slot, i);
  PL_ENFORCE(out != nullptr,
             errors::NotFound("op `%s` output `%s`: required but not given", ctx.Type(), slot));
  out->Resize(dims);
  if (dtype == DataType::FLOAT64) {
    *out->mutable_data<double>(platform::CPUPlace()) = value;
  } else {
    *out->mutable_data<float>(platform::CPUPlace()) = static_cast<float>(value);
  }
}

void CheckStateInput(const ExecutionContext& ctx, const std::string& slot, DataType dtype,
                     const DDim& dims, size_t i) {
  const DenseTensor* t = ctx.Input(slot, i);
  PL_ENFORCE(t != nullptr,
             errors::NotFound("op `%s` input `%s`: required but not given", ctx.Type(), slot));
  PL_ENFORCE(
      t->dtype() == dtype,
      errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected %s, received %s",
                              ctx.Type(), slot, ctx.InputName(slot, i),
                              platform::DataTypeName(dtype), platform::DataTypeName(t->dtype())));
  PL_ENFORCE(t->dims() == dims,
             errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected Param's shape "
                                     "%s, received %s",
                                     ctx.Type(), slot, ctx.InputName(slot, i), dims.ToString(),
                                     t->dims().ToString()));
}

namespace {

void CheckSparseGrad(const ExecutionContext& ctx, const SelectedRows& g, const DDim& param_dims,
                     DataType dtype) {
  const std::string var = ctx.InputName("Grad");
  const char* op = ctx.Type().c_str();
  PL_ENFORCE(g.value().initialized(),
             errors::PreconditionNotMet("op `%s` input `Grad` (variable `%s`): SelectedRows holds "
                                        "no value tensor",
                                        op, var));
  PL_ENFORCE(g.value().dtype() == dtype,
             errors::InvalidArgument("op `%s` input `Grad` (variable `%s`): expected %s values, "
                                     "received %s",
                                     op, var, platform::DataTypeName(dtype),
                                     platform::DataTypeName(g.value().dtype())));
  PL_ENFORCE(param_dims.size() >= 1 && g.height() == param_dims[0],
             errors::InvalidArgument("op `%s` input `Grad` (variable `%s`): expected SelectedRows "
                                     "of height %lld (Param's shape %s), received height %lld",
                                     op, var,
                                     static_cast<long long>(param_dims.size() ? param_dims[0] : 0),
                                     param_dims.ToString(), static_cast<long long>(g.height())));
  const DDim& v = g.value().dims();
  bool ok = v.size() == param_dims.size() && v[0] == static_cast<int64_t>(g.rows().size());
  for (int i = 1; ok && i < v.size(); ++i) ok = v[i] == param_dims[i];
  PL_ENFORCE(ok, errors::InvalidArgument(
                     "op `%s` input `Grad` (variable `%s`): expected value shape [%zu, ...Param's "
                     "shape %s without its first dim], received %s",
                     op, var, g.rows().size(), param_dims.ToString(), v.ToString()));
  for (int64_t r : g.rows()) {
    PL_ENFORCE(
        r >= 0 && r < g.height(),
        errors::OutOfRange("op `%s` input `Grad` (variable `%s`): row %lld is outside "
                           "[0, %lld)",
                           op, var, static_cast<long long>(r), static_cast<long long>(g.height())));
  }
}

}  // namespace

GradInput GetGrad(const ExecutionContext& ctx, const DDim& param_dims, DataType dtype) {
  const framework::Variable* var = ctx.InputVar("Grad");
  PL_ENFORCE(var != nullptr,
             errors::NotFound("op `%s` input `Grad`: required but not given", ctx.Type()));
  GradInput g;
  if (var->IsType<SelectedRows>()) {
    g.sparse = &var->Get<SelectedRows>();
    CheckSparseGrad(ctx, *g.sparse, param_dims, dtype);
    return g;
  }
  g.dense = ctx.Input("Grad");
  PL_ENFORCE(
      g.dense->dtype() == dtype,
      errors::InvalidArgument("op `%s` input `Grad` (variable `%s`): expected %s, received %s",
                              ctx.Type(), ctx.InputName("Grad"), platform::DataTypeName(dtype),
                              platform::DataTypeName(g.dense->dtype())));
  PL_ENFORCE(g.dense->dims() == param_dims,
             errors::InvalidArgument("op `%s` input `Grad` (variable `%s`): expected Param's shape "
                                     "%s, received %s",
                                     ctx.Type(), ctx.InputName("Grad"), param_dims.ToString(),
                                     g.dense->dims().ToString()));
  return g;
}

std::vector<int64_t> RowPositions(const std::vector<int64_t>& rows, int64_t height) {
  std::vector<int64_t> pos(static_cast<size_t>(height), -1);
  for (size_t i = 0; i < rows.size(); ++i) {
    pos[static_cast<size_t>(rows[i])] = static_cast<int64_t>(i);
  }
  return pos;
}

void SetOutputTypesLike(framework::VarTypeInferenceContext* ctx,
                        const std::vector<std::pair<std::string, std::string>>& pairs) {
  for (const auto& p : pairs) {
    if (!ctx->HasOutput(p.first) || !ctx->HasInput(p.second)) continue;
    ctx->SetOutputKind(p.first, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(p.first, ctx->GetInputDataType(p.second));
  }
}

void SetOutputDimsLike(InferShapeContext* ctx,
                       const std::vector<std::pair<std::string, std::string>>& pairs) {
  for (const auto& p : pairs) {
    const size_t n = std::min(ctx->OutputSize(p.first), ctx->InputSize(p.second));
    for (size_t i = 0; i < n; ++i) ctx->SetOutputDim(p.first, ctx->GetInputDim(p.second, i), i);
  }
}

// BetaPowOut = BetaPow * beta, computed in BetaPow's own dtype.
void UpdateBetaPow(const ExecutionContext& ctx, const char* in, const char* out, double beta,
                   bool multiply) {
  const DenseTensor* pow = ctx.Input(in);
  const double value = ReadScalarInput(ctx, in);
  const DataType dtype = pow->dtype();
  PL_ENFORCE(
      dtype == DataType::FLOAT32 || dtype == DataType::FLOAT64,
      errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected float32 or "
                              "float64, received %s",
                              ctx.Type(), in, ctx.InputName(in), platform::DataTypeName(dtype)));
  const DDim dims = pow->dims();
  double result = value;
  if (multiply) {
    result = dtype == DataType::FLOAT32
                 ? static_cast<double>(static_cast<float>(value) * static_cast<float>(beta))
                 : value * beta;
  }
  WriteScalarOutput(ctx, out, dtype, dims, result);
}

void CheckOneElementInputs(InferShapeContext* ctx, std::initializer_list<const char*> slots) {
  for (const char* slot : slots) {
    const DDim d = ctx->GetInputDim(slot);
    PL_ENFORCE(d.numel() == -1 || d.numel() == 1,
               errors::InvalidArgument("op `%s` input `%s`: expected 1 element, received shape %s",
                                       ctx->OpType(), slot, d.ToString()));
  }
}

void InferOptimizerShape(InferShapeContext* ctx, std::initializer_list<const char*> inputs,
                         std::initializer_list<const char*> outputs,
                         std::initializer_list<const char*> scalars,
                         const std::vector<std::pair<std::string, std::string>>& state) {
  for (const char* slot : inputs) ctx->RequireInput(slot);
  for (const char* slot : outputs) ctx->RequireOutput(slot);
  CheckOneElementInputs(ctx, scalars);
  SetOutputDimsLike(ctx, state);
}

}  // namespace operators
}  // namespace paddle_like

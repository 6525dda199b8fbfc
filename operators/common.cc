#include "operators/common.h"

#include "framework/data_transform.h"
#include "framework/var_type_inference.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

void SameShapeInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
  ctx->ShareLoD("X", "Out");
}

void UnaryGradInferShape(InferShapeContext* ctx, const std::string& like) {
  ctx->RequireInput(like);
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("X@GRAD");
  const DDim dep = ctx->GetInputDim(like);
  const DDim dout = ctx->GetInputDim("Out@GRAD");
  PL_ENFORCE(dep.HasUnknown() || dout.HasUnknown() || dep == dout,
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of `%s` %s, "
                                     "received %s",
                                     ctx->OpType(), like, dep.ToString(), dout.ToString()));
  ctx->SetOutputDim("X@GRAD", dep);
  ctx->ShareLoD(like, "X@GRAD");
}

void InputListGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("X@GRAD");
  const std::vector<DDim> xs = ctx->GetInputsDim("X");
  PL_ENFORCE(ctx->OutputSize("X@GRAD") == xs.size(),
             errors::InvalidArgument("op `%s` output `X@GRAD`: expected %zu variables (one per "
                                     "X), received %zu",
                                     ctx->OpType(), xs.size(), ctx->OutputSize("X@GRAD")));
  for (size_t i = 0; i < xs.size(); ++i) ctx->SetOutputDim("X@GRAD", xs[i], i);
}

void DeclarePlainInPlace(const std::string& op_type,
                         const std::vector<std::pair<std::string, std::string>>& pairs) {
  framework::KernelRegistry::Instance().DeclareInPlace(op_type, LibraryType::kPlain, pairs);
}

framework::InferVarTypeFn OutputDataTypeOf(const std::string& in, const std::string& out) {
  return [in, out](framework::VarTypeInferenceContext* ctx) {
    ctx->SetOutputKind(out, framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType(out, ctx->GetInputDataType(in));
  };
}

void ShareInputsWithOutputs(const framework::OperatorBase& op, const framework::Scope& scope,
                            const std::string& in, const std::string& out) {
  const std::vector<std::string>& ins = op.InputNames(in);
  const std::vector<std::string>& outs = op.OutputNames(out);
  PL_ENFORCE(ins.size() == outs.size(),
             errors::InvalidArgument("op `%s`: %zu inputs `%s` but %zu outputs `%s`", op.Type(),
                                     ins.size(), in, outs.size(), out));
  for (size_t i = 0; i < ins.size(); ++i) {
    if (ins[i] == outs[i]) continue;
    const framework::Variable* x = scope.FindVar(ins[i]);
    PL_ENFORCE(x != nullptr, errors::NotFound("op `%s` input `%s`: variable `%s` not found",
                                              op.Type(), in, ins[i]));
    PL_ENFORCE(x->IsType<DenseTensor>(),
               errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected a dense "
                                       "tensor",
                                       op.Type(), in, ins[i]));
    framework::Variable* y = scope.FindVar(outs[i]);
    PL_ENFORCE(y != nullptr, errors::NotFound("op `%s` output `%s`: variable `%s` not found",
                                              op.Type(), out, outs[i]));
    y->GetMutable<DenseTensor>()->ShareDataWith(x->Get<DenseTensor>());
  }
}

bool FlagAttr(const framework::AttributeMap& attrs, const std::string& name) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return false;
  if (const bool* b = std::get_if<bool>(&it->second)) return *b;
  if (const int* i = std::get_if<int>(&it->second)) return *i != 0;
  return false;
}

void CheckSameShape(const std::string& op, const std::string& slot, const DDim& dims,
                    const std::string& like, const DDim& like_dims) {
  bool same = dims.size() == like_dims.size();
  for (int i = 0; same && i < dims.size(); ++i) {
    same = dims[i] < 0 || like_dims[i] < 0 || dims[i] == like_dims[i];
  }
  PL_ENFORCE(same,
             errors::InvalidArgument("op `%s` input `%s`: expected %s's shape %s, received %s", op,
                                     slot, like, like_dims.ToString(), dims.ToString()));
}

double ReadScalarInput(const ExecutionContext& ctx, const std::string& slot, size_t i) {
  const DenseTensor* t = ctx.Input(slot, i);
  PL_ENFORCE(t != nullptr,
             errors::NotFound("op `%s` input `%s`: required but not given", ctx.Type(), slot));
  PL_ENFORCE(t->numel() == 1, errors::InvalidArgument(
                                  "op `%s` input `%s` (variable `%s`): expected a 1-element "
                                  "tensor, received shape %s",
                                  ctx.Type(), slot, ctx.InputName(slot, i), t->dims().ToString()));
  const DenseTensor host = framework::OnCpu(*t);  // A device tensor is read back.
  double v = 0;
  platform::VisitDataType(host.dtype(), [&](auto tag) {
    using S = decltype(tag);
    v = ConvertElement<double>(host.data<S>()[0]);
  });
  return v;
}

}  // namespace operators
}  // namespace paddle_like

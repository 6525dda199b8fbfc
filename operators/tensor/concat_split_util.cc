#include "operators/tensor/concat_split_util.h"

#include "operators/tensor/tensor_op_util.h"
#include "platform/checked_math.h"

namespace paddle_like {
namespace operators {

int KernelAxis(const ExecutionContext& ctx, int rank) {
  if (const DenseTensor* t = ctx.Input("AxisTensor")) {
    PL_ENFORCE(t->numel() == 1,
               errors::InvalidArgument("op `%s` input `AxisTensor`: expected 1 element, received "
                                       "shape %s",
                                       ctx.Type(), t->dims().ToString()));
    return NormalizeAxis(ctx.Type(), "input `AxisTensor`",
                               ReadIntValues(*t, ctx.Type(), "AxisTensor")[0], rank);
  }
  return NormalizeAxis(ctx.Type(), "attribute `axis`", ctx.Attr<int>("axis"), rank);
}

std::vector<int64_t> SplitSizes(const std::string& op, int64_t dim, int num,
                                const std::vector<int64_t>& sections, size_t num_outputs,
                                const std::string& origin) {
  if (num > 0) {
    PL_ENFORCE(num_outputs == static_cast<size_t>(num),
               errors::InvalidArgument("op `%s` output `Out`: expected %d variables (attribute "
                                       "`num`), received %zu",
                                       op, num, num_outputs));
    PL_ENFORCE(dim < 0 || dim % num == 0,
               errors::InvalidArgument("op `%s` attribute `num`: the split dim of size %lld is "
                                       "not divisible by %d",
                                       op, static_cast<long long>(dim), num));
    return std::vector<int64_t>(num_outputs, dim < 0 ? -1 : dim / num);
  }
  PL_ENFORCE(!sections.empty(),
             errors::InvalidArgument("op `%s` attribute `sections`: expected sections or num > 0, "
                                     "received neither",
                                     op));
  PL_ENFORCE(
      sections.size() == num_outputs,
      errors::InvalidArgument("op `%s` output `Out`: expected %zu variables (one per "
                              "entry of %s %s), received %zu",
                              op, sections.size(), origin, ListToString(sections), num_outputs));
  std::vector<int64_t> sizes = sections;
  int infer = -1;
  int64_t known = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      PL_ENFORCE(infer < 0,
                 errors::InvalidArgument("op `%s` %s: expected at most one -1, received %s", op,
                                         origin, ListToString(sections)));
      infer = static_cast<int>(i);
      continue;
    }
    PL_ENFORCE(sizes[i] >= 0,
               errors::InvalidArgument("op `%s` %s: expected sizes >= 0 or one -1, received %s", op,
                                       origin, ListToString(sections)));
    // Sections from tensors are int64: their sum may not fit.
    PL_ENFORCE(platform::CheckedAdd(known, sizes[i], &known),
               errors::InvalidArgument("op `%s` %s: expected sizes adding up to at most the "
                                       "split dim, received %s, whose sum overflows int64",
                                       op, origin, ListToString(sections)));
  }
  if (dim < 0) return sizes;  // The -1 entry stays unknown.
  if (infer >= 0) {
    PL_ENFORCE(known <= dim, errors::InvalidArgument(
                                 "op `%s` %s: the sizes %s add up to more than the split "
                                 "dim %lld",
                                 op, origin, ListToString(sections), static_cast<long long>(dim)));
    sizes[infer] = dim - known;
  } else {
    PL_ENFORCE(known == dim, errors::InvalidArgument(
                                 "op `%s` %s: expected sizes adding up to the split dim "
                                 "%lld, received %s",
                                 op, origin, static_cast<long long>(dim), ListToString(sections)));
  }
  return sizes;
}

DDim ConcatDims(const std::string& op, const std::vector<DDim>& xs, int axis) {
  DDim out = xs[0];
  for (size_t i = 1; i < xs.size(); ++i) {
    CheckSameDimsExceptAxis(op, "X", i, xs[0], xs[i], axis);
    for (int d = 0; d < out.size(); ++d) {
      if (d == axis) {
        int64_t sum = -1;
        PL_ENFORCE(out[d] < 0 || xs[i][d] < 0 || platform::CheckedAdd(out[d], xs[i][d], &sum),
                   errors::InvalidArgument("op `%s` input `X`: expected sizes along axis %d "
                                           "whose sum fits in int64, received tensor #%zu of "
                                           "shape %s after a sum of %lld",
                                           op, axis, i, xs[i].ToString(),
                                           static_cast<long long>(out[d])));
        out[d] = sum;  // -1 when a size is unknown.
      } else if (out[d] < 0) {
        out[d] = xs[i][d];
      }
    }
  }
  return out;
}

void CheckSameDimsExceptAxis(const std::string& op, const std::string& slot, size_t index,
                             const DDim& first, const DDim& piece, int axis) {
  bool ok = piece.size() == first.size();
  for (int d = 0; ok && d < piece.size(); ++d) {
    ok = d == axis || piece[d] < 0 || first[d] < 0 || piece[d] == first[d];
  }
  PL_ENFORCE(ok,
             errors::InvalidArgument("op `%s` input `%s`: tensor #%zu has shape %s, expected "
                                     "the dims of tensor #0 %s except along axis %d",
                                     op, slot, index, piece.ToString(), first.ToString(), axis));
}

std::vector<std::string> OutputGradsOrZeros(framework::GradOpBuilder* g, const std::string& slot) {
  std::vector<std::string> grads = g->OutputGrad(slot);
  const auto& outs = g->Output(slot);
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i] != framework::kEmptyVarName) continue;
    grads[i] = g->NewTemp("zero_grad");
    g->AddOp("fill_any_like", {{"X", {outs[i]}}}, {{"Out", {grads[i]}}},
             {{"value", 0.0f}, {"dtype", -1}});
  }
  return grads;
}

std::vector<std::string> InputGradsOrTemps(framework::GradOpBuilder* g, const std::string& slot) {
  std::vector<std::string> grads = g->InputGrad(slot);
  for (auto& name : grads) {
    if (name == framework::kEmptyVarName) name = g->NewTemp("unused_grad");
  }
  return grads;
}

}  // namespace operators
}  // namespace paddle_like

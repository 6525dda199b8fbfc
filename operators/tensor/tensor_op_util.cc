#include "operators/tensor/tensor_op_util.h"

#include "framework/data_transform.h"

namespace paddle_like {
namespace operators {

std::vector<int64_t> ReadIntValues(const DenseTensor& tensor, const std::string& op,
                                   const std::string& slot) {
  PL_ENFORCE(tensor.dtype() == DataType::INT32 || tensor.dtype() == DataType::INT64,
             errors::InvalidArgument("op `%s` input `%s`: expected an int32 or int64 tensor, "
                                     "received %s",
                                     op, slot, platform::DataTypeName(tensor.dtype())));
  // A shape tensor that a GPU op produced is read back to the host.
  const DenseTensor t = framework::OnCpu(tensor);
  std::vector<int64_t> values(static_cast<size_t>(t.numel()));
  if (t.dtype() == DataType::INT32) {
    const int32_t* p = t.data<int32_t>();
    for (size_t i = 0; i < values.size(); ++i) values[i] = p[i];
  } else {
    const int64_t* p = t.data<int64_t>();
    for (size_t i = 0; i < values.size(); ++i) values[i] = p[i];
  }
  return values;
}

std::vector<int> CheckedTransposeAxis(const std::vector<int>& axis, int rank) {
  constexpr char kOp[] = "transpose2";
  PL_ENFORCE(rank >= 0 && axis.size() == static_cast<size_t>(rank),
             errors::InvalidArgument("op `%s` attribute `axis`: expected %d entries (the rank of "
                                     "input `X`), received %zu: %s",
                                     kOp, rank, axis.size(), ListToString(axis)));
  std::vector<int> resolved(axis.size());
  std::vector<bool> seen(axis.size(), false);
  for (size_t i = 0; i < axis.size(); ++i) {
    const int a = axis[i] < 0 ? axis[i] + rank : axis[i];
    PL_ENFORCE(a >= 0 && a < rank && !seen[a],
               errors::InvalidArgument("op `%s` attribute `axis`: expected a permutation of "
                                       "[0, %d), received %s",
                                       kOp, rank, ListToString(axis)));
    seen[a] = true;
    resolved[i] = a;
  }
  return resolved;
}

void CheckShapeValues(const std::string& op, const std::string& origin,
                      const std::vector<int64_t>& shape, bool allow_unknown) {
  PL_ENFORCE(shape.size() <= static_cast<size_t>(DDim::kMaxRank),
             errors::InvalidArgument("op `%s` %s: expected at most %d dims, received %zu", op,
                                     origin, DDim::kMaxRank, shape.size()));
  for (int64_t d : shape) {
    PL_ENFORCE(d >= 0 || (allow_unknown && d == -1),
               errors::InvalidArgument("op `%s` %s: expected dims >= 0%s, received %s", op, origin,
                                       allow_unknown ? " (or -1 before run time)" : "",
                                       ListToString(shape)));
  }
  // Rank and signs are fine: what is left for ShapeProblem to find is an overflowing product.
  PL_ENFORCE(framework::ShapeProblem(shape, allow_unknown).empty(),
             errors::InvalidArgument("op `%s` %s: expected dims whose product fits in int64, "
                                     "received %s",
                                     op, origin, ListToString(shape)));
}

DDim UnknownDims(const std::string& op, const std::string& origin, int64_t rank) {
  PL_ENFORCE(rank >= 0 && rank <= DDim::kMaxRank,
             errors::InvalidArgument("op `%s` %s: expected at most %d dims, received %lld", op,
                                     origin, DDim::kMaxRank, static_cast<long long>(rank)));
  return DDim(std::vector<int64_t>(static_cast<size_t>(rank), -1));
}

int NormalizeAxis(const std::string& op, const std::string& origin, int64_t axis, int rank) {
  PL_ENFORCE(rank >= 1,
             errors::InvalidArgument("op `%s` %s: expected an input of rank >= 1, received a "
                                     "0-D tensor",
                                     op, origin));
  PL_ENFORCE(axis >= -rank && axis < rank,
             errors::InvalidArgument("op `%s` %s: expected a value in [%d, %d) for inputs of "
                                     "rank %d, received %lld",
                                     op, origin, -rank, rank, rank, static_cast<long long>(axis)));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::vector<int64_t> ReadOneElementInts(const ExecutionContext& ctx, const std::string& list_slot) {
  std::vector<int64_t> v;
  for (const DenseTensor* t : ctx.MultiInput(list_slot)) {
    PL_ENFORCE(t->numel() == 1,
               errors::InvalidArgument("op `%s` input `%s`: expected one-element tensors, "
                                       "received shape %s",
                                       ctx.Type(), list_slot, t->dims().ToString()));
    v.push_back(ReadIntValues(*t, ctx.Type(), list_slot)[0]);
  }
  return v;
}

std::vector<int> ReadSizes(const ExecutionContext& ctx, const std::string& list_slot) {
  std::vector<int> sizes;
  for (int64_t v : ReadOneElementInts(ctx, list_slot)) {
    PL_ENFORCE(v > 0 && v <= std::numeric_limits<int>::max(),
               errors::InvalidArgument("op `%s` input `%s`: expected sizes > 0, received %lld",
                                       ctx.Type(), list_slot, static_cast<long long>(v)));
    sizes.push_back(static_cast<int>(v));
  }
  return sizes;
}

std::vector<int64_t> ReadIntList(const ExecutionContext& ctx, const std::string& tensor_slot,
                                 const std::string& list_slot, const std::string& attr,
                                 std::string* origin) {
  if (ctx.HasInput(tensor_slot)) {
    *origin = "input `" + tensor_slot + "`";
    const DenseTensor* t = ctx.Input(tensor_slot);
    PL_ENFORCE(t->dims().size() == 1,
               errors::InvalidArgument("op `%s` input `%s`: expected a 1-D tensor, received "
                                       "shape %s",
                                       ctx.Type(), tensor_slot, t->dims().ToString()));
    return ReadIntValues(*t, ctx.Type(), tensor_slot);
  }
  if (ctx.HasInput(list_slot)) {
    *origin = "input `" + list_slot + "`";
    return ReadOneElementInts(ctx, list_slot);
  }
  *origin = "attribute `" + attr + "`";
  const std::vector<int>& a = ctx.Attr<std::vector<int>>(attr);
  return std::vector<int64_t>(a.begin(), a.end());
}

LineView ViewAround(const std::string& op, const DDim& x, int axis) {
  LineView v;
  const int rank = x.size();
  const int lo = rank == 0 ? -1 : -rank, hi = rank == 0 ? 1 : rank;
  PL_ENFORCE(axis >= lo && axis < hi,
             errors::InvalidArgument("op `%s` attribute `axis`: expected a value in [%d, %d) for "
                                     "input `X` of shape %s, received %d",
                                     op, lo, hi, x.ToString(), axis));
  if (rank == 0) return v;
  v.axis = axis < 0 ? axis + rank : axis;
  v.outer = framework::Product(x, 0, v.axis);
  v.n = x[v.axis];
  v.inner = framework::Product(x, v.axis + 1, rank);
  return v;
}

bool ChannelLastFormat(const std::string& op, const char* attr, const std::string& format) {
  PL_ENFORCE(format == "NCHW" || format == "NHWC",
             errors::InvalidArgument("op `%s` attribute `%s`: expected NCHW or NHWC, received %s",
                                     op, attr, format));
  return format == "NHWC";
}

}  // namespace operators
}  // namespace paddle_like

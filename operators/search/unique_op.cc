// unique: the distinct values of X (or distinct slices along an axis), sorted or in order of
// first appearance, with where they came from, where each element went and how many there
// were (paddle.unique; fluid's unique is the unsorted form). unique_consecutive: the same
// for runs of equal neighbours only (paddle.unique_consecutive).
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "unique";

class UniqueOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor whose distinct values (or slices along `axis`) are taken.");
    AddOutput("Out",
              "The distinct values, 1-D (or X's shape with `axis` cut to the distinct "
              "slices).");
    AddOutput("Indices",
              "[U], in `dtype`: the first position in X (flattened, or along axis) of "
              "each distinct value. With return_index.")
        .AsDispensable();
    AddOutput("Index", "In `dtype`: for each element (or slice) of X, its position in Out.");
    AddOutput("Counts",
              "[U], in `dtype`: how often each distinct value occurs. With "
              "return_counts.")
        .AsDispensable();
    AddAttr<int>("dtype",
                 "Type of Index, Indices and Counts as a VarType number: 2 int32, "
                 "3 int64.")
        .SetDefault(2)
        .InEnum({2, 3});
    AddAttr<bool>("return_index", "Write Indices.").SetDefault(false);
    AddAttr<bool>("return_inverse", "Write Index (always written, as PaddlePaddle does).")
        .SetDefault(false);
    AddAttr<bool>("return_counts", "Write Counts.").SetDefault(false);
    AddAttr<std::vector<int>>("axis",
                              "Empty: over all elements (flattened); [a]: over the "
                              "slices X[..., i, ...] along dim a.")
        .SetDefault({});
    AddAttr<bool>("is_sorted",
                  "Sort Out ascending (slices lexicographically); false: order of "
                  "first appearance, flattened X only (fluid's unique).")
        .SetDefault(false);
    AddComment(R"DOC(
Unique: with u_0 < u_1 < ... < u_{U-1} the distinct values of X (is_sorted), or the distinct
values in order of first appearance (not sorted),
$$Out_k = u_k, \quad Index_i = k \text{ such that } X_i = u_k, \quad
Indices_k = \min\{i : X_i = u_k\}, \quad Counts_k = |\{i : X_i = u_k\}|$$
With axis [a], the X_i are the slices of X along dim a, compared lexicographically.
Example: X = [2, 3, 3, 1, 5, 3], sorted -> Out [1, 2, 3, 5], Indices [3, 0, 1, 4],
Index [1, 2, 2, 0, 3, 2], Counts [1, 1, 3, 1]; unsorted -> Out [2, 3, 1, 5].
)DOC");
  }
};

class UniqueConsecutiveOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor whose runs of equal values (or slices along `axis`) are merged.");
    AddOutput("Out",
              "The first value of each run, 1-D (or X's shape with `axis` cut to the "
              "runs).");
    AddOutput("Index",
              "In `dtype`: for each element (or slice) of X, its run's position in Out. "
              "With return_inverse.")
        .AsDispensable();
    AddOutput("Counts", "[U], in `dtype`: the length of each run. With return_counts.")
        .AsDispensable();
    AddAttr<int>("dtype",
                 "Type of Index and Counts as a VarType number: 2 int32, 3 int64 (5 float32 "
                 "and 6 float64, the op's old default, as PaddlePaddle takes them).")
        .SetDefault(5)
        .InEnum({2, 3, 5, 6});
    AddAttr<bool>("return_inverse", "Write Index.").SetDefault(false);
    AddAttr<bool>("return_counts", "Write Counts.").SetDefault(false);
    AddAttr<std::vector<int>>("axis",
                              "Empty: over all elements (flattened); [a]: over the "
                              "slices X[..., i, ...] along dim a.")
        .SetDefault({});
    AddComment(R"DOC(
Unique consecutive: X (flattened, or its slices along axis [a]) split into maximal runs of
equal neighbours (== elementwise, so NaNs never merge); run k starts at s_k:
$$Out_k = X_{s_k}, \quad Index_i = k \text{ for } s_k \le i < s_{k+1}, \quad
Counts_k = s_{k+1} - s_k$$
Example: X = [1, 1, 2, 2, 3, 1, 1, 2] -> Out [1, 2, 3, 1, 2], Index [0, 0, 1, 1, 2, 3, 3, 4],
Counts [2, 2, 1, 2, 1].
)DOC");
  }
};

class UniqueOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

// The axis attribute resolved against X's rank: -1 for "flattened".
int ResolveAxis(const std::string& op, const std::vector<int>& axis, const DDim& x,
                bool is_sorted) {
  if (axis.empty()) return -1;
  PL_ENFORCE(axis.size() == 1,
             errors::InvalidArgument("op `%s` attribute `axis`: expected at most one axis, "
                                     "received %s",
                                     op, ListToString(axis)));
  PL_ENFORCE(is_sorted, errors::InvalidArgument("op `%s` attribute `axis`: needs is_sorted (the "
                                                "unsorted form flattens X), received axis %d",
                                                op, axis[0]));
  return NormalizeAxis(op, "attribute `axis`", axis[0], x.size());
}

void UniqueInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->RequireOutput("Index");
  const DDim x = ctx->GetInputDim("X");
  const int axis = ResolveAxis(ctx->OpType(), ctx->Attr<std::vector<int>>("axis"), x,
                               ctx->Attr<bool>("is_sorted"));
  if (ctx->IsRuntime()) return;  // Sizes depend on the values: the kernel sets them.
  if (axis < 0) {
    ctx->SetOutputDim("Out", DDim{-1});
    ctx->SetOutputDim("Index", DDim{x.numel() < 0 ? -1 : x.numel()});
  } else {
    std::vector<int64_t> out = x.ToVector();
    out[axis] = -1;
    ctx->SetOutputDim("Out", DDim(out));
    ctx->SetOutputDim("Index", DDim{x[axis]});
  }
  if (ctx->HasOutput("Indices")) ctx->SetOutputDim("Indices", DDim{-1});
  if (ctx->HasOutput("Counts")) ctx->SetOutputDim("Counts", DDim{-1});
}

void UniqueConsecutiveInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const int axis = ResolveAxis(ctx->OpType(), ctx->Attr<std::vector<int>>("axis"), x, true);
  if (ctx->IsRuntime()) return;  // Sizes depend on the values: the kernel sets them.
  std::vector<int64_t> out = {-1};
  if (axis >= 0) {
    out = x.ToVector();
    out[axis] = -1;
  }
  ctx->SetOutputDim("Out", DDim(out));
  if (ctx->HasOutput("Index")) {
    ctx->SetOutputDim("Index", axis < 0 ? DDim{x.numel() < 0 ? -1 : x.numel()} : DDim{x[axis]});
  }
  if (ctx->HasOutput("Counts")) ctx->SetOutputDim("Counts", DDim{-1});
}

void UniqueInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
  const DataType index = static_cast<DataType>(ctx->Attr<int>("dtype"));
  for (const char* slot : {"Index", "Indices", "Counts"}) {
    if (ctx->HasOutput(slot)) ctx->SetOutputDataType(slot, index);
  }
}

// a < b, with NaN above every number and NaNs equal (as NumPy's unique): a strict weak
// order even for NaN, which the sort and the map below require.
template <typename T>
bool OrderedLess(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

template <typename T>
struct OrderedLessFn {
  bool operator()(T a, T b) const { return OrderedLess(a, b); }
};

// The distinct rows of an [n, width] matrix and where each came from and went.
struct Distinct {
  std::vector<int64_t> first;    // Per distinct row: the first row of X holding it.
  std::vector<int64_t> inverse;  // Per row of X: its distinct row.
  std::vector<int64_t> counts;   // Per distinct row.
};

template <typename T>
Distinct SortedDistinct(const T* x, int64_t n, int64_t width) {
  auto less = [&](int64_t a, int64_t b) {
    return std::lexicographical_compare(x + a * width, x + (a + 1) * width, x + b * width,
                                        x + (b + 1) * width, OrderedLessFn<T>());
  };
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), less);  // Stable: the first of equals leads.
  Distinct d;
  d.inverse.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (i == 0 || less(order[i - 1], order[i])) {
      d.first.push_back(order[i]);
      d.counts.push_back(0);
    }
    d.inverse[order[i]] = static_cast<int64_t>(d.first.size()) - 1;
    ++d.counts.back();
  }
  return d;
}

template <typename T>
Distinct DistinctInOrder(const T* x, int64_t n) {
  Distinct d;
  std::map<T, int64_t, OrderedLessFn<T>> seen;
  d.inverse.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    auto [it, fresh] = seen.emplace(x[i], static_cast<int64_t>(d.first.size()));
    if (fresh) {
      d.first.push_back(i);
      d.counts.push_back(0);
    }
    d.inverse[i] = it->second;
    ++d.counts[it->second];
  }
  return d;
}

// Runs of equal neighbours among the rows of an [n, width] matrix (== elementwise: NaNs
// never merge, as PaddlePaddle compares them).
template <typename T>
Distinct ConsecutiveDistinct(const T* x, int64_t n, int64_t width) {
  Distinct d;
  d.inverse.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (i == 0 || !std::equal(x + i * width, x + (i + 1) * width, x + d.first.back() * width)) {
      d.first.push_back(i);
      d.counts.push_back(0);
    }
    d.inverse[i] = static_cast<int64_t>(d.first.size()) - 1;
    ++d.counts.back();
  }
  return d;
}

template <typename I>
void WriteIndices(const std::vector<int64_t>& values, const ExecutionContext& ctx,
                  DenseTensor* out) {
  DenseTensor t(DDim{static_cast<int64_t>(values.size())}, platform::ToDataType<I>());
  I* p = t.mutable_data<I>(ctx.GetPlace());
  for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<I>(values[i]);
  *out = std::move(t);
}

// Writes `values` into output `slot` (when the op has it) in `type`.
void WriteIndexSlot(const ExecutionContext& ctx, const char* slot, DataType type,
                    const std::vector<int64_t>& values) {
  DenseTensor* t = ctx.Output(slot);
  if (t == nullptr) return;
  switch (type) {
    case DataType::INT32:
      return WriteIndices<int32_t>(values, ctx, t);
    case DataType::INT64:
      return WriteIndices<int64_t>(values, ctx, t);
    case DataType::FLOAT32:
      return WriteIndices<float>(values, ctx, t);
    default:
      return WriteIndices<double>(values, ctx, t);
  }
}

// X's slices along `axis` (-1: its elements) as the rows of an [n, width] matrix: X itself
// when flattened, else copied into `rows`.
template <typename T>
const T* AsRows(const DenseTensor& x, int axis, const LineView& v, std::vector<T>* rows, int64_t* n,
                int64_t* width) {
  const T* in = x.data<T>();
  if (axis < 0) {
    *n = x.numel();
    *width = 1;
    return in;
  }
  *n = v.n;
  *width = v.outer * v.inner;
  rows->resize(static_cast<size_t>(v.n * *width));
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t i = 0; i < v.n; ++i) {
      std::copy(in + (o * v.n + i) * v.inner, in + (o * v.n + i + 1) * v.inner,
                rows->begin() + i * *width + o * v.inner);
    }
  }
  return rows->data();
}

// Out: the elements (slices along `axis`) of X at d.first, in that order.
template <typename T>
void WriteDistinct(const ExecutionContext& ctx, const DenseTensor& x, int axis, const LineView& v,
                   const Distinct& d) {
  const T* in = x.data<T>();
  const int64_t u = static_cast<int64_t>(d.first.size());
  std::vector<int64_t> out_dims = {u};
  if (axis >= 0) {
    out_dims = x.dims().ToVector();
    out_dims[axis] = u;
  }
  DenseTensor out(DDim(out_dims), x.dtype());
  T* o = out.mutable_data<T>(ctx.GetPlace());
  if (axis < 0) {
    for (int64_t k = 0; k < u; ++k) o[k] = in[d.first[k]];
  } else {
    for (int64_t a = 0; a < v.outer; ++a) {
      for (int64_t k = 0; k < u; ++k) {
        const T* src = in + (a * v.n + d.first[k]) * v.inner;
        std::copy(src, src + v.inner, o + (a * u + k) * v.inner);
      }
    }
  }
  *ctx.Output("Out") = std::move(out);
}

// The `dtype` attribute as the index type, checked to address X's elements.
DataType IndexType(const ExecutionContext& ctx, const DenseTensor& x) {
  const DataType type = static_cast<DataType>(ctx.Attr<int>("dtype"));
  PL_ENFORCE(type != DataType::INT32 || x.numel() <= INT32_MAX,
             errors::InvalidArgument("op `%s` attribute `dtype`: int32 indices cannot address "
                                     "X's %lld elements; use int64 (3)",
                                     ctx.Type(), static_cast<long long>(x.numel())));
  return type;
}

template <typename T>
struct UniqueKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const bool is_sorted = ctx.Attr<bool>("is_sorted");
    const int axis = ResolveAxis(kOp, ctx.Attr<std::vector<int>>("axis"), x->dims(), is_sorted);
    const DataType index_type = IndexType(ctx, *x);
    const LineView v = axis < 0 ? LineView{1, x->numel(), 1, 0} : ViewAround(kOp, x->dims(), axis);
    std::vector<T> buffer;
    int64_t n = 0, width = 1;
    const T* rows = AsRows(*x, axis, v, &buffer, &n, &width);
    const Distinct d = !is_sorted ? DistinctInOrder(rows, n) : SortedDistinct(rows, n, width);
    WriteDistinct<T>(ctx, *x, axis, v, d);
    WriteIndexSlot(ctx, "Index", index_type, d.inverse);
    if (ctx.Attr<bool>("return_index")) WriteIndexSlot(ctx, "Indices", index_type, d.first);
    if (ctx.Attr<bool>("return_counts")) WriteIndexSlot(ctx, "Counts", index_type, d.counts);
  }
};

template <typename T>
struct UniqueConsecutiveKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const int axis = ResolveAxis(ctx.Type(), ctx.Attr<std::vector<int>>("axis"), x->dims(), true);
    const DataType index_type = IndexType(ctx, *x);
    const LineView v =
        axis < 0 ? LineView{1, x->numel(), 1, 0} : ViewAround(ctx.Type(), x->dims(), axis);
    std::vector<T> buffer;
    int64_t n = 0, width = 1;
    const T* rows = AsRows(*x, axis, v, &buffer, &n, &width);
    const Distinct d = ConsecutiveDistinct(rows, n, width);
    WriteDistinct<T>(ctx, *x, axis, v, d);
    if (ctx.Attr<bool>("return_inverse")) WriteIndexSlot(ctx, "Index", index_type, d.inverse);
    if (ctx.Attr<bool>("return_counts")) WriteIndexSlot(ctx, "Counts", index_type, d.counts);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterUniqueOp) {
  framework::RegisterOp<UniqueOp, UniqueOpMaker>(kOp)
      .InferShape(UniqueInferShape)
      .InferVarType(UniqueInferVarType);
  RegisterPlainCpuNumericKernels<UniqueKernel>(kOp);
  framework::RegisterOp<UniqueOp, UniqueConsecutiveOpMaker>("unique_consecutive")
      .InferShape(UniqueConsecutiveInferShape)
      .InferVarType(UniqueInferVarType)
      .Checkpoint(
          "add outputs Index and Counts and attributes return_inverse, return_counts "
          "and axis",
          framework::OpVersionDesc()
              .NewOutput("Counts", "the length of each run")
              .NewAttr("return_inverse", "write Index", false)
              .NewAttr("return_counts", "write Counts", false)
              .NewAttr("axis", "the dim whose slices are compared", std::vector<int>{}));
  RegisterPlainCpuNumericKernels<UniqueConsecutiveKernel>("unique_consecutive");
}

}  // namespace operators
}  // namespace paddle_like

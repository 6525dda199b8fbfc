// einsum: Einstein summation over one or more operands, with a fused backward (einsum_grad).
//
// Every contraction runs on one engine (`Contract`): an operand is a strided view of its
// buffer, one stride per label (summed over a repeated label, which walks the diagonal; 0 over
// a dim of 1 that broadcasts). Operands are contracted pairwise, left to right: each pair is
// gathered into [batch, free, contracted] and [batch, contracted, free] matrices (labels only
// one side needs are summed on the way) and multiplied by one batched GEMM. The gradient of an
// operand is the contraction of Out@GRAD with the other operands onto the operand's labels,
// written back onto its diagonals and summed over its broadcast dims.
#include <algorithm>
#include <complex>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/matmul/einsum_equation.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "einsum";

class EinsumOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Operands", "The tensors, one per input term of the equation.").AsDuplicable();
    AddOutput("Out", "The result, one dim per output label.");
    AddOutput("InnerCache", "Not written (PaddlePaddle's cache for its backward).")
        .AsDuplicable()
        .AsIntermediate()
        .AsDispensable();
    AddOutput("XShape", "Not written (PaddlePaddle's record of the operands' shapes).")
        .AsDuplicable()
        .AsIntermediate()
        .AsDispensable();
    AddAttr<std::string>("equation",
                         "Input terms separated by ',', then optionally \"->\" and the output "
                         "term; letters a-z, A-Z and one \"...\" per term.");
    AddComment(R"DOC(
Einstein summation:
$$Out[o] = \sum_{s} \prod_{k} Operands_k[l_k(o, s)]$$
where o runs over the output labels, s over the labels summed away, and l_k picks operand
k's labels. Examples: "ij,jk->ik" is a matrix product, "bij,bjk->bik" a batched one,
"ii->i" a diagonal, "ii" a trace, "i,j->ij" an outer product, "...ij->...ji" a transpose of
the last two dims. Without "->" the output holds the ellipsis dims, then the letters that
occur once, in ASCII order. The ellipsis dims broadcast as in elementwise ops, and a dim of 1
broadcasts against its label's size. A repeated label within an operand takes its diagonal.

Gradient, by the fused op einsum_grad:
$$dOperands_k = \mathrm{einsum}(dOut, \overline{Operands_{j \ne k}})
  \text{ onto } Operands_k\text{'s labels}$$
(zero off a repeated label's diagonal, summed over dims that broadcast; the bar, the
conjugate, is the identity on real operands).
)DOC");
  }
};

class EinsumOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "Operands");
  }
};

std::vector<int> Ranks(const std::vector<DDim>& dims) {
  std::vector<int> ranks;
  for (const DDim& d : dims) ranks.push_back(d.size());
  return ranks;
}

void EinsumInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Operands");
  ctx->RequireOutput("Out");
  const std::vector<DDim> dims = ctx->GetInputsDim("Operands");
  const std::string& equation = ctx->Attr<std::string>("equation");
  const EinsumEquation eq = ParseEinsumEquation(ctx->OpType(), equation, Ranks(dims));
  const std::vector<int64_t> sizes = EinsumLabelSizes(ctx->OpType(), eq, dims);
  std::vector<int64_t> out;
  for (int l : eq.out) out.push_back(sizes[l]);
  ctx->SetOutputDim("Out", DDim(out));
}

// ---- The contraction engine ----

// A tensor seen through its labels: the element at label indices i is
// data[sum over labels l of i[l] * stride[l]].
template <typename T>
struct LabeledView {
  const T* data = nullptr;
  std::vector<int64_t> stride;  // Per label id; 0 where the label is absent or broadcast.
  std::vector<bool> has;        // Per label id: a dim of the view runs over it.
};

std::vector<int64_t> RowMajorStrides(const DDim& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int d = dims.size() - 2; d >= 0; --d) s[d] = s[d + 1] * dims[d + 1];
  return s;
}

// Operand `labels` over a buffer of `dims`. A dim of 1 whose label is larger broadcasts.
template <typename T>
LabeledView<T> ViewOf(const T* data, const DDim& dims, const std::vector<int>& labels,
                      const std::vector<int64_t>& sizes) {
  LabeledView<T> v;
  v.data = data;
  v.stride.assign(sizes.size(), 0);
  v.has.assign(sizes.size(), false);
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  for (size_t p = 0; p < labels.size(); ++p) {
    if (dims[static_cast<int>(p)] == 1 && sizes[labels[p]] != 1) continue;
    v.stride[labels[p]] += strides[p];
    v.has[labels[p]] = true;
  }
  return v;
}

// Calls fn(offset) for every index of `sizes`, in row-major order, with
// offset = base + sum of index[d] * strides[d].
template <typename Fn>
void ForEachOffset(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                   int64_t base, Fn&& fn) {
  for (int64_t s : sizes) {
    if (s == 0) return;
  }
  const int rank = static_cast<int>(sizes.size());
  std::vector<int64_t> index(rank, 0);
  int64_t offset = base;
  while (true) {
    fn(offset);
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++index[d] < sizes[d]) {
        offset += strides[d];
        break;
      }
      offset -= strides[d] * (sizes[d] - 1);
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// Sums of float values accumulate in double (complex float ones in complex double).
template <typename T>
using Accum = std::conditional_t<
    std::is_same_v<T, float>, double,
    std::conditional_t<std::is_same_v<T, std::complex<float>>, std::complex<double>, T>>;

// dst (row-major over `order`) = the view summed over the labels of `summed`.
template <typename T>
std::vector<T> Gather(const LabeledView<T>& v, const std::vector<int>& order,
                      const std::vector<int>& summed, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> out_sizes, out_strides, sum_sizes, sum_strides;
  int64_t n = 1;
  for (int l : order) {
    out_sizes.push_back(sizes[l]);
    out_strides.push_back(v.stride[l]);
    n *= sizes[l];
  }
  for (int l : summed) {
    sum_sizes.push_back(sizes[l]);
    sum_strides.push_back(v.stride[l]);
  }
  std::vector<T> dst(static_cast<size_t>(n), T(0));
  T* o = dst.data();
  if (summed.empty()) {
    ForEachOffset(out_sizes, out_strides, 0, [&](int64_t off) { *o++ = v.data[off]; });
    return dst;
  }
  ForEachOffset(out_sizes, out_strides, 0, [&](int64_t base) {
    Accum<T> s = 0;
    ForEachOffset(sum_sizes, sum_strides, base,
                  [&](int64_t off) { s += static_cast<Accum<T>>(v.data[off]); });
    *o++ = static_cast<T>(s);
  });
  return dst;
}

std::vector<int> Where(int num_labels, const std::function<bool(int)>& pred) {
  std::vector<int> labels;
  for (int l = 0; l < num_labels; ++l) {
    if (pred(l)) labels.push_back(l);
  }
  return labels;
}

int64_t SizeProduct(const std::vector<int>& labels, const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int l : labels) n *= sizes[l];
  return n;
}

// A contraction's result: a row-major buffer over `labels`.
template <typename T>
struct Contracted {
  std::vector<T> data;
  std::vector<int> labels;
  LabeledView<T> View(const std::vector<int64_t>& sizes) const {
    LabeledView<T> v;
    v.data = data.data();
    v.stride.assign(sizes.size(), 0);
    v.has.assign(sizes.size(), false);
    int64_t s = 1;
    for (size_t k = labels.size(); k-- > 0;) {
      v.stride[labels[k]] = s;
      v.has[labels[k]] = true;
      s *= sizes[labels[k]];
    }
    return v;
  }
};

// The product of a and b summed over every label not in `keep`.
template <typename T>
Contracted<T> ContractPair(const platform::CPUDeviceContext& dev, const LabeledView<T>& a,
                           const LabeledView<T>& b, const std::vector<bool>& keep,
                           const std::vector<int64_t>& sizes) {
  const int n = static_cast<int>(sizes.size());
  const std::vector<int> batch = Where(n, [&](int l) { return keep[l] && a.has[l] && b.has[l]; });
  const std::vector<int> a_free = Where(n, [&](int l) { return keep[l] && a.has[l] && !b.has[l]; });
  const std::vector<int> b_free = Where(n, [&](int l) { return keep[l] && !a.has[l] && b.has[l]; });
  const std::vector<int> inner = Where(n, [&](int l) { return !keep[l] && a.has[l] && b.has[l]; });
  const std::vector<int> a_sum = Where(n, [&](int l) { return !keep[l] && a.has[l] && !b.has[l]; });
  const std::vector<int> b_sum = Where(n, [&](int l) { return !keep[l] && !a.has[l] && b.has[l]; });
  auto concat = [](std::vector<int> x, const std::vector<int>& y, const std::vector<int>& z) {
    x.insert(x.end(), y.begin(), y.end());
    x.insert(x.end(), z.begin(), z.end());
    return x;
  };
  const std::vector<T> lhs = Gather(a, concat(batch, a_free, inner), a_sum, sizes);
  const std::vector<T> rhs = Gather(b, concat(batch, inner, b_free), b_sum, sizes);
  const int64_t nb = SizeProduct(batch, sizes), m = SizeProduct(a_free, sizes);
  const int64_t k = SizeProduct(inner, sizes), cols = SizeProduct(b_free, sizes);
  Contracted<T> c;
  c.labels = concat(batch, a_free, b_free);
  c.data.assign(static_cast<size_t>(nb * m * cols), T(0));
  if (nb * m * cols > 0 && k > 0) {
    std::vector<int64_t> a_off(nb), b_off(nb);
    for (int64_t i = 0; i < nb; ++i) {
      a_off[i] = i * m * k;
      b_off[i] = i * k * cols;
    }
    math::BatchedGemm<T>(dev, false, false, m, cols, k, T(1), lhs.data(), a_off, k, rhs.data(),
                         b_off, cols, T(0), c.data.data(), cols);
  }
  return c;
}

// The product of `inputs` summed onto `target` (row-major over it). A target label that no
// input has is broadcast: the result does not vary along it.
template <typename T>
std::vector<T> Contract(const platform::CPUDeviceContext& dev,
                        const std::vector<LabeledView<T>>& inputs, const std::vector<int>& target,
                        const std::vector<int64_t>& sizes) {
  const int n = static_cast<int>(sizes.size());
  std::vector<bool> in_target(n, false);
  for (int l : target) in_target[l] = true;
  Contracted<T> cur;
  if (inputs.size() == 1) {
    cur.labels = Where(n, [&](int l) { return inputs[0].has[l] && in_target[l]; });
    cur.data = Gather(inputs[0], cur.labels,
                      Where(n, [&](int l) { return inputs[0].has[l] && !in_target[l]; }), sizes);
  } else {
    LabeledView<T> acc = inputs[0];
    for (size_t k = 1; k < inputs.size(); ++k) {
      // Keep what the target or a later operand still needs.
      std::vector<bool> keep = in_target;
      for (size_t j = k + 1; j < inputs.size(); ++j) {
        for (int l = 0; l < n; ++l) keep[l] = keep[l] || inputs[j].has[l];
      }
      cur = ContractPair(dev, acc, inputs[k], keep, sizes);
      acc = cur.View(sizes);
    }
  }
  if (cur.labels == target) return std::move(cur.data);
  return Gather(cur.View(sizes), target, {}, sizes);  // Permutes, and broadcasts the rest.
}

struct EinsumSetup {
  EinsumEquation eq;
  std::vector<int64_t> sizes;
};

EinsumSetup SetUp(const ExecutionContext& ctx, const std::vector<const DenseTensor*>& xs) {
  std::vector<DDim> dims;
  for (const DenseTensor* x : xs) dims.push_back(x->dims());
  EinsumSetup s;
  s.eq = ParseEinsumEquation(ctx.Type(), ctx.Attr<std::string>("equation"), Ranks(dims));
  s.sizes = EinsumLabelSizes(ctx.Type(), s.eq, dims);
  for (int64_t& size : s.sizes) size = std::max<int64_t>(size, 0);  // Unused labels.
  return s;
}

template <typename T>
constexpr bool kIsComplex =
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

template <typename T>
struct EinsumKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<const DenseTensor*> xs = ctx.MultiInput("Operands");
    const EinsumSetup s = SetUp(ctx, xs);
    std::vector<LabeledView<T>> views;
    for (size_t k = 0; k < xs.size(); ++k) {
      views.push_back(ViewOf(xs[k]->template data<T>(), xs[k]->dims(), s.eq.operands[k], s.sizes));
    }
    std::vector<int64_t> out_dims;
    for (int l : s.eq.out) out_dims.push_back(s.sizes[l]);
    const std::vector<T> result =
        Contract(ctx.device_context<platform::CPUDeviceContext>(), views, s.eq.out, s.sizes);
    DenseTensor out(DDim(out_dims), xs[0]->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    std::copy(result.begin(), result.end(), o);
    *ctx.Output("Out") = std::move(out);
  }
};

void EinsumGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Operands");
  ctx->RequireInput("Out@GRAD");
  const std::vector<DDim> dims = ctx->GetInputsDim("Operands");
  for (size_t k = 0; k < ctx->OutputSize("Operands@GRAD") && k < dims.size(); ++k) {
    ctx->SetOutputDim("Operands@GRAD", dims[k], k);
  }
}

template <typename T>
struct EinsumGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::vector<const DenseTensor*> xs = ctx.MultiInput("Operands");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const EinsumSetup s = SetUp(ctx, xs);
    // Complex operands enter the other operands' gradients conjugated (the gradient of a real
    // loss by z = a + ib being dL/da + i dL/db).
    std::vector<std::vector<T>> conjugates(xs.size());
    std::vector<int64_t> out_dims;
    for (int l : s.eq.out) out_dims.push_back(s.sizes[l]);
    PL_ENFORCE(
        dout->dims() == DDim(out_dims),
        errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                ctx.Type(), DDim(out_dims).ToString(), dout->dims().ToString()));
    const auto& dev = ctx.device_context<platform::CPUDeviceContext>();
    std::vector<bool> wanted(xs.size(), false);
    size_t wanted_count = 0;
    for (size_t k = 0; k < xs.size(); ++k) {
      wanted[k] = k < ctx.OutputSize("Operands@GRAD") &&
                  ctx.OutputName("Operands@GRAD", k) != framework::kEmptyVarName &&
                  ctx.Output("Operands@GRAD", k) != nullptr;
      wanted_count += wanted[k] ? 1 : 0;
    }
    std::vector<LabeledView<T>> views;
    for (size_t k = 0; k < xs.size(); ++k) {
      const T* data = xs[k]->template data<T>();
      // Operand k's values are read by the other operands' gradients only.
      const bool read_by_others = wanted_count > (wanted[k] ? 1u : 0u);
      if constexpr (kIsComplex<T>) {
        if (read_by_others) {
          conjugates[k].resize(static_cast<size_t>(xs[k]->numel()));
          for (size_t i = 0; i < conjugates[k].size(); ++i) conjugates[k][i] = std::conj(data[i]);
          data = conjugates[k].data();
        }
      }
      views.push_back(ViewOf(data, xs[k]->dims(), s.eq.operands[k], s.sizes));
    }
    const LabeledView<T> dview = ViewOf(dout->template data<T>(), dout->dims(), s.eq.out, s.sizes);
    for (size_t k = 0; k < xs.size(); ++k) {
      if (!wanted[k]) continue;
      DenseTensor* grad = ctx.Output("Operands@GRAD", k);
      std::vector<LabeledView<T>> inputs = {dview};
      for (size_t j = 0; j < xs.size(); ++j) {
        if (j != k) inputs.push_back(views[j]);
      }
      // The operand's own labels (each once), then written back along its strides: onto the
      // diagonal of a repeated label; a broadcast dim (stride 0, size 1) was summed.
      const std::vector<int> own =
          Where(static_cast<int>(s.sizes.size()), [&](int l) { return views[k].has[l]; });
      const std::vector<T> g = Contract(dev, inputs, own, s.sizes);
      DenseTensor result(xs[k]->dims(), xs[k]->dtype());
      T* r = result.mutable_data<T>(ctx.GetPlace());
      std::fill(r, r + result.numel(), T(0));
      std::vector<int64_t> own_sizes, own_strides;
      for (int l : own) {
        own_sizes.push_back(s.sizes[l]);
        own_strides.push_back(views[k].stride[l]);
      }
      const T* src = g.data();
      ForEachOffset(own_sizes, own_strides, 0, [&](int64_t off) { r[off] = *src++; });
      *grad = std::move(result);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterEinsumOp) {
  const framework::FusedGradDecl grad{
      {"Operands"},
      {"Out"},
      {"Operands"},
      "$$dOperands_k = \\mathrm{einsum}(dOut, \\overline{Operands_{j \\ne k}}) \\text{ onto } "
      "Operands_k\\text{'s labels}$$ (the conjugate for complex operands)"};
  framework::RegisterOp<EinsumOp, EinsumOpMaker>(kOp)
      .InferShape(EinsumInferShape)
      .InferVarType(OutputDataTypeOf("Operands", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuKernels<EinsumKernel, float, double, std::complex<float>, std::complex<double>>(
      kOp);
  framework::RegisterFusedGradOp(kOp, grad).InferShape(EinsumGradInferShape);
  RegisterPlainCpuKernels<EinsumGradKernel, float, double, std::complex<float>,
                          std::complex<double>>("einsum_grad");
}

}  // namespace operators
}  // namespace paddle_like

// max_pool2d_with_index: max pooling that also records where each maximum came from
// (paddle.nn.functional.max_pool2d with return_mask), and unpool, which puts values back at
// those places (max_unpool2d), as encoder-decoder segmentation networks pair them. Both with
// fused backwards.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "framework/var_type_inference.h"
#include "operators/nn/conv_pool_shape.h"
#include "operators/nn/scatter_by_index.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kPool[] = "max_pool2d_with_index";
constexpr char kUnpool[] = "unpool";

class MaxPoolWithIndexOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, C, H, W].");
    AddOutput("Out", "[N, C, H_out, W_out]: the maximum of each window.");
    AddOutput("Mask",
              "int32, Out's shape: where each maximum is, as h * W + w within its "
              "channel's [H, W] plane.");
    AddAttr<std::vector<int>>("ksize", "Window [kh, kw] (the output size when adaptive).");
    AddAttr<std::vector<int>>("strides", "[sh, sw].").SetDefault({1, 1});
    AddAttr<std::vector<int>>("paddings", "[ph, pw] or [top, bottom, left, right].")
        .SetDefault({0, 0});
    AddAttr<bool>("global_pooling", "One window over the whole plane.").SetDefault(false);
    AddAttr<bool>("adaptive",
                  "Window i of n over a length L covers [floor(i L / n), "
                  "ceil((i + 1) L / n)).")
        .SetDefault(false);
    AddAttr<bool>("ceil_mode", "Round the output size up (a last window may be partial).")
        .SetDefault(false);
    AddComment(R"DOC(
Max pooling with indices: for the window W(i, j) of output (i, j), clipped to the input,
$$Out[n, c, i, j] = \max_{(h, w) \in W(i, j)} X[n, c, h, w], \qquad
Mask[n, c, i, j] = h^* W + w^*$$
with (h*, w*) the first maximum in row-major order (Mask -1 and Out 0 for a window wholly
in the padding).
Example: X = [[1, 3], [4, 2]] as [1, 1, 2, 2], ksize [2, 2] -> Out [[4]], Mask [[2]].

Gradient, by the fused op max_pool2d_with_index_grad: dX[n, c, Mask] += dOut.
)DOC");
  }
};

class UnpoolOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "[N, C, H, W]: the values to put back.");
    AddInput("Indices", "int32 or int64, X's shape: where each value goes, as h * W_out + w.");
    AddOutput("Out", "[N, C, H_out, W_out], zero where no index points.");
    AddAttr<std::vector<int>>("ksize", "The pooling window [kh, kw] being undone.");
    AddAttr<std::vector<int>>("strides", "[sh, sw].").SetDefault({1, 1});
    AddAttr<std::vector<int>>("paddings", "[ph, pw].").SetDefault({0, 0});
    AddAttr<std::vector<int>>("output_size",
                              "[H_out, W_out]; empty: (H - 1) sh - 2 ph + kh "
                              "and likewise for W.")
        .SetDefault({});
    // PaddlePaddle's PIR op takes output_size as values computed when the program runs
    // (ENet's decoder passes its encoder's shape); its ProgramDesc op has no such input.
    AddInput("OutputSizeTensorList",
             "Optional one-element int32/int64 tensors [H_out, W_out] (or [N, C, H_out, "
             "W_out], of which the last two count); overrides `output_size`.")
        .AsDuplicable()
        .AsDispensable();
    AddAttr<std::string>("unpooling_type", "Only max.").SetDefault("max").InEnum({"max"});
    AddAttr<std::string>("data_format", "Only NCHW.").SetDefault("NCHW").InEnum({"NCHW"});
    AddComment(R"DOC(
Max unpooling: every value of X goes to the place its index names in its channel's plane,
$$Out[n, c, \lfloor k / W_{out} \rfloor, k \bmod W_{out}] = X[n, c, i, j], \quad
k = Indices[n, c, i, j]$$
and Out is 0 elsewhere (a later value wins where two indices agree). Example: X = [[4]],
Indices = [[2]], output_size [2, 2] -> Out = [[0, 0], [4, 0]].

Gradient, by the fused op unpool_grad: dX[n, c, i, j] = dOut[n, c, Indices[n, c, i, j]].
)DOC");
  }
};

class PoolIndexOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

// pool2d's geometry for the attributes max_pool2d_with_index has (max, NCHW, explicit pads).
Pool2dGeometry ResolveMaxPoolWithIndex(const std::string& op, const DDim& x,
                                       const framework::AttributeMap& attrs) {
  framework::AttributeMap pool = attrs;
  pool["pooling_type"] = std::string("max");
  pool["exclusive"] = true;
  pool["data_format"] = std::string("NCHW");
  pool["padding_algorithm"] = std::string("EXPLICIT");
  for (const char* name : {"global_pooling", "adaptive", "ceil_mode"}) {
    if (!pool.count(name)) pool[name] = false;
  }
  return ResolvePool2d(op, x, pool);
}

void MaxPoolWithIndexInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->RequireOutput("Mask");
  const Pool2dGeometry g =
      ResolveMaxPoolWithIndex(ctx->OpType(), ctx->GetInputDim("X"), ctx->Attrs());
  ctx->SetOutputDim("Out", g.OutputDims());
  ctx->SetOutputDim("Mask", g.OutputDims());
}

void MaxPoolWithIndexInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
  ctx->SetOutputDataType("Mask", DataType::INT32);
}

// [begin, end) of window i of `out` over `in`.
std::pair<int64_t, int64_t> Window(const Pool2dGeometry& g, bool rows, int64_t i) {
  const int64_t in = rows ? g.in_h : g.in_w, out = rows ? g.out_h : g.out_w;
  if (g.adaptive) return {i * in / out, ((i + 1) * in + out - 1) / out};
  const int64_t k = rows ? g.kernel_h : g.kernel_w, s = rows ? g.stride_h : g.stride_w;
  const int64_t start = i * s - (rows ? g.pad_top : g.pad_left);
  return {std::max<int64_t>(start, 0), std::min(start + k, in)};
}

template <typename T>
struct MaxPoolWithIndexKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const Pool2dGeometry g = ResolveMaxPoolWithIndex(ctx.Type(), x->dims(), ctx.op().Attrs());
    DenseTensor out(g.OutputDims(), x->dtype());
    DenseTensor mask(g.OutputDims(), DataType::INT32);
    T* o = out.mutable_data<T>(ctx.GetPlace());
    int32_t* m = mask.mutable_data<int32_t>(ctx.GetPlace());
    PL_ENFORCE(g.in_h * g.in_w <= std::numeric_limits<int32_t>::max(),
               errors::InvalidArgument("op `%s` input `X`: a plane of %lld x %lld elements is "
                                       "beyond the int32 Mask",
                                       ctx.Type(), static_cast<long long>(g.in_h),
                                       static_cast<long long>(g.in_w)));
    const T* in = x->data<T>();
    const int64_t planes = g.batch * g.channels;
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        planes, 1, [&](int64_t begin, int64_t end) {
          for (int64_t p = begin; p < end; ++p) {
            const T* plane = in + p * g.in_h * g.in_w;
            for (int64_t i = 0; i < g.out_h; ++i) {
              const auto [h0, h1] = Window(g, true, i);
              for (int64_t j = 0; j < g.out_w; ++j) {
                const auto [w0, w1] = Window(g, false, j);
                T best = std::numeric_limits<T>::lowest();
                int64_t arg = -1;
                for (int64_t h = h0; h < h1; ++h) {
                  for (int64_t w = w0; w < w1; ++w) {
                    if (arg < 0 || plane[h * g.in_w + w] > best) {
                      best = plane[h * g.in_w + w];
                      arg = h * g.in_w + w;
                    }
                  }
                }
                const int64_t at = (p * g.out_h + i) * g.out_w + j;
                o[at] = arg < 0 ? T(0) : best;
                m[at] = static_cast<int32_t>(arg);
              }
            }
          }
        });
    *ctx.Output("Out") = std::move(out);
    *ctx.Output("Mask") = std::move(mask);
  }
};

void MaxPoolWithIndexGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Mask");
  ctx->RequireInput("Out@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct MaxPoolWithIndexGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* mask = ctx.Input("Mask");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const Pool2dGeometry g = ResolveMaxPoolWithIndex(ctx.Type(), x->dims(), ctx.op().Attrs());
    CheckGradInputShape(ctx.Type(), "Mask", g.OutputDims(), mask->dims());
    CheckGradInputShape(ctx.Type(), "Out@GRAD", g.OutputDims(), dout->dims());
    DenseTensor dx(x->dims(), dout->dtype());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    if (dx.numel() > 0) std::memset(d, 0, sizeof(T) * dx.numel());
    ScatterByIndex(ctx.Type(), "Mask", dout->data<T>(), mask->data<int32_t>(), g.batch * g.channels,
                   g.out_h * g.out_w, g.in_h * g.in_w, true, d);
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

// ---- unpool ----

// Out's dims; `size` is output_size's values (the attribute's, or those of the tensors that
// override it), empty for the default.
DDim UnpoolOutputDims(const std::string& op, const DDim& x, const framework::AttributeMap& attrs,
                      std::vector<int> size) {
  PL_ENFORCE(x.size() == 4, errors::InvalidArgument("op `%s` input `X`: expected rank 4 [N, C, H, "
                                                    "W], received %s",
                                                    op, x.ToString()));
  auto ints = [&](const char* name) { return std::get<std::vector<int>>(attrs.at(name)); };
  const std::vector<int> ksize = ints("ksize"), strides = ints("strides"),
                         paddings = ints("paddings");
  if (size.size() == 4) size.erase(size.begin(), size.begin() + 2);  // [N, C, H, W] given.
  for (const auto& [name, v] : {std::pair<const char*, const std::vector<int>&>{"ksize", ksize},
                                {"strides", strides},
                                {"paddings", paddings}}) {
    PL_ENFORCE(v.size() == 2, errors::InvalidArgument("op `%s` attribute `%s`: expected 2 values, "
                                                      "received %s",
                                                      op, name, ListToString(v)));
  }
  std::vector<int64_t> out = {x[0], x[1], -1, -1};
  for (int d = 0; d < 2; ++d) {
    if (!size.empty()) {
      PL_ENFORCE(size.size() == 2 && size[d] > 0,
                 errors::InvalidArgument("op `%s` attribute `output_size`: expected 2 values > 0, "
                                         "received %s",
                                         op, ListToString(size)));
      out[2 + d] = size[d];
    } else if (x[2 + d] >= 0) {
      out[2 + d] = (x[2 + d] - 1) * strides[d] - 2 * paddings[d] + ksize[d];
      PL_ENFORCE(out[2 + d] > 0,
                 errors::InvalidArgument("op `%s`: output %s would be %lld, expected > 0 (X %s, "
                                         "ksize %s, strides %s, paddings %s)",
                                         op, d == 0 ? "height" : "width",
                                         static_cast<long long>(out[2 + d]), x.ToString(),
                                         ListToString(ksize), ListToString(strides),
                                         ListToString(paddings)));
    }
  }
  CheckShapeValues(op, "output", out, true);
  return DDim(out);
}

std::vector<int> UnpoolSizeAttr(const framework::AttributeMap& attrs) {
  return std::get<std::vector<int>>(attrs.at("output_size"));
}

// output_size at run time: the tensors' values where given, else the attribute.
std::vector<int> UnpoolSize(const ExecutionContext& ctx) {
  if (!ctx.HasInput("OutputSizeTensorList")) return UnpoolSizeAttr(ctx.op().Attrs());
  return ReadSizes(ctx, "OutputSizeTensorList");
}

void UnpoolInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Indices");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  const DDim index = ctx->GetInputDim("Indices");
  bool same = index.size() == x.size();
  for (int i = 0; same && i < x.size(); ++i) same = x[i] < 0 || index[i] < 0 || x[i] == index[i];
  PL_ENFORCE(same, errors::InvalidArgument("op `%s` input `Indices`: expected X's shape %s, "
                                           "received %s",
                                           ctx->OpType(), x.ToString(), index.ToString()));
  if (ctx->HasInput("OutputSizeTensorList")) {
    // Sizes known only when the program runs: the kernel sets them (at run time nothing here).
    if (!ctx->IsRuntime()) {
      const DDim known = UnpoolOutputDims(ctx->OpType(), x, ctx->Attrs(), {});
      ctx->SetOutputDim("Out", DDim({known[0], known[1], -1, -1}));
    }
    return;
  }
  ctx->SetOutputDim("Out",
                    UnpoolOutputDims(ctx->OpType(), x, ctx->Attrs(), UnpoolSizeAttr(ctx->Attrs())));
}

template <typename T, typename I>
void Unpool(const ExecutionContext& ctx, const DenseTensor& x, const DenseTensor& index,
            DenseTensor* out) {
  const DDim& o = out->dims();
  T* dst = out->mutable_data<T>(ctx.GetPlace());
  if (out->numel() > 0) std::memset(dst, 0, sizeof(T) * out->numel());
  ScatterByIndex(ctx.Type(), "Indices", x.data<T>(), index.data<I>(), o[0] * o[1],
                 x.dims()[2] * x.dims()[3], o[2] * o[3], false, dst);
}

void CheckIndices(const ExecutionContext& ctx, const DenseTensor& x, const DenseTensor& index) {
  PL_ENFORCE(
      index.dims() == x.dims() &&
          (index.dtype() == DataType::INT32 || index.dtype() == DataType::INT64),
      errors::InvalidArgument("op `%s` input `Indices`: expected int32 or int64 of X's "
                              "shape %s, received %s %s",
                              ctx.Type(), x.dims().ToString(),
                              platform::DataTypeName(index.dtype()), index.dims().ToString()));
}

template <typename T>
struct UnpoolKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* index = ctx.Input("Indices");
    CheckIndices(ctx, *x, *index);
    DenseTensor out(UnpoolOutputDims(ctx.Type(), x->dims(), ctx.op().Attrs(), UnpoolSize(ctx)),
                    x->dtype());
    if (index->dtype() == DataType::INT32) {
      Unpool<T, int32_t>(ctx, *x, *index, &out);
    } else {
      Unpool<T, int64_t>(ctx, *x, *index, &out);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

void UnpoolGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Indices");
  ctx->RequireInput("Out@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T, typename I>
void GatherByIndex(const ExecutionContext& ctx, const DenseTensor& index, const DenseTensor& dout,
                   DenseTensor* dx) {
  const int64_t planes = dx->dims()[0] * dx->dims()[1];
  const int64_t in_plane = dx->dims()[2] * dx->dims()[3];
  const int64_t out_plane = dout.dims()[2] * dout.dims()[3];
  T* d = dx->mutable_data<T>(ctx.GetPlace());
  const T* g = dout.data<T>();
  const I* idx = index.data<I>();
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t k = 0; k < in_plane; ++k) {
      const int64_t at = static_cast<int64_t>(idx[p * in_plane + k]);
      PL_ENFORCE(at >= 0 && at < out_plane,
                 errors::InvalidArgument("op `%s` input `Indices`: index %lld is outside the "
                                         "%lld elements of an output plane",
                                         ctx.Type(), static_cast<long long>(at),
                                         static_cast<long long>(out_plane)));
      d[p * in_plane + k] = g[p * out_plane + at];
    }
  }
}

template <typename T>
struct UnpoolGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* index = ctx.Input("Indices");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    CheckIndices(ctx, *x, *index);
    CheckGradInputShape(ctx.Type(), "Out@GRAD",
                        UnpoolOutputDims(ctx.Type(), x->dims(), ctx.op().Attrs(), UnpoolSize(ctx)),
                        dout->dims());
    DenseTensor dx(x->dims(), dout->dtype());
    if (index->dtype() == DataType::INT32) {
      GatherByIndex<T, int32_t>(ctx, *index, *dout, &dx);
    } else {
      GatherByIndex<T, int64_t>(ctx, *index, *dout, &dx);
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterPoolWithIndexOps) {
  const framework::FusedGradDecl pool_grad{
      {"X", "Mask"},
      {"Out"},
      {"X"},
      R"DOC($$dX[n, c, Mask[n, c, i, j]] \mathrel{+}= dOut[n, c, i, j]$$)DOC"};
  framework::RegisterOp<PoolIndexOp, MaxPoolWithIndexOpMaker>(kPool)
      .InferShape(MaxPoolWithIndexInferShape)
      .InferVarType(MaxPoolWithIndexInferVarType)
      .GradOpMaker(framework::FusedGradMaker(pool_grad))
      .Checkpoint("attribute ceil_mode", framework::OpVersionDesc().NewAttr(
                                             "ceil_mode", "round the output size up", false));
  RegisterPlainCpuFloatKernels<MaxPoolWithIndexKernel>(kPool);
  framework::RegisterFusedGradOp(kPool, pool_grad).InferShape(MaxPoolWithIndexGradInferShape);
  RegisterPlainCpuFloatKernels<MaxPoolWithIndexGradKernel>(std::string(kPool) + "_grad");

  const framework::FusedGradDecl unpool_grad{
      {"X", "Indices", "OutputSizeTensorList"},  // The last where the forward op has it.
      {"Out"},
      {"X"},
      R"DOC($$dX[n, c, i, j] = dOut[n, c, Indices[n, c, i, j]]$$)DOC"};
  framework::RegisterOp<PoolIndexOp, UnpoolOpMaker>(kUnpool)
      .InferShape(UnpoolInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(unpool_grad));
  RegisterPlainCpuFloatKernels<UnpoolKernel>(kUnpool);
  framework::RegisterFusedGradOp(kUnpool, unpool_grad).InferShape(UnpoolGradInferShape);
  RegisterPlainCpuFloatKernels<UnpoolGradKernel>("unpool_grad");
}

}  // namespace operators
}  // namespace paddle_like

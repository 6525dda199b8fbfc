// pad3d and pad2d: padding of the spatial dims of a 5-D tensor (constant, reflect, replicate,
// circular) and of a 4-D one (constant, reflect, edge; the op of PaddlePaddle 1.x and 2.x
// programs), with their fused gradients pad3d_grad and pad2d_grad. pad2d runs as pad3d with a
// depth of 1.
#include <complex>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "pad3d";
constexpr char kOp2d[] = "pad2d";

class Pad3dOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input [N, C, D, H, W] (NDHWC: [N, D, H, W, C]).");
    AddInput("Paddings", "int32 tensor of 6 values; replaces attribute `paddings`.")
        .AsDispensable();
    AddOutput("Out", "The padded tensor.");
    AddAttr<std::vector<int>>("paddings",
                              "[left, right, top, bottom, front, back]: W, H and D padding.")
        .SetDefault(std::vector<int>(6, 0));
    AddAttr<std::string>("mode", "constant, reflect, replicate or circular.")
        .SetDefault("constant")
        .InEnum({"constant", "reflect", "replicate", "circular"});
    AddAttr<float>("value", "The fill value of mode constant.").SetDefault(0.0f);
    AddAttr<std::string>("data_format", "NCDHW or NDHWC.")
        .SetDefault("NCDHW")
        .InEnum({"NCDHW", "NDHWC"});
    AddComment(R"DOC(
Pads the D, H and W dims of a 5-D tensor. Along each of them, with p_b the padding before
and s the size:
$$Out[\ldots, o, \ldots] = X[\ldots, i(o), \ldots], \quad i(o) = o - p_b \text{ when } 0 \le o - p_b < s$$
and elsewhere by mode:
constant: `value`; reflect: the mirror image without the edge (i = -i, i = 2 (s - 1) - i;
needs each padding < s); replicate: the edge (i clamped to [0, s - 1]); circular: i mod s.
Out dims: D + front + back, H + top + bottom, W + left + right. Example: X [1, 1, 1, 1, 3] =
[1, 2, 3] with paddings [2, 1, 0, 0, 0, 0], mode reflect, gives [3, 2, 1, 2, 3, 2].

Gradient, by the fused op pad3d_grad: dX[i] is the sum of dOut over the output indices that
read i.
)DOC");
  }
};

class Pad2dOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input [N, C, H, W] (NHWC: [N, H, W, C]).");
    AddInput("Paddings", "int32 tensor of 4 values; replaces attribute `paddings`.")
        .AsDispensable();
    AddOutput("Out", "The padded tensor.");
    AddAttr<std::vector<int>>("paddings", "[top, bottom, left, right]: H and W padding.")
        .SetDefault(std::vector<int>(4, 0));
    AddAttr<std::string>("mode", "constant, reflect or edge.")
        .SetDefault("constant")
        .InEnum({"constant", "reflect", "edge"});
    AddAttr<float>("pad_value", "The fill value of mode constant.").SetDefault(0.0f);
    AddAttr<std::string>("data_format", "NCHW or NHWC.").SetDefault("NCHW").InEnum({"NCHW", "NHWC"});
    AddComment(R"DOC(
Pads the H and W dims of a 4-D tensor. Along each of them, with p_b the padding before and s
the size:
$$Out[\ldots, o, \ldots] = X[\ldots, i(o), \ldots], \quad i(o) = o - p_b \text{ when } 0 \le o - p_b < s$$
and elsewhere by mode: constant: `pad_value`; reflect: the mirror image without the edge
(needs each padding < s); edge: the edge element. Out dims: H + top + bottom, W + left +
right. Example: X [1, 1, 1, 3] = [1, 2, 3] with paddings [0, 0, 2, 1], mode edge, gives
[1, 1, 1, 2, 3, 3].

Gradient, by the fused op pad2d_grad: dX[i] is the sum of dOut over the output indices that
read i.
)DOC");
  }
};

class Pad3dOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
  bool CastsInput(const std::string& slot, DataType, DataType) const override {
    return slot != "Paddings";
  }
};

// The input index each output index of one axis reads (-1: the constant).
std::vector<int64_t> AxisSources(const std::string& mode, int64_t size, int64_t before,
                                 int64_t after) {
  std::vector<int64_t> src(static_cast<size_t>(size + before + after));
  for (int64_t o = 0; o < static_cast<int64_t>(src.size()); ++o) {
    int64_t i = o - before;
    if (i < 0 || i >= size) {
      if (mode == "constant") {
        i = -1;
      } else if (mode == "reflect") {
        i = i < 0 ? -i : 2 * (size - 1) - i;
      } else if (mode == "replicate") {
        i = i < 0 ? 0 : size - 1;
      } else {
        i = ((i % size) + size) % size;
      }
    }
    src[static_cast<size_t>(o)] = i;
  }
  return src;
}

struct Pad3dGeometry {
  bool channel_last = false;
  bool two_d = false;  // pad2d: X and Out have no D dim (in[0] is 1).
  int64_t n = 0, c = 0;
  int64_t in[3] = {0, 0, 0};    // D, H, W.
  int64_t pads[6] = {0, 0, 0, 0, 0, 0};  // As pad3d's attribute: W, H, D pairs.
  std::string mode;  // pad3d's names: pad2d's edge is replicate.
  DDim OutDims() const {
    const int64_t d = in[0] + pads[4] + pads[5], h = in[1] + pads[2] + pads[3];
    const int64_t w = in[2] + pads[0] + pads[1];
    if (two_d) return channel_last ? DDim{n, h, w, c} : DDim{n, c, h, w};
    return channel_last ? DDim{n, d, h, w, c} : DDim{n, c, d, h, w};
  }
};

bool IsPad2d(const std::string& op) { return op.rfind(kOp2d, 0) == 0; }

// Checks X and the paddings (values from `pads`) against the attributes of pad3d or pad2d
// (`op` tells which).
Pad3dGeometry ResolvePad3d(const std::string& op, const DDim& x, const std::vector<int64_t>& pads,
                           const framework::AttributeMap& attrs) {
  const bool two_d = IsPad2d(op);
  const int rank = two_d ? 4 : 5;
  PL_ENFORCE(x.size() == rank, errors::InvalidArgument(
                                   "op `%s` input `X`: expected rank %d, received shape %s", op,
                                   rank, x.ToString()));
  PL_ENFORCE(pads.size() == static_cast<size_t>(2 * (rank - 2)),
             errors::InvalidArgument("op `%s` paddings: expected %s, received %zu values", op,
                                     two_d ? "4 values [top, bottom, left, right]"
                                           : "6 values [left, right, top, bottom, front, back]",
                                     pads.size()));
  Pad3dGeometry g;
  g.two_d = two_d;
  const std::string format = std::get<std::string>(attrs.at("data_format"));
  g.channel_last = format == "NDHWC" || format == "NHWC";
  g.mode = std::get<std::string>(attrs.at("mode"));
  if (g.mode == "edge") g.mode = "replicate";
  g.n = x[0];
  g.c = g.channel_last ? x[rank - 1] : x[1];
  const int first_spatial = g.channel_last ? 1 : 2;
  g.in[0] = 1;
  for (int a = 0; a < rank - 2; ++a) g.in[3 - (rank - 2) + a] = x[first_spatial + a];
  // pad2d's [top, bottom, left, right] as pad3d's [left, right, top, bottom, front, back].
  const std::vector<int64_t> pads6 =
      two_d ? std::vector<int64_t>{pads[2], pads[3], pads[0], pads[1], 0, 0} : pads;
  const char* names[3] = {"W", "H", "D"};
  for (int k = 0; k < 6; ++k) {
    g.pads[k] = pads6[static_cast<size_t>(k)];
    PL_ENFORCE(g.pads[k] >= 0 && g.pads[k] <= (int64_t{1} << 40),
               errors::InvalidArgument("op `%s` paddings: expected values >= 0, received %d for "
                                       "%s",
                                       op, g.pads[k], names[k / 2]));
    const int64_t size = g.in[2 - k / 2];
    if (size < 0) continue;
    if (g.mode == "reflect") {
      PL_ENFORCE(g.pads[k] < size,
                 errors::InvalidArgument("op `%s` mode reflect: the padding of %s (%d) must be "
                                         "smaller than its size %d (X shape %s)",
                                         op, names[k / 2], g.pads[k], size, x.ToString()));
    } else if (g.mode != "constant") {
      PL_ENFORCE(size > 0 || g.pads[k] == 0,
                 errors::InvalidArgument("op `%s` mode %s: %s has size 0 and cannot be padded "
                                         "(X shape %s)",
                                         op, g.mode, names[k / 2], x.ToString()));
    }
  }
  return g;
}

std::vector<int64_t> PaddingsOf(const ExecutionContext& ctx) {
  if (ctx.HasInput("Paddings")) return ReadIntValues(*ctx.Input("Paddings"), ctx.Type(), "Paddings");
  const auto& p = ctx.Attr<std::vector<int>>("paddings");
  return std::vector<int64_t>(p.begin(), p.end());
}

void Pad3dInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  if (ctx->IsRuntime()) return;  // The kernel resolves the paddings, which may be a tensor.
  const DDim x = ctx->GetInputDim("X");
  const auto& attr = ctx->Attr<std::vector<int>>("paddings");
  const Pad3dGeometry g =
      ResolvePad3d(ctx->OpType(), x, std::vector<int64_t>(attr.begin(), attr.end()), ctx->Attrs());
  DDim out = g.OutDims();
  // Unknown input dims, or paddings from a tensor, leave the padded dims unknown.
  const int rank = x.size();
  for (int i = 0; i < rank; ++i) {
    if (x[i] < 0 ||
        (ctx->HasInput("Paddings") && i != 0 && i != (g.channel_last ? rank - 1 : 1))) {
      out[i] = -1;
    }
  }
  ctx->SetOutputDim("Out", out);
}

// Calls fn(out_index, in_index or -1) for every output element.
template <typename Fn>
void ForEachPadded(const Pad3dGeometry& g, Fn&& fn) {
  const auto sd = AxisSources(g.mode, g.in[0], g.pads[4], g.pads[5]);
  const auto sh = AxisSources(g.mode, g.in[1], g.pads[2], g.pads[3]);
  const auto sw = AxisSources(g.mode, g.in[2], g.pads[0], g.pads[1]);
  const int64_t od = static_cast<int64_t>(sd.size()), oh = static_cast<int64_t>(sh.size());
  const int64_t ow = static_cast<int64_t>(sw.size());
  int64_t o = 0;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t c0 = 0; c0 < (g.channel_last ? 1 : g.c); ++c0) {
      for (int64_t d = 0; d < od; ++d) {
        for (int64_t h = 0; h < oh; ++h) {
          for (int64_t w = 0; w < ow; ++w) {
            const bool inside = sd[d] >= 0 && sh[h] >= 0 && sw[w] >= 0;
            const int64_t spatial = inside ? (sd[d] * g.in[1] + sh[h]) * g.in[2] + sw[w] : -1;
            if (g.channel_last) {
              for (int64_t c = 0; c < g.c; ++c, ++o) {
                fn(o, inside ? ((n * g.in[0] * g.in[1] * g.in[2]) + spatial) * g.c + c : -1);
              }
            } else {
              const int64_t base = (n * g.c + c0) * g.in[0] * g.in[1] * g.in[2];
              fn(o++, inside ? base + spatial : -1);
            }
          }
        }
      }
    }
  }
}

template <typename T>
struct Pad3dKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    const Pad3dGeometry g = ResolvePad3d(ctx.Type(), x.dims(), PaddingsOf(ctx), ctx.op().Attrs());
    DenseTensor* out = ctx.Output("Out");
    out->Resize(g.OutDims());
    T* o = out->mutable_data<T>(ctx.GetPlace());
    const T* in = x.data<T>();
    const T value = static_cast<T>(ctx.Attr<float>(IsPad2d(ctx.Type()) ? "pad_value" : "value"));
    ForEachPadded(g, [&](int64_t dst, int64_t src) { o[dst] = src >= 0 ? in[src] : value; });
  }
};

template <typename T>
struct Pad3dGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const Pad3dGeometry g = ResolvePad3d(ctx.Type(), x->dims(), PaddingsOf(ctx), ctx.op().Attrs());
    PL_ENFORCE(dout->dims() == g.OutDims(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                       ctx.Type(), g.OutDims().ToString(),
                                       dout->dims().ToString()));
    DenseTensor fresh(x->dims(), dout->dtype());
    T* dx = fresh.mutable_data<T>(ctx.GetPlace());
    std::fill(dx, dx + fresh.numel(), T(0));
    const T* dy = dout->data<T>();
    ForEachPadded(g, [&](int64_t dst, int64_t src) {
      if (src >= 0) dx[src] += dy[dst];
    });
    *ctx.Output("X@GRAD") = std::move(fresh);
  }
};

void PadGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("X@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename Maker>
void RegisterPadOp(const char* op) {
  const framework::FusedGradDecl grad{
      {"X", "Paddings"},
      {"Out"},
      {"X"},
      R"DOC($$dX[i] = \sum_{o:\ Out[o] \text{ reads } X[i]} dOut[o]$$)DOC"};
  framework::RegisterOp<Pad3dOp, Maker>(op)
      .InferShape(Pad3dInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuKernels<Pad3dKernel, float, double, int32_t, int64_t, std::complex<float>,
                          std::complex<double>>(op);
  framework::RegisterFusedGradOp(op, grad).InferShape(PadGradInferShape);
  RegisterPlainCpuKernels<Pad3dGradKernel, float, double, std::complex<float>,
                          std::complex<double>>(std::string(op) + "_grad");
}

}  // namespace

PL_REGISTER_OPS(RegisterPadOps) {
  RegisterPadOp<Pad3dOpMaker>(kOp);
  RegisterPadOp<Pad2dOpMaker>(kOp2d);
}

}  // namespace operators
}  // namespace paddle_like

// box_coder: encodes boxes as offsets from prior boxes, or decodes such offsets, in
// PaddlePaddle's center-size code.
#include <string>
#include <vector>

#include "operators/common.h"
#include "operators/detection/box_coder_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

class BoxCoderOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("PriorBox", "[M, 4] prior boxes [x_min, y_min, x_max, y_max].");
    AddInput("PriorBoxVar", "[M, 4] per-prior variances; overrides `variance`.").AsDispensable();
    AddInput("TargetBox", "encode: [N, 4] boxes; decode: [N, M, 4] offsets (axis 0) or "
                          "[M, N', 4] (axis 1).");
    AddOutput("OutputBox", "[N, M, 4] (decode: TargetBox's shape).");
    AddAttr<std::string>("code_type", "encode_center_size or decode_center_size.")
        .SetDefault("encode_center_size")
        .InEnum({"encode_center_size", "decode_center_size"});
    AddAttr<bool>("box_normalized", "Coordinates in [0, 1] (else pixels: width + 1).")
        .SetDefault(true);
    AddAttr<int>("axis", "decode: the TargetBox dim the priors run along (0 or 1).")
        .SetDefault(0)
        .InEnum({0, 1});
    AddAttr<std::vector<float>>("variance", "Four variances when PriorBoxVar is absent; empty = "
                                            "1.")
        .SetDefault(std::vector<float>{});
    AddComment(R"DOC(
Box coder operator.

With a prior's width p_w = x_max - x_min (+1 unless normalized), height p_h and centre
(p_x, p_y), and variances v:
encode (target box t with centre t_x, t_y and size t_w, t_h):
$$o = [(t_x - p_x) / p_w / v_0,\ (t_y - p_y) / p_h / v_1,\ \log|t_w / p_w| / v_2,\
       \log|t_h / p_h| / v_3]$$
decode (offsets o): centre c = (v_0 o_0 p_w + p_x, v_1 o_1 p_h + p_y), size
(e^{v_2 o_2} p_w, e^{v_3 o_3} p_h), output [c - size / 2, c + size / 2] (minus 1 on the
maximum unless normalized). Decode uses prior j for TargetBox[i, j] with axis 0 and prior i
with axis 1.
)DOC");
  }
};

class BoxCoderOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "PriorBox");
  }
};

struct CoderShape {
  bool encode = true;
  int64_t rows = 0, cols = 0;  // OutputBox [rows, cols, 4].
};

CoderShape Check(const std::string& op, const DDim& prior, const DDim* var, const DDim& target,
                 const framework::AttributeMap& attrs) {
  PL_ENFORCE(prior.size() == 2 && (prior[1] == 4 || prior[1] < 0),
             errors::InvalidArgument("op `%s` input `PriorBox`: expected [M, 4], received %s", op,
                                     prior.ToString()));
  if (var != nullptr) {
    PL_ENFORCE(*var == prior || var->HasUnknown() || prior.HasUnknown(),
               errors::InvalidArgument("op `%s` input `PriorBoxVar`: expected PriorBox's shape "
                                       "%s, received %s",
                                       op, prior.ToString(), var->ToString()));
  }
  const auto& variance = std::get<std::vector<float>>(attrs.at("variance"));
  PL_ENFORCE(variance.empty() || variance.size() == 4,
             errors::InvalidArgument("op `%s` attribute `variance`: expected none or 4 values, "
                                     "received %zu",
                                     op, variance.size()));
  CoderShape s;
  s.encode = std::get<std::string>(attrs.at("code_type")) == "encode_center_size";
  if (s.encode) {
    PL_ENFORCE(target.size() == 2 && (target[1] == 4 || target[1] < 0),
               errors::InvalidArgument("op `%s` input `TargetBox`: expected [N, 4] to encode, "
                                       "received %s",
                                       op, target.ToString()));
    s.rows = target[0];
    s.cols = prior[0];
    return s;
  }
  PL_ENFORCE(target.size() == 3 && (target[2] == 4 || target[2] < 0),
             errors::InvalidArgument("op `%s` input `TargetBox`: expected [N, M, 4] to decode, "
                                     "received %s",
                                     op, target.ToString()));
  // axis 0: TargetBox[i, j] uses prior j (priors along dim 1); axis 1: prior i.
  const int prior_dim = std::get<int>(attrs.at("axis")) == 0 ? 1 : 0;
  const int64_t along = target[prior_dim];
  PL_ENFORCE(along < 0 || prior[0] < 0 || along == prior[0],
             errors::InvalidArgument("op `%s` input `TargetBox`: expected dim %d to equal the "
                                     "%lld priors, received %s",
                                     op, prior_dim, static_cast<long long>(prior[0]),
                                     target.ToString()));
  s.rows = target[0];
  s.cols = target[1];
  return s;
}

void BoxCoderInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("PriorBox");
  ctx->RequireInput("TargetBox");
  ctx->RequireOutput("OutputBox");
  const DDim var = ctx->HasInput("PriorBoxVar") ? ctx->GetInputDim("PriorBoxVar") : DDim();
  const CoderShape s = Check(ctx->OpType(), ctx->GetInputDim("PriorBox"),
                             ctx->HasInput("PriorBoxVar") ? &var : nullptr,
                             ctx->GetInputDim("TargetBox"), ctx->Attrs());
  ctx->SetOutputDim("OutputBox", DDim{s.rows, s.cols, 4});
}

template <typename T>
struct BoxCoderKernel {
  static void Compute(const ExecutionContext& ctx) {
    const box_coder::BoxCoderParams c = box_coder::ResolveBoxCoder(ctx);
    const DenseTensor* prior = ctx.Input("PriorBox");
    const DenseTensor* var = ctx.HasInput("PriorBoxVar") ? ctx.Input("PriorBoxVar") : nullptr;
    const DenseTensor* target = ctx.Input("TargetBox");
    DenseTensor fresh(DDim{c.rows, c.cols, 4}, prior->dtype());
    T* out = fresh.mutable_data<T>(ctx.GetPlace());
    const T* p = prior->numel() > 0 ? prior->data<T>() : nullptr;
    const T* t = target->numel() > 0 ? target->data<T>() : nullptr;
    const T* v = var != nullptr && var->numel() > 0 ? var->data<T>() : nullptr;
    for (int64_t i = 0; i < c.rows; ++i) {
      for (int64_t j = 0; j < c.cols; ++j) {
        box_coder::CodeBox(c, p, v, t, i, j, out + (i * c.cols + j) * 4);
      }
    }
    *ctx.Output("OutputBox") = std::move(fresh);
  }
};

}  // namespace

namespace box_coder {

BoxCoderParams ResolveBoxCoder(const ExecutionContext& ctx) {
  const DenseTensor* var = ctx.HasInput("PriorBoxVar") ? ctx.Input("PriorBoxVar") : nullptr;
  const DDim var_dims = var ? var->dims() : DDim();
  const CoderShape s = Check(ctx.Type(), ctx.Input("PriorBox")->dims(),
                             var ? &var_dims : nullptr, ctx.Input("TargetBox")->dims(),
                             ctx.op().Attrs());
  BoxCoderParams c;
  c.encode = s.encode;
  c.rows = s.rows;
  c.cols = s.cols;
  c.normalized = ctx.Attr<bool>("box_normalized");
  c.axis = ctx.Attr<int>("axis");
  const auto& variance = ctx.Attr<std::vector<float>>("variance");
  for (size_t q = 0; q < variance.size(); ++q) c.variance[q] = variance[q];  // 0 or 4 (Check).
  return c;
}

}  // namespace box_coder

PL_REGISTER_OPS(RegisterBoxCoderOp) {
  framework::RegisterOp<BoxCoderOp, BoxCoderOpMaker>("box_coder").InferShape(BoxCoderInferShape);
  RegisterPlainCpuFloatKernels<BoxCoderKernel>("box_coder");
}

}  // namespace operators
}  // namespace paddle_like

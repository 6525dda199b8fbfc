#include "operators/nn/conv_fusion.h"

#include "operators/common.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace operators {

namespace {

bool DimsFit(const framework::DDim& want, const framework::DDim& got) {
  if (want.size() != got.size()) return false;
  for (int i = 0; i < want.size(); ++i) {
    if (want[i] >= 0 && got[i] >= 0 && want[i] != got[i]) return false;
  }
  return true;
}

}  // namespace

ConvFusion ResolveConvFusion(const std::string& op, const framework::AttributeMap& attrs,
                             const Conv2dGeometry& g, const framework::DDim* bias,
                             const framework::DDim* residual) {
  PL_ENFORCE(!FlagAttr(attrs, "fuse_relu_before_depthwise_conv"),
             errors::Unimplemented("op `%s` attribute `fuse_relu_before_depthwise_conv`: a relu "
                                   "of the input inside the convolution is not implemented",
                                   op));
  ConvFusion f;
  f.act = ReadFusedActivation(op, attrs);
  if (bias != nullptr) {
    const framework::DDim want{g.out_c};
    PL_ENFORCE(DimsFit(want, *bias),
               errors::InvalidArgument("op `%s` input `Bias`: expected shape %s (one value per "
                                       "output channel), received %s",
                                       op, want.ToString(), bias->ToString()));
    f.bias = true;
  }
  if (FlagAttr(attrs, "fuse_residual_connection")) {
    PL_ENFORCE(residual != nullptr,
               errors::InvalidArgument("op `%s` input `ResidualData`: attribute "
                                       "`fuse_residual_connection` is set but the input is absent",
                                       op));
    PL_ENFORCE(DimsFit(g.OutputDims(), *residual),
               errors::InvalidArgument("op `%s` input `ResidualData`: expected the output's shape "
                                       "%s, received %s",
                                       op, g.OutputDims().ToString(), residual->ToString()));
    f.residual = true;
  }
  return f;
}

template <typename T>
void ApplyConvFusion(const ConvFusion& f, const Conv2dGeometry& g, const T* bias,
                     const T* residual, T* out) {
  const int64_t plane = g.out_h * g.out_w;
  const int64_t n = g.batch * g.out_c * plane;
  if (f.bias) {
    if (g.channel_last) {
      for (int64_t i = 0; i < n; ++i) out[i] += bias[i % g.out_c];
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] += bias[(i / plane) % g.out_c];
    }
  }
  if (f.residual) {
    for (int64_t i = 0; i < n; ++i) out[i] += residual[i];
  }
  ApplyFusedActivation(f.act, out, n);
}

template void ApplyConvFusion<float>(const ConvFusion&, const Conv2dGeometry&, const float*,
                                     const float*, float*);
template void ApplyConvFusion<double>(const ConvFusion&, const Conv2dGeometry&, const double*,
                                      const double*, double*);

}  // namespace operators
}  // namespace paddle_like

// conv3d, conv3d_transpose, pool3d and max_pool3d_with_index on volumes [N, C, D, H, W] (NDHWC with
// data_format), as PaddlePaddle computes them, with their fused gradient ops. conv3d unfolds each
// image's windows into columns (vol2col) for one GEMM per group; conv3d_transpose is the input
// gradient of the conv3d it undoes (a GEMM per group, then the columns summed back, col2vol);
// pool3d takes the max or the average of each window (fixed, adaptive or global).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/common.h"
#include "operators/math/blas.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

// The attributes that place the windows of both ops on the volume.
class VolumeOpMaker : public OpProtoAndCheckerMaker {
 protected:
  void AddWindowAttrs() {
    AddAttr<std::vector<int>>("strides", "[s_d, s_h, s_w].").SetDefault(std::vector<int>{1, 1, 1});
    AddAttr<std::vector<int>>("paddings", "[p_d, p_h, p_w] or [d0, d1, h0, h1, w0, w1].")
        .SetDefault(std::vector<int>{0, 0, 0});
    AddAttr<std::string>("padding_algorithm", "EXPLICIT, SAME or VALID.")
        .SetDefault("EXPLICIT")
        .InEnum({"EXPLICIT", "SAME", "VALID"});
    AddAttr<std::string>("data_format", "NCDHW or NDHWC.")
        .SetDefault("NCDHW")
        .InEnum({"NCDHW", "NDHWC", "AnyLayout"});
  }
};

class Conv3dOpMaker : public VolumeOpMaker {
 public:
  void Make() override {
    AddInput("Input", "Volumes [N, C, D, H, W] (NDHWC: [N, D, H, W, C]).");
    AddInput("Filter", "Filter [M, C / groups, k_d, k_h, k_w].");
    AddOutput("Output", "[N, M, D_out, H_out, W_out] (NDHWC: channels last).");
    AddWindowAttrs();
    AddAttr<int>("groups", "Channel groups: C and M divisible by it.").SetDefault(1);
    AddAttr<std::vector<int>>("dilations", "[d_d, d_h, d_w].")
        .SetDefault(std::vector<int>{1, 1, 1});
    AddAttr<bool>("use_addto", "How GPU kernels accumulate gradients (no effect here).")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
3-D convolution:
$$Output[n, o, z, y, x] = \sum_{c \in group(o)} \sum_{i, j, k} Filter[o, c, i, j, k] \,
  Input[n, c, z s_d - p_{d0} + i d_d, \ y s_h - p_{h0} + j d_h, \ x s_w - p_{w0} + k d_w]$$
(0 outside the volume). Output size per axis: (in + p_0 + p_1 - (d (k - 1) + 1)) / s + 1.
SAME pads so that out = ceil(in / s) (dilation 1), VALID pads nothing.

Gradient (fused op): Input@GRAD and Filter@GRAD through the same columns.
)DOC");
  }
};

class Conv3dTransposeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "Volumes [N, C_in, D, H, W] (NDHWC: [N, D, H, W, C_in]).");
    AddInput("Filter", "Filter [C_in, C_out / groups, k_d, k_h, k_w].");
    AddOutput("Output", "[N, C_out, D_out, H_out, W_out] (NDHWC: channels last).");
    AddAttr<std::vector<int>>("output_padding",
                              "Extra [d, h, w] at the far end of each axis (each below "
                              "max(stride, dilation)); empty = none.")
        .SetDefault(std::vector<int>{});
    AddAttr<std::vector<int>>("output_size",
                              "[D_out, H_out, W_out], each within [natural, natural + stride); "
                              "empty = the natural size. Overrides output_padding.")
        .SetDefault(std::vector<int>{});
    AddAttr<int>("groups", "Channel groups: C_in divisible by it.").SetDefault(1);
    AddAttr<std::vector<int>>("strides", "[s_d, s_h, s_w].").SetDefault(std::vector<int>{1, 1, 1});
    AddAttr<std::vector<int>>("paddings", "[p_d, p_h, p_w] or [d0, d1, h0, h1, w0, w1].")
        .SetDefault(std::vector<int>{0, 0, 0});
    AddAttr<std::string>("padding_algorithm",
                         "EXPLICIT, SAME (the paddings conv3d would take over Input; dilations "
                         "become 1) or VALID.")
        .SetDefault("EXPLICIT")
        .InEnum({"EXPLICIT", "SAME", "VALID"});
    AddAttr<std::vector<int>>("dilations", "[d_d, d_h, d_w].")
        .SetDefault(std::vector<int>{1, 1, 1});
    AddAttr<std::string>("data_format",
                         "NHWC: channels last ([N, D, H, W, C]); any other value, NDHWC "
                         "included (as PaddlePaddle reads it for this op): channels first.")
        .SetDefault("NCHW")
        .InEnum({"NCHW", "NCDHW", "NHWC", "NDHWC", "AnyLayout"});
    AddComment(R"DOC(
Transposed 3-D convolution: every input cell scatters the filter, scaled, into the output.
With G = groups, C_g = C_in / G, M_g = C_out / G and input channel c in group g:
$$Output[n, g M_g + m, z s_d - p_{d0} + i d_d, \ y s_h - p_{h0} + j d_h, \ x s_w - p_{w0} + k d_w]
  \mathrel{+}= Filter[c, m, i, j, k] \cdot Input[n, c, z, y, x]$$
(positions in the paddings dropped). Output size per axis:
$$out = (in - 1) s - p_0 - p_1 + d (k - 1) + 1$$
plus output_padding, or output_size when given (within [out, out + s)). SAME pads as conv3d
would over this op's input (for ceil(in / s) outputs), VALID pads nothing. This is the input gradient of
conv3d with the same filter and attributes.

Gradient (fused op conv3d_transpose_grad, first order only): dInput is conv3d of dOutput
with Filter; dFilter correlates Input with the columns of dOutput.
)DOC");
  }
};

class MaxPool3dWithIndexOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Volumes [N, C, D, H, W].");
    AddOutput("Out", "[N, C, D_out, H_out, W_out]: the maximum of each window.");
    AddOutput("Mask",
              "int32, Out's shape: where each maximum is, as (d H + h) W + w within its "
              "channel's [D, H, W] volume.");
    AddAttr<std::vector<int>>("ksize", "Window [k_d, k_h, k_w] (the output size when adaptive).");
    AddAttr<std::vector<int>>("strides", "[s_d, s_h, s_w].").SetDefault({1, 1, 1});
    AddAttr<std::vector<int>>("paddings", "[p_d, p_h, p_w] or [d0, d1, h0, h1, w0, w1].")
        .SetDefault({0, 0, 0});
    AddAttr<bool>("global_pooling", "One window over the whole volume.").SetDefault(false);
    AddAttr<bool>("adaptive", "ksize is the output size; windows split the volume evenly.")
        .SetDefault(false);
    AddAttr<bool>("ceil_mode", "Round the output size up (a last window may be partial).")
        .SetDefault(false);
    AddComment(R"DOC(
3-D max pooling with indices: for the window W(z, y, x) of each output cell, clipped to the
volume,
$$Out[n, c, z, y, x] = \max_{(d, h, w) \in W} X[n, c, d, h, w], \qquad
Mask[n, c, z, y, x] = (d^* H + h^*) W + w^*$$
with (d*, h*, w*) the first strict maximum in row-major order (NaNs never taken); a window
holding no value above -FLT_MAX (or wholly in the padding) gives Out -FLT_MAX and Mask -1,
as in PaddlePaddle.

Gradient, by the fused op max_pool3d_with_index_grad: dX[n, c, Mask] += dOut.
)DOC");
  }
};

class Pool3dOpMaker : public VolumeOpMaker {
 public:
  void Make() override {
    AddInput("X", "Volumes [N, C, D, H, W] (NDHWC: [N, D, H, W, C]).");
    AddOutput("Out", "Pooled volumes.");
    AddAttr<std::string>("pooling_type", "max or avg.").InEnum({"max", "avg"});
    AddAttr<std::vector<int>>("ksize", "Window [k_d, k_h, k_w] (output size when adaptive).");
    AddAttr<bool>("global_pooling", "One window over the whole volume.").SetDefault(false);
    AddWindowAttrs();
    AddAttr<bool>("exclusive",
                  "avg divides by the window's cells inside the volume (else by "
                  "k_d k_h k_w).")
        .SetDefault(true);
    AddAttr<bool>("adaptive", "ksize is the output size; windows split the volume evenly.")
        .SetDefault(false);
    AddAttr<bool>("ceil_mode", "Round the output size up.").SetDefault(false);
    AddAttr<bool>("use_cudnn", "Prefer a cuDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddComment(R"DOC(
3-D pooling. Window of output cell o along an axis: [o s - p_0, o s - p_0 + k) clipped to
[0, in) (adaptive: [floor(o in / out), ceil((o + 1) in / out))); global: the whole axis.
$$Out = \max_{window} X \quad \text{or} \quad Out = \frac{1}{|W|} \sum_{window} X$$
with |W| the window's cells inside the volume (exclusive, adaptive), else the product over
the axes of min(o s - p_0 + k, in + p_0) - (o s - p_0) (k_d k_h k_w unless ceil_mode or a
larger trailing padding let a window reach past the input and its leading padding). Output size
per axis: (in + p_0 + p_1 - k) / s + 1, rounded up with ceil_mode; a window that ceil_mode puts
wholly in the padding gives the lowest finite value (max) or 0 (avg).

Gradient (fused op): max sends each output gradient to the first maximum of its window, avg
spreads it evenly over the window.
)DOC");
  }
};

struct Axis {
  int64_t in = 0, k = 1, stride = 1, dil = 1, pad0 = 0, pad1 = 0, out = 0;
};

struct VolumeGeometry {
  bool channel_last = false;
  int64_t n = 0, c = 0;
  Axis ax[3];  // D, H, W.
  int64_t InCells() const { return ax[0].in * ax[1].in * ax[2].in; }
  int64_t OutCells() const { return ax[0].out * ax[1].out * ax[2].out; }
  DDim Dims(int64_t channels, bool out) const {
    std::vector<int64_t> d = {n};
    if (!channel_last) d.push_back(channels);
    for (const Axis& a : ax) d.push_back(out ? a.out : a.in);
    if (channel_last) d.push_back(channels);
    return DDim(d);
  }
};

std::vector<int64_t> Triple(const std::string& op, const framework::AttributeMap& attrs,
                            const char* name) {
  const auto& v = std::get<std::vector<int>>(attrs.at(name));
  PL_ENFORCE(v.size() == 3, errors::InvalidArgument("op `%s` attribute `%s`: expected 3 values, "
                                                    "received %zu",
                                                    op, name, v.size()));
  for (int x : v) {
    PL_ENFORCE(x > 0, errors::InvalidArgument("op `%s` attribute `%s`: expected values > 0, "
                                              "received %d",
                                              op, name, x));
  }
  return {v[0], v[1], v[2]};
}

bool NdhwcFormat(const framework::AttributeMap& attrs) {
  return std::get<std::string>(attrs.at("data_format")) == "NDHWC";
}

// Reads the sizes, strides, dilations and paddings common to the ops; the kernel size `k`
// per axis and the layout are given. Output sizes are left to the caller.
VolumeGeometry ResolveVolume(const std::string& op, const DDim& x,
                             const framework::AttributeMap& attrs, const int64_t k[3], bool conv,
                             bool channel_last) {
  PL_ENFORCE(x.size() == 5, errors::InvalidArgument("op `%s` input `%s`: expected a 5-D volume, "
                                                    "received shape %s",
                                                    op, conv ? "Input" : "X", x.ToString()));
  VolumeGeometry g;
  g.channel_last = channel_last;
  g.n = x[0];
  g.c = g.channel_last ? x[4] : x[1];
  const auto strides = Triple(op, attrs, "strides");
  const std::vector<int64_t> dil =
      conv ? Triple(op, attrs, "dilations") : std::vector<int64_t>{1, 1, 1};
  const auto& p = std::get<std::vector<int>>(attrs.at("paddings"));
  PL_ENFORCE(p.size() == 3 || p.size() == 6,
             errors::InvalidArgument("op `%s` attribute `paddings`: expected 3 or 6 values, "
                                     "received %zu",
                                     op, p.size()));
  for (int v : p) {
    PL_ENFORCE(v >= 0, errors::InvalidArgument("op `%s` attribute `paddings`: expected values "
                                               ">= 0, received %d",
                                               op, v));
  }
  const std::string& algorithm = std::get<std::string>(attrs.at("padding_algorithm"));
  for (int a = 0; a < 3; ++a) {
    Axis& ax = g.ax[a];
    ax.in = g.channel_last ? x[1 + a] : x[2 + a];
    ax.k = k[a];
    ax.stride = strides[static_cast<size_t>(a)];
    ax.dil = dil[static_cast<size_t>(a)];
    ax.pad0 = p.size() == 3 ? p[a] : p[2 * a];
    ax.pad1 = p.size() == 3 ? p[a] : p[2 * a + 1];
    if (algorithm == "SAME") {
      ax.dil = 1;
      const int64_t out = (ax.in + ax.stride - 1) / ax.stride;
      const int64_t sum = std::max<int64_t>((out - 1) * ax.stride + ax.k - ax.in, 0);
      ax.pad0 = sum / 2;
      ax.pad1 = sum - sum / 2;
    } else if (algorithm == "VALID") {
      ax.pad0 = ax.pad1 = 0;
    }
  }
  return g;
}

const char* const kAxisNames[] = {"depth", "height", "width"};

void SetOutputSizes(const std::string& op, const DDim& x, bool ceil_mode, VolumeGeometry* g) {
  for (int a = 0; a < 3; ++a) {
    Axis& ax = g->ax[a];
    if (ax.in < 0) {
      ax.out = -1;
      continue;
    }
    const int64_t span =
        ax.in + ax.pad0 + ax.pad1 - (ax.dil * (ax.k - 1) + 1) + (ceil_mode ? ax.stride - 1 : 0);
    ax.out = span >= 0 ? span / ax.stride + 1 : 0;
    PL_ENFORCE(ax.out > 0, errors::InvalidArgument(
                               "op `%s`: output %s would be %lld, expected > 0 (input "
                               "%s, window %lld, paddings [%lld, %lld], stride %lld)",
                               op, kAxisNames[a], static_cast<long long>(ax.out), x.ToString(),
                               static_cast<long long>(ax.k), static_cast<long long>(ax.pad0),
                               static_cast<long long>(ax.pad1), static_cast<long long>(ax.stride)));
  }
}

struct ConvGeometry {
  VolumeGeometry v;
  int64_t m = 0, groups = 1;
};

ConvGeometry ResolveConv3d(const std::string& op, const DDim& input, const DDim& filter,
                           const framework::AttributeMap& attrs) {
  PL_ENFORCE(filter.size() == 5, errors::InvalidArgument("op `%s` input `Filter`: expected [M, "
                                                         "C / groups, k_d, k_h, k_w], received "
                                                         "%s",
                                                         op, filter.ToString()));
  const int64_t k[3] = {filter[2], filter[3], filter[4]};
  ConvGeometry g;
  g.v = ResolveVolume(op, input, attrs, k, true, NdhwcFormat(attrs));
  g.m = filter[0];
  g.groups = std::get<int>(attrs.at("groups"));
  PL_ENFORCE(g.groups > 0 && (g.v.c < 0 || filter[1] * g.groups == g.v.c) && g.m % g.groups == 0,
             errors::InvalidArgument("op `%s` input `Filter` %s: expected [M, C / groups, k_d, "
                                     "k_h, k_w] with C = %lld and M divisible by groups = %lld",
                                     op, filter.ToString(), static_cast<long long>(g.v.c),
                                     static_cast<long long>(g.groups)));
  SetOutputSizes(op, input, false, &g.v);
  return g;
}

// conv3d_transpose: the geometry of the conv3d whose input gradient it computes: v holds the
// transpose's output (C_out channels, its cells the conv's input) and m its input's C_in
// channels (the conv's output cells).
ConvGeometry ResolveConv3dTranspose(const std::string& op, const DDim& input, const DDim& filter,
                                    const framework::AttributeMap& attrs) {
  PL_ENFORCE(filter.size() == 5, errors::InvalidArgument("op `%s` input `Filter`: expected [C_in, "
                                                         "C_out / groups, k_d, k_h, k_w], "
                                                         "received %s",
                                                         op, filter.ToString()));
  const int64_t k[3] = {filter[2], filter[3], filter[4]};
  ConvGeometry g;
  // Paddings as for a conv3d over this op's input; then the roles turn round. Channels come
  // last with NHWC only: PaddlePaddle's conv3d_transpose reads NDHWC as channels first.
  g.v = ResolveVolume(op, input, attrs, k, true,
                      std::get<std::string>(attrs.at("data_format")) == "NHWC");
  g.m = g.v.c;
  g.groups = std::get<int>(attrs.at("groups"));
  PL_ENFORCE(g.groups > 0 && (g.m < 0 || (filter[0] == g.m && g.m % g.groups == 0)),
             errors::InvalidArgument("op `%s` input `Filter` %s: expected [C_in, C_out / groups, "
                                     "k_d, k_h, k_w] with C_in = %lld divisible by groups = %lld",
                                     op, filter.ToString(), static_cast<long long>(g.m),
                                     static_cast<long long>(g.groups)));
  g.v.c = filter[1] * g.groups;
  const auto& sizes = std::get<std::vector<int>>(attrs.at("output_size"));
  const auto& extra = std::get<std::vector<int>>(attrs.at("output_padding"));
  for (const auto* list : {&sizes, &extra}) {
    PL_ENFORCE(list->empty() || list->size() == 3,
               errors::InvalidArgument("op `%s` attribute `%s`: expected 0 or 3 values, received "
                                       "%zu",
                                       op, list == &sizes ? "output_size" : "output_padding",
                                       list->size()));
  }
  for (int a = 0; a < 3; ++a) {
    Axis& ax = g.v.ax[a];
    ax.out = ax.in;  // The transpose's input is the conv's output.
    if (ax.out < 0) {
      ax.in = sizes.empty() ? -1 : sizes[a];
      continue;
    }
    const int64_t natural = (ax.out - 1) * ax.stride - ax.pad0 - ax.pad1 + ax.dil * (ax.k - 1) + 1;
    ax.in = natural;
    if (!sizes.empty()) {
      ax.in = sizes[a];
      PL_ENFORCE(ax.in >= natural && ax.in < natural + ax.stride,
                 errors::InvalidArgument("op `%s` attribute `output_size`: expected %s in [%lld, "
                                         "%lld) for Input %s, received %d",
                                         op, kAxisNames[a], static_cast<long long>(natural),
                                         static_cast<long long>(natural + ax.stride),
                                         input.ToString(), sizes[a]));
    } else if (!extra.empty()) {
      PL_ENFORCE(extra[a] >= 0 && extra[a] < std::max(ax.stride, ax.dil),
                 errors::InvalidArgument("op `%s` attribute `output_padding`: expected %s in [0, "
                                         "max(stride %lld, dilation %lld)), received %d",
                                         op, kAxisNames[a], static_cast<long long>(ax.stride),
                                         static_cast<long long>(ax.dil), extra[a]));
      ax.in += extra[a];
    }
    PL_ENFORCE(ax.in > 0, errors::InvalidArgument(
                              "op `%s`: output %s would be %lld, expected > 0 (Input %s, Filter "
                              "%s; out = (in - 1) * stride - pad0 - pad1 + dilation * (k - 1) + 1)",
                              op, kAxisNames[a], static_cast<long long>(ax.in), input.ToString(),
                              filter.ToString()));
  }
  return g;
}

VolumeGeometry ResolvePool3d(const std::string& op, const DDim& x,
                             const framework::AttributeMap& attrs) {
  const bool global = std::get<bool>(attrs.at("global_pooling"));
  const bool adaptive = std::get<bool>(attrs.at("adaptive"));
  int64_t k[3] = {1, 1, 1};
  if (!global) {
    const auto ks = Triple(op, attrs, "ksize");
    std::copy(ks.begin(), ks.end(), k);
  }
  VolumeGeometry g = ResolveVolume(op, x, attrs, k, false, NdhwcFormat(attrs));
  for (Axis& ax : g.ax) {
    if (global) {
      ax.k = ax.in;
      ax.pad0 = ax.pad1 = 0;
      ax.out = 1;
    } else if (adaptive) {
      ax.out = ax.k;
    }
  }
  if (!global && !adaptive) SetOutputSizes(op, x, std::get<bool>(attrs.at("ceil_mode")), &g);
  return g;
}

// pool3d's geometry for the attributes max_pool3d_with_index has (max, NCDHW, explicit pads).
VolumeGeometry ResolveMaxPool3dWithIndex(const std::string& op, const DDim& x,
                                         const framework::AttributeMap& attrs) {
  framework::AttributeMap pool = attrs;
  pool["pooling_type"] = std::string("max");
  pool["exclusive"] = true;
  pool["data_format"] = std::string("NCDHW");
  pool["padding_algorithm"] = std::string("EXPLICIT");
  for (const char* name : {"global_pooling", "adaptive", "ceil_mode"}) {
    if (!pool.count(name)) pool[name] = false;
  }
  return ResolvePool3d(op, x, pool);
}

// A volume in NCDHW order (a copy when it is NDHWC), or back.
template <typename T>
std::vector<T> ToChannelFirst(const T* data, int64_t n, int64_t c, int64_t cells,
                              bool channel_last) {
  std::vector<T> out(static_cast<size_t>(n * c * cells));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < cells; ++p) {
        out[(b * c + ch) * cells + p] =
            channel_last ? data[(b * cells + p) * c + ch] : data[(b * c + ch) * cells + p];
      }
  return out;
}

template <typename T>
void FromChannelFirst(const std::vector<T>& first, int64_t n, int64_t c, int64_t cells,
                      bool channel_last, T* out) {
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < cells; ++p) {
        const T v = first[(b * c + ch) * cells + p];
        if (channel_last) {
          out[(b * cells + p) * c + ch] = v;
        } else {
          out[(b * c + ch) * cells + p] = v;
        }
      }
}

// Calls fn(column row, column position, input offset or -1) for every entry of one image's
// columns [C k_d k_h k_w, D_out H_out W_out] (channel-first image of C channels).
template <typename Fn>
void ForEachColumnEntry(const VolumeGeometry& g, int64_t c, Fn&& fn) {
  const Axis &ad = g.ax[0], &ah = g.ax[1], &aw = g.ax[2];
  int64_t row = 0;
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t i = 0; i < ad.k; ++i)
      for (int64_t j = 0; j < ah.k; ++j)
        for (int64_t k = 0; k < aw.k; ++k, ++row) {
          int64_t pos = 0;
          for (int64_t z = 0; z < ad.out; ++z) {
            const int64_t iz = z * ad.stride - ad.pad0 + i * ad.dil;
            for (int64_t y = 0; y < ah.out; ++y) {
              const int64_t iy = y * ah.stride - ah.pad0 + j * ah.dil;
              for (int64_t x = 0; x < aw.out; ++x, ++pos) {
                const int64_t ix = x * aw.stride - aw.pad0 + k * aw.dil;
                const bool inside =
                    iz >= 0 && iz < ad.in && iy >= 0 && iy < ah.in && ix >= 0 && ix < aw.in;
                fn(row, pos, inside ? ((ch * ad.in + iz) * ah.in + iy) * aw.in + ix : -1);
              }
            }
          }
        }
}

// One channel-first image's columns [C k_d k_h k_w, D_out H_out W_out] (0 for taps in the
// padding).
template <typename T>
void Vol2Col(const VolumeGeometry& g, const T* img, T* col) {
  const int64_t px = g.OutCells();
  ForEachColumnEntry(g, g.c, [&](int64_t row, int64_t pos, int64_t at) {
    col[row * px + pos] = at >= 0 ? img[at] : T(0);
  });
}

// The volume-level steps of a grouped conv3d with geometry g, on channel-first data: its
// forward pass, its input gradient (which is also conv3d_transpose's forward pass) and its
// filter gradient. x: [N, C, in cells]; y: [N, M, out cells]; w: [M, C / groups, k...].
template <typename T>
struct GroupedVolumeConv {
  const ConvGeometry& g;
  const platform::CPUDeviceContext& dev;
  int64_t cells = g.v.InCells(), px = g.v.OutCells();
  int64_t cg = g.v.c / g.groups, mg = g.m / g.groups;
  int64_t kk = cg * g.v.ax[0].k * g.v.ax[1].k * g.v.ax[2].k;

  // y = conv(x).
  std::vector<T> Forward(const T* w, const T* x) const {
    std::vector<T> y(static_cast<size_t>(g.v.n * g.m * px));
    std::vector<T> col(static_cast<size_t>(g.groups * kk * px));
    for (int64_t b = 0; b < g.v.n; ++b) {
      Vol2Col(g.v, x + b * g.v.c * cells, col.data());
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        math::Gemm<T>(dev, false, false, mg, px, kk, T(1), w + grp * mg * kk, kk,
                      col.data() + grp * kk * px, px, T(0), y.data() + (b * g.m + grp * mg) * px,
                      px);
      }
    }
    return y;
  }

  // dx = col2vol(w^T dy), per image.
  std::vector<T> InputGrad(const T* w, const T* dy) const {
    std::vector<T> dx(static_cast<size_t>(g.v.n * g.v.c * cells), T(0));
    std::vector<T> dcol(static_cast<size_t>(g.groups * kk * px));
    for (int64_t b = 0; b < g.v.n; ++b) {
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        math::Gemm<T>(dev, true, false, kk, px, mg, T(1), w + grp * mg * kk, kk,
                      dy + (b * g.m + grp * mg) * px, px, T(0), dcol.data() + grp * kk * px, px);
      }
      T* dimg = dx.data() + b * g.v.c * cells;
      ForEachColumnEntry(g.v, g.v.c, [&](int64_t row, int64_t pos, int64_t at) {
        if (at >= 0) dimg[at] += dcol[static_cast<size_t>(row * px + pos)];
      });
    }
    return dx;
  }

  // dw = sum over images of dy vol2col(x)^T, into `dw` (overwritten).
  void FilterGrad(const T* x, const T* dy, T* dw, int64_t w_numel) const {
    std::fill(dw, dw + w_numel, T(0));
    std::vector<T> col(static_cast<size_t>(g.groups * kk * px));
    for (int64_t b = 0; b < g.v.n; ++b) {
      Vol2Col(g.v, x + b * g.v.c * cells, col.data());
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        math::Gemm<T>(dev, false, true, mg, kk, px, T(1), dy + (b * g.m + grp * mg) * px, px,
                      col.data() + grp * kk * px, px, T(1), dw + grp * mg * kk, kk);
      }
    }
  }
};

// Writes channel-first `values` of `channels` channels into a fresh output tensor `slot` of
// the op's layout.
template <typename T>
void WriteVolume(const ExecutionContext& ctx, const char* slot, const VolumeGeometry& v,
                 const std::vector<T>& values, int64_t channels, bool out, DataType dtype) {
  DenseTensor t(v.Dims(channels, out), dtype);
  FromChannelFirst(values, v.n, channels, out ? v.OutCells() : v.InCells(), v.channel_last,
                   t.mutable_data<T>(ctx.GetPlace()));
  *ctx.Output(slot) = std::move(t);
}

// Output@GRAD checked against the forward output's dims `want`.
void CheckOutputGrad(const ExecutionContext& ctx, const DDim& want) {
  const DDim got = ctx.Input("Output@GRAD")->dims();
  PL_ENFORCE(got == want, errors::InvalidArgument("op `%s` input `Output@GRAD`: expected shape "
                                                  "%s, received %s",
                                                  ctx.Type(), want.ToString(), got.ToString()));
}

template <typename T>
struct Conv3dKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const ConvGeometry g =
        ResolveConv3d(ctx.Type(), input->dims(), filter->dims(), ctx.op().Attrs());
    const GroupedVolumeConv<T> conv{g, ctx.device_context<platform::CPUDeviceContext>()};
    const std::vector<T> x =
        ToChannelFirst(input->data<T>(), g.v.n, g.v.c, conv.cells, g.v.channel_last);
    WriteVolume(ctx, "Output", g.v, conv.Forward(filter->data<T>(), x.data()), g.m, true,
                input->dtype());
  }
};

template <typename T>
struct Conv3dGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* dout = ctx.Input("Output@GRAD");
    const ConvGeometry g =
        ResolveConv3d(ctx.Type(), input->dims(), filter->dims(), ctx.op().Attrs());
    CheckOutputGrad(ctx, g.v.Dims(g.m, true));
    const GroupedVolumeConv<T> conv{g, ctx.device_context<platform::CPUDeviceContext>()};
    const std::vector<T> go =
        ToChannelFirst(dout->data<T>(), g.v.n, g.m, conv.px, g.v.channel_last);
    if (ctx.Output("Input@GRAD") != nullptr) {
      WriteVolume(ctx, "Input@GRAD", g.v, conv.InputGrad(filter->data<T>(), go.data()), g.v.c,
                  false, dout->dtype());
    }
    if (DenseTensor* out = ctx.Output("Filter@GRAD")) {
      const std::vector<T> x =
          ToChannelFirst(input->data<T>(), g.v.n, g.v.c, conv.cells, g.v.channel_last);
      DenseTensor dw(filter->dims(), dout->dtype());
      conv.FilterGrad(x.data(), go.data(), dw.mutable_data<T>(ctx.GetPlace()), dw.numel());
      *out = std::move(dw);
    }
  }
};

// conv3d_transpose's Input is the conv's output (g.m channels), its Output the conv's input.
template <typename T>
struct Conv3dTransposeKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const ConvGeometry g =
        ResolveConv3dTranspose(ctx.Type(), input->dims(), filter->dims(), ctx.op().Attrs());
    const GroupedVolumeConv<T> conv{g, ctx.device_context<platform::CPUDeviceContext>()};
    const std::vector<T> x =
        ToChannelFirst(input->data<T>(), g.v.n, g.m, conv.px, g.v.channel_last);
    WriteVolume(ctx, "Output", g.v, conv.InputGrad(filter->data<T>(), x.data()), g.v.c, false,
                input->dtype());
  }
};

template <typename T>
struct Conv3dTransposeGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* filter = ctx.Input("Filter");
    const DenseTensor* dout = ctx.Input("Output@GRAD");
    const ConvGeometry g =
        ResolveConv3dTranspose(ctx.Type(), input->dims(), filter->dims(), ctx.op().Attrs());
    CheckOutputGrad(ctx, g.v.Dims(g.v.c, false));
    const GroupedVolumeConv<T> conv{g, ctx.device_context<platform::CPUDeviceContext>()};
    const std::vector<T> go =
        ToChannelFirst(dout->data<T>(), g.v.n, g.v.c, conv.cells, g.v.channel_last);
    if (ctx.Output("Input@GRAD") != nullptr) {
      WriteVolume(ctx, "Input@GRAD", g.v, conv.Forward(filter->data<T>(), go.data()), g.m, true,
                  dout->dtype());
    }
    if (DenseTensor* out = ctx.Output("Filter@GRAD")) {
      const std::vector<T> x =
          ToChannelFirst(input->data<T>(), g.v.n, g.m, conv.px, g.v.channel_last);
      DenseTensor dw(filter->dims(), dout->dtype());
      conv.FilterGrad(go.data(), x.data(), dw.mutable_data<T>(ctx.GetPlace()), dw.numel());
      *out = std::move(dw);
    }
  }
};

// The window of output cell o along one axis: [begin, end) inside the volume, and the divisor
// of a non-exclusive average.
struct Window {
  int64_t begin, end;
};

Window WindowOf(const Axis& ax, int64_t o, bool adaptive) {
  if (adaptive) {
    return {o * ax.in / ax.out, ((o + 1) * ax.in + ax.out - 1) / ax.out};
  }
  const int64_t start = o * ax.stride - ax.pad0;
  return {std::max<int64_t>(start, 0), std::min(start + ax.k, ax.in)};
}

// Calls fn(out index, list of input indices of its window, divisor) per output cell of each
// channel-first image plane.
template <typename Fn>
void ForEachWindow(const VolumeGeometry& g, bool adaptive, bool exclusive, Fn&& fn) {
  const int64_t planes = g.n * g.c, cells = g.InCells(), px = g.OutCells();
  std::vector<int64_t> members;
  for (int64_t plane = 0; plane < planes; ++plane) {
    int64_t o = 0;
    for (int64_t z = 0; z < g.ax[0].out; ++z) {
      const Window wd = WindowOf(g.ax[0], z, adaptive);
      for (int64_t y = 0; y < g.ax[1].out; ++y) {
        const Window wh = WindowOf(g.ax[1], y, adaptive);
        for (int64_t x = 0; x < g.ax[2].out; ++x, ++o) {
          const Window ww = WindowOf(g.ax[2], x, adaptive);
          members.clear();
          for (int64_t i = wd.begin; i < wd.end; ++i)
            for (int64_t j = wh.begin; j < wh.end; ++j)
              for (int64_t k = ww.begin; k < ww.end; ++k) {
                members.push_back(plane * cells + (i * g.ax[1].in + j) * g.ax[2].in + k);
              }
          // Non-exclusive: each axis' window clipped to the volume plus its leading padding
          // from its unclipped start (PaddlePaddle's divisor; see Pool2dGeometry::AvgExtent).
          int64_t divisor = static_cast<int64_t>(members.size());
          if (!exclusive && !adaptive) {
            divisor = 1;
            for (int a = 0; a < 3; ++a) {
              const int64_t o_a = a == 0 ? z : (a == 1 ? y : x);
              const int64_t start = o_a * g.ax[a].stride - g.ax[a].pad0;
              divisor *= std::min(start + g.ax[a].k, g.ax[a].in + g.ax[a].pad0) - start;
            }
          }
          fn(plane * px + o, members, divisor);
        }
      }
    }
  }
}

template <typename T>
struct Pool3dKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* xt = ctx.Input("X");
    const VolumeGeometry g = ResolvePool3d(ctx.Type(), xt->dims(), ctx.op().Attrs());
    const bool is_max = ctx.Attr<std::string>("pooling_type") == "max";
    const std::vector<T> x = ToChannelFirst(xt->data<T>(), g.n, g.c, g.InCells(), g.channel_last);
    std::vector<T> out(static_cast<size_t>(g.n * g.c * g.OutCells()));
    ForEachWindow(g, ctx.Attr<bool>("adaptive"), ctx.Attr<bool>("exclusive"),
                  [&](int64_t o, const std::vector<int64_t>& members, int64_t divisor) {
                    if (is_max) {
                      // A window wholly in the padding (ceil_mode) gives the lowest value,
                      // as in PaddlePaddle.
                      T best = -std::numeric_limits<T>::max();
                      for (int64_t m : members) best = std::max(best, x[m]);
                      out[o] = best;
                    } else {
                      double sum = 0;
                      for (int64_t m : members) sum += static_cast<double>(x[m]);
                      out[o] = divisor > 0 ? static_cast<T>(sum / divisor) : T(0);
                    }
                  });
    DenseTensor fresh(g.Dims(g.c, true), xt->dtype());
    FromChannelFirst(out, g.n, g.c, g.OutCells(), g.channel_last,
                     fresh.mutable_data<T>(ctx.GetPlace()));
    *ctx.Output("Out") = std::move(fresh);
  }
};

template <typename T>
struct Pool3dGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* xt = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const VolumeGeometry g = ResolvePool3d(ctx.Type(), xt->dims(), ctx.op().Attrs());
    PL_ENFORCE(
        dout->dims() == g.Dims(g.c, true),
        errors::InvalidArgument("op `%s` input `Out@GRAD`: expected shape %s, received %s",
                                ctx.Type(), g.Dims(g.c, true).ToString(), dout->dims().ToString()));
    const bool is_max = ctx.Attr<std::string>("pooling_type") == "max";
    const std::vector<T> x = ToChannelFirst(xt->data<T>(), g.n, g.c, g.InCells(), g.channel_last);
    const std::vector<T> go =
        ToChannelFirst(dout->data<T>(), g.n, g.c, g.OutCells(), g.channel_last);
    std::vector<T> dx(x.size(), T(0));
    ForEachWindow(g, ctx.Attr<bool>("adaptive"), ctx.Attr<bool>("exclusive"),
                  [&](int64_t o, const std::vector<int64_t>& members, int64_t divisor) {
                    if (members.empty()) return;
                    if (is_max) {
                      int64_t arg = members[0];
                      for (int64_t m : members) {
                        if (x[m] > x[arg]) arg = m;
                      }
                      dx[arg] += go[o];
                    } else {
                      const T share = go[o] / static_cast<T>(divisor);
                      for (int64_t m : members) dx[m] += share;
                    }
                  });
    DenseTensor fresh(xt->dims(), dout->dtype());
    FromChannelFirst(dx, g.n, g.c, g.InCells(), g.channel_last,
                     fresh.mutable_data<T>(ctx.GetPlace()));
    *ctx.Output("X@GRAD") = std::move(fresh);
  }
};

template <typename T>
struct MaxPool3dWithIndexKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* xt = ctx.Input("X");
    const VolumeGeometry g = ResolveMaxPool3dWithIndex(ctx.Type(), xt->dims(), ctx.op().Attrs());
    const int64_t cells = g.InCells();
    PL_ENFORCE(cells <= std::numeric_limits<int32_t>::max(),
               errors::InvalidArgument("op `%s` input `X`: a volume of %lld cells is beyond the "
                                       "int32 Mask",
                                       ctx.Type(), static_cast<long long>(cells)));
    DenseTensor out(g.Dims(g.c, true), xt->dtype()), mask(g.Dims(g.c, true), DataType::INT32);
    T* o = out.mutable_data<T>(ctx.GetPlace());
    int32_t* m = mask.mutable_data<int32_t>(ctx.GetPlace());
    const T* x = xt->data<T>();
    ForEachWindow(g, ctx.Attr<bool>("adaptive"), true,
                  [&](int64_t at, const std::vector<int64_t>& members, int64_t) {
                    T best = static_cast<T>(-std::numeric_limits<float>::max());
                    int64_t arg = -1;
                    for (int64_t i : members) {
                      if (best < x[i]) {
                        best = x[i];
                        arg = i % cells;
                      }
                    }
                    o[at] = best;
                    m[at] = static_cast<int32_t>(arg);
                  });
    *ctx.Output("Out") = std::move(out);
    *ctx.Output("Mask") = std::move(mask);
  }
};

template <typename T>
struct MaxPool3dWithIndexGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* mask = ctx.Input("Mask");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    const VolumeGeometry g = ResolveMaxPool3dWithIndex(ctx.Type(), x->dims(), ctx.op().Attrs());
    const DDim want = g.Dims(g.c, true);
    PL_ENFORCE(mask->dims() == want && dout->dims() == want && mask->dtype() == DataType::INT32,
               errors::InvalidArgument("op `%s`: expected an int32 Mask and Out@GRAD of shape %s, "
                                       "received %s %s and %s",
                                       ctx.Type(), want.ToString(), DataTypeName(mask->dtype()),
                                       mask->dims().ToString(), dout->dims().ToString()));
    const int64_t cells = g.InCells(), px = g.OutCells();
    DenseTensor dx(x->dims(), dout->dtype());
    T* d = dx.mutable_data<T>(ctx.GetPlace());
    std::fill(d, d + dx.numel(), T(0));
    const int32_t* idx = mask->data<int32_t>();
    const T* g_out = dout->data<T>();
    for (int64_t plane = 0; plane < g.n * g.c; ++plane) {
      for (int64_t k = 0; k < px; ++k) {
        const int64_t at = idx[plane * px + k];
        if (at < 0) continue;  // A window with nothing taken.
        PL_ENFORCE(at < cells, errors::InvalidArgument("op `%s` input `Mask`: index %lld is "
                                                       "outside the %lld cells of a volume",
                                                       ctx.Type(), static_cast<long long>(at),
                                                       static_cast<long long>(cells)));
        d[plane * cells + at] += g_out[plane * px + k];
      }
    }
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

void MaxPool3dWithIndexInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->RequireOutput("Mask");
  const VolumeGeometry g =
      ResolveMaxPool3dWithIndex(ctx->OpType(), ctx->GetInputDim("X"), ctx->Attrs());
  ctx->SetOutputDim("Out", g.Dims(g.c, true));
  ctx->SetOutputDim("Mask", g.Dims(g.c, true));
}

void Conv3dInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Filter");
  ctx->RequireOutput("Output");
  const ConvGeometry g = ResolveConv3d(ctx->OpType(), ctx->GetInputDim("Input"),
                                       ctx->GetInputDim("Filter"), ctx->Attrs());
  ctx->SetOutputDim("Output", g.v.Dims(g.m, true));
}

void Conv3dTransposeInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Filter");
  ctx->RequireOutput("Output");
  const ConvGeometry g = ResolveConv3dTranspose(ctx->OpType(), ctx->GetInputDim("Input"),
                                                ctx->GetInputDim("Filter"), ctx->Attrs());
  ctx->SetOutputDim("Output", g.v.Dims(g.v.c, false));
}

void Pool3dInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const VolumeGeometry g = ResolvePool3d(ctx->OpType(), ctx->GetInputDim("X"), ctx->Attrs());
  ctx->SetOutputDim("Out", g.Dims(g.c, true));
}

class VolumeOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Input") ? "Input" : "X");
  }
};

void SameDimsGradInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Input", "Filter", "X"}) {
    const std::string g = std::string(slot) + "@GRAD";
    if (ctx->HasOutput(g)) ctx->SetOutputDim(g, ctx->GetInputDim(slot));
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterConv3dPool3dOps) {
  const framework::FusedGradDecl conv_grad{
      {"Input", "Filter"},
      {"Output"},
      {"Input", "Filter"},
      R"DOC($$dFilter = \sum_n dOutput_n \, col_n^T, \quad dInput = \mathrm{col2vol}(Filter^T dOutput)$$)DOC"};
  framework::RegisterOp<VolumeOp, Conv3dOpMaker>("conv3d")
      .InferShape(Conv3dInferShape)
      .InferVarType(OutputDataTypeOf("Input", "Output"))
      .GradOpMaker(framework::FusedGradMaker(conv_grad))
      .Checkpoint("PaddlePaddle 2.0: extra attribute `use_addto`",
                  framework::OpVersionDesc().NewAttr(
                      "use_addto", "only changes how GPU kernels accumulate gradients", false));
  RegisterPlainCpuFloatKernels<Conv3dKernel>("conv3d");
  framework::RegisterFusedGradOp("conv3d", conv_grad).InferShape(SameDimsGradInferShape);
  RegisterPlainCpuFloatKernels<Conv3dGradKernel>("conv3d_grad");
  const framework::FusedGradDecl transpose_grad{
      {"Input", "Filter"},
      {"Output"},
      {"Input", "Filter"},
      R"DOC($$dInput = \mathrm{conv3d}(dOutput, Filter), \quad dFilter = \sum_n Input_n \, \mathrm{vol2col}(dOutput_n)^T$$)DOC"};
  framework::RegisterOp<VolumeOp, Conv3dTransposeOpMaker>("conv3d_transpose")
      .InferShape(Conv3dTransposeInferShape)
      .InferVarType(OutputDataTypeOf("Input", "Output"))
      .GradOpMaker(framework::FusedGradMaker(transpose_grad))
      .Checkpoint("output_padding",
                  framework::OpVersionDesc().NewAttr(
                      "output_padding", "extra cells at the far end of each axis of the output",
                      std::vector<int>{}));
  RegisterPlainCpuFloatKernels<Conv3dTransposeKernel>("conv3d_transpose");
  framework::RegisterFusedGradOp("conv3d_transpose", transpose_grad)
      .InferShape(SameDimsGradInferShape);
  RegisterPlainCpuFloatKernels<Conv3dTransposeGradKernel>("conv3d_transpose_grad");
  const framework::FusedGradDecl pool_grad{
      {"X"},
      {"Out"},
      {"X"},
      R"DOC($$dX = \sum_{windows \ni x} dOut \cdot [x = \arg\max] \ \text{(max)}, \quad
dX = \sum_{windows \ni x} dOut / |W| \ \text{(avg)}$$)DOC"};
  framework::RegisterOp<VolumeOp, Pool3dOpMaker>("pool3d")
      .InferShape(Pool3dInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(pool_grad));
  RegisterPlainCpuFloatKernels<Pool3dKernel>("pool3d");
  framework::RegisterFusedGradOp("pool3d", pool_grad).InferShape(SameDimsGradInferShape);
  RegisterPlainCpuFloatKernels<Pool3dGradKernel>("pool3d_grad");
  const framework::FusedGradDecl index_grad{
      {"X", "Mask"},
      {"Out"},
      {"X"},
      R"DOC($$dX[n, c, Mask[n, c, z, y, x]] \mathrel{+}= dOut[n, c, z, y, x]$$)DOC"};
  framework::RegisterOp<VolumeOp, MaxPool3dWithIndexOpMaker>("max_pool3d_with_index")
      .InferShape(MaxPool3dWithIndexInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
        ctx->SetOutputDataType("Mask", DataType::INT32);
      })
      .GradOpMaker(framework::FusedGradMaker(index_grad))
      .Checkpoint("attribute ceil_mode", framework::OpVersionDesc().NewAttr(
                                             "ceil_mode", "round the output size up", false));
  RegisterPlainCpuFloatKernels<MaxPool3dWithIndexKernel>("max_pool3d_with_index");
  framework::RegisterFusedGradOp("max_pool3d_with_index", index_grad)
      .InferShape(SameDimsGradInferShape);
  RegisterPlainCpuFloatKernels<MaxPool3dWithIndexGradKernel>("max_pool3d_with_index_grad");
}

}  // namespace operators
}  // namespace paddle_like

#include "operators/nn/conv_pool_shape.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <vector>

#include "operators/activation/fused_activation.h"
#include "operators/tensor/tensor_op_util.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::AttributeMap;
using framework::DDim;
// Output sizes are computed in 128 bits and checked to fit int64: dims (up to 2^63 at build
// time) plus paddings, or dilation times kernel size, can overflow int64.
using Wide = __int128;

template <typename T>
const T& AttrOf(const std::string& op, const AttributeMap& attrs, const std::string& name) {
  auto it = attrs.find(name);
  PL_ENFORCE(it != attrs.end(), errors::NotFound("op `%s` has no attribute `%s`", op, name));
  const T* v = std::get_if<T>(&it->second);
  PL_ENFORCE(v != nullptr,
             errors::InvalidArgument("op `%s` attribute `%s`: expected type %s, received %s", op,
                                     name, framework::AttrTypeName(framework::AttrTypeOf<T>()),
                                     framework::AttrToString(it->second)));
  return *v;
}

std::string Str(const std::vector<int>& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << "]";
  return os.str();
}

// A list attribute of exactly two values, each >= `min`.
std::vector<int> Pair(const std::string& op, const AttributeMap& attrs, const std::string& name,
                      int min) {
  const auto& v = AttrOf<std::vector<int>>(op, attrs, name);
  PL_ENFORCE(v.size() == 2, errors::InvalidArgument(
                                "op `%s` attribute `%s`: expected 2 values, received %s", op, name,
                                Str(v)));
  for (int x : v) {
    PL_ENFORCE(x >= min,
               errors::InvalidArgument("op `%s` attribute `%s`: expected values >= %d, received %s",
                                       op, name, min, Str(v)));
  }
  return v;
}

// paddings as [top, bottom, left, right], before padding_algorithm is applied.
std::vector<int64_t> ExplicitPaddings(const std::string& op, const AttributeMap& attrs) {
  const auto& p = AttrOf<std::vector<int>>(op, attrs, "paddings");
  PL_ENFORCE(p.size() == 2 || p.size() == 4,
             errors::InvalidArgument(
                 "op `%s` attribute `paddings`: expected 2 values [pad_h, pad_w] or 4 values "
                 "[top, bottom, left, right], received %s",
                 op, Str(p)));
  for (int x : p) {
    PL_ENFORCE(x >= 0, errors::InvalidArgument(
                           "op `%s` attribute `paddings`: expected values >= 0, received %s", op,
                           Str(p)));
  }
  if (p.size() == 2) return {p[0], p[0], p[1], p[1]};
  return {p[0], p[1], p[2], p[3]};
}

bool IsChannelLast(const std::string& op, const AttributeMap& attrs) {
  const std::string& f = AttrOf<std::string>(op, attrs, "data_format");
  PL_ENFORCE(f == "NCHW" || f == "NHWC" || f == "AnyLayout",
             errors::InvalidArgument(
                 "op `%s` attribute `data_format`: expected NCHW, NHWC or AnyLayout, received %s",
                 op, f));
  return f == "NHWC";
}

// Applies padding_algorithm to the pads [pad0, pad1] of one spatial axis.
void ApplyPaddingAlgorithm(const std::string& algorithm, int64_t in, int64_t k, int64_t stride,
                           int64_t* pad0, int64_t* pad1) {
  if (algorithm == "SAME") {
    if (in < 0 || k < 0) return;  // Unknown until run time; so is the output size.
    // In 128 bits: dims and attributes come from files and may be anything up to 2^63.
    const Wide out = in == 0 ? 0 : (Wide(in) - 1) / stride + 1;
    const Wide sum = std::max<Wide>((out - 1) * stride + k - in, 0);
    *pad0 = static_cast<int64_t>(sum / 2);
    *pad1 = static_cast<int64_t>(sum - sum / 2);
  } else if (algorithm == "VALID") {
    *pad0 = *pad1 = 0;
  }
}

const std::string& PaddingAlgorithm(const std::string& op, const AttributeMap& attrs) {
  const std::string& a = AttrOf<std::string>(op, attrs, "padding_algorithm");
  PL_ENFORCE(a == "EXPLICIT" || a == "SAME" || a == "VALID",
             errors::InvalidArgument("op `%s` attribute `padding_algorithm`: expected EXPLICIT, "
                                     "SAME or VALID, received %s",
                                     op, a));
  return a;
}

void RequireRank4(const std::string& op, const char* kind, const char* slot, const DDim& d) {
  PL_ENFORCE(d.size() == 4,
             errors::InvalidArgument("op `%s` %s `%s`: expected 4-D tensor, received shape %s", op,
                                     kind, slot, d.ToString()));
}

// Truthiness of an attribute the op does not declare (programs store it as BOOLEAN or INT).
bool IsSet(const framework::Attribute& a) {
  if (const bool* b = std::get_if<bool>(&a)) return *b;
  if (const int* i = std::get_if<int>(&a)) return *i != 0;
  if (const std::string* s = std::get_if<std::string>(&a)) return !s->empty();
  return false;
}

// A window's output size along `axis`, computed in 128 bits, as int64; InvalidArgumentError
// naming `paddings` when it does not fit (`input` describes the input for the message).
int64_t NarrowOutputSize(const std::string& op, const char* axis, Wide out,
                         const std::string& input, int64_t p0, int64_t p1) {
  PL_ENFORCE(out <= std::numeric_limits<int64_t>::max(),
             errors::InvalidArgument("op `%s` attribute `paddings`: output %s would exceed int64 "
                                     "(%s, paddings [%lld, %lld])",
                                     op, axis, input, static_cast<long long>(p0),
                                     static_cast<long long>(p1)));
  return static_cast<int64_t>(out);
}

// The output shape that the window attributes give must be one a tensor can have.
void CheckOutputCountable(const std::string& op, const DDim& out, const AttributeMap& attrs) {
  const std::string problem = framework::ShapeProblem(out.data(), out.size(), true);
  if (problem.empty()) return;
  std::string values;
  for (const char* name : {"ksize", "paddings", "strides", "dilations"}) {
    auto it = attrs.find(name);
    if (it == attrs.end()) continue;
    values += std::string(values.empty() ? "" : ", ") + name + " " + framework::AttrToString(it->second);
  }
  throw errors::InvalidArgument("op `%s` attributes %s: output %s", op, values, problem);
}

}  // namespace

DDim Conv2dGeometry::OutputDims() const {
  return channel_last ? DDim{batch, out_h, out_w, out_c} : DDim{batch, out_c, out_h, out_w};
}

DDim Conv2dGeometry::InputDims() const {
  return channel_last ? DDim{batch, in_h, in_w, in_c} : DDim{batch, in_c, in_h, in_w};
}

math::Conv2dWindow Conv2dGeometry::Window() const {
  math::Conv2dWindow w;
  w.kernel_h = kernel_h;
  w.kernel_w = kernel_w;
  w.stride_h = stride_h;
  w.stride_w = stride_w;
  w.pad_top = pad_top;
  w.pad_left = pad_left;
  w.dilation_h = dilation_h;
  w.dilation_w = dilation_w;
  w.out_h = out_h;
  w.out_w = out_w;
  return w;
}

Conv2dGeometry ResolveConv2d(const std::string& op, const DDim& input, const DDim& filter,
                             const AttributeMap& attrs) {
  RequireRank4(op, "input", "Input", input);
  RequireRank4(op, "input", "Filter", filter);
  Conv2dGeometry g;
  g.channel_last = IsChannelLast(op, attrs);
  g.batch = input[0];
  g.in_c = g.channel_last ? input[3] : input[1];
  g.in_h = g.channel_last ? input[1] : input[2];
  g.in_w = g.channel_last ? input[2] : input[3];
  g.out_c = filter[0];
  g.kernel_h = filter[2];
  g.kernel_w = filter[3];
  g.groups = AttrOf<int>(op, attrs, "groups");
  PL_ENFORCE(g.groups >= 1, errors::InvalidArgument(
                                "op `%s` attribute `groups`: expected a value >= 1, received %d",
                                op, static_cast<int>(g.groups)));
  if (g.in_c >= 0 && filter[1] >= 0) {
    PL_ENFORCE(g.in_c == filter[1] * g.groups,
               errors::InvalidArgument(
                   "op `%s` input `Filter`: expected %lld input channels per group (Input %s has "
                   "%lld channels, groups = %lld), received Filter of shape %s",
                   op, static_cast<long long>(g.in_c / g.groups), input.ToString(),
                   static_cast<long long>(g.in_c), static_cast<long long>(g.groups),
                   filter.ToString()));
  }
  if (g.out_c >= 0) {
    PL_ENFORCE(g.out_c % g.groups == 0,
               errors::InvalidArgument("op `%s` input `Filter`: expected output channels "
                                       "(dim 0 of %s) divisible by groups = %lld",
                                       op, filter.ToString(), static_cast<long long>(g.groups)));
  }
  const std::vector<int> strides = Pair(op, attrs, "strides", 1);
  const std::vector<int> dilations = Pair(op, attrs, "dilations", 1);
  g.stride_h = strides[0];
  g.stride_w = strides[1];
  g.dilation_h = dilations[0];
  g.dilation_w = dilations[1];
  std::vector<int64_t> p = ExplicitPaddings(op, attrs);
  const std::string& algorithm = PaddingAlgorithm(op, attrs);
  ApplyPaddingAlgorithm(algorithm, g.in_h, g.kernel_h, g.stride_h, &p[0], &p[1]);
  ApplyPaddingAlgorithm(algorithm, g.in_w, g.kernel_w, g.stride_w, &p[2], &p[3]);
  if (algorithm == "SAME") g.dilation_h = g.dilation_w = 1;
  g.pad_top = p[0];
  g.pad_bottom = p[1];
  g.pad_left = p[2];
  g.pad_right = p[3];
  auto out_size = [&](const char* axis, int64_t in, int64_t k, int64_t d, int64_t p0, int64_t p1,
                      int64_t s) -> int64_t {
    if (in < 0 || k < 0) return -1;
    const Wide span = Wide(d) * (k - 1) + 1;
    const Wide padded = Wide(in) + p0 + p1;
    const int64_t out = NarrowOutputSize(op, axis, padded >= span ? (padded - span) / s + 1 : 0,
                                         "Input " + input.ToString(), p0, p1);
    PL_ENFORCE(out > 0,
               errors::InvalidArgument(
                   "op `%s`: output %s would be %lld, expected > 0 (Input %s, Filter %s, "
                   "paddings [%lld, %lld], stride %lld, dilation %lld; output = (in + pad0 + "
                   "pad1 - (dilation * (k - 1) + 1)) / stride + 1)",
                   op, axis, static_cast<long long>(out), input.ToString(), filter.ToString(),
                   static_cast<long long>(p0), static_cast<long long>(p1),
                   static_cast<long long>(s), static_cast<long long>(d)));
    return out;
  };
  g.out_h = out_size("height", g.in_h, g.kernel_h, g.dilation_h, g.pad_top, g.pad_bottom,
                     g.stride_h);
  g.out_w = out_size("width", g.in_w, g.kernel_w, g.dilation_w, g.pad_left, g.pad_right,
                     g.stride_w);
  CheckOutputCountable(op, g.OutputDims(), attrs);
  return g;
}

namespace {

// An optional list attribute: empty, or 2 values.
std::vector<int> OptionalPair(const std::string& op, const AttributeMap& attrs,
                              const std::string& name) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return {};
  const auto& v = AttrOf<std::vector<int>>(op, attrs, name);
  PL_ENFORCE(v.empty() || v.size() == 2,
             errors::InvalidArgument("op `%s` attribute `%s`: expected no values or 2, received %s",
                                     op, name, Str(v)));
  return v;
}

}  // namespace

Conv2dGeometry ResolveConv2dTranspose(const std::string& op, const DDim& input,
                                      const DDim& filter, const AttributeMap& attrs) {
  RequireRank4(op, "input", "Input", input);
  RequireRank4(op, "input", "Filter", filter);
  Conv2dGeometry g;
  g.channel_last = IsChannelLast(op, attrs);
  g.batch = input[0];
  g.out_c = g.channel_last ? input[3] : input[1];
  g.out_h = g.channel_last ? input[1] : input[2];
  g.out_w = g.channel_last ? input[2] : input[3];
  g.kernel_h = filter[2];
  g.kernel_w = filter[3];
  g.groups = AttrOf<int>(op, attrs, "groups");
  PL_ENFORCE(g.groups >= 1, errors::InvalidArgument(
                                "op `%s` attribute `groups`: expected a value >= 1, received %d",
                                op, static_cast<int>(g.groups)));
  if (g.out_c >= 0 && filter[0] >= 0) {
    PL_ENFORCE(g.out_c == filter[0],
               errors::InvalidArgument(
                   "op `%s` input `Filter`: expected dim 0 equal to the %lld channels of Input "
                   "%s, received Filter of shape %s",
                   op, static_cast<long long>(g.out_c), input.ToString(), filter.ToString()));
    PL_ENFORCE(g.out_c % g.groups == 0,
               errors::InvalidArgument("op `%s` input `Input`: expected channels (%lld) "
                                       "divisible by groups = %lld",
                                       op, static_cast<long long>(g.out_c),
                                       static_cast<long long>(g.groups)));
  }
  g.in_c = filter[1] < 0 ? -1 : filter[1] * g.groups;
  for (int i = 1; i < 4; ++i) {
    PL_ENFORCE(filter[i] != 0, errors::InvalidArgument(
                                   "op `%s` input `Filter`: expected non-zero dims, received %s",
                                   op, filter.ToString()));
  }
  const std::vector<int> strides = Pair(op, attrs, "strides", 1);
  const std::vector<int> dilations = Pair(op, attrs, "dilations", 1);
  g.stride_h = strides[0];
  g.stride_w = strides[1];
  g.dilation_h = dilations[0];
  g.dilation_w = dilations[1];
  std::vector<int64_t> p = ExplicitPaddings(op, attrs);
  const std::string& algorithm = PaddingAlgorithm(op, attrs);
  ApplyPaddingAlgorithm(algorithm, g.out_h, g.kernel_h, g.stride_h, &p[0], &p[1]);
  ApplyPaddingAlgorithm(algorithm, g.out_w, g.kernel_w, g.stride_w, &p[2], &p[3]);
  if (algorithm == "SAME") g.dilation_h = g.dilation_w = 1;
  g.pad_top = p[0];
  g.pad_bottom = p[1];
  g.pad_left = p[2];
  g.pad_right = p[3];
  const std::vector<int> output_size = OptionalPair(op, attrs, "output_size");
  const std::vector<int> output_padding = OptionalPair(op, attrs, "output_padding");
  auto size = [&](int axis, const char* name, int64_t in, int64_t k, int64_t d, int64_t p0,
                  int64_t p1, int64_t s) -> int64_t {
    if (in < 0 || k < 0) return output_size.empty() ? -1 : output_size[axis];
    const Wide natural = (Wide(in) - 1) * s - p0 - p1 + Wide(d) * (k - 1) + 1;
    Wide out = natural;
    if (!output_size.empty()) {
      out = output_size[axis];
      PL_ENFORCE(out >= natural && out < natural + s,
                 errors::InvalidArgument(
                     "op `%s` attribute `output_size`: expected %s in [%lld, %lld) for Input %s, "
                     "Filter %s, stride %lld, paddings [%lld, %lld], dilation %lld; received %d",
                     op, name, static_cast<long long>(natural), static_cast<long long>(natural + s),
                     input.ToString(), filter.ToString(), static_cast<long long>(s),
                     static_cast<long long>(p0), static_cast<long long>(p1),
                     static_cast<long long>(d), output_size[axis]));
    } else if (!output_padding.empty()) {
      const int pad = output_padding[axis];
      PL_ENFORCE(pad >= 0 && pad < std::max(s, d),
                 errors::InvalidArgument(
                     "op `%s` attribute `output_padding`: expected %s in [0, max(stride %lld, "
                     "dilation %lld)), received %d",
                     op, name, static_cast<long long>(s), static_cast<long long>(d), pad));
      out += pad;
    }
    const int64_t narrow =
        NarrowOutputSize(op, name, out, "Input " + input.ToString(), p0, p1);
    PL_ENFORCE(narrow > 0,
               errors::InvalidArgument(
                   "op `%s`: output %s would be %lld, expected > 0 (Input %s, Filter %s, "
                   "paddings [%lld, %lld], stride %lld, dilation %lld; output = (in - 1) * "
                   "stride - pad0 - pad1 + dilation * (k - 1) + 1)",
                   op, name, static_cast<long long>(narrow), input.ToString(), filter.ToString(),
                   static_cast<long long>(p0), static_cast<long long>(p1),
                   static_cast<long long>(s), static_cast<long long>(d)));
    return narrow;
  };
  g.in_h = size(0, "height", g.out_h, g.kernel_h, g.dilation_h, g.pad_top, g.pad_bottom,
                g.stride_h);
  g.in_w = size(1, "width", g.out_w, g.kernel_w, g.dilation_w, g.pad_left, g.pad_right,
                g.stride_w);
  CheckOutputCountable(op, g.InputDims(), attrs);
  return g;
}

void ConvFusedGradMaker(framework::GradOpBuilder* g) {
  const bool fused = g->HasInput("Bias") || g->HasInput("ResidualData") ||
                     !ReadFusedActivation(g->ForwardType(), g->Attrs()).empty();
  PL_ENFORCE(!fused, errors::Unimplemented(
                         "op `%s`: a convolution fused with bias, residual or activation (an "
                         "inference program) has no gradient; differentiate the unfused program",
                         g->ForwardType()));
  g->AddOp(g->ForwardType() + "_grad",
           {{"Input", g->Input("Input")},
            {"Filter", g->Input("Filter")},
            {"Output@GRAD", g->OutputGrad("Output")}},
           {{"Input@GRAD", g->InputGrad("Input")}, {"Filter@GRAD", g->InputGrad("Filter")}},
           g->Attrs());
}

void ConvGradInferShape(framework::InferShapeContext* ctx, const DDim& expected) {
  const DDim dout = ctx->GetInputDim("Output@GRAD");
  bool ok = dout.size() == expected.size();
  for (int i = 0; ok && i < dout.size(); ++i) {
    ok = dout[i] < 0 || expected[i] < 0 || dout[i] == expected[i];
  }
  PL_ENFORCE(ok, errors::InvalidArgument(
                     "op `%s` input `Output@GRAD`: expected shape %s, received %s", ctx->OpType(),
                     expected.ToString(), dout.ToString()));
  if (ctx->HasOutput("Input@GRAD")) ctx->SetOutputDim("Input@GRAD", ctx->GetInputDim("Input"));
  if (ctx->HasOutput("Filter@GRAD")) ctx->SetOutputDim("Filter@GRAD", ctx->GetInputDim("Filter"));
}

void CheckNoConvFusion(const std::string& op, const AttributeMap& attrs) {
  for (const char* name : {"fuse_relu", "fuse_brelu", "fuse_activation", "fuse_residual_connection",
                           "fuse_relu_before_depthwise_conv"}) {
    auto it = attrs.find(name);
    PL_ENFORCE(it == attrs.end() || !IsSet(it->second),
               errors::Unimplemented("op `%s` attribute `%s`: fused activations and residual "
                                     "connections are not implemented, received %s",
                                     op, name, framework::AttrToString(it->second)));
  }
}

DDim Pool2dGeometry::OutputDims() const {
  return channel_last ? DDim{batch, out_h, out_w, channels} : DDim{batch, channels, out_h, out_w};
}

int64_t Pool2dGeometry::AvgExtent(bool rows, int64_t o) const {
  const int64_t pad = rows ? pad_top : pad_left, k = rows ? kernel_h : kernel_w;
  const int64_t start = o * (rows ? stride_h : stride_w) - pad;
  return std::min(start + k, (rows ? in_h : in_w) + pad) - start;
}

bool Pool2dGeometry::HasShortAvgWindow() const {
  if (is_max || exclusive || adaptive || out_h <= 0 || out_w <= 0) return false;
  return AvgExtent(true, out_h - 1) < kernel_h || AvgExtent(false, out_w - 1) < kernel_w;
}

bool Pool2dGeometry::HasEmptyWindow() const {
  if (adaptive) return false;  // Every adaptive window holds at least one element.
  return kernel_h <= pad_top || kernel_w <= pad_left || (out_h - 1) * stride_h - pad_top >= in_h ||
         (out_w - 1) * stride_w - pad_left >= in_w;
}

bool Pool2dGeometry::HasUniformAdaptiveWindows() const {
  return adaptive && out_h > 0 && out_w > 0 && in_h % out_h == 0 && in_w % out_w == 0;
}

bool Pool2dGeometry::IsDisjointMax() const {
  return is_max && !adaptive && stride_h == kernel_h && stride_w == kernel_w && pad_top == 0 &&
         pad_left == 0 && kernel_h * out_h <= in_h && kernel_w * out_w <= in_w;
}

bool Pool2dGeometry::IsDisjointMax2x2() const {
  return IsDisjointMax() && kernel_h == 2 && kernel_w == 2;
}

Pool2dGeometry Pool2dGeometry::AsFixedWindows() const {
  Pool2dGeometry g = *this;
  g.adaptive = false;
  g.kernel_h = g.stride_h = in_h / out_h;
  g.kernel_w = g.stride_w = in_w / out_w;
  g.pad_top = g.pad_bottom = g.pad_left = g.pad_right = 0;
  return g;
}

void Pool2dGeometry::Window(bool rows, int64_t o, int64_t* begin, int64_t* end) const {
  const int64_t in = rows ? in_h : in_w;
  if (adaptive) {
    const int64_t out = rows ? out_h : out_w;
    *begin = o * in / out;
    *end = ((o + 1) * in + out - 1) / out;
    return;
  }
  const int64_t start = o * (rows ? stride_h : stride_w) - (rows ? pad_top : pad_left);
  *end = std::min(start + (rows ? kernel_h : kernel_w), in);
  *begin = std::max<int64_t>(start, 0);
  *end = std::max(*end, *begin);
}

Pool2dGeometry ResolvePool2d(const std::string& op, const DDim& x, const AttributeMap& attrs) {
  RequireRank4(op, "input", "X", x);
  Pool2dGeometry g;
  g.channel_last = IsChannelLast(op, attrs);
  g.batch = x[0];
  g.channels = g.channel_last ? x[3] : x[1];
  g.in_h = g.channel_last ? x[1] : x[2];
  g.in_w = g.channel_last ? x[2] : x[3];
  const std::string& type = AttrOf<std::string>(op, attrs, "pooling_type");
  PL_ENFORCE(type == "max" || type == "avg",
             errors::InvalidArgument(
                 "op `%s` attribute `pooling_type`: expected max or avg, received %s", op, type));
  g.is_max = type == "max";
  g.exclusive = AttrOf<bool>(op, attrs, "exclusive");
  g.adaptive = AttrOf<bool>(op, attrs, "adaptive");
  const bool global = AttrOf<bool>(op, attrs, "global_pooling");
  const bool ceil_mode = AttrOf<bool>(op, attrs, "ceil_mode");
  const auto& ksize = AttrOf<std::vector<int>>(op, attrs, "ksize");
  PL_ENFORCE(ksize.size() == 2, errors::InvalidArgument(
                                    "op `%s` attribute `ksize`: expected 2 values, received %s", op,
                                    Str(ksize)));
  const std::vector<int> strides = Pair(op, attrs, "strides", 1);
  g.stride_h = strides[0];
  g.stride_w = strides[1];
  std::vector<int64_t> p = ExplicitPaddings(op, attrs);
  const std::string& algorithm = PaddingAlgorithm(op, attrs);
  if (global) {
    g.kernel_h = g.in_h;
    g.kernel_w = g.in_w;
  } else {
    PL_ENFORCE(ksize[0] > 0 && ksize[1] > 0,
               errors::InvalidArgument(
                   "op `%s` attribute `ksize`: expected values > 0, received %s", op, Str(ksize)));
    g.kernel_h = ksize[0];
    g.kernel_w = ksize[1];
  }
  if (global) {
    std::fill(p.begin(), p.end(), 0);
  } else {
    ApplyPaddingAlgorithm(algorithm, g.in_h, g.kernel_h, g.stride_h, &p[0], &p[1]);
    ApplyPaddingAlgorithm(algorithm, g.in_w, g.kernel_w, g.stride_w, &p[2], &p[3]);
  }
  g.pad_top = p[0];
  g.pad_bottom = p[1];
  g.pad_left = p[2];
  g.pad_right = p[3];
  if (g.adaptive) {
    g.out_h = g.kernel_h;
    g.out_w = g.kernel_w;
    CheckOutputCountable(op, g.OutputDims(), attrs);
    return g;
  }
  auto out_size = [&](const char* axis, int64_t in, int64_t k, int64_t p0, int64_t p1,
                      int64_t s) -> int64_t {
    if (global) return 1;
    if (in < 0) return -1;
    const Wide span = Wide(in) - k + p0 + p1 + (ceil_mode ? s - 1 : 0);
    const int64_t out =
        NarrowOutputSize(op, axis, span >= 0 ? span / s + 1 : 0, "X " + x.ToString(), p0, p1);
    PL_ENFORCE(out > 0,
               errors::InvalidArgument(
                   "op `%s`: output %s would be %lld, expected > 0 (X %s, ksize %lld, paddings "
                   "[%lld, %lld], stride %lld%s)",
                   op, axis, static_cast<long long>(out), x.ToString(), static_cast<long long>(k),
                   static_cast<long long>(p0), static_cast<long long>(p1),
                   static_cast<long long>(s), ceil_mode ? ", ceil_mode" : ""));
    return out;
  };
  g.out_h = out_size("height", g.in_h, g.kernel_h, g.pad_top, g.pad_bottom, g.stride_h);
  g.out_w = out_size("width", g.in_w, g.kernel_w, g.pad_left, g.pad_right, g.stride_w);
  CheckOutputCountable(op, g.OutputDims(), attrs);
  return g;
}

void CheckGradInputShape(const std::string& op, const char* slot, const DDim& expected,
                         const DDim& received) {
  PL_ENFORCE(received == expected,
             errors::InvalidArgument("op `%s` input `%s`: expected shape %s, received %s", op,
                                     slot, expected.ToString(), received.ToString()));
}

Conv2dGeometry ResolveConv2dGrad(const framework::ExecutionContext& ctx) {
  const std::string& op = ctx.Type();
  const Conv2dGeometry g = ResolveConv2d(op, ctx.Input("Input")->dims(),
                                         ctx.Input("Filter")->dims(), ctx.op().Attrs());
  CheckGradInputShape(op, "Output@GRAD", g.OutputDims(), ctx.Input("Output@GRAD")->dims());
  return g;
}

Conv2dGeometry ResolveConv2dTransposeAt(const framework::ExecutionContext& ctx) {
  const std::string& op = ctx.Type();
  const DDim input = ctx.Input("Input")->dims(), filter = ctx.Input("Filter")->dims();
  if (!ctx.HasInput("OutputSizeTensorList")) {
    return ResolveConv2dTranspose(op, input, filter, ctx.op().Attrs());
  }
  AttributeMap attrs = ctx.op().Attrs();
  attrs["output_size"] = ReadSizes(ctx, "OutputSizeTensorList");
  return ResolveConv2dTranspose(op, input, filter, attrs);
}

Conv2dGeometry ResolveConv2dTransposeGrad(const std::string& op, const DDim& input,
                                          const DDim& filter, const DDim& dout,
                                          const AttributeMap& attrs) {
  const Conv2dGeometry g = ResolveConv2dTranspose(op, input, filter, attrs);
  // A forward op sized at run time (OutputSizeTensorList, which its backward does not read)
  // gave Output the size Output@GRAD has: take it from there, within the same bounds.
  const std::vector<int> padding = OptionalPair(op, attrs, "output_padding");
  const bool padded = std::any_of(padding.begin(), padding.end(), [](int p) { return p != 0; });
  if (!OptionalPair(op, attrs, "output_size").empty() || padded || dout.size() != 4) return g;
  const int h = g.channel_last ? 1 : 2;
  if (dout[h] < 0 || dout[h + 1] < 0) return g;
  AttributeMap sized = attrs;
  sized["output_size"] = std::vector<int>{static_cast<int>(dout[h]), static_cast<int>(dout[h + 1])};
  return ResolveConv2dTranspose(op, input, filter, sized);
}

Conv2dGeometry ResolveConv2dTransposeGrad(const framework::ExecutionContext& ctx) {
  const std::string& op = ctx.Type();
  const DDim dout = ctx.Input("Output@GRAD")->dims();
  const Conv2dGeometry g = ResolveConv2dTransposeGrad(
      op, ctx.Input("Input")->dims(), ctx.Input("Filter")->dims(), dout, ctx.op().Attrs());
  CheckGradInputShape(op, "Output@GRAD", g.InputDims(), dout);
  return g;
}

template <typename T>
const T* NchwData(const framework::DenseTensor& t, bool channel_last, std::vector<T>* storage) {
  if (!channel_last) return t.data<T>();
  const DDim& d = t.dims();
  storage->resize(static_cast<size_t>(t.numel()));
  math::NhwcToNchw(t.data<T>(), d[0], d[1], d[2], d[3], storage->data());
  return storage->data();
}

template const float* NchwData<float>(const framework::DenseTensor&, bool, std::vector<float>*);
template const double* NchwData<double>(const framework::DenseTensor&, bool,
                                        std::vector<double>*);

}  // namespace operators
}  // namespace paddle_like

#include "inference/passes/conv_fuse_passes.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "framework/ir/graph.h"
#include "framework/ir/pattern.h"
#include "framework/ir/rewrite.h"
#include "inference/passes/pass_util.h"
#include "operators/activation/fused_activation.h"

namespace paddle_like {
namespace inference {

namespace {

using framework::BlockDesc;
using framework::DenseTensor;
using framework::OpDesc;
using framework::ProgramDesc;
using framework::Scope;
using framework::ir::FindMatches;
using framework::ir::Graph;
using framework::ir::Match;
using framework::ir::Pattern;

const char* const kConvTypes[] = {"conv2d", "depthwise_conv2d"};
// The convolutions a bias or batch_norm folds into (their kernels take Bias, not the
// residual or activation fusions).
const char* const kBiasConvTypes[] = {"conv2d", "depthwise_conv2d", "conv2d_transpose",
                                      "depthwise_conv2d_transpose"};

bool IsTranspose(const OpDesc& conv) {
  return conv.Type() == "conv2d_transpose" || conv.Type() == "depthwise_conv2d_transpose";
}

// The output channel that element `i` of `conv`'s Filter (`dims`) contributes to: Filter is
// [C_out, C_in / groups, kh, kw] for a convolution, [C_in, C_out / groups, kh, kw] for a
// transposed one.
int64_t OutputChannelOf(const OpDesc& conv, const std::vector<int64_t>& dims, int64_t i) {
  const int64_t taps = dims[2] * dims[3];
  if (!IsTranspose(conv)) return i / (dims[1] * taps);
  const int64_t groups = AttrOr<int>(conv, "groups", 1);
  const int64_t in_channel = i / (dims[1] * taps);
  const int64_t group = in_channel / (dims[0] / groups);
  return group * dims[1] + (i / taps) % dims[1];
}

bool ChannelLast(const OpDesc& conv) {
  return AttrOr<std::string>(conv, "data_format", "NCHW") == "NHWC";
}

// Output channels of `conv`: the first dim of its Filter's declaration (-1 when unknown).
int64_t OutChannels(const Graph& graph, const OpDesc& conv) {
  const framework::VarDesc* filter =
      graph.block().FindVarRecursive(SingleVar(conv.Inputs(), "Filter"));
  if (filter == nullptr || !filter->HasTensorDesc()) return -1;
  const std::vector<int64_t> dims = filter->GetShape();
  if (dims.size() != 4) return -1;
  return IsTranspose(conv) ? dims[1] * AttrOr<int>(conv, "groups", 1) : dims[0];
}

// The parameter elementwise_add `add` adds per output channel of `conv` (its Y: placed at the
// add's axis, its dims are 1 but C_out on the channel dim, as [C_out] at axis 1 or
// [1, C_out, 1, 1]), or null.
DenseTensor* ChannelBias(const Graph& graph, Scope* params, const OpDesc& conv, const OpDesc& add) {
  DenseTensor* y = FloatParam(graph, params, SingleVar(add.Inputs(), "Y"));
  const int64_t channels = OutChannels(graph, conv);
  if (y == nullptr || channels <= 0 || y->numel() != channels) return nullptr;
  const int rank = y->dims().size();
  const int axis = AttrOr<int>(add, "axis", -1) == -1 ? 4 - rank : AttrOr<int>(add, "axis", -1);
  const int channel_dim = ChannelLast(conv) ? 3 : 1;
  if (rank < 1 || axis < 0 || axis + rank > 4 || channel_dim < axis || channel_dim >= axis + rank) {
    return nullptr;
  }
  for (int j = 0; j < rank; ++j) {
    if (y->dims()[j] != (axis + j == channel_dim ? channels : 1)) return nullptr;
  }
  return y;
}

// ---- conv_bn_fuse_pass ------------------------------------------------------------------

// Folds the batch_norm of match `m` (conv, [add,] bn) into the conv; false, with nothing
// changed, when the match does not qualify.
bool FoldBatchNorm(ProgramDesc* program, BlockDesc* block, Scope* params, const Graph& graph,
                   const Match& m, bool with_add) {
  const OpDesc& conv = graph.Op(m.ops[0]);
  const OpDesc* add = with_add ? &graph.Op(m.ops[1]) : nullptr;
  const OpDesc& bn = graph.Op(m.ops.back());
  const std::string layout = AttrOr<std::string>(bn, "data_layout", "NCHW");
  if ((layout == "NHWC") != ChannelLast(conv)) return false;
  if (!InputsUnchangedUntil(graph, m.ops[0], m.ops.back())) return false;
  const std::string y = SingleVar(bn.Outputs(), "Y");
  if (y.empty() || !OtherOutputsUnused(graph, bn, {y})) return false;

  const std::string filter_name = SingleVar(conv.Inputs(), "Filter");
  DenseTensor* filter = FloatParam(graph, params, filter_name);
  if (filter == nullptr || filter->dims().size() != 4 || graph.Consumers(filter_name).size() != 1) {
    return false;
  }
  const int64_t channels = OutChannels(graph, conv);
  if (channels <= 0) return false;
  const framework::DDim per_channel{channels};
  std::vector<std::string> bn_params;
  std::vector<const DenseTensor*> stats;  // Scale, Bias, Mean, Variance.
  for (const char* slot : {"Scale", "Bias", "Mean", "Variance"}) {
    bn_params.push_back(SingleVar(bn.Inputs(), slot));
    const DenseTensor* t = FloatParam(graph, params, bn_params.back());
    if (t == nullptr || t->dims() != per_channel) return false;
    stats.push_back(t);
  }
  // The bias before the batch_norm: the conv's own, or the elementwise_add's.
  const DenseTensor* old_bias = nullptr;
  std::string old_bias_name;
  if (conv.HasInput("Bias")) {
    old_bias_name = SingleVar(conv.Inputs(), "Bias");
    old_bias = FloatParam(graph, params, old_bias_name);
    if (old_bias == nullptr || old_bias->dims() != per_channel) return false;
  }
  if (add != nullptr) {
    if (old_bias != nullptr) return false;
    old_bias = ChannelBias(graph, params, conv, *add);
    if (old_bias == nullptr) return false;
    old_bias_name = SingleVar(add->Inputs(), "Y");
  }

  // Every check passed: rewrite the parameters, then the ops.
  const double epsilon = AttrOr<float>(bn, "epsilon", 1e-5f);
  const float* scale = stats[0]->data<float>();
  const float* shift = stats[1]->data<float>();
  const float* mean = stats[2]->data<float>();
  const float* variance = stats[3]->data<float>();
  DenseTensor bias(per_channel, framework::DataType::FLOAT32);
  float* b = bias.mutable_data<float>(platform::CPUPlace());
  std::vector<double> channel_scale(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    const double s = scale[c] / std::sqrt(static_cast<double>(variance[c]) + epsilon);
    const double before = old_bias != nullptr ? old_bias->data<float>()[c] : 0.0;
    b[c] = static_cast<float>((before - mean[c]) * s + shift[c]);
    channel_scale[c] = s;
    // Damaged statistics would be baked into the filter: refused, as PaddlePaddle's fold does.
    PL_ENFORCE(std::isfinite(static_cast<float>(s)) && std::isfinite(b[c]),
               errors::InvalidArgument(
                   "op `batch_norm` (Y: %s): folding it into `%s` gives a non-finite %s for "
                   "channel %lld (Scale `%s` %g, Bias `%s` %g, Mean `%s` %g, Variance `%s` %g, "
                   "epsilon %g): the parameters are damaged",
                   y, conv.Type(), std::isfinite(static_cast<float>(s)) ? "bias" : "scale",
                   static_cast<long long>(c), bn_params[0], scale[c], bn_params[1], shift[c],
                   bn_params[2], mean[c], bn_params[3], variance[c], epsilon));
  }
  float* w = filter->data<float>();
  const std::vector<int64_t> filter_dims = filter->dims().ToVector();
  for (int64_t i = 0; i < filter->numel(); ++i) {
    w[i] = static_cast<float>(w[i] * channel_scale[OutputChannelOf(conv, filter_dims, i)]);
  }
  const std::string bias_name = AddParam(block, params, bn_params[1] + ".conv_bn_folded",
                                         std::move(bias));
  OpDesc fused = conv;
  fused.SetInput("Bias", {bias_name});
  fused.SetOutput("Output", {y});
  // A batch_norm that applies relu itself (PaddlePaddle's oneDNN passes set fuse_with_relu)
  // hands it on to the conv, whose tail is free (IsUnfusedConvTail).
  if (AttrOr<bool>(bn, "fuse_with_relu", false)) {
    operators::FusedActivation relu;
    relu.name = "relu";
    operators::WriteFusedActivation(relu, &fused);
  }
  framework::ir::ReplaceOps(block, m.ops, fused);
  bn_params.push_back(old_bias_name);
  DropUnusedParams(*program, block, params, bn_params);
  return true;
}

bool FoldOneBatchNorm(ProgramDesc* program, BlockDesc* block, Scope* params) {
  for (const char* type : kBiasConvTypes) {
    for (bool with_add : {false, true}) {
      const Graph graph(*block);
      Pattern p;
      const int conv = p.AddOp(type, IsUnfusedConvTail);
      int last = conv;
      std::string last_slot = "Output";
      if (with_add) {
        const int add = p.AddOp("elementwise_add");
        p.Connect(conv, "Output", add, "X");
        last = add;
        last_slot = "Out";
      }
      const int bn = p.AddOp("batch_norm", UsesInferenceStatistics);
      p.Connect(last, last_slot, bn, "X");
      for (const Match& m : FindMatches(graph, p)) {
        if (FoldBatchNorm(program, block, params, graph, m, with_add)) return true;
      }
    }
  }
  return false;
}

// ---- conv_bias_fuse_pass -----------------------------------------------------------------

bool FuseOneBias(BlockDesc* block, Scope* params) {
  for (const char* type : kBiasConvTypes) {
    const Graph graph(*block);
    Pattern p;
    const int conv = p.AddOp(type, [](const OpDesc& op) {
      return IsUnfusedConvTail(op) && !op.HasInput("Bias");
    });
    const int add = p.AddOp("elementwise_add");
    p.Connect(conv, "Output", add, "X");
    for (const Match& m : FindMatches(graph, p)) {
      const OpDesc& conv_op = graph.Op(m.ops[conv]);
      const OpDesc& add_op = graph.Op(m.ops[add]);
      DenseTensor* bias = ChannelBias(graph, params, conv_op, add_op);
      if (bias == nullptr || !InputsUnchangedUntil(graph, m.ops[conv], m.ops[add])) continue;
      const std::string y = SingleVar(add_op.Inputs(), "Y");
      std::string bias_name = y;
      if (bias->dims().size() != 1) {  // [1, C, 1, 1] and the like: a [C] copy.
        DenseTensor flat(framework::DDim{bias->numel()}, framework::DataType::FLOAT32);
        std::copy(bias->data<float>(), bias->data<float>() + bias->numel(),
                  flat.mutable_data<float>(platform::CPUPlace()));
        bias_name = AddParam(block, params, bias_name + ".conv_bias", std::move(flat));
      }
      OpDesc fused = conv_op;
      fused.SetInput("Bias", {bias_name});
      fused.SetOutput("Output", {SingleVar(add_op.Outputs(), "Out")});
      framework::ir::ReplaceOps(block, m.ops, fused);
      DropUnusedParams(*block->Program(), block, params, {y});  // add_op is gone.
      return true;
    }
  }
  return false;
}

// ---- conv_elementwise_add_fuse_pass ------------------------------------------------------

// Whether `a` and `b` are declared with the same rank-4 shape, unknown at most in the batch.
bool SameDeclaredShape(const Graph& graph, const std::string& a, const std::string& b) {
  const framework::VarDesc* va = graph.block().FindVarRecursive(a);
  const framework::VarDesc* vb = graph.block().FindVarRecursive(b);
  if (va == nullptr || vb == nullptr || !va->HasTensorDesc() || !vb->HasTensorDesc()) return false;
  const std::vector<int64_t> da = va->GetShape(), db = vb->GetShape();
  if (da.size() != 4 || da != db) return false;
  for (size_t i = 1; i < da.size(); ++i) {
    if (da[i] < 0) return false;
  }
  return va->GetDataType() == vb->GetDataType();
}

bool FuseOneResidual(BlockDesc* block) {
  for (const char* type : kConvTypes) {
    for (const char* conv_slot : {"X", "Y"}) {
      const Graph graph(*block);
      Pattern p;
      const int conv = p.AddOp(type, IsUnfusedConvTail);
      const int add = p.AddOp("elementwise_add");
      p.Connect(conv, "Output", add, conv_slot);
      for (const Match& m : FindMatches(graph, p)) {
        const OpDesc& conv_op = graph.Op(m.ops[conv]);
        const OpDesc& add_op = graph.Op(m.ops[add]);
        const std::string out = SingleVar(conv_op.Outputs(), "Output");
        const std::string residual =
            SingleVar(add_op.Inputs(), std::string(conv_slot) == "X" ? "Y" : "X");
        if (residual.empty() || residual == out || !SameDeclaredShape(graph, out, residual)) {
          continue;
        }
        if (!InputsUnchangedUntil(graph, m.ops[conv], m.ops[add])) continue;
        OpDesc fused = conv_op;
        fused.SetInput("ResidualData", {residual});
        fused.SetAttr("fuse_residual_connection", true);
        fused.SetOutput("Output", {SingleVar(add_op.Outputs(), "Out")});
        framework::ir::ReplaceOps(block, m.ops, fused);
        return true;
      }
    }
  }
  return false;
}

// ---- conv_activation_fuse_pass -----------------------------------------------------------

bool FuseOneActivation(BlockDesc* block) {
  for (const char* type : kConvTypes) {
    if (FuseOneTrailingActivation(
            block, type, "Output", [](const OpDesc& op) { return !HasFusedActivation(op); },
            [](const operators::FusedActivation& a, OpDesc* conv) {
              operators::WriteFusedActivation(a, conv);
            })) {
      return true;
    }
  }
  return false;
}

}  // namespace

// Versions the passes were written against: conv2d 1 (use_addto), conv2d_transpose 2
// (output_padding, oneDNN precision attributes), elementwise_add 1 (the Scale_* attributes,
// unused here), batch_norm 0; activations: pass_util.h.
framework::ir::PassCapability ConvBnFusePass::Capability() const {
  return {{{"conv2d", 1},
           {"depthwise_conv2d", 1},
           {"conv2d_transpose", 2},
           {"depthwise_conv2d_transpose", 1},
           {"elementwise_add", 1},
           {"batch_norm", 0}}};
}

int ConvBnFusePass::ApplyImpl(ProgramDesc* program, Scope* params) const {
  if (params == nullptr) return 0;
  return RewriteEachBlock(program, [&](BlockDesc* block) {
    return FoldOneBatchNorm(program, block, params);
  });
}

framework::ir::PassCapability ConvBiasFusePass::Capability() const {
  return {{{"conv2d", 1},
           {"depthwise_conv2d", 1},
           {"conv2d_transpose", 2},
           {"depthwise_conv2d_transpose", 1},
           {"elementwise_add", 1}}};
}

int ConvBiasFusePass::ApplyImpl(ProgramDesc* program, Scope* params) const {
  if (params == nullptr) return 0;
  return RewriteEachBlock(program, [&](BlockDesc* block) { return FuseOneBias(block, params); });
}

framework::ir::PassCapability ConvElementwiseAddFusePass::Capability() const {
  return {{{"conv2d", 1}, {"depthwise_conv2d", 1}, {"elementwise_add", 1}}};
}

int ConvElementwiseAddFusePass::ApplyImpl(ProgramDesc* program, Scope* /*params*/) const {
  return RewriteEachBlock(program, [](BlockDesc* block) { return FuseOneResidual(block); });
}

framework::ir::PassCapability ConvActivationFusePass::Capability() const {
  framework::ir::PassCapability c{{{"conv2d", 1}, {"depthwise_conv2d", 1}}};
  AddFusableActivationVersions(&c);
  return c;
}

int ConvActivationFusePass::ApplyImpl(ProgramDesc* program, Scope* /*params*/) const {
  return RewriteEachBlock(program, [](BlockDesc* block) { return FuseOneActivation(block); });
}

}  // namespace inference
}  // namespace paddle_like

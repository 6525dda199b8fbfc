#include "inference/passes/scale_fuse_pass.h"

#include <string>
#include <vector>

#include "framework/ir/graph.h"
#include "framework/ir/rewrite.h"
#include "inference/passes/pass_util.h"

namespace paddle_like {
namespace inference {

namespace {

using framework::BlockDesc;
using framework::DenseTensor;
using framework::OpDesc;
using framework::ProgramDesc;
using framework::Scope;
using framework::ir::Graph;

struct ScaleOp {
  size_t index = 0;
  std::string x, out;
  float scale = 1, bias = 0;
  bool bias_after_scale = true;
};

// Op `i` as a scale by constants, or false (another op, a ScaleTensor, odd slots).
bool ReadScale(const Graph& graph, size_t i, ScaleOp* s) {
  const OpDesc& op = graph.Op(i);
  if (op.Type() != "scale") return false;
  auto it = op.Inputs().find("ScaleTensor");
  if (it != op.Inputs().end() && !it->second.empty()) return false;
  s->index = i;
  s->x = SingleVar(op.Inputs(), "X");
  s->out = SingleVar(op.Outputs(), "Out");
  s->scale = AttrOr<float>(op, "scale", 1.0f);
  s->bias = AttrOr<float>(op, "bias", 0.0f);
  s->bias_after_scale = AttrOr<bool>(op, "bias_after_scale", true);
  return !s->x.empty() && !s->out.empty() && s->x != s->out;
}

bool IsTemporary(const Graph& graph, const std::string& var) {
  return !graph.IsPersistable(var) && !graph.IsVisibleOutside(var);
}

// The op that alone writes `s.x`, which only the scale reads, when that op may write
// `s.out` in its place: Out is written by the scale alone and read by no op up to it.
// Returns the producer's index, or -1.
long ProducerThatCanWriteOut(const Graph& graph, const ScaleOp& s) {
  const auto& producers = graph.Producers(s.x);
  const auto& readers = graph.Consumers(s.x);
  if (producers.size() != 1 || readers.size() != 1 || readers[0] != s.index ||
      producers[0] >= s.index || !IsTemporary(graph, s.x) ||
      graph.Op(producers[0]).Type() == "feed") {  // A feed target keeps its name.
    return -1;
  }
  const auto& out_producers = graph.Producers(s.out);
  if (out_producers.size() != 1 || out_producers[0] != s.index) return -1;
  for (size_t reader : graph.Consumers(s.out)) {
    if (reader <= s.index) return -1;
  }
  return static_cast<long>(producers[0]);
}

// The producer writes Out instead of X (a copy `rewritten` of it), and the scale goes.
void ProducerWritesOut(BlockDesc* block, size_t producer, const OpDesc& rewritten,
                       const ScaleOp& s) {
  OpDesc replacement = rewritten;
  replacement.Rename(s.x, s.out);
  framework::ir::ReplaceOps(block, {producer}, replacement);
  block->RemoveOp(s.index, s.index + 1);
  if (block->FindVar(s.x) != nullptr && !block->FindVar(s.x)->Persistable()) {
    block->RemoveVar(s.x);
  }
}

bool RemoveIdentity(BlockDesc* block, const Graph& graph, const ScaleOp& s) {
  if (s.scale != 1.0f || s.bias != 0.0f) return false;
  const auto& out_producers = graph.Producers(s.out);
  if (IsTemporary(graph, s.out) && out_producers.size() == 1 && out_producers[0] == s.index) {
    framework::ir::RemoveIdentityOp(block, s.index, s.x, s.out);
    return true;
  }
  const long producer = ProducerThatCanWriteOut(graph, s);
  if (producer < 0) return false;
  ProducerWritesOut(block, static_cast<size_t>(producer), graph.Op(producer), s);
  return true;
}

// The weight and bias slots of the ops a scale folds into, and the bias's length.
struct Folding {
  std::string weight_slot, out_slot;
  int64_t channels = 0;
};

bool FoldableProducer(const OpDesc& op, const DenseTensor& weight, Folding* f) {
  if (op.Type() == "conv2d" || op.Type() == "depthwise_conv2d") {
    if (!IsUnfusedConvTail(op) || weight.dims().size() != 4) return false;
    *f = {"Filter", "Output", weight.dims()[0]};
    return true;
  }
  if (op.Type() == "fc") {
    if (!AttrOr<std::string>(op, "activation_type", "").empty() || weight.dims().size() != 2) {
      return false;
    }
    *f = {"W", "Out", weight.dims()[1]};
    return true;
  }
  return false;
}

bool FoldIntoProducer(BlockDesc* block, Scope* params, const Graph& graph, const ScaleOp& s) {
  if (params == nullptr) return false;
  const long p = ProducerThatCanWriteOut(graph, s);
  if (p < 0) return false;
  const OpDesc& producer = graph.Op(static_cast<size_t>(p));
  std::string weight_name = SingleVar(producer.Inputs(), "Filter");
  if (weight_name.empty()) weight_name = SingleVar(producer.Inputs(), "W");
  DenseTensor* weight = FloatParam(graph, params, weight_name);
  Folding f;
  if (weight == nullptr || graph.Consumers(weight_name).size() != 1 ||
      !FoldableProducer(producer, *weight, &f) || SingleVar(producer.Outputs(), f.out_slot) != s.x) {
    return false;
  }
  const std::string bias_name = SingleVar(producer.Inputs(), "Bias");
  DenseTensor* bias = nullptr;
  if (!bias_name.empty()) {
    bias = FloatParam(graph, params, bias_name);
    if (bias == nullptr || bias->numel() != f.channels || graph.Consumers(bias_name).size() != 1) {
      return false;
    }
  }
  // Every check passed: fold.
  float* w = weight->data<float>();
  for (int64_t i = 0; i < weight->numel(); ++i) w[i] *= s.scale;
  const auto folded = [&](float b) {
    return s.bias_after_scale ? s.scale * b + s.bias : s.scale * (b + s.bias);
  };
  OpDesc rewritten = producer;
  if (bias != nullptr) {
    float* b = bias->data<float>();
    for (int64_t c = 0; c < f.channels; ++c) b[c] = folded(b[c]);
  } else if (folded(0.0f) != 0.0f) {
    DenseTensor fresh(framework::DDim{f.channels}, framework::DataType::FLOAT32);
    float* b = fresh.mutable_data<float>(platform::CPUPlace());
    for (int64_t c = 0; c < f.channels; ++c) b[c] = folded(0.0f);
    rewritten.SetInput("Bias", {AddParam(block, params, weight_name + ".scale_bias",
                                         std::move(fresh))});
  }
  ProducerWritesOut(block, static_cast<size_t>(p), rewritten, s);
  return true;
}

bool RewriteOne(BlockDesc* block, Scope* params) {
  const Graph graph(*block);
  for (size_t i = 0; i < graph.OpCount(); ++i) {
    ScaleOp s;
    if (!ReadScale(graph, i, &s)) continue;
    if (RemoveIdentity(block, graph, s) || FoldIntoProducer(block, params, graph, s)) {
      return true;
    }
  }
  return false;
}

}  // namespace

framework::ir::PassCapability ScaleFusePass::Capability() const {
  return {{{"scale", 0}, {"conv2d", 1}, {"depthwise_conv2d", 1}, {"fc", 0}}};
}

int ScaleFusePass::ApplyImpl(ProgramDesc* program, Scope* params) const {
  return RewriteEachBlock(program, [&](BlockDesc* block) { return RewriteOne(block, params); });
}

}  // namespace inference
}  // namespace paddle_like

#include "paddle_like/layers/data_parallel.h"

#include <gflags/gflags.h>

#include <algorithm>
#include <map>
#include <set>

#include "framework/op_proto_maker.h"
#include "platform/enforce.h"

DECLARE_int32(fuse_grad_size_in_MB);  // platform/flags.cc

namespace paddle_like {
namespace layers {

int64_t DefaultBucketBytes() {
  PL_ENFORCE(FLAGS_fuse_grad_size_in_MB > 0,
             errors::InvalidArgument("FLAGS_fuse_grad_size_in_MB: expected a positive size in "
                                     "MiB, received %d",
                                     FLAGS_fuse_grad_size_in_MB));
  return static_cast<int64_t>(FLAGS_fuse_grad_size_in_MB) << 20;
}

namespace {

using framework::BlockDesc;
using framework::OpDesc;
using framework::OpRole;
using framework::VarDesc;

constexpr int kBackward = static_cast<int>(OpRole::kBackward);
constexpr int kLoss = static_cast<int>(OpRole::kLoss);
constexpr int kOptimize = static_cast<int>(OpRole::kOptimize);
constexpr int64_t kAlignBytes = 256;  // coalesce_tensor's default alignment.

int RoleOf(const OpDesc& op) {
  if (!op.HasAttr("op_role")) return 0;
  const int* role = std::get_if<int>(&op.GetAttr("op_role"));
  return role == nullptr ? 0 : *role;
}

OpDesc* InsertOp(BlockDesc* block, size_t index, const std::string& type,
                 const framework::VariableNameMap& inputs,
                 const framework::VariableNameMap& outputs, const framework::AttributeMap& attrs) {
  OpDesc* op = block->InsertOp(index);
  op->SetType(type);
  for (const auto& [slot, names] : inputs) op->SetInput(slot, names);
  for (const auto& [slot, names] : outputs) op->SetOutput(slot, names);
  for (const auto& [name, value] : attrs) op->SetAttr(name, value);
  return op;
}

struct Bucket {
  framework::DataType dtype;
  std::vector<std::string> grads;
  int64_t elements = 0;  // With coalesce_tensor's padding.
};

// Buckets of gradients of one dtype, at most `limit` bytes each (a larger gradient gets its
// own), in the order given.
std::vector<Bucket> MakeBuckets(const BlockDesc& block, const std::vector<std::string>& grads,
                                int64_t limit) {
  std::vector<Bucket> buckets;
  std::map<framework::DataType, size_t> open;  // dtype -> index of its open bucket.
  for (const std::string& g : grads) {
    const VarDesc* var = block.FindVarRecursive(g);
    const framework::DataType dtype = var->GetDataType();
    int64_t n = 1;
    for (int64_t d : var->GetShape()) {
      PL_ENFORCE(d >= 0, errors::InvalidArgument("data parallel: gradient `%s` has shape with "
                                                 "unknown dims; a parameter's gradient needs "
                                                 "its full shape",
                                                 g));
      n *= d;
    }
    const int64_t element = static_cast<int64_t>(platform::SizeOf(dtype));
    const int64_t padded =
        (n * element + kAlignBytes - 1) / kAlignBytes * kAlignBytes / element;
    auto it = open.find(dtype);
    if (it == open.end() || (buckets[it->second].elements + padded) * element > limit) {
      buckets.push_back(Bucket{dtype, {}, 0});
      open[dtype] = buckets.size() - 1;
      it = open.find(dtype);
    }
    Bucket& b = buckets[it->second];
    b.grads.push_back(g);
    b.elements += padded;
  }
  return buckets;
}

}  // namespace

ParamGrads OptimizerParamGrads(const BlockDesc& block) {
  ParamGrads pairs;
  std::set<std::string> seen;
  for (size_t i = 0; i < block.OpSize(); ++i) {
    const OpDesc& op = *block.Op(i);
    if (!(RoleOf(op) & kOptimize) || !op.HasAttr("op_role_var")) continue;
    const auto* vars = std::get_if<std::vector<std::string>>(&op.GetAttr("op_role_var"));
    if (vars == nullptr) continue;
    for (size_t k = 0; k + 1 < vars->size(); k += 2) {
      const std::string& param = (*vars)[k];
      std::string grad = (*vars)[k + 1];
      const std::string raw = param + "@GRAD";
      if (grad != raw && block.FindVarRecursive(raw) != nullptr) grad = raw;
      if (seen.insert(param).second) pairs.emplace_back(param, grad);
    }
  }
  return pairs;
}

void ApplyDataParallel(const ParamGrads& param_grads, const DataParallelOptions& options,
                       framework::ProgramDesc* main, framework::ProgramDesc* startup) {
  PL_ENFORCE(options.nranks >= 1,
             errors::InvalidArgument("data parallel: nranks must be >= 1, received %d",
                                     options.nranks));
  if (options.nranks == 1 || param_grads.empty()) return;
  BlockDesc* block = &main->Block(0);

  // Every gradient must be a dense tensor or a SelectedRows the block declares; find the
  // last op writing one.
  std::set<std::string> grad_set;
  std::vector<std::string> sparse;
  for (const auto& [param, grad] : param_grads) {
    const VarDesc* var = block->FindVarRecursive(grad);
    PL_ENFORCE(var != nullptr, errors::InvalidArgument("data parallel: gradient `%s` of "
                                                       "parameter `%s` is not declared",
                                                       grad, param));
    PL_ENFORCE(var->GetKind() == framework::VarKind::kDenseTensor ||
                   var->GetKind() == framework::VarKind::kSelectedRows,
               errors::InvalidArgument("data parallel: gradient `%s` of parameter `%s` is "
                                       "neither a dense tensor nor a SelectedRows",
                                       grad, param));
    if (var->GetKind() == framework::VarKind::kSelectedRows) sparse.push_back(grad);
    grad_set.insert(grad);
  }
  // Where each gradient is complete: after the last op (not an optimizer) that writes it.
  std::map<std::string, size_t> written_at;
  size_t last_writer = 0;
  size_t loss_seed = 0;
  bool found_seed = false;
  for (size_t i = 0; i < block->OpSize(); ++i) {
    const OpDesc& op = *block->Op(i);
    if (!(RoleOf(op) & kOptimize)) {
      for (const std::string& out : op.OutputArgumentNames()) {
        if (grad_set.count(out) > 0) {
          written_at[out] = i;
          last_writer = i;
        }
      }
    }
    if (!found_seed && RoleOf(op) == (kBackward | kLoss)) {
      loss_seed = i;
      found_seed = true;
    }
  }
  PL_ENFORCE(!written_at.empty(), errors::InvalidArgument("data parallel: no op writes any of the %zu "
                                                   "gradients (was the backward pass appended?)",
                                                   grad_set.size()));
  PL_ENFORCE(found_seed && loss_seed < last_writer,
             errors::InvalidArgument("data parallel: no op seeds the loss gradient before the "
                                     "gradients are written (op_role backward|loss)"));

  // Gradients of the last layers come first in backward: bucket them in that order.
  std::vector<std::string> grads;
  for (auto it = param_grads.rbegin(); it != param_grads.rend(); ++it) {
    if (std::find(sparse.begin(), sparse.end(), it->second) == sparse.end()) {
      grads.push_back(it->second);
    }
  }
  // The ops, each to go right after op `after`: every dense bucket is all-reduced on the
  // ring's communication thread as soon as its last gradient is written, while backward
  // goes on; one c_sync_comm_stream after the last gradient waits for all of them before
  // anything reads a gradient. Sparse gradients are all-gathered there.
  struct Pending {
    size_t after;
    std::vector<OpDesc> ops;
  };
  std::vector<Pending> pending;
  const std::vector<std::string> all_grads(grad_set.begin(), grad_set.end());
  Pending tail{last_writer, {}};
  tail.ops.emplace_back("c_sync_comm_stream", framework::VariableNameMap{{"X", all_grads}},
                        framework::VariableNameMap{{"Out", all_grads}},
                        framework::AttributeMap{{"ring_id", options.ring_id},
                                                {"op_role", kBackward}});
  for (const std::string& g : sparse) {
    tail.ops.emplace_back("c_allgather", framework::VariableNameMap{{"X", {g}}},
                          framework::VariableNameMap{{"Out", {g}}},
                          framework::AttributeMap{{"ring_id", options.ring_id},
                                                  {"nranks", options.nranks},
                                                  {"use_calc_stream", true},
                                                  {"op_role", kBackward}});
  }
  int bucket_index = 0;
  for (const Bucket& bucket : MakeBuckets(*block, grads, options.bucket_bytes)) {
    if (bucket.grads.empty()) continue;
    std::string fused;
    do {
      fused = "data_parallel_fused_grad_" + std::to_string(bucket_index++);
    } while (block->FindVarRecursive(fused) != nullptr);
    // The buffer and its gradients live from step to step (persistable: never freed), so
    // backward writes each gradient into its place in the buffer and coalesce_tensor finds
    // them there instead of copying them (see the op).
    VarDesc* var = block->Var(fused);
    var->SetKind(framework::VarKind::kDenseTensor);
    var->SetDataType(bucket.dtype);
    var->SetShape({bucket.elements});
    var->SetPersistable(true);
    for (const std::string& g : bucket.grads) block->FindVarRecursive(g)->SetPersistable(true);
    size_t after = 0;
    for (const std::string& g : bucket.grads) after = std::max(after, written_at[g]);
    Pending p{after, {}};
    p.ops.emplace_back("coalesce_tensor", framework::VariableNameMap{{"Input", bucket.grads}},
                       framework::VariableNameMap{{"Output", bucket.grads},
                                                  {"FusedOutput", {fused}}},
                       framework::AttributeMap{{"dtype", static_cast<int>(bucket.dtype)},
                                               {"copy_data", true},
                                               {"use_align", true},
                                               {"op_role", kBackward}});
    p.ops.emplace_back("c_allreduce_sum", framework::VariableNameMap{{"X", {fused}}},
                       framework::VariableNameMap{{"Out", {fused}}},
                       framework::AttributeMap{{"ring_id", options.ring_id},
                                               {"use_calc_stream", false},
                                               {"op_role", kBackward}});
    pending.push_back(std::move(p));
  }
  // Insert from the back, so that the positions still hold. At one position the entry
  // inserted first ends up last: the tail (the sync) goes after the buckets.
  pending.push_back(std::move(tail));
  std::stable_sort(pending.begin(), pending.end(),
                   [](const Pending& a, const Pending& b) { return a.after < b.after; });
  for (auto it = pending.rbegin(); it != pending.rend(); ++it) {
    size_t at = it->after + 1;
    for (const OpDesc& op : it->ops) {
      InsertOp(block, at++, op.Type(), op.Inputs(), op.Outputs(), op.Attrs());
    }
  }

  // Scale the loss gradient so that the sum over ranks is the global batch's mean.
  const std::string loss_grad = block->Op(loss_seed)->OutputArgumentNames().at(0);
  InsertOp(block, loss_seed + 1, "scale", {{"X", {loss_grad}}}, {{"Out", {loss_grad}}},
           {{"scale", 1.0f / static_cast<float>(options.nranks)}, {"bias", 0.0f},
            {"bias_after_scale", true}, {"op_role", kBackward}});

  if (startup != nullptr) {
    BlockDesc* init = &startup->Block(0);
    for (const auto& [param, grad] : param_grads) {
      PL_ENFORCE(init->FindVarRecursive(param) != nullptr,
                 errors::InvalidArgument("data parallel: the startup program does not declare "
                                         "parameter `%s`",
                                         param));
      InsertOp(init, init->OpSize(), "c_broadcast", {{"X", {param}}}, {{"Out", {param}}},
               {{"ring_id", options.ring_id}, {"root", 0}, {"use_calc_stream", true}});
    }
  }
}

}  // namespace layers
}  // namespace paddle_like

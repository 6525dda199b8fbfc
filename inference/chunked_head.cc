#include "inference/chunked_head.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "framework/op_desc.h"
#include "inference/batchwise.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace infer {

namespace {

// The first ops are run by chunks while what one of them reads and writes for the whole
// batch passes this, in chunks within it. On a 2-core machine with 1 MB of L2 per core and
// 32 MB of L3, PP-LCNet at batch 16 on 2 threads took a median 4.3 ms so (its first 10 ops
// in chunks of 2 images) against 5.1 whole; 2 MB chunks (1 image) were slower than 4 MB,
// 16 MB no faster than whole; a 2 MB threshold (34 ops) gave 4.5, 8 MB (2 ops) 4.7.
constexpr size_t kHeadChunkBytes = size_t{4} << 20;

}  // namespace

std::unique_ptr<ChunkedHead> ChunkedHead::Plan(const framework::BlockDesc& block,
                                               const std::vector<std::string>& outputs,
                                               size_t end) {
  std::unique_ptr<ChunkedHead> head(new ChunkedHead());
  head->block_ = &block;
  head->fetched_ = outputs;
  std::set<std::string> written;
  for (size_t i = 0; i < std::min(end, block.OpSize()); ++i) {
    const framework::OpDesc& op = *block.Op(i);
    if (!IsBatchwiseOp(op.Type()) && !IsBatchwiseBinaryOp(op.Type())) break;
    std::vector<std::string> reads, writes;
    bool writes_parameter = false;
    for (const std::string& name : op.OutputArgumentNames()) {
      if (name.empty()) continue;
      const framework::VarDesc* var = block.FindVarRecursive(name);
      writes_parameter |= var != nullptr && var->Persistable();
      AddUnique(name, &writes);
    }
    if (writes_parameter) break;
    for (const std::string& name : op.InputArgumentNames()) {
      if (name.empty() || written.count(name)) continue;
      const framework::VarDesc* var = block.FindVarRecursive(name);
      if (var == nullptr || !var->Persistable()) AddUnique(name, &reads);
    }
    for (const std::string& name : reads) AddUnique(name, &head->inputs_);
    written.insert(writes.begin(), writes.end());
    head->reads_.push_back(std::move(reads));
    head->writes_.push_back(std::move(writes));
    head->candidates_ = i + 1;
  }
  if (head->candidates_ == 0 || head->inputs_.empty()) return nullptr;
  return head;
}

bool ChunkedHead::InputDims(framework::PreparedProgram* prepared,
                            std::vector<framework::DDim>* dims) const {
  dims->clear();
  for (const std::string& name : inputs_) {
    const framework::DenseTensor* t = DenseVar(prepared, name);
    if (t == nullptr || !t->initialized()) return false;
    dims->push_back(t->dims());
  }
  return true;
}

size_t ChunkedHead::Run(framework::Executor* executor, framework::PreparedProgram* prepared) {
  std::vector<framework::DDim> dims;
  if (!InputDims(prepared, &dims)) return 0;
  if (!measured_ || dims != measured_for_) {
    measured_for_ = dims;
    measured_ = true;
    return MeasureRun(executor, prepared);
  }
  return chosen_ == 0 ? 0 : ChunkedRun(executor, prepared);
}

size_t ChunkedHead::MeasureRun(framework::Executor* executor,
                               framework::PreparedProgram* prepared) {
  chosen_ = 0;
  const framework::DenseTensor* first = DenseVar(prepared, inputs_[0]);
  const int64_t batch = first->dims().size() >= 1 ? first->dims()[0] : 0;
  executor->StartRun(prepared);
  // What each op moves for the whole batch: its non-persistable operands (inputs as it read
  // them, outputs as it wrote them, in their layouts), its outputs, its parameters.
  struct Traffic {
    size_t operands = 0, outputs = 0, parameters = 0;
  };
  std::vector<Traffic> traffic(candidates_);
  size_t splittable = 0;  // Ops [0, splittable) split at this batch.
  for (size_t i = 0; i < candidates_; ++i) {
    const framework::OpDesc& op = *block_->Op(i);
    std::vector<const framework::DenseTensor*> inputs, outputs;
    for (const std::string& name : op.InputArgumentNames()) {
      const framework::VarDesc* var = name.empty() ? nullptr : block_->FindVarRecursive(name);
      const framework::DenseTensor* t = name.empty() ? nullptr : DenseVar(prepared, name);
      if (var != nullptr && var->Persistable()) {
        if (t != nullptr && t->initialized()) traffic[i].parameters += t->data_bytes();
      } else if (!name.empty()) {
        inputs.push_back(t);
        if (t != nullptr && t->initialized()) traffic[i].operands += t->data_bytes();
      }
    }
    // Inputs are checked before the op runs: it may free those it was the last to read.
    const bool inputs_split = splittable == i && batch >= 2 && BatchwiseAt(op, inputs, batch);
    executor->RunOp(prepared, i);
    for (const std::string& name : writes_[i]) {
      outputs.push_back(DenseVar(prepared, name));
      if (outputs.back() != nullptr) traffic[i].outputs += outputs.back()->data_bytes();
    }
    traffic[i].operands += traffic[i].outputs;
    if (inputs_split && BatchwiseAt(op, outputs, batch)) splittable = i + 1;
  }
  // Rows per chunk: the largest operands of the ops with large outputs within kHeadChunkBytes.
  size_t max_row_bytes = 0;
  for (size_t i = 0; i < splittable; ++i) {
    if (traffic[i].operands >= kHeadChunkBytes) {
      max_row_bytes = std::max(max_row_bytes, traffic[i].operands / static_cast<size_t>(batch));
    }
  }
  if (max_row_bytes == 0) return candidates_;
  const int64_t rows = ChunkRows(batch, max_row_bytes, kHeadChunkBytes);
  const size_t chunks = static_cast<size_t>(batch / rows);
  if (chunks < 2) return candidates_;
  // Chunk up to the last op with large outputs whose parameters, read once per chunk, do
  // not outweigh its operands.
  size_t chosen = 0;
  for (size_t i = 0; i < splittable; ++i) {
    if (traffic[i].operands >= kHeadChunkBytes &&
        traffic[i].parameters * (chunks - 1) <= traffic[i].operands) {
      chosen = i + 1;
    }
  }
  // What those ops read from outside, and leave for the rest of the program (not also
  // what they read).
  std::vector<std::string> reads, exits;
  for (size_t i = 0; i < chosen; ++i) {
    for (const std::string& name : reads_[i]) AddUnique(name, &reads);
  }
  for (size_t i = 0; i < chosen; ++i) {
    for (const std::string& name : writes_[i]) {
      bool read_later = Contains(fetched_, name);
      for (size_t j = chosen; j < block_->OpSize() && !read_later; ++j) {
        read_later = Contains(block_->Op(j)->InputArgumentNames(), name);
      }
      if (read_later) AddUnique(name, &exits);
      if (Contains(reads, name)) return candidates_;
    }
  }
  if (chosen == 0 || reads.empty()) return candidates_;
  chosen_ = chosen;
  rows_ = rows;
  chosen_inputs_ = std::move(reads);
  exits_ = std::move(exits);
  return candidates_;
}

size_t ChunkedHead::ChunkedRun(framework::Executor* executor,
                               framework::PreparedProgram* prepared) {
  std::vector<framework::DenseTensor*> vars;
  std::vector<framework::DenseTensor> full;
  for (const std::string& name : chosen_inputs_) {
    vars.push_back(MutableDenseVar(prepared, name));
    full.push_back(*vars.back());
  }
  const int64_t batch = full[0].dims()[0];
  std::vector<framework::DenseTensor> assembled(exits_.size());
  executor->StartRun(prepared);
  {
    RowViews views(std::move(vars), full);
    for (int64_t c = 0; c * rows_ < batch; ++c) {
      // Layouts other than those measured, without row views: this run and the next
      // ones at these dims run whole.
      if (!views.Set(c * rows_, rows_)) return chosen_ = 0;
      for (size_t i = 0; i < chosen_; ++i) executor->RunOp(prepared, i);
      for (size_t e = 0; e < exits_.size(); ++e) {
        const framework::DenseTensor& chunk = *DenseVar(prepared, exits_[e]);
        framework::DenseTensor& whole = assembled[e];
        if (c == 0) {
          std::vector<int64_t> dims = chunk.dims().ToVector();
          dims[0] = batch;
          whole = framework::DenseTensor(framework::DDim(dims), chunk.dtype());
          if (!chunk.is_plain()) {
            size_t offset = 0;
            auto layout = chunk.opaque_layout()->Rows(0, batch, &offset);
            if (layout == nullptr) return chosen_ = 0;
            whole.set_opaque_layout(std::move(layout));
          }
          whole.mutable_data(chunk.place(), chunk.dtype());
        }
        const size_t bytes = chunk.data_bytes();
        std::memcpy(static_cast<char*>(whole.raw_data()) + static_cast<size_t>(c) * bytes,
                    chunk.raw_data(), bytes);
      }
    }
  }
  for (size_t e = 0; e < exits_.size(); ++e) {
    *MutableDenseVar(prepared, exits_[e]) = std::move(assembled[e]);
  }
  return chosen_;
}

}  // namespace infer
}  // namespace paddle_like

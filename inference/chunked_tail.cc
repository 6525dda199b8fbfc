#include "inference/chunked_tail.h"

#include <algorithm>
#include <cstring>

#include "framework/op_desc.h"
#include "framework/scope.h"
#include "framework/variable.h"
#include "inference/batchwise.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace infer {

namespace {

// The last op is run by chunks only where its output reaches this size for the whole
// batch (smaller ones stay in cache when computed whole), in chunks of at most kChunkBytes
// of output. paddlelite_simple_model's 1.6 MB rows at batch 16 took 1.5 ms in chunks of 1 or
// 2 rows, 1.7-2.0 in chunks of 4, 2.1-2.6 whole (2 threads, 1 MB of L2 per core); at batch 4
// (6.4 MB) chunks were slower than the whole op, at batch 8 (12.8 MB) faster.
constexpr size_t kMinChunkedBytes = size_t{8} << 20;
constexpr size_t kChunkBytes = size_t{2} << 20;

// Writes `t` (a CPU tensor, any layout) row-major into `dst`.
void WritePlain(const framework::DenseTensor& t, void* dst) {
  if (t.numel() == 0) return;
  if (t.is_plain()) {
    std::memcpy(dst, t.raw_data(), t.data_bytes());
  } else {
    t.opaque_layout()->ToPlain(t.raw_data(), dst);
  }
}

}  // namespace

std::unique_ptr<ChunkedTail> ChunkedTail::Plan(const framework::BlockDesc& block,
                                               const std::vector<std::string>& outputs) {
  if (block.OpSize() == 0) return nullptr;
  const size_t last = block.OpSize() - 1;
  const framework::OpDesc& op = *block.Op(last);
  if (!IsBatchwiseOp(op.Type())) return nullptr;
  std::vector<std::string> written;
  for (const std::string& name : op.OutputArgumentNames()) {
    if (!name.empty()) written.push_back(name);
  }
  if (written.size() != 1 || !Contains(outputs, written[0])) return nullptr;
  // Another writer or reader of the output would see it computed late or in chunks.
  for (size_t i = 0; i < last; ++i) {
    for (const auto& names :
         {block.Op(i)->InputArgumentNames(), block.Op(i)->OutputArgumentNames()}) {
      if (Contains(names, written[0])) return nullptr;
    }
  }
  std::unique_ptr<ChunkedTail> tail(new ChunkedTail());
  tail->op_index_ = last;
  tail->output_ = written[0];
  for (const std::string& name : op.InputArgumentNames()) {
    if (name.empty() || name == tail->output_) {
      if (name == tail->output_) return nullptr;  // In place: chunks would read their own output.
      continue;
    }
    const framework::VarDesc* var = block.FindVarRecursive(name);
    if (var != nullptr && var->Persistable()) continue;
    AddUnique(name, &tail->batch_inputs_);
  }
  if (tail->batch_inputs_.empty()) return nullptr;
  return tail;
}

bool ChunkedTail::Start(framework::Executor* executor, framework::PreparedProgram* prepared) {
  pending_ = false;
  computed_ = -1;
  executor_ = executor;
  prepared_ = prepared;
  full_inputs_.clear();
  std::vector<framework::DDim> input_dims;
  int64_t batch = -1;
  for (const std::string& name : batch_inputs_) {
    const framework::DenseTensor* t = DenseVar(prepared, name);
    if (t == nullptr || !t->initialized() || t->dims().size() < 1 || !t->lod().empty() ||
        !t->place().is_cpu()) {
      return false;
    }
    if (batch >= 0 && t->dims()[0] != batch) return false;
    batch = t->dims()[0];
    full_inputs_.push_back(*t);
    input_dims.push_back(t->dims());
  }
  if (batch < 2) return false;
  if (input_dims != decided_for_) {
    rows_ = ChooseRows(batch);  // May leave a first chunk of one row computed.
    decided_for_ = input_dims;
  }
  if (rows_ >= batch) return false;
  if (computed_ != 0 && !RunChunk(0, rows_)) return false;
  const framework::DenseTensor* out = DenseVar(prepared, output_);
  std::vector<int64_t> dims = out->dims().ToVector();
  dims[0] = batch;
  dims_ = framework::DDim(dims);
  dtype_ = out->dtype();
  chunks_ = batch / rows_;
  pending_ = true;
  return true;
}

int64_t ChunkedTail::ChooseRows(int64_t batch) {
  if (!RunChunk(0, 1)) return batch;
  const framework::DenseTensor* out = DenseVar(prepared_, output_);
  if (out == nullptr || out->dims().size() < 1 || out->dims()[0] != 1) return batch;
  const size_t row_bytes = static_cast<size_t>(out->numel()) * platform::SizeOf(out->dtype());
  if (row_bytes == 0 || row_bytes * static_cast<size_t>(batch) < kMinChunkedBytes) return batch;
  const int64_t rows = ChunkRows(batch, row_bytes, kChunkBytes);
  if (rows != 1) computed_ = -1;
  return rows;
}

bool ChunkedTail::RunChunk(int64_t chunk, int64_t rows) {
  std::vector<framework::DenseTensor*> vars;
  for (const std::string& name : batch_inputs_) vars.push_back(MutableDenseVar(prepared_, name));
  RowViews views(std::move(vars), full_inputs_);
  if (!views.Set(chunk * rows, rows)) return false;
  computed_ = -1;
  executor_->RunOp(prepared_, op_index_);
  computed_ = chunk;
  return true;
}

void ChunkedTail::Deliver(void* dst) {
  PL_ENFORCE(pending_,
             errors::PreconditionNotMet("predictor: output `%s` has no pending chunks", output_));
  char* out = static_cast<char*>(dst);
  const size_t chunk_bytes =
      static_cast<size_t>(dims_.numel() / chunks_) * platform::SizeOf(dtype_);
  for (int64_t c = 0; c < chunks_; ++c) {
    // The inputs' layouts are those Start viewed: their rows view again.
    if (computed_ != c) {
      PL_ENFORCE(
          RunChunk(c, rows_),
          errors::PreconditionNotMet("predictor: input of `%s`'s op lost its row views", output_));
    }
    WritePlain(*DenseVar(prepared_, output_), out + static_cast<size_t>(c) * chunk_bytes);
  }
}

void ChunkedTail::Materialize() {
  if (!pending_) return;
  framework::DenseTensor whole(dims_, dtype_);
  whole.mutable_data(platform::CPUPlace(), dtype_);
  Deliver(whole.raw_data());
  *MutableDenseVar(prepared_, output_) = std::move(whole);
  pending_ = false;
}

void ChunkedTail::BeforeInputWrite(framework::DenseTensor* var) {
  if (!pending_ || !var->initialized()) return;
  for (const framework::DenseTensor& t : full_inputs_) {
    if (t.holder() == var->holder()) {
      var->clear();
      return;
    }
  }
}

}  // namespace infer
}  // namespace paddle_like

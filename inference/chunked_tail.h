// The last op of a predictor's program, run by chunks of the batch into the buffer that
// reads its output.
//
// A convolution at the end of a model (3->32 channels on 16 images of 224x224) writes a
// 25.7 MB output. Computed whole, that output goes to memory in the kernel's blocked layout
// and comes back to be converted into the caller's row-major buffer: three passes over
// memory. Computed one image at a time, each chunk is converted while it is still in cache:
// one pass. The predictor's Run therefore stops before such an op and computes only its
// first chunk (so that a bad input fails in Run); reading the output (Tensor::CopyToCpu)
// computes the remaining chunks, each written straight into the caller's buffer.
//
// An op qualifies when each batch index of its one output depends only on the same index of
// its non-persistable inputs (convolutions, pooling, activations: a fixed list), the output
// is one the caller fetches, and at run time the output is large (below that, computing it
// whole is as fast and needs no second step).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/block_desc.h"
#include "framework/dense_tensor.h"
#include "framework/executor.h"

namespace paddle_like {
namespace infer {

class ChunkedTail {
 public:
  // Null when the last op of `block` does not qualify; `outputs`: the fetched variables.
  static std::unique_ptr<ChunkedTail> Plan(const framework::BlockDesc& block,
                                           const std::vector<std::string>& outputs);

  size_t op_index() const { return op_index_; }
  const std::string& output() const { return output_; }
  // The op's non-persistable inputs: they must outlive the ops before it (any layout).
  const std::vector<std::string>& batch_inputs() const { return batch_inputs_; }

  // After the ops before the tail ran in `prepared`: computes the first chunk and returns
  // true, or returns false (nothing pending) when the inputs do not split this run (a small
  // output, unequal batch sizes, a layout without views of its rows); the caller then runs
  // the op whole.
  bool Start(framework::Executor* executor, framework::PreparedProgram* prepared);
  // True from a successful Start until Materialize or the next Start.
  bool pending() const { return pending_; }
  // The pending output's dims and dtype (its variable holds one chunk).
  const framework::DDim& dims() const { return dims_; }
  framework::DataType dtype() const { return dtype_; }
  // Writes the pending output, row-major, into `dst` (dims().numel() elements).
  void Deliver(void* dst);
  // Computes the pending output into its variable, row-major, and ends pending(): before an
  // input is overwritten or the output is read in place.
  void Materialize();
  // Ends pending() without computing the rest (a new run starts).
  void Discard() { pending_ = false; }
  // Before the caller writes input `var` while an output is pending: the variable lets go
  // of the buffer the pending chunks read (it gets a new one), so the output stays that of
  // the inputs of its run.
  void BeforeInputWrite(framework::DenseTensor* var);

 private:
  ChunkedTail() = default;
  // Runs the op on batch indices [chunk * rows, (chunk + 1) * rows) of the inputs; false
  // (nothing run) when an input's layout has no view of those rows.
  bool RunChunk(int64_t chunk, int64_t rows);
  // Rows per chunk for `batch` indices: the whole batch when not worth splitting.
  int64_t ChooseRows(int64_t batch);

  size_t op_index_ = 0;
  std::string output_;
  std::vector<std::string> batch_inputs_;

  framework::Executor* executor_ = nullptr;
  framework::PreparedProgram* prepared_ = nullptr;
  std::vector<framework::DenseTensor> full_inputs_;  // As the ops before the tail left them.
  std::vector<framework::DDim> decided_for_;         // The input dims rows_ was chosen for.
  int64_t rows_ = 0;
  int64_t chunks_ = 0;
  int64_t computed_ = -1;  // The chunk the output variable holds.
  bool pending_ = false;
  framework::DDim dims_;
  framework::DataType dtype_ = framework::DataType::FLOAT32;
};

}  // namespace infer
}  // namespace paddle_like

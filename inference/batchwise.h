// What lets the predictor run ops on chunks of the batch (chunked_head.h, chunked_tail.h):
// which ops compute each batch index from the same index of their inputs, and views of
// input variables on a range of batch indices.
#pragma once

#include <string>
#include <vector>

#include "framework/dense_tensor.h"
#include "framework/executor.h"
#include "framework/op_desc.h"

namespace paddle_like {
namespace infer {

// Whether `names` holds `name`; appends `name` unless it does.
bool Contains(const std::vector<std::string>& names, const std::string& name);
void AddUnique(const std::string& name, std::vector<std::string>* names);

// The dense tensor of variable `name` of `prepared`'s local scope (or a scope above it), or
// null. DenseVar only reads: parameters are shared by the predictors cloned from one, and a
// writable access would change the variable's version (see Variable::version) under them.
// MutableDenseVar is for the run's own variables, which the caller writes.
const framework::DenseTensor* DenseVar(framework::PreparedProgram* prepared,
                                       const std::string& name);
framework::DenseTensor* MutableDenseVar(framework::PreparedProgram* prepared,
                                        const std::string& name);

// Output index i reads only index i of the op's non-persistable inputs, whatever the
// attributes (batch is dim 0 in NCHW and NHWC alike).
bool IsBatchwiseOp(const std::string& type);

// Also batchwise when both operands have the batch dim (checked at run time, BatchwiseAt).
bool IsBatchwiseBinaryOp(const std::string& type);

// Whether `op`'s non-persistable operands `tensors` (inputs then outputs) all lead with the
// same `batch` dim, row-major or in a layout with row views, on the CPU and without LoD.
bool BatchwiseAt(const framework::OpDesc& op,
                 const std::vector<const framework::DenseTensor*>& tensors, int64_t batch);

// Sets `vars` to views of rows of `full` (their tensors when the run reached the chunked
// ops) and gives them their full tensors back when destroyed, however the ops ended.
class RowViews {
 public:
  RowViews(std::vector<framework::DenseTensor*> vars,
           const std::vector<framework::DenseTensor>& full)
      : vars_(std::move(vars)), full_(full) {}
  ~RowViews() {
    for (size_t i = 0; i < vars_.size(); ++i) *vars_[i] = full_[i];
  }
  RowViews(const RowViews&) = delete;
  RowViews& operator=(const RowViews&) = delete;
  // Views rows [begin, begin + count); false when a layout has no such view.
  bool Set(int64_t begin, int64_t count) {
    for (size_t i = 0; i < vars_.size(); ++i) {
      if (!vars_[i]->ShareRowsWith(full_[i], begin, count)) return false;
    }
    return true;
  }

 private:
  std::vector<framework::DenseTensor*> vars_;
  const std::vector<framework::DenseTensor>& full_;
};

// Rows per chunk: the largest divisor of `batch` below it whose rows take at most `budget`
// bytes at `row_bytes` each, else 1. A divisor gives every chunk one shape, so each kernel
// prepares for one shape only.
int64_t ChunkRows(int64_t batch, size_t row_bytes, size_t budget);

}  // namespace infer
}  // namespace paddle_like

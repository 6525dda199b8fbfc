// The first ops of a predictor's program, run image by image while their outputs are large.
//
// A convolutional network's first layers hold its largest activations: PP-LCNet's first
// three convolutions write 12.8 MB each for 16 images of 224x224, so each goes to memory
// and comes back. Run one chunk of the batch at a time, those ops keep their activations in
// cache; only what later ops read is assembled, chunk by chunk, at full batch size.
//
// The candidates are the program's leading batchwise ops (batchwise.h). Which of them to
// run by chunks depends on the input dims: the first run at new dims runs them whole and
// measures their operands, and picks the chunked ops (up to the last whose outputs are large
// and whose parameters, read again by each chunk, are not) and the rows per chunk (what the
// largest of them reads and writes for a chunk stays within a few MB).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/block_desc.h"
#include "framework/dense_tensor.h"
#include "framework/executor.h"

namespace paddle_like {
namespace infer {

class ChunkedHead {
 public:
  // Null when the block does not start with a batchwise op. `outputs`: the fetched
  // variables; `end`: ops from here on are never run by chunks (the chunked tail's).
  static std::unique_ptr<ChunkedHead> Plan(const framework::BlockDesc& block,
                                           const std::vector<std::string>& outputs, size_t end);

  // Starts a run: runs the leading ops (by chunks where chosen for the current input dims,
  // whole and measured at new dims) and returns how many ran; the run goes on from there.
  // 0 when the inputs do not split (the run then starts at op 0).
  size_t Run(framework::Executor* executor, framework::PreparedProgram* prepared);
  // How many leading ops the current dims run by chunks (0: none), and in how many rows.
  size_t chunked_ops() const { return chosen_; }
  int64_t rows() const { return rows_; }

 private:
  ChunkedHead() = default;
  // The dims of the candidates' inputs, or false when one is missing or not dense.
  bool InputDims(framework::PreparedProgram* prepared, std::vector<framework::DDim>* dims) const;
  // Runs the candidates whole, one by one, measuring their operands; chooses the ops and
  // rows for the current dims.
  size_t MeasureRun(framework::Executor* executor, framework::PreparedProgram* prepared);
  size_t ChunkedRun(framework::Executor* executor, framework::PreparedProgram* prepared);

  const framework::BlockDesc* block_ = nullptr;
  std::vector<std::string> fetched_;
  size_t candidates_ = 0;  // Leading batchwise ops.
  // For each candidate, the non-persistable variables it reads that no op before it
  // writes (the feeds, mostly), and the non-persistable variables it writes.
  std::vector<std::vector<std::string>> reads_, writes_;
  std::vector<std::string> inputs_;  // Union of reads_.

  bool measured_ = false;
  std::vector<framework::DDim> measured_for_;  // Input dims the choice below is for.
  size_t chosen_ = 0;
  int64_t rows_ = 0;
  std::vector<std::string> chosen_inputs_;  // What ops [0, chosen_) read from outside.
  std::vector<std::string> exits_;          // What they write that others read.
};

}  // namespace infer
}  // namespace paddle_like

// Config, PassStrategy, PredictorPool and GetVersion of paddle_like/inference_api.h.
#include <algorithm>
#include <sstream>

#include "inference/passes/passes.h"
#include "paddle_like/inference_api.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace infer {

std::string GetVersion() { return "paddle_like " PL_VERSION; }

void PassStrategy::InsertPass(size_t index, const std::string& name) {
  PL_ENFORCE(index <= passes_.size(),
             errors::OutOfRange("PassStrategy::InsertPass(%zu, \"%s\"): the list holds %zu "
                                "passes",
                                index, name, passes_.size()));
  passes_.insert(passes_.begin() + static_cast<std::ptrdiff_t>(index), name);
}

void PassStrategy::DeletePass(const std::string& name) {
  passes_.erase(std::remove(passes_.begin(), passes_.end(), name), passes_.end());
  if (std::find(deleted_.begin(), deleted_.end(), name) == deleted_.end()) {
    deleted_.push_back(name);
  }
}

void PassStrategy::DeletePass(size_t index) {
  PL_ENFORCE(index < passes_.size(),
             errors::OutOfRange("PassStrategy::DeletePass(%zu): the list holds %zu passes", index,
                                passes_.size()));
  DeletePass(std::string(passes_[index]));
}

void Config::SetModel(const std::string& model_dir) {
  model_dir_ = model_dir;
  prog_file_.clear();
  params_file_.clear();
  from_memory_ = false;
}

void Config::SetModel(const std::string& prog_file, const std::string& params_file) {
  model_dir_.clear();
  prog_file_ = prog_file;
  params_file_ = params_file;
  from_memory_ = false;
}

void Config::SetProgFile(const std::string& prog_file) {
  model_dir_.clear();
  prog_file_ = prog_file;
  from_memory_ = false;
}

void Config::SetParamsFile(const std::string& params_file) {
  params_file_ = params_file;
  from_memory_ = false;
}

void Config::SetModelBuffer(const char* prog_buffer, size_t prog_buffer_size,
                            const char* params_buffer, size_t params_buffer_size) {
  PL_ENFORCE(prog_buffer != nullptr || prog_buffer_size == 0,
             errors::InvalidArgument("Config::SetModelBuffer: program buffer is null with size "
                                     "%zu",
                                     prog_buffer_size));
  PL_ENFORCE(params_buffer != nullptr || params_buffer_size == 0,
             errors::InvalidArgument("Config::SetModelBuffer: parameter buffer is null with "
                                     "size %zu",
                                     params_buffer_size));
  model_dir_.clear();
  prog_file_.clear();
  params_file_.clear();
  prog_buffer_.assign(prog_buffer == nullptr ? "" : prog_buffer, prog_buffer_size);
  params_buffer_.assign(params_buffer == nullptr ? "" : params_buffer, params_buffer_size);
  from_memory_ = true;
}

void Config::EnableUseGpu(uint64_t memory_pool_init_size_mb, int device_id) {
  (void)memory_pool_init_size_mb;  // The CUDA allocator grows as it needs.
  const bool changed = !use_gpu_;
  use_gpu_ = true;
  gpu_device_id_ = device_id;
  if (changed && passes_chosen_) ResetPassesForDevice();
}

void Config::DisableGpu() {
  const bool changed = use_gpu_;
  use_gpu_ = false;
  if (changed && passes_chosen_) ResetPassesForDevice();
}

void Config::ResetPassesForDevice() {
  const std::vector<std::string> deleted = passes_.AllDeletedPasses();
  passes_ =
      PassStrategy(use_gpu_ ? inference::GpuInferencePassOrder() : inference::InferencePassOrder());
  for (const std::string& name : deleted) passes_.DeletePass(name);
  passes_chosen_ = true;
}

PassStrategy* Config::pass_builder() {
  if (!passes_chosen_) ResetPassesForDevice();
  return &passes_;
}

std::vector<std::string> Config::passes() const {
  if (passes_chosen_) return passes_.AllPasses();
  return use_gpu_ ? inference::GpuInferencePassOrder() : inference::InferencePassOrder();
}

std::string Config::Summary() const {
  std::ostringstream s;
  auto line = [&s](const char* key, const std::string& value) {
    s << key << ": " << value << "\n";
  };
  auto on = [](bool b) { return std::string(b ? "on" : "off"); };
  if (from_memory_) {
    line("model", "from memory (program " + std::to_string(prog_buffer_.size()) +
                      " bytes, parameters " + std::to_string(params_buffer_.size()) + " bytes)");
  } else if (!prog_file_.empty()) {
    line("program file", prog_file_);
    line("params file", params_file_.empty() ? "(beside the program)" : params_file_);
  } else {
    line("model dir", model_dir_.empty() ? "(none)" : model_dir_);
  }
  line("place", use_gpu_ ? "GPU " + std::to_string(gpu_device_id_) : std::string("CPU"));
  line("cpu math threads",
       threads_ > 0 ? std::to_string(threads_) : std::string("FLAGS_paddle_num_threads"));
  line("oneDNN", on(onednn_));
  line("ir optim", on(ir_optim_));
  if (ir_optim_) {
    std::string names;
    for (const std::string& p : passes()) names += (names.empty() ? "" : ", ") + p;
    line("passes", names.empty() ? "(none)" : names);
  }
  line("memory optim", on(memory_optim_));
  line("batch chunks", on(batch_chunks_));
  line("profile", on(profile_));
  if (use_gpu_) line("cudnn exhaustive search", on(cudnn_exhaustive_search_));
  line("glog info", glog_info_disabled_ ? "off" : "on");
  return s.str();
}

namespace services {

PredictorPool::PredictorPool(const Config& config, size_t size) {
  PL_ENFORCE(size > 0, errors::InvalidArgument("PredictorPool: size must be at least 1"));
  first_ = CreatePredictor(config);
  predictors_.push_back(first_.get());
  for (size_t i = 1; i < size; ++i) {
    clones_.push_back(first_->Clone());
    predictors_.push_back(clones_.back().get());
  }
}

Predictor* PredictorPool::Retrive(size_t index) {
  PL_ENFORCE(index < predictors_.size(),
             errors::OutOfRange("PredictorPool::Retrive(%zu): the pool holds %zu predictors", index,
                                predictors_.size()));
  return predictors_[index];
}

}  // namespace services
}  // namespace infer
}  // namespace paddle_like

// The inference API: load a saved model once, run it many times, from many threads.
//
// Names follow PaddlePaddle's `paddle_infer` API (Config, CreatePredictor, Predictor, Tensor),
// so code ports by changing the namespace:
//
//   paddle_like::infer::Config config("model_dir");        // or (prog_file, params_file)
//   config.SetCpuMathLibraryNumThreads(2);
//   auto predictor = paddle_like::infer::CreatePredictor(config);
//   auto input = predictor->GetInputHandle(predictor->GetInputNames()[0]);
//   input->Reshape({1, 3, 224, 224});
//   input->CopyFromCpu(pixels.data());
//   predictor->Run();
//   auto output = predictor->GetOutputHandle(predictor->GetOutputNames()[0]);
//   std::vector<float> scores(output->numel());
//   output->CopyToCpu(scores.data());
//
// The program is loaded, checked (op versions), optimised and its parameters loaded once;
// that program and the parameter scope are immutable and shared by a predictor and all its
// clones. Each clone owns only its activations and prepared kernels, so Clone is cheap and
// clones run concurrently without locking one another. A single predictor (or clone) is run
// by one thread at a time. Input shapes may change between runs.
//
// Errors (a missing file, a corrupt parameter file, an unknown input name, a feed of the
// wrong shape or dtype) throw the typed errors of platform/enforce.h, whose messages name
// the file, variable or op.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace paddle_like {
namespace framework {
class DenseTensor;
class Variable;
struct ExecutionProfile;
}  // namespace framework

namespace infer {

class ChunkedTail;

enum class DataType {
  FLOAT32,
  FLOAT64,
  INT32,
  INT64,
  INT8,
  UINT8,
  BOOL,
  FLOAT16,
  BFLOAT16,
  COMPLEX64,   // std::complex<float>
  COMPLEX128,  // std::complex<double>
  UNKNOWN
};
enum class PlaceType { kCPU, kGPU };
// How ShareExternalData's caller arranged its values: row-major in the order of the shape
// given (the program's declared order), which kNCHW and kAny both say.
enum class DataLayout { kUNK = -1, kAny, kNHWC, kNCHW };

// "paddle_like <version>".
std::string GetVersion();

// The ordered names of the inference passes a predictor applies (Config::pass_builder), as
// PaddlePaddle's pass builder holds them; the passes keep PaddlePaddle's names
// ("conv_bn_fuse_pass", "fc_fuse_pass", ...), so a ported DeletePass call means the same.
// A name no pass has is an error when the predictor is created (NotFoundError).
class PassStrategy {
 public:
  PassStrategy() = default;
  explicit PassStrategy(std::vector<std::string> passes) : passes_(std::move(passes)) {}
  void AppendPass(const std::string& name) { passes_.push_back(name); }
  // Before position `index` (OutOfRangeError past the end).
  void InsertPass(size_t index, const std::string& name);
  // Every occurrence of `name` (none: nothing happens); remembered, so that the default
  // order a device change brings (Config::EnableUseGpu) leaves it out too.
  void DeletePass(const std::string& name);
  void DeletePass(size_t index);  // OutOfRangeError past the end.
  void ClearPasses() { passes_.clear(); }
  const std::vector<std::string>& AllPasses() const { return passes_; }
  const std::vector<std::string>& AllDeletedPasses() const { return deleted_; }

 private:
  std::vector<std::string> passes_;
  std::vector<std::string> deleted_;
};

class Config {
 public:
  Config() = default;
  // A directory holding `__model__` (parameters in `__params__` or one file per parameter)
  // or one `*.pdmodel` (parameters in the `.pdiparams` beside it).
  explicit Config(const std::string& model_dir) { SetModel(model_dir); }
  Config(const std::string& prog_file, const std::string& params_file) {
    SetModel(prog_file, params_file);
  }
  void SetModel(const std::string& model_dir);
  // `params_file` empty: next to the program, as for a directory.
  void SetModel(const std::string& prog_file, const std::string& params_file);
  // The program and its combined parameter file as bytes in memory (a model embedded in an
  // application), copied here; `params_size` 0 for a program without parameters.
  void SetModelBuffer(const char* prog_buffer, size_t prog_buffer_size, const char* params_buffer,
                      size_t params_buffer_size);
  bool model_from_memory() const { return from_memory_; }
  const std::string& prog_buffer() const { return prog_buffer_; }
  const std::string& params_buffer() const { return params_buffer_; }
  const std::string& model_dir() const { return model_dir_; }
  const std::string& prog_file() const { return prog_file_; }
  const std::string& params_file() const { return params_file_; }
  // The program file alone (the parameters then beside it, or SetParamsFile's).
  void SetProgFile(const std::string& prog_file);
  void SetParamsFile(const std::string& params_file);

  // Threads of the CPU kernels (FLAGS_paddle_num_threads, process-wide: it is applied when
  // the first predictor is created, and a later predictor asking for another count is an
  // error). 0 keeps the flag's value.
  void SetCpuMathLibraryNumThreads(int threads) { threads_ = threads; }
  int cpu_math_library_num_threads() const { return threads_; }

  // oneDNN kernels (on by default where the build has them).
  void EnableMKLDNN() { onednn_ = true; }
  void DisableMKLDNN() { onednn_ = false; }
  bool mkldnn_enabled() const { return onednn_; }

  // The inference passes (on by default).
  void SwitchIrOptim(bool on = true) { ir_optim_ = on; }
  bool ir_optim() const { return ir_optim_; }
  // The passes and their order: the device's default (inference/passes/passes.h) until
  // changed here. Switching between CPU and GPU brings the new device's default back, less
  // the passes deleted before.
  PassStrategy* pass_builder();
  // The passes a predictor of this config applies, in order (with SwitchIrOptim on).
  std::vector<std::string> passes() const;

  // Memory reuse: each temporary is freed right after the last op that reads it, and an
  // output may take over a dying input's buffer where its kernel allows (on by default, as
  // a predictor's memory is planned when it is prepared). Off keeps every temporary of the
  // main block alive from one run to the next (more memory, no reuse).
  void EnableMemoryOptim(bool on = true) { memory_optim_ = on; }
  bool enable_memory_optim() const { return memory_optim_; }

  // Logs below ERROR off for the process (glog's FLAGS_minloglevel), from CreatePredictor on.
  void DisableGlogInfo() { glog_info_disabled_ = true; }
  bool glog_info_disabled() const { return glog_info_disabled_; }

  // Accepted for code written for PaddlePaddle, where it bounds the oneDNN primitives
  // cached per input shape: paddle_like's kernels keep the primitive of the shape each op
  // last ran at and make a new one when the shape changes, so there is nothing to bound.
  void SetMkldnnCacheCapacity(int capacity) { mkldnn_cache_capacity_ = capacity; }
  int mkldnn_cache_capacity() const { return mkldnn_cache_capacity_; }

  // Ops run by chunks of the batch where that keeps large activations in cache: the leading
  // convolutions, pooling and activations, and such a last op whose output is large, then
  // computed as CopyToCpu reads it (docs/architecture.md, "Inference library"). On by
  // default; results are the same either way.
  void SwitchBatchChunks(bool on = true) { batch_chunks_ = on; }
  bool batch_chunks() const { return batch_chunks_; }

  // Profiling: each Run records per op its kernel, data transforms and time
  // (framework/execution_profile.h), read with Predictor::profile(). Off by default.
  void EnableProfile() { profile_ = true; }
  bool profile_enabled() const { return profile_; }

  void EnableUseGpu(uint64_t memory_pool_init_size_mb, int device_id = 0);
  void DisableGpu();
  bool use_gpu() const { return use_gpu_; }
  int gpu_device_id() const { return gpu_device_id_; }

  // On a GPU, the cuDNN convolutions (conv2d, depthwise_conv2d) time cuDNN's algorithms once
  // per input shape and keep the fastest, instead of taking cuDNN's heuristics, whose choice
  // can be several times slower on small convolutions. The first run at each new shape takes
  // longer: it times every algorithm of each convolution. On by default; off keeps the
  // heuristics (and the `exhaustive_search` attributes the program was saved with). Never
  // under FLAGS_cudnn_deterministic, which keeps the heuristics' deterministic choice.
  void SwitchCudnnExhaustiveSearch(bool on = true) { cudnn_exhaustive_search_ = on; }
  bool cudnn_exhaustive_search() const { return cudnn_exhaustive_search_; }

  // Every setting above, one per line.
  std::string Summary() const;

 private:
  // The default pass order of the device now chosen, less the passes deleted so far.
  void ResetPassesForDevice();

  std::string model_dir_, prog_file_, params_file_;
  bool from_memory_ = false;
  std::string prog_buffer_, params_buffer_;
  int threads_ = 0;
  bool onednn_ = true;
  bool ir_optim_ = true;
  bool batch_chunks_ = true;
  bool profile_ = false;
  bool use_gpu_ = false;
  int gpu_device_id_ = 0;
  bool cudnn_exhaustive_search_ = true;
  bool memory_optim_ = true;
  bool glog_info_disabled_ = false;
  int mkldnn_cache_capacity_ = 0;
  bool passes_chosen_ = false;  // pass_builder() was called: passes_ holds the order.
  PassStrategy passes_;
};

// A handle on one input or output variable of a predictor; valid while the predictor lives.
class Tensor {
 public:
  const std::string& name() const { return name_; }
  // Input handles: the shape of the next CopyFromCpu / mutable_data (an input never
  // reshaped is 0-D: one element; Run then rejects it against the declared shape).
  void Reshape(const std::vector<int>& shape);
  std::vector<int> shape() const;
  int64_t numel() const;
  DataType type() const;

  // Copies numel() elements in (after Reshape) or out (an output after Run). T is one of
  // float, double, int32_t, int64_t, int8_t, uint8_t, bool, std::complex<float>,
  // std::complex<double>.
  template <typename T>
  void CopyFromCpu(const T* data);
  template <typename T>
  void CopyToCpu(T* data) const;
  // Zero-copy access: an input's buffer to write (after Reshape), an output's to read (in
  // device memory, *place = kGPU, when a GPU predictor computed it there). A CPU output
  // that its kernel wrote in a library's layout (oneDNN's blocked formats) is converted to
  // row-major by the first data() after a Run; CopyToCpu converts straight into the
  // caller's buffer. Either way the caller reads row-major values.
  template <typename T>
  T* mutable_data(PlaceType place = PlaceType::kCPU);
  template <typename T>
  const T* data(PlaceType* place, int* size) const;

  // An input read straight from the caller's memory, `shape` elements of T laid out as
  // `layout` says (kNCHW or kAny: row-major in the declared order), instead of a copy. The
  // memory must stay valid and unchanged from Run until that run's outputs have been read
  // (a large last op may compute as CopyToCpu reads); Run never writes it (a later
  // Reshape + CopyFromCpu or mutable_data gets a buffer of the predictor's own). CPU memory
  // only; `data` aligned for T.
  template <typename T>
  void ShareExternalData(const T* data, const std::vector<int>& shape,
                         PlaceType place = PlaceType::kCPU, DataLayout layout = DataLayout::kNCHW);
  // Where the values are: kGPU for an output a GPU predictor left in device memory.
  PlaceType place() const;

  // Level-by-level offsets of a variable-length batch.
  void SetLoD(const std::vector<std::vector<size_t>>& lod);
  std::vector<std::vector<size_t>> lod() const;

 private:
  friend class Predictor;
  bool pending() const;
  // Before a write of an input: the caller's memory, if ShareExternalData gave it, is let go.
  framework::DenseTensor* Writable();
  Tensor(framework::Variable* var, std::string name, bool input, ChunkedTail* tail,
         std::set<const framework::Variable*>* external)
      : var_(var), name_(std::move(name)), input_(input), tail_(tail), external_(external) {}
  framework::Variable* var_;
  std::string name_;
  bool input_;
  // The predictor's last op when it computes this output on reading (inference/
  // chunked_tail.h), or, for an input, may still read it; else null.
  ChunkedTail* tail_;
  // The predictor's inputs whose tensors hold the caller's memory (ShareExternalData).
  std::set<const framework::Variable*>* external_;
};

class Predictor {
 public:
  ~Predictor();
  // The program's feed targets in `col` order, and its fetch targets.
  std::vector<std::string> GetInputNames() const;
  std::vector<std::string> GetOutputNames() const;
  // Each input's shape and element type as the program declares them (-1: a dim set only
  // when the input is given, such as the batch).
  std::map<std::string, std::vector<int64_t>> GetInputTensorShape() const;
  std::map<std::string, DataType> GetInputTypes() const;
  // The same for the outputs (dims the program cannot know before a run are -1).
  std::map<std::string, std::vector<int64_t>> GetOutputTensorShape() const;
  std::map<std::string, DataType> GetOutputTypes() const;
  // NotFoundError for a name that is not an input (output) of the program.
  std::unique_ptr<Tensor> GetInputHandle(const std::string& name);
  std::unique_ptr<Tensor> GetOutputHandle(const std::string& name);
  // Runs the program on the inputs set through the handles; true on success (failures
  // throw). Every input must have been given a value.
  bool Run();
  // A predictor sharing this one's program and parameters, with activations of its own.
  std::unique_ptr<Predictor> Clone();
  // Lets go of every tensor the last run left in this predictor: the inputs (set them
  // again before the next Run), the outputs (read them first) and the temporaries kept.
  void ClearIntermediateTensor();
  // ClearIntermediateTensor, then returns the freed CPU blocks that the allocator keeps
  // for reuse to the system (process-wide; a GPU predictor also its device's cached
  // blocks); the CPU bytes returned.
  uint64_t TryShrinkMemory();
  // The profile of the last Run with Config::EnableProfile(), else null.
  const framework::ExecutionProfile* profile() const;

  struct Model;

 private:
  friend std::shared_ptr<Predictor> CreatePredictor(const Config& config);
  explicit Predictor(std::shared_ptr<const Model> model);
  struct State;
  std::unique_ptr<State> state_;
};

std::shared_ptr<Predictor> CreatePredictor(const Config& config);

namespace services {

// `size` predictors of one config for as many threads: the first created from the config,
// the others its clones (sharing its program and parameters).
class PredictorPool {
 public:
  explicit PredictorPool(const Config& config, size_t size = 1);
  // Predictor `index` (OutOfRangeError past the pool). PaddlePaddle's spelling, kept for
  // code ported from it.
  Predictor* Retrive(size_t index);
  size_t size() const { return predictors_.size(); }

 private:
  std::shared_ptr<Predictor> first_;
  std::vector<Predictor*> predictors_;
  std::vector<std::unique_ptr<Predictor>> clones_;
};

}  // namespace services
}  // namespace infer
}  // namespace paddle_like

// Predictor and CreatePredictor of paddle_like/inference_api.h.
#include <glog/logging.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <utility>

#include "framework/executor.h"
#include "framework/ir/pass.h"
#include "framework/model_loading.h"
#include "framework/op_info.h"
#include "framework/program_validation.h"
#include "framework/scope.h"
#include "framework/tensor_io.h"
#include "inference/api_data_type.h"
#include "inference/chunked_head.h"
#include "inference/chunked_tail.h"
#include "inference/passes/passes.h"
#include "operators/registry.h"
#include "paddle_like/inference_api.h"
#include "platform/cpu_memory.h"
#include "platform/cuda/cuda_memory.h"
#include "platform/device_context_pool.h"
#include "platform/enforce.h"
#include "platform/flags.h"
#include "platform/init.h"

namespace paddle_like {
namespace infer {

// What a predictor and its clones share, immutable once built.
struct Predictor::Model {
  framework::ProgramDesc program;  // Optimised, without feed and fetch ops.
  std::unique_ptr<framework::Scope> params;
  std::vector<std::string> inputs, outputs;
  framework::PlacementRules rules;
  platform::Place place = platform::CPUPlace();
  bool profile = false;
  bool batch_chunks = true;
  bool memory_optim = true;  // Else every temporary of block 0 outlives each run.
};

// What each predictor owns: its activations and prepared kernels.
struct Predictor::State {
  explicit State(std::shared_ptr<const Model> m)
      : model(std::move(m)), executor(model->place) {
    std::vector<std::string> keep = model->inputs;
    keep.insert(keep.end(), model->outputs.begin(), model->outputs.end());
    if (!model->memory_optim) {
      for (const framework::VarDesc* var : model->program.Block(0).AllVars()) {
        if (!var->Persistable()) keep.push_back(var->Name());
      }
    }
    // Outputs may stay in a kernel library's layout: their handles reorder them on reading.
    std::vector<std::string> any_layout = model->outputs;
    // A profile times every op inside Run, so it runs the last op there too.
    if (model->place.is_cpu() && !model->profile && model->batch_chunks) {
      const framework::BlockDesc& block = model->program.Block(0);
      tail = ChunkedTail::Plan(block, model->outputs);
      head = ChunkedHead::Plan(block, model->outputs,
                               tail != nullptr ? tail->op_index() : block.OpSize());
    }
    if (tail != nullptr) {
      // The last op's inputs outlive Run: its chunks read them when the output is read.
      keep.insert(keep.end(), tail->batch_inputs().begin(), tail->batch_inputs().end());
      any_layout.insert(any_layout.end(), tail->batch_inputs().begin(), tail->batch_inputs().end());
    }
    prepared =
        executor.Prepare(model->program, 0, model->params.get(), keep, model->rules, any_layout);
  }
  std::shared_ptr<const Model> model;
  framework::Executor executor;
  std::unique_ptr<framework::PreparedProgram> prepared;
  // Ops run by chunks of the batch (chunked_head.h, chunked_tail.h); null when none can be.
  std::unique_ptr<ChunkedHead> head;
  std::unique_ptr<ChunkedTail> tail;
  std::unique_ptr<framework::ExecutionProfile> profile;  // With Config::EnableProfile().
  // Inputs whose tensors hold the caller's memory (Tensor::ShareExternalData).
  std::set<const framework::Variable*> external_inputs;
};

namespace {

// Ops that list a parameter among both their inputs and outputs (batch_norm's Mean and
// MeanOut: running statistics that inference never changes) would write the parameter scope
// every clone shares. Each such output of block 0 gets a variable of its own, local to each
// clone. Sub-blocks are left as they are: a loop may carry a value from one iteration to
// the next that way.
void DetachParameterOutputs(framework::ProgramDesc* program) {
  framework::BlockDesc& block = program->Block(0);
  for (framework::OpDesc* op : block.AllOps()) {
    const std::vector<std::string> inputs = op->InputArgumentNames();
    for (const auto& [slot, names] : framework::VariableNameMap(op->Outputs())) {
      std::vector<std::string> renamed = names;
      for (std::string& name : renamed) {
        const framework::VarDesc* param = block.FindVarRecursive(name);
        if (param == nullptr || !param->Persistable() ||
            std::find(inputs.begin(), inputs.end(), name) == inputs.end()) {
          continue;
        }
        std::string local = name + "@clone_local";
        for (int i = 1; block.FindVarRecursive(local) != nullptr; ++i) {
          local = name + "@clone_local_" + std::to_string(i);
        }
        framework::VarDesc* v = block.Var(local);
        v->SetDataType(param->GetDataType());
        v->SetShape(param->GetShape());
        name = local;
      }
      if (renamed != names) op->SetOutput(slot, renamed);
    }
  }
}

std::string Join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// The variable behind a handle: every input and output of the program has one.
framework::Variable* HandleVar(const framework::PreparedProgram& prepared,
                               const std::string& name) {
  framework::Variable* v = prepared.local_scope()->FindVar(name);
  PL_ENFORCE(v != nullptr, errors::NotFound("predictor: the program declares no variable `%s`",
                                            name));
  return v;
}

// FLAGS_paddle_num_threads is process-wide: the first predictor that asks sets it.
void ApplyThreads(int threads) {
  static std::mutex mu;
  static bool applied = false;
  if (threads <= 0) return;
  std::lock_guard<std::mutex> lock(mu);
  if (!applied && FLAGS_paddle_num_threads != threads) {
    FLAGS_paddle_num_threads = threads;
    platform::DeviceContextPool::Instance().Clear();
  }
  PL_ENFORCE(FLAGS_paddle_num_threads == threads,
             errors::InvalidArgument("Config::SetCpuMathLibraryNumThreads(%d): the process "
                                     "already runs its CPU kernels on %d threads (the count is "
                                     "process-wide)",
                                     threads, FLAGS_paddle_num_threads));
  applied = true;
}

// Copies every dense parameter to `place` once, so that runs do not transfer them.
void UploadParameters(const platform::Place& place, framework::Scope* params) {
  for (const std::string& name : params->LocalVarNames()) {
    framework::Variable* var = params->FindLocalVar(name);
    if (var == nullptr || !var->IsType<framework::DenseTensor>()) continue;
    framework::DenseTensor* t = var->GetMutable<framework::DenseTensor>();
    if (!t->initialized() || t->place() == place) continue;
    framework::DenseTensor copy;
    framework::CopyTensor(*t, place, &copy);
    *t = std::move(copy);
  }
}

// Sets the `exhaustive_search` attribute of every op that declares one (the cuDNN
// convolutions): their kernels then time cuDNN's algorithms (Config::SwitchCudnnExhaustiveSearch).
void TimeCudnnAlgorithms(framework::ProgramDesc* program) {
  const framework::OpInfoMap& ops = framework::OpInfoMap::Instance();
  for (size_t b = 0; b < program->Size(); ++b) {
    for (framework::OpDesc* op : program->Block(b).AllOps()) {
      if (ops.Has(op->Type()) && ops.Get(op->Type()).spec.FindAttr("exhaustive_search")) {
        op->SetAttr("exhaustive_search", true);
      }
    }
  }
}

std::shared_ptr<const Predictor::Model> LoadModel(const Config& config) {
  operators::RegisterAllOps();
  if (config.use_gpu()) {
    PL_ENFORCE(platform::BuiltWithCuda(),
               errors::Unavailable("Config::EnableUseGpu(device %d): paddle_like was built "
                                   "without CUDA",
                                   config.gpu_device_id()));
    const int devices = platform::CudaDeviceCount();
    PL_ENFORCE(config.gpu_device_id() >= 0 && config.gpu_device_id() < devices,
               errors::Unavailable("Config::EnableUseGpu(device %d): this machine has %d CUDA "
                                   "device(s)",
                                   config.gpu_device_id(), devices));
  }
  PL_ENFORCE(config.model_from_memory() || !config.prog_file().empty() ||
                 !config.model_dir().empty(),
             errors::InvalidArgument("Config: no model set (SetModel(dir), SetModel(program "
                                     "file, params file) or SetModelBuffer)"));
  ApplyThreads(config.cpu_math_library_num_threads());
  if (config.glog_info_disabled()) FLAGS_minloglevel = std::max(FLAGS_minloglevel, 2);
  auto model = std::make_shared<Predictor::Model>();
  const std::string path = config.model_from_memory() ? "<program buffer>"
                           : config.prog_file().empty()
                               ? framework::ResolveProgramPath(config.model_dir())
                               : config.prog_file();
  model->program = config.model_from_memory()
                       ? framework::ProgramDesc::FromBytes(config.prog_buffer(), path)
                       : framework::ProgramDesc::Load(path);
  framework::ValidateProgram(model->program, path);
  model->inputs = model->program.FeedTargetNames();
  model->outputs = model->program.FetchTargetNames();
  PL_ENFORCE(!model->outputs.empty(),
             errors::InvalidArgument("program `%s` has no fetch targets: it is not a saved "
                                     "inference model",
                                     path));
  model->params = std::make_unique<framework::Scope>();
  if (config.model_from_memory()) {
    framework::LoadCombinedParamsFromBytes(config.params_buffer(), "<parameter buffer>",
                                           framework::ParameterNames(model->program),
                                           model->params.get());
    framework::CheckParametersAgainstProgram(model->program, *model->params);
  } else {
    framework::ParameterSource source;
    source.combined_file = config.params_file();
    framework::LoadParameters(model->program, path, source, model->params.get());
  }

  // The passes see the feed and fetch ops: they keep the names the caller feeds and reads.
  if (config.ir_optim()) {
    inference::RegisterInferencePasses();
    for (const auto& name : config.passes()) {
      framework::ir::ApplyPass(*framework::ir::CreatePass(name), &model->program,
                               model->params.get());
    }
  }
  // Inputs are set through handles and outputs read from their variables.
  framework::BlockDesc& block = model->program.Block(0);
  for (size_t i = block.OpSize(); i-- > 0;) {
    const std::string& type = block.Op(i)->Type();
    if (type == "feed" || type == "fetch") block.RemoveOp(i, i + 1);
  }
  DetachParameterOutputs(&model->program);
  if (!config.mkldnn_enabled()) {
    for (const framework::OpDesc* op : block.AllOps()) model->rules.no_onednn.insert(op->Type());
  }
  model->profile = config.profile_enabled();
  model->batch_chunks = config.batch_chunks();
  model->memory_optim = config.enable_memory_optim();
  if (config.use_gpu()) {
    model->place = platform::CUDAPlace(config.gpu_device_id());
    UploadParameters(model->place, model->params.get());
    if (config.cudnn_exhaustive_search()) TimeCudnnAlgorithms(&model->program);
  }
  return model;
}

}  // namespace

Predictor::Predictor(std::shared_ptr<const Model> model)
    : state_(std::make_unique<State>(std::move(model))) {}

Predictor::~Predictor() = default;

std::vector<std::string> Predictor::GetInputNames() const { return state_->model->inputs; }
std::vector<std::string> Predictor::GetOutputNames() const { return state_->model->outputs; }

namespace {

// The declared shapes and element types of `names` in `program`'s block 0.
std::map<std::string, std::vector<int64_t>> DeclaredShapes(const framework::ProgramDesc& program,
                                                           const std::vector<std::string>& names) {
  std::map<std::string, std::vector<int64_t>> shapes;
  const framework::BlockDesc& block = program.Block(0);
  for (const std::string& name : names) {
    const framework::VarDesc* var = block.FindVar(name);
    shapes[name] = var != nullptr && var->HasTensorDesc() ? var->GetShape() : std::vector<int64_t>();
  }
  return shapes;
}

std::map<std::string, DataType> DeclaredTypes(const framework::ProgramDesc& program,
                                              const std::vector<std::string>& names) {
  std::map<std::string, DataType> types;
  const framework::BlockDesc& block = program.Block(0);
  for (const std::string& name : names) {
    const framework::VarDesc* var = block.FindVar(name);
    types[name] = var != nullptr && var->HasTensorDesc() ? ToApiType(var->GetDataType())
                                                          : DataType::UNKNOWN;
  }
  return types;
}

}  // namespace

std::map<std::string, std::vector<int64_t>> Predictor::GetInputTensorShape() const {
  return DeclaredShapes(state_->model->program, state_->model->inputs);
}

std::map<std::string, DataType> Predictor::GetInputTypes() const {
  return DeclaredTypes(state_->model->program, state_->model->inputs);
}

std::map<std::string, std::vector<int64_t>> Predictor::GetOutputTensorShape() const {
  return DeclaredShapes(state_->model->program, state_->model->outputs);
}

std::map<std::string, DataType> Predictor::GetOutputTypes() const {
  return DeclaredTypes(state_->model->program, state_->model->outputs);
}

std::unique_ptr<Tensor> Predictor::GetInputHandle(const std::string& name) {
  const auto& inputs = state_->model->inputs;
  PL_ENFORCE(std::find(inputs.begin(), inputs.end(), name) != inputs.end(),
             errors::NotFound("predictor: `%s` is not an input of the model (inputs: %s)", name,
                              Join(inputs)));
  return std::unique_ptr<Tensor>(new Tensor(HandleVar(*state_->prepared, name), name, true,
                                            state_->tail.get(), &state_->external_inputs));
}

std::unique_ptr<Tensor> Predictor::GetOutputHandle(const std::string& name) {
  const auto& outputs = state_->model->outputs;
  PL_ENFORCE(std::find(outputs.begin(), outputs.end(), name) != outputs.end(),
             errors::NotFound("predictor: `%s` is not an output of the model (outputs: %s)",
                              name, Join(outputs)));
  return std::unique_ptr<Tensor>(new Tensor(
      HandleVar(*state_->prepared, name), name, false,
      state_->tail != nullptr && state_->tail->output() == name ? state_->tail.get() : nullptr,
      &state_->external_inputs));
}

const framework::ExecutionProfile* Predictor::profile() const { return state_->profile.get(); }

bool Predictor::Run() {
  const framework::BlockDesc& block = state_->model->program.Block(0);
  for (const auto& name : state_->model->inputs) {
    const framework::Variable* v = state_->prepared->local_scope()->FindVar(name);
    PL_ENFORCE(v != nullptr && v->IsType<framework::DenseTensor>() &&
                   v->Get<framework::DenseTensor>().initialized(),
               errors::InvalidArgument("predictor: input `%s` has no value (set it with "
                                       "GetInputHandle(\"%s\")->CopyFromCpu)",
                                       name, name));
    const framework::DenseTensor& t = v->Get<framework::DenseTensor>();
    if (const framework::VarDesc* desc = block.FindVar(name)) {
      PL_ENFORCE(t.dtype() == desc->GetDataType(),
                 errors::InvalidArgument("predictor: input `%s`: expected dtype %s, received %s",
                                         name, platform::DataTypeName(desc->GetDataType()),
                                         platform::DataTypeName(t.dtype())));
      // Only the rank is binding: exporters write the example shape they traced with
      // (PaddleOCR's classifiers declare [-1, 3, 32, 100] and run on 48x192 images), and
      // PaddlePaddle runs any size the ops accept; the ops check the sizes they need.
      PL_ENFORCE(static_cast<size_t>(t.dims().size()) == desc->GetShape().size(),
                 errors::InvalidArgument(
                     "predictor: input `%s`: expected shape %s (rank %zu), received %s", name,
                     framework::DDim(desc->GetShape()).ToString(), desc->GetShape().size(),
                     t.dims().ToString()));
    }
  }
  if (state_->model->profile && state_->profile == nullptr) {
    state_->profile = std::make_unique<framework::ExecutionProfile>();
  }
  framework::Executor& executor = state_->executor;
  framework::PreparedProgram* prepared = state_->prepared.get();
  ChunkedTail* tail = state_->tail.get();
  if (state_->head == nullptr && tail == nullptr) {
    executor.Run(prepared, state_->profile.get());
    return true;
  }
  if (tail != nullptr) tail->Discard();
  const size_t begin = state_->head != nullptr ? state_->head->Run(&executor, prepared) : 0;
  executor.RunOps(prepared, begin, tail != nullptr ? tail->op_index() : prepared->OpCount());
  if (tail != nullptr && !tail->Start(&executor, prepared)) {
    executor.RunOp(prepared, tail->op_index());
  }
  return true;
}

std::unique_ptr<Predictor> Predictor::Clone() {
  return std::unique_ptr<Predictor>(new Predictor(state_->model));
}

void Predictor::ClearIntermediateTensor() {
  if (state_->tail != nullptr) state_->tail->Discard();  // Its output is let go unread.
  framework::Scope* local = state_->prepared->local_scope();
  for (const std::string& name : local->LocalVarNames()) {
    framework::Variable* var = local->FindLocalVar(name);
    if (var != nullptr && var->IsType<framework::DenseTensor>()) {
      var->GetMutable<framework::DenseTensor>()->clear();
    }
  }
  state_->external_inputs.clear();
}

uint64_t Predictor::TryShrinkMemory() {
  ClearIntermediateTensor();
  if (state_->model->place.is_gpu()) platform::ReleaseCachedCudaMemory();
  return platform::ReleaseCachedCpuMemory();
}

std::shared_ptr<Predictor> CreatePredictor(const Config& config) {
  return std::shared_ptr<Predictor>(new Predictor(LoadModel(config)));
}

}  // namespace infer
}  // namespace paddle_like

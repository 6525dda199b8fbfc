#include "paddle_like/train/program_trainer.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>

#include "framework/executor.h"
#include "framework/passes/fuse_relu_grad_pass.h"
#include "framework/model_loading.h"
#include "framework/npy_io.h"
#include "operators/registry.h"
#include "paddle_like/layers/data_parallel.h"
#include "platform/collective/comm_registry.h"

namespace paddle_like {
namespace train {

namespace {

namespace fs = std::filesystem;
using framework::BlockDesc;
using framework::DDim;
using framework::DenseTensor;
using framework::ProgramDesc;
using framework::Scope;
using framework::VarDesc;
using framework::VarKind;

// The persistable dense tensors of block 0 (feed and fetch holders excluded).
std::vector<const VarDesc*> Persistables(const ProgramDesc& program) {
  std::vector<const VarDesc*> vars;
  for (const VarDesc* v : program.Block(0).AllVars()) {
    if (v->Persistable() && v->GetKind() == VarKind::kDenseTensor) vars.push_back(v);
  }
  return vars;
}

void CheckAgainstDeclared(const VarDesc& desc, const DenseTensor& t, const std::string& what) {
  if (!desc.HasTensorDesc()) return;
  const platform::DataType declared = desc.GetDataType();
  PL_ENFORCE(declared == platform::DataType::UNDEFINED || t.dtype() == declared,
             errors::InvalidArgument("%s: expected dtype %s, received %s", what,
                                     platform::DataTypeName(declared),
                                     platform::DataTypeName(t.dtype())));
  PL_ENFORCE(framework::ShapeMatchesDeclared(desc.GetShape(), t.dims()),
             errors::InvalidArgument("%s: expected shape %s, received %s", what,
                                     DDim(desc.GetShape()).ToString(), t.dims().ToString()));
}

// Reads every `<name>.npy` of `dir` into the persistable variable `name` of `main`.
std::vector<std::string> LoadInitDir(const ProgramDesc& main, const std::string& dir,
                                     Scope* scope) {
  std::error_code ec;
  PL_ENFORCE(fs::is_directory(dir, ec),
             errors::NotFound("init dir `%s`: not a directory", dir));
  std::map<std::string, const VarDesc*> persistable;
  for (const VarDesc* v : Persistables(main)) persistable[v->Name()] = v;
  std::vector<std::string> loaded;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const fs::path& path = entry.path();
    if (!entry.is_regular_file() || path.extension() != ".npy") continue;
    const std::string name = path.stem().string();
    auto it = persistable.find(name);
    PL_ENFORCE(it != persistable.end(),
               errors::NotFound("init file `%s`: the program has no persistable variable `%s`",
                                path.string(), name));
    DenseTensor t = framework::ReadNpy(path.string());
    CheckAgainstDeclared(*it->second, t, "init file `" + path.string() + "`");
    *scope->Var(name)->GetMutable<DenseTensor>() = std::move(t);
    loaded.push_back(name);
  }
  std::sort(loaded.begin(), loaded.end());
  return loaded;
}

void CheckPersistablesSet(const ProgramDesc& main, const Scope& scope) {
  for (const VarDesc* v : Persistables(main)) {
    const framework::Variable* var = scope.FindVar(v->Name());
    PL_ENFORCE(var != nullptr && var->IsType<DenseTensor>() &&
                   var->Get<DenseTensor>().initialized(),
               errors::PreconditionNotMet("persistable variable `%s` has no value: run a startup "
                                          "program that sets it or give it as an init file "
                                          "`%s.npy`",
                                          v->Name(), v->Name()));
  }
}

double ScalarValue(const Scope& scope, const std::string& name) {
  const framework::Variable* v = scope.FindVar(name);
  PL_ENFORCE(v != nullptr && v->IsType<DenseTensor>() && v->Get<DenseTensor>().initialized(),
             errors::NotFound("loss `%s`: no variable of that name holds a tensor after the step",
                              name));
  const DenseTensor& t = v->Get<DenseTensor>();
  PL_ENFORCE(t.numel() == 1, errors::InvalidArgument("loss `%s`: expected 1 element, received "
                                                     "shape %s",
                                                     name, t.dims().ToString()));
  DenseTensor d;
  framework::CastTensor(t, platform::DataType::FLOAT64, &d);
  return d.data<double>()[0];
}

// Whether the program all-reduces something itself (transpiled for collective training).
bool HasAllReduce(const ProgramDesc& program) {
  const BlockDesc& block = program.Block(0);
  for (size_t i = 0; i < block.OpSize(); ++i) {
    const std::string& t = block.Op(i)->Type();
    if (t == "all_reduce" || t.rfind("c_allreduce_", 0) == 0) return true;
  }
  return false;
}

// `program` without feed and fetch ops (feeds go straight into variables).
ProgramDesc WithoutFeedFetch(const ProgramDesc& program) {
  ProgramDesc copy = program;
  BlockDesc& block = copy.Block(0);
  for (size_t i = block.OpSize(); i-- > 0;) {
    const std::string& t = block.Op(i)->Type();
    if (t == "feed" || t == "fetch") block.RemoveOp(i, i + 1);
  }
  return copy;
}

}  // namespace

int64_t BatchCount(const std::string& name, const DenseTensor& data, int64_t batch_size) {
  PL_ENFORCE(data.dims().size() >= 1,
             errors::InvalidArgument("feed `%s`: expected an array of rank >= 1 (batches or "
                                     "rows first), received shape %s",
                                     name, data.dims().ToString()));
  PL_ENFORCE(batch_size >= 0, errors::InvalidArgument("feed `%s`: batch size must be >= 0, "
                                                      "received %lld",
                                                      name, static_cast<long long>(batch_size)));
  const int64_t rows = data.dims()[0];
  return batch_size == 0 ? rows : rows / batch_size;
}

DenseTensor FeedBatch(const std::string& name, const DenseTensor& data, int64_t batch_size,
                      int64_t step) {
  const int64_t batches = BatchCount(name, data, batch_size);
  PL_ENFORCE(batches > 0, errors::InvalidArgument("feed `%s`: shape %s holds no batch of %lld "
                                                  "rows",
                                                  name, data.dims().ToString(),
                                                  static_cast<long long>(batch_size)));
  const int64_t index = step % batches;
  std::vector<int64_t> dims = data.dims().ToVector();
  if (batch_size == 0) {
    dims.erase(dims.begin());
  } else {
    dims[0] = batch_size;
  }
  DenseTensor batch{DDim(dims), data.dtype()};
  const size_t bytes = static_cast<size_t>(batch.numel()) * platform::SizeOf(data.dtype());
  void* dst = batch.mutable_data(platform::CPUPlace(), data.dtype());
  if (bytes > 0) {
    const char* src = static_cast<const char*>(data.raw_data());
    std::memcpy(dst, src + static_cast<size_t>(index) * bytes, bytes);
  }
  return batch;
}

DenseTensor RankRows(const DenseTensor& batch, int rank, int nranks) {
  if (nranks == 1) return batch;
  PL_ENFORCE(batch.dims().size() >= 1 && batch.dims()[0] >= nranks,
             errors::InvalidArgument("a batch of shape %s cannot be shared by %d ranks",
                                     batch.dims().ToString(), nranks));
  PL_ENFORCE(batch.lod().empty(),
             errors::Unimplemented("a batch of variable-length sequences (LoD %s) cannot be "
                                   "shared by rows among %d ranks",
                                   framework::LoDToString(batch.lod()), nranks));
  const int64_t rows = batch.dims()[0];
  const int64_t begin = rows * rank / nranks, end = rows * (rank + 1) / nranks;
  std::vector<int64_t> dims = batch.dims().ToVector();
  dims[0] = end - begin;
  DenseTensor share{DDim(dims), batch.dtype()};
  const size_t row_bytes = static_cast<size_t>(batch.numel() / rows) *
                           platform::SizeOf(batch.dtype());
  void* dst = share.mutable_data(platform::CPUPlace(), batch.dtype());
  if (end > begin && row_bytes > 0) {
    std::memcpy(dst, static_cast<const char*>(batch.raw_data()) + begin * row_bytes,
                static_cast<size_t>(end - begin) * row_bytes);
  }
  return share;
}

std::string ProgramTrainingResult::ToJson(const ProgramTrainingOptions& options) const {
  std::ostringstream os;
  os.precision(9);
  os << "{\n  \"loss\": \"" << options.loss << "\",\n  \"steps\": " << losses.size()
     << ",\n  \"batch_size\": " << options.batch_size << ",\n  \"ranks\": " << ranks
     << ",\n  \"losses\": [";
  for (size_t i = 0; i < losses.size(); ++i) os << (i ? ", " : "") << losses[i];
  os << "]\n}\n";
  return os.str();
}

ProgramTrainingResult TrainProgram(const ProgramDesc& main,
                                   const std::map<std::string, DenseTensor>& feeds,
                                   const ProgramTrainingOptions& options, Scope* scope) {
  operators::RegisterAllOps();
  PL_ENFORCE(!options.loss.empty(), errors::InvalidArgument("training: no loss variable given"));
  PL_ENFORCE(main.Block(0).FindVar(options.loss) != nullptr,
             errors::NotFound("loss `%s`: the program has no variable of that name",
                              options.loss));
  ProgramTrainingResult result;
  // Feeds: declared by the program, all with the same number of batches.
  result.batches = -1;
  for (const auto& kv : feeds) {
    const VarDesc* desc = main.Block(0).FindVar(kv.first);
    PL_ENFORCE(desc != nullptr,
               errors::NotFound("feed `%s`: the program has no variable of that name", kv.first));
    const int64_t batches = BatchCount(kv.first, kv.second, options.batch_size);
    PL_ENFORCE(result.batches < 0 || batches == result.batches,
               errors::InvalidArgument("feed `%s`: holds %lld batches, the other feeds %lld",
                                       kv.first, static_cast<long long>(batches),
                                       static_cast<long long>(result.batches)));
    result.batches = batches;
    CheckAgainstDeclared(*desc, FeedBatch(kv.first, kv.second, options.batch_size, 0),
                         "feed `" + kv.first + "` (one batch)");
  }
  if (result.batches < 0) result.batches = 0;
  const int64_t steps = options.steps > 0 ? options.steps : result.batches;
  PL_ENFORCE(steps > 0, errors::InvalidArgument("training: no steps to run (no feeds given and "
                                                "no step count)"));

  ProgramDesc program = WithoutFeedFetch(main);
  std::unique_ptr<ProgramDesc> startup_program;
  if (options.startup != nullptr) startup_program = std::make_unique<ProgramDesc>(*options.startup);
  platform::collective::Communicator* comm = nullptr;
  if (options.distributed) {
    comm = platform::collective::CommRegistry::Instance().Get(0, platform::CPUPlace());
    result.rank = comm->rank();
    result.ranks = comm->nranks();
    if (result.ranks > 1 && !HasAllReduce(program)) {
      const layers::ParamGrads param_grads = layers::OptimizerParamGrads(program.Block(0));
      PL_ENFORCE(!param_grads.empty(),
                 errors::InvalidArgument("training: --distributed needs optimizer ops (with "
                                         "op_role_var) to find the gradients to all-reduce"));
      layers::DataParallelOptions dp;
      dp.nranks = result.ranks;
      layers::ApplyDataParallel(param_grads, dp, &program, startup_program.get());
      comm->set_communication_stream(true);  // The rewrite orders it (c_sync_comm_stream).
    }
  }

  framework::Executor exec{platform::CPUPlace()};
  if (startup_program != nullptr) {
    auto startup = exec.Prepare(*startup_program, 0, scope);
    exec.Run(startup.get());
  }
  if (!options.init_dir.empty()) result.loaded = LoadInitDir(main, options.init_dir, scope);
  CheckPersistablesSet(main, *scope);

  // Fused relu (and pooling-and-relu) gradients; nothing the loop reads is removed.
  framework::ApplyExecutionPasses(&program, {options.loss});
  auto prepared = exec.Prepare(program, 0, scope, {options.loss});
  Scope* local = prepared->local_scope();
  for (int64_t step = 0; step < steps; ++step) {
    double share = 1;
    for (const auto& kv : feeds) {
      const DenseTensor batch = FeedBatch(kv.first, kv.second, options.batch_size, step);
      DenseTensor mine = RankRows(batch, result.rank, result.ranks);
      share = static_cast<double>(mine.dims()[0]) / static_cast<double>(batch.dims()[0]);
      *local->FindVar(kv.first)->GetMutable<DenseTensor>() = std::move(mine);
    }
    exec.Run(prepared.get(), step + 1 == steps ? options.profile : nullptr);
    double loss = ScalarValue(*local, options.loss);
    if (comm != nullptr) {
      // The global batch's loss: the ranks' means weighted by their shares.
      loss *= share;
      comm->AllReduce(&loss, &loss, 1, platform::DataType::FLOAT64,
                      platform::collective::ReduceOp::kSum);
    }
    result.losses.push_back(loss);
    if (options.on_step) options.on_step(step, loss);
  }
  if (comm != nullptr) comm->Barrier();  // No rank leaves while another may need it.
  return result;
}

}  // namespace train
}  // namespace paddle_like

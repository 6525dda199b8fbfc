// save / load / save_combine / load_combine: tensor records (FORMATS.md section 2) to and
// from files. These ops run themselves (no kernel dtype to choose): save reads its inputs in
// whatever dtype they hold, load has no inputs. Files are written atomically (temporary file,
// fsync, rename), so a failed save leaves any previous file intact.
#include "framework/tensor_io.h"
#include "operators/common.h"
#include "operators/io/save_load_util.h"
#include "operators/op_family.h"
#include "platform/file_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::Scope;
using framework::Variable;
using platform::WithErrorContext;

std::string FilePathAttr(const framework::OperatorBase& op) {
  const std::string& path = op.Attr<std::string>("file_path");
  PL_ENFORCE(!path.empty(),
             errors::InvalidArgument("op `%s` attribute `file_path`: expected a file path, "
                                     "received an empty string",
                                     op.Type()));
  return path;
}

// The tensor of input variable `name` of `slot`, with errors naming the op and the path.
const DenseTensor& InputTensor(const framework::OperatorBase& op, const Scope& scope,
                               const std::string& slot, const std::string& name,
                               const std::string& path) {
  const Variable* var = scope.FindVar(name);
  PL_ENFORCE(var != nullptr,
             errors::NotFound("op `%s` input `%s` (variable `%s`): not found, cannot save it to "
                              "`%s`",
                              op.Type(), slot, name, path));
  PL_ENFORCE(var->IsType<DenseTensor>() && var->Get<DenseTensor>().initialized(),
             errors::PreconditionNotMet(
                 "op `%s` input `%s` (variable `%s`): holds %s, expected "
                 "a tensor with data to save to `%s`",
                 op.Type(), slot, name,
                 var->IsInitialized() ? framework::VarTypeName(var->Type()) : "nothing", path));
  return var->Get<DenseTensor>();
}

// Stores `t` into output variable `name` of `slot`, on `place`.
void StoreOutput(const framework::OperatorBase& op, const Scope& scope, const std::string& slot,
                 const std::string& name, const std::string& path, DenseTensor t,
                 const platform::Place& place) {
  Variable* var = scope.FindVar(name);
  PL_ENFORCE(var != nullptr,
             errors::NotFound("op `%s` output `%s` (variable `%s`): not found, cannot load `%s` "
                              "into it",
                              op.Type(), slot, name, path));
  const std::string context = platform::Sprintf("op `%s` output `%s` (variable `%s`), file `%s`",
                                                op.Type(), slot, name, path);
  DenseTensor* out = WithErrorContext(context, [&] { return var->GetMutable<DenseTensor>(); });
  if (place.is_cpu()) {
    *out = std::move(t);
  } else {
    framework::CopyTensor(t, place, out);
  }
}

void CheckNotMemory(const framework::OperatorBase& op, const char* attr) {
  PL_ENFORCE(!op.Attr<bool>(attr),
             errors::Unimplemented("op `%s` attribute `%s`: only files are supported (set it to "
                                   "false)",
                                   op.Type(), attr));
}

// ---- save ----

class SaveOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor variable to save.");
    AddAttr<std::string>("file_path", "The file to write (parent directories are created).");
    AddAttr<bool>("overwrite", "Replace an existing file; false fails with AlreadyExists.")
        .SetDefault(true);
    AddAttr<bool>("save_as_fp16", "Write float32/float64 tensors as float16.").SetDefault(false);
    AddComment(R"DOC(
Save operator: writes one tensor record (PaddlePaddle's format) to file_path.

$$file = record(X)$$

The record holds the LoD, the TensorDesc (dtype, dims) and the raw row-major data. The file
is replaced atomically (temporary file, fsync, rename).
)DOC");
  }
};

class SaveOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope& scope, const platform::Place&) const override {
    const std::string path = FilePathAttr(*this);
    const std::string name = Input("X");
    const DenseTensor& t = InputTensor(*this, scope, "X", name, path);
    std::string bytes;
    framework::AppendTensorRecord(TensorForSave(t, Attr<bool>("save_as_fp16")), &bytes);
    WriteTensorFile(path, Attr<bool>("overwrite"), bytes,
                    platform::Sprintf("op `save` input `X` (variable `%s`)", name));
  }
};

// ---- save_combine ----

class SaveCombineOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor variables to save, in file order.").AsDuplicable();
    AddAttr<std::string>("file_path", "The file to write (parent directories are created).");
    AddAttr<bool>("overwrite", "Replace an existing file; false fails with AlreadyExists.")
        .SetDefault(true);
    AddAttr<bool>("save_as_fp16", "Write float32/float64 tensors as float16.").SetDefault(false);
    AddAttr<bool>("save_to_memory", "Unsupported: must be false.").SetDefault(false);
    AddComment(R"DOC(
SaveCombine operator: writes the records of X back to back, in the order of X, with nothing
before, between or after them (a `.pdiparams` / `__params__` file).

$$file = record(X_0) \, record(X_1) \cdots record(X_{n-1})$$

The file is replaced atomically (temporary file, fsync, rename).
)DOC");
  }
};

class SaveCombineOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope& scope, const platform::Place&) const override {
    CheckNotMemory(*this, "save_to_memory");
    const std::string path = FilePathAttr(*this);
    const auto& names = InputNames("X");
    PL_ENFORCE(!names.empty(), errors::InvalidArgument("op `save_combine` input `X`: expected at "
                                                       "least one variable to save to `%s`",
                                                       path));
    const bool fp16 = Attr<bool>("save_as_fp16");
    std::string bytes;
    for (const auto& name : names) {
      framework::AppendTensorRecord(TensorForSave(InputTensor(*this, scope, "X", name, path), fp16),
                                    &bytes);
    }
    WriteTensorFile(path, Attr<bool>("overwrite"), bytes,
                    platform::Sprintf("op `save_combine` input `X` (%zu variables)", names.size()));
  }
};

// ---- load ----

class LoadOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddOutput("Out", "The variable receiving the tensor.");
    AddAttr<std::string>("file_path", "The file to read: exactly one tensor record.");
    AddAttr<bool>("load_as_fp16", "Convert float32/float64 tensors to float16.").SetDefault(false);
    AddComment(R"DOC(
Load operator: reads the one tensor record of file_path into Out.

$$Out = record^{-1}(file)$$

The file must end right after the record.
)DOC");
  }
};

class LoadOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope& scope, const platform::Place& place) const override {
    const std::string path = FilePathAttr(*this);
    const std::string name = Output("Out");
    const std::string context = platform::Sprintf("op `load` output `Out` (variable `%s`)", name);
    const std::string bytes = WithErrorContext(context, [&] { return platform::ReadFile(path, {"tensor file"}); });
    size_t offset = 0;
    DenseTensor t = WithErrorContext(
        context, [&] { return framework::ReadTensorRecord(bytes, &offset, path); });
    PL_ENFORCE(offset == bytes.size(),
               errors::InvalidArgument("%s: file `%s` has %zu bytes after its tensor record",
                                       context, path, bytes.size() - offset));
    StoreOutput(*this, scope, "Out", name, path,
                TensorAfterLoad(std::move(t), Attr<bool>("load_as_fp16")), place);
  }
};

// ---- load_combine ----

class LoadCombineOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddOutput("Out", "The variables receiving the tensors, in file order.").AsDuplicable();
    AddAttr<std::string>("file_path", "The file to read: one record per Out, nothing more.");
    AddAttr<bool>("load_as_fp16", "Convert float32/float64 tensors to float16.").SetDefault(false);
    AddAttr<bool>("model_from_memory", "Unsupported: must be false.").SetDefault(false);
    AddComment(R"DOC(
LoadCombine operator: reads the records of file_path in the order of Out.

$$Out_i = record_i(file), \quad 0 \le i < n$$

The file must hold exactly n records: missing records and bytes after the last one are
errors (partial loading is not allowed). No Out variable changes unless every record reads.
)DOC");
  }
};

class LoadCombineOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope& scope, const platform::Place& place) const override {
    CheckNotMemory(*this, "model_from_memory");
    const std::string path = FilePathAttr(*this);
    const auto& names = OutputNames("Out");
    const std::string bytes =
        WithErrorContext("op `load_combine`", [&] { return platform::ReadFile(path, {"tensor file"}); });
    const bool fp16 = Attr<bool>("load_as_fp16");
    std::vector<DenseTensor> tensors;
    size_t offset = 0;
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string context = platform::Sprintf(
          "op `load_combine` output `Out` (variable `%s`, record %zu)", names[i], i);
      PL_ENFORCE(offset < bytes.size(),
                 errors::InvalidArgument("%s: file `%s` ends after %zu records, %zu expected",
                                         context, path, i, names.size()));
      tensors.push_back(TensorAfterLoad(
          WithErrorContext(context,
                           [&] { return framework::ReadTensorRecord(bytes, &offset, path); }),
          fp16));
    }
    PL_ENFORCE(offset == bytes.size(),
               errors::InvalidArgument("op `load_combine`: file `%s` has %zu bytes left after the "
                                       "%zu records of output `Out` (partial loading is not "
                                       "allowed)",
                                       path, bytes.size() - offset, names.size()));
    for (size_t i = 0; i < names.size(); ++i) {
      StoreOutput(*this, scope, "Out", names[i], path, std::move(tensors[i]), place);
    }
  }
};

void NoVarTypes(framework::VarTypeInferenceContext*) {}

void LoadVarTypes(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
}

}  // namespace

PL_REGISTER_OPS(RegisterSaveLoadOps) {
  framework::RegisterOp<SaveOp, SaveOpMaker>("save").InferVarType(NoVarTypes);
  framework::RegisterOp<SaveCombineOp, SaveCombineOpMaker>("save_combine").InferVarType(NoVarTypes);
  framework::RegisterOp<LoadOp, LoadOpMaker>("load").InferVarType(LoadVarTypes);
  framework::RegisterOp<LoadCombineOp, LoadCombineOpMaker>("load_combine")
      .InferVarType(LoadVarTypes);
}

}  // namespace operators
}  // namespace paddle_like

#include "framework/model_loading.h"

#include <algorithm>
#include <filesystem>

#include "framework/scope.h"
#include "framework/tensor_io.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {

std::string ResolveProgramPath(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return path;
  for (const char* name : {"__model__", "model.pdmodel", "inference.pdmodel", "__model__.json",
                           "inference.json", "model.json"}) {
    const fs::path candidate = fs::path(path) / name;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  std::vector<std::string> found;
  std::vector<std::string> pir;  // `<stem>.json` beside `<stem>.pdiparams`.
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    const fs::path& p = entry.path();
    if (p.extension() == ".pdmodel") found.push_back(p.string());
    if (p.extension() == ".json" &&
        fs::is_regular_file(fs::path(p).replace_extension(".pdiparams"), ec)) {
      pir.push_back(p.string());
    }
  }
  if (found.empty()) found = pir;
  PL_ENFORCE(found.size() == 1,
             errors::NotFound("directory `%s` holds %zu programs (.pdmodel, or .json beside a "
                              ".pdiparams) and no __model__ or inference.json; name the "
                              "program file",
                              path, found.size()));
  return found[0];
}

namespace {

namespace fs = std::filesystem;
using platform::DataType;

bool IsFile(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// Finds the parameter files next to the program (see ParameterSource).
void LoadFromProgramDir(const std::string& program_path, const std::vector<std::string>& names,
                        Scope* scope) {
  const fs::path prog(program_path);
  const std::string dir = prog.parent_path().empty() ? "." : prog.parent_path().string();
  const std::string combined = dir + "/" + prog.stem().string() + ".pdiparams";
  const std::string legacy = dir + "/__params__";
  bool separate = false;
  for (const auto& n : names) separate = separate || IsFile(dir + "/" + n);
  if (IsFile(combined)) {
    LoadCombinedParams(combined, names, scope);
  } else if (IsFile(legacy)) {
    LoadCombinedParams(legacy, names, scope);
  } else if (separate) {
    LoadSeparateParams(dir, names, scope);
  } else {
    throw errors::NotFound(
        "program `%s` has %zu parameters (first: `%s`) but no parameter file was found: "
        "neither `%s`, `%s` nor per-variable files in `%s` exist",
        program_path, names.size(), names[0], combined, legacy, dir);
  }
}

}  // namespace

std::vector<std::string> ParameterNames(const ProgramDesc& program) {
  std::vector<std::string> names;
  for (const VarDesc* v : program.Block(0).AllVars()) {
    const VarKind k = v->GetKind();
    // PaddlePaddle's loaders skip these persistables too: nothing of them is in a file.
    if (!v->Persistable() || k == VarKind::kFeedMinibatch || k == VarKind::kFetchList ||
        k == VarKind::kRaw || k == VarKind::kReader) {
      continue;
    }
    // A parameter file holds tensor records only: a persistable array or step scopes has
    // none, and loading one would read the next variable's record as its own.
    PL_ENFORCE(k == VarKind::kDenseTensor || k == VarKind::kSelectedRows,
               errors::InvalidArgument("persistable variable `%s` of block 0: declared as %s; a "
                                       "parameter file holds only DENSE_TENSOR and "
                                       "SELECTED_ROWS variables",
                                       v->Name(), VarKindName(static_cast<int>(k))));
    names.push_back(v->Name());
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool ShapeMatchesDeclared(const std::vector<int64_t>& declared, const DDim& dims) {
  if (static_cast<int>(declared.size()) != dims.size()) return false;
  for (int i = 0; i < dims.size(); ++i) {
    if (declared[i] >= 0 && declared[i] != dims[i]) return false;
  }
  return true;
}

void LoadParameters(const ProgramDesc& program, const std::string& program_path,
                    const ParameterSource& source, Scope* scope) {
  PL_ENFORCE(source.combined_file.empty() || source.dir.empty(),
             errors::InvalidArgument("parameters of `%s`: give a combined file or a directory, "
                                     "not both",
                                     program_path));
  const std::vector<std::string> names = ParameterNames(program);
  if (!source.combined_file.empty()) {
    LoadCombinedParams(source.combined_file, names, scope);
  } else if (!source.dir.empty()) {
    LoadSeparateParams(source.dir, names, scope);
  } else if (!names.empty()) {
    LoadFromProgramDir(program_path, names, scope);
  }
  CheckParametersAgainstProgram(program, *scope);
}

void CheckParametersAgainstProgram(const ProgramDesc& program, const Scope& scope) {
  for (const auto& name : ParameterNames(program)) {
    const VarDesc* desc = program.Block(0).FindVar(name);
    if (!desc->HasTensorDesc() || desc->GetDataType() == DataType::UNDEFINED) continue;
    const DenseTensor& t = scope.FindVar(name)->Get<DenseTensor>();
    PL_ENFORCE(t.dtype() == desc->GetDataType(),
               errors::InvalidArgument("parameter `%s`: expected dtype %s, the parameter file "
                                       "holds %s",
                                       name, platform::DataTypeName(desc->GetDataType()),
                                       platform::DataTypeName(t.dtype())));
    PL_ENFORCE(
        ShapeMatchesDeclared(desc->GetShape(), t.dims()),
        errors::InvalidArgument("parameter `%s`: expected shape %s, the parameter file "
                                "holds shape %s",
                                name, DDim(desc->GetShape()).ToString(), t.dims().ToString()));
  }
}

}  // namespace framework
}  // namespace paddle_like

#include "paddle_like/io/checkpoint.h"

#include "framework/model_loading.h"
#include "framework/tensor_io.h"

namespace paddle_like {
namespace io {

std::vector<std::string> CheckpointVariables(const framework::ProgramDesc& program) {
  return framework::ParameterNames(program);
}

void SaveCheckpoint(const std::string& path, const framework::ProgramDesc& program,
                    const framework::Scope& scope) {
  framework::SaveCombinedParams(path, CheckpointVariables(program), scope);
}

void LoadCheckpoint(const std::string& path, const framework::ProgramDesc& program,
                    framework::Scope* scope) {
  const auto names = CheckpointVariables(program);
  framework::Scope loaded;
  framework::LoadCombinedParams(path, names, &loaded);
  // Check everything before touching the caller's scope.
  for (const auto& name : names) {
    const framework::VarDesc* desc = program.Block(0).FindVar(name);
    const framework::DenseTensor& t = loaded.FindVar(name)->Get<framework::DenseTensor>();
    PL_ENFORCE(desc->GetDataType() == t.dtype(),
               errors::InvalidArgument("checkpoint `%s` variable `%s`: expected dtype %s, received %s",
                                       path, name, platform::DataTypeName(desc->GetDataType()),
                                       platform::DataTypeName(t.dtype())));
    PL_ENFORCE(framework::ShapeMatchesDeclared(desc->GetShape(), t.dims()),
               errors::InvalidArgument("checkpoint `%s` variable `%s`: expected shape %s, received %s",
                                       path, name, framework::DDim(desc->GetShape()).ToString(),
                                       t.dims().ToString()));
  }
  for (const auto& name : names) {
    *scope->Var(name)->GetMutable<framework::DenseTensor>() =
        loaded.FindVar(name)->Get<framework::DenseTensor>();
  }
}

}  // namespace io
}  // namespace paddle_like

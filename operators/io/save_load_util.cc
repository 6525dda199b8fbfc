#include "operators/io/save_load_util.h"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

#include "platform/file_util.h"

namespace paddle_like {
namespace operators {

using framework::DenseTensor;
using platform::DataType;

namespace {
bool IsWideFloat(DataType t) { return t == DataType::FLOAT32 || t == DataType::FLOAT64; }
}  // namespace

DenseTensor TensorForSave(const DenseTensor& t, bool as_fp16) {
  DenseTensor host = t;
  if (!t.place().is_cpu()) framework::CopyTensor(t, platform::CPUPlace(), &host);
  if (!as_fp16 || !IsWideFloat(host.dtype())) return host;
  DenseTensor half;
  framework::CastTensor(host, DataType::FLOAT16, &half);
  return half;
}

DenseTensor TensorAfterLoad(DenseTensor t, bool as_fp16) {
  if (!as_fp16 || !IsWideFloat(t.dtype())) return t;
  DenseTensor half;
  framework::CastTensor(t, DataType::FLOAT16, &half);
  return half;
}

void WriteTensorFile(const std::string& path, bool overwrite, const std::string& bytes,
                     const std::string& context) {
  struct stat st;
  PL_ENFORCE(overwrite || ::stat(path.c_str(), &st) != 0,
             errors::AlreadyExists("%s: file `%s` already exists and attribute `overwrite` is "
                                   "false",
                                   context, path));
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    PL_ENFORCE(!ec, errors::Unavailable("%s: cannot create directory `%s` for file `%s`: %s",
                                        context, parent.string(), path, ec.message()));
  }
  platform::WithErrorContext(context, [&] { platform::WriteFileAtomically(path, bytes); });
}

}  // namespace operators
}  // namespace paddle_like

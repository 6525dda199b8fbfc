#include "framework/tensor_io.h"

#include <cstring>

#include "framework/framework.pb.h"
#include "framework/scope.h"
#include "platform/checked_math.h"
#include "platform/file_util.h"

namespace paddle_like {
namespace framework {

namespace proto = ::paddle::framework::proto;

namespace {
template <typename T>
void AppendPod(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

template <typename T>
T ReadPod(const std::string& bytes, size_t* offset, const std::string& source, const char* what) {
  PL_ENFORCE(platform::FitsIn(*offset, sizeof(T), bytes.size()),
             errors::InvalidArgument("tensor file `%s`: truncated at byte %zu while reading %s",
                                     source, *offset, what));
  T v;
  std::memcpy(&v, bytes.data() + *offset, sizeof(T));
  *offset += sizeof(T);
  return v;
}
}  // namespace

void AppendTensorRecord(const DenseTensor& tensor, std::string* out) {
  DenseTensor host;
  if (!tensor.place().is_cpu()) {
    CopyTensor(tensor, platform::CPUPlace(), &host);
  } else {
    host = tensor;
  }
  if (!host.is_plain()) host = PlainTensor(host);  // Files hold row-major data.
  AppendPod<uint32_t>(out, 0);  // DenseTensor version.
  AppendPod<uint64_t>(out, host.lod().size());
  for (const auto& level : host.lod()) {
    AppendPod<uint64_t>(out, level.size() * sizeof(uint64_t));
    for (size_t v : level) AppendPod<uint64_t>(out, v);
  }
  AppendPod<uint32_t>(out, 0);  // Tensor version.
  proto::VarType::TensorDesc desc;
  desc.set_data_type(static_cast<proto::VarType::Type>(host.dtype()));
  for (int i = 0; i < host.dims().size(); ++i) desc.add_dims(host.dims()[i]);
  const std::string desc_bytes = desc.SerializeAsString();
  AppendPod<int32_t>(out, static_cast<int32_t>(desc_bytes.size()));
  out->append(desc_bytes);
  const size_t n = static_cast<size_t>(host.numel()) * platform::SizeOf(host.dtype());
  if (n > 0) out->append(static_cast<const char*>(host.raw_data()), n);
}

DenseTensor ReadTensorRecord(const std::string& bytes, size_t* offset, const std::string& source) {
  const size_t start = *offset;
  const uint32_t version = ReadPod<uint32_t>(bytes, offset, source, "the record version");
  PL_ENFORCE(version == 0, errors::InvalidArgument(
                               "tensor file `%s`: record at byte %zu has version %u, expected 0",
                               source, start, version));
  const uint64_t lod_levels = ReadPod<uint64_t>(bytes, offset, source, "the LoD level count");
  PL_ENFORCE(lod_levels < 64, errors::InvalidArgument(
                                  "tensor file `%s`: record at byte %zu claims %llu LoD levels",
                                  source, start, static_cast<unsigned long long>(lod_levels)));
  LoD lod;
  for (uint64_t l = 0; l < lod_levels; ++l) {
    const uint64_t size = ReadPod<uint64_t>(bytes, offset, source, "a LoD level size");
    PL_ENFORCE(size % sizeof(uint64_t) == 0 && platform::FitsIn(*offset, size, bytes.size()),
               errors::InvalidArgument("tensor file `%s`: LoD level %llu at byte %zu claims %llu "
                                       "bytes; expected a multiple of 8 within the %zu bytes left",
                                       source, static_cast<unsigned long long>(l), *offset - 8,
                                       static_cast<unsigned long long>(size),
                                       bytes.size() - *offset));
    std::vector<size_t> level(size / sizeof(uint64_t));
    for (auto& v : level) v = ReadPod<uint64_t>(bytes, offset, source, "a LoD offset");
    lod.push_back(std::move(level));
  }
  const uint32_t tensor_version = ReadPod<uint32_t>(bytes, offset, source, "the tensor version");
  PL_ENFORCE(tensor_version == 0,
             errors::InvalidArgument("tensor file `%s`: tensor version %u at byte %zu, expected 0",
                                     source, tensor_version, *offset - 4));
  const int32_t desc_size = ReadPod<int32_t>(bytes, offset, source, "the TensorDesc size");
  PL_ENFORCE(desc_size >= 0 && platform::FitsIn(*offset, static_cast<size_t>(desc_size), bytes.size()),
             errors::InvalidArgument("tensor file `%s`: TensorDesc size %d at byte %zu is out of range",
                                     source, desc_size, *offset - 4));
  proto::VarType::TensorDesc desc;
  // ParsePartial: a missing required field is reported here, not logged by protobuf.
  PL_ENFORCE(desc.ParsePartialFromArray(bytes.data() + *offset, desc_size),
             errors::InvalidArgument("tensor file `%s`: unparsable TensorDesc at byte %zu", source,
                                     *offset));
  PL_ENFORCE(desc.IsInitialized(),
             errors::InvalidArgument("tensor file `%s`: the TensorDesc at byte %zu lacks its "
                                     "data_type",
                                     source, *offset));
  *offset += static_cast<size_t>(desc_size);
  PL_ENFORCE(platform::IsSupportedDataType(desc.data_type()),
             errors::InvalidArgument("tensor file `%s`: unsupported data type %d", source,
                                     static_cast<int>(desc.data_type())));
  const std::vector<int64_t> dims(desc.dims().begin(), desc.dims().end());
  const std::string problem = ShapeProblem(dims, /*allow_unknown=*/false);
  PL_ENFORCE(problem.empty(), errors::InvalidArgument("tensor file `%s`: record at byte %zu: %s",
                                                      source, start, problem));
  DenseTensor t(DDim(dims), static_cast<DataType>(desc.data_type()));
  uint64_t n = 0;
  const bool countable = platform::CheckedMul(static_cast<uint64_t>(t.numel()),
                                              static_cast<uint64_t>(platform::SizeOf(t.dtype())), &n);
  PL_ENFORCE(countable && platform::FitsIn(*offset, n, bytes.size()),
             errors::InvalidArgument("tensor file `%s`: truncated data: %s tensor %s needs %s "
                                     "bytes at byte %zu, the file has %zu",
                                     source, platform::DataTypeName(t.dtype()), t.dims().ToString(),
                                     !countable ? std::string("more than 2^64")
                                            : std::to_string(static_cast<unsigned long long>(n)),
                                     *offset, bytes.size() - *offset));
  void* p = t.mutable_data(platform::CPUPlace(), t.dtype());
  if (n > 0) std::memcpy(p, bytes.data() + *offset, n);
  *offset += n;
  if (!lod.empty()) {
    const std::string lod_problem = LoDProblem(lod, t.dims().size() > 0 ? t.dims()[0] : 1);
    PL_ENFORCE(lod_problem.empty(),
               errors::InvalidArgument("tensor file `%s`: record at byte %zu: %s", source, start,
                                       lod_problem));
  }
  t.set_lod(lod);
  return t;
}

void LoadCombinedParams(const std::string& path, const std::vector<std::string>& names,
                        Scope* scope) {
  LoadCombinedParamsFromBytes(platform::ReadFile(path, {"parameter file"}), path, names, scope);
}

void LoadCombinedParamsFromBytes(const std::string& bytes, const std::string& path,
                                 const std::vector<std::string>& names, Scope* scope) {
  size_t offset = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    PL_ENFORCE(offset < bytes.size(),
               errors::InvalidArgument("parameter file `%s` ends before variable `%s` (%zu bytes)",
                                       path, name, bytes.size()));
    *scope->Var(name)->GetMutable<DenseTensor>() = platform::WithErrorContext(
        platform::Sprintf("variable `%s` (record %zu of %zu)", name, i + 1, names.size()),
        [&] { return ReadTensorRecord(bytes, &offset, path); });
  }
  PL_ENFORCE(offset == bytes.size(),
             errors::InvalidArgument("parameter file `%s` has %zu bytes left after its %zu "
                                     "expected variables",
                                     path, bytes.size() - offset, names.size()));
}

void LoadSeparateParams(const std::string& dir, const std::vector<std::string>& names,
                        Scope* scope) {
  for (const auto& name : names) {
    const std::string path = dir + "/" + name;
    const std::string bytes = platform::ReadFile(path, {"parameter file"});
    size_t offset = 0;
    *scope->Var(name)->GetMutable<DenseTensor>() = platform::WithErrorContext(
        platform::Sprintf("variable `%s`", name),
        [&] { return ReadTensorRecord(bytes, &offset, path); });
    PL_ENFORCE(offset == bytes.size(),
               errors::InvalidArgument("variable `%s`: parameter file `%s` has %zu bytes after its "
                                       "tensor record",
                                       name, path, bytes.size() - offset));
  }
}

void SaveCombinedParams(const std::string& path, const std::vector<std::string>& names,
                        const Scope& scope) {
  std::string bytes;
  for (const auto& name : names) {
    const Variable* v = scope.FindVar(name);
    PL_ENFORCE(v != nullptr && v->IsType<DenseTensor>() && v->Get<DenseTensor>().initialized(),
               errors::NotFound("cannot save variable `%s`: it holds no tensor", name));
    AppendTensorRecord(v->Get<DenseTensor>(), &bytes);
  }
  platform::WriteFileAtomically(path, bytes);
}

}  // namespace framework
}  // namespace paddle_like

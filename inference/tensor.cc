// Tensor handles of paddle_like/inference_api.h: views of one input or output variable of a
// predictor.
#include <cstdint>
#include <cstring>

#include "framework/dense_tensor.h"
#include "framework/variable.h"
#include "inference/api_data_type.h"
#include "inference/chunked_tail.h"
#include "paddle_like/inference_api.h"
#include "platform/allocator.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace infer {

namespace {

framework::DenseTensor* Dense(framework::Variable* var) {
  return var->GetMutable<framework::DenseTensor>();
}

const framework::DenseTensor& DenseOf(const framework::Variable* var, const std::string& name) {
  PL_ENFORCE(var->IsType<framework::DenseTensor>(),
             errors::PreconditionNotMet("tensor `%s` holds no dense tensor yet", name));
  return var->Get<framework::DenseTensor>();
}

// The tensor's values, checked to exist and to be of type T.
template <typename T>
const framework::DenseTensor& Readable(const framework::Variable* var, const std::string& name) {
  const framework::DenseTensor& t = DenseOf(var, name);
  PL_ENFORCE(t.initialized(),
             errors::PreconditionNotMet("tensor `%s` has no value yet (an output has one after "
                                        "Run)",
                                        name));
  PL_ENFORCE(t.dtype() == platform::ToDataType<T>(),
             errors::InvalidArgument("tensor `%s` holds %s, not the %s asked for", name,
                                     platform::DataTypeName(t.dtype()),
                                     platform::DataTypeName(platform::ToDataType<T>())));
  return t;
}

}  // namespace

void Tensor::Reshape(const std::vector<int>& shape) {
  PL_ENFORCE(input_, errors::PreconditionNotMet("tensor `%s` is an output: its shape comes from "
                                                "Run",
                                                name_));
  std::vector<int64_t> dims;
  for (int d : shape) {
    PL_ENFORCE(d >= 0, errors::InvalidArgument("tensor `%s`: Reshape needs dims >= 0, received %d",
                                               name_, d));
    dims.push_back(d);
  }
  Writable()->Resize(framework::DDim(dims));
}

framework::DenseTensor* Tensor::Writable() {
  framework::DenseTensor* t = Dense(var_);
  if (tail_ != nullptr) tail_->BeforeInputWrite(t);
  if (external_ != nullptr && external_->erase(var_) > 0) t->clear();  // Never written.
  return t;
}

// An output that its predictor's last op computes on reading (chunked_tail.h).
bool Tensor::pending() const { return !input_ && tail_ != nullptr && tail_->pending(); }

std::vector<int> Tensor::shape() const {
  std::vector<int> out;
  if (pending()) {
    for (int64_t d : tail_->dims().ToVector()) out.push_back(static_cast<int>(d));
    return out;
  }
  if (!var_->IsType<framework::DenseTensor>()) return out;
  for (int64_t d : var_->Get<framework::DenseTensor>().dims().ToVector()) {
    out.push_back(static_cast<int>(d));
  }
  return out;
}

int64_t Tensor::numel() const {
  if (pending()) return tail_->dims().numel();
  if (!var_->IsType<framework::DenseTensor>()) return 0;
  return var_->Get<framework::DenseTensor>().numel();
}

DataType ToApiType(platform::DataType t) {
  switch (t) {
    case platform::DataType::FLOAT32: return DataType::FLOAT32;
    case platform::DataType::FLOAT64: return DataType::FLOAT64;
    case platform::DataType::INT32: return DataType::INT32;
    case platform::DataType::INT64: return DataType::INT64;
    case platform::DataType::INT8: return DataType::INT8;
    case platform::DataType::UINT8: return DataType::UINT8;
    case platform::DataType::BOOL: return DataType::BOOL;
    case platform::DataType::FLOAT16: return DataType::FLOAT16;
    case platform::DataType::BFLOAT16: return DataType::BFLOAT16;
    case platform::DataType::COMPLEX64:
      return DataType::COMPLEX64;
    case platform::DataType::COMPLEX128:
      return DataType::COMPLEX128;
    default: return DataType::UNKNOWN;
  }
}

DataType Tensor::type() const {
  if (pending()) return ToApiType(tail_->dtype());
  if (!var_->IsType<framework::DenseTensor>()) return DataType::UNKNOWN;
  return ToApiType(var_->Get<framework::DenseTensor>().dtype());
}

template <typename T>
T* Tensor::mutable_data(PlaceType place) {
  PL_ENFORCE(input_, errors::PreconditionNotMet("tensor `%s` is an output: read it with data or "
                                                "CopyToCpu",
                                                name_));
  PL_ENFORCE(place == PlaceType::kCPU,
             errors::Unimplemented("tensor `%s`: only CPU memory is available", name_));
  return Writable()->mutable_data<T>(platform::CPUPlace());
}

template <typename T>
void Tensor::ShareExternalData(const T* data, const std::vector<int>& shape, PlaceType place,
                               DataLayout layout) {
  PL_ENFORCE(input_, errors::PreconditionNotMet("tensor `%s` is an output: ShareExternalData "
                                                "gives an input its values",
                                                name_));
  PL_ENFORCE(place == PlaceType::kCPU,
             errors::Unimplemented("tensor `%s`: ShareExternalData takes CPU memory only", name_));
  PL_ENFORCE(layout == DataLayout::kNCHW || layout == DataLayout::kAny,
             errors::InvalidArgument("tensor `%s`: ShareExternalData reads values row-major in "
                                     "the declared order (DataLayout::kNCHW or kAny), received "
                                     "layout %d",
                                     name_, static_cast<int>(layout)));
  std::vector<int64_t> dims;
  for (int d : shape) {
    PL_ENFORCE(d >= 0, errors::InvalidArgument("tensor `%s`: ShareExternalData needs dims >= 0, "
                                               "received %d",
                                               name_, d));
    dims.push_back(d);
  }
  const framework::DDim ddim(dims);
  PL_ENFORCE(data != nullptr || ddim.numel() == 0,
             errors::InvalidArgument("tensor `%s`: ShareExternalData of %lld elements from a "
                                     "null pointer",
                                     name_, static_cast<long long>(ddim.numel())));
  PL_ENFORCE(reinterpret_cast<uintptr_t>(data) % alignof(T) == 0,
             errors::InvalidArgument("tensor `%s`: ShareExternalData's %s data at %p is not "
                                     "aligned to %zu bytes",
                                     name_, platform::DataTypeName(platform::ToDataType<T>()),
                                     static_cast<const void*>(data), alignof(T)));
  framework::DenseTensor* t = Writable();
  t->Resize(ddim);
  t->set_dtype(platform::ToDataType<T>());
  const size_t bytes = static_cast<size_t>(ddim.numel()) * sizeof(T);
  // No deleter: the memory stays the caller's. Operators never write their inputs, and the
  // executor keeps every input out of its buffer reuse.
  t->ResetHolder(std::make_shared<platform::Allocation>(const_cast<T*>(data), bytes,
                                                        platform::CPUPlace(), nullptr));
  external_->insert(var_);
}

PlaceType Tensor::place() const {
  if (pending() || !var_->IsType<framework::DenseTensor>()) return PlaceType::kCPU;
  const framework::DenseTensor& t = var_->Get<framework::DenseTensor>();
  return t.initialized() && t.place().is_gpu() ? PlaceType::kGPU : PlaceType::kCPU;
}

template <typename T>
void Tensor::CopyFromCpu(const T* data) {
  T* dst = mutable_data<T>(PlaceType::kCPU);
  const int64_t n = numel();
  if (n > 0) std::memcpy(dst, data, static_cast<size_t>(n) * sizeof(T));
}

template <typename T>
const T* Tensor::data(PlaceType* place, int* size) const {
  if (pending()) tail_->Materialize();  // Read in place: computed whole into the variable.
  const framework::DenseTensor& t = Readable<T>(var_, name_);
  if (place != nullptr) *place = t.place().is_gpu() ? PlaceType::kGPU : PlaceType::kCPU;
  if (size != nullptr) *size = static_cast<int>(t.numel());
  if (t.is_plain()) return t.data<T>();
  // An output left in a kernel library's layout (the predictor keeps its outputs as their
  // kernels wrote them): converted once here, in place, and read row-major from then on.
  framework::DenseTensor* held = Dense(var_);
  *held = framework::PlainTensor(t);
  return held->data<T>();
}

template <typename T>
void Tensor::CopyToCpu(T* data) const {
  if (pending()) {
    PL_ENFORCE(tail_->dtype() == platform::ToDataType<T>(),
               errors::InvalidArgument("tensor `%s` holds %s, not the %s asked for", name_,
                                       platform::DataTypeName(tail_->dtype()),
                                       platform::DataTypeName(platform::ToDataType<T>())));
    tail_->Deliver(data);  // Computed chunk by chunk into `data`.
    return;
  }
  const framework::DenseTensor& t = Readable<T>(var_, name_);
  if (t.numel() > 0 && !t.is_plain()) {
    // Left in a kernel library's layout: one reorder straight into the caller's buffer.
    t.opaque_layout()->ToPlain(t.raw_data(), data);
  } else if (t.numel() > 0) {
    // platform::Copy covers an output that a GPU predictor left in device memory.
    platform::Copy(platform::CPUPlace(), data, t.place(), t.data<T>(),
                   static_cast<size_t>(t.numel()) * sizeof(T));
  }
}

void Tensor::SetLoD(const std::vector<std::vector<size_t>>& lod) {
  PL_ENFORCE(input_, errors::PreconditionNotMet("tensor `%s` is an output: its LoD comes from "
                                                "Run",
                                                name_));
  Dense(var_)->set_lod(lod);
}

std::vector<std::vector<size_t>> Tensor::lod() const {
  if (pending()) return {};  // The last op is run by chunks only on inputs without LoD.
  if (!var_->IsType<framework::DenseTensor>()) return {};
  return var_->Get<framework::DenseTensor>().lod();
}

#define PL_INFER_TENSOR_TYPE(T)                                                            \
  template void Tensor::CopyFromCpu<T>(const T*);                                          \
  template void Tensor::CopyToCpu<T>(T*) const;                                            \
  template T* Tensor::mutable_data<T>(PlaceType);                                          \
  template void Tensor::ShareExternalData<T>(const T*, const std::vector<int>&, PlaceType, \
                                             DataLayout);                                  \
  template const T* Tensor::data<T>(PlaceType*, int*) const;
PL_INFER_TENSOR_TYPE(float)
PL_INFER_TENSOR_TYPE(double)
PL_INFER_TENSOR_TYPE(int32_t)
PL_INFER_TENSOR_TYPE(int64_t)
PL_INFER_TENSOR_TYPE(int8_t)
PL_INFER_TENSOR_TYPE(uint8_t)
PL_INFER_TENSOR_TYPE(bool)
PL_INFER_TENSOR_TYPE(std::complex<float>)
PL_INFER_TENSOR_TYPE(std::complex<double>)
#undef PL_INFER_TENSOR_TYPE

}  // namespace infer
}  // namespace paddle_like

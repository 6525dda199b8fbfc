#include "paddle_like/cli/predictor_io.h"

#include <vector>

#include "platform/enforce.h"

namespace paddle_like {
namespace cli {

namespace {

template <typename T>
void CopyOut(const infer::Tensor& out, framework::DenseTensor* t) {
  std::vector<int64_t> dims;
  for (int d : out.shape()) dims.push_back(d);
  t->Resize(framework::DDim(dims));
  out.CopyToCpu(t->mutable_data<T>(platform::CPUPlace()));
}

}  // namespace

void SetInput(const char* verb, infer::Tensor* in, const framework::DenseTensor& t) {
  using platform::DataType;
  std::vector<int> shape;
  for (int64_t d : t.dims().ToVector()) shape.push_back(static_cast<int>(d));
  in->Reshape(shape);
  switch (t.dtype()) {
    case DataType::FLOAT32:
      in->CopyFromCpu(t.data<float>());
      break;
    case DataType::FLOAT64:
      in->CopyFromCpu(t.data<double>());
      break;
    case DataType::INT32:
      in->CopyFromCpu(t.data<int32_t>());
      break;
    case DataType::INT64:
      in->CopyFromCpu(t.data<int64_t>());
      break;
    case DataType::INT8:
      in->CopyFromCpu(t.data<int8_t>());
      break;
    case DataType::UINT8:
      in->CopyFromCpu(t.data<uint8_t>());
      break;
    case DataType::BOOL:
      in->CopyFromCpu(t.data<bool>());
      break;
    case DataType::COMPLEX64:
      in->CopyFromCpu(t.data<std::complex<float>>());
      break;
    case DataType::COMPLEX128:
      in->CopyFromCpu(t.data<std::complex<double>>());
      break;
    default:
      throw platform::errors::InvalidArgument("%s: input `%s`: %s .npy data is not supported", verb,
                                              in->name(), platform::DataTypeName(t.dtype()));
  }
}

void GetOutput(const char* verb, const infer::Tensor& out, framework::DenseTensor* t) {
  switch (out.type()) {
    case infer::DataType::FLOAT32:
      return CopyOut<float>(out, t);
    case infer::DataType::FLOAT64:
      return CopyOut<double>(out, t);
    case infer::DataType::INT32:
      return CopyOut<int32_t>(out, t);
    case infer::DataType::INT64:
      return CopyOut<int64_t>(out, t);
    case infer::DataType::INT8:
      return CopyOut<int8_t>(out, t);
    case infer::DataType::UINT8:
      return CopyOut<uint8_t>(out, t);
    case infer::DataType::BOOL:
      return CopyOut<bool>(out, t);
    case infer::DataType::COMPLEX64:
      return CopyOut<std::complex<float>>(out, t);
    case infer::DataType::COMPLEX128:
      return CopyOut<std::complex<double>>(out, t);
    default:
      throw platform::errors::Unimplemented(
          "%s: output `%s` has an element type this command "
          "cannot read",
          verb, out.name());
  }
}

}  // namespace cli
}  // namespace paddle_like

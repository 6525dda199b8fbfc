#include "paddle_like/cli/predictor_io.h"

#include <vector>

#include "platform/enforce.h"

namespace paddle_like {
namespace cli {

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
    default:
      throw platform::errors::InvalidArgument("%s: input `%s`: %s .npy data is not supported", verb,
                                              in->name(), platform::DataTypeName(t.dtype()));
  }
}

}  // namespace cli
}  // namespace paddle_like

#include "platform/collective/communicator.h"

namespace paddle_like {
namespace platform {
namespace collective {

const char* ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kMax: return "max";
    case ReduceOp::kMin: return "min";
    default: return "prod";
  }
}

std::string Communicator::Describe() const {
  return "ring " + std::to_string(ring_id()) + " (rank " + std::to_string(rank()) + " of " +
         std::to_string(nranks()) + ")";
}

bool IsReducibleType(DataType dtype) {
  switch (dtype) {
    case DataType::FLOAT32: case DataType::FLOAT64: case DataType::FLOAT16:
    case DataType::BFLOAT16: case DataType::INT32: case DataType::INT64: case DataType::INT8:
    case DataType::UINT8:
      return true;
    default:
      return false;
  }
}

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

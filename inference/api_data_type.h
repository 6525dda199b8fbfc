// The inference API's element types (paddle_like/inference_api.h) from the framework's.
#pragma once

#include "paddle_like/inference_api.h"
#include "platform/data_type.h"

namespace paddle_like {
namespace infer {

// UNKNOWN for a type the API does not name.
DataType ToApiType(platform::DataType t);

}  // namespace infer
}  // namespace paddle_like

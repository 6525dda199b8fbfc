#include "operators/common.h"

namespace paddle_like {
namespace operators {

void SameShapeInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
  ctx->ShareLoD("X", "Out");
}

}  // namespace operators
}  // namespace paddle_like

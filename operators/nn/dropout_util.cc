#include "operators/nn/dropout_util.h"

#include <string>

#include "framework/data_transform.h"
#include "platform/random.h"

namespace paddle_like {
namespace operators {
namespace dropout {

bool Upscales(const ExecutionContext& ctx) {
  return ctx.Attr<std::string>("dropout_implementation") == "upscale_in_train";
}

double TrainScale(double p, bool upscale) {
  if (!upscale) return 1.0;
  return p >= 1.0 ? 0.0 : 1.0 / (1.0 - p);
}

double InferScale(double p, bool upscale) { return upscale ? 1.0 : 1.0 - p; }

uint64_t MaskSeed(const ExecutionContext& ctx) {
  if (const DenseTensor* given = ctx.Input("Seed")) {
    PL_ENFORCE(given->numel() == 1,
               errors::InvalidArgument("op `%s` input `Seed`: expected one element, received "
                                       "shape %s",
                                       ctx.Type(), given->dims().ToString()));
    const DenseTensor s = framework::OnCpu(*given);
    int64_t value = 0;
    if (s.dtype() == DataType::INT32) {
      value = s.data<int32_t>()[0];
    } else if (s.dtype() == DataType::INT64) {
      value = s.data<int64_t>()[0];
    } else {
      PL_THROW(
          errors::InvalidArgument("op `%s` input `Seed`: expected an int32 or int64 tensor, "
                                  "received %s",
                                  ctx.Type(), platform::DataTypeName(s.dtype())));
    }
    return platform::ResolveSeed(value);
  }
  return platform::ResolveSeed(ctx.Attr<bool>("fix_seed") ? ctx.Attr<int>("seed") : 0);
}

DenseTensor GradMask(const ExecutionContext& ctx, const DenseTensor& dout) {
  const DenseTensor* given = ctx.Input("Mask");
  PL_ENFORCE(given != nullptr, errors::NotFound("op `%s` input `Mask`: required in training "
                                                "but not given",
                                                ctx.Type()));
  PL_ENFORCE(given->dims() == dout.dims(),
             errors::InvalidArgument("op `%s` input `Mask`: expected the shape of `Out@GRAD` "
                                     "%s, received %s",
                                     ctx.Type(), dout.dims().ToString(),
                                     given->dims().ToString()));
  PL_ENFORCE(given->dtype() == DataType::UINT8,
             errors::InvalidArgument("op `%s` input `Mask`: expected a uint8 tensor, received %s",
                                     ctx.Type(), platform::DataTypeName(given->dtype())));
  return *given;
}

}  // namespace dropout
}  // namespace operators
}  // namespace paddle_like

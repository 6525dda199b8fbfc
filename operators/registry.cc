#include "operators/registry.h"

#include <mutex>

#include "operators/registry_table.h"
#include "platform/init.h"

namespace paddle_like {
namespace operators {

void RegisterAllOps() {
  static std::once_flag once;
  std::call_once(once, [] {
    platform::InitPlatform();
    using RegisterFn = void (*)();
    // Plain CPU ops and kernels, one entry per op family.
    static const RegisterFn kTable[] = {
        RegisterFeedFetchOps, RegisterQuadraticOp,    RegisterActivationOps, RegisterElementwiseOps,
        RegisterScaleOp,      RegisterFillConstantOp, RegisterAssignOp,      RegisterCastOp,
        RegisterMatmulV2Op,   RegisterMulOp,          RegisterSoftmaxOp,     RegisterMeanOp,
        RegisterReduceSumOp,  RegisterReshape2Op,     RegisterTranspose2Op,  RegisterSumOp,
        RegisterFillAnyLikeOp, RegisterReduceAsOp,    RegisterExpandAsV2Op,  RegisterSizeOp,
        RegisterUnsqueezeSqueezeOps, RegisterReduceMeanOp, RegisterShapeOp,
        // Training ops.
        RegisterConv2dOp, RegisterPool2dOp, RegisterBatchNormOp, RegisterLayerNormOp,
        RegisterDropoutOp, RegisterGeluOp, RegisterLeakyReluOp, RegisterSoftmaxWithCrossEntropyOp,
        RegisterCrossEntropyOp, RegisterAccuracyOp, RegisterTopKOp, RegisterArgMaxOp,
        RegisterFlattenContiguousRangeOp, RegisterConcatOp, RegisterSplitOp, RegisterSliceOp,
        RegisterLookupTableV2Op, RegisterSgdOp, RegisterMomentumOp, RegisterAdamOp,
        RegisterRandomOps, RegisterSaveLoadOps, RegisterSquaredL2NormOp,
        // Ops of saved mobile models.
        RegisterHardActivationOps,
        // PaddlePaddle's fused grad op types (in programs it built) kept in files of their own.
        RegisterElementwiseGradOps,
    };
    for (RegisterFn fn : kTable) fn();
    RegisterOneDNNKernels();
    RegisterCudaKernels();
  });
}

}  // namespace operators
}  // namespace paddle_like

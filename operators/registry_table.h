// Registration functions of each op family (called only by registry.cc).
#pragma once

namespace paddle_like {
namespace operators {

void RegisterFeedFetchOps();
void RegisterQuadraticOp();
void RegisterActivationOps();
void RegisterElementwiseOps();
void RegisterElementwiseGradOps();
void RegisterScaleOp();
void RegisterFillConstantOp();
void RegisterAssignOp();
void RegisterCastOp();
void RegisterMatmulV2Op();
void RegisterMulOp();
void RegisterSoftmaxOp();
void RegisterMeanOp();
void RegisterReduceSumOp();
void RegisterReduceMeanOp();
void RegisterReshape2Op();
void RegisterTranspose2Op();
void RegisterSumOp();
void RegisterFillAnyLikeOp();
void RegisterReduceAsOp();
void RegisterExpandAsV2Op();
void RegisterSizeOp();
void RegisterUnsqueezeSqueezeOps();
void RegisterConv2dOp();
void RegisterPool2dOp();
void RegisterBatchNormOp();
void RegisterLayerNormOp();
void RegisterDropoutOp();
void RegisterGeluOp();
void RegisterLeakyReluOp();
void RegisterHardActivationOps();
void RegisterShapeOp();
void RegisterSoftmaxWithCrossEntropyOp();
void RegisterCrossEntropyOp();
void RegisterAccuracyOp();
void RegisterTopKOp();
void RegisterArgMaxOp();
void RegisterFlattenContiguousRangeOp();
void RegisterConcatOp();
void RegisterSplitOp();
void RegisterSliceOp();
void RegisterLookupTableV2Op();
void RegisterSgdOp();
void RegisterMomentumOp();
void RegisterAdamOp();
void RegisterRandomOps();
void RegisterSaveLoadOps();
void RegisterSquaredL2NormOp();

// Backend kernel tables: the real ones or stand-ins, chosen by CMake.
void RegisterOneDNNKernels();
void RegisterCudaKernels();

}  // namespace operators
}  // namespace paddle_like

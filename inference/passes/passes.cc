#include "inference/passes/passes.h"

#include <memory>
#include <mutex>

#include "inference/passes/batch_norm_relu_fuse_pass.h"
#include "inference/passes/constant_folding_pass.h"
#include "inference/passes/conv_fuse_passes.h"
#include "inference/passes/dead_op_elimination_pass.h"
#include "inference/passes/delete_dropout_pass.h"
#include "inference/passes/fc_fuse_pass.h"
#include "inference/passes/scale_fuse_pass.h"
#include "inference/passes/sync_batch_norm_pass.h"

namespace paddle_like {
namespace inference {

namespace {
template <typename P>
std::unique_ptr<framework::ir::Pass> Make() {
  return std::make_unique<P>();
}

template <typename P>
void Register() {
  framework::ir::RegisterPass(P().Name(), &Make<P>);
}
}  // namespace

void RegisterInferencePasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    Register<SyncBatchNormPass>();
    Register<DeleteDropoutPass>();
    Register<ConstantFoldingPass>();
    Register<ConvBnFusePass>();
    Register<ConvBiasFusePass>();
    Register<ConvElementwiseAddFusePass>();
    Register<ConvActivationFusePass>();
    Register<BatchNormReluFusePass>();
    Register<FcFusePass>();
    Register<ScaleFusePass>();
    Register<DeadOpEliminationPass>();
  });
}

const std::vector<std::string>& InferencePassOrder() {
  static const std::vector<std::string> order = {"sync_batch_norm_pass",
                                                 "delete_dropout_pass",
                                                 "constant_folding_pass",
                                                 "conv_bn_fuse_pass",
                                                 "conv_bias_fuse_pass",
                                                 "scale_fuse_pass",
                                                 "conv_elementwise_add_fuse_pass",
                                                 "conv_activation_fuse_pass",
                                                 "batch_norm_relu_fuse_pass",
                                                 "fc_fuse_pass",
                                                 "dead_op_elimination_pass"};
  return order;
}

const std::vector<std::string>& GpuInferencePassOrder() {
  static const std::vector<std::string> order = {"sync_batch_norm_pass", "delete_dropout_pass",
                                                 "constant_folding_pass", "conv_bn_fuse_pass",
                                                 "dead_op_elimination_pass"};
  return order;
}

}  // namespace inference
}  // namespace paddle_like

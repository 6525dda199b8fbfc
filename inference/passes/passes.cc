#include "inference/passes/passes.h"

#include <memory>
#include <mutex>

#include "inference/passes/delete_dropout_pass.h"

namespace paddle_like {
namespace inference {

void RegisterInferencePasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    framework::ir::RegisterPass("delete_dropout_pass", []() -> std::unique_ptr<framework::ir::Pass> {
      return std::make_unique<DeleteDropoutPass>();
    });
  });
}

}  // namespace inference
}  // namespace paddle_like

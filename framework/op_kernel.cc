#include "framework/op_kernel.h"

#include <atomic>

#include "framework/variable.h"

namespace paddle_like {
namespace framework {

namespace {
std::atomic<int64_t> g_prepacks{0};
}  // namespace

void OpKernel::Prepare(const ExecutionContext&) {}

VariableStamp::VariableStamp(const Variable& var) : var_(&var), version_(var.version()) {
  if (const DenseTensor* t = TensorOf(var)) {
    data_ = t->raw_data();
    dims_ = t->dims();
  }
}

void CountPrepack() { ++g_prepacks; }
int64_t PrepackCount() { return g_prepacks.load(); }

}  // namespace framework
}  // namespace paddle_like

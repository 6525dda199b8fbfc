// CUDA kernels against the plain CPU kernels. Skips when the build has no CUDA or the
// machine has no device.
#include "platform/init.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

TEST(CudaKernels, QuadraticMatchesCpu) {
  operators::RegisterAllOps();
  if (!platform::BuiltWithCuda()) GTEST_SKIP() << "built without CUDA";
  if (platform::CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  framework::ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  b.Var("x");
  framework::OpDesc* op = b.AppendOp();
  op->SetType("quadratic");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"y"});
  op->SetAttr("a", 1.0f);
  op->SetAttr("b", 2.0f);
  op->SetAttr("c", 3.0f);
  const auto values = RandomValues(10000, -2, 2);
  for (DataType dtype : {DataType::FLOAT32, DataType::FLOAT64}) {
    DenseTensor x = dtype == DataType::FLOAT32 ? MakeTensor<float>({100, 100}, values)
                                                : MakeTensor<double>({100, 100}, values);
    framework::Scope gpu_scope, cpu_scope;
    auto gpu = framework::Executor(platform::CUDAPlace(0)).Run(p, &gpu_scope, {{"x", x}}, {"y"});
    auto cpu = framework::Executor(platform::CPUPlace()).Run(p, &cpu_scope, {{"x", x}}, {"y"});
    ExpectNear(ToDoubles(gpu[0]), ToDoubles(cpu[0]), RelTol(dtype), AbsTol(dtype), "quadratic cuda");
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

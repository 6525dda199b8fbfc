// The collective ops on a GPU (NCCL), as a one-rank ring on gpu:0: each must give what the
// CPU's (Gloo's one-rank) kernel gives, from a CUDA kernel. Jobs of several GPUs need a
// machine with several devices; without CUDA or a device these tests skip.
#include <gtest/gtest.h>

#include "tests/cuda_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class CudaCollectiveTest : public CudaTest {};

InputMaker Input(const std::string& slot, const framework::DDim& dims) {
  return [slot, dims](DataType dtype) {
    return SlotTensors{{slot, {RandomOf(dtype, dims, -2.0, 2.0, 11)}}};
  };
}

TEST_F(CudaCollectiveTest, AllReducesMatchTheCpu) {
  GpuTolerance exact;
  exact.float_rtol = exact.float_atol = exact.double_rtol = exact.double_atol = 0;
  for (const char* type : {"c_allreduce_sum", "c_allreduce_max", "c_allreduce_min",
                           "c_allreduce_prod"}) {
    ExpectGpuMatchesCpu(type, Input("X", {3, 5}), {{"Out", 1}}, {{"ring_id", 0}}, exact);
  }
  for (int reduce_type : {0, 1, 2, 3}) {
    ExpectGpuMatchesCpu("all_reduce", Input("x", {7}), {{"out", 1}},
                        {{"reduce_type", reduce_type}}, exact);
  }
}

TEST_F(CudaCollectiveTest, BroadcastGatherScatterMatchTheCpu) {
  GpuTolerance exact;
  exact.float_rtol = exact.float_atol = exact.double_rtol = exact.double_atol = 0;
  ExpectGpuMatchesCpu("c_broadcast", Input("X", {2, 3}), {{"Out", 1}}, {{"root", 0}}, exact);
  ExpectGpuMatchesCpu("c_allgather", Input("X", {2, 3}), {{"Out", 1}}, {{"nranks", 1}}, exact);
  ExpectGpuMatchesCpu("c_reducescatter", Input("X", {4, 3}), {{"Out", 1}}, {{"nranks", 1}},
                      exact);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

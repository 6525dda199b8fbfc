// Data-parallel training: rewrites a training program (forward, backward from
// framework::AppendBackward, optimizer ops) so that every rank of a job trains on its share
// of each batch and all ranks apply the same update, as PaddlePaddle's collective
// GradAllReduce transpiler does:
//
//   main program     after the op that seeds the loss gradient: scale(loss@GRAD, 1/nranks);
//                    per bucket of gradients (same dtype, at most bucket_bytes, last layers
//                    first), right after the op that completes the bucket's last gradient:
//                      coalesce_tensor(grads -> grads as views of fused, copy_data)
//                      c_allreduce_sum(fused, in place, use_calc_stream false)
//                    which runs on the ring's communication thread while backward goes on;
//                    after the last gradient, c_sync_comm_stream waits for them all,
//                    so the optimizer ops (and any clipping or weight decay before them) read
//                    the sum over ranks of the scaled gradients: the gradient of the mean
//                    loss over the global batch. A sparse gradient (SelectedRows, from
//                    lookup_table with is_sparse) is all-gathered instead (c_allgather):
//                    every rank's rows, which the optimizer adds up.
//   startup program  c_broadcast(param, root 0) for every parameter, so all ranks start
//                    from rank 0's values.
//
// The ring's communicator comes from the job's environment (platform/collective). With the
// same rank count, FLAGS_cpu_deterministic runs are bitwise reproducible: the all-reduce
// adds in an order fixed by the ring.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "framework/program_desc.h"

namespace paddle_like {
namespace layers {

// The bucket size of FLAGS_fuse_grad_size_in_MB (PaddlePaddle's DistributedStrategy
// setting of the same name), in bytes.
int64_t DefaultBucketBytes();

struct DataParallelOptions {
  int nranks = 1;
  int ring_id = 0;
  int64_t bucket_bytes = DefaultBucketBytes();
};

// (parameter, gradient) pairs, the gradient being the one backward writes (`<param>@GRAD`).
using ParamGrads = std::vector<std::pair<std::string, std::string>>;

// The (parameter, raw gradient) pairs that the optimizer ops of block 0 update, from their
// op_role_var attributes, in program order; a clipped or decayed gradient is traced back to
// `<param>@GRAD` when the block declares it.
ParamGrads OptimizerParamGrads(const framework::BlockDesc& block);

// Rewrites `main` and `startup` (block 0 of each) as described above. InvalidArgumentError
// when a gradient is not declared or is neither a dense tensor nor a SelectedRows, when no
// op seeds the loss gradient, or for nranks < 1. nranks == 1 leaves both
// programs unchanged.
void ApplyDataParallel(const ParamGrads& param_grads, const DataParallelOptions& options,
                       framework::ProgramDesc* main, framework::ProgramDesc* startup);

}  // namespace layers
}  // namespace paddle_like

// shard_index: global ids turned into ids local to one shard of a table split over nshards
// (paddle.shard_index, for model-parallel embeddings and classifiers); ids of other shards
// become ignore_value.
#include <string>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "shard_index";

class ShardIndexOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "int32 or int64 ids in [0, index_num), rank >= 2 with a last dim of 1.");
    AddOutput("Out", "X's shape and dtype: the ids local to shard shard_id, or ignore_value.");
    AddAttr<int>("index_num", "The number of ids of the whole table (> 0).").GreaterThan(0);
    AddAttr<int>("nshards", "The number of shards (> 0).").GreaterThan(0);
    AddAttr<int>("shard_id", "This shard, in [0, nshards).").GreaterThan(-1);
    AddAttr<int>("ignore_value", "The value of ids that other shards hold.").SetDefault(-1);
    AddComment(R"DOC(
Shard index: with the shard size s = ceil(index_num / nshards),
$$Out = \begin{cases} X \bmod s & \lfloor X / s \rfloor = shard\_id \\ ignore\_value & \text{otherwise} \end{cases}$$
Example: index_num 20, nshards 2 (s = 10), shard_id 0: [[16], [1]] -> [[-1], [1]]. Ids are
not differentiable.
)DOC");
  }
};

class ShardIndexOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void CheckShard(const std::string& op, int nshards, int shard_id) {
  PL_ENFORCE(shard_id < nshards,
             errors::InvalidArgument("op `%s` attribute `shard_id`: expected a shard in [0, %d) "
                                     "(nshards), received %d",
                                     op, nshards, shard_id));
}

void ShardIndexInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  PL_ENFORCE(x.size() >= 2 && (x[x.size() - 1] == 1 || x[x.size() - 1] < 0),
             errors::InvalidArgument("op `%s` input `X`: expected rank >= 2 with a last dim of 1, "
                                     "received %s",
                                     ctx->OpType(), x.ToString()));
  CheckShard(ctx->OpType(), ctx->Attr<int>("nshards"), ctx->Attr<int>("shard_id"));
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

template <typename T>
struct ShardIndexKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const int64_t index_num = ctx.Attr<int>("index_num");
    const int64_t nshards = ctx.Attr<int>("nshards");
    const int64_t shard_id = ctx.Attr<int>("shard_id");
    CheckShard(ctx.Type(), static_cast<int>(nshards), static_cast<int>(shard_id));
    const int64_t size = (index_num + nshards - 1) / nshards;
    const T ignore = static_cast<T>(ctx.Attr<int>("ignore_value"));
    DenseTensor out(x->dims(), x->dtype());
    out.set_lod(x->lod());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->numel() > 0 ? x->data<T>() : nullptr;
    for (int64_t i = 0; i < x->numel(); ++i) {
      const int64_t id = static_cast<int64_t>(in[i]);
      PL_ENFORCE(
          id >= 0 && id < index_num,
          errors::InvalidArgument("op `%s` input `X`: id %lld at %lld is outside [0, %lld) "
                                  "(index_num)",
                                  ctx.Type(), static_cast<long long>(id), static_cast<long long>(i),
                                  static_cast<long long>(index_num)));
      o[i] = id / size == shard_id ? static_cast<T>(id % size) : ignore;
    }
    *ctx.Output("Out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterShardIndexOp) {
  framework::RegisterOp<ShardIndexOp, ShardIndexOpMaker>(kOp)
      .InferShape(ShardIndexInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::NoGradient);
  RegisterPlainCpuKernels<ShardIndexKernel, int32_t, int64_t>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

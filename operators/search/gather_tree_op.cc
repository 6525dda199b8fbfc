// gather_tree: the full token sequences of a beam search, traced back through the parent of
// each beam (paddle.nn.functional.gather_tree, the end of seq2seq decoders).
#include <string>

#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "gather_tree";

class GatherTreeOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Ids", "int32 or int64 [T, B, K]: the token each beam chose at each step.");
    AddInput("Parents", "Ids' type and shape: the beam of step t - 1 each beam continued.");
    AddOutput("Out", "Ids' type and shape: each final beam's tokens, step by step.");
    AddComment(R"DOC(
Beam-search back-tracing. For batch b and final beam k, with p_{T-1} = k and
p_{t-1} = Parents[t, b, p_t]:
$$Out[t, b, k] = Ids[t, b, p_t]$$
Example (T = 3, one batch, K = 2): Ids = [[[2, 2]], [[6, 1]], [[3, 9]]],
Parents = [[[0, 0]], [[1, 1]], [[1, 0]]] -> Out = [[[2, 2]], [[1, 6]], [[3, 9]]].
)DOC");
  }
};

class GatherTreeOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Ids");
  }
};

void GatherTreeInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Ids");
  ctx->RequireInput("Parents");
  ctx->RequireOutput("Out");
  const DDim ids = ctx->GetInputDim("Ids");
  const DDim parents = ctx->GetInputDim("Parents");
  PL_ENFORCE(ids.size() == 3, errors::InvalidArgument("op `%s` input `Ids`: expected rank 3 [T, "
                                                      "B, K], received %s",
                                                      kOp, ids.ToString()));
  bool same = parents.size() == 3;
  for (int i = 0; same && i < 3; ++i) same = ids[i] < 0 || parents[i] < 0 || ids[i] == parents[i];
  PL_ENFORCE(same, errors::InvalidArgument("op `%s` input `Parents`: expected Ids' shape %s, "
                                           "received %s",
                                           kOp, ids.ToString(), parents.ToString()));
  ctx->SetOutputDim("Out", ids);
}

template <typename T>
struct GatherTreeKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* ids = ctx.Input("Ids");
    const DenseTensor* parents = ctx.Input("Parents");
    PL_ENFORCE(parents->dims() == ids->dims() && parents->dtype() == ids->dtype(),
               errors::InvalidArgument("op `%s` input `Parents`: expected Ids' shape %s and type "
                                       "%s, received %s %s",
                                       kOp, ids->dims().ToString(), DataTypeName(ids->dtype()),
                                       parents->dims().ToString(), DataTypeName(parents->dtype())));
    const int64_t steps = ids->dims()[0], batch = ids->dims()[1], beams = ids->dims()[2];
    DenseTensor out(ids->dims(), ids->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* id = ids->data<T>();
    const T* parent = parents->data<T>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t k = 0; k < beams; ++k) {
        int64_t beam = k;
        for (int64_t t = steps - 1; t >= 0; --t) {
          const int64_t at = (t * batch + b) * beams;
          o[at + k] = id[at + beam];
          // Checked as T first: a NaN or huge parent never reaches the conversion.
          const T p = parent[at + beam];
          const bool valid = p >= T(0) && p < static_cast<T>(beams);
          const int64_t from = valid ? static_cast<int64_t>(p) : -1;
          PL_ENFORCE(
              t == 0 || valid,
              errors::InvalidArgument("op `%s` input `Parents`: value %g at [%lld, "
                                      "%lld, %lld] is not a beam in [0, %lld)",
                                      kOp, static_cast<double>(p), static_cast<long long>(t),
                                      static_cast<long long>(b), static_cast<long long>(beam),
                                      static_cast<long long>(beams)));
          beam = from;
        }
      }
    }
    *ctx.Output("Out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterGatherTreeOp) {
  framework::RegisterOp<GatherTreeOp, GatherTreeOpMaker>(kOp)
      .InferShape(GatherTreeInferShape)
      .InferVarType(OutputDataTypeOf("Ids", "Out"));
  // Token ids; float and double too, as every op has them (ids held in floats).
  RegisterPlainCpuNumericKernels<GatherTreeKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

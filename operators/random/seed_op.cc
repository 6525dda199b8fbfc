// seed: a 1-element int32 seed for the ops that take one as an input (dropout's Seed), as
// PaddlePaddle's static programs emit it. A non-zero `seed` attribute is returned as it is;
// otherwise the next seed of the default generator (reproducible with FLAGS_random_seed),
// never 0, since 0 tells those ops to draw a seed themselves.
#include <cstdint>
#include <string>

#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "platform/random.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "seed";

class SeedOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddOutput("Out", "int32 of shape [1]: the seed.");
    AddAttr<int>("seed", "The seed to return; 0 draws one from the default generator.")
        .SetDefault(0);
    AddAttr<bool>("deterministic",
                  "Draw from the default generator even when `seed` is set (PaddlePaddle's "
                  "named generators for pipeline programs; here the default one).")
        .SetDefault(false)
        .AsExtra();
    AddAttr<std::string>("rng_name", "Name of the generator (read as the default one).")
        .SetDefault("")
        .AsExtra();
    AddAttr<bool>("force_cpu", "Keep Out in host memory.").SetDefault(false);
    AddComment(R"DOC(
seed: $$Out = [seed]$$ when seed is non-zero and deterministic is off, else
$$Out = [s], \; s \ne 0$$ drawn from the default generator (FLAGS_random_seed makes it
reproducible). No gradient.
)DOC");
  }
};

class SeedOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  // Seed reads no tensor: its kernels, which all write int32, are keyed as float ones.
  DataType IndicateDataType(const framework::RuntimeContext&) const override {
    return DataType::FLOAT32;
  }
};

void SeedInferShape(InferShapeContext* ctx) {
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", DDim({1}));
}

void SeedInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", DataType::INT32);
}

template <typename T>
struct SeedKernel {
  static void Compute(const ExecutionContext& ctx) {
    const int given = ctx.Attr<bool>("deterministic") ? 0 : ctx.Attr<int>("seed");
    int32_t seed = given;
    while (seed == 0) seed = static_cast<int32_t>(platform::NextDefaultSeed());
    DenseTensor out(DDim({1}), DataType::INT32);
    out.mutable_data<int32_t>(platform::CPUPlace())[0] = seed;
    *ctx.Output("Out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterSeedOp) {
  framework::RegisterOp<SeedOp, SeedOpMaker>(kOp)
      .InferShape(SeedInferShape)
      .InferVarType(SeedInferVarType)
      .GradOpMaker(framework::NoGradient)
      .Checkpoint("add the attribute force_cpu",
                  framework::OpVersionDesc().NewAttr("force_cpu", "keep Out on the host", false));
  RegisterPlainCpuFloatKernels<SeedKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

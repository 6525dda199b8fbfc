// Comparison ops (less_than, less_equal, greater_than, greater_equal, equal, not_equal) and
// logical ops (logical_and, logical_or, logical_xor, logical_not): bool outputs, with the
// broadcasting of the elementwise ops. Neither kind has a gradient.
#include "operators/elementwise/compare_logical_op.h"

#include <iterator>
#include <string>
#include <utility>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/elementwise/broadcast_binary.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

struct CompareDecl {
  const char* type;
  const char* formula;
};

constexpr CompareDecl kCompares[] = {
    {"less_than", "Out = X < Y"},      {"less_equal", "Out = X \\le Y"},
    {"greater_than", "Out = X > Y"},   {"greater_equal", "Out = X \\ge Y"},
    {"equal", "Out = (X = Y)"},        {"not_equal", "Out = (X \\ne Y)"},
};

// The maker of kCompares[I].
template <size_t I>
class CompareOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    constexpr CompareDecl decl_ = kCompares[I];
    AddInput("X", "The first operand.");
    AddInput("Y", "The second operand, same dtype as X.");
    AddOutput("Out", "bool tensor of the broadcast shape.");
    AddAttr<int>("axis",
                 "Dim of the higher-rank input where the lower-rank input starts; -1 aligns "
                 "the trailing dims.")
        .SetDefault(-1);
    AddAttr<bool>("force_cpu",
                  "Accepted from PaddlePaddle programs and ignored: Out is written where the "
                  "kernel runs.")
        .SetDefault(false);
    AddComment(std::string("Comparison operator `") + decl_.type + "`, elementwise with the "
               "broadcasting of the elementwise ops (see elementwise_add):\n\n$$" +
               decl_.formula +
               "$$\n\nX and Y have one dtype (float, double, int32, int64 or bool); Out is bool. "
               "A NaN compares unequal to everything. No gradient.\n");
  }
};

struct LogicalDecl {
  const char* type;
  const char* formula;
};

constexpr LogicalDecl kLogicals[] = {
    {"logical_and", "Out = X \\land Y"},
    {"logical_or", "Out = X \\lor Y"},
    {"logical_xor", "Out = X \\oplus Y"},
};

// The maker of kLogicals[I].
template <size_t I>
class LogicalBinaryOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    constexpr LogicalDecl decl_ = kLogicals[I];
    AddInput("X", "The first operand (any value other than 0 is true).");
    AddInput("Y", "The second operand, same dtype as X.");
    AddOutput("Out", "bool tensor of the broadcast shape.");
    AddComment(std::string("Logical operator `") + decl_.type +
               "`, elementwise with NumPy broadcasting (trailing dims aligned):\n\n$$" +
               decl_.formula + "$$\n\nOut is bool. No gradient.\n");
  }
};

class LogicalNotOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input tensor (any value other than 0 is true).");
    AddOutput("Out", "bool tensor of X's shape.");
    AddComment(R"DOC(
Logical operator `logical_not`, elementwise:

$$Out = \lnot X$$

Out is bool. No gradient.
)DOC");
  }
};

// The kernel follows X's dtype; Y must match (nothing is cast).
class BoolResultOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void CompareInferShape(InferShapeContext* ctx) {
  BroadcastBinaryInferShape(ctx, ctx->Attr<int>("axis"));
}

void LogicalBinaryInferShape(InferShapeContext* ctx) { BroadcastBinaryInferShape(ctx, -1); }

void BoolOutVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("Out", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", DataType::BOOL);
}

template <typename T>
struct CompareKernel {
  static void Compute(const ExecutionContext& ctx) {
    const int axis = ctx.Attr<int>("axis");
    VisitCompare<T>(ctx.Type(), [&](auto f) { ComputeBroadcastBinary<T, bool>(ctx, axis, f); });
  }
};

template <typename T>
struct LogicalBinaryKernel {
  static void Compute(const ExecutionContext& ctx) {
    VisitLogicalBinary<T>(ctx.Type(), [&](auto f) { ComputeBroadcastBinary<T, bool>(ctx, -1, f); });
  }
};

template <typename T>
struct LogicalNotKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor x = *ctx.Input("X");
    DenseTensor* out = ctx.Output("Out");
    bool* o = out->mutable_data<bool>(ctx.GetPlace());
    if (x.numel() == 0) return;
    const T* in = x.data<T>();
    const LogicalNotFunctor<T> f;
    for (int64_t i = 0; i < x.numel(); ++i) o[i] = f(in[i]);
  }
};

void LogicalNotInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
  ctx->ShareLoD("X", "Out");
}

template <size_t... I>
void RegisterCompares(std::index_sequence<I...>) {
  ((framework::RegisterOp<BoolResultOp, CompareOpMaker<I>>(kCompares[I].type)
        .InferShape(CompareInferShape)
        .InferVarType(BoolOutVarType)
        .Checkpoint("compare ops with force_cpu",
                    framework::OpVersionDesc().NewAttr("force_cpu", "keep Out on the CPU", false)),
    RegisterPlainCpuKernels<CompareKernel, float, double, int32_t, int64_t, bool, uint8_t, int8_t,
                            int16_t>(kCompares[I].type)),
   ...);
}

template <size_t... I>
void RegisterLogicalBinaries(std::index_sequence<I...>) {
  ((framework::RegisterOp<BoolResultOp, LogicalBinaryOpMaker<I>>(kLogicals[I].type)
        .InferShape(LogicalBinaryInferShape)
        .InferVarType(BoolOutVarType),
    RegisterPlainCpuKernels<LogicalBinaryKernel, bool, float, double, int32_t, int64_t, uint8_t,
                            int8_t, int16_t>(kLogicals[I].type)),
   ...);
}

}  // namespace

PL_REGISTER_OPS(RegisterCompareLogicalOps) {
  RegisterCompares(std::make_index_sequence<std::size(kCompares)>());
  RegisterLogicalBinaries(std::make_index_sequence<std::size(kLogicals)>());
  framework::RegisterOp<BoolResultOp, LogicalNotOpMaker>("logical_not")
      .InferShape(LogicalNotInferShape)
      .InferVarType(BoolOutVarType);
  RegisterPlainCpuKernels<LogicalNotKernel, bool, float, double, int32_t, int64_t, uint8_t, int8_t,
                          int16_t>("logical_not");
}

}  // namespace operators
}  // namespace paddle_like

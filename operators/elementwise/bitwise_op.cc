// Bitwise ops (bitwise_and, bitwise_or, bitwise_xor with the broadcasting of the elementwise
// ops; bitwise_not; bitwise_left_shift and bitwise_right_shift) on bool and integer tensors,
// as PaddlePaddle's. Bits have no meaning on floats, so these are the ops without float
// kernels. No gradient.
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/elementwise/broadcast_binary.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

struct BitwiseDecl {
  const char* type;
  const char* formula;
};

constexpr BitwiseDecl kBitwise[] = {
    {"bitwise_and", "Out = X \\mathbin{\\&} Y"},
    {"bitwise_or", "Out = X \\mathbin{|} Y"},
    {"bitwise_xor", "Out = X \\oplus Y"},
};

template <size_t I>
class BitwiseBinaryOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    constexpr BitwiseDecl decl_ = kBitwise[I];
    AddInput("X", "The first operand: bool, uint8, int8, int16, int32 or int64.");
    AddInput("Y", "The second operand, same dtype as X.");
    AddOutput("Out", "X's dtype, of the broadcast shape.");
    AddComment(std::string("Bitwise operator `") + decl_.type +
               "`, on the two's-complement bits (logical for bool), elementwise with NumPy "
               "broadcasting (trailing dims aligned):\n\n$$" +
               decl_.formula + "$$\n\nNo gradient.\n");
  }
};

class BitwiseNotOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "bool, uint8, int8, int16, int32 or int64 tensor.");
    AddOutput("Out", "X's dtype and shape.");
    AddComment(R"DOC(
Bitwise operator `bitwise_not`, elementwise on the two's-complement bits (logical for bool):

$$Out = \lnot X \quad (\text{for integers } {-X - 1})$$

No gradient.
)DOC");
  }
};

// The kernel follows X's dtype; Y must match (nothing is cast).
class BitwiseOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

template <typename T, typename Run>
void VisitBitwise(const std::string& type, const Run& run) {
  if constexpr (std::is_same_v<T, bool>) {
    if (type == "bitwise_and") {
      run([](bool x, bool y) { return x && y; });
    } else if (type == "bitwise_or") {
      run([](bool x, bool y) { return x || y; });
    } else {
      run([](bool x, bool y) { return x != y; });
    }
  } else if (type == "bitwise_and") {
    run([](T x, T y) { return static_cast<T>(x & y); });
  } else if (type == "bitwise_or") {
    run([](T x, T y) { return static_cast<T>(x | y); });
  } else {
    run([](T x, T y) { return static_cast<T>(x ^ y); });
  }
}

template <typename T>
struct BitwiseBinaryKernel {
  static void Compute(const ExecutionContext& ctx) {
    VisitBitwise<T>(ctx.Type(), [&](auto f) { ComputeBroadcastBinary<T, T>(ctx, -1, f); });
  }
};

template <typename T>
struct BitwiseNotKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    DenseTensor fresh(x->dims(), x->dtype());
    T* o = fresh.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (int64_t i = 0; i < x->numel(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        o[i] = !in[i];
      } else {
        o[i] = static_cast<T>(~in[i]);
      }
    }
    *ctx.Output("Out") = std::move(fresh);
  }
};

class BitwiseShiftOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("x", "The values shifted: uint8, int8, int16, int32 or int64.");
    AddInput("y", "The shift counts, x's dtype; broadcast against x.");
    AddOutput("out", "x's dtype, of the broadcast shape.");
    AddAttr<bool>("is_arithmetic",
                  "Right shift: copy the sign bit in (true) or shift zeros in (false). A left "
                  "shift is the same either way.")
        .SetDefault(true);
    AddComment(R"DOC(
Bit shift operators `bitwise_left_shift` and `bitwise_right_shift`, elementwise with NumPy
broadcasting, on the B-bit two's-complement representation of x (B = 8 * sizeof(dtype)):

$$out = egin{cases} x \ll y \;/\; x \gg y & 0 \le y < B \
	ext{(every bit shifted out)} & 	ext{otherwise} \end{cases}$$

A left shift drops the bits above B. A right shift with is_arithmetic fills with the sign bit
(so a count outside [0, B) gives -1 for negative x and 0 otherwise); a logical right shift
fills with zeros (a count outside [0, B) gives 0). Example, int8: x = -16, y = 2 -> left -64,
arithmetic right -4, logical right 60. No gradient.
)DOC");
  }
};

// One shift of x by y; Left picks the direction.
template <typename T, bool kLeft>
T Shift(T x, T y, bool arithmetic) {
  using U = std::make_unsigned_t<T>;
  constexpr int kBits = 8 * static_cast<int>(sizeof(T));
  const bool in_range = y >= T(0) && static_cast<int64_t>(y) < kBits;
  if constexpr (kLeft) {
    return in_range ? static_cast<T>(static_cast<U>(static_cast<U>(x) << y)) : T(0);
  } else {
    if (arithmetic && std::is_signed_v<T>) {
      if (in_range) return static_cast<T>(x >> y);
      return x < T(0) ? static_cast<T>(-1) : T(0);
    }
    return in_range ? static_cast<T>(static_cast<U>(x) >> y) : T(0);
  }
}

template <typename T>
struct BitwiseShiftKernel {
  static void Compute(const ExecutionContext& ctx) {
    const bool arithmetic = ctx.Attr<bool>("is_arithmetic");
    const BinarySlots slots{"x", "y", "out"};
    const auto none = [](const T*, int64_t) {};
    if (ctx.Type() == "bitwise_left_shift") {
      ComputeBroadcastBinary<T, T>(
          ctx, -1, [](T x, T y) { return Shift<T, true>(x, y, false); }, none, slots);
    } else {
      ComputeBroadcastBinary<T, T>(
          ctx, -1, [arithmetic](T x, T y) { return Shift<T, false>(x, y, arithmetic); }, none,
          slots);
    }
  }
};

void BitwiseShiftInferShape(InferShapeContext* ctx) {
  BroadcastBinaryInferShape(ctx, -1, BinarySlots{"x", "y", "out"});
}

// The kernel follows x's dtype; y must match (nothing is cast).
class BitwiseShiftOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "x");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

void BitwiseBinaryInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Y");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", math::ComputeBroadcastDims(ctx->OpType(), ctx->GetInputDim("X"),
                                                      ctx->GetInputDim("Y"), -1)
                               .out);
  ctx->ShareLoD("X", "Out");
}

void BitwiseNotInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
  ctx->ShareLoD("X", "Out");
}

template <template <typename> class Kernel>
void RegisterBitwiseKernels(const char* op) {
  RegisterPlainCpuKernels<Kernel, bool, uint8_t, int8_t, int16_t, int32_t, int64_t>(op);
}

template <size_t... I>
void RegisterBitwiseBinaries(std::index_sequence<I...>) {
  ((framework::RegisterOp<BitwiseOp, BitwiseBinaryOpMaker<I>>(kBitwise[I].type)
        .InferShape(BitwiseBinaryInferShape)
        .InferVarType(OutputDataTypeOf("X", "Out")),
    RegisterBitwiseKernels<BitwiseBinaryKernel>(kBitwise[I].type)),
   ...);
}

}  // namespace

PL_REGISTER_OPS(RegisterBitwiseOps) {
  RegisterBitwiseBinaries(std::make_index_sequence<std::size(kBitwise)>());
  framework::RegisterOp<BitwiseOp, BitwiseNotOpMaker>("bitwise_not")
      .InferShape(BitwiseNotInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"));
  RegisterBitwiseKernels<BitwiseNotKernel>("bitwise_not");
  for (const char* shift : {"bitwise_left_shift", "bitwise_right_shift"}) {
    framework::RegisterOp<BitwiseShiftOp, BitwiseShiftOpMaker>(shift)
        .InferShape(BitwiseShiftInferShape)
        .InferVarType(OutputDataTypeOf("x", "out"));
    RegisterPlainCpuKernels<BitwiseShiftKernel, uint8_t, int8_t, int16_t, int32_t, int64_t>(shift);
  }
}

}  // namespace operators
}  // namespace paddle_like

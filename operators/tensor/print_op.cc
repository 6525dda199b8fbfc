// print: Out = In, and In described on standard output (name, LoD, place, shape, layout,
// dtype and the first values), as paddle.static.Print does, in the forward pass, the
// backward one (the gradient flowing back through it) or both.
#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <type_traits>

#include "framework/grad_op_maker.h"
#include "framework/op_kernel.h"
#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "print";

class PrintOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("In", "The tensor to print (any dtype).");
    AddOutput("Out", "A copy of In.");
    AddAttr<int>("first_n", "Print only the first first_n times the op runs (<= 0: always).");
    AddAttr<std::string>("message", "Printed before the tensor.");
    AddAttr<int>("summarize", "Values printed (< 0: all).");
    AddAttr<bool>("print_tensor_name", "Print the variable's name.").SetDefault(true);
    AddAttr<bool>("print_tensor_type", "Print the dtype.").SetDefault(true);
    AddAttr<bool>("print_tensor_shape", "Print the shape.").SetDefault(true);
    AddAttr<bool>("print_tensor_layout", "Print the layout.").SetDefault(true);
    AddAttr<bool>("print_tensor_lod", "Print the LoD.").SetDefault(true);
    AddAttr<std::string>("print_phase", "FORWARD, BACKWARD or BOTH: when to print.")
        .SetDefault("BOTH")
        .InEnum({"FORWARD", "BACKWARD", "BOTH"});
    AddAttr<bool>("is_forward", "This op prints the forward value (else a gradient).")
        .SetDefault(true);
    AddComment(R"DOC(
Print operator.
$$Out = In$$
and, when the phase matches (print_phase FORWARD or BOTH for the forward op, BACKWARD or BOTH
for the op of its backward, which prints the gradient) and fewer than first_n prints have
been made by this op (first_n <= 0: no limit), the tensor is described on standard output.
Gradient: $$dIn = \mathrm{print}(dOut)$$ with is_forward false (a print op again).
)DOC");
  }
};

class PrintOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "In");
  }
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

std::string Describe(const ExecutionContext& ctx, const DenseTensor& t) {
  std::ostringstream s;
  const std::string& message = ctx.Attr<std::string>("message");
  if (!message.empty()) s << message << "\t";
  if (ctx.Attr<bool>("print_tensor_name")) s << "Variable: " << ctx.InputName("In") << "\n";
  if (ctx.Attr<bool>("print_tensor_lod")) {
    s << "  - lod: {";
    for (const auto& level : t.lod()) {
      s << "{";
      for (size_t i = 0; i < level.size(); ++i) s << (i ? ", " : "") << level[i];
      s << "}";
    }
    s << "}\n";
  }
  s << "  - place: " << t.place().ToString() << "\n";
  if (ctx.Attr<bool>("print_tensor_shape")) s << "  - shape: " << t.dims().ToString() << "\n";
  if (ctx.Attr<bool>("print_tensor_layout")) s << "  - layout: NCHW\n";
  if (ctx.Attr<bool>("print_tensor_type")) s << "  - dtype: " << DataTypeName(t.dtype()) << "\n";
  const int summarize = ctx.Attr<int>("summarize");
  const int64_t shown = summarize < 0 ? t.numel() : std::min<int64_t>(summarize, t.numel());
  s << "  - data: [";
  platform::VisitDataType(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* v = shown > 0 ? t.data<T>() : nullptr;
    for (int64_t i = 0; i < shown; ++i) {
      s << (i ? " " : "");
      if constexpr (std::is_integral_v<T>) {
        s << static_cast<long long>(v[i]);
      } else if constexpr (std::is_floating_point_v<T>) {
        s << v[i];
      } else {
        s << static_cast<float>(v[i]);  // float16, bfloat16.
      }
    }
  });
  s << (shown < t.numel() ? " ...]" : "]") << "\n";
  return s.str();
}

// The count of prints made is the only state, kept per prepared op.
class PrintKernel : public framework::OpKernel {
 public:
  void Compute(const ExecutionContext& ctx) override {
    const DenseTensor* in = ctx.Input("In");
    const std::string& phase = ctx.Attr<std::string>("print_phase");
    const bool forward = ctx.Attr<bool>("is_forward");
    const int first_n = ctx.Attr<int>("first_n");
    if ((forward ? phase != "BACKWARD" : phase != "FORWARD") &&
        (first_n <= 0 || printed_ < first_n)) {
      ++printed_;
      const DenseTensor plain = framework::PlainTensor(*in);
      std::cout << Describe(ctx, plain) << std::flush;
    }
    DenseTensor* out = ctx.Output("Out");
    if (out != in) framework::CopyTensor(*in, ctx.GetPlace(), out);
  }

 private:
  int64_t printed_ = 0;
};

// dIn = print(dOut), printed in the backward phase.
void PrintGradMaker(framework::GradOpBuilder* g) {
  framework::AttributeMap attrs = g->Attrs();
  attrs["is_forward"] = false;
  g->AddOp(kOp, {{"In", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("In")}}, attrs);
}

}  // namespace

PL_REGISTER_OPS(RegisterPrintOp) {
  framework::RegisterOp<PrintOp, PrintOpMaker>(kOp)
      .InferShape([](InferShapeContext* ctx) {
        ctx->RequireInput("In");
        ctx->RequireOutput("Out");
        ctx->SetOutputDim("Out", ctx->GetInputDim("In"));
        ctx->ShareLoD("In", "Out");
      })
      .InferVarType(OutputDataTypeOf("In", "Out"))
      .GradOpMaker(PrintGradMaker)
      .Checkpoint(
          "add attribute print_tensor_layout",
          framework::OpVersionDesc().NewAttr("print_tensor_layout", "print the layout", true));
  for (const DataType dtype : {DataType::FLOAT32, DataType::FLOAT64, DataType::INT32,
                               DataType::INT64, DataType::BOOL, DataType::INT8, DataType::UINT8}) {
    framework::RegisterKernelClass<PrintKernel>(kOp, DeviceType::kCPU, dtype, LibraryType::kPlain);
  }
}

}  // namespace operators
}  // namespace paddle_like

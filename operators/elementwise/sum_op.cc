// sum: adds a list of same-shaped tensors or SelectedRows; the backward pass uses it to add
// the gradients that several ops produce for one variable (sparse embedding gradients
// included).
#include "framework/grad_op_maker.h"
#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/math/selected_rows_functor.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::SelectedRows;
using framework::VarKind;

class SumOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X",
             "The tensors to add, all of one shape and dtype; SelectedRows count as the dense "
             "tensor they stand for ([height] + the dims of one value row).")
        .AsDuplicable();
    AddOutput("Out",
              "Their sum: a SelectedRows when every input is one, else a dense tensor of the "
              "inputs' shape.");
    AddAttr<bool>("use_mkldnn", "Runtime hint, ignored.").SetDefault(false).AsExtra();
    AddComment(R"DOC(
Sum operator.

$$Out = \sum_{i} X_i$$

Dense inputs are added in the order of the X list, so the result is reproducible.

SelectedRows inputs (sparse gradients), as in PaddlePaddle:
- every input a SelectedRows: Out is a SelectedRows holding the rows of all inputs in input
  order (repeats kept, nothing merged) and their value rows stacked. The inputs must share
  height, row shape and dtype. Optimizers merge repeated rows when they apply it.
- dense and SelectedRows mixed: Out is dense; the dense inputs are added in order, then the
  value rows of each SelectedRows, in order, are added into the rows they name.
Var-type inference declares Out a SelectedRows exactly when every input is one; at run time
the kind of the Out variable (created from that declaration) decides, so an undeclared Out
receives the dense sum.

Gradient (each wanted input gets its own copy, so the backward pass is differentiable again):
$$dX_i = \mathrm{assign}(dOut)$$
)DOC");
  }
};

class SumOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  // Every input must already have the kernel's dtype: a silent cast would hide a bug in
  // the program.
  bool CastsInput(const std::string&, DataType, DataType) const override { return false; }
};

// "shape [2, 3]" or "a SelectedRows of height 2 and rows of shape [3]", for messages.
std::string DescribeInput(const InferShapeContext& ctx, const DDim& dims, size_t i) {
  if (ctx.GetInputVarKind("X", i) != VarKind::kSelectedRows || dims.size() == 0) {
    return "shape " + dims.ToString();
  }
  const std::vector<int64_t> d = dims.ToVector();
  return "a SelectedRows of height " + std::to_string(d[0]) + " and rows of shape " +
         DDim(std::vector<int64_t>(d.begin() + 1, d.end())).ToString();
}

void SumInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  // A SelectedRows takes part with its complete dims [height] + row dims.
  const auto dims = ctx->GetInputsDim("X");
  bool any_sparse = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    any_sparse |= ctx->GetInputVarKind("X", i) == VarKind::kSelectedRows;
  }
  for (size_t i = 1; i < dims.size(); ++i) {
    bool same = dims[i].size() == dims[0].size();
    for (int d = 0; same && d < dims[0].size(); ++d) {
      // Unknown build-time dims (-1) match anything.
      same = dims[i][d] == dims[0][d] || dims[i][d] < 0 || dims[0][d] < 0;
    }
    if (!any_sparse) {
      PL_ENFORCE(same, errors::InvalidArgument(
                           "op `%s` input `X`: expected every tensor to have shape %s, received "
                           "%s for tensor #%zu",
                           ctx->OpType(), dims[0].ToString(), dims[i].ToString(), i));
    }
    PL_ENFORCE(same, errors::InvalidArgument(
                         "op `%s` input `X`: expected input #%zu to match input #0 (%s), "
                         "received %s",
                         ctx->OpType(), i, DescribeInput(*ctx, dims[0], 0).c_str(),
                         DescribeInput(*ctx, dims[i], i).c_str()));
  }
  // A SelectedRows Out gets the height; a dense one the full shape.
  ctx->SetOutputDim("Out", dims[0]);
  ctx->ShareLoD("X", "Out");
}

void SumInferVarType(framework::VarTypeInferenceContext* ctx) {
  bool all_sparse = true;
  for (size_t i = 0; i < ctx->InputSize("X"); ++i) {
    all_sparse &= ctx->GetInputKind("X", i) == VarKind::kSelectedRows;
  }
  ctx->SetOutputKind("Out", all_sparse ? VarKind::kSelectedRows : VarKind::kDenseTensor);
  ctx->SetOutputDataType("Out", ctx->GetInputDataType("X"));
}

void CheckDtype(const ExecutionContext& ctx, size_t i, DataType found, DataType want) {
  PL_ENFORCE(found == want,
             errors::InvalidArgument("op `sum` input `X` (variable `%s`): expected dtype %s, "
                                     "received %s",
                                     ctx.InputName("X", i), platform::DataTypeName(want),
                                     platform::DataTypeName(found)));
}

// The SelectedRows input #i, checked to hold float32/float64 values of dtype `want`.
const SelectedRows& SparseInput(const ExecutionContext& ctx, size_t i, DataType want) {
  const SelectedRows& s = ctx.InputVar("X", i)->Get<SelectedRows>();
  PL_ENFORCE(s.value().initialized(),
             errors::PreconditionNotMet("op `sum` input `X` (variable `%s`): the SelectedRows "
                                        "holds no value",
                                        ctx.InputName("X", i)));
  PL_ENFORCE(platform::IsFloatingPoint(want) && want != DataType::FLOAT16 &&
                 want != DataType::BFLOAT16,
             errors::Unimplemented("op `sum` input `X` (variable `%s`): SelectedRows of %s values "
                                   "are not supported (float32 or float64 only)",
                                   ctx.InputName("X", i), platform::DataTypeName(want)));
  CheckDtype(ctx, i, s.value().dtype(), want);
  return s;
}

// Every input a SelectedRows: Out = their rows and values, concatenated in input order.
void SumToSelectedRows(const ExecutionContext& ctx, DataType dtype) {
  std::vector<const SelectedRows*> ins;
  for (size_t i = 0; i < ctx.InputSize("X"); ++i) {
    const framework::Variable* var = ctx.InputVar("X", i);
    PL_ENFORCE(var->IsType<SelectedRows>(),
               errors::InvalidArgument("op `sum` input `X` (variable `%s`): expected a "
                                       "SelectedRows like output `Out` (variable `%s`), found %s",
                                       ctx.InputName("X", i), ctx.OutputName("Out"),
                                       framework::HeldTypeName(*var)));
    ins.push_back(&SparseInput(ctx, i, dtype));
  }
  SelectedRows result;  // Out may be one of the inputs.
  math::ConcatSelectedRows(ins, &result);
  *ctx.OutputVar("Out")->GetMutable<SelectedRows>() = std::move(result);
}

template <typename T>
struct SumKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DataType dtype = platform::ToDataType<T>();
    if (ctx.OutputVar("Out")->IsType<SelectedRows>()) {
      SumToSelectedRows(ctx, dtype);
      return;
    }
    std::vector<const T*> srcs;
    std::vector<const SelectedRows*> sparse;
    for (size_t i = 0; i < ctx.InputSize("X"); ++i) {
      if (ctx.InputVar("X", i)->IsType<SelectedRows>()) {
        sparse.push_back(&SparseInput(ctx, i, dtype));
        continue;
      }
      const DenseTensor* t = ctx.Input("X", i);
      CheckDtype(ctx, i, t->dtype(), dtype);
      srcs.push_back(t->data<T>());
    }
    // Read every input before allocating Out: Out may be one of them.
    DenseTensor* out = ctx.Output("Out");
    const int64_t n = out->numel();
    T* o = out->mutable_data<T>(ctx.GetPlace());
    ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
        n, 1 << 14, [&srcs, o](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            T acc = srcs.empty() ? T(0) : srcs[0][i];
            for (size_t k = 1; k < srcs.size(); ++k) acc += srcs[k][i];
            o[i] = acc;
          }
        });
    for (const SelectedRows* s : sparse) math::AddSelectedRowsToDense(*s, out);
  }
};

// dX_i = assign(dOut) for every input whose gradient is wanted.
void SumGradMaker(framework::GradOpBuilder* g) {
  const std::vector<std::string> grads = g->InputGrad("X");
  bool any = false;
  for (const auto& gi : grads) any |= gi != framework::kEmptyVarName;
  if (!any) return;
  const std::vector<std::string> dout = g->OutputGrad("Out");
  for (const auto& gi : grads) {
    if (gi == framework::kEmptyVarName) continue;
    g->AddOp("assign", {{"X", dout}}, {{"Out", {gi}}});
  }
}

}  // namespace

PL_REGISTER_OPS(RegisterSumOp) {
  framework::RegisterOp<SumOp, SumOpMaker>("sum")
      .InferShape(SumInferShape)
      .InferVarType(SumInferVarType)
      .GradOpMaker(SumGradMaker);
  RegisterPlainCpuKernels<SumKernel, float, double, int32_t, int64_t, std::complex<float>,
                          std::complex<double>>("sum");
  DeclarePlainInPlace("sum", {{"X", "Out"}});
}

}  // namespace operators
}  // namespace paddle_like

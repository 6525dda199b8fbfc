// take_along_axis: Input's elements picked along one axis by Index (paddle.take_along_axis);
// put_along_axis: Value written (or reduced) into a copy of Input along one axis at Index
// (paddle.put_along_axis). Index has Input's rank; at every other axis its coordinates
// address Input directly. The gradients of take_along_axis and of put_along_axis with
// Reduce assign or add are written with these two ops and fill_any_like, so every order is
// differentiable.
#include <algorithm>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kTake[] = "take_along_axis";
constexpr char kPut[] = "put_along_axis";

class TakeAlongAxisOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "The tensor read, rank R.");
    AddInput("Index", "int32 or int64, rank R: positions along Axis, in [-n, n) for Input's "
                      "dim n there; each other dim at most Input's.");
    AddOutput("Result", "Index's shape, Input's dtype.");
    AddAttr<int>("Axis", "The axis indexed; negative counts from the end.").SetDefault(0);
    AddComment(R"DOC(
Take-along-axis operator. For every position p of Index, with p_a replaced by Index[p] at the
axis a:
$$Result[p] = Input[p_0, \ldots, Index[p], \ldots, p_{R-1}]$$
Gradient, written with differentiable ops:
$$dInput = \mathrm{put\_along\_axis}(0, Index, dResult, \text{add})$$
)DOC");
  }
};

class PutAlongAxisOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Input", "The tensor written into, rank R.");
    AddInput("Index", "int32 or int64, rank R: positions along Axis, in [-n, n) for Input's "
                      "dim n there; each other dim at most Input's.");
    AddInput("Value", "The values written: Index's shape, or one element for all.");
    AddOutput("Result", "Input with the values written, Input's shape.");
    AddAttr<int>("Axis", "The axis indexed; negative counts from the end.").SetDefault(0);
    AddAttr<std::string>("Reduce",
                         "How a value meets its target: assign (the last of repeated "
                         "positions wins), add, mul (or multiply), mean, amin or amax.")
        .SetDefault("assign")
        .InEnum({"assign", "add", "mul", "multiply", "mean", "amin", "amax"});
    AddAttr<bool>("Include_self",
                  "Whether Input's own element takes part in the reduction at a position "
                  "written (ignored by assign).")
        .SetDefault(true);
    AddComment(R"DOC(
Put-along-axis operator. Result = Input; then each target t = (p_0, ..., Index[p], ...,
p_{R-1}) of a position p of Index receives the values V_t = {Value[p] : p targets t}:
$$Result[t] = \mathrm{reduce}(\{Input[t]\} \cup V_t) \text{ (Include\_self)}, \quad
\mathrm{reduce}(V_t) \text{ (otherwise)}$$
with reduce the sum (add), product (mul), mean, minimum (amin) or maximum (amax); assign
writes the last of V_t. Gradients (assign and add), written with differentiable ops:
$$dValue = \mathrm{take\_along\_axis}(dResult, Index), \quad
dInput = dResult \text{ (add, Include\_self)}, \quad
\mathrm{put\_along\_axis}(dResult, Index, 0, \text{assign}) \text{ (otherwise)}$$
)DOC");
  }
};

// The kernel follows Input, not the integer indices.
class AlongAxisOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "Input");
  }
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot != "Index" && OperatorWithKernel::CastsInput(slot, from, to);
  }
};

// The axis, after checking that Index fits Input (unknown dims pass).
int CheckAlongAxis(const std::string& op, const DDim& input, const DDim& index, int axis) {
  PL_ENFORCE(index.size() == input.size(),
             errors::InvalidArgument("op `%s` input `Index`: expected the rank of Input %s, "
                                     "received shape %s",
                                     op, input.ToString(), index.ToString()));
  const int a = NormalizeAxis(op, "attribute `Axis`", axis, input.size());
  for (int d = 0; d < input.size(); ++d) {
    PL_ENFORCE(d == a || index[d] < 0 || input[d] < 0 || index[d] <= input[d],
               errors::InvalidArgument("op `%s` input `Index`: dim %d is %lld, expected at most "
                                       "Input's %lld (Input %s, Index %s, Axis %d)",
                                       op, d, static_cast<long long>(index[d]),
                                       static_cast<long long>(input[d]), input.ToString(),
                                       index.ToString(), axis));
  }
  return a;
}

// Calls fn(position in Index, offset in Input) for every position of Index in order, with
// each index checked and a negative one counted from the end.
template <typename Fn>
void ForEachTarget(const std::string& op, const DDim& input, const DenseTensor& index, int axis,
                   Fn&& fn) {
  const std::vector<int64_t> ids = ReadIntValues(index, op, "Index");
  const DDim id = index.dims();
  const int rank = input.size();
  std::vector<int64_t> stride(static_cast<size_t>(rank), 1), at(static_cast<size_t>(rank), 0);
  for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * input[d + 1];
  const int64_t n = input[axis];
  int64_t base = 0;  // Offset of `at` in Input, without the axis.
  for (int64_t p = 0; p < static_cast<int64_t>(ids.size()); ++p) {
    int64_t i = ids[p];
    PL_ENFORCE(i >= -n && i < n,
               errors::InvalidArgument("op `%s` input `Index`: element %lld is %lld, expected a "
                                       "value in [%lld, %lld) (Input's dim %d)",
                                       op, static_cast<long long>(p), static_cast<long long>(i),
                                       static_cast<long long>(-n), static_cast<long long>(n),
                                       axis));
    if (i < 0) i += n;
    fn(p, base + i * stride[axis]);
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t step = d == axis ? 0 : stride[d];
      base += step;
      if (++at[d] < id[d]) break;
      base -= step * id[d];
      at[d] = 0;
    }
  }
}

void TakeAlongAxisInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Input");
  ctx->RequireInput("Index");
  ctx->RequireOutput("Result");
  const DDim index = ctx->GetInputDim("Index");
  CheckAlongAxis(ctx->OpType(), ctx->GetInputDim("Input"), index, ctx->Attr<int>("Axis"));
  ctx->SetOutputDim("Result", index);
}

template <typename T>
struct TakeAlongAxisKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* index = ctx.Input("Index");
    const int axis = CheckAlongAxis(kTake, input->dims(), index->dims(), ctx.Attr<int>("Axis"));
    DenseTensor out(index->dims(), input->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = input->data<T>();
    ForEachTarget(kTake, input->dims(), *index, axis,
                  [&](int64_t p, int64_t offset) { o[p] = in[offset]; });
    *ctx.Output("Result") = std::move(out);
  }
};

void PutAlongAxisInferShape(InferShapeContext* ctx) {
  for (const char* slot : {"Input", "Index", "Value"}) ctx->RequireInput(slot);
  ctx->RequireOutput("Result");
  const DDim input = ctx->GetInputDim("Input");
  CheckAlongAxis(ctx->OpType(), input, ctx->GetInputDim("Index"), ctx->Attr<int>("Axis"));
  ctx->SetOutputDim("Result", input);
}

template <typename T>
struct PutAlongAxisKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* input = ctx.Input("Input");
    const DenseTensor* index = ctx.Input("Index");
    const DenseTensor* value = ctx.Input("Value");
    const int axis = CheckAlongAxis(kPut, input->dims(), index->dims(), ctx.Attr<int>("Axis"));
    PL_ENFORCE(value->numel() == 1 || value->dims() == index->dims(),
               errors::InvalidArgument("op `%s` input `Value`: expected Index's shape %s or one "
                                       "element, received shape %s",
                                       kPut, index->dims().ToString(),
                                       value->dims().ToString()));
    std::string reduce = ctx.Attr<std::string>("Reduce");
    if (reduce == "multiply") reduce = "mul";
    const bool include_self = ctx.Attr<bool>("Include_self") || reduce == "assign";
    DenseTensor out(input->dims(), input->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = input->data<T>();
    const T* v = value->data<T>();
    std::copy(in, in + input->numel(), o);
    // How many values each target has received (mean, and the first value without self).
    std::vector<int64_t> count(static_cast<size_t>(input->numel()), 0);
    ForEachTarget(kPut, input->dims(), *index, axis, [&](int64_t p, int64_t t) {
      const T val = v[value->numel() == 1 ? 0 : p];
      if (reduce == "assign" || (!include_self && count[t] == 0)) {
        o[t] = val;
      } else if (reduce == "add" || reduce == "mean") {
        o[t] += val;
      } else if (reduce == "mul") {
        o[t] *= val;
      } else if (reduce == "amin") {
        o[t] = std::min(o[t], val);
      } else {
        o[t] = std::max(o[t], val);
      }
      ++count[t];
    });
    if (reduce == "mean") {
      for (int64_t t = 0; t < input->numel(); ++t) {
        const int64_t n = count[t] + (include_self ? 1 : 0);
        if (count[t] > 0) o[t] = static_cast<T>(o[t] / static_cast<T>(n));
      }
    }
    *ctx.Output("Result") = std::move(out);
  }
};

void TakeAlongAxisGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("Input")) return;
  const std::string zeros = g->NewTemp("zero_input");
  g->AddOp("fill_any_like", {{"X", g->Input("Input")}}, {{"Out", {zeros}}},
           {{"value", 0.0f}, {"dtype", -1}});
  g->AddOp(kPut,
           {{"Input", {zeros}}, {"Index", g->Input("Index")}, {"Value", g->OutputGrad("Result")}},
           {{"Result", g->InputGrad("Input")}},
           {{"Axis", g->Attr<int>("Axis")},
            {"Reduce", std::string("add")},
            {"Include_self", true}});
}

void PutAlongAxisGradMaker(framework::GradOpBuilder* g) {
  const std::string& reduce = g->Attr<std::string>("Reduce");
  const bool wanted = g->WantsInputGrad("Input") || g->WantsInputGrad("Value");
  PL_ENFORCE(!wanted || reduce == "assign" || reduce == "add",
             errors::Unimplemented("op `%s`: the gradient of Reduce \"%s\" is not implemented "
                                   "(assign and add have one)",
                                   kPut, reduce));
  const auto dresult = g->OutputGrad("Result");
  const int axis = g->Attr<int>("Axis");
  if (g->WantsInputGrad("Value")) {
    g->AddOp(kTake, {{"Input", dresult}, {"Index", g->Input("Index")}},
             {{"Result", g->InputGrad("Value")}}, {{"Axis", axis}});
  }
  if (!g->WantsInputGrad("Input")) return;
  if (reduce == "add" && g->Attr<bool>("Include_self")) {
    g->AddOp("assign", {{"X", dresult}}, {{"Out", g->InputGrad("Input")}});
    return;
  }
  // The targets written never reach Result from Input: their gradient is zero.
  const std::string zeros = g->NewTemp("zero_value");
  g->AddOp("fill_any_like", {{"X", g->Input("Value")}}, {{"Out", {zeros}}},
           {{"value", 0.0f}, {"dtype", -1}});
  g->AddOp(kPut, {{"Input", dresult}, {"Index", g->Input("Index")}, {"Value", {zeros}}},
           {{"Result", g->InputGrad("Input")}},
           {{"Axis", axis}, {"Reduce", std::string("assign")}, {"Include_self", true}});
}

}  // namespace

PL_REGISTER_OPS(RegisterAlongAxisOps) {
  framework::RegisterOp<AlongAxisOp, TakeAlongAxisOpMaker>(kTake)
      .InferShape(TakeAlongAxisInferShape)
      .InferVarType(OutputDataTypeOf("Input", "Result"))
      .GradOpMaker(TakeAlongAxisGradMaker);
  RegisterPlainCpuKernels<TakeAlongAxisKernel, float, double, int32_t, int64_t, int16_t, uint8_t,
                          bool>(kTake);
  framework::RegisterOp<AlongAxisOp, PutAlongAxisOpMaker>(kPut)
      .InferShape(PutAlongAxisInferShape)
      .InferVarType(OutputDataTypeOf("Input", "Result"))
      .GradOpMaker(PutAlongAxisGradMaker);
  RegisterPlainCpuKernels<PutAlongAxisKernel, float, double, int32_t, int64_t, int16_t, uint8_t>(
      kPut);
}

}  // namespace operators
}  // namespace paddle_like

// roll: X with its elements shifted circularly along dims (paddle.roll); with no `axis`, along
// X flattened. Its gradient is the roll of dOut by the opposite shifts, so every order is
// differentiable.
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "roll";

class RollOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Input of any rank >= 1.");
    AddInput("ShiftsTensor", "Optional 1-D int64 shifts, used instead of `shifts`.")
        .AsDispensable();
    AddOutput("Out", "X rolled, with X's shape and dtype.");
    AddAttr<std::vector<int64_t>>("shifts",
                                  "Shift per dim of `axis` (positive towards higher indices); "
                                  "one shift when `axis` is empty.")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("axis",
                                  "The dims to roll along, negative from the end; empty rolls "
                                  "X flattened.")
        .SetDefault({});
    AddAttr<std::vector<int64_t>>("dims",
                                  "The name of `axis` in programs of op version 0; used when "
                                  "`axis` is empty and it is not.")
        .SetDefault({});
    AddComment(R"DOC(
Roll operator. Along each dim d of `axis` with its shift s_d and size n_d:

$$Out[\ldots, i_d, \ldots] = X[\ldots, (i_d - s_d) \bmod n_d, \ldots]$$

With `axis` empty, X is rolled flattened by the single shift and keeps its shape. A dim
listed twice is rolled by the sum of its shifts.

Gradient, written with the op itself: $$dX = \mathrm{roll}(dOut, -shifts)$$
)DOC");
  }
};

class RollOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

// The shift of every dim of `x` (a single entry for the flattened roll when `axis` is empty),
// checked.
std::vector<int64_t> ShiftPerDim(const std::string& op, const DDim& x,
                                 const std::vector<int64_t>& shifts,
                                 const std::vector<int64_t>& axis, bool* flat) {
  *flat = axis.empty();
  if (*flat) {
    PL_ENFORCE(shifts.size() == 1,
               errors::InvalidArgument("op `%s` attribute `shifts`: expected one shift when "
                                       "`axis` is empty, received %zu",
                                       op, shifts.size()));
    return shifts;
  }
  PL_ENFORCE(shifts.size() == axis.size(),
             errors::InvalidArgument("op `%s` attributes `shifts` and `axis`: expected as many "
                                     "shifts as axes, received %zu and %zu",
                                     op, shifts.size(), axis.size()));
  const int rank = x.size();
  std::vector<int64_t> per_dim(static_cast<size_t>(rank), 0);
  for (size_t k = 0; k < axis.size(); ++k) {
    const int64_t a = axis[k];
    PL_ENFORCE(a >= -rank && a < rank,
               errors::InvalidArgument("op `%s` attribute `axis`: expected values in [%d, %d) "
                                       "for input `X` of shape %s, received %s",
                                       op, -rank, rank, x.ToString(), std::to_string(a)));
    per_dim[a < 0 ? a + rank : a] += shifts[k];
  }
  return per_dim;
}

// The dims to roll along: `axis`, or `dims` (op version 0) when only it is given.
template <typename Context>
std::vector<int64_t> RollAxes(const Context& ctx) {
  const auto& axis = ctx.template Attr<std::vector<int64_t>>("axis");
  return axis.empty() ? ctx.template Attr<std::vector<int64_t>>("dims") : axis;
}

std::vector<int64_t> ShiftsOf(const ExecutionContext& ctx) {
  const DenseTensor* t = ctx.Input("ShiftsTensor");
  if (t == nullptr) return ctx.Attr<std::vector<int64_t>>("shifts");
  return ReadIntValues(*t, kOp, "ShiftsTensor");
}

void RollInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  if (!ctx->HasInput("ShiftsTensor")) {
    bool flat = false;
    ShiftPerDim(ctx->OpType(), x, ctx->Attr<std::vector<int64_t>>("shifts"), RollAxes(*ctx), &flat);
  }
  ctx->SetOutputDim("Out", x);
  ctx->ShareLoD("X", "Out");
}

// n mod m in [0, m).
int64_t PositiveMod(int64_t n, int64_t m) { return m == 0 ? 0 : ((n % m) + m) % m; }

template <typename T>
struct RollKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DDim dims = x->dims();
    bool flat = false;
    const std::vector<int64_t> shift = ShiftPerDim(kOp, dims, ShiftsOf(ctx), RollAxes(ctx), &flat);
    // The flattened roll is a roll of the 1-D view.
    const std::vector<int64_t> shape = flat ? std::vector<int64_t>{dims.numel()} : dims.ToVector();
    const int rank = static_cast<int>(shape.size());
    std::vector<int64_t> stride(static_cast<size_t>(rank), 1);
    for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * shape[d + 1];
    DenseTensor out(dims, x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    for (int64_t e = 0; e < dims.numel(); ++e) {
      int64_t src = 0;
      for (int d = 0; d < rank; ++d) {
        const int64_t i = (e / stride[d]) % shape[d];
        src += PositiveMod(i - shift[d], shape[d]) * stride[d];
      }
      o[e] = in[src];
    }
    out.set_lod(x->lod());
    *ctx.Output("Out") = std::move(out);
  }
};

void RollGradMaker(framework::GradOpBuilder* g) {
  if (!g->WantsInputGrad("X")) return;
  const std::vector<int64_t> axis =
      g->Forward().HasAttr("dims") && g->Attr<std::vector<int64_t>>("axis").empty()
          ? g->Attr<std::vector<int64_t>>("dims")
          : g->Attr<std::vector<int64_t>>("axis");
  if (g->Input("ShiftsTensor").empty()) {
    std::vector<int64_t> shifts = g->Attr<std::vector<int64_t>>("shifts");
    for (int64_t& s : shifts) s = -s;
    g->AddOp(kOp, {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}},
             {{"shifts", shifts}, {"axis", axis}});
    return;
  }
  const std::string negated = g->NewTemp("negated_shifts");
  g->AddOp("scale", {{"X", g->Input("ShiftsTensor")}}, {{"Out", {negated}}},
           {{"scale", -1.0f}, {"bias", 0.0f}, {"bias_after_scale", true}});
  g->AddOp(kOp, {{"X", g->OutputGrad("Out")}, {"ShiftsTensor", {negated}}},
           {{"Out", g->InputGrad("X")}},
           {{"shifts", g->Attr<std::vector<int64_t>>("shifts")}, {"axis", axis}});
}

}  // namespace

PL_REGISTER_OPS(RegisterRollOp) {
  framework::RegisterOp<RollOp, RollOpMaker>(kOp)
      .InferShape(RollInferShape)
      .GradOpMaker(RollGradMaker)
      .Checkpoint("attribute `dims` renamed `axis`",
                  framework::OpVersionDesc().NewAttr("axis", "The dims to roll along (was `dims`).",
                                                     std::vector<int64_t>{}))
      .Checkpoint("shifts as a tensor",
                  framework::OpVersionDesc().NewInput(
                      "ShiftsTensor", "1-D int64 shifts, used instead of `shifts`."));
  RegisterPlainCpuKernels<RollKernel, float, double, int32_t, int64_t, bool, std::complex<float>,
                          std::complex<double>>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

// crop_tensor (paddle.crop) and crop (fluid 1.x): a box of X at given offsets and shape, and
// their fused backwards, which pad the gradient back into X's shape with zeros.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "framework/fused_grad_op.h"
#include "operators/op_family.h"
#include "operators/tensor/strided_box.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kDoc[] = R"DOC(
Crop: the box of X that starts at `offsets` and has the output's shape:
$$Out[i_0, \ldots, i_{r-1}] = X[i_0 + o_0, \ldots, i_{r-1} + o_{r-1}]$$
An entry -1 of the shape keeps the rest of that dim (X's dim minus the offset). Every box
must lie inside X. Example: X = [[1, 2, 3], [4, 5, 6], [7, 8, 9]], shape [2, 2],
offsets [0, 1] -> [[2, 3], [5, 6]].

Gradient, by the fused grad op: dX is dOut at the box and 0 elsewhere.
)DOC";

class CropTensorOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to crop, rank 1 to 6.");
    AddInput("Shape",
             "int32/int64 1-D, X's rank values: the output shape, before ShapeTensor "
             "and `shape`.")
        .AsDispensable();
    AddInput("ShapeTensor",
             "One-element int32/int64 tensors, one per dim: the output shape, "
             "before `shape`.")
        .AsDuplicable()
        .AsDispensable();
    AddInput("Offsets",
             "int32/int64 1-D, X's rank values: the offsets, before "
             "OffsetsTensor and `offsets`.")
        .AsDispensable();
    AddInput("OffsetsTensor",
             "One-element int32/int64 tensors, one per dim: the offsets, "
             "before `offsets`.")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("Out", "The box, X's type.");
    AddAttr<std::vector<int>>("shape", "The output shape (-1: the rest of that dim).")
        .SetDefault({});
    AddAttr<std::vector<int>>("offsets", "The box's first index per dim (default all 0).")
        .SetDefault({});
    AddComment(kDoc);
  }
};

class CropOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to crop, rank 1 to 6.");
    AddInput("Y", "A tensor of the output's shape, before `shape`.").AsDispensable();
    AddInput("Offsets", "int32/int64 1-D, X's rank values: the offsets, before `offsets`.")
        .AsDispensable();
    AddOutput("Out", "The box, X's type.");
    AddAttr<std::vector<int>>("shape",
                              "The output shape when Y is not given (-1: the rest of "
                              "that dim).")
        .SetDefault({});
    AddAttr<std::vector<int>>("offsets", "The box's first index per dim (default all 0).")
        .SetDefault({});
    AddComment(kDoc);
  }
};

class CropOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("Out@GRAD") ? "Out@GRAD" : "X");
  }
};

bool IsCropTensor(const std::string& op) { return op.rfind("crop_tensor", 0) == 0; }

// The offsets, checked to be one per dim of X (all 0 when none are given).
std::vector<int64_t> CropOffsets(const ExecutionContext& ctx, int rank) {
  std::string origin;
  std::vector<int64_t> offsets =
      IsCropTensor(ctx.Type()) ? ReadIntList(ctx, "Offsets", "OffsetsTensor", "offsets", &origin)
                               : ReadIntList(ctx, "Offsets", "", "offsets", &origin);
  if (offsets.empty() && origin.find("attribute") != std::string::npos) {
    offsets.assign(static_cast<size_t>(rank), 0);
  }
  PL_ENFORCE(static_cast<int>(offsets.size()) == rank,
             errors::InvalidArgument("op `%s` %s: expected %d values (X's rank), received %s",
                                     ctx.Type(), origin, rank, ListToString(offsets)));
  return offsets;
}

// The box of X: offsets and the output shape, each checked to lie inside X.
StridedBox CropBox(const ExecutionContext& ctx, const DDim& x) {
  const int rank = x.size();
  const std::vector<int64_t> offsets = CropOffsets(ctx, rank);
  std::string origin;
  std::vector<int64_t> shape;
  if (!IsCropTensor(ctx.Type()) && ctx.HasInput("Y")) {
    shape = ctx.Input("Y")->dims().ToVector();
    origin = "input `Y`";
  } else if (IsCropTensor(ctx.Type())) {
    shape = ReadIntList(ctx, "Shape", "ShapeTensor", "shape", &origin);
  } else {
    shape = ReadIntList(ctx, "", "", "shape", &origin);
  }
  PL_ENFORCE(static_cast<int>(shape.size()) == rank,
             errors::InvalidArgument("op `%s` %s: expected %d values (X's rank), received %s",
                                     ctx.Type(), origin, rank, ListToString(shape)));
  StridedBox box;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = shape[d] == -1 ? x[d] - offsets[d] : shape[d];
    const bool inside = offsets[d] >= 0 && size >= 0 && offsets[d] <= x[d] &&
                        size <= x[d] - offsets[d] && (shape[d] >= 0 || shape[d] == -1);
    PL_ENFORCE(inside, errors::InvalidArgument(
                           "op `%s` %s: dim %d of size %lld at offset %lld "
                           "does not fit X's %lld (X %s, offsets %s)",
                           ctx.Type(), origin, d, static_cast<long long>(shape[d]),
                           static_cast<long long>(offsets[d]), static_cast<long long>(x[d]),
                           x.ToString(), ListToString(offsets)));
    box.first.push_back(offsets[d]);
    box.step.push_back(1);
    box.count.push_back(size);
  }
  return box;
}

void CropInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireOutput("Out");
  const DDim x = ctx->GetInputDim("X");
  if (ctx->IsRuntime()) return;  // The kernel sizes Out from the values it reads.
  if (ctx->HasInput("Y")) {
    ctx->SetOutputDim("Out", ctx->GetInputDim("Y"));
    return;
  }
  const std::vector<int>& shape = ctx->Attr<std::vector<int>>("shape");
  const bool from_tensor = ctx->HasInput("Shape") || ctx->HasInput("ShapeTensor");
  if (from_tensor || shape.size() != static_cast<size_t>(x.size())) {
    ctx->SetOutputDim("Out", UnknownDims(ctx->OpType(), "input `X`", x.size()));
    return;
  }
  std::vector<int64_t> out(shape.begin(), shape.end());
  // -1 keeps the rest of the dim: known once the offsets are, which here they may not be.
  for (int64_t& d : out) d = d < 0 ? -1 : d;
  ctx->SetOutputDim("Out", DDim(out));
}

template <typename T>
struct CropKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const StridedBox box = CropBox(ctx, x->dims());
    DenseTensor out(DDim(box.count), x->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    const T* in = x->data<T>();
    ForEachInBox(x->dims(), box, [&](int64_t at, int64_t e) { o[e] = in[at]; });
    *ctx.Output("Out") = std::move(out);
  }
};

void CropGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
}

template <typename T>
struct CropGradKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* dout = ctx.Input("Out@GRAD");
    // The box's shape is dOut's: the grad op carries no Y or shape tensors.
    StridedBox box;
    const std::vector<int64_t> offsets = CropOffsets(ctx, x->dims().size());
    PL_ENFORCE(dout->dims().size() == x->dims().size(),
               errors::InvalidArgument("op `%s` input `Out@GRAD`: expected rank %d (X's), "
                                       "received %s",
                                       ctx.Type(), x->dims().size(), dout->dims().ToString()));
    for (int d = 0; d < x->dims().size(); ++d) {
      PL_ENFORCE(offsets[d] >= 0 && offsets[d] + dout->dims()[d] <= x->dims()[d],
                 errors::InvalidArgument("op `%s` input `Out@GRAD`: dim %d of size %lld at "
                                         "offset %lld does not fit X's %lld",
                                         ctx.Type(), d, static_cast<long long>(dout->dims()[d]),
                                         static_cast<long long>(offsets[d]),
                                         static_cast<long long>(x->dims()[d])));
      box.first.push_back(offsets[d]);
      box.step.push_back(1);
      box.count.push_back(dout->dims()[d]);
    }
    DenseTensor dx(x->dims(), dout->dtype());
    T* g = dx.mutable_data<T>(ctx.GetPlace());
    if (dx.numel() > 0) std::memset(g, 0, sizeof(T) * dx.numel());
    const T* d = dout->data<T>();
    ForEachInBox(x->dims(), box, [&](int64_t at, int64_t e) { g[at] = d[e]; });
    *ctx.Output("X@GRAD") = std::move(dx);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterCropOps) {
  constexpr char kGradDoc[] = R"DOC($$dX[i + o] = dOut[i]$$ inside the box, 0 elsewhere.)DOC";
  const framework::FusedGradDecl tensor_grad{
      {"X", "Offsets", "OffsetsTensor"}, {"Out"}, {"X"}, kGradDoc};
  const framework::FusedGradDecl crop_grad{{"X", "Offsets"}, {"Out"}, {"X"}, kGradDoc};
  framework::RegisterOp<CropOp, CropTensorOpMaker>("crop_tensor")
      .InferShape(CropInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(tensor_grad));
  framework::RegisterOp<CropOp, CropOpMaker>("crop")
      .InferShape(CropInferShape)
      .InferVarType(OutputDataTypeOf("X", "Out"))
      .GradOpMaker(framework::FusedGradMaker(crop_grad));
  framework::RegisterFusedGradOp("crop_tensor", tensor_grad).InferShape(CropGradInferShape);
  framework::RegisterFusedGradOp("crop", crop_grad).InferShape(CropGradInferShape);
  for (const char* op : {"crop_tensor", "crop"}) {
    RegisterPlainCpuNumericKernels<CropKernel>(op);
    RegisterPlainCpuFloatKernels<CropGradKernel>(std::string(op) + "_grad");
  }
}

}  // namespace operators
}  // namespace paddle_like

// nms: greedy non-maximum suppression over boxes already in order of preference (what
// paddle.vision.ops.nms saves after sorting by score), keeping a box unless it overlaps a kept
// one by more than iou_threshold.
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/detection/bbox_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "nms";

class NmsOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("Boxes", "[N, 4] boxes [x_min, y_min, x_max, y_max], the preferred first.");
    AddOutput("KeepBoxesIdxs", "int64 [K]: the indices of the kept boxes, in increasing order.");
    AddAttr<float>("iou_threshold", "Overlap above which a later box is dropped.").SetDefault(1.0f);
    AddComment(R"DOC(
Greedy non-maximum suppression. Boxes are visited in order; box j is kept when
$$\mathrm{IoU}(b_i, b_j) \le iou\_threshold$$ for every kept box i before it, with
$$\mathrm{IoU}(a, b) = \frac{|a \cap b|}{|a| + |b| - |a \cap b|}$$
(coordinates, not pixel counts: a box's width is x_max - x_min; an inverted box has no
area). Example: boxes [[0, 0, 2, 2], [0, 0, 2, 1.9], [3, 3, 4, 4]] with threshold 0.5 ->
[0, 2].
)DOC");
  }
};

class NmsOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

void CheckBoxes(const std::string& op, const DDim& boxes) {
  PL_ENFORCE(boxes.size() == 2 && (boxes[1] < 0 || boxes[1] == 4),
             errors::InvalidArgument("op `%s` input `Boxes`: expected [N, 4], received %s", op,
                                     boxes.ToString()));
}

void NmsInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("Boxes");
  ctx->RequireOutput("KeepBoxesIdxs");
  CheckBoxes(ctx->OpType(), ctx->GetInputDim("Boxes"));
  if (!ctx->IsRuntime()) ctx->SetOutputDim("KeepBoxesIdxs", DDim{-1});  // The kernel sets K.
}

template <typename T>
struct NmsKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* boxes = ctx.Input("Boxes");
    CheckBoxes(ctx.Type(), boxes->dims());
    const int64_t n = boxes->dims()[0];
    const T* b = n > 0 ? boxes->data<T>() : nullptr;
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    const std::vector<int64_t> kept = GreedyNms<T>(
        order, [b](int64_t i) { return b + 4 * i; },
        static_cast<T>(ctx.Attr<float>("iou_threshold")), 1.0f, /*normalized=*/true,
        NanIoU::kKeeps);
    DenseTensor out(DDim{static_cast<int64_t>(kept.size())}, DataType::INT64);
    int64_t* o = out.mutable_data<int64_t>(ctx.GetPlace());
    std::copy(kept.begin(), kept.end(), o);
    *ctx.Output("KeepBoxesIdxs") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterNmsOp) {
  framework::RegisterOp<NmsOp, NmsOpMaker>(kOp)
      .InferShape(NmsInferShape)
      .InferVarType([](framework::VarTypeInferenceContext* ctx) {
        ctx->SetOutputDataType("KeepBoxesIdxs", DataType::INT64);
      });
  RegisterPlainCpuFloatKernels<NmsKernel>(kOp);
}

}  // namespace operators
}  // namespace paddle_like

// lookup_table_dequant: lookup_table (version 1: Ids end in a dim of 1) on a table whose rows
// are stored 8-bit quantized, as PaddleSlim's embedding quantization saves them. Inference
// only: no gradient.
#include <cstring>
#include <string>
#include <vector>

#include "framework/grad_op_maker.h"
#include "operators/common.h"
#include "operators/nn/lookup_table_util.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

constexpr char kOp[] = "lookup_table_dequant";

class LookupTableDequantOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("W",
             "[V, 2 + D / 4] float32: each row's min and max, then the bytes of its D "
             "quantized values (uint8) packed four to a float.");
    AddInput("Ids", "int64 or int32 ids in [0, V), with a last dim of 1.");
    AddOutput("Out", "Ids.dims with the last dim replaced by D.");
    AddAttr<int64_t>("padding_idx",
                     "An id whose rows are zeros (negative counts from V); -1 "
                     "for none.")
        .SetDefault(-1);
    AddComment(R"DOC(
With row r of W holding m_r = W[r, 0], M_r = W[r, 1] and the bytes q_r[0..D) after them:
$$Out[i, j] = m_{id_i} + \frac{M_{id_i} - m_{id_i}}{256} \, q_{id_i}[j]$$
(2^8 steps, as PaddlePaddle decodes them) and zeros for the ids equal to padding_idx.
)DOC");
  }
};

// D, the values per row, from W's columns; InvalidArgumentError unless W holds a min, a max
// and at least one packed float.
int64_t DequantWidth(const DDim& w) {
  lookup_table::CheckTable(kOp, w);
  PL_ENFORCE(w[1] < 0 || w[1] >= 3,
             errors::InvalidArgument("op `%s` input `W`: expected at least 3 columns (min, max "
                                     "and packed values), received shape %s",
                                     kOp, w.ToString()));
  return w[1] < 0 ? -1 : (w[1] - 2) * 4;
}

void LookupTableDequantInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("W");
  ctx->RequireInput("Ids");
  ctx->RequireOutput("Out");
  const DDim w = ctx->GetInputDim("W");
  const int64_t d = DequantWidth(w);
  lookup_table::PaddingRow(kOp, ctx->Attr<int64_t>("padding_idx"), w[0]);
  ctx->SetOutputDim("Out", lookup_table::OutDims(kOp, ctx->GetInputDim("Ids"), d));
  ctx->ShareLoD("Ids", "Out");
}

class LookupTableDequantOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "W");
  }
};

struct LookupTableDequantKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* w = ctx.Input("W");
    const DenseTensor* ids_tensor = ctx.Input("Ids");
    const int64_t v = w->dims()[0], cols = w->dims()[1];
    const int64_t d = DequantWidth(w->dims());
    const int64_t pad = lookup_table::PaddingRow(kOp, ctx.Attr<int64_t>("padding_idx"), v);
    const std::vector<int64_t> ids = lookup_table::ReadIds(kOp, *ids_tensor, v);
    DenseTensor out(lookup_table::OutDims(kOp, ids_tensor->dims(), d), DataType::FLOAT32);
    out.set_lod(ids_tensor->lod());
    float* o = out.mutable_data<float>(ctx.GetPlace());
    const float* table = w->data<float>();
    std::vector<uint8_t> q(static_cast<size_t>(d));
    for (size_t i = 0; i < ids.size(); ++i) {
      float* row = o + static_cast<int64_t>(i) * d;
      if (ids[i] == pad) {
        std::fill(row, row + d, 0.0f);
        continue;
      }
      const float* src = table + ids[i] * cols;
      const float lo = src[0], step = (src[1] - src[0]) / 256.0f;
      std::memcpy(q.data(), src + 2, static_cast<size_t>(d));  // The bytes, in memory order.
      for (int64_t j = 0; j < d; ++j) row[j] = lo + step * static_cast<float>(q[j]);
    }
    *ctx.Output("Out") = std::move(out);
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterLookupTableDequantOp) {
  framework::RegisterOp<LookupTableDequantOp, LookupTableDequantOpMaker>(kOp)
      .InferShape(LookupTableDequantInferShape)
      .GradOpMaker(framework::NoGradient);
  // The table's packed bytes are float32's: there is no double form of this op.
  framework::RegisterKernel(kOp, DeviceType::kCPU, DataType::FLOAT32, LibraryType::kPlain,
                            &LookupTableDequantKernel::Compute);
}

}  // namespace operators
}  // namespace paddle_like

// distribute_fpn_proposals and collect_fpn_proposals: routing region proposals between the
// levels of a feature pyramid (FPN Faster / Mask R-CNN), as PaddlePaddle does. distribute
// assigns each ROI to the level matching its size and says how to restore the original order;
// collect merges the levels' proposals, keeps the best post_nms_topN and groups them by image.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "framework/var_type_inference.h"
#include "operators/common.h"
#include "operators/detection/bbox_util.h"
#include "operators/detection/image_rows.h"
#include "operators/op_family.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

class DistributeFpnProposalsOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("FpnRois", "ROIs [R, 4] of all images, stacked (LoD: per image, unless RoisNum).");
    AddInput("RoisNum", "int32 [N]: ROIs per image; replaces the LoD.").AsDispensable();
    AddOutput("MultiFpnRois", "One [R_l, 4] tensor per level, min_level first (LoD: per image).")
        .AsDuplicable();
    AddOutput("RestoreIndex", "int32 [R, 1]: where ROI i went in the levels' concatenation.");
    AddOutput("MultiLevelRoIsNum", "Per level, int32 [N]: its ROIs per image.")
        .AsDuplicable()
        .AsDispensable();
    AddAttr<int>("min_level", "The finest level.");
    AddAttr<int>("max_level", "The coarsest level (>= min_level).");
    AddAttr<int>("refer_level", "The level of a ROI of size refer_scale.");
    AddAttr<int>("refer_scale", "The reference ROI size (> 0).");
    AddAttr<bool>("pixel_offset", "A box spans x_max - x_min + 1 pixels.").SetDefault(true);
    AddComment(R"DOC(
Distributes ROIs over FPN levels by size. With the area A of a ROI (+1 on each side under
pixel_offset):
$$level = \min(max\_level, \max(min\_level, \lfloor \log_2(\sqrt{A} / refer\_scale + 10^{-6})
  + refer\_level \rfloor))$$
Level l's output holds its ROIs image by image, each image's in their original order. The
levels concatenated, min_level first, hold every ROI once; RestoreIndex[i] is ROI i's row
there, so gathering the concatenation by RestoreIndex restores the input order.
)DOC");
  }
};

class CollectFpnProposalsOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("MultiLevelRois", "Per level, ROIs [R_l, 4] (LoD: per image, unless counts).")
        .AsDuplicable();
    AddInput("MultiLevelScores", "Per level, scores [R_l, 1] of those ROIs.").AsDuplicable();
    AddInput("MultiLevelRoIsNum", "Per level, int32 [N]: ROIs per image; replaces the LoDs.")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("FpnRois", "The kept ROIs [K, 4], grouped by image (LoD: per image).");
    AddOutput("RoisNum", "int32 [N]: kept ROIs per image.").AsDispensable();
    AddAttr<int>("post_nms_topN", "How many ROIs to keep, best scores first (> 0).");
    AddComment(R"DOC(
Collects the ROIs of every FPN level: all of them sorted by score (stable, descending), the
first post_nms_topN kept, then grouped by image (stable, so by score within an image).
$$FpnRois = \mathrm{group\_by\_image}(\mathrm{top}_{post\_nms\_topN}(\bigcup_l MultiLevelRois_l))$$
)DOC");
  }
};

class FpnRoisOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, ctx.inputs.count("FpnRois") ? "FpnRois" : "MultiLevelRois");
  }
  bool CastsInput(const std::string& slot, DataType from, DataType to) const override {
    return slot.find("Num") == std::string::npos && OperatorWithKernel::CastsInput(slot, from, to);
  }
};

int LevelCount(const std::string& op, int min_level, int max_level) {
  PL_ENFORCE(max_level >= min_level,
             errors::InvalidArgument("op `%s` attributes `min_level` %d and `max_level` %d: "
                                     "expected max_level >= min_level",
                                     op, min_level, max_level));
  return max_level - min_level + 1;
}

void CheckRoiShape(const std::string& op, const char* slot, const DDim& d) {
  PL_ENFORCE(d.size() == 2 && (d[1] == 4 || d[1] < 0),
             errors::InvalidArgument("op `%s` input `%s`: expected [R, 4], received shape %s", op,
                                     slot, d.ToString()));
}

void DistributeInferShape(InferShapeContext* ctx) {
  const std::string& op = ctx->OpType();
  ctx->RequireInput("FpnRois");
  ctx->RequireOutput("RestoreIndex");
  CheckRoiShape(op, "FpnRois", ctx->GetInputDim("FpnRois"));
  const int levels = LevelCount(op, ctx->Attr<int>("min_level"), ctx->Attr<int>("max_level"));
  PL_ENFORCE(static_cast<int>(ctx->OutputSize("MultiFpnRois")) == levels,
             errors::InvalidArgument("op `%s` output `MultiFpnRois`: expected %d variables (one "
                                     "per level), received %zu",
                                     op, levels, ctx->OutputSize("MultiFpnRois")));
  PL_ENFORCE(ctx->Attr<int>("refer_scale") > 0,
             errors::InvalidArgument("op `%s` attribute `refer_scale`: expected > 0, received %d",
                                     op, ctx->Attr<int>("refer_scale")));
  if (ctx->IsRuntime()) return;
  for (int l = 0; l < levels; ++l) ctx->SetOutputDim("MultiFpnRois", DDim{-1, 4}, l);
  ctx->SetOutputDim("RestoreIndex", DDim{ctx->GetInputDim("FpnRois")[0], 1});
  if (ctx->HasOutput("MultiLevelRoIsNum")) {
    for (size_t l = 0; l < ctx->OutputSize("MultiLevelRoIsNum"); ++l) {
      ctx->SetOutputDim("MultiLevelRoIsNum", DDim{-1}, l);
    }
  }
}

void DistributeInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("MultiFpnRois", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("MultiFpnRois", ctx->GetInputDataType("FpnRois"));
  ctx->SetOutputKind("RestoreIndex", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("RestoreIndex", DataType::INT32);
  if (ctx->HasOutput("MultiLevelRoIsNum")) {
    ctx->SetOutputKind("MultiLevelRoIsNum", framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType("MultiLevelRoIsNum", DataType::INT32);
  }
}

DenseTensor Int32Tensor(const DDim& dims, const std::vector<int32_t>& values,
                        const platform::Place& place) {
  DenseTensor t(dims, DataType::INT32);
  std::copy(values.begin(), values.end(), t.mutable_data<int32_t>(place));
  return t;
}

template <typename T>
struct DistributeFpnProposalsKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const DenseTensor* rois = ctx.Input("FpnRois");
    CheckRoiShape(op, "FpnRois", rois->dims());
    const int min_level = ctx.Attr<int>("min_level"), max_level = ctx.Attr<int>("max_level");
    const int levels = LevelCount(op, min_level, max_level);
    const auto outs = ctx.MultiOutput("MultiFpnRois");
    PL_ENFORCE(static_cast<int>(outs.size()) == levels,
               errors::InvalidArgument("op `%s` output `MultiFpnRois`: expected %d variables, "
                                       "received %zu",
                                       op, levels, outs.size()));
    const auto refer_scale = static_cast<T>(ctx.Attr<int>("refer_scale"));
    const int refer_level = ctx.Attr<int>("refer_level");
    const bool pixel_offset = ctx.Attr<bool>("pixel_offset");
    const int64_t total = rois->dims()[0];
    const std::vector<int64_t> starts =
        ImageRowStarts(ctx, "FpnRois", "RoisNum", total, "distributing ROIs");
    const size_t images = starts.size() - 1;
    const T* r = rois->data<T>();
    std::vector<int> level_of(static_cast<size_t>(total));
    for (int64_t i = 0; i < total; ++i) {
      const T scale = std::sqrt(BoxArea(r + 4 * i, !pixel_offset));
      const int lvl = static_cast<int>(
          std::floor(std::log2(scale / refer_scale + static_cast<T>(1e-6)) + refer_level));
      level_of[i] = std::min(max_level, std::max(lvl, min_level)) - min_level;
    }
    // Per level: its rows (image by image, input order within an image) and counts per image.
    std::vector<std::vector<int64_t>> rows(static_cast<size_t>(levels));
    std::vector<std::vector<int32_t>> counts(static_cast<size_t>(levels),
                                             std::vector<int32_t>(images, 0));
    for (size_t b = 0; b < images; ++b) {
      for (int64_t i = starts[b]; i < starts[b + 1]; ++i) {
        rows[level_of[i]].push_back(i);
        ++counts[level_of[i]][b];
      }
    }
    std::vector<int32_t> restore(static_cast<size_t>(total));
    int32_t position = 0;
    for (int l = 0; l < levels; ++l) {
      DenseTensor out(DDim{static_cast<int64_t>(rows[l].size()), 4}, rois->dtype());
      T* o = out.mutable_data<T>(ctx.GetPlace());
      std::vector<size_t> lod = {0};
      for (int32_t c : counts[l]) lod.push_back(lod.back() + static_cast<size_t>(c));
      for (size_t k = 0; k < rows[l].size(); ++k) {
        std::copy(r + 4 * rows[l][k], r + 4 * rows[l][k] + 4, o + 4 * k);
        restore[rows[l][k]] = position++;
      }
      out.set_lod({lod});
      *outs[l] = std::move(out);
    }
    *ctx.Output("RestoreIndex") = Int32Tensor(DDim{total, 1}, restore, ctx.GetPlace());
    const auto nums = ctx.MultiOutput("MultiLevelRoIsNum");
    for (size_t l = 0; l < nums.size() && l < static_cast<size_t>(levels); ++l) {
      *nums[l] = Int32Tensor(DDim{static_cast<int64_t>(images)}, counts[l], ctx.GetPlace());
    }
  }
};

void CollectInferShape(InferShapeContext* ctx) {
  const std::string& op = ctx->OpType();
  ctx->RequireInput("MultiLevelRois");
  ctx->RequireInput("MultiLevelScores");
  ctx->RequireOutput("FpnRois");
  PL_ENFORCE(ctx->InputSize("MultiLevelRois") == ctx->InputSize("MultiLevelScores"),
             errors::InvalidArgument("op `%s`: expected as many MultiLevelScores as "
                                     "MultiLevelRois (%zu), received %zu",
                                     op, ctx->InputSize("MultiLevelRois"),
                                     ctx->InputSize("MultiLevelScores")));
  PL_ENFORCE(ctx->Attr<int>("post_nms_topN") > 0,
             errors::InvalidArgument("op `%s` attribute `post_nms_topN`: expected > 0, received %d",
                                     op, ctx->Attr<int>("post_nms_topN")));
  for (const DDim& d : ctx->GetInputsDim("MultiLevelRois")) CheckRoiShape(op, "MultiLevelRois", d);
  if (ctx->IsRuntime()) return;
  ctx->SetOutputDim("FpnRois", DDim{-1, 4});
  if (ctx->HasOutput("RoisNum")) ctx->SetOutputDim("RoisNum", DDim{-1});
}

void CollectInferVarType(framework::VarTypeInferenceContext* ctx) {
  ctx->SetOutputKind("FpnRois", framework::VarKind::kDenseTensor);
  ctx->SetOutputDataType("FpnRois", ctx->GetInputDataType("MultiLevelRois"));
  if (ctx->HasOutput("RoisNum")) {
    ctx->SetOutputKind("RoisNum", framework::VarKind::kDenseTensor);
    ctx->SetOutputDataType("RoisNum", DataType::INT32);
  }
}

// Image row starts of level l's ROIs: from MultiLevelRoIsNum[l], else the ROIs' LoD.
std::vector<int64_t> LevelStarts(const ExecutionContext& ctx, size_t l, int64_t rows) {
  const std::string& op = ctx.Type();
  std::vector<int64_t> starts = {0};
  if (ctx.HasInput("MultiLevelRoIsNum")) {
    const auto nums = ctx.MultiInput("MultiLevelRoIsNum");
    PL_ENFORCE(l < nums.size(),
               errors::InvalidArgument("op `%s` input `MultiLevelRoIsNum`: expected one tensor "
                                       "per level, received %zu",
                                       op, nums.size()));
    for (int64_t c : ReadIntValues(*nums[l], op, "MultiLevelRoIsNum")) {
      PL_ENFORCE(c >= 0, errors::InvalidArgument("op `%s` input `MultiLevelRoIsNum`: expected "
                                                 "counts >= 0, received %lld",
                                                 op, static_cast<long long>(c)));
      starts.push_back(starts.back() + c);
    }
  } else {
    const framework::LoD& lod = ctx.MultiInput("MultiLevelRois")[l]->lod();
    PL_ENFORCE(!lod.empty(), errors::InvalidArgument("op `%s` input `MultiLevelRois` level %zu: "
                                                     "needs the image row counts "
                                                     "(MultiLevelRoIsNum or a LoD)",
                                                     op, l));
    starts.assign(lod.back().begin(), lod.back().end());
  }
  PL_ENFORCE(starts.back() == rows,
             errors::InvalidArgument("op `%s` level %zu: the image row counts add up to %lld, "
                                     "expected its %lld ROIs",
                                     op, l, static_cast<long long>(starts.back()),
                                     static_cast<long long>(rows)));
  return starts;
}

template <typename T>
struct CollectFpnProposalsKernel {
  static void Compute(const ExecutionContext& ctx) {
    const std::string& op = ctx.Type();
    const auto rois = ctx.MultiInput("MultiLevelRois");
    const auto scores = ctx.MultiInput("MultiLevelScores");
    PL_ENFORCE(rois.size() == scores.size(),
               errors::InvalidArgument("op `%s`: expected as many MultiLevelScores as "
                                       "MultiLevelRois (%zu), received %zu",
                                       op, rois.size(), scores.size()));
    struct Entry {
      T score;
      const T* box;
      int64_t image;
    };
    std::vector<Entry> all;
    int64_t images = 0;
    for (size_t l = 0; l < rois.size(); ++l) {
      CheckRoiShape(op, "MultiLevelRois", rois[l]->dims());
      const int64_t n = rois[l]->dims()[0];
      PL_ENFORCE(
          scores[l]->numel() == n,
          errors::InvalidArgument("op `%s` input `MultiLevelScores` level %zu: expected "
                                  "%lld scores (one per ROI), received shape %s",
                                  op, l, static_cast<long long>(n), scores[l]->dims().ToString()));
      const std::vector<int64_t> starts = LevelStarts(ctx, l, n);
      images = std::max<int64_t>(images, static_cast<int64_t>(starts.size()) - 1);
      const T* box = rois[l]->data<T>();
      const T* score = scores[l]->data<T>();
      for (size_t b = 0; b + 1 < starts.size(); ++b) {
        for (int64_t i = starts[b]; i < starts[b + 1]; ++i) {
          all.push_back({score[i], box + 4 * i, static_cast<int64_t>(b)});
        }
      }
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const Entry& a, const Entry& b) { return a.score > b.score; });
    const auto keep =
        std::min<size_t>(all.size(), static_cast<size_t>(ctx.Attr<int>("post_nms_topN")));
    all.resize(keep);
    std::stable_sort(all.begin(), all.end(),
                     [](const Entry& a, const Entry& b) { return a.image < b.image; });
    DenseTensor out(DDim{static_cast<int64_t>(keep), 4},
                    rois.empty() ? DataType::FLOAT32 : rois[0]->dtype());
    T* o = out.mutable_data<T>(ctx.GetPlace());
    std::vector<int32_t> per_image(static_cast<size_t>(images), 0);
    for (size_t k = 0; k < keep; ++k) {
      std::copy(all[k].box, all[k].box + 4, o + 4 * k);
      ++per_image[all[k].image];
    }
    std::vector<size_t> lod = {0};
    for (int32_t c : per_image) lod.push_back(lod.back() + static_cast<size_t>(c));
    out.set_lod({lod});
    *ctx.Output("FpnRois") = std::move(out);
    if (DenseTensor* num = ctx.Output("RoisNum")) {
      *num = Int32Tensor(DDim{images}, per_image, ctx.GetPlace());
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterFpnProposalsOps) {
  framework::RegisterOp<FpnRoisOp, DistributeFpnProposalsOpMaker>("distribute_fpn_proposals")
      .InferShape(DistributeInferShape)
      .InferVarType(DistributeInferVarType)
      .Checkpoint("input RoisNum and output MultiLevelRoIsNum",
                  framework::OpVersionDesc()
                      .NewInput("RoisNum", "ROIs per image, instead of a LoD")
                      .NewOutput("MultiLevelRoIsNum", "per level, ROIs per image"))
      .Checkpoint("attribute pixel_offset", framework::OpVersionDesc().NewAttr(
                                                "pixel_offset", "boxes span x2 - x1 + 1", true));
  RegisterPlainCpuFloatKernels<DistributeFpnProposalsKernel>("distribute_fpn_proposals");
  framework::RegisterOp<FpnRoisOp, CollectFpnProposalsOpMaker>("collect_fpn_proposals")
      .InferShape(CollectInferShape)
      .InferVarType(CollectInferVarType)
      .Checkpoint("input MultiLevelRoIsNum and output RoisNum",
                  framework::OpVersionDesc()
                      .NewInput("MultiLevelRoIsNum", "per level, ROIs per image")
                      .NewOutput("RoisNum", "kept ROIs per image"));
  RegisterPlainCpuFloatKernels<CollectFpnProposalsKernel>("collect_fpn_proposals");
}

}  // namespace operators
}  // namespace paddle_like

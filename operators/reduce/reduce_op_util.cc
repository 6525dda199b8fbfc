#include "operators/reduce/reduce_op_util.h"

#include "framework/block_desc.h"
#include "framework/grad_op_maker.h"
#include "operators/math/reduce.h"

namespace paddle_like {
namespace operators {

void ReduceOpMaker::AddReduceAttrs(const std::string& verb) {
  AddAttr<std::vector<int>>("dim", "Dims to " + verb +
                                       " over; negative values count from the end. An empty "
                                       "list means all dims.")
      .SetDefault({0});
  AddAttr<bool>("keep_dim", "Keep the reduced dims as size 1.").SetDefault(false);
  AddAttr<bool>("reduce_all", "Reduce over all dims, whatever `dim` says.").SetDefault(false);
  AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
      .SetDefault(false)
      .AsExtra();
}

void ReduceGradInferShape(InferShapeContext* ctx) {
  ctx->RequireInput("X");
  ctx->RequireInput("Out@GRAD");
  ctx->RequireOutput("X@GRAD");
  ctx->SetOutputDim("X@GRAD", ctx->GetInputDim("X"));
  ctx->ShareLoD("X", "X@GRAD");
}

void AppendReduceGradBroadcast(framework::GradOpBuilder* g, const std::string& dout,
                               int from_dtype) {
  const std::string& x = g->Input("X")[0];
  const framework::BlockDesc* block = g->Forward().Block();
  const framework::VarDesc* xv = block == nullptr ? nullptr : block->FindVarRecursive(x);
  PL_ENFORCE(xv != nullptr,
             errors::PreconditionNotMet("op `%s` gradient: input `X` variable `%s` is not "
                                        "declared in the block, so its rank is unknown",
                                        g->ForwardType(), x));
  const DDim x_dims(xv->GetShape());
  const auto attr_or = [g](const char* name, auto fallback) {
    using T = decltype(fallback);
    return g->Forward().HasAttr(name) ? g->Attr<T>(name) : fallback;
  };
  const bool keep_dim = attr_or("keep_dim", false);
  const math::ReduceShape shape =
      math::ComputeReduceShape(g->ForwardType(), x_dims, attr_or("dim", std::vector<int>{0}),
                               keep_dim, attr_or("reduce_all", false));
  std::vector<int> axes;
  bool all = true;
  for (int i = 0; i < x_dims.size(); ++i) {
    if (shape.reduced[i]) {
      axes.push_back(i);
    } else {
      all = false;
    }
  }
  std::string value = dout;
  if (!keep_dim && !all && !axes.empty()) {
    const std::string unsqueezed = g->NewTemp("dout_keep_dim");
    g->AddOp("unsqueeze2", {{"X", {value}}}, {{"Out", {unsqueezed}}}, {{"axes", axes}});
    value = unsqueezed;
  }
  const int x_dtype = static_cast<int>(xv->GetDataType());
  if (from_dtype < 0 || from_dtype == x_dtype) {
    g->AddOp("expand_as_v2", {{"X", {value}}, {"Y", {x}}}, {{"Out", g->InputGrad("X")}},
             {{"axis", -1}});
    return;
  }
  const std::string expanded = g->NewTemp("dx_reduced_dtype");
  g->AddOp("expand_as_v2", {{"X", {value}}, {"Y", {x}}}, {{"Out", {expanded}}}, {{"axis", -1}});
  g->AddOp("cast", {{"X", {expanded}}}, {{"Out", g->InputGrad("X")}},
           {{"in_dtype", from_dtype}, {"out_dtype", x_dtype}});
}

}  // namespace operators
}  // namespace paddle_like

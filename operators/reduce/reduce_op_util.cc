#include "operators/reduce/reduce_op_util.h"

#include <algorithm>

#include "framework/grad_forward_vars.h"
#include "framework/grad_op_maker.h"
#include "operators/math/reduce.h"

namespace paddle_like {
namespace operators {

std::vector<int> ReduceDimsOf(const framework::AttributeMap& attrs) {
  auto it = attrs.find("dim");
  if (it == attrs.end()) return {0};
  if (const auto* longs = std::get_if<std::vector<int64_t>>(&it->second)) {
    std::vector<int> dims;
    // Clamped into int's range: out-of-range dims stay out of range for the checks.
    for (int64_t d : *longs) {
      dims.push_back(
          static_cast<int>(std::max<int64_t>(std::min<int64_t>(d, 1 << 20), -(1 << 20))));
    }
    return dims;
  }
  return std::get<std::vector<int>>(it->second);
}

void ReduceOpMaker::AddOwnDtypeAttrs() {
  for (const char* name : {"in_dtype", "out_dtype"}) {
    AddAttr<int>(name, "Accepted for PaddlePaddle's programs; -1 (X's own) only.")
        .SetDefault(-1)
        .InEnum({-1})
        .AsExtra();
  }
}

void ReduceOpMaker::AddReduceAttrs(const std::string& verb, bool int64_dims) {
  const std::string dim_doc =
      "Dims to " + verb +
      " over; negative values count from the end. An empty list means all dims.";
  if (int64_dims) {
    AddAttr<std::vector<int64_t>>("dim", dim_doc).SetDefault({0});
  } else {
    AddAttr<std::vector<int>>("dim", dim_doc).SetDefault({0});
  }
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

namespace {

// X's declared dims and the forward op's reduction, for its grad maker.
struct ForwardReduction {
  DDim x_dims;
  int x_dtype = 0;
  std::vector<int> axes;  // The reduced dims.
  bool keep_dim = false, all = true;
};

ForwardReduction ReductionOf(framework::GradOpBuilder* g) {
  const std::string& x = g->Input("X")[0];
  ForwardReduction r;
  r.x_dims = framework::DeclaredForwardDims(*g, "X", x);
  r.x_dtype = static_cast<int>(framework::FindForwardVar(*g, x)->GetDataType());
  const auto attr_or = [g](const char* name, auto fallback) {
    using T = decltype(fallback);
    return g->Forward().HasAttr(name) ? g->Attr<T>(name) : fallback;
  };
  r.keep_dim = attr_or("keep_dim", false);
  const math::ReduceShape shape =
      math::ComputeReduceShape(g->ForwardType(), r.x_dims, ReduceDimsOf(g->Forward().Attrs()),
                               r.keep_dim, attr_or("reduce_all", false));
  for (int i = 0; i < r.x_dims.size(); ++i) {
    if (shape.reduced[i]) {
      r.axes.push_back(i);
    } else {
      r.all = false;
    }
  }
  return r;
}

// `value` (shaped like the forward op's Out) with the reduced dims put back as size 1 where
// they were removed.
std::string KeepReducedDims(framework::GradOpBuilder* g, const ForwardReduction& r,
                            const std::string& value, const std::string& hint) {
  if (r.keep_dim || r.all || r.axes.empty()) return value;
  const std::string unsqueezed = g->NewTemp(hint);
  g->AddOp("unsqueeze2", {{"X", {value}}}, {{"Out", {unsqueezed}}}, {{"axes", r.axes}});
  return unsqueezed;
}

}  // namespace

DataType GradValueType(const framework::GradOpBuilder& g, const std::string& x) {
  const framework::VarDesc* v = framework::FindForwardVar(g, x);
  const DataType dtype = v == nullptr ? DataType::FLOAT32 : v->GetDataType();
  return platform::IsFloatingPoint(dtype) || platform::IsComplex(dtype) ? dtype : DataType::FLOAT32;
}

std::string AppendCountAs(framework::GradOpBuilder* g, const std::string& var,
                          const std::string& hint, DataType dtype) {
  const std::string count = g->NewTemp(hint + "_numel");
  g->AddOp("size", {{"Input", {var}}}, {{"Out", {count}}});
  const std::string value = g->NewTemp(hint + "_numel_value");
  g->AddOp(
      "cast", {{"X", {count}}}, {{"Out", {value}}},
      {{"in_dtype", static_cast<int>(DataType::INT64)}, {"out_dtype", static_cast<int>(dtype)}});
  return value;
}

void AppendMeanOfAllGrad(framework::GradOpBuilder* g, const std::string& x,
                         const std::vector<std::string>& dout, const std::vector<std::string>& dx) {
  const std::string n = AppendCountAs(g, x, "x", GradValueType(*g, x));
  const std::string scaled = g->NewTemp("dout_over_n");
  g->AddOp("elementwise_div", {{"X", dout}, {"Y", {n}}}, {{"Out", {scaled}}}, {{"axis", -1}});
  g->AddOp("expand_as_v2", {{"X", {scaled}}, {"Y", {x}}}, {{"Out", dx}}, {{"axis", -1}});
}

std::string AppendBroadcastToX(framework::GradOpBuilder* g, const std::string& value,
                               const std::string& hint) {
  const ForwardReduction r = ReductionOf(g);
  const std::string expanded = g->NewTemp(hint);
  g->AddOp("expand_as_v2",
           {{"X", {KeepReducedDims(g, r, value, hint + "_keep_dim")}}, {"Y", g->Input("X")}},
           {{"Out", {expanded}}}, {{"axis", -1}});
  return expanded;
}

void AppendReduceGradBroadcast(framework::GradOpBuilder* g, const std::string& dout,
                               int from_dtype) {
  const ForwardReduction r = ReductionOf(g);
  const std::string& x = g->Input("X")[0];
  const std::string value = KeepReducedDims(g, r, dout, "dout_keep_dim");
  if (from_dtype < 0 || from_dtype == r.x_dtype) {
    g->AddOp("expand_as_v2", {{"X", {value}}, {"Y", {x}}}, {{"Out", g->InputGrad("X")}},
             {{"axis", -1}});
    return;
  }
  const std::string expanded = g->NewTemp("dx_reduced_dtype");
  g->AddOp("expand_as_v2", {{"X", {value}}, {"Y", {x}}}, {{"Out", {expanded}}}, {{"axis", -1}});
  g->AddOp("cast", {{"X", {expanded}}}, {{"Out", g->InputGrad("X")}},
           {{"in_dtype", from_dtype}, {"out_dtype", r.x_dtype}});
}

}  // namespace operators
}  // namespace paddle_like

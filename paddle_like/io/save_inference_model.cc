#include "paddle_like/io/save_inference_model.h"

#include <algorithm>
#include <set>

#include "framework/executor.h"
#include "framework/model_loading.h"
#include "framework/op_proto_maker.h"
#include "framework/tensor_io.h"
#include "framework/var_type_inference.h"

namespace paddle_like {
namespace io {

using framework::BlockDesc;
using framework::OpDesc;
using framework::ProgramDesc;
using framework::VarDesc;
using framework::VarKind;

framework::ProgramDesc BuildInferenceProgram(const std::vector<std::string>& feed_names,
                                             const std::vector<std::string>& fetch_names,
                                             const ProgramDesc& main_program) {
  ProgramDesc program = main_program;
  BlockDesc& block = program.Block(0);
  // Drop existing feed/fetch ops, then keep only the ops the fetch targets need.
  for (size_t i = block.OpSize(); i-- > 0;) {
    const std::string& t = block.Op(i)->Type();
    if (t == "feed" || t == "fetch") block.RemoveOp(i, i + 1);
  }
  std::set<std::string> needed(fetch_names.begin(), fetch_names.end());
  const std::set<std::string> feeds(feed_names.begin(), feed_names.end());
  std::vector<bool> keep(block.OpSize(), false);
  for (size_t i = block.OpSize(); i-- > 0;) {
    const OpDesc* op = block.Op(i);
    const int role = op->HasAttr("op_role") && std::holds_alternative<int>(op->GetAttr("op_role"))
                         ? std::get<int>(op->GetAttr("op_role"))
                         : 0;
    if (role & (static_cast<int>(framework::OpRole::kBackward) |
                static_cast<int>(framework::OpRole::kOptimize))) {
      continue;
    }
    bool produces = false;
    for (const auto& out : op->OutputArgumentNames()) produces |= needed.count(out) > 0;
    if (!produces) continue;
    keep[i] = true;
    for (const auto& in : op->InputArgumentNames()) {
      if (!feeds.count(in)) needed.insert(in);
    }
  }
  for (size_t i = block.OpSize(); i-- > 0;) {
    if (!keep[i]) block.RemoveOp(i, i + 1);
  }
  for (const auto& f : fetch_names) {
    PL_ENFORCE(block.FindVar(f) != nullptr,
               errors::NotFound("save inference model: fetch target `%s` is not in the program", f));
  }
  for (const auto& f : feed_names) {
    PL_ENFORCE(block.FindVar(f) != nullptr,
               errors::NotFound("save inference model: feed target `%s` is not in the program", f));
  }
  // Inference mode.
  for (OpDesc* op : block.AllOps()) {
    if (op->HasAttr("is_test")) op->SetAttr("is_test", true);
  }
  // Fetch targets go through scale ops, as PaddlePaddle's normalize_program does.
  std::vector<std::string> targets;
  for (size_t i = 0; i < fetch_names.size(); ++i) {
    const VarDesc* v = block.FindVar(fetch_names[i]);
    if (v->GetDataType() == platform::DataType::BOOL) {
      targets.push_back(fetch_names[i]);
      continue;
    }
    const std::string out = "save_infer_model/scale_" + std::to_string(i) + ".tmp_0";
    OpDesc* op = block.AppendOp();
    op->SetType("scale");
    op->SetInput("X", {fetch_names[i]});
    op->SetOutput("Out", {out});
    op->SetAttr("scale", 1.0f);
    op->SetAttr("bias", 0.0f);
    op->SetAttr("bias_after_scale", true);
    op->SetAttr("op_role", 0);
    framework::InferVarTypeAndShape(op, &block);
    targets.push_back(out);
  }
  // Remove variables no op uses any more.
  std::set<std::string> used;
  for (const OpDesc* op : block.AllOps()) {
    for (const auto& n : op->InputArgumentNames()) used.insert(n);
    for (const auto& n : op->OutputArgumentNames()) used.insert(n);
  }
  for (const VarDesc* v : block.AllVars()) {
    if (!used.count(v->Name())) block.RemoveVar(v->Name());
  }
  // Feed and fetch holders and ops.
  VarDesc* feed = block.Var("feed");
  feed->SetKind(VarKind::kFeedMinibatch);
  feed->SetPersistable(true);
  VarDesc* fetch = block.Var("fetch");
  fetch->SetKind(VarKind::kFetchList);
  fetch->SetPersistable(true);
  for (size_t i = 0; i < feed_names.size(); ++i) {
    OpDesc* op = block.PrependOp();
    op->SetType("feed");
    op->SetInput("X", {"feed"});
    op->SetOutput("Out", {feed_names[i]});
    op->SetAttr("col", static_cast<int>(i));
    op->SetAttr("op_role", 0);
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    OpDesc* op = block.AppendOp();
    op->SetType("fetch");
    op->SetInput("X", {targets[i]});
    op->SetOutput("Out", {"fetch"});
    op->SetAttr("col", static_cast<int>(i));
    op->SetAttr("op_role", 0);
  }
  // Training-only VarDesc fields are cleared, as PaddlePaddle does.
  for (VarDesc* v : block.AllVars()) {
    v->SetIsParameter(false);
    v->SetStopGradient(false);
  }
  framework::StampOpVersions(&program);
  return program;
}

ProgramDesc SaveInferenceModel(const std::string& path_prefix,
                               const std::vector<std::string>& feed_names,
                               const std::vector<std::string>& fetch_names,
                               const ProgramDesc& main_program, const framework::Scope& scope) {
  ProgramDesc program = BuildInferenceProgram(feed_names, fetch_names, main_program);
  const std::vector<std::string> params = framework::ParameterNames(program);
  framework::SaveCombinedParams(path_prefix + ".pdiparams", params, scope);
  program.Save(path_prefix + ".pdmodel");
  return program;
}

}  // namespace io
}  // namespace paddle_like

#include "framework/inference_fused_ops.h"

#include <cmath>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "framework/program_desc.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {

namespace {

const std::set<std::string>& ElementwiseTypes() {
  static const std::set<std::string> types = {"fused_elementwise_add", "fused_elementwise_sub",
                                              "fused_elementwise_mul", "fused_elementwise_div"};
  return types;
}

// An attribute as a number, whatever numeric kind the program stored; `fallback` if absent.
double Number(const OpDesc& op, const std::string& name, double fallback) {
  if (!op.HasAttr(name)) return fallback;
  const Attribute& a = op.GetAttr(name);
  if (const auto* v = std::get_if<float>(&a)) return *v;
  if (const auto* v = std::get_if<double>(&a)) return *v;
  if (const auto* v = std::get_if<int>(&a)) return *v;
  if (const auto* v = std::get_if<int64_t>(&a)) return static_cast<double>(*v);
  if (const auto* v = std::get_if<bool>(&a)) return *v ? 1 : 0;
  return fallback;
}

std::vector<int> Ints(const OpDesc& op, const std::string& name) {
  if (!op.HasAttr(name)) return {};
  const Attribute& a = op.GetAttr(name);
  if (const auto* v = std::get_if<std::vector<int>>(&a)) return *v;
  if (const auto* v = std::get_if<std::vector<int64_t>>(&a)) {
    return std::vector<int>(v->begin(), v->end());
  }
  return {};
}

// PIR spells the fused reshapes and transposes in lower case, ProgramDesc ops in upper.
std::vector<int> FusedDims(const OpDesc& op, const std::string& lower, const std::string& upper) {
  std::vector<int> v = Ints(op, lower);
  return v.empty() ? Ints(op, upper) : v;
}

std::string Str(const OpDesc& op, const std::string& name) {
  if (!op.HasAttr(name)) return "";
  const auto* v = std::get_if<std::string>(&op.GetAttr(name));
  return v == nullptr ? "" : *v;
}

bool Bool(const OpDesc& op, const std::string& name) { return Number(op, name, 0) != 0; }

std::string First(const OpDesc& op, const std::string& slot, bool output) {
  const std::vector<std::string>& args = output ? op.Output(slot) : op.Input(slot);
  return args.empty() ? "" : args[0];
}

// Appends the ops that stand for one fused op, through fresh variables.
class Expansion {
 public:
  Expansion(BlockDesc* block, const OpDesc& fused) : block_(block), fused_(fused) {
    const std::string out = OutputName();
    const VarDesc* v = block->FindVarRecursive(out);
    dtype_ = v != nullptr ? v->GetDataType() : platform::DataType::FLOAT32;
    prefix_ = out + ".unfused_";
  }

  const OpDesc& fused() const { return fused_; }
  std::vector<OpDesc>& ops() { return ops_; }

  std::string OutputName() const {
    for (const char* slot : {"Out", "Output", "out", "Y"}) {
      const std::string o = First(fused_, slot, true);
      if (!o.empty()) return o;
    }
    throw errors::InvalidArgument("op `%s`: no output", fused_.Type());
  }

  std::string Temp() {
    std::string name;
    do {
      name = prefix_ + std::to_string(next_++);
    } while (block_->FindVarRecursive(name) != nullptr);
    VarDesc* v = block_->Var(name);
    v->SetDataType(dtype_);
    return name;
  }

  // Appends op `type` reading `x` (slot X) into a new variable; returns its name.
  std::string Unary(const std::string& type, const std::string& x, AttributeMap attrs) {
    const std::string out = Temp();
    VariableNameMap outputs = {{"Out", {out}}};
    if (type == "reshape2" || type == "transpose2" || type == "unsqueeze2") {
      outputs["XShape"] = {Temp()};
    }
    ops_.emplace_back(type, VariableNameMap{{"X", {x}}}, outputs, std::move(attrs));
    return out;
  }

  std::string Add(const std::string& x, const std::string& y, int axis) {
    const std::string out = Temp();
    ops_.emplace_back("elementwise_add", VariableNameMap{{"X", {x}}, {"Y", {y}}},
                      VariableNameMap{{"Out", {out}}}, AttributeMap{{"axis", axis}});
    return out;
  }

  // oneDNN's eltwise post-op (fuse_activation, fuse_alpha, fuse_beta) as its op.
  std::string Activation(const std::string& x) {
    const std::string name = Str(fused_, "fuse_activation");
    if (name.empty() || name == "identity") return x;
    const float alpha = static_cast<float>(Number(fused_, "fuse_alpha", 0));
    const float beta = static_cast<float>(Number(fused_, "fuse_beta", 0));
    if (name == "relu" || name == "sigmoid" || name == "tanh" || name == "abs" || name == "sqrt" ||
        name == "exp" || name == "square") {
      return Unary(name, x, {});
    }
    if (name == "logistic") return Unary("sigmoid", x, {});
    if (name == "leaky_relu") return Unary("leaky_relu", x, {{"alpha", alpha}});
    if (name == "relu6") return Unary("relu6", x, {{"threshold", beta > 0 ? beta : 6.0f}});
    if (name == "clip") return Unary("clip", x, {{"min", alpha}, {"max", beta}});
    if (name == "swish") return Unary("swish", x, {{"beta", alpha}});
    if (name == "mish") return Unary("mish", x, {});
    if (name == "elu") return Unary("elu", x, {{"alpha", alpha}});
    if (name == "gelu" || name == "gelu_erf") return Unary("gelu", x, {{"approximate", false}});
    if (name == "gelu_tanh") return Unary("gelu", x, {{"approximate", true}});
    if (name == "hard_sigmoid") {
      return Unary("hard_sigmoid", x, {{"slope", alpha}, {"offset", beta}});
    }
    if (name == "hard_swish") {
      // x min(max(alpha x + beta, 0), 1) = x min(max(x + offset, 0), threshold) / scale with
      // scale = threshold = 1 / alpha, offset = beta / alpha.
      PL_ENFORCE(alpha > 0, errors::Unimplemented("op `%s`: hard_swish post-op with alpha %g",
                                                  fused_.Type(), alpha));
      return Unary("hard_swish", x,
                   {{"threshold", 1 / alpha}, {"scale", 1 / alpha}, {"offset", beta / alpha}});
    }
    throw errors::Unimplemented(
        "op `%s` attribute `fuse_activation`: oneDNN post-op `%s` has no "
        "counterpart in paddle_like",
        fused_.Type(), name);
  }

  std::string OutputScale(const std::string& x) {
    const double s = Number(fused_, "fused_output_scale", 1.0);
    if (s == 1.0) return x;
    return Unary("scale", x,
                 {{"scale", static_cast<float>(s)}, {"bias", 0.0f}, {"bias_after_scale", true}});
  }

  std::string Reshape(const std::string& x, const std::vector<int>& shape) {
    if (shape.empty()) return x;
    return Unary("reshape2", x, {{"shape", shape}});
  }
  std::string Transpose(const std::string& x, const std::vector<int>& axis) {
    if (axis.empty()) return x;
    return Unary("transpose2", x, {{"axis", axis}});
  }

  // The last op's output becomes the fused op's output variable.
  void Finish(const std::string& last) {
    PL_ENFORCE(!ops_.empty(), errors::Fatal("op `%s`: expansion made no op", fused_.Type()));
    const std::string out = OutputName();
    for (auto& [slot, names] : VariableNameMap(ops_.back().Outputs())) {
      std::vector<std::string> renamed = names;
      for (std::string& n : renamed) {
        if (n == last) n = out;
      }
      ops_.back().SetOutput(slot, renamed);
    }
    block_->RemoveVar(last);
  }

 private:
  BlockDesc* block_;
  const OpDesc& fused_;
  platform::DataType dtype_;
  std::string prefix_;
  int next_ = 0;
  std::vector<OpDesc> ops_;
};

void ExpandMatmul(Expansion* e) {
  const OpDesc& op = e->fused();
  std::string x = First(op, "X", false), y = First(op, "Y", false);
  x = e->Transpose(e->Reshape(x, FusedDims(op, "fused_reshape_x", "fused_reshape_X")),
                   FusedDims(op, "fused_transpose_x", "fused_transpose_X"));
  y = e->Transpose(e->Reshape(y, FusedDims(op, "fused_reshape_y", "fused_reshape_Y")),
                   FusedDims(op, "fused_transpose_y", "fused_transpose_Y"));
  std::string out = e->Temp();
  e->ops().emplace_back(
      "matmul", VariableNameMap{{"X", {x}}, {"Y", {y}}}, VariableNameMap{{"Out", {out}}},
      AttributeMap{
          {"transpose_X", Bool(op, "trans_x") || Bool(op, "transpose_X")},
          {"transpose_Y", Bool(op, "trans_y") || Bool(op, "transpose_Y")},
          {"alpha", static_cast<float>(Number(op, "matmul_alpha", Number(op, "alpha", 1.0)))}});
  const std::string residual = First(op, "ResidualData", false);
  if (!residual.empty()) out = e->Add(out, residual, -1);
  out = e->OutputScale(e->Activation(out));
  out = e->Reshape(e->Transpose(out, FusedDims(op, "fused_transpose_out", "fused_transpose_Out")),
                   FusedDims(op, "fused_reshape_out", "fused_reshape_Out"));
  e->Finish(out);
}

void ExpandElementwise(Expansion* e) {
  const OpDesc& op = e->fused();
  std::string out = e->Temp();
  e->ops().emplace_back(op.Type().substr(std::string("fused_").size()),
                        VariableNameMap{{"X", op.Input("X")}, {"Y", op.Input("Y")}},
                        VariableNameMap{{"Out", {out}}},
                        AttributeMap{{"axis", static_cast<int>(Number(op, "axis", -1))}});
  out = e->OutputScale(e->Activation(out));
  const std::vector<int> axes = Ints(op, "fused_unsqueeze2_axes");
  if (!axes.empty()) out = e->Unary("unsqueeze2", out, {{"axes", axes}});
  e->Finish(out);
}

void ExpandFc(Expansion* e) {
  const OpDesc& op = e->fused();
  OpDesc fc = op;
  for (const char* name : {"fuse_activation", "fuse_alpha", "fuse_beta", "fused_output_scale",
                           "fused_reshape2_shape"}) {
    fc.RemoveAttr(name);
  }
  std::string out = e->Temp();
  fc.SetOutput("Out", {out});
  e->ops().push_back(fc);
  out = e->OutputScale(e->Activation(out));
  out = e->Reshape(out, Ints(op, "fused_reshape2_shape"));
  e->Finish(out);
}

// conv2d takes Bias, ResidualData and the post-op itself, conv2d_transpose Bias; their Bias
// is [C] (oneDNN's passes leave [1, C, 1, 1] there).
void ExpandConv2d(Expansion* e, const std::string& type) {
  OpDesc conv = e->fused();
  conv.SetType(type);
  const std::string bias = First(conv, "Bias", false);
  if (!bias.empty()) conv.SetInput("Bias", {e->Reshape(bias, {-1})});
  e->ops().push_back(conv);
}

void ExpandConv3d(Expansion* e) {
  const OpDesc& op = e->fused();
  OpDesc conv = op;
  conv.SetType("conv3d");
  conv.SetInput("Bias", {});
  conv.SetInput("ResidualData", {});
  std::string out = e->Temp();
  conv.SetOutput("Output", {out});
  e->ops().push_back(conv);
  const std::string bias = First(op, "Bias", false);
  const bool channel_last = Str(op, "data_format") == "NDHWC";
  if (!bias.empty()) out = e->Add(out, e->Reshape(bias, {-1}), channel_last ? -1 : 1);
  const std::string residual = First(op, "ResidualData", false);
  if (!residual.empty()) out = e->Add(out, residual, -1);
  e->Finish(e->Activation(out));
}

void ExpandSoftplus(Expansion* e) {
  const OpDesc& op = e->fused();
  std::string out = e->Unary("softplus", First(op, "X", false),
                             {{"beta", static_cast<float>(Number(op, "beta", 1.0))},
                              {"threshold", static_cast<float>(Number(op, "threshold", 20.0))}});
  out = e->Activation(out);
  e->Finish(out);
}

// cuDNN's activation of fused_conv2d_add_act (conv2d_fusion) as conv2d's fuse_activation.
void SetConvActivation(const OpDesc& fused, OpDesc* conv) {
  const std::string act = Str(fused, "activation");
  conv->RemoveAttr("activation");
  if (act.empty() || act == "identity") return;
  const float alpha = static_cast<float>(Number(fused, "fuse_alpha", 0));
  float a = 0, b = 0;
  if (act == "relu6") {
    b = 6;
  } else if (act == "leaky_relu") {
    a = alpha;
  } else if (act == "swish") {
    a = 1;
  } else {
    PL_ENFORCE(act == "relu" || act == "sigmoid" || act == "tanh",
               errors::Unimplemented("op `%s` attribute `activation`: `%s` has no counterpart in "
                                     "paddle_like",
                                     fused.Type(), act));
  }
  conv->SetAttr("fuse_activation", act);
  conv->SetAttr("fuse_alpha", a);
  conv->SetAttr("fuse_beta", b);
}

// conv2d with its bias, residual and activation; split_channels splits the output along the
// channels into Outputs.
void ExpandConvAddAct(Expansion* e) {
  const OpDesc& op = e->fused();
  OpDesc conv("conv2d", {}, {}, op.Attrs());
  conv.SetInput("Input", op.Input("Input"));
  conv.SetInput("Filter", op.Input("Filter"));
  const std::string bias = First(op, "Bias", false);
  if (!bias.empty()) conv.SetInput("Bias", {e->Reshape(bias, {-1})});
  const bool residual = op.HasInput("ResidualData");
  if (residual) conv.SetInput("ResidualData", op.Input("ResidualData"));
  conv.SetAttr("fuse_residual_connection", residual);  // conv2d adds it only when told.
  for (const char* name : {"split_channels", "exhaustive_search", "workspace_size_MB"}) {
    conv.RemoveAttr(name);
  }
  SetConvActivation(op, &conv);
  conv.SetOutput("Output", op.Output("Output"));
  e->ops().push_back(conv);
  const std::vector<int> split = Ints(op, "split_channels");
  if (!split.empty() && op.HasOutput("Outputs")) {
    const bool channel_last = Str(op, "data_format") == "NHWC";
    e->ops().emplace_back(
        "split", VariableNameMap{{"X", op.Output("Output")}},
        VariableNameMap{{"Out", op.Output("Outputs")}},
        AttributeMap{{"sections", split}, {"axis", channel_last ? 3 : 1}, {"num", 0}});
  }
}

// depthwise_conv2d_bias names its slots in lower case.
void ExpandDepthwiseBias(Expansion* e) {
  const OpDesc& op = e->fused();
  OpDesc conv("depthwise_conv2d", {}, {}, op.Attrs());
  conv.SetInput("Input", op.Input("input"));
  conv.SetInput("Filter", op.Input("filter"));
  const std::string bias = First(op, "bias", false);
  if (!bias.empty()) conv.SetInput("Bias", {e->Reshape(bias, {-1})});
  conv.SetOutput("Output", op.Output("out"));
  e->ops().push_back(conv);
}

// squeeze2, transpose2, unsqueeze2 and reshape2, in that order (what oneDNN's passes fused).
void ExpandTranspose(Expansion* e) {
  const OpDesc& op = e->fused();
  PL_ENFORCE(Number(op, "scale", 1.0) == 1.0 && Number(op, "shift", 0.0) == 0.0,
             errors::Unimplemented("op `%s` attributes `scale`, `shift`: a quantised oneDNN "
                                   "transpose, which paddle_like does not run",
                                   op.Type()));
  std::string out = First(op, "X", false);
  const std::vector<int> squeeze = Ints(op, "fused_squeeze2_axes");
  if (!squeeze.empty()) out = e->Unary("squeeze2", out, {{"axes", squeeze}});
  out = e->Unary("transpose2", out, {{"axis", Ints(op, "axis")}});
  const std::vector<int> unsqueeze = Ints(op, "fused_unsqueeze2_axes");
  if (!unsqueeze.empty()) out = e->Unary("unsqueeze2", out, {{"axes", unsqueeze}});
  out = e->Reshape(out, Ints(op, "fused_reshape2_shape"));
  e->Finish(out);
}

// layer_norm of `x` into the fused op's Out (its Mean and Variance where it names them).
void AppendLayerNorm(Expansion* e, const std::string& x, const std::string& scale,
                     const std::string& bias, float epsilon, int begin_norm_axis) {
  const OpDesc& op = e->fused();
  VariableNameMap inputs = {{"X", {x}}};
  if (!scale.empty()) inputs["Scale"] = {scale};
  if (!bias.empty()) inputs["Bias"] = {bias};
  VariableNameMap outputs = {{"Y", op.Output("Out")}};
  outputs["Mean"] = op.HasOutput("Mean") ? op.Output("Mean") : std::vector<std::string>{e->Temp()};
  outputs["Variance"] =
      op.HasOutput("Variance") ? op.Output("Variance") : std::vector<std::string>{e->Temp()};
  e->ops().emplace_back("layer_norm", inputs, outputs,
                        AttributeMap{{"epsilon", epsilon}, {"begin_norm_axis", begin_norm_axis}});
}

// skip_layernorm: layer_norm(X + Y).
void ExpandSkipLayerNorm(Expansion* e) {
  const OpDesc& op = e->fused();
  const std::string sum = e->Add(First(op, "X", false), First(op, "Y", false), -1);
  AppendLayerNorm(e, sum, First(op, "Scale", false), First(op, "Bias", false),
                  static_cast<float>(Number(op, "epsilon", 1e-5)),
                  static_cast<int>(Number(op, "begin_norm_axis", -1)));
}

// fused_fc_elementwise_layernorm: layer_norm(fc(X, W, Bias0) + Y, Scale, Bias1).
void ExpandFcElementwiseLayerNorm(Expansion* e) {
  const OpDesc& op = e->fused();
  const std::string fc_out = e->Temp();
  VariableNameMap inputs = {{"Input", op.Input("X")}, {"W", op.Input("W")}};
  if (op.HasInput("Bias0")) inputs["Bias"] = op.Input("Bias0");
  e->ops().emplace_back(
      "fc", inputs, VariableNameMap{{"Out", {fc_out}}},
      AttributeMap{{"in_num_col_dims", static_cast<int>(Number(op, "x_num_col_dims", 1))},
                   {"activation_type", Str(op, "activation_type")}});
  const std::string sum = e->Add(fc_out, First(op, "Y", false), -1);
  AppendLayerNorm(e, sum, First(op, "Scale", false), First(op, "Bias1", false),
                  static_cast<float>(Number(op, "epsilon", 1e-5)),
                  static_cast<int>(Number(op, "begin_norm_axis", 1)));
}

// fused_embedding_eltwise_layernorm: layer_norm over the last dim of the sum of the
// embeddings Embs[i] of Ids[i] (ids [batch, seq] or [batch, seq, 1]).
void ExpandEmbeddingLayerNorm(Expansion* e, const BlockDesc& block) {
  const OpDesc& op = e->fused();
  const std::vector<std::string>& ids = op.Input("Ids");
  const std::vector<std::string>& embs = op.Input("Embs");
  PL_ENFORCE(!ids.empty() && ids.size() == embs.size(),
             errors::InvalidArgument("op `%s`: inputs `Ids` (%zu) and `Embs` (%zu) must pair up",
                                     op.Type(), ids.size(), embs.size()));
  const VarDesc* first = block.FindVarRecursive(ids[0]);
  const std::vector<int64_t> shape = first != nullptr ? first->GetShape() : std::vector<int64_t>();
  // A trailing 1 in the ids: lookup_table drops it, lookup_table_v2 keeps every dim.
  const bool trailing_one = shape.size() >= 3 && shape.back() == 1;
  const int rank = shape.empty() ? 3 : static_cast<int>(shape.size()) + (trailing_one ? 0 : 1);
  std::string sum;
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string emb = e->Temp();
    e->ops().emplace_back(trailing_one ? "lookup_table" : "lookup_table_v2",
                          VariableNameMap{{"Ids", {ids[i]}}, {"W", {embs[i]}}},
                          VariableNameMap{{"Out", {emb}}}, AttributeMap{});
    sum = i == 0 ? emb : e->Add(sum, emb, -1);
  }
  AppendLayerNorm(e, sum, First(op, "Scale", false), First(op, "Bias", false),
                  static_cast<float>(Number(op, "epsilon", 1e-5)), rank - 1);
}

bool FcHasOneDnnPostOps(const OpDesc& op) {
  const std::string act = Str(op, "fuse_activation");
  return (!act.empty() && act != "identity") || Number(op, "fused_output_scale", 1.0) != 1.0 ||
         !Ints(op, "fused_reshape2_shape").empty();
}

// The first number of a numeric attribute or list; false for others.
bool FirstNumber(const Attribute& a, double* out) {
  bool found = false;
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_arithmetic_v<T>) {
          *out = static_cast<double>(v);
          found = true;
        } else if constexpr (std::is_same_v<T, std::vector<float>> ||
                             std::is_same_v<T, std::vector<double>> ||
                             std::is_same_v<T, std::vector<int>> ||
                             std::is_same_v<T, std::vector<int64_t>>) {
          if (!v.empty()) {
            *out = static_cast<double>(v[0]);
            found = true;
          }
        }
      },
      a);
  return found;
}

}  // namespace

void RefuseOneDnnOnlyAttributes(const std::string& where, const AttributeMap& attrs,
                                bool post_ops_expanded) {
  for (const auto& [name, value] : attrs) {
    const auto* text = std::get_if<std::string>(&value);
    double number = 0;
    const bool numeric = FirstNumber(value, &number);
    if (name == "mkldnn_data_type" || name == "onednn_data_type") {
      PL_ENFORCE(text == nullptr || text->empty() || *text == "float32",
                 errors::Unimplemented("%s attribute `%s` = \"%s\": only float32 oneDNN ops run "
                                       "in paddle_like",
                                       where, name, *text));
    } else if (name.rfind("scale_", 0) == 0 || name.rfind("Scale_", 0) == 0) {
      PL_ENFORCE(!numeric || number == 1.0 || (name == "scale_in_eltwise" && number == 0.0),
                 errors::Unimplemented("%s attribute `%s` = %g: a quantised oneDNN op, which "
                                       "paddle_like does not run",
                                       where, name, number));
    } else if (name == "force_fp32_output") {
      PL_ENFORCE(!numeric || number == 0.0,
                 errors::Unimplemented("%s attribute `force_fp32_output`: a quantised oneDNN op, "
                                       "which paddle_like does not run",
                                       where));
    } else if (!post_ops_expanded) {
      bool meaningful = false;
      if (name == "fuse_activation") {
        meaningful = text != nullptr && !text->empty() && *text != "identity";
      } else if (name == "fused_output_scale") {
        meaningful = numeric && number != 1.0;
      } else if (name.rfind("fused_", 0) == 0) {
        meaningful = numeric;  // A non-empty fused reshape, transpose, squeeze or unsqueeze.
      }
      PL_ENFORCE(!meaningful,
                 errors::Unimplemented("%s attribute `%s` (a oneDNN fusion) has no counterpart in "
                                       "paddle_like's op of that name",
                                       where, name));
    }
  }
}

bool IsInferenceFusedOpType(const std::string& type) {
  static const std::set<std::string> types = {"fused_matmul",
                                              "fused_conv2d",
                                              "fused_conv3d",
                                              "fused_softplus",
                                              "fused_transpose",
                                              "conv2d_transpose_bias",
                                              "depthwise_conv2d_bias",
                                              "fused_conv2d_add_act",
                                              "conv2d_fusion",
                                              "skip_layernorm",
                                              "fused_fc_elementwise_layernorm",
                                              "fused_embedding_eltwise_layernorm"};
  return types.count(type) > 0 || ElementwiseTypes().count(type) > 0;
}

int ExpandInferenceFusedOps(ProgramDesc* program) {
  int expanded = 0;
  for (size_t b = 0; b < program->Size(); ++b) {
    BlockDesc& block = program->Block(b);
    for (size_t i = 0; i < block.OpSize(); ++i) {
      const OpDesc& op = *block.Op(i);
      const std::string type = op.Type();
      const bool fc = type == "fc";
      if (!fc && !IsInferenceFusedOpType(type)) continue;
      RefuseOneDnnOnlyAttributes("op `" + type + "`", op.Attrs(), /*post_ops_expanded=*/true);
      if (fc && !FcHasOneDnnPostOps(op)) continue;
      Expansion e(&block, op);
      if (type == "fused_matmul") {
        ExpandMatmul(&e);
      } else if (type == "fused_conv2d") {
        ExpandConv2d(&e, "conv2d");
      } else if (type == "conv2d_transpose_bias") {
        ExpandConv2d(&e, "conv2d_transpose");
      } else if (type == "fused_conv2d_add_act" || type == "conv2d_fusion") {
        ExpandConvAddAct(&e);
      } else if (type == "depthwise_conv2d_bias") {
        ExpandDepthwiseBias(&e);
      } else if (type == "fused_transpose") {
        ExpandTranspose(&e);
      } else if (type == "skip_layernorm") {
        ExpandSkipLayerNorm(&e);
      } else if (type == "fused_fc_elementwise_layernorm") {
        ExpandFcElementwiseLayerNorm(&e);
      } else if (type == "fused_embedding_eltwise_layernorm") {
        ExpandEmbeddingLayerNorm(&e, block);
      } else if (fc) {
        ExpandFc(&e);
      } else if (type == "fused_conv3d") {
        ExpandConv3d(&e);
      } else if (type == "fused_softplus") {
        ExpandSoftplus(&e);
      } else {
        ExpandElementwise(&e);
      }
      std::vector<OpDesc> ops = std::move(e.ops());
      block.RemoveOp(i, i + 1);
      for (size_t k = 0; k < ops.size(); ++k) {
        OpDesc* inserted = block.InsertOp(i + k);
        *inserted = std::move(ops[k]);
        inserted->SetBlock(&block);
      }
      i += ops.size() - 1;
      ++expanded;
    }
  }
  return expanded;
}

}  // namespace framework
}  // namespace paddle_like

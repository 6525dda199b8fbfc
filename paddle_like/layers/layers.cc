#include "paddle_like/layers/layers.h"

namespace paddle_like {
namespace layers {

namespace {
// A temporary output of layer `layer` ("fc_0.tmp_0", ...).
Var Tmp(ProgramBuilder* b, const std::string& layer, DataType dtype) {
  return b->CreateVar(b->UniqueName(layer + ".tmp"), {}, dtype);
}

Var MaybeActivation(ProgramBuilder* b, Var x, const std::string& act) {
  return act.empty() ? x : Activation(b, act, x);
}

int64_t Product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i) {
    PL_ENFORCE(dims[i] >= 0, errors::InvalidArgument(
                                 "layer: dimension %zu of the input is unknown (-1); it must be "
                                 "known to size the parameters",
                                 i));
    n *= dims[i];
  }
  return n;
}
}  // namespace

Var Data(ProgramBuilder* b, const std::string& name, const std::vector<int64_t>& shape,
         DataType dtype) {
  Var v = b->CreateVar(name, shape, dtype);
  v.desc()->SetStopGradient(true);
  v.desc()->SetNeedCheckFeed(true);
  return v;
}

Var Fc(ProgramBuilder* b, Var x, int64_t size, const std::string& act, int num_flatten_dims,
       std::optional<Initializer> weight_init, std::optional<Initializer> bias_init) {
  const std::string layer = b->UniqueName("fc");
  const auto dims = x.shape();
  PL_ENFORCE(num_flatten_dims >= 1 && static_cast<size_t>(num_flatten_dims) < dims.size() + 1,
             errors::InvalidArgument("layer fc: num_flatten_dims %d is out of range for input "
                                     "`%s` of rank %zu",
                                     num_flatten_dims, x.name(), dims.size()));
  const int64_t in = Product(dims, static_cast<size_t>(num_flatten_dims), dims.size());
  Var w = CreateParameter(b, layer + ".w_0", {in, size}, x.dtype(),
                          weight_init.value_or(Initializer::Xavier()));
  Var bias = CreateParameter(b, layer + ".b_0", {size}, x.dtype(),
                             bias_init.value_or(Initializer::Constant(0.0f)));
  Var mul_out = Tmp(b, layer, x.dtype());
  b->AppendOp("mul", {{"X", {x.name()}}, {"Y", {w.name()}}}, {{"Out", {mul_out.name()}}},
              {{"x_num_col_dims", num_flatten_dims}, {"y_num_col_dims", 1}});
  Var add_out = Tmp(b, layer, x.dtype());
  b->AppendOp("elementwise_add", {{"X", {mul_out.name()}}, {"Y", {bias.name()}}},
              {{"Out", {add_out.name()}}}, {{"axis", num_flatten_dims}});
  return MaybeActivation(b, add_out, act);
}

Var Conv2d(ProgramBuilder* b, Var x, int64_t num_filters, int filter_size, int stride,
           int padding, int groups, const std::string& act,
           std::optional<Initializer> weight_init, std::optional<Initializer> bias_init) {
  const std::string layer = b->UniqueName("conv2d");
  const auto dims = x.shape();
  PL_ENFORCE(dims.size() == 4 && dims[1] > 0,
             errors::InvalidArgument("layer conv2d: input `%s` must be NCHW with known channels",
                                     x.name()));
  PL_ENFORCE(groups >= 1 && dims[1] % groups == 0,
             errors::InvalidArgument("layer conv2d: %lld channels are not divisible by groups %d",
                                     static_cast<long long>(dims[1]), groups));
  Var w = CreateParameter(b, layer + ".w_0", {num_filters, dims[1] / groups, filter_size, filter_size},
                          x.dtype(), weight_init.value_or(Initializer::Kaiming()));
  Var bias = CreateParameter(b, layer + ".b_0", {num_filters}, x.dtype(),
                             bias_init.value_or(Initializer::Constant(0.0f)));
  Var conv_out = Tmp(b, layer, x.dtype());
  b->AppendOp("conv2d", {{"Input", {x.name()}}, {"Filter", {w.name()}}},
              {{"Output", {conv_out.name()}}},
              {{"strides", std::vector<int>{stride, stride}},
               {"paddings", std::vector<int>{padding, padding}},
               {"dilations", std::vector<int>{1, 1}},
               {"groups", groups},
               {"padding_algorithm", std::string("EXPLICIT")},
               {"data_format", std::string("NCHW")}});
  Var add_out = Tmp(b, layer, x.dtype());
  b->AppendOp("elementwise_add", {{"X", {conv_out.name()}}, {"Y", {bias.name()}}},
              {{"Out", {add_out.name()}}}, {{"axis", 1}});
  return MaybeActivation(b, add_out, act);
}

Var Pool2d(ProgramBuilder* b, Var x, int pool_size, const std::string& pool_type, int stride,
           int padding, bool global_pooling) {
  Var out = Tmp(b, b->UniqueName("pool2d"), x.dtype());
  b->AppendOp("pool2d", {{"X", {x.name()}}}, {{"Out", {out.name()}}},
              {{"pooling_type", pool_type},
               {"ksize", std::vector<int>{pool_size, pool_size}},
               {"strides", std::vector<int>{stride, stride}},
               {"paddings", std::vector<int>{padding, padding}},
               {"global_pooling", global_pooling}});
  return out;
}

Var BatchNorm(ProgramBuilder* b, Var x, const std::string& act, float momentum, float epsilon,
              bool is_test) {
  const std::string layer = b->UniqueName("batch_norm");
  const auto dims = x.shape();
  PL_ENFORCE(dims.size() >= 2 && dims[1] > 0,
             errors::InvalidArgument("layer batch_norm: input `%s` needs known channels (dim 1)",
                                     x.name()));
  const std::vector<int64_t> c = {dims[1]};
  Var scale = CreateParameter(b, layer + ".w_0", c, x.dtype(), Initializer::Constant(1.0f));
  Var bias = CreateParameter(b, layer + ".b_0", c, x.dtype(), Initializer::Constant(0.0f));
  // Running statistics: persistable, not trained.
  Var mean = b->CreatePersistable(layer + ".w_1", c, x.dtype(), /*is_parameter=*/false);
  AppendInitializer(b, mean.name(), c, x.dtype(), Initializer::Constant(0.0f));
  Var variance = b->CreatePersistable(layer + ".w_2", c, x.dtype(), /*is_parameter=*/false);
  AppendInitializer(b, variance.name(), c, x.dtype(), Initializer::Constant(1.0f));
  Var saved_mean = Tmp(b, layer, x.dtype());
  Var saved_variance = Tmp(b, layer, x.dtype());
  Var y = Tmp(b, layer, x.dtype());
  b->AppendOp("batch_norm",
              {{"X", {x.name()}}, {"Scale", {scale.name()}}, {"Bias", {bias.name()}},
               {"Mean", {mean.name()}}, {"Variance", {variance.name()}}},
              {{"Y", {y.name()}}, {"MeanOut", {mean.name()}}, {"VarianceOut", {variance.name()}},
               {"SavedMean", {saved_mean.name()}}, {"SavedVariance", {saved_variance.name()}}},
              {{"momentum", momentum}, {"epsilon", epsilon}, {"is_test", is_test},
               {"data_layout", std::string("NCHW")}});
  return MaybeActivation(b, y, act);
}

Var Dropout(ProgramBuilder* b, Var x, float dropout_prob, const std::string& implementation) {
  const std::string layer = b->UniqueName("dropout");
  Var out = Tmp(b, layer, x.dtype());
  Var mask = Tmp(b, layer, DataType::UINT8);
  const int seed = b->NextSeed();
  b->AppendOp("dropout", {{"X", {x.name()}}}, {{"Out", {out.name()}}, {"Mask", {mask.name()}}},
              {{"dropout_prob", dropout_prob},
               {"dropout_implementation", implementation},
               {"is_test", false},
               {"fix_seed", seed != 0},
               {"seed", seed}});
  return out;
}

Var Activation(ProgramBuilder* b, const std::string& type, Var x) {
  Var out = Tmp(b, b->UniqueName(type), x.dtype());
  b->AppendOp(type, {{"X", {x.name()}}}, {{"Out", {out.name()}}});
  return out;
}

Var Softmax(ProgramBuilder* b, Var x, int axis) {
  Var out = Tmp(b, b->UniqueName("softmax"), x.dtype());
  b->AppendOp("softmax", {{"X", {x.name()}}}, {{"Out", {out.name()}}}, {{"axis", axis}});
  return out;
}

Var Flatten(ProgramBuilder* b, Var x, int start_axis, int stop_axis) {
  const std::string layer = b->UniqueName("flatten");
  Var out = Tmp(b, layer, x.dtype());
  Var xshape = Tmp(b, layer, x.dtype());
  b->AppendOp("flatten_contiguous_range", {{"X", {x.name()}}},
              {{"Out", {out.name()}}, {"XShape", {xshape.name()}}},
              {{"start_axis", start_axis}, {"stop_axis", stop_axis}});
  return out;
}

Var SoftmaxWithCrossEntropy(ProgramBuilder* b, Var logits, Var label) {
  const std::string layer = b->UniqueName("softmax_with_cross_entropy");
  Var softmax = Tmp(b, layer, logits.dtype());
  Var loss = Tmp(b, layer, logits.dtype());
  b->AppendOp("softmax_with_cross_entropy", {{"Logits", {logits.name()}}, {"Label", {label.name()}}},
              {{"Softmax", {softmax.name()}}, {"Loss", {loss.name()}}},
              {{"soft_label", false}, {"axis", -1}});
  return loss;
}

Var Mean(ProgramBuilder* b, Var x) {
  Var out = Tmp(b, b->UniqueName("mean"), x.dtype());
  b->AppendOp("mean", {{"X", {x.name()}}}, {{"Out", {out.name()}}});
  return out;
}

Var Accuracy(ProgramBuilder* b, Var scores, Var label, int k) {
  const std::string layer = b->UniqueName("accuracy");
  Var values = Tmp(b, layer, scores.dtype());
  Var indices = Tmp(b, layer, DataType::INT64);
  b->AppendOp("top_k", {{"X", {scores.name()}}}, {{"Out", {values.name()}}, {"Indices", {indices.name()}}},
              {{"k", k}});
  Var acc = Tmp(b, layer, DataType::FLOAT32);
  Var correct = Tmp(b, layer, DataType::INT32);
  Var total = Tmp(b, layer, DataType::INT32);
  b->AppendOp("accuracy", {{"Out", {values.name()}}, {"Indices", {indices.name()}}, {"Label", {label.name()}}},
              {{"Accuracy", {acc.name()}}, {"Correct", {correct.name()}}, {"Total", {total.name()}}});
  return acc;
}

}  // namespace layers
}  // namespace paddle_like

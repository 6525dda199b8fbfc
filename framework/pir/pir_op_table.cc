#include "framework/pir/pir_op_table.h"

#include <map>

namespace paddle_like {
namespace framework {
namespace pir {

namespace {

void CastDtypes(const std::vector<const ValueType*>& operands, AttributeMap* attrs) {
  if (!operands.empty() && operands[0] != nullptr) {
    (*attrs)["in_dtype"] = static_cast<int>(operands[0]->dtype);
  }
}

// A reduction over no listed axis reduces over all of them (PIR's `axis=[]`).
void ReduceAllWhenNoAxis(const std::vector<const ValueType*>&, AttributeMap* attrs) {
  const auto it = attrs->find("dim");
  bool empty = it == attrs->end();
  if (!empty) {
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::vector<int>> ||
                        std::is_same_v<T, std::vector<int64_t>>) {
            empty = v.empty();
          }
        },
        it->second);
  }
  if (empty) (*attrs)["reduce_all"] = true;
}

// PaddlePaddle sums int32 and bool into int64 when `dtype` leaves Out's dtype open.
void SumDtypes(const std::vector<const ValueType*>& operands, AttributeMap* attrs) {
  ReduceAllWhenNoAxis(operands, attrs);
  const auto it = attrs->find("out_dtype");
  const bool open = it == attrs->end() ||
                    (GetAttrType(it->second) == AttrType::INT && std::get<int>(it->second) < 0);
  if (open && !operands.empty() && operands[0] != nullptr &&
      (operands[0]->dtype == platform::DataType::INT32 ||
       operands[0]->dtype == platform::DataType::BOOL)) {
    (*attrs)["out_dtype"] = static_cast<int>(platform::DataType::INT64);
  }
}

// set_value_ keeps its values as doubles; the ProgramDesc op reads them from the list of
// the tensor's dtype (converted there to that list's type, as any attribute).
void SetValueTypedValues(const std::vector<const ValueType*>& operands, AttributeMap* attrs) {
  const auto it = attrs->find("values");
  if (it == attrs->end() || operands.empty() || operands[0] == nullptr) return;
  AttrType type;
  const char* field = TypedValuesField(operands[0]->dtype, &type);
  if (field == nullptr) return;  // Left as is: the conversion then says why not.
  (*attrs)[field] = it->second;
  (*attrs)["dtype"] = static_cast<int>(operands[0]->dtype);
  attrs->erase(it);
}

using Entries = std::vector<OpTranslation>;

void AddUnary(Entries* e, const std::string& pir, const std::string& legacy,
              std::vector<std::pair<std::string, std::string>> renames = {}) {
  e->push_back({pir, legacy, {"X"}, {"Out"}, std::move(renames), {}, nullptr});
}

void AddBinary(Entries* e, const std::string& pir, const std::string& legacy) {
  e->push_back({pir, legacy, {"X", "Y"}, {"Out"}, {}, {{"axis", -1}}, nullptr});
}

Entries BuildEntries() {
  Entries e;
  // Element-wise arithmetic broadcasts numpy-style in PIR: axis -1.
  for (const auto& [pir, legacy] :
       std::vector<std::pair<std::string, std::string>>{{"add", "elementwise_add"},
                                                        {"subtract", "elementwise_sub"},
                                                        {"multiply", "elementwise_mul"},
                                                        {"divide", "elementwise_div"},
                                                        {"maximum", "elementwise_max"},
                                                        {"minimum", "elementwise_min"},
                                                        {"elementwise_pow", "elementwise_pow"},
                                                        {"remainder", "elementwise_mod"},
                                                        {"floor_divide", "elementwise_floordiv"},
                                                        {"fmax", "elementwise_fmax"},
                                                        {"fmin", "elementwise_fmin"},
                                                        {"equal", "equal"},
                                                        {"not_equal", "not_equal"},
                                                        {"greater_than", "greater_than"},
                                                        {"greater_equal", "greater_equal"},
                                                        {"less_than", "less_than"},
                                                        {"less_equal", "less_equal"}}) {
    AddBinary(&e, pir, legacy);
  }
  // elementwise_heaviside broadcasts numpy-style and has no axis.
  e.push_back({"heaviside", "elementwise_heaviside", {"X", "Y"}, {"Out"}, {}, {}, nullptr});
  for (const char* op :
       {"logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor"}) {
    e.push_back({op, op, {"X", "Y"}, {"Out"}, {}, {}, nullptr});
  }
  e.push_back({"atan2", "atan2", {"X1", "X2"}, {"Out"}, {}, {}, nullptr});
  // Ops PaddlePaddle registered with lower-case slots.
  for (const char* op : {"copysign", "nextafter"}) {
    e.push_back({op, op, {"x", "y"}, {"out"}, {}, {}, nullptr});
  }
  for (const char* op : {"relu",        "relu6",
                         "sigmoid",     "tanh",
                         "exp",         "expm1",
                         "log",         "log2",
                         "log10",       "log1p",
                         "sqrt",        "rsqrt",
                         "abs",         "square",
                         "floor",       "ceil",
                         "round",       "trunc",
                         "sin",         "cos",
                         "tan",         "asin",
                         "acos",        "atan",
                         "sinh",        "cosh",
                         "asinh",       "acosh",
                         "atanh",       "erf",
                         "erfinv",      "reciprocal",
                         "sign",        "silu",
                         "softsign",    "tanh_shrink",
                         "logsigmoid",  "logical_not",
                         "bitwise_not", "assign",
                         "celu",        "elu",
                         "selu",        "gelu",
                         "softplus",    "thresholded_relu",
                         "hard_shrink", "stanh",
                         "logit",       "swish",
                         "digamma",     "lgamma"}) {
    AddUnary(&e, op, op);
  }
  AddUnary(&e, "hardswish", "hard_swish");
  AddUnary(&e, "hardsigmoid", "hard_sigmoid");
  AddUnary(&e, "hardtanh", "brelu");
  AddUnary(&e, "leaky_relu", "leaky_relu", {{"negative_slope", "alpha"}});
  AddUnary(&e, "softshrink", "softshrink", {{"threshold", "lambda"}});
  AddUnary(&e, "hardshrink", "hard_shrink");
  AddUnary(&e, "pow", "pow", {{"y", "factor"}});
  AddUnary(&e, "mish", "mish", {{"lambda", "threshold"}});
  AddUnary(&e, "isnan", "isnan_v2");
  AddUnary(&e, "isinf", "isinf_v2");
  AddUnary(&e, "isfinite", "isfinite_v2");
  e.push_back({"scale", "scale", {"X", "@scale|ScaleTensor"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"softmax", "softmax", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"log_softmax", "log_softmax", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"prelu", "prelu", {"X", "Alpha"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"cast", "cast", {"X"}, {"Out"}, {{"dtype", "out_dtype"}}, {}, CastDtypes});
  e.push_back({"clip", "clip", {"X", "@min|Min", "@max|Max"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"where", "where", {"Condition", "X", "Y"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"dropout",
               "dropout",
               {"X", "Seed", "@dropout_prob"},
               {"Out", "Mask"},
               {{"mode", "dropout_implementation"}},
               {},
               nullptr});

  // Convolution, normalisation, pooling.
  for (const char* op : {"conv2d", "depthwise_conv2d", "conv3d"}) {
    e.push_back({op, op, {"Input", "Filter"}, {"Output"}, {}, {}, nullptr});
  }
  for (const char* op : {"conv2d_transpose", "depthwise_conv2d_transpose"}) {
    e.push_back({op,
                 op,
                 {"Input", "Filter", "@output_size|OutputSizeTensorList|OutputSizeTensorList"},
                 {"Output"},
                 {},
                 {},
                 nullptr});
  }
  e.push_back(
      {"conv3d_transpose", "conv3d_transpose", {"Input", "Filter"}, {"Output"}, {}, {}, nullptr});
  e.push_back({"deformable_conv",
               "deformable_conv",
               {"Input", "Offset", "Filter", "Mask"},
               {"Output"},
               {},
               {},
               nullptr});
  e.push_back({"batch_norm",
               "batch_norm",
               {"X", "Mean", "Variance", "Scale", "Bias"},
               {"Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance", "ReserveSpace"},
               {{"data_format", "data_layout"}},
               {},
               nullptr});
  e.push_back({"layer_norm",
               "layer_norm",
               {"X", "Scale", "Bias"},
               {"Y", "Mean", "Variance"},
               {},
               {},
               nullptr});
  // PaddlePaddle 3.3's CPU build has no float kernel for it (a program exported on a GPU
  // carries it): checked against the formula in pir_translation_test.
  e.push_back({"rms_norm", "rms_norm", {"x", "scale"}, {"y", "invvar"}, {}, {}, nullptr});
  // paddle.incubate.nn.functional.fused_rms_norm / fused_layer_norm and softmax_mask_fuse.
  e.push_back({"fused_rms_norm_quant",
               "fused_rms_norm_quant",
               {"x", "bias", "residual", "norm_weight", "norm_bias"},
               {"out", "residual_out", "inv_var"},
               {},
               {},
               nullptr});
  e.push_back({"fused_bias_residual_layernorm",
               "fused_bias_residual_layernorm",
               {"x", "bias", "residual", "norm_weight", "norm_bias"},
               {"out", "residual_out", "mean", "variance"},
               {},
               {},
               nullptr});
  e.push_back(
      {"fused_softmax_mask", "fused_softmax_mask", {"X", "Mask"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"fused_softmax_mask_upper_triangle",
               "fused_softmax_mask_upper_triangle",
               {"X"},
               {"Out"},
               {},
               {},
               nullptr});
  e.push_back({"group_norm",
               "group_norm",
               {"X", "Scale", "Bias"},
               {"Y", "Mean", "Variance"},
               {{"data_format", "data_layout"}},
               {},
               nullptr});
  e.push_back({"instance_norm",
               "instance_norm",
               {"X", "Scale", "Bias"},
               {"Y", "SavedMean", "SavedVariance"},
               {},
               {},
               nullptr});
  e.push_back({"affine_channel",
               "affine_channel",
               {"X", "Scale", "Bias"},
               {"Out"},
               {{"data_format", "data_layout"}},
               {},
               nullptr});
  e.push_back({"pool2d", "pool2d", {"X", "@ksize"}, {"Out"}, {}, {}, nullptr});
  // pool3d and lp_pool2d keep their kernel sizes attributes in PIR.
  e.push_back({"lp_pool2d", "lp_pool2d", {"X"}, {"Out"}, {{"kernel_size", "ksize"}}, {}, nullptr});
  e.push_back({"pool3d", "pool3d", {"X"}, {"Out"}, {{"kernel_size", "ksize"}}, {}, nullptr});
  for (const char* op : {"frame", "overlap_add"}) {
    e.push_back({op, op, {"X"}, {"Out"}, {}, {}, nullptr});
  }
  // Fourier transforms and complex values.
  for (const char* op : {"fft_c2c", "fft_r2c", "fft_c2r", "as_complex", "as_real", "real", "imag",
                         "conj", "angle"}) {
    e.push_back({op, op, {"X"}, {"Out"}, {}, {}, nullptr});
  }
  e.push_back({"complex", "complex", {"X", "Y"}, {"Out"}, {}, {}, nullptr});
  for (const char* op : {"fractional_max_pool2d", "fractional_max_pool3d"}) {
    e.push_back({op, op, {"x"}, {"out", "mask"}, {}, {}, nullptr});
  }
  for (const char* op : {"max_pool2d_with_index", "max_pool3d_with_index"}) {
    e.push_back({op, op, {"X"}, {"Out", "Mask"}, {{"kernel_size", "ksize"}}, {}, nullptr});
  }
  e.push_back({"lrn", "lrn", {"X"}, {"Out", "MidOut"}, {}, {}, nullptr});

  // Linear algebra.
  e.push_back({"matmul",
               "matmul_v2",
               {"X", "Y"},
               {"Out"},
               {{"transpose_x", "trans_x"}, {"transpose_y", "trans_y"}},
               {},
               nullptr});
  e.push_back({"bmm", "bmm", {"X", "Y"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"embedding",
               "lookup_table_v2",
               {"Ids", "W"},
               {"Out"},
               {{"sparse", "is_sparse"}},
               {},
               nullptr});

  // Shapes and copies.
  e.push_back({"reshape",
               "reshape2",
               {"X", "@shape|Shape|ShapeTensor"},
               {"Out", "XShape"},
               {},
               {},
               nullptr});
  e.push_back({"flatten", "flatten_contiguous_range", {"X"}, {"Out", "XShape"}, {}, {}, nullptr});
  e.push_back(
      {"transpose", "transpose2", {"X"}, {"Out", "XShape"}, {{"perm", "axis"}}, {}, nullptr});
  e.push_back({"squeeze",
               "squeeze2",
               {"X", "@axes|AxesTensor|AxesTensorList"},
               {"Out", "XShape"},
               {},
               {},
               nullptr});
  e.push_back({"unsqueeze",
               "unsqueeze2",
               {"X", "@axes|AxesTensor|AxesTensorList"},
               {"Out", "XShape"},
               {},
               {},
               nullptr});
  e.push_back({"concat", "concat", {"X*", "@axis|AxisTensor"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"split",
               "split",
               {"X", "@sections|SectionsTensorList", "@axis|AxisTensor"},
               {"Out*"},
               {},
               {{"num", 0}},
               nullptr});
  e.push_back({"split_with_num", "split", {"X", "@axis|AxisTensor"}, {"Out*"}, {}, {}, nullptr});
  e.push_back({"stack", "stack", {"X*"}, {"Y"}, {}, {}, nullptr});
  e.push_back({"unstack", "unstack", {"X"}, {"Y*"}, {}, {}, nullptr});
  e.push_back({"unbind", "unbind", {"X"}, {"Out*"}, {}, {}, nullptr});
  e.push_back(
      {"slice",
       "slice",
       {"Input", "@starts|StartsTensor|StartsTensorList", "@ends|EndsTensor|EndsTensorList"},
       {"Out"},
       {},
       {},
       nullptr});
  e.push_back({"strided_slice",
               "strided_slice",
               {"Input", "@starts|StartsTensor|StartsTensorList", "@ends|EndsTensor|EndsTensorList",
                "@strides|StridesTensor|StridesTensorList"},
               {"Out"},
               {},
               {},
               nullptr});
  e.push_back({"set_value",
               "set_value",
               {"Input", "@starts|StartsTensorList|StartsTensorList",
                "@ends|EndsTensorList|EndsTensorList", "@steps|StepsTensorList|StepsTensorList"},
               {"Out"},
               {},
               {},
               SetValueTypedValues});
  e.push_back({"set_value_with_tensor",
               "set_value",
               {"Input", "ValueTensor", "@starts|StartsTensorList|StartsTensorList",
                "@ends|EndsTensorList|EndsTensorList", "@steps|StepsTensorList|StepsTensorList"},
               {"Out"},
               {},
               {},
               nullptr});
  e.push_back({"expand",
               "expand_v2",
               {"X", "@shape|Shape|expand_shapes_tensor"},
               {"Out"},
               {},
               {},
               nullptr});
  e.push_back({"expand_as", "expand_as_v2", {"X", "Y"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"tile",
               "tile",
               {"X", "@repeat_times|RepeatTimes|repeat_times_tensor"},
               {"Out"},
               {},
               {},
               nullptr});
  e.push_back({"flip", "flip", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"roll", "roll", {"X", "@shifts|ShiftsTensor"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"pad", "pad", {"X", "@pad_value"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"pad3d",
               "pad3d",
               {"X", "@paddings|Paddings"},
               {"Out"},
               {{"pad_value", "value"}},
               {},
               nullptr});
  e.push_back({"pixel_shuffle", "pixel_shuffle", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"channel_shuffle", "channel_shuffle", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"shuffle_channel", "shuffle_channel", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"numel", "size", {"Input"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"shape", "shape", {"Input"}, {"Out"}, {}, {}, nullptr});

  // Indexing.
  e.push_back({"gather", "gather", {"X", "Index", "@axis|Axis"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"gather_nd", "gather_nd", {"X", "Index"}, {"Out"}, {}, {}, nullptr});
  e.push_back(
      {"index_select", "index_select", {"X", "Index"}, {"Out"}, {{"axis", "dim"}}, {}, nullptr});
  e.push_back({"take_along_axis",
               "take_along_axis",
               {"Input", "Index"},
               {"Result"},
               {{"axis", "Axis"}},
               {},
               nullptr});
  e.push_back({"scatter", "scatter", {"X", "Ids", "Updates"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"one_hot",
               "one_hot_v2",
               {"X", "@depth|depth_tensor"},
               {"Out"},
               {},
               {{"dtype", static_cast<int>(platform::DataType::FLOAT32)}},
               nullptr});

  // Reductions, scans, sorting.
  for (const auto& [pir, legacy] :
       std::vector<std::pair<std::string, std::string>>{{"sum", "reduce_sum"},
                                                        {"mean", "reduce_mean"},
                                                        {"max", "reduce_max"},
                                                        {"min", "reduce_min"},
                                                        {"prod", "reduce_prod"}}) {
    e.push_back({pir,
                 legacy,
                 {"X", "@dim"},
                 {"Out"},
                 {{"keepdim", "keep_dim"}, {"dtype", "out_dtype"}},
                 {},
                 pir == "sum" ? SumDtypes : ReduceAllWhenNoAxis});
  }
  for (const auto& [pir, legacy] : std::vector<std::pair<std::string, std::string>>{
           {"all", "reduce_all"},
           {"any", "reduce_any"},
           {"amax", "reduce_amax"},
           {"amin", "reduce_amin"}}) {  // Their axes are attributes in PIR.
    e.push_back({pir,
                 legacy,
                 {"X"},
                 {"Out"},
                 {{"axis", "dim"}, {"keepdim", "keep_dim"}},
                 {},
                 ReduceAllWhenNoAxis});
  }
  e.push_back({"mean_all", "mean", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"logsumexp", "logsumexp", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"argmax", "arg_max", {"X", "@axis"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"argmin", "arg_min", {"X", "@axis"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"argsort", "argsort", {"X"}, {"Out", "Indices"}, {}, {}, nullptr});
  e.push_back({"topk", "top_k_v2", {"X", "@k|K"}, {"Out", "Indices"}, {}, {}, nullptr});
  e.push_back({"cumsum", "cumsum", {"X", "@axis"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"cumprod", "cumprod", {"X"}, {"Out"}, {}, {}, nullptr});

  // Creation.
  e.push_back({"full_with_tensor",
               "fill_constant",
               {"@value|ValueTensor", "@shape|ShapeTensor|ShapeTensorList"},
               {"Out"},
               {},
               {},
               nullptr});
  e.push_back({"full_batch_size_like",
               "fill_constant_batch_size_like",
               {"Input"},
               {"Out"},
               {},
               {},
               nullptr});
  e.push_back({"full_like", "fill_any_like", {"X", "@value"}, {"Out"}, {}, {}, nullptr});

  // Interpolation.
  for (const char* method : {"bilinear", "nearest", "bicubic", "linear", "trilinear"}) {
    const std::string pir = std::string(method) + "_interp";
    e.push_back({pir,
                 pir + "_v2",
                 {"X", "OutSize", "SizeTensor*", "Scale"},
                 {"Out"},
                 {{"data_format", "data_layout"}},
                 {},
                 nullptr});
  }

  // Sampling, rearranging and the like (vision models).
  e.push_back({"affine_grid",
               "affine_grid",
               {"Theta", "@output_shape|OutputShape"},
               {"Output"},
               {},
               {},
               nullptr});
  e.push_back({"grid_sample", "grid_sampler", {"X", "Grid"}, {"Output"}, {}, {}, nullptr});
  e.push_back({"pixel_unshuffle", "pixel_unshuffle", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"maxout", "maxout", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"temporal_shift", "temporal_shift", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"unfold", "unfold", {"X"}, {"Y"}, {}, {}, nullptr});
  e.push_back({"meshgrid", "meshgrid", {"X*"}, {"Out*"}, {}, {}, nullptr});
  e.push_back({"broadcast_tensors", "broadcast_tensors", {"X*"}, {"Out*"}, {}, {}, nullptr});
  e.push_back({"index_sample", "index_sample", {"X", "Index"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"nonzero", "where_index", {"Condition"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"tril", "tril_triu", {"X"}, {"Out"}, {}, {{"lower", true}}, nullptr});
  e.push_back({"triu", "tril_triu", {"X"}, {"Out"}, {}, {{"lower", false}}, nullptr});
  e.push_back({"kthvalue", "kthvalue", {"X"}, {"Out", "Indices"}, {}, {}, nullptr});
  e.push_back({"p_norm", "p_norm", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"norm", "norm", {"X"}, {"Out", "Norm"}, {}, {}, nullptr});
  e.push_back({"clip_by_norm", "clip_by_norm", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"put_along_axis",
               "put_along_axis",
               {"Input", "Index", "Value"},
               {"Result"},
               {{"axis", "Axis"}, {"reduce", "Reduce"}, {"include_self", "Include_self"}},
               {},
               nullptr});
  e.push_back({"roi_align", "roi_align", {"X", "ROIs", "RoisNum"}, {"Out"}, {}, {}, nullptr});
  e.push_back(
      {"roi_pool", "roi_pool", {"X", "ROIs", "RoisNum"}, {"Out", "Argmax"}, {}, {}, nullptr});
  e.push_back({"linspace", "linspace", {"Start", "Stop", "Num"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"eye", "eye", {"@num_rows", "@num_columns"}, {"Out"}, {}, {}, nullptr});

  // Tensor arrays and loop counters (create_array, array_write_ and slice_array_dense, which
  // write or alias an array, are translated in pir_translation.cc).
  e.push_back({"array_read", "read_from_array", {"X", "I"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"array_length", "lod_array_length", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back(
      {"array_to_tensor", "tensor_array_to_tensor", {"X"}, {"Out", "OutIndex"}, {}, {}, nullptr});
  e.push_back({"increment", "increment", {"X"}, {"Out"}, {{"value", "step"}}, {}, nullptr});

  // Recurrent layers (paddle.nn.LSTM, GRU, SimpleRNN); the dropout state PIR passes in is a
  // buffer the ProgramDesc op keeps to itself.
  e.push_back({"rnn",
               "rnn",
               {"Input", "PreState*", "WeightList*", "SequenceLength", ""},
               {"Out", "DropoutState", "State*", "Reserve"},
               {},
               {},
               nullptr});

  // Sequences (LoD tensors).
  e.push_back({"gru",
               "gru",
               {"Input", "H0", "Weight", "Bias"},
               {"BatchGate", "BatchResetHiddenPrev", "BatchHidden", "Hidden"},
               {},
               {},
               nullptr});
  e.push_back({"crf_decoding",
               "crf_decoding",
               {"Emission", "Transition", "Label", "Length"},
               {"ViterbiPath"},
               {},
               {},
               nullptr});
  e.push_back({"sequence_pool", "sequence_pool", {"X"}, {"Out", "MaxIndex"}, {}, {}, nullptr});
  e.push_back({"sequence_conv",
               "sequence_conv",
               {"X", "PaddingData", "Filter"},
               {"Out"},
               {{"context_length", "contextLength"},
                {"padding_trainable", "paddingTrainable"},
                {"context_start", "contextStart"},
                {"context_stride", "contextStride"}},
               {},
               nullptr});
  e.push_back({"sequence_softmax", "sequence_softmax", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"sequence_expand", "sequence_expand", {"X", "Y"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"sequence_reverse", "sequence_reverse", {"X"}, {"Y"}, {}, {}, nullptr});
  e.push_back({"sequence_concat", "sequence_concat", {"X*"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"row_conv", "row_conv", {"X", "Filter"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"im2sequence", "im2sequence", {"X", "Y"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"lstm",
               "lstm",
               {"Input", "H0", "C0", "Weight", "Bias"},
               {"Hidden", "Cell", "BatchGate", "BatchCellPreAct"},
               {},
               {},
               nullptr});
  e.push_back({"gru_unit",
               "gru_unit",
               {"Input", "HiddenPrev", "Weight", "Bias"},
               {"Gate", "ResetHiddenPrev", "Hidden"},
               {},
               {},
               nullptr});
  e.push_back({"beam_search",
               "beam_search",
               {"pre_ids", "pre_scores", "ids", "scores"},
               {"selected_ids", "selected_scores", "parent_idx"},
               {},
               {},
               nullptr});
  e.push_back({"cvm", "cvm", {"X", "CVM"}, {"Y"}, {}, {}, nullptr});
  // The fusions of PaddlePaddle's CPU inference passes for sequence models, as a program
  // PaddlePaddle read from a ProgramDesc holds them.
  e.push_back({"fusion_gru",
               "fusion_gru",
               {"X", "H0", "WeightX", "WeightH", "Bias"},
               {"ReorderedH0", "XX", "BatchedInput", "BatchedOut", "Hidden"},
               {},
               {},
               nullptr});
  e.push_back({"fusion_lstm",
               "fusion_lstm",
               {"X", "WeightX", "WeightH", "Bias", "H0", "C0"},
               {"Hidden", "Cell", "XX", "BatchedInput", "BatchedHidden", "BatchedCell",
                "ReorderedH0", "ReorderedC0", "CheckedCell"},
               {},
               {},
               nullptr});
  e.push_back({"fusion_seqconv_eltadd_relu",
               "fusion_seqconv_eltadd_relu",
               {"X", "Filter", "Bias"},
               {"Out", "ColMat"},
               {{"context_length", "contextLength"},
                {"context_start", "contextStart"},
                {"context_stride", "contextStride"}},
               {},
               nullptr});
  e.push_back({"fusion_repeated_fc_relu",
               "fusion_repeated_fc_relu",
               {"X", "W*", "Bias*"},
               {"ReluOut*", "Out"},
               {},
               {},
               nullptr});
  e.push_back({"fusion_squared_mat_sub",
               "fusion_squared_mat_sub",
               {"X", "Y"},
               {"SquaredX", "SquaredY", "SquaredXY", "Out"},
               {},
               {},
               nullptr});
  e.push_back({"fusion_seqpool_concat", "fusion_seqpool_concat", {"X*"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"fusion_seqpool_cvm_concat",
               "fusion_seqpool_cvm_concat",
               {"X*", "CVM"},
               {"Out"},
               {},
               {},
               nullptr});

  // Quantization (PaddleSlim).
  for (const char* op : {"quantize_linear", "dequantize_linear"}) {
    e.push_back({op,
                 op,
                 {"X", "Scale", "ZeroPoint", "InAccum", "InState"},
                 {"Y", "OutState", "OutAccum", "OutScale"},
                 {},
                 {},
                 nullptr});
  }
  // The fake quantisation of quantisation-aware training (paddle.quantization's quanters
  // and paddle.nn.quant's layers), which a model saved before conversion carries.
  for (const char* op :
       {"fake_quantize_abs_max", "fake_quantize_dequantize_abs_max",
        "fake_channel_wise_quantize_abs_max", "fake_channel_wise_quantize_dequantize_abs_max"}) {
    e.push_back({op, op, {"X"}, {"Out", "OutScale"}, {}, {}, nullptr});
  }
  for (const char* op : {"fake_quantize_moving_average_abs_max",
                         "fake_quantize_dequantize_moving_average_abs_max"}) {
    e.push_back({op,
                 op,
                 {"X", "InScale", "InAccum", "InState"},
                 {"Out", "OutScale", "OutState", "OutAccum"},
                 {},
                 {},
                 nullptr});
  }
  e.push_back({"fake_quantize_range_abs_max",
               "fake_quantize_range_abs_max",
               {"X", "InScale", "Iter"},
               {"Out", "OutScale", "OutScales"},
               {},
               {},
               nullptr});
  e.push_back({"moving_average_abs_max_scale",
               "moving_average_abs_max_scale",
               {"X", "InAccum", "InState"},
               {"Out", "OutScale", "OutState", "OutAccum"},
               {},
               {},
               nullptr});
  for (const char* op : {"fake_dequantize_max_abs", "dequantize_abs_max"}) {
    e.push_back({op, op, {"X", "Scale"}, {"Out"}, {}, {}, nullptr});
  }
  e.push_back({"fake_channel_wise_dequantize_max_abs",
               "fake_channel_wise_dequantize_max_abs",
               {"X", "Scales*"},
               {"Out"},
               {},
               {},
               nullptr});
  e.push_back({"dequantize_log", "dequantize_log", {"X", "Dict"}, {"Out"}, {}, {}, nullptr});
  e.push_back(
      {"lookup_table_dequant", "lookup_table_dequant", {"W", "Ids"}, {"Out"}, {}, {}, nullptr});

  // Detection.
  e.push_back({"anchor_generator",
               "anchor_generator",
               {"Input"},
               {"Anchors", "Variances"},
               {},
               {},
               nullptr});
  e.push_back({"collect_fpn_proposals",
               "collect_fpn_proposals",
               {"MultiLevelRois*", "MultiLevelScores*", "MultiLevelRoIsNum*"},
               {"FpnRois", "RoisNum"},
               {{"post_nms_topn", "post_nms_topN"}},
               {},
               nullptr});
  e.push_back({"yolo_box", "yolo_box", {"X", "ImgSize"}, {"Boxes", "Scores"}, {}, {}, nullptr});
  e.push_back(
      {"prior_box", "prior_box", {"Input", "Image"}, {"Boxes", "Variances"}, {}, {}, nullptr});
  e.push_back({"density_prior_box",
               "density_prior_box",
               {"Input", "Image"},
               {"Boxes", "Variances"},
               {},
               {},
               nullptr});
  e.push_back({"box_coder",
               "box_coder",
               {"PriorBox", "PriorBoxVar", "TargetBox"},
               {"OutputBox"},
               {},
               {},
               nullptr});
  e.push_back({"multiclass_nms3",
               "multiclass_nms3",
               {"BBoxes", "Scores", "RoisNum"},
               {"Out", "Index", "NmsRoisNum"},
               {},
               {},
               nullptr});
  // Results as PaddlePaddle 3.3 types them: vector of rois (float), vector of counts (int32),
  // restore index (int32).
  e.push_back({"generate_proposals",
               "generate_proposals_v2",
               {"Scores", "BboxDeltas", "ImShape", "Anchors", "Variances"},
               {"RpnRois", "RpnRoiProbs", "RpnRoisNum"},
               {{"pre_nms_top_n", "pre_nms_topN"}, {"post_nms_top_n", "post_nms_topN"}},
               {},
               nullptr});
  e.push_back({"distribute_fpn_proposals",
               "distribute_fpn_proposals",
               {"FpnRois", "RoisNum"},
               {"MultiFpnRois*", "MultiLevelRoIsNum*", "RestoreIndex"},
               {},
               {},
               nullptr});
  e.push_back({"matrix_nms",
               "matrix_nms",
               {"BBoxes", "Scores"},
               {"Out", "Index", "RoisNum"},
               {},
               {},
               nullptr});

  // Linear algebra, scans and indexing.
  for (const char* op : {"kron", "dot", "equal_all"}) {
    e.push_back({op, op, {"X", "Y"}, {"Out"}, {}, {}, nullptr});
  }
  for (const char* op : {"logcumsumexp", "renorm", "shard_index", "matrix_power"}) {
    e.push_back({op, op, {"X"}, {"Out"}, {}, {}, nullptr});
  }
  for (const char* op : {"diagonal", "trace", "diag_embed"}) {
    e.push_back({op, op, {"Input"}, {"Out"}, {}, {}, nullptr});
  }
  for (const char* op : {"cummax", "cummin"}) {
    e.push_back({op, op, {"x"}, {"out", "indices"}, {}, {}, nullptr});
  }
  e.push_back({"lerp", "lerp", {"X", "Y", "Weight"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"cross", "cross", {"X", "Y"}, {"Out"}, {{"axis", "dim"}}, {}, nullptr});
  e.push_back({"mv", "mv", {"X", "Vec"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"addmm",
               "addmm",
               {"Input", "X", "Y"},
               {"Out"},
               {{"beta", "Beta"}, {"alpha", "Alpha"}},
               {},
               nullptr});
  e.push_back({"einsum", "einsum", {"Operands*"}, {"Out", "", ""}, {}, {}, nullptr});
  e.push_back({"multi_dot", "multi_dot", {"X*"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"inverse", "inverse", {"Input"}, {"Output"}, {}, {}, nullptr});
  e.push_back({"median", "median", {"x"}, {"out", "medians"}, {}, {}, nullptr});
  e.push_back({"crop",
               "crop_tensor",
               {"X", "@shape|Shape|ShapeTensor", "@offsets|Offsets|OffsetsTensor"},
               {"Out"},
               {},
               {},
               nullptr});
  e.push_back({"label_smooth", "label_smooth", {"X", "PriorDist"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"masked_fill", "masked_fill", {"x", "mask", "value"}, {"out"}, {}, {}, nullptr});
  e.push_back({"index_add", "index_add", {"X", "Index", "AddValue"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"index_put", "index_put", {"x", "indices*", "value"}, {"out"}, {}, {}, nullptr});
  e.push_back({"repeat_interleave",
               "repeat_interleave",
               {"X"},
               {"Out"},
               {{"repeats", "Repeats"}, {"axis", "dim"}},
               {},
               nullptr});
  e.push_back({"repeat_interleave_with_tensor_index",
               "repeat_interleave",
               {"X", "RepeatsTensor"},
               {"Out"},
               {{"axis", "dim"}},
               {},
               nullptr});
  e.push_back(
      {"searchsorted", "searchsorted", {"SortedSequence", "Values"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"multiplex", "multiplex", {"X*", "Ids"}, {"Out"}, {}, {}, nullptr});
  for (const char* op : {"isclose", "allclose"}) {
    e.push_back({op, op, {"Input", "Other", "Rtol", "Atol"}, {"Out"}, {}, {}, nullptr});
  }
  e.push_back({"masked_select", "masked_select", {"X", "Mask"}, {"Y"}, {}, {}, nullptr});
  e.push_back({"unique", "unique", {"X"}, {"Out", "Indices", "Index", "Counts"}, {}, {}, nullptr});
  e.push_back({"unique_consecutive",
               "unique_consecutive",
               {"X"},
               {"Out", "Index", "Counts"},
               {},
               {},
               nullptr});
  e.push_back({"histogram", "histogram", {"X", "Weight"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"nanmedian", "nanmedian", {"X"}, {"Out", "MedianIndex"}, {}, {}, nullptr});
  e.push_back(
      {"segment_pool", "segment_pool", {"X", "SegmentIds"}, {"Out", "SummedIds"}, {}, {}, nullptr});
  e.push_back({"logspace", "logspace", {"Start", "Stop", "Num", "Base"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"bincount", "bincount", {"X", "Weights", "@minlength"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"tril_indices", "tril_indices", {}, {"out"}, {}, {}, nullptr});
  e.push_back({"triu_indices", "triu_indices", {}, {"out"}, {}, {}, nullptr});

  // Other ops of vision and sequence models.
  for (const char* op : {"i0", "i0e", "i1", "i1e", "gammaln", "polygamma"}) {
    e.push_back({op, op, {"x"}, {"out"}, {}, {}, nullptr});
  }
  e.push_back(
      {"nms", "nms", {"Boxes"}, {"KeepBoxesIdxs"}, {{"threshold", "iou_threshold"}}, {}, nullptr});
  e.push_back({"psroi_pool", "psroi_pool", {"X", "ROIs", "RoisNum"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"gather_tree", "gather_tree", {"Ids", "Parents"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"viterbi_decode",
               "viterbi_decode",
               {"Input", "Transition", "Length"},
               {"Scores", "Path"},
               {},
               {},
               nullptr});
  e.push_back({"swiglu", "swiglu", {"x", "y"}, {"out"}, {}, {}, nullptr});
  e.push_back({"fold", "fold", {"X"}, {"Y"}, {}, {}, nullptr});
  e.push_back({"unpool",
               "unpool",
               {"X", "Indices", "@output_size|OutputSizeTensorList|OutputSizeTensorList"},
               {"Out"},
               {{"padding", "paddings"}},
               {},
               nullptr});
  e.push_back(
      {"sequence_mask", "sequence_mask", {"X", "@maxlen|MaxLenTensor"}, {"Y"}, {}, {}, nullptr});

  // Sums, creation and rearranging (paddle.add_n, diag, vander, empty_like, flip of 1.x).
  e.push_back({"add_n", "sum", {"X*"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"diag", "diag_v2", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back(
      {"scatter_nd_add", "scatter_nd_add", {"X", "Index", "Updates"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"empty", "empty", {"@shape|ShapeTensor|ShapeTensorList"}, {"Out"}, {}, {}, nullptr});
  // Any value will do: PaddlePaddle leaves it uninitialised.
  e.push_back({"empty_like", "fill_any_like", {"X"}, {"Out"}, {}, {{"value", 0.0f}}, nullptr});
  e.push_back({"reverse", "reverse", {"X", "@axis"}, {"Out"}, {}, {}, nullptr});
  // What PaddlePaddle makes of a 1.x reshape and matmul when it reads a ProgramDesc as PIR.
  e.push_back(
      {"legacy_reshape", "reshape", {"X", "@shape|Shape|ShapeTensor"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"legacy_matmul",
               "matmul",
               {"X", "Y"},
               {"Out"},
               {{"transpose_x", "transpose_X"}, {"transpose_y", "transpose_Y"}},
               {},
               nullptr});
  e.push_back({"fc", "fc", {"Input", "W", "Bias"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"lookup_table", "lookup_table", {"W", "Ids"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"matmul_with_flatten", "mul", {"X", "Y"}, {"Out"}, {}, {}, nullptr});
  // Copies between devices and ops that only order others (a program optimised for a GPU,
  // a debugging print).
  for (const char* op : {"memcpy", "memcpy_d2h", "memcpy_h2d"}) {
    e.push_back({op, op, {"X"}, {"Out"}, {}, {}, nullptr});
  }
  e.push_back({"print", "print", {"In"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"nop", "nop", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"depend", "depend", {"X", "Dep*"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"seed", "seed", {}, {"Out"}, {}, {}, nullptr});
  // A layout pass's transpose (transfer_layout_pass).
  e.push_back({"trans_layout", "transpose", {"X"}, {"Out"}, {{"perm", "axis"}}, {}, nullptr});
  // One image (a PIR value carries no LoD); PaddlePaddle's own kernel needs a LoD there.
  e.push_back({"box_clip", "box_clip", {"Input", "ImInfo"}, {"Output"}, {}, {}, nullptr});
  for (const char* op : {"is_empty", "share_data", "gumbel_softmax", "l1_norm", "squared_l2_norm",
                         "identity_loss", "bernoulli", "fill_diagonal"}) {
    e.push_back({op, op, {"X"}, {"Out"}, {}, {}, nullptr});
  }
  for (const char* op : {"rint"}) e.push_back({op, op, {"x"}, {"out"}, {}, {}, nullptr});
  for (const char* op : {"gammaincc", "bitwise_left_shift", "bitwise_right_shift"}) {
    e.push_back({op, op, {"x", "y"}, {"out"}, {}, {}, nullptr});
  }
  e.push_back({"mode", "mode", {"X"}, {"Out", "Indices"}, {}, {}, nullptr});
  e.push_back({"rrelu", "rrelu", {"X"}, {"Out", "Noise"}, {}, {}, nullptr});
  e.push_back({"frobenius_norm", "frobenius_norm", {"X", "@dim"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"reduce_as", "reduce_as", {"X", "Target"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"baddbmm",
               "baddbmm",
               {"Input", "X", "Y"},
               {"Out"},
               {{"beta", "Beta"}, {"alpha", "Alpha"}},
               {},
               nullptr});
  e.push_back(
      {"fill_diagonal_tensor", "fill_diagonal_tensor", {"X", "Y"}, {"Out"}, {}, {}, nullptr});

  // Linear algebra (paddle.linalg).
  e.push_back({"cholesky", "cholesky", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"det", "determinant", {"Input"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"slogdet", "slogdeterminant", {"Input"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"qr", "qr", {"X"}, {"Q", "R"}, {}, {}, nullptr});
  e.push_back({"svd", "svd", {"X"}, {"U", "S", "VH"}, {}, {}, nullptr});
  e.push_back({"svdvals", "svdvals", {"x"}, {"s"}, {}, {}, nullptr});
  e.push_back({"lu_solve", "lu_solve", {"b", "lu", "pivots"}, {"out"}, {}, {}, nullptr});
  e.push_back({"eigvals", "eigvals", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"eig", "eig", {"X"}, {"Eigenvalues", "Eigenvectors"}, {}, {}, nullptr});
  e.push_back({"lstsq",
               "lstsq",
               {"X", "Y", "@rcond"},
               {"Solution", "Residuals", "Rank", "SingularValues"},
               {},
               {},
               nullptr});
  e.push_back({"eigh", "eigh", {"X"}, {"Eigenvalues", "Eigenvectors"}, {}, {}, nullptr});
  e.push_back({"eigvalsh",
               "eigvalsh",
               {"X"},
               {"Eigenvalues", "Eigenvectors"},
               {{"uplo", "UPLO"}},
               {},
               nullptr});
  e.push_back({"lu", "lu", {"X"}, {"Out", "Pivots", "Infos"}, {{"pivot", "pivots"}}, {}, nullptr});
  e.push_back({"lu_unpack", "lu_unpack", {"X", "Pivots"}, {"Pmat", "L", "U"}, {}, {}, nullptr});
  e.push_back({"matrix_rank", "matrix_rank", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"matrix_rank_tol", "matrix_rank", {"X", "TolTensor"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"matrix_rank_atol_rtol",
               "matrix_rank_atol_rtol",
               {"x", "atol", "rtol"},
               {"out"},
               {},
               {},
               nullptr});
  for (const char* op : {"cholesky_solve", "triangular_solve", "solve", "dist"}) {
    e.push_back({op, op, {"X", "Y"}, {"Out"}, {}, {}, nullptr});
  }
  e.push_back({"bilinear",
               "bilinear_tensor_product",
               {"X", "Y", "Weight", "Bias"},
               {"Out"},
               {},
               {},
               nullptr});
  e.push_back({"spectral_norm", "spectral_norm", {"Weight", "U", "V"}, {"Out"}, {}, {}, nullptr});

  // Random numbers (their shapes and bounds as constants).
  e.push_back({"uniform",
               "uniform_random",
               {"@shape|ShapeTensor|ShapeTensorList", "@min", "@max"},
               {"Out"},
               {},
               {},
               nullptr});
  e.push_back({"gaussian",
               "gaussian_random",
               {"@shape|ShapeTensor|ShapeTensorList"},
               {"Out"},
               {},
               {},
               nullptr});
  e.push_back(
      {"randint", "randint", {"@shape|ShapeTensor|ShapeTensorList"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"randperm", "randperm", {}, {"Out"}, {}, {}, nullptr});
  e.push_back({"multinomial", "multinomial", {"X", "@num_samples"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"poisson", "poisson", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"standard_gamma", "standard_gamma", {"x"}, {"out"}, {}, {}, nullptr});
  e.push_back({"binomial", "binomial", {"count", "prob"}, {"out"}, {}, {}, nullptr});
  e.push_back({"dirichlet", "dirichlet", {"Alpha"}, {"Out"}, {}, {}, nullptr});
  // Tensor.exponential_ (PIR has only the in-place op; its result is a new variable here).
  e.push_back({"exponential", "exponential", {"X"}, {"Out"}, {{"lam", "lambda"}}, {}, nullptr});
  e.push_back(
      {"truncated_gaussian_random", "truncated_gaussian_random", {}, {"Out"}, {}, {}, nullptr});

  // Losses, metrics and decoders of training and evaluation programs.
  e.push_back({"cross_entropy_with_softmax",
               "softmax_with_cross_entropy",
               {"Logits", "Label"},
               {"Softmax", "Loss"},
               {},
               {},
               nullptr});
  e.push_back({"bce_loss", "bce_loss", {"X", "Label"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"sigmoid_cross_entropy_with_logits",
               "sigmoid_cross_entropy_with_logits",
               {"X", "Label", "pos_weight"},
               {"Out"},
               {},
               {},
               nullptr});
  e.push_back(
      {"nll_loss", "nll_loss", {"X", "Label", "Weight"}, {"Out", "Total_weight"}, {}, {}, nullptr});
  e.push_back({"kldiv_loss", "kldiv_loss", {"X", "Target"}, {"Loss"}, {}, {}, nullptr});
  e.push_back({"huber_loss", "huber_loss", {"X", "Y"}, {"Out", "Residual"}, {}, {}, nullptr});
  e.push_back({"log_loss", "log_loss", {"Predicted", "Labels"}, {"Loss"}, {}, {}, nullptr});
  e.push_back({"hinge_loss", "hinge_loss", {"Logits", "Labels"}, {"Loss"}, {}, {}, nullptr});
  e.push_back({"accuracy",
               "accuracy",
               {"Out", "Indices", "Label"},
               {"Accuracy", "Correct", "Total"},
               {},
               {},
               nullptr});
  // paddle.geometric's message passing.
  e.push_back({"reindex_graph",
               "graph_reindex",
               {"X", "Neighbors", "Count", "HashTable_Value", "HashTable_Index"},
               {"Reindex_Src", "Reindex_Dst", "Out_Nodes"},
               {},
               {},
               nullptr});
  e.push_back({"add_position_encoding", "add_position_encoding", {"X"}, {"Out"}, {}, {}, nullptr});
  e.push_back({"send_u_recv",
               "graph_send_recv",
               {"X", "Src_index", "Dst_index", "@out_size|Out_size"},
               {"Out", "Dst_count"},
               {},
               {},
               nullptr});
  e.push_back({"send_ue_recv",
               "graph_send_ue_recv",
               {"X", "Y", "Src_index", "Dst_index", "@out_size|Out_size"},
               {"Out", "Dst_count"},
               {},
               {},
               nullptr});
  e.push_back(
      {"send_uv", "graph_send_uv", {"x", "y", "src_index", "dst_index"}, {"out"}, {}, {}, nullptr});
  // ModelAverage's sums (average_accumulates_ in PIR, in place).
  e.push_back({"average_accumulates",
               "average_accumulates",
               {"param", "in_sum_1", "in_sum_2", "in_sum_3", "in_num_accumulates",
                "in_old_num_accumulates", "in_num_updates"},
               {"out_sum_1", "out_sum_2", "out_sum_3", "out_num_accumulates",
                "out_old_num_accumulates", "out_num_updates"},
               {},
               {},
               nullptr});
  e.push_back({"hsigmoid_loss",
               "hierarchical_sigmoid",
               {"X", "Label", "W", "Bias", "PathTable", "PathCode"},
               {"Out", "PreOut", "W_Out"},
               {},
               {},
               nullptr});
  e.push_back({"yolo_loss",
               "yolov3_loss",
               {"X", "GTBox", "GTLabel", "GTScore"},
               {"Loss", "ObjectnessMask", "GTMatchMask"},
               {},
               {},
               nullptr});
  e.push_back({"bipartite_match",
               "bipartite_match",
               {"DistMat"},
               {"ColToRowMatchIndices", "ColToRowMatchDist"},
               {},
               {},
               nullptr});
  e.push_back(
      {"chunk_eval",
       "chunk_eval",
       {"Inference", "Label", "SeqLength"},
       {"Precision", "Recall", "F1-Score", "NumInferChunks", "NumLabelChunks", "NumCorrectChunks"},
       {},
       {},
       nullptr});
  e.push_back({"warpctc",
               "warpctc",
               {"Logits", "Label", "LogitsLength", "LabelLength"},
               {"Loss", "WarpCTCGrad"},
               {},
               {},
               nullptr});
  e.push_back({"ctc_align",
               "ctc_align",
               {"Input", "InputLength"},
               {"Output", "OutputLength"},
               {},
               {},
               nullptr});
  e.push_back({"edit_distance",
               "edit_distance",
               {"Hyps", "Refs", "HypsLength", "RefsLength"},
               {"SequenceNum", "Out"},
               {},
               {},
               nullptr});
  return e;
}

}  // namespace

const char* TypedValuesField(platform::DataType dtype, AttrType* type) {
  switch (dtype) {
    case platform::DataType::BOOL:
      *type = AttrType::INTS;
      return "bool_values";
    case platform::DataType::INT32:
      *type = AttrType::INTS;
      return "int32_values";
    case platform::DataType::INT64:
      *type = AttrType::LONGS;
      return "int64_values";
    case platform::DataType::FLOAT32:
      *type = AttrType::FLOATS;
      return "fp32_values";
    case platform::DataType::FLOAT64:
      *type = AttrType::FLOAT64S;
      return "fp64_values";
    default:
      return nullptr;
  }
}

namespace {

const std::map<std::string, OpTranslation>& Table() {
  static const std::map<std::string, OpTranslation> kTable = [] {
    std::map<std::string, OpTranslation> table;
    for (auto& entry : BuildEntries()) table[entry.pir_name] = std::move(entry);
    return table;
  }();
  return kTable;
}

}  // namespace

const OpTranslation* FindOpTranslation(const std::string& name) {
  const auto& table = Table();
  auto it = table.find(name);
  if (it == table.end() && name.size() > 1 && name.back() == '_') {
    it = table.find(name.substr(0, name.size() - 1));
  }
  return it == table.end() ? nullptr : &it->second;
}

std::vector<const OpTranslation*> AllOpTranslations() {
  std::vector<const OpTranslation*> all;
  for (const auto& [name, entry] : Table()) all.push_back(&entry);
  return all;
}

}  // namespace pir
}  // namespace framework
}  // namespace paddle_like

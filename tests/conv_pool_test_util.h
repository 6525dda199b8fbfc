// Geometry cases of the conv2d, conv2d_transpose and pool2d tests (plain, oneDNN, cuDNN,
// forward and gradients): the attributes an op gets from a case, and a readable name for
// failure messages.
#pragma once

#include <string>
#include <vector>

#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {

struct ConvCase {
  DDim input;   // NCHW, or NHWC when data_format is "NHWC".
  DDim filter;  // [C_out, C_in / groups, kh, kw].
  std::vector<int> strides = {1, 1};
  std::vector<int> paddings = {0, 0};
  std::vector<int> dilations = {1, 1};
  int groups = 1;
  std::string algorithm = "EXPLICIT";
  std::string data_format = "NCHW";
  std::string op = "conv2d";

  AttributeMap Attrs() const {
    return {{"strides", strides},     {"paddings", paddings},        {"dilations", dilations},
            {"groups", groups},       {"padding_algorithm", algorithm},
            {"data_format", data_format}};
  }
  std::string Name() const {
    std::string s = op + " Input " + input.ToString() + " Filter " + filter.ToString() +
                    " strides " + std::to_string(strides[0]) + "," + std::to_string(strides[1]) +
                    " paddings";
    for (int p : paddings) s += " " + std::to_string(p);
    s += " dilations " + std::to_string(dilations[0]) + "," + std::to_string(dilations[1]) +
         " groups " + std::to_string(groups) + " " + algorithm + " " + data_format;
    return s;
  }
};

struct ConvTransposeCase {
  DDim input;   // NCHW, or NHWC when data_format is "NHWC".
  DDim filter;  // [C_in, C_out / groups, kh, kw].
  std::vector<int> strides = {1, 1};
  std::vector<int> paddings = {0, 0};
  std::vector<int> dilations = {1, 1};
  int groups = 1;
  std::vector<int> output_padding = {};
  std::vector<int> output_size = {};
  std::string algorithm = "EXPLICIT";
  std::string data_format = "NCHW";
  std::string op = "conv2d_transpose";

  AttributeMap Attrs() const {
    return {{"strides", strides},
            {"paddings", paddings},
            {"dilations", dilations},
            {"groups", groups},
            {"output_padding", output_padding},
            {"output_size", output_size},
            {"padding_algorithm", algorithm},
            {"data_format", data_format}};
  }
  std::string Name() const {
    std::string s = op + " Input " + input.ToString() + " Filter " + filter.ToString() +
                    " strides " + std::to_string(strides[0]) + "," + std::to_string(strides[1]) +
                    " paddings";
    for (int p : paddings) s += " " + std::to_string(p);
    s += " dilations " + std::to_string(dilations[0]) + "," + std::to_string(dilations[1]) +
         " groups " + std::to_string(groups) + " " + algorithm + " " + data_format;
    for (int p : output_padding) s += " output_padding " + std::to_string(p);
    for (int p : output_size) s += " output_size " + std::to_string(p);
    return s;
  }
};

struct PoolCase {
  DDim x;  // NCHW, or NHWC when data_format is "NHWC".
  std::string type;
  std::vector<int> ksize;
  std::vector<int> strides = {1, 1};
  std::vector<int> paddings = {0, 0};
  bool exclusive = true;
  bool ceil_mode = false;
  bool global = false;
  bool adaptive = false;
  std::string algorithm = "EXPLICIT";
  std::string data_format = "NCHW";

  AttributeMap Attrs() const {
    return {{"pooling_type", type},     {"ksize", ksize},
            {"strides", strides},       {"paddings", paddings},
            {"exclusive", exclusive},   {"ceil_mode", ceil_mode},
            {"global_pooling", global}, {"adaptive", adaptive},
            {"padding_algorithm", algorithm}, {"data_format", data_format}};
  }
  std::string Name() const {
    std::string s = type + " X " + x.ToString() + " ksize " + std::to_string(ksize[0]) + "," +
                    std::to_string(ksize[1]) + " strides " + std::to_string(strides[0]) + "," +
                    std::to_string(strides[1]) + " paddings";
    for (int p : paddings) s += " " + std::to_string(p);
    s += std::string(exclusive ? "" : " inclusive") + (ceil_mode ? " ceil_mode" : "") +
         (global ? " global" : "") + (adaptive ? " adaptive" : "") + " " + algorithm + " " +
         data_format;
    return s;
  }
};

}  // namespace testing
}  // namespace paddle_like

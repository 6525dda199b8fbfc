// How the commands show and name tensors: values for the terminal, .npy file names.
#pragma once

#include <string>

#include "framework/dense_tensor.h"

namespace paddle_like {
namespace cli {

// Nested like NumPy for small tensors (up to 16 values), else the first 8 and the count.
std::string FormatValues(const framework::DenseTensor& t);
// Element i of any real, integer or bool tensor as a double.
double ValueAt(const framework::DenseTensor& t, int64_t i);
// `<name>.npy` with every '/' of the variable name made '_'.
std::string OutputFileName(const std::string& name);

}  // namespace cli
}  // namespace paddle_like

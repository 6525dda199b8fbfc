// Runs a saved PaddlePaddle inference model on one float32 .npy input through the
// installed paddle_like inference library, prints the first output's shape and first values,
// and, given an expected .npy, checks the output against it (exit code 1 when it differs).
//
//   infer_npy MODEL_DIR INPUT.npy [EXPECTED.npy]
#include <paddle_like/inference_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// A little-endian float32 C-order .npy file: its shape and values.
struct Array {
  std::vector<int> shape;
  std::vector<float> values;
};

Array ReadFloatNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  char magic[8];
  in.read(magic, 8);
  if (!in || std::string(magic, 6) != "\x93NUMPY") throw std::runtime_error(path + ": not .npy");
  uint32_t header_len = 0;
  if (magic[6] == 1) {
    uint16_t len16 = 0;
    in.read(reinterpret_cast<char*>(&len16), 2);
    header_len = len16;
  } else {
    in.read(reinterpret_cast<char*>(&header_len), 4);
  }
  std::string header(header_len, ' ');
  in.read(&header[0], header_len);
  if (header.find("'<f4'") == std::string::npos || header.find("'fortran_order': False") ==
                                                         std::string::npos) {
    throw std::runtime_error(path + ": expected little-endian float32 in C order");
  }
  Array a;
  const size_t open = header.find('(', header.find("'shape'"));
  std::stringstream dims(header.substr(open + 1, header.find(')', open) - open - 1));
  std::string dim;
  size_t count = 1;
  while (std::getline(dims, dim, ',')) {
    if (dim.find_first_not_of(' ') == std::string::npos) continue;
    a.shape.push_back(std::stoi(dim));
    count *= static_cast<size_t>(a.shape.back());
  }
  a.values.resize(count);
  in.read(reinterpret_cast<char*>(a.values.data()), static_cast<std::streamsize>(count * 4));
  if (!in) throw std::runtime_error(path + ": truncated data");
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: infer_npy MODEL_DIR INPUT.npy [EXPECTED.npy]\n";
    return 2;
  }
  try {
    paddle_like::infer::Config config(argv[1]);
    config.SetCpuMathLibraryNumThreads(1);
    auto predictor = paddle_like::infer::CreatePredictor(config);

    const Array input = ReadFloatNpy(argv[2]);
    auto in = predictor->GetInputHandle(predictor->GetInputNames()[0]);
    in->Reshape(input.shape);
    in->CopyFromCpu(input.values.data());
    if (!predictor->Run()) return 1;

    auto out = predictor->GetOutputHandle(predictor->GetOutputNames()[0]);
    std::vector<float> result(static_cast<size_t>(out->numel()));
    out->CopyToCpu(result.data());
    std::cout << out->name() << " shape [";
    for (size_t i = 0; i < out->shape().size(); ++i) std::cout << (i ? ", " : "") << out->shape()[i];
    std::cout << "] first values:";
    for (size_t i = 0; i < result.size() && i < 5; ++i) std::cout << " " << result[i];
    std::cout << "\n";

    if (argc > 3) {
      const Array expected = ReadFloatNpy(argv[3]);
      if (expected.values.size() != result.size()) {
        std::cerr << "expected " << expected.values.size() << " values, got " << result.size()
                  << "\n";
        return 1;
      }
      double worst = 0;
      for (size_t i = 0; i < result.size(); ++i) {
        const double err = std::fabs(result[i] - expected.values[i]) /
                           (1e-5 + 1e-4 * std::fabs(expected.values[i]));
        if (err > worst) worst = err;
      }
      std::cout << (worst <= 1 ? "matches" : "DIFFERS FROM") << " " << argv[3] << "\n";
      return worst <= 1 ? 0 : 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}

// `paddle_like infer`: runs a saved inference model through the inference library
// (paddle_like/inference_api.h) on .npy inputs, prints each output, and for a classifier
// ([N, classes] output) the top-5 classes of each row.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "framework/npy_io.h"
#include "paddle_like/cli/args.h"
#include "paddle_like/cli/commands.h"
#include "paddle_like/cli/lod_arg.h"
#include "paddle_like/cli/tensor_format.h"
#include "paddle_like/inference_api.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace cli {

namespace {

namespace fs = std::filesystem;
using framework::DenseTensor;
using platform::DataType;

constexpr char kInferUsage[] =
    "usage: paddle_like infer (--model DIR | --program FILE [--params FILE])\n"
    "                         --input [NAME=]FILE.npy[@LOD] ... [--out DIR] [--threads T]\n"
    "                         [--no-ir] [--no-onednn]\n"
    "  Runs a saved inference model through the inference library (Config, Predictor).\n"
    "  --model DIR       __model__ (parameters beside it) or one *.pdmodel with its .pdiparams\n"
    "  --input NAME=FILE feeds input NAME; a FILE without NAME= goes to the next input\n"
    "                    in the model's order; FILE.npy@0,4,9 feeds it with the level-1\n"
    "                    LoD (sequence offsets) 0,4,9 (levels split by ';')\n"
    "  --out DIR         writes DIR/<name>.npy per output ('/' becomes '_')\n"
    "  --threads T       CPU threads (default: FLAGS_paddle_num_threads)\n"
    "  --no-ir           skips the inference passes; --no-onednn runs the plain kernels\n"
    "  Prints each output's dtype, shape and values; for an [N, C] output, each row's top 5.\n";

// Copies `t` into the handle in its own element type.
void SetInput(infer::Tensor* in, const DenseTensor& t) {
  std::vector<int> shape;
  for (int64_t d : t.dims().ToVector()) shape.push_back(static_cast<int>(d));
  in->Reshape(shape);
  switch (t.dtype()) {
    case DataType::FLOAT32: in->CopyFromCpu(t.data<float>()); break;
    case DataType::FLOAT64: in->CopyFromCpu(t.data<double>()); break;
    case DataType::INT32: in->CopyFromCpu(t.data<int32_t>()); break;
    case DataType::INT64: in->CopyFromCpu(t.data<int64_t>()); break;
    case DataType::INT8: in->CopyFromCpu(t.data<int8_t>()); break;
    case DataType::UINT8: in->CopyFromCpu(t.data<uint8_t>()); break;
    case DataType::BOOL: in->CopyFromCpu(t.data<bool>()); break;
    default:
      throw errors::InvalidArgument("infer: input `%s`: %s .npy data is not supported",
                                    in->name(), platform::DataTypeName(t.dtype()));
  }
}

template <typename T>
DenseTensor CopyOut(const infer::Tensor& out, DataType dtype) {
  std::vector<int64_t> dims;
  for (int d : out.shape()) dims.push_back(d);
  DenseTensor t(framework::DDim(dims), dtype);
  out.CopyToCpu(t.mutable_data<T>(platform::CPUPlace()));
  return t;
}

DenseTensor GetOutput(const infer::Tensor& out) {
  switch (out.type()) {
    case infer::DataType::FLOAT32: return CopyOut<float>(out, DataType::FLOAT32);
    case infer::DataType::FLOAT64: return CopyOut<double>(out, DataType::FLOAT64);
    case infer::DataType::INT32: return CopyOut<int32_t>(out, DataType::INT32);
    case infer::DataType::INT64: return CopyOut<int64_t>(out, DataType::INT64);
    case infer::DataType::INT8: return CopyOut<int8_t>(out, DataType::INT8);
    case infer::DataType::UINT8: return CopyOut<uint8_t>(out, DataType::UINT8);
    case infer::DataType::BOOL: return CopyOut<bool>(out, DataType::BOOL);
    default:
      throw errors::Unimplemented("infer: output `%s` has an element type this command cannot "
                                  "show",
                                  out.name());
  }
}

// "row 0: 3 (0.998), 8 (0.001), ..." for each row of an [N, C] output.
void PrintTopClasses(const DenseTensor& t) {
  const int64_t rows = t.dims()[0], classes = t.dims()[1];
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> order(static_cast<size_t>(classes));
    std::iota(order.begin(), order.end(), 0);
    const auto at = [&](int64_t c) { return ValueAt(t, r * classes + c); };
    const size_t k = static_cast<size_t>(std::min<int64_t>(5, classes));
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](int64_t a, int64_t b) { return at(a) > at(b); });
    std::cout << "  row " << r << " top " << k << ":";
    for (size_t i = 0; i < k; ++i) {
      char buf[48];
      std::snprintf(buf, sizeof(buf), " %lld (%.4g)", static_cast<long long>(order[i]),
                    at(order[i]));
      std::cout << buf << (i + 1 < k ? "," : "");
    }
    std::cout << "\n";
  }
}

}  // namespace

int InferCommand(const std::vector<std::string>& argv) {
  const Args args(argv, {"model", "program", "params", "input", "out", "threads"},
                  {"help", "no-ir", "no-onednn"});
  if (args.Has("help")) {
    std::cout << kInferUsage;
    return 0;
  }
  PL_ENFORCE(args.positional().empty(),
             errors::InvalidArgument("infer: unexpected argument `%s`\n%s", args.positional()[0],
                                     kInferUsage));
  PL_ENFORCE(args.Has("model") != args.Has("program"),
             errors::InvalidArgument("infer: give --model DIR or --program FILE (one of them)\n%s",
                                     kInferUsage));
  infer::Config config;
  if (args.Has("model")) {
    PL_ENFORCE(!args.Has("params"),
               errors::InvalidArgument("infer: --params goes with --program, not --model"));
    config.SetModel(args.Get("model"));
  } else {
    config.SetModel(args.Get("program"), args.Get("params"));
  }
  if (args.Has("threads")) {
    config.SetCpuMathLibraryNumThreads(
        static_cast<int>(std::min<int64_t>(args.GetPositiveInt("infer", "threads", 1), 1024)));
  }
  config.SwitchIrOptim(!args.Has("no-ir"));
  if (args.Has("no-onednn")) config.DisableMKLDNN();
  auto predictor = infer::CreatePredictor(config);

  const std::vector<std::string> inputs = predictor->GetInputNames();
  std::vector<bool> given(inputs.size(), false);
  size_t next = 0;
  for (const std::string& text : args.GetAll("input")) {
    const auto [arg, lod] = SplitLoDSuffix("infer", text);
    const size_t eq = arg.find('=');
    std::string name, file = arg;
    // A path that itself contains '=' counts as unnamed unless its prefix is an input.
    std::error_code ec;
    if (eq != std::string::npos &&
        (std::find(inputs.begin(), inputs.end(), arg.substr(0, eq)) != inputs.end() ||
         !fs::is_regular_file(arg, ec))) {
      name = arg.substr(0, eq);
      file = arg.substr(eq + 1);
    } else {
      while (next < inputs.size() && given[next]) ++next;
      PL_ENFORCE(next < inputs.size(),
                 errors::InvalidArgument("infer: input file `%s` has no input left to go to (the "
                                         "model has %zu inputs); use --input NAME=FILE",
                                         arg, inputs.size()));
      name = inputs[next];
    }
    const auto it = std::find(inputs.begin(), inputs.end(), name);
    PL_ENFORCE(it != inputs.end(), errors::NotFound("infer: the model has no input `%s`", name));
    PL_ENFORCE(!given[it - inputs.begin()],
               errors::InvalidArgument("infer: input `%s` is given twice", name));
    given[it - inputs.begin()] = true;
    DenseTensor value = framework::ReadNpy(file);
    AttachFeedLoD("infer", name, file, lod, &value);
    auto handle = predictor->GetInputHandle(name);
    SetInput(handle.get(), value);
    if (!lod.empty()) handle->SetLoD(lod);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    PL_ENFORCE(given[i], errors::NotFound("infer: missing input `%s` (input %zu of %zu); pass "
                                          "--input %s=FILE.npy",
                                          inputs[i], i + 1, inputs.size(), inputs[i]));
  }
  predictor->Run();

  const std::string out_dir = args.Get("out");
  if (!out_dir.empty()) {
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    PL_ENFORCE(!ec, errors::Unavailable("cannot create output directory `%s`: %s", out_dir,
                                        ec.message()));
  }
  for (const std::string& name : predictor->GetOutputNames()) {
    const auto handle = predictor->GetOutputHandle(name);
    const DenseTensor t = GetOutput(*handle);
    std::cout << name << "  " << platform::DataTypeName(t.dtype()) << t.dims().ToString()
              << LoDSuffixText(handle->lod()) << "  " << FormatValues(t);
    if (!out_dir.empty()) {
      const std::string path = out_dir + "/" + OutputFileName(name);
      framework::WriteNpy(path, t);
      std::cout << "  -> " << path;
    }
    std::cout << "\n";
    if (t.dims().size() == 2 && t.dims()[1] > 1 && t.dtype() != DataType::BOOL) {
      PrintTopClasses(t);
    }
  }
  return 0;
}

}  // namespace cli
}  // namespace paddle_like

// `paddle_like infer`: runs a saved inference model through the inference library
// (paddle_like/inference_api.h) on .npy inputs, prints each output, and for a classifier
// ([N, classes] output) the top-5 classes of each row.
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "framework/npy_io.h"
#include "paddle_like/cli/args.h"
#include "paddle_like/cli/commands.h"
#include "paddle_like/cli/image_io.h"
#include "paddle_like/cli/lod_arg.h"
#include "paddle_like/cli/predictor_io.h"
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
    "                         --input [NAME=]FILE.npy[@LOD]|IMAGE.png|IMAGE.jpg ...\n"
    "                         [--resize HxW] [--mean a,b,c] [--std a,b,c] [--draw OUT.png]\n"
    "                         [--threshold T] [--out DIR] [--threads T] [--no-ir] [--no-onednn]\n"
    "                         [--place P] [--cudnn-heuristics]\n"
    "  Runs a saved inference model through the inference library (Config, Predictor).\n"
    "  --model DIR       __model__ (parameters beside it) or one *.pdmodel with its .pdiparams\n"
    "  --input NAME=FILE feeds input NAME; a FILE without NAME= goes to the next input\n"
    "                    in the model's order; FILE.npy@0,4,9 feeds it with the level-1\n"
    "                    LoD (sequence offsets) 0,4,9 (levels split by ';')\n"
    "  An image input (PNG or JPEG) becomes float32 [1, 3, H, W]: resized to --resize, else\n"
    "  to the H, W the model declares, else kept; pixel / 255, minus --mean, over --std per\n"
    "  RGB channel (default mean 0, std 1). A detector's im_shape and scale_factor inputs,\n"
    "  when not given, are filled from the image's sizes.\n"
    "  --draw OUT.png    writes the first image with the boxes of an [N, 6] detection output\n"
    "                    ([class, score, x1, y1, x2, y2]) scoring at least --threshold (0.5)\n"
    "  --out DIR         writes DIR/<name>.npy per output ('/' becomes '_')\n"
    "  --threads T       CPU threads (default: FLAGS_paddle_num_threads)\n"
    "  --no-ir           skips the inference passes; --no-onednn runs the plain kernels\n"
    "  --place P         cpu (default), gpu or gpu:N: the device the predictor runs on\n"
    "  --cudnn-heuristics  on a GPU, takes cuDNN's heuristic convolution algorithms instead of\n"
    "                    timing them at each new input shape\n"
    "  Prints each output's dtype, shape and values; for an [N, C] output, each row's top 5;\n"
    "  for a detector's [N, 6] output, the boxes scoring at least --threshold.\n";

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

// "a,b,c" as three floats; `fallback` when the option is absent.
std::array<float, 3> Triple(const Args& args, const std::string& name, float fallback) {
  if (!args.Has(name)) return {fallback, fallback, fallback};
  const std::string text = args.Get(name);
  std::array<float, 3> v{};
  char tail = 0;
  PL_ENFORCE(std::sscanf(text.c_str(), "%f,%f,%f%c", &v[0], &v[1], &v[2], &tail) == 3,
             errors::InvalidArgument("infer: --%s expects three numbers a,b,c, received `%s`",
                                     name, text));
  return v;
}

// "HxW" of --resize.
std::pair<int64_t, int64_t> ResizeOption(const Args& args) {
  const std::string text = args.Get("resize");
  long long h = 0, w = 0;
  char tail = 0;
  PL_ENFORCE(std::sscanf(text.c_str(), "%lldx%lld%c", &h, &w, &tail) == 2 && h > 0 && w > 0 &&
                 h <= 65536 && w <= 65536,
             errors::InvalidArgument("infer: --resize expects HxW (positive sizes up to 65536), "
                                     "received `%s`",
                                     text));
  return {h, w};
}

bool IsNpyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[6] = {0};
  in.read(magic, 6);
  return in.gcount() == 6 && std::string(magic, 6) == "\x93NUMPY";
}

// The image fed to the model, and what a detector's im_shape and scale_factor describe.
struct FedImage {
  Image original;
  int64_t fed_h = 0, fed_w = 0;
};

// A float32 [1, 2] tensor holding (a, b).
DenseTensor Pair(float a, float b) {
  DenseTensor t(framework::DDim{1, 2}, DataType::FLOAT32);
  float* p = t.mutable_data<float>(platform::CPUPlace());
  p[0] = a;
  p[1] = b;
  return t;
}

// Prints the boxes of detection output `t` ([N, 6]: class, score, x1, y1, x2, y2) scoring at
// least `threshold`, and draws them on `canvas` when given. `sx`, `sy` map box coordinates
// to the canvas.
void ReportBoxes(const DenseTensor& t, double threshold, double sx, double sy, Image* canvas) {
  const int64_t n = t.dims()[0];
  int64_t shown = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double score = ValueAt(t, i * 6 + 1);
    if (score < threshold) continue;
    const double cls = ValueAt(t, i * 6), x1 = ValueAt(t, i * 6 + 2), y1 = ValueAt(t, i * 6 + 3),
                 x2 = ValueAt(t, i * 6 + 4), y2 = ValueAt(t, i * 6 + 5);
    char line[160];
    std::snprintf(line, sizeof(line), "  box: class %lld score %.4f [%.1f, %.1f, %.1f, %.1f]\n",
                  static_cast<long long>(cls), score, x1, y1, x2, y2);
    std::cout << line;
    ++shown;
    if (canvas != nullptr) {
      static const std::array<uint8_t, 3> kColors[] = {
          {230, 25, 75}, {60, 180, 75}, {0, 130, 200}, {245, 130, 48}, {145, 30, 180}};
      const auto& color = kColors[static_cast<size_t>(std::max(0.0, cls)) % 5];
      DrawBox(canvas, x1 * sx, y1 * sy, x2 * sx, y2 * sy, color);
    }
  }
  std::cout << "  " << shown << " of " << n << " boxes score at least " << threshold << "\n";
}

}  // namespace

int InferCommand(const std::vector<std::string>& argv) {
  const Args args(argv,
                  {"model", "program", "params", "input", "out", "threads", "resize", "mean", "std",
                   "draw", "threshold", "place"},
                  {"help", "no-ir", "no-onednn", "cudnn-heuristics"});
  const platform::Place place = args.GetPlace("infer");
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
  if (place.is_gpu()) config.EnableUseGpu(0, place.device_id());
  config.SwitchCudnnExhaustiveSearch(!args.Has("cudnn-heuristics"));
  auto predictor = infer::CreatePredictor(config);

  const std::vector<std::string> inputs = predictor->GetInputNames();
  std::vector<bool> given(inputs.size(), false);
  const std::array<float, 3> mean = Triple(args, "mean", 0.0f), std = Triple(args, "std", 1.0f);
  std::optional<FedImage> image;  // The first image input.
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
    DenseTensor value;
    if (IsNpyFile(file)) {
      value = framework::ReadNpy(file);
    } else {
      PL_ENFORCE(lod.empty(), errors::InvalidArgument(
                                  "infer: input `%s`: an image takes no LoD (`@...`)", name));
      FedImage fed;
      fed.original = ReadImage(file);
      int64_t h = fed.original.height, w = fed.original.width;
      const std::vector<int64_t> declared = predictor->GetInputTensorShape()[name];
      if (args.Has("resize")) {
        std::tie(h, w) = ResizeOption(args);
      } else if (declared.size() == 4 && declared[2] > 0 && declared[3] > 0) {
        h = declared[2];
        w = declared[3];
      }
      fed.fed_h = h;
      fed.fed_w = w;
      value = ImageToTensor(Resize(fed.original, h, w), mean, std);
      if (!image) image = std::move(fed);
    }
    AttachFeedLoD("infer", name, file, lod, &value);
    auto handle = predictor->GetInputHandle(name);
    cli::SetInput("infer", handle.get(), value);
    if (!lod.empty()) handle->SetLoD(lod);
  }
  // PaddleDetection's exports also take the fed size and its ratio to the original.
  bool detector = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] != "im_shape" && inputs[i] != "scale_factor") continue;
    detector = true;
    if (given[i] || !image) continue;
    const DenseTensor v =
        inputs[i] == "im_shape"
            ? Pair(static_cast<float>(image->fed_h), static_cast<float>(image->fed_w))
            : Pair(static_cast<float>(image->fed_h) / image->original.height,
                   static_cast<float>(image->fed_w) / image->original.width);
    cli::SetInput("infer", predictor->GetInputHandle(inputs[i]).get(), v);
    given[i] = true;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    PL_ENFORCE(given[i], errors::NotFound("infer: missing input `%s` (input %zu of %zu); pass "
                                          "--input %s=FILE.npy",
                                          inputs[i], i + 1, inputs.size(), inputs[i]));
  }
  predictor->Run();

  double threshold = 0.5;
  if (args.Has("threshold")) {
    char tail = 0;
    PL_ENFORCE(std::sscanf(args.Get("threshold").c_str(), "%lf%c", &threshold, &tail) == 1,
               errors::InvalidArgument("infer: --threshold expects a number, received `%s`",
                                       args.Get("threshold")));
  }
  std::optional<Image> canvas;
  if (args.Has("draw")) {
    PL_ENFORCE(image.has_value(),
               errors::InvalidArgument("infer: --draw needs an image input (PNG or JPEG)"));
    canvas = image->original;
  }

  const std::string out_dir = args.Get("out");
  if (!out_dir.empty()) {
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    PL_ENFORCE(!ec, errors::Unavailable("cannot create output directory `%s`: %s", out_dir,
                                        ec.message()));
  }
  for (const std::string& name : predictor->GetOutputNames()) {
    const auto handle = predictor->GetOutputHandle(name);
    DenseTensor t;
    GetOutput("infer", *handle, &t);
    std::cout << name << "  " << platform::DataTypeName(t.dtype()) << t.dims().ToString()
              << LoDSuffixText(handle->lod()) << "  " << FormatValues(t);
    if (!out_dir.empty()) {
      const std::string path = out_dir + "/" + OutputFileName(name);
      framework::WriteNpy(path, t);
      std::cout << "  -> " << path;
    }
    std::cout << "\n";
    const bool boxes = detector && t.dims().size() == 2 && t.dims()[1] == 6;
    if (boxes) {
      // With scale_factor fed the boxes are in the original image's pixels, else in the fed
      // image's.
      bool scaled = false;
      for (const auto& in : inputs) scaled = scaled || in == "scale_factor";
      const double sx = !image || scaled ? 1.0 : double(image->original.width) / image->fed_w;
      const double sy = !image || scaled ? 1.0 : double(image->original.height) / image->fed_h;
      ReportBoxes(t, threshold, sx, sy, canvas ? &*canvas : nullptr);
    } else if (t.dims().size() == 2 && t.dims()[1] > 1 && t.dtype() != DataType::BOOL) {
      PrintTopClasses(t);
    }
  }
  if (canvas) {
    WritePng(args.Get("draw"), *canvas);
    std::cout << "drawn: " << args.Get("draw") << "\n";
  }
  return 0;
}

}  // namespace cli
}  // namespace paddle_like

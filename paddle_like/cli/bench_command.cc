// `paddle_like bench`: latency and throughput of a saved inference model through the
// inference library, on generated inputs of each feed's shape, with C clones in C threads.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "framework/ddim.h"
#include "framework/npy_io.h"
#include "paddle_like/cli/args.h"
#include "paddle_like/cli/commands.h"
#include "paddle_like/cli/json_writer.h"
#include "paddle_like/cli/predictor_io.h"
#include "paddle_like/cli/profile_report.h"
#include "paddle_like/inference_api.h"
#include "platform/enforce.h"
#include "platform/file_util.h"

namespace paddle_like {
namespace cli {

namespace {

using framework::DenseTensor;

constexpr char kBenchUsage[] =
    "usage: paddle_like bench (--model DIR | --program FILE [--params FILE])\n"
    "                         [--shape NAME=1x3x224x224 ...] [--input NAME=FILE.npy ...]\n"
    "                         [--batch N] [--threads T]\n"
    "                         [--warmup W] [--repeat R] [--clones C] [--no-ir] [--no-onednn]\n"
    "                         [--no-chunks]\n"
    "                         [--report FILE.json] [--profile FILE.json]\n"
    "                         [--place P] [--cudnn-heuristics]\n"
    "  Times Predictor::Run on inputs of each feed's declared shape: uniform [0, 1) floats,\n"
    "  zero integers (one seed: every run and clone sees the same data), each run followed by\n"
    "  copying every output into the caller's memory (Tensor::CopyToCpu), as a caller reading\n"
    "  the results does.\n"
    "  --shape NAME=DIMS sets an input's shape (needed where it declares -1 beyond the batch)\n"
    "  --input NAME=FILE.npy  sets an input's value and shape from a file (a detector's\n"
    "                    image size and scale, say, where generated values would not do)\n"
    "  --batch N         the first dim of every input whose declared first dim is -1 (default 1)\n"
    "  --threads T       CPU threads of the kernels (default: FLAGS_paddle_num_threads)\n"
    "  --warmup W        untimed runs per clone first (default 10)\n"
    "  --repeat R        timed runs per clone (default 100)\n"
    "  --clones C        C clones of the predictor run in C threads at once (default 1)\n"
    "  --no-ir           skips the inference passes; --no-onednn runs the plain kernels\n"
    "  --no-chunks       runs every op on the whole batch (Config::SwitchBatchChunks(false))\n"
    "  --place P         cpu (default), gpu or gpu:N: the device the predictor runs on\n"
    "  --cudnn-heuristics  on a GPU, takes cuDNN's heuristic convolution algorithms instead of\n"
    "                    timing them at each new input shape\n"
    "  --report FILE     writes the results as JSON (p50_ms, p90_ms, p99_ms, mean_ms, min_ms,\n"
    "                    throughput_per_s, threads, clones, batch, warmup, repeat, ...)\n"
    "  --profile FILE    after the timed runs, runs with a profile, their times averaged:\n"
    "                    written as JSON (per op: kernel, transforms, time) and printed as\n"
    "                    a table (one run's op times at batch 1 are too noisy to rank)\n"
    "  --profile-runs N  how many runs --profile averages (default 20)\n"
    "  Prints latency percentiles over every timed run of every clone, in milliseconds, and\n"
    "  throughput in samples per second (runs x batch / wall time of the timed phase).\n";

struct Input {
  std::string name;
  infer::DataType type;
  std::vector<int> shape;
  std::shared_ptr<const DenseTensor> value;  // From --input; generated when null.
};

std::vector<int> ParseDims(const std::string& name, const std::string& text) {
  std::vector<int> dims;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t x = text.find('x', start);
    const std::string part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
    char* end = nullptr;
    const long v = part.empty() ? -1 : std::strtol(part.c_str(), &end, 10);
    PL_ENFORCE(!part.empty() && end != nullptr && *end == '\0' && v >= 0 && v <= (1L << 30),
               errors::InvalidArgument("bench: --shape %s=%s: expected dims like 1x3x224x224, "
                                       "each a non-negative integer, received `%s`",
                                       name, text, part));
    dims.push_back(static_cast<int>(v));
    if (x == std::string::npos) break;
    start = x + 1;
  }
  return dims;
}

// The shape of each input: --shape, else the declaration with a -1 first dim set to `batch`.
std::vector<Input> ResolveInputs(const infer::Predictor& predictor, const Args& args, int batch) {
  const auto declared = predictor.GetInputTensorShape();
  const auto types = predictor.GetInputTypes();
  std::map<std::string, std::vector<int>> given;
  for (const std::string& arg : args.GetAll("shape")) {
    const size_t eq = arg.find('=');
    PL_ENFORCE(eq != std::string::npos,
               errors::InvalidArgument("bench: --shape `%s`: expected NAME=DIMS", arg));
    const std::string name = arg.substr(0, eq);
    PL_ENFORCE(declared.count(name),
               errors::NotFound("bench: --shape `%s`: the model has no input `%s`", arg, name));
    given[name] = ParseDims(name, arg.substr(eq + 1));
  }
  std::map<std::string, std::shared_ptr<const DenseTensor>> files;
  for (const std::string& arg : args.GetAll("input")) {
    const size_t eq = arg.find('=');
    PL_ENFORCE(eq != std::string::npos,
               errors::InvalidArgument("bench: --input `%s`: expected NAME=FILE.npy", arg));
    const std::string name = arg.substr(0, eq);
    PL_ENFORCE(declared.count(name),
               errors::NotFound("bench: --input `%s`: the model has no input `%s`", arg, name));
    files[name] = std::make_shared<const DenseTensor>(framework::ReadNpy(arg.substr(eq + 1)));
  }
  std::vector<Input> inputs;
  for (const std::string& name : predictor.GetInputNames()) {
    Input in{name, types.at(name), {}, nullptr};
    if (files.count(name)) {
      in.value = files.at(name);
      for (int64_t d : in.value->dims().ToVector()) in.shape.push_back(static_cast<int>(d));
    } else if (given.count(name)) {
      in.shape = given.at(name);
    } else {
      const std::vector<int64_t>& dims = declared.at(name);
      for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] >= 0) {
          in.shape.push_back(static_cast<int>(dims[i]));
          continue;
        }
        PL_ENFORCE(i == 0, errors::InvalidArgument(
                               "bench: input `%s` declares dim %zu as -1 (shape %s); give its "
                               "shape with --shape %s=DIMS",
                               name, i, framework::DDim(dims).ToString(), name));
        in.shape.push_back(batch);
      }
    }
    inputs.push_back(in);
  }
  return inputs;
}

void FillInput(infer::Predictor* p, const Input& in) {
  auto h = p->GetInputHandle(in.name);
  if (in.value != nullptr) {
    SetInput("bench", h.get(), *in.value);
    return;
  }
  h->Reshape(in.shape);
  int64_t n = 1;
  for (int d : in.shape) n *= d;
  std::mt19937 gen(1234);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  switch (in.type) {
    case infer::DataType::FLOAT32: {
      std::vector<float> v(static_cast<size_t>(n));
      for (float& x : v) x = static_cast<float>(uniform(gen));
      h->CopyFromCpu(v.data());
      break;
    }
    case infer::DataType::FLOAT64: {
      std::vector<double> v(static_cast<size_t>(n));
      for (double& x : v) x = uniform(gen);
      h->CopyFromCpu(v.data());
      break;
    }
    case infer::DataType::COMPLEX64:
    case infer::DataType::COMPLEX128: {  // Uniform parts, computed in double.
      std::vector<std::complex<double>> v(static_cast<size_t>(n));
      for (auto& x : v) x = {uniform(gen), uniform(gen)};
      if (in.type == infer::DataType::COMPLEX128) {
        h->CopyFromCpu(v.data());
      } else {
        h->CopyFromCpu(std::vector<std::complex<float>>(v.begin(), v.end()).data());
      }
      break;
    }
    case infer::DataType::INT32: h->CopyFromCpu(std::vector<int32_t>(n, 0).data()); break;
    case infer::DataType::INT64: h->CopyFromCpu(std::vector<int64_t>(n, 0).data()); break;
    default:
      throw errors::Unimplemented(
          "bench: input `%s`: only float32, float64, complex, int32 and "
          "int64 inputs can be generated",
          in.name);
  }
}

double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size()))) - 1;
  return sorted[std::min(i, sorted.size() - 1)];
}

std::string ShapeString(const std::vector<int>& shape) {
  std::string s;
  for (int d : shape) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s.empty() ? "scalar" : s;
}

}  // namespace

int BenchCommand(const std::vector<std::string>& argv) {
  const Args args(argv,
                  {"model", "program", "params", "shape", "input", "batch", "threads", "warmup",
                   "repeat", "clones", "report", "profile", "profile-runs", "place"},
                  {"help", "no-ir", "no-onednn", "no-chunks", "cudnn-heuristics"});
  const platform::Place place = args.GetPlace("bench");
  if (args.Has("help")) {
    std::cout << kBenchUsage;
    return 0;
  }
  PL_ENFORCE(args.positional().empty(),
             errors::InvalidArgument("bench: unexpected argument `%s`\n%s", args.positional()[0],
                                     kBenchUsage));
  PL_ENFORCE(args.Has("model") != args.Has("program"),
             errors::InvalidArgument("bench: give --model DIR or --program FILE (one of them)\n%s",
                                     kBenchUsage));
  infer::Config config;
  if (args.Has("model")) {
    PL_ENFORCE(!args.Has("params"),
               errors::InvalidArgument("bench: --params goes with --program, not --model"));
    config.SetModel(args.Get("model"));
  } else {
    config.SetModel(args.Get("program"), args.Get("params"));
  }
  const int threads = static_cast<int>(std::min<int64_t>(args.GetPositiveInt("bench", "threads", 0), 1024));
  if (threads > 0) config.SetCpuMathLibraryNumThreads(threads);
  config.SwitchIrOptim(!args.Has("no-ir"));
  config.SwitchBatchChunks(!args.Has("no-chunks"));
  if (args.Has("no-onednn")) config.DisableMKLDNN();
  if (place.is_gpu()) config.EnableUseGpu(0, place.device_id());
  config.SwitchCudnnExhaustiveSearch(!args.Has("cudnn-heuristics"));
  const int batch = static_cast<int>(std::min<int64_t>(args.GetPositiveInt("bench", "batch", 1), 1 << 20));
  const int64_t warmup = std::min<int64_t>(
      args.Get("warmup") == "0" ? 0 : args.GetPositiveInt("bench", "warmup", 10), 1000000);
  const int64_t repeat = std::min<int64_t>(args.GetPositiveInt("bench", "repeat", 100), 10000000);
  const int clones = static_cast<int>(std::min<int64_t>(args.GetPositiveInt("bench", "clones", 1), 256));

  auto predictor = infer::CreatePredictor(config);
  std::shared_ptr<infer::Predictor> profiled;
  if (args.Has("profile")) {
    infer::Config with_profile = config;
    with_profile.EnableProfile();
    profiled = infer::CreatePredictor(with_profile);
  }
  const std::vector<Input> inputs = ResolveInputs(*predictor, args, batch);
  std::vector<std::unique_ptr<infer::Predictor>> runners;
  for (int c = 0; c < clones; ++c) {
    runners.push_back(predictor->Clone());
    for (const Input& in : inputs) FillInput(runners.back().get(), in);
  }

  // A run as a caller sees it: Run, then every output copied out (reusing the buffers).
  std::vector<std::vector<DenseTensor>> fetched(clones);
  const auto run_and_fetch = [&](int c) {
    runners[c]->Run();
    const std::vector<std::string> names = runners[c]->GetOutputNames();
    fetched[c].resize(names.size());
    for (size_t i = 0; i < names.size(); ++i) {
      GetOutput("bench", *runners[c]->GetOutputHandle(names[i]), &fetched[c][i]);
    }
  };

  // Warm-up, then every clone starts its timed runs together.
  using Clock = std::chrono::steady_clock;
  std::vector<std::vector<double>> latencies(clones);
  // Waiting threads block (a spinning one would take a core from the clones' kernels).
  std::mutex mu;
  std::condition_variable changed;
  int ready = 0;
  bool go = false;
  std::vector<std::string> failures(clones);
  Clock::time_point start;
  std::vector<std::thread> pool;
  for (int c = 0; c < clones; ++c) {
    pool.emplace_back([&, c] {
      try {
        for (int64_t i = 0; i < warmup; ++i) run_and_fetch(c);
      } catch (const std::exception& e) {
        failures[c] = e.what();
      }
      {
        std::unique_lock<std::mutex> lock(mu);
        ++ready;
        changed.notify_all();
        changed.wait(lock, [&] { return go; });
      }
      if (!failures[c].empty()) return;
      try {
        latencies[c].reserve(static_cast<size_t>(repeat));
        for (int64_t i = 0; i < repeat; ++i) {
          const auto t0 = Clock::now();
          run_and_fetch(c);
          latencies[c].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        }
      } catch (const std::exception& e) {
        failures[c] = e.what();
      }
    });
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    changed.wait(lock, [&] { return ready == clones; });
    start = Clock::now();
    go = true;
  }
  changed.notify_all();
  for (auto& t : pool) t.join();
  const double wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  for (int c = 0; c < clones; ++c) {
    PL_ENFORCE(failures[c].empty(),
               errors::Fatal("bench: clone %d failed: %s", c, failures[c]));
  }

  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  double mean = 0;
  for (double v : all) mean += v;
  mean /= static_cast<double>(all.size());
  const double p50 = Percentile(all, 0.5), p90 = Percentile(all, 0.9), p99 = Percentile(all, 0.99);
  const double throughput = static_cast<double>(all.size()) * batch / wall_s;

  std::cout << "model: " << (args.Has("model") ? args.Get("model") : args.Get("program")) << "\n";
  for (const Input& in : inputs) std::cout << "input " << in.name << ": " << ShapeString(in.shape) << "\n";
  std::cout << "threads " << (threads > 0 ? std::to_string(threads) : "default") << ", clones "
            << clones << ", batch " << batch << ", passes " << (args.Has("no-ir") ? "off" : "on")
            << ", oneDNN " << (args.Has("no-onednn") ? "off" : "on") << ", batch chunks "
            << (args.Has("no-chunks") ? "off" : "on") << ", " << warmup << " warm-up + " << repeat
            << " timed runs per clone\n";
  std::cout << platform::Sprintf("latency ms: p50 %.3f  p90 %.3f  p99 %.3f  mean %.3f  min %.3f\n",
                                 p50, p90, p99, mean, all.front());
  std::cout << platform::Sprintf("throughput: %.1f samples/s\n", throughput);

  if (profiled != nullptr) {
    for (const Input& in : inputs) FillInput(profiled.get(), in);
    const int64_t runs =
        std::min<int64_t>(args.GetPositiveInt("bench", "profile-runs", 20), 1000000);
    profiled->Run();  // Prepares.
    framework::ExecutionProfile mean;
    for (int64_t i = 0; i < runs; ++i) {
      profiled->Run();
      mean.Average(*profiled->profile());
    }
    platform::WriteFileAtomically(args.Get("profile"), ProfileJson(mean, static_cast<int>(runs)));
    std::cout << ProfileTable(mean);
  }

  if (args.Has("report")) {
    JsonWriter w;
    w.BeginObject();
    w.Key("model").String(args.Has("model") ? args.Get("model") : args.Get("program"));
    w.Key("inputs").BeginObject();
    for (const Input& in : inputs) {
      w.Key(in.name).BeginArray();
      for (int d : in.shape) w.Int(d);
      w.EndArray();
    }
    w.EndObject();
    w.Key("p50_ms").Double(p50).Key("p90_ms").Double(p90).Key("p99_ms").Double(p99);
    w.Key("mean_ms").Double(mean).Key("min_ms").Double(all.front());
    w.Key("throughput_per_s").Double(throughput);
    w.Key("threads").Int(threads).Key("clones").Int(clones).Key("batch").Int(batch);
    w.Key("warmup").Int(warmup).Key("repeat").Int(repeat);
    w.Key("ir_optim").Bool(!args.Has("no-ir")).Key("onednn").Bool(!args.Has("no-onednn"));
    w.Key("batch_chunks").Bool(!args.Has("no-chunks"));
    w.EndObject();
    platform::WriteFileAtomically(args.Get("report"), w.str());
  }
  return 0;
}

}  // namespace cli
}  // namespace paddle_like

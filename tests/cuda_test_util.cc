#include "tests/cuda_test_util.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "framework/execution_profile.h"
#include "framework/kernel_registry.h"
#include "platform/init.h"

namespace paddle_like {
namespace testing {

void CudaTest::SetUp() {
  operators::RegisterAllOps();
  if (!platform::BuiltWithCuda()) GTEST_SKIP() << "built without CUDA";
  if (platform::CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device on this machine";
}

DenseTensor RandomOf(DataType dtype, const framework::DDim& dims, double lo, double hi,
                     unsigned seed) {
  const auto v = RandomValues(dims.numel(), lo, hi, seed);
  return dtype == DataType::FLOAT32 ? MakeTensor<float>(dims, v) : MakeTensor<double>(dims, v);
}

namespace {

// Equal values element by element, a NaN matching a NaN (the exact comparisons of kernels
// that propagate NaN as the CPU does).
void ExpectSameValues(const DenseTensor& got, const DenseTensor& want, const std::string& what) {
  const std::vector<double> g = ToDoubles(got), w = ToDoubles(want);
  ASSERT_EQ(g.size(), w.size()) << what;
  for (size_t k = 0; k < g.size(); ++k) {
    if (std::isnan(g[k]) && std::isnan(w[k])) continue;
    EXPECT_EQ(g[k], w[k]) << what << " element " << k;
  }
}

// Every output of the CPU run against the GPU run's: same initialisation, dims and dtype
// (`gpu_dtype` maps the CPU's dtype to the one the GPU must give), values equal (NaN matching
// NaN) when rtol and atol are 0, else within them.
void ExpectOutputsMatch(const std::string& type, const OpRunResult& cpu, const OpRunResult& gpu,
                        double rtol, double atol,
                        const std::function<DataType(DataType)>& gpu_dtype) {
  for (const auto& [slot, tensors] : cpu.outputs) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      const DenseTensor& want = tensors[i];
      const DenseTensor& got = gpu.outputs.at(slot)[i];
      ASSERT_EQ(got.initialized(), want.initialized()) << slot;
      if (!want.initialized()) continue;
      EXPECT_EQ(got.dims(), want.dims()) << slot;
      EXPECT_EQ(got.dtype(), gpu_dtype(want.dtype())) << slot;
      if (rtol == 0 && atol == 0) {
        ExpectSameValues(got, want, type + " " + slot);
      } else {
        ExpectNear(ToDoubles(got), ToDoubles(want), rtol, atol, type + " " + slot);
      }
    }
  }
}

}  // namespace

void ExpectGpuMatchesCpu(const std::string& type, const InputMaker& inputs,
                         const std::map<std::string, int>& outputs, const AttributeMap& attrs,
                         const std::vector<DataType>& dtypes, const GpuTolerance& tol) {
  for (DataType dtype : dtypes) {
    SCOPED_TRACE(type + " " + platform::DataTypeName(dtype));
    const SlotTensors in = inputs(dtype);
    const OpRunResult cpu = RunOp(type, in, outputs, attrs);
    const OpRunResult gpu = RunOp(type, in, outputs, attrs, platform::CUDAPlace(0));
    ASSERT_NE(gpu.kernel, nullptr);
    EXPECT_EQ(gpu.kernel->key.device, framework::DeviceType::kCUDA) << gpu.kernel->key.ToString();
    const bool is_double = dtype == DataType::FLOAT64;
    const double rtol = is_double ? tol.double_rtol : tol.float_rtol;
    const double atol = is_double ? tol.double_atol : tol.float_atol;
    ExpectOutputsMatch(type, cpu, gpu, rtol, atol, [](DataType t) { return t; });
    if (!tol.check_repeat) continue;
    // Fixed reduction orders: a second GPU run gives the same bits.
    const OpRunResult again = RunOp(type, in, outputs, attrs, platform::CUDAPlace(0));
    for (const auto& [slot, tensors] : gpu.outputs) {
      for (size_t i = 0; i < tensors.size(); ++i) {
        if (!tensors[i].initialized()) continue;
        ExpectSameValues(again.outputs.at(slot)[i], tensors[i], type + " " + slot + " again");
      }
    }
  }
}

PlaceRun RunOn(const platform::Place& place, const std::string& type,
               const std::map<std::string, DenseTensor>& inputs,
               const std::vector<std::string>& outputs, const AttributeMap& attrs, int repeat) {
  ScopedFlag plain(&FLAGS_use_onednn, false);
  framework::ProgramDesc program;
  framework::BlockDesc& block = program.Block(0);
  framework::OpDesc* op = block.AppendOp();
  op->SetType(type);
  auto var_name = [](const std::string& prefix, std::string slot) {
    for (char& ch : slot) {
      if (ch == '@') ch = '_';
    }
    return prefix + slot;
  };
  std::map<std::string, DenseTensor> feeds;
  for (const auto& kv : inputs) {
    const std::string name = var_name("in_", kv.first);
    framework::VarDesc* v = block.Var(name);
    v->SetDataType(kv.second.dtype());
    v->SetShape(kv.second.dims().ToVector());
    op->SetInput(kv.first, {name});
    feeds[name] = kv.second;
  }
  std::vector<std::string> fetches;
  for (const auto& slot : outputs) {
    const std::string name = var_name("out_", slot);
    block.Var(name);
    op->SetOutput(slot, {name});
    fetches.push_back(name);
  }
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::Scope scope;
  framework::ExecutionProfile profile;
  framework::Executor::RunOptions options;
  options.repeat = repeat;
  options.profile = &profile;
  const std::vector<DenseTensor> fetched =
      framework::Executor(place).Run(program, &scope, feeds, fetches, options);
  PlaceRun run;
  for (size_t i = 0; i < outputs.size(); ++i) run.outputs[outputs[i]] = fetched[i];
  for (const auto& rec : profile.ops) {
    if (rec.has_kernel && rec.type == type) run.key = rec.key;
  }
  return run;
}

double MaxAbs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

void ExpectLibraryKernelMatchesCpu(const std::string& type,
                                   const std::map<std::string, DenseTensor>& in,
                                   const std::vector<std::string>& outputs,
                                   const AttributeMap& attrs, DataType dtype,
                                   const std::string& what, framework::LibraryType library) {
  SCOPED_TRACE(what);
  // Library results differ from the plain kernels' by the order of their sums (and Winograd
  // or FFT algorithms).
  const double rel = dtype == DataType::FLOAT64 ? 1e-10 : 1e-4;
  const double abs = dtype == DataType::FLOAT64 ? 1e-10 : 2e-5;
  const PlaceRun gpu = RunOn(platform::CUDAPlace(0), type, in, outputs, attrs, 2);
  const PlaceRun cpu = RunOn(platform::CPUPlace(), type, in, outputs, attrs);
  EXPECT_EQ(gpu.key.device, framework::DeviceType::kCUDA) << type << " ran " << gpu.key.ToString();
  EXPECT_EQ(gpu.key.backend, library) << type << " ran " << gpu.key.ToString();
  for (const auto& slot : outputs) {
    const DenseTensor& g = gpu.outputs.at(slot);
    const DenseTensor& c = cpu.outputs.at(slot);
    ASSERT_EQ(g.dims(), c.dims()) << slot;
    EXPECT_EQ(g.dtype(), dtype) << slot;
    const std::vector<double> expected = ToDoubles(c);
    ExpectNear(ToDoubles(g), expected, rel, abs * std::max(1.0, MaxAbs(expected)),
               what + " " + slot);
  }
}

void ExpectGpuHalfNearCpuFloat(const std::string& type, const InputMaker& inputs,
                               const std::map<std::string, int>& outputs,
                               const AttributeMap& attrs, double rtol, double atol) {
  SCOPED_TRACE(type + " float16");
  SlotTensors as_float = inputs(DataType::FLOAT32), as_half;
  for (auto& [slot, tensors] : as_float) {
    for (DenseTensor& t : tensors) {
      DenseTensor half = t;
      if (t.dtype() == DataType::FLOAT32) {
        framework::CastTensor(t, DataType::FLOAT16, &half);
        framework::CastTensor(half, DataType::FLOAT32, &t);  // The values float16 holds.
      }
      as_half[slot].push_back(half);
    }
  }
  const OpRunResult cpu = RunOp(type, as_float, outputs, attrs);
  const OpRunResult gpu = RunOp(type, as_half, outputs, attrs, platform::CUDAPlace(0));
  ASSERT_NE(gpu.kernel, nullptr);
  EXPECT_EQ(gpu.kernel->key.device, framework::DeviceType::kCUDA) << gpu.kernel->key.ToString();
  EXPECT_EQ(gpu.kernel->key.dtype, DataType::FLOAT16) << gpu.kernel->key.ToString();
  ExpectOutputsMatch(type, cpu, gpu, rtol, atol, [](DataType t) {
    return t == DataType::FLOAT32 ? DataType::FLOAT16 : t;
  });
}

}  // namespace testing
}  // namespace paddle_like

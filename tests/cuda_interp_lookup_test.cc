// The CUDA kernels of the interpolation ops and of lookup_table(_v2) against their CPU
// kernels on the same inputs: every method, versions 1 and 2, both layouts, the align
// settings, sizes from attributes, scales and tensors, forward and grad ops, float and double;
// lookups with padding and repeated ids, dense and sparse (SelectedRows) gradients and the
// error for an id out of range. Skips when the build has no CUDA or the machine no device.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/data_transform.h"
#include "framework/executor.h"
#include "framework/selected_rows.h"
#include "framework/var_type_inference.h"
#include "tests/cuda_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::DDim;
using framework::SelectedRows;

class CudaInterpLookupTest : public CudaTest {};

DenseTensor I32(const std::vector<double>& v) {
  return MakeTensor<int32_t>({static_cast<int64_t>(v.size())}, v);
}
DenseTensor I64(const std::vector<double>& v) {
  return MakeTensor<int64_t>({static_cast<int64_t>(v.size())}, v);
}

// Runs `type` (a forward interpolation op) and its grad op on both devices: X random, the
// grad's Out@GRAD random of the forward output's dims. `extra`: the size inputs (OutSize,
// SizeTensor, Scale), the same for every dtype.
void CheckInterp(const std::string& type, const DDim& x, const SlotTensors& extra,
                 const AttributeMap& attrs) {
  SlotTensors cpu_in = extra;
  cpu_in["X"] = {RandomOf(DataType::FLOAT64, x, -1, 1, 1)};
  const DDim out = RunOp(type, cpu_in, {{"Out", 1}}, attrs).outputs.at("Out")[0].dims();
  ExpectGpuMatchesCpu(
      type,
      [&](DataType t) {
        SlotTensors in = extra;
        in["X"] = {RandomOf(t, x, -1, 1, 2)};
        return in;
      },
      {{"Out", 1}}, attrs);
  GpuTolerance grad_tol;
  grad_tol.check_repeat = true;  // The gather has a fixed order.
  ExpectGpuMatchesCpu(
      type + "_grad",
      [&](DataType t) {
        SlotTensors in = extra;
        in["X"] = {RandomOf(t, x, -1, 1, 3)};
        in["Out@GRAD"] = {RandomOf(t, out, -1, 1, 4)};
        return in;
      },
      {{"X@GRAD", 1}}, attrs, grad_tol);
}

struct Method {
  std::string name;
  std::vector<int64_t> in;    // Spatial input size.
  std::vector<int64_t> up;    // Spatial output sizes: larger ...
  std::vector<int64_t> down;  // ... and smaller than the input.
};

const std::vector<Method>& Methods() {
  static const std::vector<Method> methods = {
      {"linear", {7}, {12}, {4}},
      {"nearest", {5, 7}, {9, 13}, {3, 4}},
      {"bilinear", {5, 7}, {9, 13}, {3, 4}},
      {"bicubic", {5, 7}, {9, 13}, {3, 4}},
      {"nearest", {3, 4, 5}, {5, 7, 9}, {2, 3, 3}},
      {"trilinear", {3, 4, 5}, {5, 7, 9}, {2, 3, 3}},
  };
  return methods;
}

// X's dims for a batch of 2 images of 3 channels.
DDim ImageDims(const std::vector<int64_t>& spatial, bool channel_last) {
  std::vector<int64_t> d = {2};
  if (!channel_last) d.push_back(3);
  d.insert(d.end(), spatial.begin(), spatial.end());
  if (channel_last) d.push_back(3);
  return DDim(d);
}

// out_d / out_h / out_w for a size of as many axes as the image has.
AttributeMap SizeAttrs(const std::vector<int64_t>& size) {
  static const char* const kNames[] = {"out_d", "out_h", "out_w"};
  AttributeMap attrs;
  for (size_t i = 0; i < size.size(); ++i) {
    attrs[kNames[3 - size.size() + i]] = static_cast<int>(size[i]);
  }
  return attrs;
}

TEST_F(CudaInterpLookupTest, InterpolationMatchesCpuForEveryMethodLayoutAndAlignment) {
  struct Align {
    bool corners;
    int mode;
  };
  for (const char* version : {"_interp", "_interp_v2"}) {
    for (const Method& m : Methods()) {
      for (const Align align : {Align{true, 1}, Align{false, 0}, Align{false, 1}}) {
        for (const bool channel_last : {false, true}) {
          for (const auto* size : {&m.up, &m.down}) {
            const std::string type = m.name + version;
            SCOPED_TRACE(type + " " + std::to_string(m.in.size()) + "-D align_corners " +
                         std::to_string(align.corners) + " align_mode " +
                         std::to_string(align.mode) + (channel_last ? " NHWC" : " NCHW") +
                         (size == &m.up ? " up" : " down"));
            AttributeMap attrs = SizeAttrs(*size);
            attrs["align_corners"] = align.corners;
            attrs["align_mode"] = align.mode;
            attrs["data_layout"] = std::string(channel_last ? "NHWC" : "NCHW");
            CheckInterp(type, ImageDims(m.in, channel_last), {}, attrs);
          }
        }
      }
    }
  }
}

// Non-integer scales as attributes and as the Scale input (whose ratio 1 / scale the v2 ops
// sample with), OutSize and SizeTensor, in both layouts.
TEST_F(CudaInterpLookupTest, InterpolationSizesFromScalesAndTensorsMatchCpu) {
  for (const Method& m : Methods()) {
    const int k = static_cast<int>(m.in.size());
    for (const bool channel_last : {false, true}) {
      SCOPED_TRACE(m.name + " " + std::to_string(k) + "-D" + (channel_last ? " NHWC" : " NCHW"));
      const DDim x = ImageDims(m.in, channel_last);
      // Scales set the ratio only without align_corners (align_corners: see the test above).
      AttributeMap base = {{"align_corners", false},
                           {"align_mode", channel_last ? 1 : 0},
                           {"data_layout", std::string(channel_last ? "NHWC" : "NCHW")}};
      const std::string v1 = m.name + "_interp", v2 = m.name + "_interp_v2";
      // Attribute scales: one for every axis (v1 and v2), one per axis (v2).
      for (const float s : {1.7f, 0.6f}) {
        AttributeMap a1 = base, a2 = base;
        a1["scale"] = s;
        a2["scale"] = std::vector<float>(1, s);
        CheckInterp(v1, x, {}, a1);
        CheckInterp(v2, x, {}, a2);
      }
      std::vector<float> per_axis;
      for (int i = 0; i < k; ++i) per_axis.push_back(i % 2 == 0 ? 1.45f : 0.55f);
      AttributeMap a2 = base;
      a2["scale"] = per_axis;
      CheckInterp(v2, x, {}, a2);
      // The Scale input, one value and one per axis.
      const DenseTensor one_scale = MakeTensor<float>({1}, {1.35});
      CheckInterp(v1, x, {{"Scale", {one_scale}}}, base);
      CheckInterp(v2, x, {{"Scale", {one_scale}}}, base);
      std::vector<double> scales;
      for (int i = 0; i < k; ++i) scales.push_back(i % 2 == 0 ? 0.7 : 2.3);
      CheckInterp(v2, x, {{"Scale", {MakeTensor<double>({k}, scales)}}}, base);
      // OutSize (int32) over the attributes, SizeTensor (int64 and int32) over both.
      std::vector<double> size, other;
      for (int i = 0; i < k; ++i) {
        size.push_back(static_cast<double>(m.up[i]));
        other.push_back(static_cast<double>(m.down[i]));
      }
      AttributeMap sized = base;
      for (const auto& [name, value] : SizeAttrs(m.down)) sized[name] = value;
      for (const std::string& type : {v1, v2}) {
        CheckInterp(type, x, {{"OutSize", {I32(size)}}}, sized);
        std::vector<DenseTensor> list;
        for (int i = 0; i < k; ++i) list.push_back(i % 2 ? I32({other[i]}) : I64({other[i]}));
        CheckInterp(type, x, {{"SizeTensor", list}, {"OutSize", {I32(size)}}}, sized);
      }
      // v2: a Scale with an OutSize: the size from OutSize, the ratio from the scale.
      CheckInterp(v2, x, {{"Scale", {MakeTensor<float>({1}, {1.5})}}, {"OutSize", {I32(size)}}},
                  base);
    }
  }
}

// An output as large as the input is a copy; a 1-pixel output samples the first pixel.
TEST_F(CudaInterpLookupTest, InterpolationEdgeSizesMatchCpu) {
  for (const char* type : {"bilinear_interp_v2", "bicubic_interp_v2", "nearest_interp"}) {
    for (const bool align_corners : {false, true}) {
      AttributeMap attrs = {{"out_h", 5}, {"out_w", 7}, {"align_corners", align_corners}};
      CheckInterp(type, {2, 3, 5, 7}, {}, attrs);
      attrs = {{"out_h", 1}, {"out_w", 1}, {"align_corners", align_corners}};
      CheckInterp(type, {2, 3, 5, 7}, {}, attrs);
      attrs = {{"out_h", 6}, {"out_w", 4}, {"align_corners", align_corners}};
      CheckInterp(type, {1, 2, 1, 1}, {}, attrs);
    }
  }
}

// ---- lookup_table_v2, lookup_table ----

struct LookupCase {
  std::string type;
  DDim ids;
  std::vector<double> id_values;  // Repeats included.
  bool int32_ids;
};

const std::vector<LookupCase>& LookupCases() {
  static const std::vector<LookupCase> cases = {
      {"lookup_table_v2", {2, 4}, {3, 1, 3, 0, 9, 3, 1, 2}, false},
      {"lookup_table_v2", {7}, {5, 5, 5, 0, 8, 1, 5}, true},
      {"lookup_table", {6, 1}, {4, 2, 4, 9, 0, 4}, false},
      {"lookup_table", {2, 3, 1}, {1, 1, 7, 3, 1, 0}, true},
  };
  return cases;
}

DenseTensor IdsOf(const LookupCase& c) {
  return c.int32_ids ? MakeTensor<int32_t>(c.ids, c.id_values)
                     : MakeTensor<int64_t>(c.ids, c.id_values);
}

constexpr int64_t kRows = 10, kWidth = 5;

// Exactly equal: gathers, and sums in the CPU kernel's order.
GpuTolerance Exact() {
  GpuTolerance tol;
  tol.float_rtol = tol.float_atol = tol.double_rtol = tol.double_atol = 0;
  tol.check_repeat = true;
  return tol;
}

// Out's dims on the CPU.
DDim LookupOutDims(const LookupCase& c) {
  return RunOp(
             c.type,
             {{"W", {RandomOf(DataType::FLOAT64, {kRows, kWidth}, -1, 1, 1)}}, {"Ids", {IdsOf(c)}}},
             {{"Out", 1}})
      .outputs.at("Out")[0]
      .dims();
}

TEST_F(CudaInterpLookupTest, LookupAndDenseGradMatchCpu) {
  for (const LookupCase& c : LookupCases()) {
    for (const int64_t padding_idx : {int64_t{-1}, int64_t{3}, int64_t{-9}}) {
      SCOPED_TRACE(c.type + " " + c.ids.ToString() + " padding_idx " + std::to_string(padding_idx));
      const AttributeMap attrs = {{"padding_idx", padding_idx}, {"is_sparse", false}};
      ExpectGpuMatchesCpu(
          c.type,
          [&](DataType t) {
            return SlotTensors{{"W", {RandomOf(t, {kRows, kWidth}, -1, 1, 5)}},
                               {"Ids", {IdsOf(c)}}};
          },
          {{"Out", 1}}, attrs, Exact());
      const DDim out = LookupOutDims(c);
      ExpectGpuMatchesCpu(
          c.type + "_grad",
          [&](DataType t) {
            return SlotTensors{{"W", {RandomOf(t, {kRows, kWidth}, -1, 1, 5)}},
                               {"Ids", {IdsOf(c)}},
                               {"Out@GRAD", {RandomOf(t, out, -1, 1, 6)}}};
          },
          {{"W@GRAD", 1}}, attrs, Exact());
    }
  }
}

// Runs a lookup grad op with is_sparse on `place` and returns its SelectedRows, value on the
// CPU; *device: the device of the kernel chosen.
SelectedRows RunSparseGrad(const std::string& type, const SlotTensors& inputs,
                           const AttributeMap& attrs, const platform::Place& place,
                           framework::DeviceType* device) {
  framework::ProgramDesc program;
  framework::BlockDesc& block = program.Block(0);
  framework::OpDesc* op = block.AppendOp();
  op->SetType(type);
  std::map<std::string, DenseTensor> feeds;
  for (const auto& [slot, tensors] : inputs) {
    const std::string name = "in_" + std::to_string(feeds.size());
    framework::VarDesc* v = block.Var(name);
    v->SetDataType(tensors[0].dtype());
    v->SetShape(tensors[0].dims().ToVector());
    op->SetInput(slot, {name});
    feeds[name] = tensors[0];
  }
  block.Var("dw");
  op->SetOutput("W@GRAD", {"dw"});
  for (const auto& [name, value] : attrs) op->SetAttr(name, value);
  framework::InferVarTypeAndShape(op, &block);
  framework::Scope scope;
  framework::Executor exec{place};
  auto prepared = exec.Prepare(program, 0, &scope, {"dw"});
  for (const auto& [name, tensor] : feeds) {
    *prepared->local_scope()->FindVar(name)->GetMutable<DenseTensor>() = tensor;
  }
  exec.Run(prepared.get());
  *device = prepared->op(0).kernel()->key.device;
  const framework::Variable* var = prepared->local_scope()->FindVar("dw");
  EXPECT_TRUE(var != nullptr && var->IsType<SelectedRows>());
  if (var == nullptr || !var->IsType<SelectedRows>()) return SelectedRows();
  SelectedRows rows = var->Get<SelectedRows>();
  *rows.mutable_value() = framework::OnCpu(rows.value());
  return rows;
}

TEST_F(CudaInterpLookupTest, SparseGradMatchesCpu) {
  for (const LookupCase& c : LookupCases()) {
    for (const int64_t padding_idx : {int64_t{-1}, int64_t{3}, int64_t{1}}) {
      for (const DataType t : {DataType::FLOAT32, DataType::FLOAT64}) {
        SCOPED_TRACE(c.type + " " + c.ids.ToString() + " padding_idx " +
                     std::to_string(padding_idx) + " " + platform::DataTypeName(t));
        const SlotTensors in = {{"W", {RandomOf(t, {kRows, kWidth}, -1, 1, 7)}},
                                {"Ids", {IdsOf(c)}},
                                {"Out@GRAD", {RandomOf(t, LookupOutDims(c), -1, 1, 8)}}};
        const AttributeMap attrs = {{"padding_idx", padding_idx}, {"is_sparse", true}};
        framework::DeviceType cpu_device, gpu_device;
        const SelectedRows cpu =
            RunSparseGrad(c.type + "_grad", in, attrs, platform::CPUPlace(), &cpu_device);
        const SelectedRows gpu =
            RunSparseGrad(c.type + "_grad", in, attrs, platform::CUDAPlace(0), &gpu_device);
        EXPECT_EQ(gpu_device, framework::DeviceType::kCUDA);
        EXPECT_EQ(gpu.rows(), cpu.rows());
        EXPECT_EQ(gpu.height(), cpu.height());
        EXPECT_EQ(gpu.value().dims(), cpu.value().dims());
        EXPECT_EQ(gpu.value().dtype(), cpu.value().dtype());
        EXPECT_EQ(ToDoubles(gpu.value()), ToDoubles(cpu.value()));
      }
    }
  }
}

TEST_F(CudaInterpLookupTest, IdOutOfRangeIsTheCpuError) {
  const DenseTensor w = RandomOf(DataType::FLOAT32, {4, 3}, -1, 1, 9);
  for (const platform::Place& place :
       {platform::Place(platform::CPUPlace()), platform::Place(platform::CUDAPlace(0))}) {
    ExpectError<platform::InvalidArgumentError>(
        [&] {
          RunOp("lookup_table_v2", {{"W", {w}}, {"Ids", {MakeTensor<int64_t>({3}, {0, 4, 1})}}},
                {{"Out", 1}}, {}, place);
        },
        {"op `lookup_table_v2` input `Ids`: id 4 at element 1 is outside [0, 4)"});
    ExpectError<platform::InvalidArgumentError>(
        [&] {
          RunOp("lookup_table", {{"W", {w}}, {"Ids", {MakeTensor<int32_t>({2, 1}, {-1, 0})}}},
                {{"Out", 1}}, {}, place);
        },
        {"op `lookup_table` input `Ids`: id -1 at element 0 is outside [0, 4)"});
    ExpectError<platform::InvalidArgumentError>(
        [&] {
          RunOp("lookup_table_v2_grad",
                {{"W", {w}},
                 {"Ids", {MakeTensor<int64_t>({2}, {1, 7})}},
                 {"Out@GRAD", {RandomOf(DataType::FLOAT32, {2, 3}, -1, 1, 10)}}},
                {{"W@GRAD", 1}}, {}, place);
        },
        {"op `lookup_table_v2_grad` input `Ids`: id 7 at element 1 is outside [0, 4)"});
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

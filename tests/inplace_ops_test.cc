// In-place execution, driven by the kernel registry: every op with a kernel that declares an
// (input, output) pair it computes in place (KernelInfo::inplace) is run
//   - by a program that names the output over the input (PaddlePaddle's in-place passes
//     write such programs): the result equals the out-of-place one, and a tensor outside the
//     program that shares the input's buffer keeps its values;
//   - where the executor's memory plan hands the output a dying temporary's buffer: the
//     profile shows the reuse exactly when the chosen kernel declares the pair, and the
//     values are bitwise those of a run where the temporary is kept (no reuse).
// A new op that declares a pair is tested without editing this file.
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "framework/executor.h"
#include "framework/kernel_registry.h"
#include "framework/op_info.h"
#include "framework/passes/fuse_relu_grad_pass.h"
#include "platform/init.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using InPlacePair = std::pair<std::string, std::string>;

// Input ranges where an op's math is defined and well away from its kinks' neighbourhood
// does not matter (the comparisons are bitwise against the same kernel).
std::pair<double, double> InputRange(const std::string& type) {
  if (type == "log" || type == "elementwise_div") return {0.25, 4};
  return {-3, 3};
}

struct DeclaredOp {
  std::string type;
  std::set<InPlacePair> pairs;  // Over every kernel of the op.
};

// Pairs whose input is dispensable (a fused op's optional operand, such as conv2d's
// ResidualData) need that op's own inputs and attributes: their ops' tests cover them
// (prepared_kernel_test.cc for conv2d). So do the pooling gradients, whose X@GRAD may go
// over X (execution_passes_test.cc). The rest are same-shape ops tested here.
std::vector<DeclaredOp> OpsDeclaringInPlace() {
  operators::RegisterAllOps();
  const std::set<std::string> tested_apart = {"pool2d_grad", framework::kFusedReluPool2dGrad};
  std::vector<DeclaredOp> ops;
  for (const auto& [type, info] : framework::OpInfoMap::Instance().map()) {
    if (tested_apart.count(type) > 0) continue;
    DeclaredOp op{type, {}};
    for (const auto& k : framework::KernelRegistry::Instance().KernelsOf(type)) {
      for (const InPlacePair& pair : k.inplace) {
        const framework::OpSpec& spec = info.spec;
        const bool dispensable = std::any_of(
            spec.inputs.begin(), spec.inputs.end(),
            [&](const auto& slot) { return slot.name == pair.first && slot.dispensable; });
        if (!dispensable) op.pairs.insert(pair);
      }
    }
    if (!op.pairs.empty()) ops.push_back(op);
  }
  return ops;
}

// Inputs of `type` (required slots; duplicable ones get two entries) fed as "<slot>_<i>",
// all of `dims`.
struct OpInputs {
  framework::VariableNameMap names;
  std::map<std::string, DenseTensor> feeds;
};

OpInputs MakeInputs(const std::string& type, const DDim& dims, unsigned seed) {
  const framework::OpSpec& spec = framework::OpInfoMap::Instance().Get(type).spec;
  const auto range = InputRange(type);
  OpInputs in;
  for (const auto& slot : spec.inputs) {
    if (slot.dispensable) continue;
    for (int i = 0; i < (slot.duplicable ? 2 : 1); ++i) {
      const std::string name = slot.name + "_" + std::to_string(i);
      in.names[slot.name].push_back(name);
      in.feeds[name] =
          MakeTensor<float>(dims, RandomValues(dims.numel(), range.first, range.second, ++seed));
    }
  }
  return in;
}

framework::VariableNameMap OutputNames(const std::string& type) {
  framework::VariableNameMap out;
  for (const auto& slot : framework::OpInfoMap::Instance().Get(type).spec.outputs) {
    out[slot.name] = {"out_" + slot.name};
  }
  return out;
}

class InPlaceOpsTest : public OneDNNKernelTestBase {
 protected:
  // Plain kernels run in every build; the oneDNN ones where the build has them.
  void SetUp() override {
    operators::RegisterAllOps();
    if (platform::BuiltWithOneDNN()) OneDNNKernelTestBase::SetUp();
  }
};

TEST_F(InPlaceOpsTest, TheRegistryDeclaresInPlacePairs) {
  // The ops whose kernels must keep declaring their pairs (the list may only grow).
  std::set<std::string> declared;
  for (const auto& op : OpsDeclaringInPlace()) declared.insert(op.type);
  for (const char* type : {"relu", "sigmoid", "gelu", "relu_grad", "scale", "elementwise_add",
                           "elementwise_mul", "sum"}) {
    EXPECT_TRUE(declared.count(type)) << type;
  }
}

// Programs may name any output over any input, whatever the kernels declare.
void CheckOutputNamedOverInput(const std::string& type, const std::string& in_slot,
                               const std::string& out_slot, const AttributeMap& attrs,
                               unsigned seed) {
  const DDim dims({64, 300});  // Large enough for the oneDNN kernels' primitives.
  for (bool use_onednn : {false, true}) {
    if (use_onednn && !platform::BuiltWithOneDNN()) continue;
    ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
    const std::string what = type + " " + out_slot + " over " + in_slot +
                             (use_onednn ? " (oneDNN allowed)" : " (plain)");
    const OpInputs in = MakeInputs(type, dims, seed);
    const std::string over = in.names.at(in_slot)[0];
    std::map<std::string, std::vector<double>> before;
    for (const auto& [name, t] : in.feeds) before[name] = ToDoubles(t);
    framework::VariableNameMap outputs = OutputNames(type);
    const NamedOpRun apart = RunNamedOp(type, in.names, outputs, in.feeds, attrs);
    const std::string apart_name = outputs.at(out_slot)[0];
    outputs[out_slot] = {over};
    const NamedOpRun written = RunNamedOp(type, in.names, outputs, in.feeds, attrs);
    ExpectNear(ToDoubles(written.vars.at(over)), ToDoubles(apart.vars.at(apart_name)), 0, 0,
               what + ": output over input vs apart");
    for (const auto& [name, t] : in.feeds) {
      ExpectNear(ToDoubles(t), before.at(name), 0, 0, what + ": the caller's `" + name + "`");
    }
  }
}

TEST_F(InPlaceOpsTest, OutputNamedOverInputEqualsOutOfPlace) {
  unsigned seed = 40;
  for (const DeclaredOp& op : OpsDeclaringInPlace()) {
    std::set<std::string> outputs;
    for (const InPlacePair& pair : op.pairs) outputs.insert(pair.second);
    for (const auto& slot : framework::OpInfoMap::Instance().Get(op.type).spec.inputs) {
      if (slot.dispensable) continue;
      for (const auto& out : outputs) CheckOutputNamedOverInput(op.type, slot.name, out, {}, seed += 10);
    }
  }
  // Same-shape ops whose kernels declare no pair, as PaddlePaddle's programs use them.
  CheckOutputNamedOverInput("softmax", "X", "Out", {{"axis", -1}}, seed += 10);
  CheckOutputNamedOverInput("softmax", "X", "Out", {{"axis", 0}}, seed += 10);
  CheckOutputNamedOverInput("softmax_grad", "Out@GRAD", "X@GRAD", {{"axis", -1}}, seed += 10);
  CheckOutputNamedOverInput("log_softmax", "X", "Out", {{"axis", -1}}, seed += 10);
  CheckOutputNamedOverInput("log_softmax", "X", "Out", {{"axis", 0}}, seed += 10);
  CheckOutputNamedOverInput("log_softmax_grad", "Out@GRAD", "X@GRAD", {{"axis", 0}}, seed += 10);
  CheckOutputNamedOverInput("dropout", "X", "Out", {{"is_test", true}, {"dropout_prob", 0.3f}},
                            seed += 10);
  CheckOutputNamedOverInput("cast", "X", "Out", {{"in_dtype", 5}, {"out_dtype", 5}}, seed += 10);
  CheckOutputNamedOverInput("assign", "X", "Out", {}, seed += 10);
}

struct PlannedRun {
  std::vector<double> values;
  std::vector<std::string> in_place;  // The op's profile record.
  const framework::KernelInfo* kernel = nullptr;
};

// scale(src) -> "t" (a temporary no one else holds), then `type` reading "t" through the
// first entry of `pair.first` and writing `pair.second` to "y". With `keep_t`, "t" is
// fetched too, so nothing may reuse it.
PlannedRun RunPlanned(const std::string& type, const InPlacePair& pair, const OpInputs& in,
                      bool keep_t) {
  framework::ProgramDesc program;
  framework::BlockDesc& block = program.Block(0);
  const DenseTensor& src = in.feeds.at(in.names.at(pair.first)[0]);
  for (const auto& [name, t] : in.feeds) {
    framework::VarDesc* v = block.Var(name);
    v->SetDataType(DataType::FLOAT32);
    v->SetShape(t.dims().ToVector());
  }
  framework::VarDesc* t = block.Var("t");
  t->SetDataType(DataType::FLOAT32);
  t->SetShape(src.dims().ToVector());
  framework::OpDesc* copy = block.AppendOp();
  copy->SetType("scale");
  copy->SetInput("X", {in.names.at(pair.first)[0]});
  copy->SetOutput("Out", {"t"});
  copy->SetAttr("scale", 1.0f);
  framework::OpDesc* op = block.AppendOp();
  op->SetType(type);
  framework::VariableNameMap inputs = in.names;
  inputs[pair.first][0] = "t";
  for (const auto& [slot, names] : inputs) op->SetInput(slot, names);
  framework::VariableNameMap outputs = OutputNames(type);
  outputs[pair.second] = {"y"};
  for (const auto& [slot, names] : outputs) {
    for (const auto& name : names) block.Var(name);
    op->SetOutput(slot, names);
  }
  framework::Scope scope;
  framework::ExecutionProfile profile;
  framework::Executor::RunOptions options;
  options.profile = &profile;
  std::vector<std::string> fetches = {"y"};
  if (keep_t) fetches.push_back("t");
  const auto values =
      framework::Executor(platform::CPUPlace()).Run(program, &scope, in.feeds, fetches, options);
  PlannedRun r;
  r.values = ToDoubles(values[0]);
  r.in_place = profile.ops.at(1).in_place;
  const framework::KernelKey key = profile.ops.at(1).key;
  for (const auto& k : framework::KernelRegistry::Instance().KernelsOf(type)) {
    if (k.key == key) r.kernel = &k;
  }
  return r;
}

TEST_F(InPlaceOpsTest, PlannedReuseOfDyingInputMatchesKeptInput) {
  const DDim dims({64, 300});
  unsigned seed = 500;
  size_t reused = 0;
  for (const DeclaredOp& op : OpsDeclaringInPlace()) {
    for (const InPlacePair& pair : op.pairs) {
      for (bool use_onednn : {false, true}) {
        if (use_onednn && !platform::BuiltWithOneDNN()) continue;
        ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
        const std::string what = op.type + " " + pair.first + " -> " + pair.second +
                                 (use_onednn ? " (oneDNN allowed)" : " (plain)");
        const OpInputs in = MakeInputs(op.type, dims, seed += 10);
        const PlannedRun planned = RunPlanned(op.type, pair, in, false);
        const PlannedRun kept = RunPlanned(op.type, pair, in, true);
        ASSERT_NE(planned.kernel, nullptr) << what;
        const bool declares = std::find(planned.kernel->inplace.begin(),
                                        planned.kernel->inplace.end(),
                                        pair) != planned.kernel->inplace.end();
        EXPECT_EQ(planned.in_place, declares ? std::vector<std::string>{"t -> y"}
                                             : std::vector<std::string>{})
            << what;
        EXPECT_TRUE(kept.in_place.empty()) << what;
        ExpectNear(planned.values, kept.values, 0, 0, what + ": reused vs kept");
        reused += planned.in_place.size();
      }
    }
  }
  EXPECT_GT(reused, 0u);
}

// A fed variable shares its buffer with the caller's tensor: it is never written over.
TEST_F(InPlaceOpsTest, FedInputIsNeverReused) {
  ScopedFlag flag(&FLAGS_use_onednn, false);
  const DDim dims({8, 5});
  const DenseTensor x = MakeTensor<float>(dims, RandomValues(dims.numel(), -2, 2, 3));
  const std::vector<double> before = ToDoubles(x);
  framework::ProgramDesc program;
  framework::BlockDesc& block = program.Block(0);
  block.Var("x")->SetShape(dims.ToVector());
  block.Var("y");
  framework::OpDesc* op = block.AppendOp();
  op->SetType("relu");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"y"});
  framework::Scope scope;
  framework::ExecutionProfile profile;
  framework::Executor::RunOptions options;
  options.profile = &profile;
  const auto y =
      framework::Executor(platform::CPUPlace()).Run(program, &scope, {{"x", x}}, {"y"}, options);
  EXPECT_TRUE(profile.ops.at(0).in_place.empty());
  EXPECT_EQ(ToDoubles(x), before);
  std::vector<double> want = before;
  for (double& v : want) v = v > 0 ? v : 0;
  EXPECT_EQ(ToDoubles(y[0]), want);
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

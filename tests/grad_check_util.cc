#include "tests/grad_check_util.h"

#include <algorithm>
#include <cmath>

#include "framework/backward.h"
#include "framework/var_type_inference.h"

namespace paddle_like {
namespace testing {

namespace {

using framework::AppendBackward;
using framework::BlockDesc;
using framework::Executor;
using framework::OpDesc;
using framework::ProgramDesc;
using framework::Scope;

struct Built {
  ProgramDesc program;
  std::map<std::string, DenseTensor> feeds;
  std::vector<std::string> checked;  // Input variables whose gradients are checked.
  std::string loss;
  int temp = 0;
};

std::string VarName(const std::string& slot, size_t i) { return slot + "_" + std::to_string(i); }

void AddOp(BlockDesc* b, const std::string& type, const framework::VariableNameMap& in,
           const framework::VariableNameMap& out, const AttributeMap& attrs = {}) {
  OpDesc* op = b->AppendOp();
  op->SetType(type);
  for (const auto& kv : in) op->SetInput(kv.first, kv.second);
  for (const auto& kv : out) op->SetOutput(kv.first, kv.second);
  for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
  framework::InferVarTypeAndShape(op, b);
}

// Adds loss = sum_k reduce_sum(terms[k] * weights[k]) (weights omitted: plain sums).
std::string AddWeightedSum(Built* built, const std::vector<std::string>& terms,
                           const std::vector<DenseTensor>* weights) {
  BlockDesc& b = built->program.Block(0);
  std::vector<std::string> parts;
  for (size_t k = 0; k < terms.size(); ++k) {
    const std::string id = std::to_string(built->temp++);
    std::string value = terms[k];
    // A complex term enters as its parts (as_real), so the loss stays real.
    const framework::VarDesc* tv = b.FindVar(value);
    if (tv != nullptr && platform::IsComplex(tv->GetDataType())) {
      const std::string parts_of = "check_parts_" + id;
      AddOp(&b, "as_real", {{"X", {value}}}, {{"Out", {parts_of}}});
      value = parts_of;
    }
    if (weights != nullptr) {
      const std::string w = "check_w_" + id;
      framework::VarDesc* wv = b.Var(w);
      wv->SetDataType(DataType::FLOAT64);
      wv->SetShape((*weights)[k].dims().ToVector());
      wv->SetStopGradient(true);
      built->feeds[w] = (*weights)[k];
      const std::string prod = "check_prod_" + id;
      AddOp(&b, "elementwise_mul", {{"X", {value}}, {"Y", {w}}}, {{"Out", {prod}}});
      value = prod;
    }
    parts.push_back("check_term_" + id);
    AddOp(&b, "reduce_sum", {{"X", {value}}}, {{"Out", {parts.back()}}},
          {{"reduce_all", true}, {"dim", std::vector<int>{}}});
  }
  const std::string loss = "check_loss_" + std::to_string(built->temp++);
  AddOp(&b, "sum", {{"X", parts}}, {{"Out", {loss}}});
  return loss;
}

DenseTensor Fetch(const Built& built, const std::map<std::string, DenseTensor>& feeds,
                  const std::string& name) {
  Scope scope;
  return Executor(platform::CPUPlace()).Run(built.program, &scope, feeds, {name})[0];
}

// Builds the op and its output variables; returns the output names that enter the loss.
std::vector<std::string> BuildForward(Built* built, const std::string& op_type,
                                      const SlotTensors& inputs,
                                      const std::map<std::string, int>& outputs,
                                      const AttributeMap& attrs,
                                      const std::vector<std::string>& wrt,
                                      const std::vector<std::string>& loss_outputs) {
  operators::RegisterAllOps();
  BlockDesc& b = built->program.Block(0);
  framework::VariableNameMap in, out;
  for (const auto& kv : inputs) {
    const bool checked = wrt.empty() || std::count(wrt.begin(), wrt.end(), kv.first) > 0;
    for (size_t i = 0; i < kv.second.size(); ++i) {
      const std::string name = VarName(kv.first, i);
      framework::VarDesc* v = b.Var(name);
      v->SetDataType(kv.second[i].dtype());
      v->SetShape(kv.second[i].dims().ToVector());
      v->SetStopGradient(!checked);
      built->feeds[name] = kv.second[i];
      in[kv.first].push_back(name);
      const DataType t = kv.second[i].dtype();
      if (checked && (platform::IsFloatingPoint(t) || platform::IsComplex(t))) {
        built->checked.push_back(name);
      }
    }
  }
  std::vector<std::string> loss_terms;
  for (const auto& kv : outputs) {
    const bool enters = loss_outputs.empty() ||
                        std::count(loss_outputs.begin(), loss_outputs.end(), kv.first) > 0;
    for (int i = 0; i < kv.second; ++i) {
      const std::string name = "out_" + VarName(kv.first, static_cast<size_t>(i));
      out[kv.first].push_back(name);
      if (enters) loss_terms.push_back(name);
    }
  }
  AddOp(&b, op_type, in, out, attrs);
  return loss_terms;
}

// Random loss weights for a value like `y`: one per value, two (real, imaginary) for a
// complex one.
DenseTensor LossWeights(const DenseTensor& y, unsigned seed) {
  std::vector<int64_t> dims = y.dims().ToVector();
  if (platform::IsComplex(y.dtype())) dims.push_back(2);
  const DDim d(dims);
  return MakeTensor<double>(d, RandomValues(d.numel(), 0.5, 1.5, seed));
}

// `like`'s dims and type (real, or complex with interleaved values) from `values`.
DenseTensor LikeWithValues(const DenseTensor& like, const std::vector<double>& values) {
  return platform::IsComplex(like.dtype()) ? MakeComplexTensor<double>(like.dims(), values)
                                           : MakeTensor<double>(like.dims(), values);
}

}  // namespace

void CheckGradients(const GradCheck& check) {
  Built built;
  const auto terms = BuildForward(&built, check.op_type, check.inputs, check.outputs, check.attrs,
                                  check.wrt, check.loss_outputs);
  // Random weights of the outputs' run-time shapes.
  std::vector<DenseTensor> weights;
  for (size_t k = 0; k < terms.size(); ++k) {
    const DenseTensor y = Fetch(built, built.feeds, terms[k]);
    weights.push_back(LossWeights(y, 31 + static_cast<unsigned>(k)));
  }
  built.loss = AddWeightedSum(&built, terms, &weights);

  for (int order = 1; order <= check.max_order; ++order) {
    SCOPED_TRACE("op `" + check.op_type + "` gradient order " + std::to_string(order));
    const auto result = AppendBackward(&built.program, built.loss);
    std::vector<std::string> grads;
    for (const auto& x : built.checked) {
      auto it = result.grad_of.find(x);
      grads.push_back(it == result.grad_of.end() ? "" : it->second);
    }
    for (size_t i = 0; i < built.checked.size(); ++i) {
      const std::string& x = built.checked[i];
      const DenseTensor& x0 = built.feeds.at(x);
      // A complex X: the gradient's real and imaginary parts against the derivatives by the
      // real and imaginary parts of X (dL/da + i dL/db).
      const std::vector<double> base = ToDoubles(x0);
      std::vector<double> analytic(base.size(), 0.0);
      if (!grads[i].empty()) {
        analytic = ToDoubles(Fetch(built, built.feeds, grads[i]));
        ASSERT_EQ(analytic.size(), base.size()) << "gradient " << grads[i];
      }
      std::vector<double> numeric(analytic.size());
      for (size_t k = 0; k < base.size(); ++k) {
        double value[2];
        for (int side = 0; side < 2; ++side) {
          std::vector<double> moved = base;
          moved[k] += side == 0 ? check.eps : -check.eps;
          auto feeds = built.feeds;
          feeds[x] = LikeWithValues(x0, moved);
          feeds[x].set_lod(x0.lod());  // Sequence ops read the LoD of what they are fed.
          value[side] = ToDoubles(Fetch(built, feeds, built.loss))[0];
        }
        numeric[k] = (value[0] - value[1]) / (2 * check.eps);
      }
      ExpectNear(analytic, numeric, check.rtol, check.atol,
                 "d " + built.loss + " / d " + x + " (gradient variable `" + grads[i] + "`)");
    }
    if (order == check.max_order) break;
    std::vector<std::string> next_terms;
    std::vector<DenseTensor> next_weights;
    for (size_t i = 0; i < built.checked.size(); ++i) {
      if (grads[i].empty()) continue;
      const DenseTensor& x0 = built.feeds.at(built.checked[i]);
      next_terms.push_back(grads[i]);
      next_weights.push_back(LossWeights(x0, 71 + static_cast<unsigned>(order * 10 + i)));
    }
    if (next_terms.empty()) break;  // Every gradient is identically zero from here on.
    built.loss = AddWeightedSum(&built, next_terms, &next_weights);
  }
}

std::map<std::string, DenseTensor> NthGradient(const std::string& op_type,
                                               const SlotTensors& inputs,
                                               const std::map<std::string, int>& outputs,
                                               const AttributeMap& attrs, int order,
                                               const std::vector<std::string>& loss_outputs) {
  Built built;
  const auto terms = BuildForward(&built, op_type, inputs, outputs, attrs, {}, loss_outputs);
  built.loss = AddWeightedSum(&built, terms, nullptr);
  std::map<std::string, std::string> grad_names;
  for (int k = 1; k <= order; ++k) {
    const auto result = AppendBackward(&built.program, built.loss);
    std::vector<std::string> next;
    grad_names.clear();
    for (const auto& x : built.checked) {
      auto it = result.grad_of.find(x);
      if (it == result.grad_of.end()) continue;
      grad_names[x] = it->second;
      next.push_back(it->second);
    }
    if (k == order) break;
    if (next.empty()) {  // Identically zero from here on.
      grad_names.clear();
      break;
    }
    built.loss = AddWeightedSum(&built, next, nullptr);
  }
  std::map<std::string, DenseTensor> out;
  for (const auto& x : built.checked) {
    auto it = grad_names.find(x);
    if (it == grad_names.end()) {
      const DenseTensor& x0 = built.feeds.at(x);
      out[x] = MakeTensor<double>(x0.dims(), std::vector<double>(static_cast<size_t>(x0.numel()), 0.0));
    } else {
      out[x] = Fetch(built, built.feeds, it->second);
    }
  }
  return out;
}

}  // namespace testing
}  // namespace paddle_like

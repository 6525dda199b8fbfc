// group_norm and instance_norm against a direct double reference (NCHW and NHWC, groups 1, 2
// and C, with and without Scale and Bias, rank 2 to 5), their statistics outputs, their
// gradients (X, Scale, Bias) against finite differences, and their errors.
#include <cmath>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct NormCase {
  std::vector<int64_t> x;
  int groups = 1;  // instance_norm: ignored (one group per channel).
  bool nhwc = false;
  bool scale = true, bias = true;
};

struct Reference {
  std::vector<double> y, mean, var;  // var: variance (group_norm) or 1/sqrt(var+eps).
};

// Direct loops: the channel of element i from its position in X's layout.
Reference Normalize(const NormCase& c, const std::vector<double>& x,
                    const std::vector<double>& gamma, const std::vector<double>& beta, int groups,
                    bool instance, double eps) {
  const int64_t n = c.x[0];
  const int64_t ch = c.nhwc ? c.x.back() : c.x[1];
  int64_t spatial = 1;
  for (size_t d = 1; d < c.x.size(); ++d) {
    if (d != (c.nhwc ? c.x.size() - 1 : 1)) spatial *= c.x[d];
  }
  const auto index = [&](int64_t s_n, int64_t s_c, int64_t s) {
    return c.nhwc ? (s_n * spatial + s) * ch + s_c : (s_n * ch + s_c) * spatial + s;
  };
  Reference r;
  r.y.assign(x.size(), 0);
  const int64_t cg = ch / groups;
  for (int64_t s_n = 0; s_n < n; ++s_n) {
    for (int64_t g = 0; g < groups; ++g) {
      double sum = 0, count = 0;
      for (int64_t s_c = g * cg; s_c < (g + 1) * cg; ++s_c) {
        for (int64_t s = 0; s < spatial; ++s) {
          sum += x[index(s_n, s_c, s)];
          ++count;
        }
      }
      const double mu = sum / count;
      double ss = 0;
      for (int64_t s_c = g * cg; s_c < (g + 1) * cg; ++s_c) {
        for (int64_t s = 0; s < spatial; ++s) ss += std::pow(x[index(s_n, s_c, s)] - mu, 2);
      }
      const double var = ss / count;
      for (int64_t s_c = g * cg; s_c < (g + 1) * cg; ++s_c) {
        for (int64_t s = 0; s < spatial; ++s) {
          const int64_t i = index(s_n, s_c, s);
          r.y[i] = (x[i] - mu) / std::sqrt(var + eps) * gamma[s_c] + beta[s_c];
        }
      }
      r.mean.push_back(mu);
      r.var.push_back(instance ? 1 / std::sqrt(var + eps) : var);
    }
  }
  return r;
}

std::vector<NormCase> GroupCases() {
  return {{{2, 4, 3, 3}, 2},         {{2, 6, 5}, 3},           {{1, 4, 2, 3}, 4},
          {{3, 4, 2, 2}, 1},         {{2, 3, 3, 6}, 3, true},  {{2, 2, 3, 4, 6}, 2, true},
          {{2, 4, 3, 3}, 2, false, false, false},             {{4, 6}, 2},
          {{2, 4, 2, 3, 2}, 2, false, true, false}};
}

std::vector<NormCase> InstanceCases() {
  return {{{2, 3, 4, 4}}, {{1, 2, 5}}, {{2, 3, 2, 2, 3}}, {{2, 3, 4, 4}, 1, false, false, false},
          {{3, 2, 3, 3}, 1, false, false, true}};
}

SlotTensors Inputs(const NormCase& c, int64_t channels, unsigned seed, bool f32) {
  const DDim dims(c.x);
  const auto make = [&](const DDim& d, double lo, double hi, unsigned s) {
    const auto v = RandomValues(d.numel(), lo, hi, s);
    return f32 ? MakeTensor<float>(d, v) : MakeTensor<double>(d, v);
  };
  SlotTensors in = {{"X", {make(dims, -2, 3, seed)}}};
  if (c.scale) in["Scale"] = {make(DDim({channels}), 0.5, 1.5, seed + 1)};
  if (c.bias) in["Bias"] = {make(DDim({channels}), -1, 1, seed + 2)};
  return in;
}

void CheckForward(const std::string& op, const NormCase& c, unsigned seed) {
  const bool instance = op == "instance_norm";
  const int64_t ch = c.nhwc ? c.x.back() : c.x[1];
  const int groups = instance ? static_cast<int>(ch) : c.groups;
  const float eps = 1e-4f;
  AttributeMap attrs = {{"epsilon", eps}};
  if (!instance) {
    attrs["groups"] = c.groups;
    attrs["data_layout"] = std::string(c.nhwc ? "NHWC" : "NCHW");
  }
  for (bool f32 : {false, true}) {
    const SlotTensors in = Inputs(c, ch, seed, f32);
    const std::vector<double> x = ToDoubles(in.at("X")[0]);
    const std::vector<double> gamma =
        c.scale ? ToDoubles(in.at("Scale")[0]) : std::vector<double>(ch, 1.0);
    const std::vector<double> beta =
        c.bias ? ToDoubles(in.at("Bias")[0]) : std::vector<double>(ch, 0.0);
    const Reference want = Normalize(c, x, gamma, beta, groups, instance, eps);
    const std::string mean = instance ? "SavedMean" : "Mean";
    const std::string var = instance ? "SavedVariance" : "Variance";
    const OpRunResult r = RunOp(op, in, {{"Y", 1}, {mean, 1}, {var, 1}}, attrs);
    const std::string what = op + " " + DDim(c.x).ToString() + (f32 ? " float" : " double");
    EXPECT_EQ(r.outputs.at("Y")[0].dims(), DDim(c.x)) << what;
    const double rtol = f32 ? 1e-5 : 1e-12, atol = f32 ? 1e-5 : 1e-12;
    ExpectNear(ToDoubles(r.outputs.at("Y")[0]), want.y, rtol, atol, what + " Y");
    ExpectNear(ToDoubles(r.outputs.at(mean)[0]), want.mean, rtol, atol, what + " " + mean);
    ExpectNear(ToDoubles(r.outputs.at(var)[0]), want.var, rtol, atol, what + " " + var);
    const DDim stats = instance ? DDim({c.x[0] * ch}) : DDim({c.x[0], c.groups});
    EXPECT_EQ(r.outputs.at(mean)[0].dims(), stats) << what;
  }
}

TEST(GroupNormOp, MatchesDirectLoops) {
  operators::RegisterAllOps();
  unsigned seed = 1;
  for (const NormCase& c : GroupCases()) CheckForward("group_norm", c, seed += 10);
}

TEST(InstanceNormOp, MatchesDirectLoops) {
  operators::RegisterAllOps();
  unsigned seed = 2;
  for (const NormCase& c : InstanceCases()) CheckForward("instance_norm", c, seed += 10);
}

void CheckGrads(const std::string& op, const NormCase& c, unsigned seed) {
  const bool instance = op == "instance_norm";
  const int64_t ch = c.nhwc ? c.x.back() : c.x[1];
  GradCheck check;
  check.op_type = op;
  check.inputs = Inputs(c, ch, seed, false);
  check.attrs = {{"epsilon", 1e-4f}};
  if (!instance) {
    check.attrs["groups"] = c.groups;
    check.attrs["data_layout"] = std::string(c.nhwc ? "NHWC" : "NCHW");
  }
  check.outputs = {{"Y", 1},
                   {instance ? "SavedMean" : "Mean", 1},
                   {instance ? "SavedVariance" : "Variance", 1}};
  check.loss_outputs = {"Y"};
  check.rtol = 1e-5;
  check.atol = 1e-6;
  CheckGradients(check);
}

TEST(GroupNormOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  unsigned seed = 3;
  for (const NormCase& c : GroupCases()) {
    SCOPED_TRACE(DDim(c.x).ToString());
    CheckGrads("group_norm", c, seed += 10);
  }
}

TEST(InstanceNormOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  unsigned seed = 4;
  for (const NormCase& c : InstanceCases()) {
    SCOPED_TRACE(DDim(c.x).ToString());
    CheckGrads("instance_norm", c, seed += 10);
  }
}

TEST(GroupNormOp, BadInputsAreErrors) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<float>({2, 6, 2}, RandomValues(24, -1, 1, 9));
  const std::map<std::string, int> outs = {{"Y", 1}, {"Mean", 1}, {"Variance", 1}};
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("group_norm", {{"X", {x}}}, outs, {{"groups", 4}}); },
      {"op `group_norm` attribute `groups`", "divisor of the 6 channels", "received 4"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("group_norm", {{"X", {x}}}, outs, {{"groups", 0}}); },
      {"op `group_norm` attribute `groups`", "received 0"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("group_norm", {{"X", {x}}}, outs, {{"data_layout", std::string("NCDHW")}});
      },
      {"op `group_norm` attribute `data_layout`", "NCHW or NHWC", "NCDHW"});
  const DenseTensor scale = MakeTensor<float>({4}, {1, 1, 1, 1});
  ExpectError<platform::InvalidArgumentError>(
      [&] { RunOp("group_norm", {{"X", {x}}, {"Scale", {scale}}}, outs, {{"groups", 2}}); },
      {"op `group_norm` input `Scale`", "[6]", "received [4]"});
  const DenseTensor flat = MakeTensor<float>({6}, RandomValues(6, -1, 1, 9));
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("instance_norm", {{"X", {flat}}},
              {{"Y", 1}, {"SavedMean", 1}, {"SavedVariance", 1}}, {});
      },
      {"op `instance_norm` input `X`", "rank >= 2", "[6]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// Gradients of the reductions and broadcasts (mean, reduce_sum, reduce_as, expand_as_v2,
// sum) and of unsqueeze2 / squeeze2 against finite differences, first and second order.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

std::string ListText(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

GradCheck Unary(const std::string& op, const DDim& x, const AttributeMap& attrs,
                unsigned seed = 3) {
  GradCheck c;
  c.op_type = op;
  c.inputs = {{"X", {MakeTensor<double>(x, RandomValues(x.numel(), -1.5, 1.5, seed))}}};
  c.outputs = {{"Out", 1}};
  c.attrs = attrs;
  c.max_order = 2;
  c.rtol = 1e-6;
  c.atol = 1e-7;
  return c;
}

TEST(ReduceGrad, Mean) {
  for (const DDim& x : {DDim({2, 3}), DDim({4}), DDim({2, 1, 3}), DDim()}) {
    SCOPED_TRACE("mean " + x.ToString());
    CheckGradients(Unary("mean", x, {}));
  }
}

TEST(ReduceGrad, MeanFloat32UsesItsDtype) {
  // The count is cast to X's dtype: a float32 gradient, checked against 1 / N.
  auto g =
      NthGradient("mean", {{"X", {MakeTensor<float>({2, 2}, {1, 2, 3, 4})}}}, {{"Out", 1}}, {}, 1);
  EXPECT_EQ(g.at("X_0").dtype(), DataType::FLOAT32);
  ExpectNear(ToDoubles(g.at("X_0")), std::vector<double>(4, 0.25), 0, 0, "mean grad");
}

TEST(ReduceGrad, ReduceSum) {
  struct Case {
    DDim x;
    std::vector<int> dim;
    bool keep_dim, reduce_all;
  };
  const std::vector<Case> cases = {
      {{2, 3}, {1}, false, false},       {{2, 3}, {0}, false, false},
      {{2, 3}, {-1}, true, false},       {{2, 3, 2}, {0, 2}, false, false},
      {{2, 3, 2}, {-1, 0}, true, false}, {{2, 3, 2}, {}, false, true},
      {{2, 3}, {0}, true, true},         {{2, 3}, {0, 1}, false, false},
      {{3}, {0}, false, false},          {{}, {0}, false, false},
      {{2, 1, 3}, {1}, false, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE("reduce_sum " + c.x.ToString() + " dim " + ListText(c.dim) +
                 (c.keep_dim ? " keep_dim" : "") + (c.reduce_all ? " reduce_all" : ""));
    CheckGradients(Unary("reduce_sum", c.x,
                         {{"dim", c.dim}, {"keep_dim", c.keep_dim}, {"reduce_all", c.reduce_all}}));
  }
}

TEST(ReduceGrad, ReduceSumToWiderDtype) {
  // out_dtype float64 on a float32 X: the gradient is cast back to float32.
  auto g = NthGradient("reduce_sum", {{"X", {MakeTensor<float>({2, 2}, {1, 2, 3, 4})}}},
                       {{"Out", 1}}, {{"dim", std::vector<int>{1}}, {"out_dtype", 6}}, 1);
  EXPECT_EQ(g.at("X_0").dtype(), DataType::FLOAT32);
  ExpectNear(ToDoubles(g.at("X_0")), std::vector<double>(4, 1.0), 0, 0, "reduce_sum grad");
}

struct Pair {
  DDim big, small;
  int axis;
};

TEST(ReduceGrad, ReduceAs) {
  const std::vector<Pair> cases = {{{2, 3, 2}, {3}, 1}, {{2, 3, 2}, {2, 1, 2}, -1},
                                   {{2, 3}, {3}, -1},   {{2, 3}, {3, 1}, 1},
                                   {{2, 3}, {}, -1},    {{2, 3}, {2, 3}, -1}};
  unsigned seed = 1;
  for (const auto& c : cases) {
    SCOPED_TRACE("reduce_as " + c.big.ToString() + " -> " + c.small.ToString());
    GradCheck g;
    g.op_type = "reduce_as";
    g.inputs = {
        {"X", {MakeTensor<double>(c.big, RandomValues(c.big.numel(), -1, 1, seed++))}},
        {"Target", {MakeTensor<double>(c.small, RandomValues(c.small.numel(), -1, 1, seed++))}}};
    g.outputs = {{"Out", 1}};
    g.attrs = {{"axis", c.axis}};
    g.wrt = {"X"};
    g.max_order = 2;
    g.rtol = 1e-6;
    CheckGradients(g);
  }
}

TEST(ReduceGrad, ExpandAsV2) {
  const std::vector<Pair> cases = {{{2, 3}, {3}, -1},          {{2, 3, 2}, {3, 1}, 1},
                                   {{2, 3, 2}, {3}, 1},        {{2, 3}, {}, -1},
                                   {{2, 3, 2}, {2, 1, 2}, -1}, {{2, 3}, {2, 3}, -1}};
  unsigned seed = 40;
  for (const auto& c : cases) {
    SCOPED_TRACE("expand_as_v2 " + c.small.ToString() + " -> " + c.big.ToString());
    GradCheck g;
    g.op_type = "expand_as_v2";
    g.inputs = {{"X", {MakeTensor<double>(c.small, RandomValues(c.small.numel(), -1, 1, seed++))}},
                {"Y", {MakeTensor<double>(c.big, RandomValues(c.big.numel(), -1, 1, seed++))}}};
    g.outputs = {{"Out", 1}};
    g.attrs = {{"axis", c.axis}};
    g.wrt = {"X"};
    g.max_order = 2;
    g.rtol = 1e-6;
    CheckGradients(g);
  }
}

TEST(ReduceGrad, Sum) {
  GradCheck c;
  c.op_type = "sum";
  c.inputs = {{"X",
               {MakeTensor<double>({2, 3}, RandomValues(6, -1, 1, 1)),
                MakeTensor<double>({2, 3}, RandomValues(6, -1, 1, 2)),
                MakeTensor<double>({2, 3}, RandomValues(6, -1, 1, 3))}}};
  c.outputs = {{"Out", 1}};
  c.max_order = 2;
  CheckGradients(c);
}

TEST(ReduceGrad, UnsqueezeAndSqueeze) {
  struct Case {
    std::string op;
    DDim x;
    std::vector<int> axes;
  };
  const std::vector<Case> cases = {
      {"unsqueeze2", {2, 3}, {0, 2}},      {"unsqueeze2", {3}, {1, 0}},
      {"unsqueeze2", {2, 3}, {-1}},        {"unsqueeze2", {}, {0}},
      {"squeeze2", {1, 3, 1, 2}, {0, 2}},  {"squeeze2", {1, 3, 1, 2}, {}},
      {"squeeze2", {1, 3, 1, 2}, {1, -2}}, {"squeeze2", {2, 1}, {-1}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op + " " + c.x.ToString() + " axes " + ListText(c.axes));
    GradCheck g = Unary(c.op, c.x, {{"axes", c.axes}});
    g.outputs = {{"Out", 1}, {"XShape", 1}};
    g.loss_outputs = {"Out"};
    CheckGradients(g);
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

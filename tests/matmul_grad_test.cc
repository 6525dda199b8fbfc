// Gradients of matmul_v2 (every trans combination, broadcast batch dims, 1-D operands;
// first and second order) and of mul (first order, fused mul_grad) against finite
// differences.
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "tests/grad_check_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct MatmulCase {
  DDim x, y;
  bool trans_x, trans_y;
};

TEST(MatmulGrad, MatmulV2FirstAndSecondOrder) {
  const std::vector<MatmulCase> cases = {
      {{2, 3}, {3, 2}, false, false},
      {{3, 2}, {3, 2}, true, false},
      {{2, 3}, {2, 3}, false, true},
      {{3, 2}, {2, 3}, true, true},
      // Batch dims: broadcast on either side, and a missing batch dim.
      {{2, 2, 3}, {3, 2}, false, false},
      {{3, 2}, {2, 2, 3}, true, true},
      {{2, 1, 2, 3}, {2, 3, 2}, false, false},
      {{1, 2, 3}, {2, 2, 3}, false, true},
      // 1-D operands (their trans flags are ignored).
      {{3}, {3, 2}, false, false},
      {{2, 3}, {3}, false, false},
      {{3}, {3}, true, true},
      {{3}, {2, 3, 2}, false, false},
      {{2, 2, 3}, {3}, false, false},
      {{3}, {2, 3}, false, true},
      {{3, 2}, {3}, true, false},
  };
  unsigned seed = 5;
  for (const auto& c : cases) {
    SCOPED_TRACE("matmul_v2 X " + c.x.ToString() + " Y " + c.y.ToString() +
                 (c.trans_x ? " trans_x" : "") + (c.trans_y ? " trans_y" : ""));
    GradCheck g;
    g.op_type = "matmul_v2";
    g.inputs = {{"X", {MakeTensor<double>(c.x, RandomValues(c.x.numel(), -1, 1, seed++))}},
                {"Y", {MakeTensor<double>(c.y, RandomValues(c.y.numel(), -1, 1, seed++))}}};
    g.outputs = {{"Out", 1}};
    g.attrs = {{"trans_x", c.trans_x}, {"trans_y", c.trans_y}};
    g.max_order = 2;
    g.rtol = 1e-6;
    g.atol = 1e-7;
    CheckGradients(g);
  }
}

TEST(MatmulGrad, MatmulV2OneSide) {
  for (const char* side : {"X", "Y"}) {
    SCOPED_TRACE(side);
    GradCheck g;
    g.op_type = "matmul_v2";
    g.inputs = {{"X", {MakeTensor<double>({2, 2, 3}, RandomValues(12, -1, 1, 1))}},
                {"Y", {MakeTensor<double>({3}, RandomValues(3, -1, 1, 2))}}};
    g.outputs = {{"Out", 1}};
    g.wrt = {side};
    g.max_order = 2;
    g.rtol = 1e-6;
    CheckGradients(g);
  }
}

TEST(MatmulGrad, MulFirstOrder) {
  struct Case {
    DDim x, y;
    int xn, yn;
  };
  const std::vector<Case> cases = {{{2, 3}, {3, 2}, 1, 1},
                                   {{2, 2, 3}, {3, 2}, 2, 1},
                                   {{2, 3}, {3, 2, 2}, 1, 1},
                                   {{2, 3, 2}, {6, 2}, 1, 1},
                                   {{2, 3}, {1, 3, 2}, 1, 2}};
  unsigned seed = 21;
  for (const auto& c : cases) {
    SCOPED_TRACE("mul X " + c.x.ToString() + " Y " + c.y.ToString());
    GradCheck g;
    g.op_type = "mul";
    g.inputs = {{"X", {MakeTensor<double>(c.x, RandomValues(c.x.numel(), -1, 1, seed++))}},
                {"Y", {MakeTensor<double>(c.y, RandomValues(c.y.numel(), -1, 1, seed++))}}};
    g.outputs = {{"Out", 1}};
    g.attrs = {{"x_num_col_dims", c.xn}, {"y_num_col_dims", c.yn}};
    g.rtol = 1e-6;
    CheckGradients(g);
    for (const char* side : {"X", "Y"}) {
      g.wrt = {side};
      CheckGradients(g);
    }
  }
}

TEST(MatmulGrad, MulGradIsFusedAndNamesNotOut) {
  operators::RegisterAllOps();
  framework::ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  for (const auto& kv : std::map<std::string, std::vector<int64_t>>{{"x", {2, 3}}, {"y", {3, 2}}}) {
    framework::VarDesc* v = b.Var(kv.first);
    v->SetDataType(DataType::FLOAT32);
    v->SetShape(kv.second);
  }
  auto add = [&b](const std::string& type, const framework::VariableNameMap& in,
                  const framework::VariableNameMap& out, const AttributeMap& attrs) {
    framework::OpDesc* o = b.AppendOp();
    o->SetType(type);
    for (const auto& kv : in) o->SetInput(kv.first, kv.second);
    for (const auto& kv : out) o->SetOutput(kv.first, kv.second);
    for (const auto& kv : attrs) o->SetAttr(kv.first, kv.second);
    framework::InferVarTypeAndShape(o, &b);
  };
  add("mul", {{"X", {"x"}}, {"Y", {"y"}}}, {{"Out", {"out"}}}, {});
  add("reduce_sum", {{"X", {"out"}}}, {{"Out", {"loss"}}},
      {{"reduce_all", true}, {"dim", std::vector<int>{}}});
  const size_t n = b.OpSize();
  framework::AppendBackward(&p, "loss");
  const framework::OpDesc* grad = nullptr;
  for (size_t i = n; i < b.OpSize(); ++i) {
    if (b.Op(i)->Type() == "mul_grad") grad = b.Op(i);
  }
  ASSERT_NE(grad, nullptr);
  EXPECT_EQ(grad->Input("X"), std::vector<std::string>{"x"});
  EXPECT_EQ(grad->Input("Y"), std::vector<std::string>{"y"});
  EXPECT_EQ(grad->Input("Out@GRAD"), std::vector<std::string>{"out@GRAD"});
  EXPECT_FALSE(grad->HasInput("Out"));
  EXPECT_EQ(grad->Output("X@GRAD"), std::vector<std::string>{"x@GRAD"});
  EXPECT_EQ(b.FindVar("x@GRAD")->GetShape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(b.FindVar("y@GRAD")->GetShape(), (std::vector<int64_t>{3, 2}));
  // mul_grad is not differentiable again: a second pass names it.
  add("reduce_sum", {{"X", {"x@GRAD"}}}, {{"Out", {"loss2"}}},
      {{"reduce_all", true}, {"dim", std::vector<int>{}}});
  try {
    framework::AppendBackward(&p, "loss2");
    ADD_FAILURE() << "expected NotFoundError";
  } catch (const platform::NotFoundError& e) {
    EXPECT_NE(std::string(e.what()).find("mul_grad"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

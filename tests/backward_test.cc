// The backward builder on small programs of test-only ops whose grad makers are written
// with the ops themselves: gradient sums for a variable used twice, stop_gradient, the
// no-grad set, pruned branches, op roles, renamed names in a second pass, and errors.
#include <gtest/gtest.h>

#include <algorithm>

#include "framework/backward.h"
#include "framework/grad_op_maker.h"
#include "framework/op_registry.h"
#include "operators/common.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace framework {
namespace {

using testing::MakeTensor;
using testing::ToDoubles;

// test_double: Out = 2 X. Backward: X@GRAD = test_double(Out@GRAD).
// test_times: Out = X * Y (same shapes). Backward: dX = test_times(dOut, Y), dY = test_times(dOut, X).
// test_nograd: Out = X, without a grad maker.
class UnaryMaker : public OpProtoAndCheckerMaker {
  void Make() override {
    AddInput("X", "x");
    AddOutput("Out", "out");
    AddComment("$$Out = f(X)$$");
  }
};
class BinaryMaker : public OpProtoAndCheckerMaker {
  void Make() override {
    AddInput("X", "x");
    AddInput("Y", "y");
    AddOutput("Out", "out");
    AddComment("$$Out = X Y$$");
  }
};
class TestOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};
struct DoubleKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    double* o = ctx.Output("Out")->mutable_data<double>(ctx.GetPlace());
    for (int64_t i = 0; i < x->numel(); ++i) o[i] = 2 * x->data<double>()[i];
  }
};
struct TimesKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    double* o = ctx.Output("Out")->mutable_data<double>(ctx.GetPlace());
    for (int64_t i = 0; i < x->numel(); ++i) o[i] = x->data<double>()[i] * y->data<double>()[i];
  }
};

void RegisterBackwardTestOps() {
  static bool done = false;
  if (done) return;
  done = true;
  operators::RegisterAllOps();
  RegisterOp<TestOp, UnaryMaker>("test_double")
      .InferShape(operators::SameShapeInferShape)
      .GradOpMaker([](GradOpBuilder* g) {
        g->AddOp("test_double", {{"X", g->OutputGrad("Out")}}, {{"Out", g->InputGrad("X")}});
      });
  RegisterKernel("test_double", DeviceType::kCPU, DataType::FLOAT64, LibraryType::kPlain,
                 &DoubleKernel::Compute);
  RegisterOp<TestOp, BinaryMaker>("test_times")
      .InferShape(operators::SameShapeInferShape)
      .GradOpMaker([](GradOpBuilder* g) {
        g->AddOp("test_times", {{"X", g->OutputGrad("Out")}, {"Y", g->Input("Y")}},
                 {{"Out", g->InputGrad("X")}});
        g->AddOp("test_times", {{"X", g->OutputGrad("Out")}, {"Y", g->Input("X")}},
                 {{"Out", g->InputGrad("Y")}});
      });
  RegisterKernel("test_times", DeviceType::kCPU, DataType::FLOAT64, LibraryType::kPlain,
                 &TimesKernel::Compute);
  RegisterOp<TestOp, UnaryMaker>("test_nograd").InferShape(operators::SameShapeInferShape);
  RegisterKernel("test_nograd", DeviceType::kCPU, DataType::FLOAT64, LibraryType::kPlain,
                 &DoubleKernel::Compute);
}

class BackwardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterBackwardTestOps();
    BlockDesc& b = program_.Block(0);
    for (const char* name : {"x", "y"}) {
      b.Var(name)->SetDataType(DataType::FLOAT64);
      b.Var(name)->SetShape({2});
    }
  }
  void Add(const std::string& type, const VariableNameMap& in, const std::string& out) {
    OpDesc* op = program_.Block(0).AppendOp();
    op->SetType(type);
    for (const auto& kv : in) op->SetInput(kv.first, kv.second);
    op->SetOutput("Out", {out});
    InferVarTypeAndShape(op, &program_.Block(0));
  }
  std::vector<double> Run(const std::string& fetch) {
    Scope scope;
    return ToDoubles(Executor(platform::CPUPlace())
                         .Run(program_, &scope,
                              {{"x", MakeTensor<double>({2}, {1.5, -2})},
                               {"y", MakeTensor<double>({2}, {3, 0.5})}},
                              {fetch})[0]);
  }
  std::vector<std::string> OpTypes() const {
    std::vector<std::string> t;
    for (const OpDesc* op : program_.Block(0).AllOps()) t.push_back(op->Type());
    return t;
  }
  ProgramDesc program_;
};

TEST_F(BackwardTest, VariableUsedTwiceGetsSummedGradient) {
  // loss = x * (2x) -> dloss/dx = 4x, through two paths.
  Add("test_double", {{"X", {"x"}}}, "d");
  Add("test_times", {{"X", {"x"}}, {"Y", {"d"}}}, "loss");
  const auto result = AppendBackward(&program_, "loss");
  EXPECT_EQ(result.grad_of.at("x"), "x@GRAD");
  EXPECT_EQ(Run("x@GRAD"), (std::vector<double>{6, -8}));
  const auto types = OpTypes();
  EXPECT_EQ(std::count(types.begin(), types.end(), "sum"), 1);
  bool renamed = false;
  for (const OpDesc* op : program_.Block(0).AllOps()) {
    for (const auto& n : op->OutputArgumentNames()) renamed |= n.find("x@GRAD@RENAME@block0@") == 0;
  }
  EXPECT_TRUE(renamed);
  // Roles: loss op Forward|Loss, the seed Backward|Loss, the rest Backward.
  const BlockDesc& b = program_.Block(0);
  EXPECT_EQ(b.Op(1)->Attr<int>("op_role"), 0x100);
  EXPECT_EQ(b.Op(2)->Type(), "fill_any_like");
  EXPECT_EQ(b.Op(2)->Attr<int>("op_role"), 0x101);
  for (size_t i = 3; i < b.OpSize(); ++i) EXPECT_EQ(b.Op(i)->Attr<int>("op_role"), 1) << b.Op(i)->Type();
  // Shapes and dtypes of new variables are inferred.
  EXPECT_EQ(b.FindVar("x@GRAD")->GetShape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(b.FindVar("x@GRAD")->GetDataType(), DataType::FLOAT64);
}

TEST_F(BackwardTest, StopGradientAndNoGradSet) {
  Add("test_times", {{"X", {"x"}}, {"Y", {"y"}}}, "loss");
  {
    ProgramDesc p = program_;
    p.Block(0).FindVar("y")->SetStopGradient(true);
    const auto result = AppendBackward(&p, "loss");
    EXPECT_EQ(result.grad_of.count("y"), 0u);
    EXPECT_EQ(result.grad_of.count("x"), 1u);
  }
  const auto result = AppendBackward(&program_, "loss", {"x"});
  EXPECT_EQ(result.grad_of.count("x"), 0u);
  EXPECT_EQ(Run("y@GRAD"), (std::vector<double>{1.5, -2}));
}

TEST_F(BackwardTest, BranchesThatDoNotReachTheLossArePruned) {
  Add("test_double", {{"X", {"x"}}}, "unused");
  Add("test_nograd", {{"X", {"y"}}}, "also_unused");  // No grad maker: fine off the path.
  Add("test_double", {{"X", {"x"}}}, "loss");
  const auto result = AppendBackward(&program_, "loss");
  EXPECT_EQ(result.grad_of.count("unused"), 0u);
  EXPECT_EQ(result.grad_of.count("y"), 0u);
  // fill_any_like seed + one grad op.
  EXPECT_EQ(program_.Block(0).OpSize(), 3u + 2u);
  EXPECT_EQ(Run("x@GRAD"), (std::vector<double>{2, 2}));
}

TEST_F(BackwardTest, SecondPassGivesSecondDerivativeUnderANewName) {
  // loss = x * x * y -> d/dx = 2xy; second pass on sum(x@GRAD): d/dx sum(2xy) = 2y.
  Add("test_times", {{"X", {"x"}}, {"Y", {"x"}}}, "xx");
  Add("test_times", {{"X", {"xx"}}, {"Y", {"y"}}}, "loss");
  AppendBackward(&program_, "loss");
  EXPECT_EQ(Run("x@GRAD"), (std::vector<double>{9, -2}));
  const auto second = AppendBackward(&program_, "x@GRAD");
  EXPECT_EQ(second.grad_of.at("x"), "x@GRAD@1");
  EXPECT_EQ(second.grad_of.at("x@GRAD"), "x@GRAD@GRAD");
  EXPECT_EQ(Run("x@GRAD@1"), (std::vector<double>{6, 1}));
}

// The grad ops read only what their formulas need: in loss = mean(x + y) the backward reads
// the forward sum `s` only for its dims (reduce_as / fill_any_like / mean's gradient), so the
// executor frees s right after the forward mean, before any backward op runs.
TEST_F(BackwardTest, ForwardValuesReadOnlyForTheirDimsAreFreedEarly) {
  Add("elementwise_add", {{"X", {"x"}}, {"Y", {"y"}}}, "s");
  Add("mean", {{"X", {"s"}}}, "loss");
  const size_t forward_ops = program_.Block(0).OpSize();
  AppendBackward(&program_, "loss");
  ASSERT_GT(program_.Block(0).OpSize(), forward_ops);
  bool s_read_by_backward = false;
  for (size_t i = forward_ops; i < program_.Block(0).OpSize(); ++i) {
    for (const auto& n : program_.Block(0).Op(i)->InputArgumentNames()) s_read_by_backward |= n == "s";
  }
  EXPECT_TRUE(s_read_by_backward) << "the backward should name s for its dims";
  Scope scope;
  Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(program_, 0, &scope, {"x@GRAD", "y@GRAD"});
  const std::vector<std::string> freed = prepared->FreedAfter(forward_ops - 1);
  EXPECT_NE(std::find(freed.begin(), freed.end(), "s"), freed.end())
      << "s should be freed after the forward mean";
  *prepared->local_scope()->FindVar("x")->GetMutable<DenseTensor>() =
      MakeTensor<double>({2}, {1.5, -2});
  *prepared->local_scope()->FindVar("y")->GetMutable<DenseTensor>() =
      MakeTensor<double>({2}, {3, 0.5});
  exec.Run(prepared.get());
  for (const char* g : {"x@GRAD", "y@GRAD"}) {
    EXPECT_EQ(ToDoubles(prepared->local_scope()->FindVar(g)->Get<DenseTensor>()),
              (std::vector<double>{0.5, 0.5}))
        << g;
  }
}

// loss = test_times(fill_any_like(test_double(x)), y): fill_any_like reads only the dims of
// its input, so no gradient flows back through it. x gets an exact zero gradient (one fill
// op), y its usual one, and no grad op of test_double or fill_any_like is emitted.
TEST_F(BackwardTest, MetadataOnlyInputsPassNoGradient) {
  Add("test_double", {{"X", {"x"}}}, "t");
  OpDesc* fill = program_.Block(0).AppendOp();
  fill->SetType("fill_any_like");
  fill->SetInput("X", {"t"});
  fill->SetOutput("Out", {"u"});
  fill->SetAttr("value", 3.0f);
  InferVarTypeAndShape(fill, &program_.Block(0));
  Add("test_times", {{"X", {"u"}}, {"Y", {"y"}}}, "loss");
  const size_t forward_ops = program_.Block(0).OpSize();
  const auto result = AppendBackward(&program_, "loss");
  std::vector<std::string> backward;
  for (size_t i = forward_ops; i < program_.Block(0).OpSize(); ++i) {
    backward.push_back(program_.Block(0).Op(i)->Type());
  }
  EXPECT_EQ(backward, (std::vector<std::string>{"fill_any_like", "test_times", "fill_any_like"}));
  EXPECT_EQ(result.grad_of.count("t"), 0u);
  EXPECT_EQ(result.grad_of.count("u"), 0u);
  EXPECT_EQ(Run("x@GRAD"), (std::vector<double>{0, 0}));
  EXPECT_EQ(Run("y@GRAD"), (std::vector<double>{3, 3}));
}

// The second derivatives of a sum are 0: the first-order gradients read x and y only for
// their dims, so the second pass is one zero fill per input and nothing else.
TEST_F(BackwardTest, SecondDerivativeOfASumIsAZeroFill) {
  Add("elementwise_add", {{"X", {"x"}}, {"Y", {"y"}}}, "loss");
  AppendBackward(&program_, "loss");
  const size_t first_pass = program_.Block(0).OpSize();
  const auto second = AppendBackward(&program_, "x@GRAD");
  ASSERT_EQ(program_.Block(0).OpSize(), first_pass + 2);
  for (size_t i = first_pass; i < first_pass + 2; ++i) {
    EXPECT_EQ(program_.Block(0).Op(i)->Type(), "fill_any_like");
  }
  for (const char* v : {"x", "y"}) {
    ASSERT_EQ(second.grad_of.count(v), 1u) << v;
    EXPECT_EQ(Run(second.grad_of.at(v)), (std::vector<double>{0, 0})) << v;
  }
}

TEST_F(BackwardTest, ErrorsNameTheLossOrTheOp) {
  Add("test_nograd", {{"X", {"x"}}}, "loss");
  try {
    AppendBackward(&program_, "loss");
    FAIL();
  } catch (const platform::NotFoundError& e) {
    EXPECT_NE(std::string(e.what()).find("op `test_nograd`"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no grad maker"), std::string::npos) << e.what();
  }
  EXPECT_THROW(AppendBackward(&program_, "nothing"), platform::NotFoundError);
  ProgramDesc p = program_;
  p.Block(0).FindVar("x")->SetStopGradient(true);
  EXPECT_THROW(AppendBackward(&p, "loss"), platform::InvalidArgumentError);
}

}  // namespace
}  // namespace framework
}  // namespace paddle_like

// Fused grad ops declared from their forward op (framework/fused_grad_op.h): for every such
// op in the registry, its slots (those it reads, then the other forward slots, accepted but
// not read) and attributes follow from the forward op's; the grad maker
// carries every attribute of the forward op; declaration mistakes are typed errors.
#include "framework/fused_grad_op.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/op_proto_maker.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::OpInfoMap;

TEST(FusedGradOp, SlotsAndAttributesFollowTheForwardOp) {
  operators::RegisterAllOps();
  size_t checked = 0;
  for (const auto& [type, info] : OpInfoMap::Instance().map()) {
    if (info.fused_grad_of.empty()) continue;
    SCOPED_TRACE(type);
    ++checked;
    EXPECT_EQ(type, info.fused_grad_of + "_grad");
    const framework::OpSpec& fwd = OpInfoMap::Instance().Get(info.fused_grad_of).spec;
    const framework::FusedGradDecl& d = info.fused_grad;
    std::vector<std::string> inputs, outputs;
    for (const auto& s : info.spec.inputs) inputs.push_back(s.name);
    for (const auto& s : info.spec.outputs) outputs.push_back(s.name);
    std::vector<std::string> want_in = d.reads, want_out;
    // Then every other forward slot, accepted (as PaddlePaddle's grad op may pass it) and
    // never read.
    for (const auto* slots : {&fwd.inputs, &fwd.outputs}) {
      for (const auto& f : *slots) {
        if (std::find(want_in.begin(), want_in.end(), f.name) != want_in.end()) continue;
        want_in.push_back(f.name);
        const framework::OpSlotSpec* accepted = info.spec.FindInput(f.name);
        ASSERT_NE(accepted, nullptr) << f.name;
        EXPECT_TRUE(accepted->dispensable && accepted->no_need_buffer) << f.name;
      }
    }
    for (const auto& o : d.output_grads) want_in.push_back(o + "@GRAD");
    for (const auto& i : d.input_grads) want_out.push_back(i + "@GRAD");
    EXPECT_EQ(inputs, want_in);
    EXPECT_EQ(outputs, want_out);
    ASSERT_EQ(info.spec.attrs.size(), fwd.attrs.size());
    for (size_t i = 0; i < fwd.attrs.size(); ++i) {
      EXPECT_EQ(info.spec.attrs[i].name, fwd.attrs[i].name);
      EXPECT_EQ(info.spec.attrs[i].type, fwd.attrs[i].type);
      EXPECT_EQ(info.spec.attrs[i].has_default, fwd.attrs[i].has_default);
      EXPECT_TRUE(info.spec.attrs[i].default_value == fwd.attrs[i].default_value)
          << fwd.attrs[i].name;
    }
    EXPECT_EQ(info.spec.comment.rfind("Gradient of `" + info.fused_grad_of + "`", 0), 0u);
    EXPECT_FALSE(d.formula.empty());
  }
  EXPECT_GE(checked, 9u);  // relu_grad ... square_grad, gelu_grad, leaky_relu_grad, hard_*.
}

// The forward op's checks apply to the grad op too.
TEST(FusedGradOp, GradOpChecksAttributesAsItsForwardOpDoes) {
  operators::RegisterAllOps();
  const DenseTensor x = MakeTensor<double>({2}, {0.5, -1});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("gelu_grad", {{"X", {x}}, {"Out@GRAD", {x}}}, {{"X@GRAD", 1}},
              {{"approximate", std::string("yes")}});
      },
      {"gelu_grad", "approximate"});
}

TEST(FusedGradOp, MakerCarriesEveryForwardAttribute) {
  operators::RegisterAllOps();
  framework::ProgramDesc program;
  framework::BlockDesc& b = program.Block(0);
  framework::VarDesc* x = b.Var("x");
  x->SetShape({3});
  x->SetStopGradient(false);
  b.Var("y")->SetShape({3});
  b.Var("loss")->SetShape({});
  framework::OpDesc* op = b.AppendOp();
  op->SetType("hard_swish");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"y"});
  op->SetAttr("threshold", 5.0f);
  op->SetAttr("scale", 4.0f);
  op->SetAttr("offset", 2.0f);
  op->SetAttr("op_namescope", std::string("/block/"));
  framework::OpDesc* sum = b.AppendOp();
  sum->SetType("reduce_sum");
  sum->SetInput("X", {"y"});
  sum->SetOutput("Out", {"loss"});
  sum->SetAttr("reduce_all", true);
  framework::AppendBackward(&program, "loss");
  const framework::OpDesc* grad = nullptr;
  for (const framework::OpDesc* o : b.AllOps()) {
    if (o->Type() == "hard_swish_grad") grad = o;
  }
  ASSERT_NE(grad, nullptr);
  EXPECT_EQ(grad->Input("X"), std::vector<std::string>{"x"});
  EXPECT_EQ(grad->Attr<float>("threshold"), 5.0f);
  EXPECT_EQ(grad->Attr<float>("scale"), 4.0f);
  EXPECT_EQ(grad->Attr<float>("offset"), 2.0f);
  // The backward pass gives the grad op its own role and place in the program.
  EXPECT_EQ(grad->Attr<int>("op_role"), static_cast<int>(framework::OpRole::kBackward));
  EXPECT_FALSE(grad->HasAttr("op_namescope") &&
               grad->Attr<std::string>("op_namescope") == "/block/");

  // And the kernel computes with them: dX = dOut * (2x + offset) / scale inside the ramp.
  framework::Scope scope;
  const DenseTensor xv = MakeTensor<double>({3}, {-3, 0.5, 4});
  const auto dx = framework::Executor(platform::CPUPlace())
                      .Run(program, &scope, {{"x", xv}}, {grad->Output("X@GRAD")[0]});
  // x + offset: -1 (flat), 2.5 (ramp), 6 >= threshold (clipped: threshold / scale).
  ExpectNear(ToDoubles(dx[0]), {0, (2 * 0.5 + 2) / 4.0, 5 / 4.0}, 1e-12, 0, "hard_swish dX");
}

TEST(FusedGradOp, DeclarationMistakesAreTypedErrors) {
  operators::RegisterAllOps();
  ExpectError<platform::NotFoundError>(
      [] { framework::RegisterFusedGradOp("no_such_forward_op", {{"X"}, {"Out"}, {"X"}, "d"}); },
      {"fused grad op `no_such_forward_op_grad`", "forward op `no_such_forward_op`",
       "not registered"});
  ExpectError<platform::InvalidArgumentError>(
      [] { framework::RegisterFusedGradOp("relu", {{"Nope"}, {"Out"}, {"X"}, "d"}); },
      {"fused grad op `relu_grad`", "op `relu` has no input or output slot `Nope`"});
  ExpectError<platform::InvalidArgumentError>(
      [] { framework::RegisterFusedGradOp("relu", {{"Out"}, {"Out"}, {"Out"}, "d"}); },
      {"fused grad op `relu_grad`", "op `relu` has no input slot `Out`"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

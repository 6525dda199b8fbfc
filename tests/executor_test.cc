// framework/ at run time: op creation checks, kernel choice (priority, fallback, cache and
// guard, deterministic mode, miss messages), data transforms, the executor's frees, op
// versions, NaN/Inf checks, scopes and tensor records.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "framework/data_transform.h"
#include "framework/executor.h"
#include "framework/op_registry.h"
#include "framework/tensor_io.h"
#include "operators/common.h"
#include "operators/registry.h"
#include "platform/init.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace framework {
namespace {

using testing::MakeTensor;
using testing::ToDoubles;

// ---- test-only ops ----
// test_add2: Out = X + Y (same shape); plain kernels for float and double, and a kernel
// registered as the oneDNN library that adds 1000 so tests can see which one ran.
class Add2Maker : public OpProtoAndCheckerMaker {
  void Make() override {
    AddInput("X", "x");
    AddInput("Y", "y");
    AddOutput("Out", "x + y");
    AddAttr<int>("level", "a checked attribute").SetDefault(1).InRange(0, 3);
    AddAttr<bool>("flag", "a boolean").SetDefault(false);
    AddComment("Out = X + Y");
  }
};
class Add2Op : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};
template <typename T, int kOffset>
struct Add2Kernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    const DenseTensor* y = ctx.Input("Y");
    T* o = ctx.Output("Out")->mutable_data<T>(ctx.GetPlace());
    for (int64_t i = 0; i < x->numel(); ++i) o[i] = x->data<T>()[i] + y->data<T>()[i] + kOffset;
  }
};
struct CopyKernel {
  static void Compute(const ExecutionContext& ctx) {
    const DenseTensor* x = ctx.Input("X");
    float* o = ctx.Output("Out")->mutable_data<float>(ctx.GetPlace());
    for (int64_t i = 0; i < x->numel(); ++i) o[i] = x->data<float>()[i];
  }
};
void Add2InferShape(InferShapeContext* ctx) {
  PL_ENFORCE(ctx->GetInputDim("X") == ctx->GetInputDim("Y"),
             errors::InvalidArgument("op `%s` input `Y`: expected shape %s, received %s",
                                     ctx->OpType(), ctx->GetInputDim("X").ToString(),
                                     ctx->GetInputDim("Y").ToString()));
  ctx->SetOutputDim("Out", ctx->GetInputDim("X"));
}
// test_nondet: only a non-deterministic kernel.
class NondetOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};
class NondetMaker : public OpProtoAndCheckerMaker {
  void Make() override {
    AddInput("X", "x");
    AddOutput("Out", "copy of x");
    AddComment("Out = X");
  }
};

// test_counted_infer: Out = X with X's LoD; counts its shape inferences.
int g_shape_inferences = 0;
class CountedInferOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};
class CountedInferMaker : public OpProtoAndCheckerMaker {
  void Make() override {
    AddInput("X", "x");
    AddOutput("Out", "copy of x");
    AddComment("Out = X");
  }
};
void CountedInferShape(InferShapeContext* ctx) {
  ++g_shape_inferences;
  operators::SameShapeInferShape(ctx);
}

void RegisterTestOps() {
  static bool done = false;
  if (done) return;
  done = true;
  operators::RegisterAllOps();
  RegisterOp<Add2Op, Add2Maker>("test_add2").InferShape(Add2InferShape).Checkpoint("v1");
  RegisterKernel("test_add2", DeviceType::kCPU, DataType::FLOAT32, LibraryType::kPlain,
                 &Add2Kernel<float, 0>::Compute);
  RegisterKernel("test_add2", DeviceType::kCPU, DataType::FLOAT64, LibraryType::kPlain,
                 &Add2Kernel<double, 0>::Compute);
  RegisterKernel("test_add2", DeviceType::kCPU, DataType::FLOAT32, LibraryType::kOneDNN,
                 &Add2Kernel<float, 1000>::Compute);
  RegisterOp<CountedInferOp, CountedInferMaker>("test_counted_infer").InferShape(CountedInferShape);
  RegisterKernel("test_counted_infer", DeviceType::kCPU, DataType::FLOAT32, LibraryType::kPlain,
                 &CopyKernel::Compute);
  RegisterOp<NondetOp, NondetMaker>("test_nondet").InferShape(operators::SameShapeInferShape);
  RegisterKernel("test_nondet", DeviceType::kCPU, DataType::FLOAT32, LibraryType::kPlain,
                 &CopyKernel::Compute, /*deterministic=*/false);
}

class ExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override { RegisterTestOps(); }
};

std::unique_ptr<OperatorBase> MakeAdd2(AttributeMap attrs = {}) {
  return OpRegistry::CreateOp("test_add2", {{"X", {"x"}}, {"Y", {"y"}}}, {{"Out", {"out"}}},
                              std::move(attrs));
}

TEST_F(ExecutorTest, CreateOpFillsDefaultsAndCoerces) {
  auto op = MakeAdd2({{"flag", 1}});  // INT stored for a BOOLEAN, as old programs do.
  EXPECT_EQ(op->Attr<int>("level"), 1);
  EXPECT_EQ(op->Attr<bool>("flag"), true);
  EXPECT_EQ(op->Attr<int>("op_role"), static_cast<int>(OpRole::kNotSpecified));
  auto kept = MakeAdd2({{"unknown_extra", std::string("kept")}});
  EXPECT_EQ(kept->Attr<std::string>("unknown_extra"), "kept");
}

TEST_F(ExecutorTest, CreateOpErrorsNameOpAndSlotOrAttribute) {
  auto expect_error = [](auto fn, const std::string& needle, platform::ErrorCode code) {
    try {
      fn();
      FAIL() << "no error, expected one mentioning " << needle;
    } catch (const platform::Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error([] { MakeAdd2({{"level", 9}}); }, "op `test_add2` attribute `level`: expected a value in [0, 3], received 9",
               platform::ErrorCode::kInvalidArgument);
  expect_error([] { MakeAdd2({{"level", std::string("x")}}); }, "attribute `level`: expected type INT",
               platform::ErrorCode::kInvalidArgument);
  expect_error([] { OpRegistry::CreateOp("test_add2", {{"X", {"x"}}}, {{"Out", {"o"}}}, {}); },
               "op `test_add2` input `Y`: required but not given", platform::ErrorCode::kNotFound);
  expect_error([] { OpRegistry::CreateOp("test_add2", {{"X", {"x"}}, {"Y", {"y"}}, {"Z", {"z"}}}, {{"Out", {"o"}}}, {}); },
               "op `test_add2` input `Z`: not a slot", platform::ErrorCode::kInvalidArgument);
  expect_error([] { OpRegistry::CreateOp("test_add3", {}, {}, {}); }, "op `test_add3` is not registered",
               platform::ErrorCode::kNotFound);
  expect_error([] { OpRegistry::CreateOp("test_add3", {}, {}, {}); }, "did you mean `test_add2`",
               platform::ErrorCode::kNotFound);
}

struct OneOpRun {
  Scope scope;
  std::unique_ptr<OperatorBase> op;
  std::unique_ptr<PreparedOp> prepared;
  OneOpRun(std::unique_ptr<OperatorBase> o, const DenseTensor& x, const DenseTensor& y) : op(std::move(o)) {
    *scope.Var("x")->GetMutable<DenseTensor>() = x;
    *scope.Var("y")->GetMutable<DenseTensor>() = y;
    prepared = std::make_unique<PreparedOp>(*op, &scope, platform::CPUPlace());
  }
  std::vector<double> Out() { return ToDoubles(scope.FindVar("out")->Get<DenseTensor>()); }
};

TEST_F(ExecutorTest, PriorityFollowsUseOneDNNFlag) {
  const auto x = MakeTensor<float>({2}, {1, 2});
  const auto y = MakeTensor<float>({2}, {10, 20});
  {
    testing::ScopedFlag on(&FLAGS_use_onednn, true);
    OneOpRun run(MakeAdd2(), x, y);
    run.prepared->Run();
    EXPECT_EQ(run.prepared->kernel()->key.backend, LibraryType::kOneDNN);
    EXPECT_EQ(run.Out(), (std::vector<double>{1011, 1022}));
  }
  {
    testing::ScopedFlag off(&FLAGS_use_onednn, false);
    OneOpRun run(MakeAdd2(), x, y);
    run.prepared->Run();
    EXPECT_EQ(run.prepared->kernel()->key.backend, LibraryType::kPlain);
    EXPECT_EQ(run.Out(), (std::vector<double>{11, 22}));
  }
  {
    // float64 has no oneDNN kernel: falls back to the plain one.
    testing::ScopedFlag on(&FLAGS_use_onednn, true);
    OneOpRun run(MakeAdd2(), MakeTensor<double>({1}, {1}), MakeTensor<double>({1}, {2}));
    run.prepared->Run();
    EXPECT_EQ(run.prepared->kernel()->key, (KernelKey{DeviceType::kCPU, DataType::FLOAT64, LibraryType::kPlain, DataLayout::kAny}));
  }
}

TEST_F(ExecutorTest, KernelChosenOnceAndGuardedAgainstDtypeChange) {
  testing::ScopedFlag off(&FLAGS_use_onednn, false);
  OneOpRun run(MakeAdd2(), MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({2}, {3, 4}));
  for (int i = 0; i < 3; ++i) run.prepared->Run();
  EXPECT_EQ(run.prepared->kernel_choices(), 1);
  // New inputs of another dtype: the guard re-chooses.
  *run.scope.FindVar("x")->GetMutable<DenseTensor>() = MakeTensor<double>({2}, {1, 2});
  *run.scope.FindVar("y")->GetMutable<DenseTensor>() = MakeTensor<double>({2}, {3, 4});
  run.prepared->Run();
  EXPECT_EQ(run.prepared->kernel_choices(), 2);
  EXPECT_EQ(run.prepared->kernel()->key.dtype, DataType::FLOAT64);
  EXPECT_EQ(run.Out(), (std::vector<double>{4, 6}));
}

TEST_F(ExecutorTest, MixedDtypeInputIsTransformedAndCounted) {
  testing::ScopedFlag off(&FLAGS_use_onednn, false);
  const auto x = MakeTensor<float>({2}, {1.5, 2});
  const auto y = MakeTensor<double>({2}, {0.25, 4});
  OneOpRun run(MakeAdd2(), x, y);
  const int64_t before = DataTransformCount();
  run.prepared->Run();
  run.prepared->Run();
  EXPECT_EQ(DataTransformCount() - before, 2);  // One cast of Y per run.
  EXPECT_EQ(run.prepared->kernel()->key.dtype, DataType::FLOAT32);
  EXPECT_EQ(run.Out(), (std::vector<double>{1.75, 6}));
  // The input variable itself is untouched.
  EXPECT_EQ(run.scope.FindVar("y")->Get<DenseTensor>().dtype(), DataType::FLOAT64);
  // A profile reports the cast: slot, variable, kind and the bytes it wrote.
  const auto records = run.prepared->TransformRecords();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].slot, "Y");
  EXPECT_EQ(records[0].variable, "y");
  EXPECT_EQ(records[0].kind, "cast float64->float32");
  EXPECT_EQ(records[0].bytes, 2 * sizeof(float));
}

TEST_F(ExecutorTest, KernelMissListsEveryRegisteredKey) {
  OneOpRun run(MakeAdd2(), MakeTensor<int32_t>({1}, {1}), MakeTensor<int32_t>({1}, {1}));
  try {
    run.prepared->Run();
    FAIL();
  } catch (const platform::NotFoundError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("op `test_add2`: no kernel for int32"), std::string::npos) << msg;
    EXPECT_NE(msg.find("{CPU, float32, PLAIN, ANY}: dtype float32 != int32"), std::string::npos) << msg;
    EXPECT_NE(msg.find("{CPU, float64, PLAIN, ANY}"), std::string::npos) << msg;
    EXPECT_NE(msg.find("{CPU, float32, ONEDNN, ANY}"), std::string::npos) << msg;
  }
}

TEST_F(ExecutorTest, DeterministicModeNeverPicksNondeterministicKernel) {
  auto op = OpRegistry::CreateOp("test_nondet", {{"X", {"x"}}}, {{"Out", {"out"}}}, {});
  Scope scope;
  *scope.Var("x")->GetMutable<DenseTensor>() = MakeTensor<float>({1}, {1});
  PreparedOp ok(*op, &scope, platform::CPUPlace());
  EXPECT_NO_THROW(ok.Run());
  testing::ScopedFlag det(&FLAGS_cpu_deterministic, true);
  PreparedOp refused(*op, &scope, platform::CPUPlace());
  try {
    refused.Run();
    FAIL();
  } catch (const platform::NotFoundError& e) {
    EXPECT_NE(std::string(e.what()).find("not deterministic"), std::string::npos) << e.what();
  }
}

// The oneDNN kernels whose sums oneDNN splits across threads in its own order are marked
// not deterministic: deterministic mode runs the plain kernels for them, and keeps oneDNN for
// the others.
TEST_F(ExecutorTest, DeterministicModeRunsPlainKernelsWhereOneDNNSumsAreUnordered) {
  if (!platform::BuiltWithOneDNN()) GTEST_SKIP() << "built without oneDNN";
  testing::ScopedFlag onednn(&FLAGS_use_onednn, true);
  const KernelRegistry& registry = KernelRegistry::Instance();
  const auto choose = [&](const char* type, bool deterministic) {
    KernelChoiceOptions options;
    options.deterministic = deterministic;
    return registry
        .Choose(type, DataType::FLOAT32, DataLayout::kAny, platform::CPUPlace(), options)
        .key.backend;
  };
  for (const char* type : {"matmul_v2", "mul", "matmul_v2_grad", "mul_grad", "conv2d_grad",
                           "batch_norm", "batch_norm_grad", "layer_norm", "layer_norm_grad"}) {
    EXPECT_EQ(choose(type, false), LibraryType::kOneDNN) << type;
    EXPECT_EQ(choose(type, true), LibraryType::kPlain) << type;
  }
  for (const char* type : {"conv2d", "pool2d", "relu", "softmax", "reduce_sum", "sum"}) {
    EXPECT_EQ(choose(type, true), LibraryType::kOneDNN) << type;
  }
}

TEST_F(ExecutorTest, PlacementCanRequireADeterministicKernelForOneOpType) {
  // The flag is off; a placement rule asks for determinism for test_nondet alone.
  ProgramDesc program;
  program.Block(0).Var("x");
  OpDesc* op = program.Block(0).AppendOp();
  op->SetType("test_nondet");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"out"});
  Scope scope;
  Executor exec{platform::CPUPlace()};
  framework::PlacementRules rules;
  rules.deterministic = {"test_nondet"};
  auto prepared = exec.Prepare(program, 0, &scope, {"out"}, rules);
  EXPECT_TRUE(prepared->op(0).placement().deterministic);
  *prepared->local_scope()->Var("x")->GetMutable<DenseTensor>() = MakeTensor<float>({1}, {1});
  try {
    exec.Run(prepared.get());
    FAIL();
  } catch (const platform::NotFoundError& e) {
    EXPECT_NE(std::string(e.what()).find("not deterministic"), std::string::npos) << e.what();
  }
  auto free = exec.Prepare(program, 0, &scope, {"out"});
  *free->local_scope()->Var("x")->GetMutable<DenseTensor>() = MakeTensor<float>({1}, {1});
  EXPECT_NO_THROW(exec.Run(free.get()));
}

TEST_F(ExecutorTest, RunTimeShapeErrorNamesOpAndSlot) {
  OneOpRun run(MakeAdd2(), MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({3}, {1, 2, 3}));
  try {
    run.prepared->Run();
    FAIL();
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("op `test_add2` input `Y`: expected shape [2], received [3]"),
              std::string::npos) << e.what();
  }
}

// Run-time shape inference reads only the inputs' dims, dtypes and kinds: while they stay the
// same a prepared op replays what it did (the outputs' dims, the LoD shared from an input,
// taken from the input's current LoD) instead of inferring again.
TEST_F(ExecutorTest, ShapeInferenceRunsAgainOnlyWhenAnInputShapeChanges) {
  auto op = OpRegistry::CreateOp("test_counted_infer", {{"X", {"x"}}}, {{"Out", {"out"}}}, {});
  Scope scope;
  Variable* x = scope.Var("x");
  PreparedOp prepared(*op, &scope, platform::CPUPlace());
  const auto out = [&] { return scope.FindVar("out")->Get<DenseTensor>(); };
  const int before = g_shape_inferences;
  const auto feed = [&](const DDim& dims, const LoD& lod) {
    DenseTensor t = MakeTensor<float>(dims, std::vector<double>(dims.numel(), 1.5));
    t.set_lod(lod);
    *x->GetMutable<DenseTensor>() = t;
    prepared.Run();
  };
  feed({3, 2}, {{0, 1, 3}});
  EXPECT_EQ(g_shape_inferences - before, 1);
  EXPECT_EQ(out().dims(), DDim({3, 2}));
  EXPECT_EQ(out().lod(), (LoD{{0, 1, 3}}));
  // Same dims, another LoD: replayed, and the output gets the new LoD.
  feed({3, 2}, {{0, 2, 3}});
  feed({3, 2}, {});
  EXPECT_EQ(g_shape_inferences - before, 1);
  EXPECT_EQ(out().lod(), LoD());
  EXPECT_EQ(ToDoubles(out()), std::vector<double>(6, 1.5));
  // New dims: inferred again, once.
  feed({5, 2}, {{0, 5}});
  feed({5, 2}, {{0, 5}});
  EXPECT_EQ(g_shape_inferences - before, 2);
  EXPECT_EQ(out().dims(), DDim({5, 2}));
  EXPECT_EQ(out().lod(), (LoD{{0, 5}}));
  // An output resized by someone else between runs gets the inferred dims back.
  scope.FindVar("out")->GetMutable<DenseTensor>()->Resize(DDim({7}));
  feed({5, 2}, {});
  EXPECT_EQ(out().dims(), DDim({5, 2}));
  EXPECT_EQ(g_shape_inferences - before, 2);
}

// A shape error after runs that passed is still raised, and the op runs again once the shapes
// are right.
TEST_F(ExecutorTest, ShapeErrorAfterGoodRunsIsStillRaised) {
  OneOpRun run(MakeAdd2(), MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({2}, {3, 4}));
  run.prepared->Run();
  run.prepared->Run();
  *run.scope.FindVar("y")->GetMutable<DenseTensor>() = MakeTensor<float>({3}, {1, 2, 3});
  EXPECT_THROW(run.prepared->Run(), platform::InvalidArgumentError);
  EXPECT_THROW(run.prepared->Run(), platform::InvalidArgumentError);
  *run.scope.FindVar("y")->GetMutable<DenseTensor>() = MakeTensor<float>({2}, {10, 20});
  run.prepared->Run();
  EXPECT_EQ(ToDoubles(run.scope.FindVar("out")->Get<DenseTensor>())[1], 22.0 + (FLAGS_use_onednn ? 1000 : 0));
}

TEST_F(ExecutorTest, UnfedInputNamesVariable) {
  auto op = MakeAdd2();
  Scope scope;
  scope.Var("x");
  scope.Var("y");
  PreparedOp p(*op, &scope, platform::CPUPlace());
  try {
    p.Run();
    FAIL();
  } catch (const platform::PreconditionNotMetError& e) {
    EXPECT_NE(std::string(e.what()).find("input `X`: variable `x` holds no data"), std::string::npos) << e.what();
  }
  Scope empty;
  EXPECT_THROW(PreparedOp(*op, &empty, platform::CPUPlace()), platform::NotFoundError);
}

// x -> quadratic -> t -> quadratic -> y: t dies after the second op.
ProgramDesc TwoQuadratics() {
  ProgramDesc p;
  BlockDesc& b = p.Block(0);
  b.Var("x")->SetShape({2});
  for (auto io : {std::make_pair("x", "t"), std::make_pair("t", "y")}) {
    OpDesc* op = b.AppendOp();
    op->SetType("quadratic");
    op->SetInput("X", {io.first});
    op->SetOutput("Out", {io.second});
    op->SetAttr("a", 1.0f);
    op->SetAttr("c", 1.0f);
  }
  return p;
}

TEST_F(ExecutorTest, TemporariesFreedAfterLastUse) {
  const ProgramDesc p = TwoQuadratics();
  Scope scope;
  Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(p, 0, &scope, {"y"});
  EXPECT_EQ(prepared->FreedAfter(1), (std::vector<std::string>{"t"}));
  for (int run = 0; run < 2; ++run) {
    // Fed inputs are temporaries too: they are freed after their last reader, so each run feeds.
    *prepared->local_scope()->FindVar("x")->GetMutable<DenseTensor>() = MakeTensor<float>({2}, {1, 2});
    exec.Run(prepared.get());
    EXPECT_FALSE(prepared->local_scope()->FindVar("t")->Get<DenseTensor>().initialized());
    // y = (x^2 + 1)^2 + 1
    EXPECT_EQ(ToDoubles(prepared->local_scope()->FindVar("y")->Get<DenseTensor>()),
              (std::vector<double>{5, 26}));
  }
  EXPECT_EQ(prepared->op(0).kernel_choices(), 1);
}

// x -> quadratic -> t -> fill_any_like -> u -> quadratic -> y. fill_any_like reads only t's
// dims (a no-need-buffer input), so t's buffer is freed right after it is made, and the
// kernels after it still see t's dims.
TEST_F(ExecutorTest, NoNeedBufferInputsDoNotKeepBuffersAlive) {
  ProgramDesc p;
  BlockDesc& b = p.Block(0);
  b.Var("x")->SetShape({3});
  const auto add = [&b](const char* type, const char* in_slot, const char* in, const char* out) {
    OpDesc* op = b.AppendOp();
    op->SetType(type);
    op->SetInput(in_slot, {in});
    op->SetOutput("Out", {out});
    return op;
  };
  add("quadratic", "X", "x", "t")->SetAttr("a", 1.0f);
  add("fill_any_like", "X", "t", "u")->SetAttr("value", 2.0f);
  OpDesc* last = add("quadratic", "X", "u", "y");
  last->SetAttr("a", 1.0f);
  last->SetAttr("c", 1.0f);
  Scope scope;
  Executor exec{platform::CPUPlace()};
  auto prepared = exec.Prepare(p, 0, &scope, {"y"});
  std::vector<std::string> first = prepared->FreedAfter(0);
  std::sort(first.begin(), first.end());
  EXPECT_EQ(first, (std::vector<std::string>{"t", "x"}));
  EXPECT_EQ(prepared->FreedAfter(1), std::vector<std::string>{});
  EXPECT_EQ(prepared->FreedAfter(2), (std::vector<std::string>{"u"}));
  for (int run = 0; run < 2; ++run) {
    *prepared->local_scope()->FindVar("x")->GetMutable<DenseTensor>() =
        MakeTensor<float>({3}, {1, 2, 3});
    exec.Run(prepared.get());
    const DenseTensor& t = prepared->local_scope()->FindVar("t")->Get<DenseTensor>();
    EXPECT_FALSE(t.initialized());
    EXPECT_EQ(t.dims(), DDim({3}));  // The metadata stays.
    // y = u^2 + 1 with u = 2 everywhere.
    EXPECT_EQ(ToDoubles(prepared->local_scope()->FindVar("y")->Get<DenseTensor>()),
              (std::vector<double>{5, 5, 5}));
  }
}

// A kernel that does read a no-need-buffer input's values fails with a typed error, not a crash.
TEST_F(ExecutorTest, ReadingAFreedBufferIsATypedError) {
  const DenseTensor no_buffer({2}, DataType::FLOAT32);
  EXPECT_THROW(no_buffer.data<float>(), platform::PreconditionNotMetError);
}

TEST_F(ExecutorTest, ConvenienceRunFeedsAndFetches) {
  Scope scope;
  Executor exec{platform::CPUPlace()};
  auto out = exec.Run(TwoQuadratics(), &scope, {{"x", MakeTensor<double>({2}, {0, -1})}}, {"t", "y"});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(ToDoubles(out[0]), (std::vector<double>{1, 2}));
  EXPECT_EQ(ToDoubles(out[1]), (std::vector<double>{2, 5}));
  EXPECT_THROW(exec.Run(TwoQuadratics(), &scope, {{"nope", MakeTensor<double>({1}, {0})}}, {"y"}),
               platform::NotFoundError);
}

TEST_F(ExecutorTest, NewerOpVersionIsRejected) {
  ProgramDesc p = TwoQuadratics();
  (*p.MutableOpVersions())["quadratic"] = 3;
  (*p.MutableOpVersions())["some_unused_op"] = 99;  // Ops the program does not use are ignored.
  Scope scope;
  Executor exec{platform::CPUPlace()};
  try {
    exec.Prepare(p, 0, &scope);
    FAIL();
  } catch (const platform::UnimplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("op `quadratic`: the program needs op version 3, this runtime implements version 0"),
              std::string::npos) << e.what();
  }
  StampOpVersions(&p);
  EXPECT_EQ(p.OpVersions().at("quadratic"), 0);
  EXPECT_EQ(p.OpVersions().at("test_add2"), 1);
  EXPECT_NO_THROW(exec.Prepare(p, 0, &scope));
}

TEST_F(ExecutorTest, CheckNanInfNamesOpOutputAndVariable) {
  testing::ScopedFlag check(&FLAGS_check_nan_inf, true);
  Scope scope;
  Executor exec{platform::CPUPlace()};
  try {
    exec.Run(TwoQuadratics(), &scope, {{"x", MakeTensor<float>({2}, {1, NAN})}}, {"y"});
    FAIL();
  } catch (const platform::PreconditionNotMetError& e) {
    EXPECT_NE(std::string(e.what()).find("op `quadratic` output `Out`: variable `t` holds NaN at element 1"),
              std::string::npos) << e.what();
  }
}

TEST(ExecutionProfile, AverageKeepsTheMeanOfTheRunsOfOneProgram) {
  auto run = [](double first, double second) {
    ExecutionProfile p;
    p.ops.resize(2);
    p.ops[0].type = "mul";
    p.ops[0].seconds = first;
    p.ops[1].type = "relu";
    p.ops[1].seconds = second;
    p.seconds = first + second;
    return p;
  };
  ExecutionProfile mean;
  mean.Average(run(1.0, 4.0));
  EXPECT_EQ(mean.averaged_runs, 1);
  mean.Average(run(3.0, 2.0));
  mean.Average(run(5.0, 3.0));
  EXPECT_EQ(mean.averaged_runs, 3);
  EXPECT_DOUBLE_EQ(mean.ops[0].seconds, 3.0);
  EXPECT_DOUBLE_EQ(mean.ops[1].seconds, 3.0);
  EXPECT_DOUBLE_EQ(mean.seconds, 6.0);
  EXPECT_EQ(mean.ops[1].type, "relu");
  // A run of another program (another op count) starts the mean again.
  ExecutionProfile other;
  other.ops.resize(1);
  other.ops[0].seconds = 7.0;
  mean.Average(other);
  EXPECT_EQ(mean.averaged_runs, 1);
  ASSERT_EQ(mean.ops.size(), 1u);
  EXPECT_DOUBLE_EQ(mean.ops[0].seconds, 7.0);
}

TEST(Scope, HierarchyAndConcurrentCreation) {
  Scope root;
  root.Var("w");
  Scope& kid = root.NewScope();
  EXPECT_EQ(kid.FindVar("w"), root.FindVar("w"));
  EXPECT_EQ(kid.FindLocalVar("w"), nullptr);
  kid.Var("t");
  EXPECT_EQ(root.FindVar("t"), nullptr);
  std::vector<std::thread> threads;
  std::vector<Variable*> got(8);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] { got[static_cast<size_t>(i)] = root.Var("shared"); });
  }
  for (auto& t : threads) t.join();
  for (auto* v : got) EXPECT_EQ(v, got[0]);
  root.DeleteScope(&kid);
  EXPECT_EQ(root.LocalVarNames(), (std::vector<std::string>{"shared", "w"}));
}

TEST(Variable, TypeIsFixedOnFirstUse) {
  Variable v;
  v.GetMutable<DenseTensor>();
  EXPECT_THROW(v.GetMutable<SelectedRows>(), platform::InvalidArgumentError);
  EXPECT_THROW(v.Get<SelectedRows>(), platform::InvalidArgumentError);
}

TEST(DenseTensor, OutputsNeverWriteThroughSharedBuffers) {
  DenseTensor a = MakeTensor<float>({2}, {1, 2});
  DenseTensor b;
  b.ShareDataWith(a);
  b.mutable_data<float>(platform::CPUPlace())[0] = 9;  // Reallocates: a is untouched.
  EXPECT_EQ(a.data<float>()[0], 1);
  EXPECT_THROW(a.data<double>(), platform::PreconditionNotMetError);
}

TEST(TensorRecord, RoundTripAndTruncation) {
  DenseTensor t = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  t.set_lod({{0, 1, 2}});
  std::string bytes;
  AppendTensorRecord(t, &bytes);
  // Layout of FORMATS.md section 2: versions, LoD, desc, data.
  EXPECT_EQ(bytes.size(), 4u + 8 + 8 + 24 + 4 + 4 + 6 + 24);
  size_t offset = 0;
  DenseTensor back = ReadTensorRecord(bytes, &offset, "mem");
  EXPECT_EQ(offset, bytes.size());
  EXPECT_EQ(back.dims(), t.dims());
  EXPECT_EQ(back.lod(), t.lod());
  EXPECT_EQ(ToDoubles(back), ToDoubles(t));
  offset = 0;
  try {
    ReadTensorRecord(bytes.substr(0, bytes.size() - 1), &offset, "cut.pdiparams");
    FAIL();
  } catch (const platform::InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("cut.pdiparams"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos);
  }
}

}  // namespace
}  // namespace framework
}  // namespace paddle_like

// softmax: forward against a naive double reference over shapes x axes x dtypes, numerical
// stability, declarations and errors.
#include <cmath>
#include <functional>

#include "framework/op_info.h"
#include "framework/program_desc.h"
#include "framework/var_type_inference.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct SoftmaxCase {
  DDim x;
  int axis;
};

const SoftmaxCase kCases[] = {
    {{2, 5}, -1},     {{2, 5}, 0},        {{3, 4, 5}, 1},     {{3, 4, 5}, -2},
    {{3, 4, 5}, 0},   {{3, 4, 5}, 2},     {{1}, 0},           {{}, -1},
    {{}, 0},          {{4, 1}, 1},        {{4, 1}, 0},        {{0, 3}, -1},
    {{3, 0}, -1},     {{3, 0}, 0},        {{2, 300, 3}, 1},   {{2, 3, 600}, 1},
    {{500, 100}, -1}, {{1, 7, 1}, 1},     {{2, 3, 4, 5}, -3},
};

// Softmax straight from the definition: exp(x_i) / sum_j exp(x_j), in long double.
std::vector<double> Reference(const SoftmaxCase& c, const std::vector<double>& x) {
  const int rank = c.x.size();
  if (rank == 0) return {1.0};
  const int axis = c.axis < 0 ? c.axis + rank : c.axis;
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= c.x[i];
  for (int i = axis + 1; i < rank; ++i) inner *= c.x[i];
  const int64_t n = c.x[axis];
  std::vector<double> out(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < inner; ++k) {
      long double sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        sum += std::exp(static_cast<long double>(x[(o * n + j) * inner + k]));
      }
      for (int64_t j = 0; j < n; ++j) {
        const int64_t i = (o * n + j) * inner + k;
        out[i] = static_cast<double>(std::exp(static_cast<long double>(x[i])) / sum);
      }
    }
  }
  return out;
}

template <typename T>
void CheckCase(const SoftmaxCase& c) {
  const std::string what = "softmax " + c.x.ToString() + " axis=" + std::to_string(c.axis);
  std::vector<double> x;
  for (double v : RandomValues(c.x.numel(), -5, 5, 31)) x.push_back(static_cast<T>(v));
  auto r = RunOp("softmax", {{"X", {MakeTensor<T>(c.x, x)}}}, {{"Out", 1}}, {{"axis", c.axis}});
  const DenseTensor& out = r.outputs["Out"][0];
  EXPECT_EQ(out.dims(), c.x) << what;
  EXPECT_EQ(out.dtype(), platform::ToDataType<T>()) << what;
  const DataType t = platform::ToDataType<T>();
  ExpectNear(ToDoubles(out), Reference(c, x), RelTol(t), AbsTol(t), what);
}

TEST(SoftmaxOp, ForwardMatchesReference) {
  for (const auto& c : kCases) {
    CheckCase<float>(c);
    CheckCase<double>(c);
  }
}

TEST(SoftmaxOp, DefaultAxisIsLast) {
  auto r = RunOp("softmax", {{"X", {MakeTensor<double>({1, 3}, {1, 2, 3})}}}, {{"Out", 1}});
  ExpectNear(ToDoubles(r.outputs["Out"][0]), {0.09003057317038046, 0.24472847105479767,
                                              0.6652409557748219},
             1e-12, 1e-15, "softmax");
}

TEST(SoftmaxOp, LargeInputsStayFinite) {
  for (double shift : {1000.0, -1000.0, 100.0}) {
    auto r = RunOp("softmax",
                   {{"X", {MakeTensor<float>({2, 3}, {shift, shift + 1, shift + 2, shift, shift,
                                                      shift})}}},
                   {{"Out", 1}});
    ExpectNear(ToDoubles(r.outputs["Out"][0]),
               {0.09003057317038046, 0.24472847105479767, 0.6652409557748219, 1.0 / 3, 1.0 / 3,
                1.0 / 3},
               1e-5, 1e-6, "shift " + std::to_string(shift));
  }
}

TEST(SoftmaxOp, InputIsLeftUnchanged) {
  const std::vector<double> xv = {1, 2, 3, 4};
  DenseTensor x = MakeTensor<double>({2, 2}, xv);
  RunOp("softmax", {{"X", {x}}}, {{"Out", 1}}, {{"axis", 0}});
  ExpectNear(ToDoubles(x), xv, 0, 0, "X");
}

TEST(SoftmaxOp, Declarations) {
  operators::RegisterAllOps();
  const auto& spec = framework::OpInfoMap::Instance().Get("softmax").spec;
  EXPECT_EQ(std::get<int>(spec.FindAttr("axis")->default_value), -1);
  EXPECT_FALSE(spec.FindAttr("axis")->extra);
  EXPECT_EQ(std::get<std::string>(spec.FindAttr("data_format")->default_value), "AnyLayout");
  for (const char* name : {"data_format", "use_cudnn", "use_mkldnn"}) {
    ASSERT_NE(spec.FindAttr(name), nullptr) << name;
    EXPECT_TRUE(spec.FindAttr(name)->extra) << name;
  }
  EXPECT_EQ(std::get<bool>(spec.FindAttr("use_cudnn")->default_value), false);
  EXPECT_NE(spec.comment.find("$$Out_i"), std::string::npos);
}

TEST(SoftmaxOp, BuildTimeShape) {
  operators::RegisterAllOps();
  framework::ProgramDesc p;
  framework::BlockDesc& b = p.Block(0);
  b.Var("x")->SetShape({-1, 10});
  b.Var("x")->SetDataType(DataType::FLOAT64);
  framework::OpDesc* op = b.AppendOp();
  op->SetType("softmax");
  op->SetInput("X", {"x"});
  op->SetOutput("Out", {"out"});
  framework::InferVarTypeAndShape(op, &b);
  EXPECT_EQ(b.FindVar("out")->GetShape(), (std::vector<int64_t>{-1, 10}));
  EXPECT_EQ(b.FindVar("out")->GetDataType(), DataType::FLOAT64);
}

TEST(SoftmaxOp, AxisOutOfRangeNamesOpAndAttribute) {
  for (int axis : {2, -3}) {
    try {
      RunOp("softmax", {{"X", {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}}}, {{"Out", 1}},
            {{"axis", axis}});
      FAIL() << "expected InvalidArgumentError";
    } catch (const platform::InvalidArgumentError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("op `softmax` attribute `axis`"), std::string::npos) << msg;
      EXPECT_NE(msg.find("[-2, 2)"), std::string::npos) << msg;
      EXPECT_NE(msg.find("received " + std::to_string(axis)), std::string::npos) << msg;
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

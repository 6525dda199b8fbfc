// index_add, multiplex, fill_diagonal and fill_any against loops written here (repeated and
// negative indices, every axis; candidates chosen per row; every diagonal kind: offsets, wrap,
// rank 3), gradients by finite differences (second order for index_add, whose backward is
// ops), typed errors.
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class IndexAddMultiplexFill : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(IndexAddMultiplexFill, IndexAddAlongEveryAxis) {
  const auto doc = RunOp("index_add",
                         {{"X", {MakeTensor<float>({3}, {0, 0, 0})}},
                          {"Index", {MakeTensor<int64_t>({3}, {0, 2, 0})}},
                          {"AddValue", {MakeTensor<float>({3}, {1, 2, 3})}}},
                         {{"Out", 1}});
  EXPECT_EQ(ToDoubles(doc.outputs.at("Out")[0]), (std::vector<double>{4, 0, 2}));
  const std::vector<int64_t> dims = {2, 3, 4};
  const std::vector<double> x = RandomValues(24, -1, 1, 3);
  for (int axis : {0, 1, -1}) {
    const int a = axis < 0 ? axis + 3 : axis;
    const std::vector<double> idx =
        a == 0 ? std::vector<double>{1, -2, 1} : std::vector<double>{2, 0, -1, 2, 0};
    const int64_t k = static_cast<int64_t>(idx.size());
    std::vector<int64_t> add_dims = dims;
    add_dims[a] = k;
    int64_t add_n = 1;
    for (int64_t d : add_dims) add_n *= d;
    const std::vector<double> add = RandomValues(add_n, -1, 1, 4);
    std::vector<double> want = x;
    for (int64_t e = 0; e < add_n; ++e) {
      int64_t c[3] = {e / (add_dims[1] * add_dims[2]), (e / add_dims[2]) % add_dims[1],
                      e % add_dims[2]};
      int64_t at = static_cast<int64_t>(idx[c[a]]);
      c[a] = at < 0 ? at + dims[a] : at;
      want[(c[0] * 3 + c[1]) * 4 + c[2]] += add[e];
    }
    const SlotTensors in = {{"X", {MakeTensor<double>(DDim(dims), x)}},
                            {"Index", {MakeTensor<int32_t>({k}, idx)}},
                            {"AddValue", {MakeTensor<double>(DDim(add_dims), add)}}};
    const auto r = RunOp("index_add", in, {{"Out", 1}}, {{"axis", axis}});
    ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, 1e-15, 1e-15,
               "axis " + std::to_string(axis));
    GradCheck g;
    g.op_type = "index_add";
    g.inputs = in;
    g.outputs = {{"Out", 1}};
    g.attrs = {{"axis", axis}};
    g.wrt = {"X", "AddValue"};
    g.max_order = 2;
    CheckGradients(g);
  }
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("index_add",
              {{"X", {MakeTensor<double>({3}, {0, 0, 0})}},
               {"Index", {MakeTensor<int64_t>({1}, {3})}},
               {"AddValue", {MakeTensor<double>({1}, {1})}}},
              {{"Out", 1}});
      },
      {"op `index_add` input `Index`", "3"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("index_add",
              {{"X", {MakeTensor<double>({2, 3}, std::vector<double>(6))}},
               {"Index", {MakeTensor<int64_t>({2}, {0, 1})}},
               {"AddValue", {MakeTensor<double>({3, 3}, std::vector<double>(9))}}},
              {{"Out", 1}});
      },
      {"op `index_add` input `AddValue`", "[2, 3]", "[3, 3]"});
}

TEST_F(IndexAddMultiplexFill, MultiplexPicksRowsAndRoutesTheirGradients) {
  const std::vector<double> a = RandomValues(8, -1, 1, 5), b = RandomValues(8, -1, 1, 6),
                            c = RandomValues(8, -1, 1, 7);
  const std::vector<double> ids = {2, 0, 0, 1};
  std::vector<double> want;
  for (int i = 0; i < 4; ++i) {
    const std::vector<double>& src = ids[i] == 0 ? a : (ids[i] == 1 ? b : c);
    want.insert(want.end(), src.begin() + 2 * i, src.begin() + 2 * i + 2);
  }
  const SlotTensors in = {{"X",
                           {MakeTensor<double>({4, 2}, a), MakeTensor<double>({4, 2}, b),
                            MakeTensor<double>({4, 2}, c)}},
                          {"Ids", {MakeTensor<int32_t>({4, 1}, ids)}}};
  const auto r = RunOp("multiplex", in, {{"Out", 1}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want);
  GradCheck g;
  g.op_type = "multiplex";
  g.inputs = in;
  g.outputs = {{"Out", 1}};
  g.wrt = {"X"};
  CheckGradients(g);
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("multiplex",
              {{"X", in.at("X")}, {"Ids", {MakeTensor<int32_t>({4, 1}, {0, 3, 1, 1})}}},
              {{"Out", 1}});
      },
      {"op `multiplex` input `Ids`", "3"});
}

TEST_F(IndexAddMultiplexFill, FillDiagonalOfEveryKind) {
  // The positions written, found here by their coordinates.
  struct Case {
    std::vector<int64_t> dims;
    int offset;
    bool wrap;
    std::vector<int64_t> positions;
  };
  const std::vector<Case> cases = {
      {{3, 3}, 0, false, {0, 4, 8}},
      {{3, 3}, 1, false, {1, 5}},
      {{3, 3}, -1, false, {3, 7}},
      {{3, 4}, 0, false, {0, 5, 10}},
      // Tall: without wrap only the first 2 rows; with wrap the pattern starts again after a
      // gap row (step cols + 1 = 3 over flat positions 0, 3, 6, 9).
      {{5, 2}, 0, false, {0, 3}},
      {{5, 2}, 0, true, {0, 3, 6, 9}},
      // Rank 3: without wrap only the first d_1 * d_1 elements (paddle.Tensor.fill_diagonal_
      // passes wrap for these).
      {{2, 2, 2}, 0, false, {0}},
      {{2, 2, 2}, 0, true, {0, 7}},
      {{3, 3, 3}, 0, true, {0, 13, 26}},
  };
  for (const Case& c : cases) {
    int64_t n = 1;
    for (int64_t d : c.dims) n *= d;
    const std::vector<double> x = RandomValues(n, -1, 1, 8);
    std::vector<double> want = x, grad_want(n, 1.0);
    for (int64_t p : c.positions) {
      want[p] = 9;
      grad_want[p] = 0;
    }
    const AttributeMap attrs = {{"value", 9.0f}, {"offset", c.offset}, {"wrap", c.wrap}};
    const auto r =
        RunOp("fill_diagonal", {{"X", {MakeTensor<double>(DDim(c.dims), x)}}}, {{"Out", 1}}, attrs);
    EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), want)
        << DDim(c.dims).ToString() << " offset " << c.offset << " wrap " << c.wrap;
    const auto g = NthGradient("fill_diagonal", {{"X", {MakeTensor<double>(DDim(c.dims), x)}}},
                               {{"Out", 1}}, attrs, 1);
    EXPECT_EQ(ToDoubles(g.at("X_0")), grad_want);
  }
  const auto f = RunOp("fill_any", {{"X", {MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4})}}},
                       {{"Out", 1}}, {{"value", 7.9f}});
  EXPECT_EQ(ToDoubles(f.outputs.at("Out")[0]), (std::vector<double>{7, 7, 7, 7}));
  const auto fg = NthGradient("fill_any", {{"X", {MakeTensor<double>({3}, {1, 2, 3})}}},
                              {{"Out", 1}}, {{"value", 2.0f}}, 1);
  EXPECT_EQ(ToDoubles(fg.at("X_0")), (std::vector<double>{0, 0, 0}));
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("fill_diagonal", {{"X", {MakeTensor<float>({2, 3, 3}, std::vector<double>(18))}}},
              {{"Out", 1}});
      },
      {"op `fill_diagonal` input `X`", "equal dims", "[2, 3, 3]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// diagonal and trace against a scan of every element of Input (an element lies on the
// diagonal when its index along axis2 minus its index along axis1 is the offset), for every
// pair of dims, both orders and offsets beyond the slices; gradients by finite differences;
// typed errors.
#include <map>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

class DiagonalTrace : public ::testing::Test {
 protected:
  void SetUp() override { operators::RegisterAllOps(); }
};

TEST_F(DiagonalTrace, DocExamples) {
  const DenseTensor m = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  auto diag = [&](int offset) {
    return ToDoubles(RunOp("diagonal", {{"Input", {m}}}, {{"Out", 1}}, {{"offset", offset}})
                         .outputs.at("Out")[0]);
  };
  EXPECT_EQ(diag(0), (std::vector<double>{1, 4}));
  EXPECT_EQ(diag(1), (std::vector<double>{2}));
  EXPECT_EQ(diag(-1), (std::vector<double>{3}));
  const auto t = RunOp("trace", {{"Input", {m}}}, {{"Out", 1}});
  EXPECT_EQ(t.outputs.at("Out")[0].dims(), DDim());
  EXPECT_EQ(ToDoubles(t.outputs.at("Out")[0]), (std::vector<double>{5}));
}

TEST_F(DiagonalTrace, EveryDimPairAndOffsetMatchesTheScan) {
  const std::vector<int64_t> dims = {2, 3, 4};
  const std::vector<double> x = RandomValues(24, -1, 1, 3);
  for (int a1 = -3; a1 < 3; ++a1) {
    for (int a2 = 0; a2 < 3; ++a2) {
      const int n1 = a1 < 0 ? a1 + 3 : a1;
      if (n1 == a2) continue;
      const int rest = 3 - n1 - a2;
      for (int offset : {-4, -2, -1, 0, 1, 3, 5}) {
        const std::string what = "axes " + std::to_string(a1) + "," + std::to_string(a2) +
                                 " offset " + std::to_string(offset);
        // The diagonal of each slice r along `rest`, in order of the index along axis1.
        std::map<int64_t, std::vector<double>> diag;
        for (int64_t i = 0; i < 24; ++i) {
          const int64_t idx[3] = {i / 12, (i / 4) % 3, i % 4};
          if (idx[a2] - idx[n1] == offset) diag[idx[rest]].push_back(x[i]);
        }
        std::vector<double> want_diag, want_trace;
        int64_t length = 0;
        for (int64_t r = 0; r < dims[rest]; ++r) {
          const std::vector<double>& d = diag[r];
          length = static_cast<int64_t>(d.size());
          want_diag.insert(want_diag.end(), d.begin(), d.end());
          double s = 0;
          for (double v : d) s += v;
          want_trace.push_back(s);
        }
        const AttributeMap attrs = {{"offset", offset}, {"axis1", a1}, {"axis2", a2}};
        const DenseTensor in = MakeTensor<double>(DDim(dims), x);
        const auto d = RunOp("diagonal", {{"Input", {in}}}, {{"Out", 1}}, attrs);
        EXPECT_EQ(d.outputs.at("Out")[0].dims(), DDim({dims[rest], length})) << what;
        EXPECT_EQ(ToDoubles(d.outputs.at("Out")[0]), want_diag) << what;
        const auto t = RunOp("trace", {{"Input", {in}}}, {{"Out", 1}}, attrs);
        EXPECT_EQ(t.outputs.at("Out")[0].dims(), DDim({dims[rest]})) << what;
        ExpectNear(ToDoubles(t.outputs.at("Out")[0]), want_trace, 1e-15, 1e-15, what);
      }
    }
  }
  // Integers.
  const auto i =
      RunOp("trace", {{"Input", {MakeTensor<int64_t>({2, 2}, {7, 1, 1, -3})}}}, {{"Out", 1}});
  EXPECT_EQ(ToDoubles(i.outputs.at("Out")[0]), (std::vector<double>{4}));
}

TEST_F(DiagonalTrace, GradientsMatchFiniteDifferences) {
  for (const char* op : {"diagonal", "trace"}) {
    for (const AttributeMap& attrs :
         {AttributeMap{}, AttributeMap{{"offset", 1}, {"axis1", 2}, {"axis2", 0}},
          AttributeMap{{"offset", -1}, {"axis1", -1}, {"axis2", 1}}}) {
      SCOPED_TRACE(op);
      GradCheck c;
      c.op_type = op;
      c.inputs = {{"Input", {MakeTensor<double>({3, 2, 4}, RandomValues(24, -1, 1, 5))}}};
      c.outputs = {{"Out", 1}};
      c.attrs = attrs;
      CheckGradients(c);
    }
  }
}

TEST_F(DiagonalTrace, BadDimsAreRefused) {
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("diagonal", {{"Input", {MakeTensor<float>({3}, {1, 2, 3})}}}, {{"Out", 1}});
      },
      {"op `diagonal` input `Input`", "rank >= 2", "[3]"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("trace", {{"Input", {MakeTensor<float>({2, 2}, {1, 2, 3, 4})}}}, {{"Out", 1}},
              {{"axis1", 1}, {"axis2", -1}});
      },
      {"op `trace`", "axis1", "axis2", "dim 1"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp("diagonal", {{"Input", {MakeTensor<float>({2, 2}, {1, 2, 3, 4})}}}, {{"Out", 1}},
              {{"axis2", 2}});
      },
      {"op `diagonal`", "axis2"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

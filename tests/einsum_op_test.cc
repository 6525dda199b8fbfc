// einsum against a reference that loops over every combination of label values in double
// (explicit letters only: each ellipsis case names its reference equation with letters), the
// doc examples, gradients of every operand by finite differences, typed errors.
#include <map>
#include <string>
#include <vector>

#include "tests/grad_check_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

// Out[out] = sum over the other labels of the product of the operands; a dim of 1 broadcasts.
// `terms` and `out` hold letters only.
std::vector<double> ReferenceEinsum(const std::vector<std::string>& terms, const std::string& out,
                                    const std::vector<DDim>& dims,
                                    const std::vector<std::vector<double>>& values,
                                    std::vector<int64_t>* out_dims) {
  std::map<char, int64_t> size;
  for (size_t k = 0; k < terms.size(); ++k) {
    for (size_t p = 0; p < terms[k].size(); ++p) {
      int64_t& s = size[terms[k][p]];
      s = std::max(s, dims[k][static_cast<int>(p)]);
    }
  }
  std::vector<char> labels;
  for (const auto& kv : size) labels.push_back(kv.first);
  out_dims->clear();
  for (char c : out) out_dims->push_back(size[c]);
  int64_t out_n = 1;
  for (int64_t d : *out_dims) out_n *= d;
  std::vector<double> result(static_cast<size_t>(out_n), 0.0);
  std::map<char, int64_t> at;
  for (char c : labels) at[c] = 0;
  for (int64_t s : [&] {
         std::vector<int64_t> v;
         for (char c : labels) v.push_back(size[c]);
         return v;
       }()) {
    if (s == 0) return result;
  }
  while (true) {
    double prod = 1.0;
    for (size_t k = 0; k < terms.size(); ++k) {
      int64_t flat = 0;
      for (size_t p = 0; p < terms[k].size(); ++p) {
        const int64_t d = dims[k][static_cast<int>(p)];
        flat = flat * d + (d == 1 ? 0 : at[terms[k][p]]);
      }
      prod *= values[k][static_cast<size_t>(flat)];
    }
    int64_t o = 0;
    for (char c : out) o = o * size[c] + at[c];
    result[static_cast<size_t>(o)] += prod;
    int i = static_cast<int>(labels.size()) - 1;
    for (; i >= 0; --i) {
      if (++at[labels[i]] < size[labels[i]]) break;
      at[labels[i]] = 0;
    }
    if (i < 0) break;
  }
  return result;
}

struct Case {
  std::string equation;
  std::vector<DDim> dims;
  std::vector<std::string> ref_terms;  // The same contraction with letters only.
  std::string ref_out;
};

std::vector<Case> Cases() {
  return {
      {"ij,jk->ik", {{3, 4}, {4, 5}}, {"ij", "jk"}, "ik"},
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}, {"bij", "bjk"}, "bik"},
      {"bhqd,bhkd->bhqk", {{2, 2, 3, 4}, {2, 2, 5, 4}}, {"bhqd", "bhkd"}, "bhqk"},
      {"ii->i", {{4, 4}}, {"ii"}, "i"},
      {"ii", {{4, 4}}, {"ii"}, ""},
      {"ij->ji", {{3, 4}}, {"ij"}, "ji"},
      {"ba", {{3, 4}}, {"ba"}, "ab"},
      {"ij->", {{3, 4}}, {"ij"}, ""},
      {"i,j->ij", {{3}, {4}}, {"i", "j"}, "ij"},
      {"i,i", {{5}, {5}}, {"i", "i"}, ""},
      {"ijk,jil->kl", {{2, 3, 4}, {3, 2, 5}}, {"ijk", "jil"}, "kl"},
      {"ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 2}}, {"ij", "jk", "kl"}, "il"},
      {"ij,k->i", {{3, 4}, {5}}, {"ij", "k"}, "i"},
      {"iij,jk->ik", {{3, 3, 2}, {2, 4}}, {"iij", "jk"}, "ik"},
      {"ij,ij->ij", {{3, 1}, {3, 4}}, {"ij", "ij"}, "ij"},
      {"Ab,bC->AC", {{2, 3}, {3, 4}}, {"Ab", "bC"}, "AC"},
      // The ellipsis dims broadcast right-aligned: A's [2, 1] against B's [5].
      {"...ij,...jk->...ik", {{2, 1, 3, 4}, {5, 4, 2}}, {"xyij", "yjk"}, "xyik"},
      {"...ij,...jk", {{2, 3, 4}, {2, 4, 5}}, {"bij", "bjk"}, "bik"},
      {"i...->...", {{3, 2, 4}}, {"ixy"}, "xy"},
      {"...i->i", {{3, 2, 4}}, {"xyi"}, "i"},
      {" i j , j k -> i k ", {{3, 4}, {4, 5}}, {"ij", "jk"}, "ik"},
      // Empty dims: nothing to sum gives zeros; no rows gives no elements.
      {"ij,jk->ik", {{3, 0}, {0, 2}}, {"ij", "jk"}, "ik"},
      {"ij,jk->ik", {{0, 3}, {3, 2}}, {"ij", "jk"}, "ik"},
  };
}

SlotTensors OperandsOf(const Case& c, std::vector<std::vector<double>>* values, bool as_float) {
  SlotTensors inputs;
  for (size_t k = 0; k < c.dims.size(); ++k) {
    values->push_back(RandomValues(c.dims[k].numel(), -1, 1, static_cast<int>(11 + k)));
    if (as_float) {
      inputs["Operands"].push_back(MakeTensor<float>(c.dims[k], values->back()));
    } else {
      inputs["Operands"].push_back(MakeTensor<double>(c.dims[k], values->back()));
    }
  }
  return inputs;
}

TEST(EinsumOp, DocExamples) {
  operators::RegisterAllOps();
  auto r =
      RunOp("einsum",
            {{"Operands",
              {MakeTensor<float>({2, 2}, {1, 2, 3, 4}), MakeTensor<float>({2, 2}, {5, 6, 7, 8})}}},
            {{"Out", 1}}, {{"equation", std::string("ij,jk->ik")}});
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{19, 22, 43, 50}));
  r = RunOp("einsum", {{"Operands", {MakeTensor<float>({2, 2}, {1, 2, 3, 4})}}}, {{"Out", 1}},
            {{"equation", std::string("ii")}});
  EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim());
  EXPECT_EQ(ToDoubles(r.outputs.at("Out")[0]), (std::vector<double>{5}));
}

TEST(EinsumOp, MatchesTheLabelLoops) {
  operators::RegisterAllOps();
  for (bool as_float : {false, true}) {
    for (const Case& c : Cases()) {
      SCOPED_TRACE(c.equation + (as_float ? " float" : " double"));
      std::vector<std::vector<double>> values;
      const SlotTensors inputs = OperandsOf(c, &values, as_float);
      auto r = RunOp("einsum", inputs, {{"Out", 1}}, {{"equation", c.equation}});
      std::vector<int64_t> dims;
      const std::vector<double> want =
          ReferenceEinsum(c.ref_terms, c.ref_out, c.dims, values, &dims);
      EXPECT_EQ(r.outputs.at("Out")[0].dims(), DDim(dims));
      ExpectNear(ToDoubles(r.outputs.at("Out")[0]), want, as_float ? 1e-5 : 1e-13,
                 as_float ? 1e-5 : 1e-13, c.equation);
    }
  }
}

TEST(EinsumOp, GradientsMatchFiniteDifferences) {
  operators::RegisterAllOps();
  for (const Case& c : Cases()) {
    if (c.dims[0].numel() == 0 || c.dims.back().numel() == 0) continue;
    SCOPED_TRACE(c.equation);
    std::vector<std::vector<double>> values;
    GradCheck check;
    check.op_type = "einsum";
    check.inputs = OperandsOf(c, &values, false);
    check.outputs = {{"Out", 1}};
    check.attrs = {{"equation", c.equation}};
    CheckGradients(check);
  }
}

TEST(EinsumOp, BadEquationsAndShapesAreRefused) {
  operators::RegisterAllOps();
  auto run = [](const std::string& equation, const std::vector<DDim>& dims) {
    SlotTensors inputs;
    for (const DDim& d : dims)
      inputs["Operands"].push_back(MakeTensor<float>(d, RandomValues(d.numel(), 0, 1)));
    RunOp("einsum", inputs, {{"Out", 1}}, {{"equation", equation}});
  };
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run("ij,j1->i", {{2, 3}, {3, 2}});
      },
      {"op `einsum`", "found '1'"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run("ij,jk->ik", {{2, 3}});
      },
      {"input `Operands`", "2 input terms", "1 operands"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run("ij->i", {{2, 3, 4}});
      },
      {"`Operands`[0]", "2 dims", "rank 3"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run("ij,jk->ik", {{2, 3}, {4, 2}});
      },
      {"`Operands`[1]", "label 'j'", "3", "4"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run("ij->k", {{2, 3}});
      },
      {"output label 'k' is in no input"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run("ij->ii", {{2, 3}});
      },
      {"output label 'i' appears twice"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run("...i...->i", {{2, 3}});
      },
      {"more than one ellipsis"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        run("ii->i", {{2, 3}});
      },
      {"label 'i' repeats", "2", "3"});
  ExpectError<platform::InvalidArgumentError>([&] { run("i->i->i", {{2}}); },
                                              {"more than one \"->\""});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// graph_reindex (operators/reduce/graph_reindex_op.cc): the documented example, a center node
// listed twice, int32 ids, an empty neighbor list, and bad counts. PaddlePaddle's outputs:
// fixture graph_reindex_*.
#include <gtest/gtest.h>

#include <vector>

#include "operators/registry.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

struct Reindexed {
  std::vector<double> src, dst, nodes;
};

template <typename I>
Reindexed RunReindex(const std::vector<double>& x, const std::vector<double>& neighbors,
                     const std::vector<double>& count) {
  const OpRunResult r =
      RunOp("graph_reindex",
            {{"X", {MakeTensor<I>({static_cast<int64_t>(x.size())}, x)}},
             {"Neighbors", {MakeTensor<I>({static_cast<int64_t>(neighbors.size())}, neighbors)}},
             {"Count", {MakeTensor<int32_t>({static_cast<int64_t>(count.size())}, count)}}},
            {{"Reindex_Src", 1}, {"Reindex_Dst", 1}, {"Out_Nodes", 1}}, {});
  EXPECT_EQ(r.outputs.at("Out_Nodes")[0].dtype(), platform::ToDataType<I>());
  return {ToDoubles(r.outputs.at("Reindex_Src")[0]), ToDoubles(r.outputs.at("Reindex_Dst")[0]),
          ToDoubles(r.outputs.at("Out_Nodes")[0])};
}

TEST(GraphReindexOp, RenumbersCentersThenNewNeighbors) {
  operators::RegisterAllOps();
  // Centers 0, 1, 2 with 2, 4 and 2 neighbors; 0 and 2 reappear among the neighbors.
  const Reindexed r = RunReindex<int64_t>({0, 1, 2}, {8, 9, 0, 4, 7, 6, 7, 2}, {2, 4, 2});
  EXPECT_EQ(r.nodes, std::vector<double>({0, 1, 2, 8, 9, 4, 7, 6}));
  EXPECT_EQ(r.src, std::vector<double>({3, 4, 0, 5, 6, 7, 6, 2}));
  EXPECT_EQ(r.dst, std::vector<double>({0, 0, 1, 1, 1, 1, 2, 2}));
  // A center listed twice keeps both places; its edges use the later one.
  const Reindexed twice = RunReindex<int32_t>({5, 3, 5}, {3, 1, 5}, {1, 1, 1});
  EXPECT_EQ(twice.nodes, std::vector<double>({5, 3, 5, 1}));
  EXPECT_EQ(twice.src, std::vector<double>({1, 3, 2}));
  EXPECT_EQ(twice.dst, std::vector<double>({2, 1, 2}));
  const Reindexed none = RunReindex<int64_t>({4, 2}, {}, {0, 0});
  EXPECT_EQ(none.nodes, std::vector<double>({4, 2}));
  EXPECT_TRUE(none.src.empty());
}

TEST(GraphReindexOp, CountsMustCoverTheNeighbors) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunReindex<int64_t>({0, 1}, {3, 4, 5}, {1, 1});
      },
      {"op `graph_reindex` input `Neighbors`", "2", "3"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunReindex<int64_t>({0, 1}, {3}, {1});
      },
      {"op `graph_reindex` input `Count`", "2", "1"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

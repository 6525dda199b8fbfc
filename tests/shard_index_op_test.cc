// shard_index: every id of a table lands in exactly one shard, at the local id from which
// shard * size + local gives it back; ids outside the table and bad shards raise errors.
#include <vector>

#include "gtest/gtest.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

TEST(ShardIndexOp, EveryIdLandsInExactlyOneShard) {
  for (const auto& [index_num, nshards] :
       std::vector<std::pair<int, int>>{{20, 2}, {7, 3}, {5, 5}, {3, 4}}) {
    std::vector<double> ids(index_num);
    for (int i = 0; i < index_num; ++i) ids[i] = i;
    const int size = (index_num + nshards - 1) / nshards;
    std::vector<int> owners(index_num, 0);
    for (int shard = 0; shard < nshards; ++shard) {
      const auto r =
          RunOp("shard_index", {{"X", {MakeTensor<int64_t>({index_num, 1}, ids)}}}, {{"Out", 1}},
                {{"index_num", index_num},
                 {"nshards", nshards},
                 {"shard_id", shard},
                 {"ignore_value", -7}});
      const auto out = ToDoubles(r.outputs.at("Out").at(0));
      for (int i = 0; i < index_num; ++i) {
        if (out[i] == -7) continue;
        ++owners[i];
        EXPECT_GE(out[i], 0);
        EXPECT_LT(out[i], size);
        EXPECT_EQ(shard * size + out[i], i) << index_num << "/" << nshards;
      }
    }
    for (int i = 0; i < index_num; ++i) EXPECT_EQ(owners[i], 1) << "id " << i;
  }
}

TEST(ShardIndexOp, BadIdsAndShardsRaiseTypedErrors) {
  const auto x = MakeTensor<int32_t>({2, 1}, {3, 20});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("shard_index", {{"X", {x}}}, {{"Out", 1}},
              {{"index_num", 20}, {"nshards", 2}, {"shard_id", 0}});
      },
      {"op `shard_index`", "input `X`", "id 20", "[0, 20)"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("shard_index", {{"X", {x}}}, {{"Out", 1}},
              {{"index_num", 30}, {"nshards", 2}, {"shard_id", 2}});
      },
      {"op `shard_index`", "`shard_id`", "[0, 2)", "2"});
  ExpectError<platform::InvalidArgumentError>(
      [&] {
        RunOp("shard_index", {{"X", {MakeTensor<int32_t>({2}, {1, 2})}}}, {{"Out", 1}},
              {{"index_num", 30}, {"nshards", 2}, {"shard_id", 0}});
      },
      {"op `shard_index`", "input `X`", "last dim of 1", "[2]"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

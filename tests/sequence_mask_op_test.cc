// sequence_mask against masks written here: maxlen from the attribute, from MaxLenTensor and
// from the largest length; every output dtype; lengths of rank 0 to 2, zeros among them;
// typed errors.
#include <string>
#include <vector>

#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

constexpr char kOp[] = "sequence_mask";

std::vector<double> NaiveMask(const std::vector<double>& lengths, int64_t maxlen) {
  std::vector<double> out;
  for (double len : lengths) {
    for (int64_t j = 0; j < maxlen; ++j) out.push_back(static_cast<double>(j) < len ? 1 : 0);
  }
  return out;
}

TEST(SequenceMaskOp, MasksEveryLength) {
  operators::RegisterAllOps();
  const std::vector<double> lengths = {3, 0, 5, 1, 2, 4};
  for (const DataType out : {DataType::BOOL, DataType::INT32, DataType::INT64, DataType::FLOAT32,
                             DataType::FLOAT64, DataType::UINT8}) {
    SCOPED_TRACE(DataTypeName(out));
    // maxlen from the attribute, shorter than some lengths.
    auto r = RunOp(kOp, {{"X", {MakeTensor<int64_t>({2, 3}, lengths)}}}, {{"Y", 1}},
                   {{"maxlen", 4}, {"out_dtype", static_cast<int>(out)}});
    const DenseTensor& y = r.outputs.at("Y")[0];
    EXPECT_EQ(y.dtype(), out);
    EXPECT_EQ(y.dims(), DDim({2, 3, 4}));
    EXPECT_EQ(ToDoubles(y), NaiveMask(lengths, 4));
    // The largest length.
    r = RunOp(kOp, {{"X", {MakeTensor<int32_t>({6}, lengths)}}}, {{"Y", 1}},
              {{"out_dtype", static_cast<int>(out)}});
    EXPECT_EQ(r.outputs.at("Y")[0].dims(), DDim({6, 5}));
    EXPECT_EQ(ToDoubles(r.outputs.at("Y")[0]), NaiveMask(lengths, 5));
  }
  // MaxLenTensor wins over the attribute; float lengths; a 0-D length.
  auto r = RunOp(kOp,
                 {{"X", {MakeTensor<float>({3}, {2.5, 0, 7})}},
                  {"MaxLenTensor", {MakeTensor<int32_t>({1}, {6})}}},
                 {{"Y", 1}}, {{"maxlen", 2}, {"out_dtype", static_cast<int>(DataType::INT64)}});
  EXPECT_EQ(r.outputs.at("Y")[0].dims(), DDim({3, 6}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Y")[0]), NaiveMask({2.5, 0, 7}, 6));
  r = RunOp(kOp, {{"X", {MakeTensor<int64_t>(DDim(std::vector<int64_t>{}), {2})}}}, {{"Y", 1}},
            {{"maxlen", 3}, {"out_dtype", static_cast<int>(DataType::INT32)}});
  EXPECT_EQ(r.outputs.at("Y")[0].dims(), DDim({3}));
  EXPECT_EQ(ToDoubles(r.outputs.at("Y")[0]), (std::vector<double>{1, 1, 0}));
}

TEST(SequenceMaskOp, BadInputsAreRefused) {
  operators::RegisterAllOps();
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp(kOp,
              {{"X", {MakeTensor<int64_t>({2}, {1, 2})}},
               {"MaxLenTensor", {MakeTensor<int64_t>({1}, {0})}}},
              {{"Y", 1}}, {{"out_dtype", static_cast<int>(DataType::INT64)}});
      },
      {"op `sequence_mask` input `MaxLenTensor`", "> 0", "received 0"});
  ExpectError<platform::InvalidArgumentError>(
      [] {
        RunOp(kOp, {{"X", {MakeTensor<int64_t>({2}, {1, 2})}}}, {{"Y", 1}}, {{"out_dtype", 7}});
      },
      {"sequence_mask", "out_dtype"});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

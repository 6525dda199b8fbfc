// A squeeze-and-excitation block (PP-LCNet, MobileNetV3) on the oneDNN kernels:
//   c = conv(x); s = sigmoid(conv(adaptive_pool(c))); y = conv(c * s)
// The adaptive pool with uniform windows runs as a oneDNN pooling on c's blocked layout and
// the channel scaling c * s as a oneDNN binary on it, so nothing between the convolutions is
// reordered to row-major. Results match the plain kernels; adaptive pools with uneven windows
// still run (row-major) and match too. The channel scaling's loop over channel runs
// (operators/onednn/channel_runs.h) visits every run once however the threads split it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/var_type_inference.h"
#include "operators/onednn/channel_runs.h"
#include "operators/onednn/onednn_layout.h"
#include "platform/flags.h"
#include "platform/onednn/onednn_context.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::ExecutionProfile;
using framework::ProgramDesc;
using framework::Scope;

class SeBlock {
 public:
  // `pool_out`: the adaptive pool's output size; `pool_kind`: avg or max. With `scale_dims`,
  // c is combined by `scale_op` with a parameter of those dims (broadcast by `axis`) instead
  // of multiplied by s.
  // `channels` of `size` x `size` maps (x has 2 batches, the channels of c).
  // `scales_first` swaps the scaling op's operands: the scales (or parameter) are X and c is
  // Y, which X broadcasts over.
  SeBlock(std::vector<int> pool_out, const std::string& pool_kind,
          const std::vector<int64_t>& scale_dims = {}, int axis = -1, int64_t channels = 16,
          int64_t size = 12, const std::string& scale_op = "elementwise_mul",
          bool scales_first = false) {
    const auto operands = [&](const std::string& scales) -> framework::VariableNameMap {
      if (scales_first) return {{"X", {scales}}, {"Y", {"c"}}};
      return {{"X", {"c"}}, {"Y", {scales}}};
    };
    const int64_t c = channels;
    Var("x", {2, c, size, size}, false);
    x_ = MakeTensor<float>({2, c, size, size}, RandomValues(2 * c * size * size, -1, 1, 5));
    Var("w1", {c, c, 3, 3}, true);
    Var("w2", {c, c, 1, 1}, true);
    Var("w3", {8, c, 1, 1}, true);
    Op("conv2d", {{"Input", {"x"}}, {"Filter", {"w1"}}}, {{"Output", {"c"}}},
       {{"paddings", std::vector<int>{1, 1}}});
    Op("pool2d", {{"X", {"c"}}}, {{"Out", {"p"}}},
       {{"pooling_type", pool_kind}, {"ksize", pool_out}, {"adaptive", true}});
    Op("conv2d", {{"Input", {"p"}}, {"Filter", {"w2"}}}, {{"Output", {"q"}}}, {});
    Op("sigmoid", {{"X", {"q"}}}, {{"Out", {"s"}}}, {});
    if (!scale_dims.empty()) {
      Var("wy", scale_dims, true);
      Op(scale_op, operands("wy"), {{"Out", {"m"}}}, {{"axis", axis}});
    } else if (pool_out == std::vector<int>{1, 1}) {
      Op("elementwise_mul", operands("s"), {{"Out", {"m"}}}, {{"axis", -1}});
    } else {  // Pooled to more than one cell: scale by the pooled map's first cell instead.
      Op("elementwise_mul", {{"X", {"c"}}, {"Y", {"c"}}}, {{"Out", {"m"}}}, {{"axis", -1}});
    }
    Op("conv2d", {{"Input", {"m"}}, {"Filter", {"w3"}}}, {{"Output", {"y"}}}, {});
  }

  std::vector<double> Run(bool onednn, ExecutionProfile* profile,
                          const std::vector<std::string>& fetches = {"y"}) const {
    ScopedFlag flag(&FLAGS_use_onednn, onednn);
    Scope scope;
    for (const auto& kv : params_) *scope.Var(kv.first)->GetMutable<DenseTensor>() = kv.second;
    framework::Executor::RunOptions options;
    options.profile = profile;
    options.repeat = 2;
    const auto values = framework::Executor(platform::CPUPlace())
                            .Run(program_, &scope, {{"x", x_}}, fetches, options);
    return ToDoubles(values[0]);
  }

 private:
  void Var(const std::string& name, const std::vector<int64_t>& dims, bool param) {
    framework::VarDesc* v = program_.Block(0).Var(name);
    v->SetShape(dims);
    v->SetDataType(DataType::FLOAT32);
    v->SetPersistable(param);
    if (param) {
      const DDim d(dims);
      params_[name] = MakeTensor<float>(d, RandomValues(d.numel(), -0.3, 0.3, seed_++));
    }
  }
  void Op(const std::string& type, const framework::VariableNameMap& in,
          const framework::VariableNameMap& out, const AttributeMap& attrs) {
    framework::OpDesc* op = program_.Block(0).AppendOp();
    op->SetType(type);
    for (const auto& kv : in) op->SetInput(kv.first, kv.second);
    for (const auto& kv : out) op->SetOutput(kv.first, kv.second);
    for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
    framework::InferVarTypeAndShape(op, &program_.Block(0));
  }

  ProgramDesc program_;
  std::map<std::string, DenseTensor> params_;
  DenseTensor x_;
  unsigned seed_ = 11;
};

std::set<std::string> BlockedOutputs(const ExecutionProfile& profile) {
  std::set<std::string> names;
  for (const auto& op : profile.ops) {
    for (const auto& o : op.opaque_outputs) names.insert(o.substr(0, o.find(':')));
  }
  return names;
}

void ExpectClose(const std::vector<double>& actual, const std::vector<double>& expected,
                 const std::string& what) {
  double scale = 0;
  for (double v : expected) scale = std::max(scale, std::abs(v));
  ExpectNear(actual, expected, 1e-4, 1e-4 * scale, what);
}

class OneDNNSeBlockTest : public OneDNNKernelTestBase {};

TEST_F(OneDNNSeBlockTest, PoolAndChannelScaleStayInTheBlockedLayout) {
  const SeBlock se({1, 1}, "avg");
  ExecutionProfile profile;
  const auto blocked = se.Run(true, &profile);
  ExpectClose(blocked, se.Run(false, nullptr), "oneDNN vs plain kernels");
  const std::set<std::string> b = BlockedOutputs(profile);
  // The 12x12 maps stay in the convolution's format (nChw8c with AVX2, nhwc with AVX-512);
  // the pooled 1x1 maps may be row-major already (nhwc of a 1x1 map is nchw), but nothing
  // is reordered to row-major on the way.
  for (const char* name : {"c", "m"}) {
    EXPECT_EQ(b.count(name), 1u) << name << " should stay blocked";
  }
  for (const auto& op : profile.ops) {
    for (const auto& t : op.transforms) {
      EXPECT_NE(t.kind.rfind("reorder", 0), 0u) << op.type << ": " << t.kind;
    }
  }
  // Fetching the temporaries (row-major) gives the same values.
  const auto row_major = se.Run(true, nullptr, {"y", "c", "p", "m"});
  ExpectClose(blocked, row_major, "blocked vs row-major oneDNN");
}

TEST_F(OneDNNSeBlockTest, UniformAdaptiveMaxPoolRunsBlockedAndUnevenOneRunsRowMajor) {
  // 12x12 pooled to 3x4 has 4x3 windows (a fixed pooling); to 5x5 uneven ones (row-major).
  for (const auto& [out, uniform] :
       std::vector<std::pair<std::vector<int>, bool>>{{{3, 4}, true}, {{5, 5}, false}}) {
    const std::string what =
        "adaptive max pool to " + std::to_string(out[0]) + "x" + std::to_string(out[1]);
    const SeBlock se(out, "max");
    ExecutionProfile profile;
    ExpectClose(se.Run(true, &profile), se.Run(false, nullptr), what + ", y");
    EXPECT_EQ(BlockedOutputs(profile).count("p"), uniform ? 1u : 0u) << what;
    ExpectClose(se.Run(true, nullptr, {"p"}), se.Run(false, nullptr, {"p"}), what + ", p");
  }
}

// X blocked, Y broadcast along other dims than the channels: the primitive computes it on
// X's layout or, where it has no such broadcast, the plain kernel does; both match.
TEST_F(OneDNNSeBlockTest, BlockedXWithEveryBroadcastOfY) {
  const std::vector<std::pair<std::vector<int64_t>, int>> cases = {
      {{16}, 1}, {{1, 1, 12, 12}, -1}, {{12, 12}, 2}, {{2, 16, 12, 12}, -1}, {{2, 1, 1, 1}, -1}};
  for (const auto& [dims, axis] : cases) {
    const std::string what = "Y " + DDim(dims).ToString() + " axis " + std::to_string(axis);
    const SeBlock se({1, 1}, "avg", dims, axis);
    ExpectClose(se.Run(true, nullptr), se.Run(false, nullptr), what);
    ExpectClose(se.Run(true, nullptr, {"m"}), se.Run(false, nullptr, {"m"}), what + ", m");
  }
}

// Channel counts that are not a multiple of the machine's block (8 with AVX2, 16 with
// AVX-512): the convolutions may write c channel-last and s blocked with padding, a pair of
// formats for which oneDNN's binary has only its scalar reference code; the kernel then
// reads s in another format (or hands the op to the plain kernel). Values match either way.
TEST_F(OneDNNSeBlockTest, ChannelScaleOfMixedFormats) {
  for (const int64_t channels : {4, 8, 24, 40}) {
    const std::string what = std::to_string(channels) + " channels";
    const SeBlock se({1, 1}, "avg", {}, -1, channels, 20);
    ExpectClose(se.Run(true, nullptr), se.Run(false, nullptr), what);
    ExpectClose(se.Run(true, nullptr, {"m"}), se.Run(false, nullptr, {"m"}), what + ", m");
  }
}

// A per-channel Y (a bias) on X in 16-channel blocks that pad X's channels: oneDNN's binary
// has only its reference code for that, so the kernel computes it over X's channel runs, in
// X's layout (m stays blocked), for each of the four ops.
TEST_F(OneDNNSeBlockTest, PerChannelOperandOnPaddedBlocksStaysBlocked) {
  for (const char* op : {"elementwise_add", "elementwise_sub", "elementwise_mul",
                         "elementwise_div"}) {
    for (const int64_t channels : {20, 24, 40}) {
      const std::string what = std::string(op) + ", " + std::to_string(channels) + " channels";
      const SeBlock se({1, 1}, "avg", {channels}, 1, channels, 12, op);
      ExecutionProfile profile;
      ExpectClose(se.Run(true, &profile), se.Run(false, nullptr), what);
      EXPECT_TRUE(BlockedOutputs(profile).count("m")) << what;
      ExpectClose(se.Run(true, nullptr, {"m"}), se.Run(false, nullptr, {"m"}), what + ", m");
    }
  }
}

// Y with one value per image and channel ([2, C, 1, 1]: an SE block's scales over a batch)
// on X channel-last or in channel blocks, padded or not: computed over X's channel runs
// with each image's own values, for each of the four ops; m stays in X's layout (from 8
// channels on: the convolution writes 4 channels row-major).
// The scales as X, broadcast over blocked Y (paddle.vision's MobileNetV3 writes its SE block
// so): add and mul compute Y (op) X on Y's layout, which Out keeps; sub (and div, left out
// here: dividing by a convolution's output near 0 magnifies its rounding) runs the plain
// kernel. Values match the plain kernels either way.
TEST_F(OneDNNSeBlockTest, OperandThatBroadcastsAsX) {
  {
    const SeBlock se({1, 1}, "avg", {}, -1, 16, 12, "elementwise_mul", true);
    ExecutionProfile profile;
    ExpectClose(se.Run(true, &profile), se.Run(false, nullptr), "s * c");
    EXPECT_EQ(BlockedOutputs(profile).count("m"), 1u) << "s * c keeps c's layout";
    ExpectClose(se.Run(true, nullptr, {"m"}), se.Run(false, nullptr, {"m"}), "s * c, m");
  }
  for (const char* op : {"elementwise_add", "elementwise_sub", "elementwise_mul"}) {
    for (const auto& dims :
         std::vector<std::vector<int64_t>>{{1, 24, 1, 1}, {2, 24, 1, 1}, {1, 1, 12, 12}}) {
      const std::string what = std::string(op) + " X " + DDim(dims).ToString();
      const SeBlock se({1, 1}, "avg", dims, -1, 24, 12, op, true);
      ExecutionProfile profile;
      ExpectClose(se.Run(true, &profile), se.Run(false, nullptr), what);
      const bool commutative =
          std::string(op) == "elementwise_add" || std::string(op) == "elementwise_mul";
      if (commutative) EXPECT_EQ(BlockedOutputs(profile).count("m"), 1u) << what;
      ExpectClose(se.Run(true, nullptr, {"m"}), se.Run(false, nullptr, {"m"}), what + ", m");
    }
  }
}

TEST_F(OneDNNSeBlockTest, PerImageAndChannelOperandUsesEachImagesValues) {
  for (const char* op :
       {"elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div"}) {
    for (const int64_t channels : {4, 8, 16, 20, 40}) {
      const std::string what = std::string(op) + ", " + std::to_string(channels) + " channels";
      const SeBlock se({1, 1}, "avg", {2, channels, 1, 1}, -1, channels, 12, op);
      ExecutionProfile profile;
      ExpectClose(se.Run(true, &profile), se.Run(false, nullptr), what);
      if (channels >= 8) {
        EXPECT_TRUE(BlockedOutputs(profile).count("m")) << what;
      }
      ExpectClose(se.Run(true, nullptr, {"m"}), se.Run(false, nullptr, {"m"}), what + ", m");
    }
  }
}

// Every run of channels of [2, 20, 45, 35] in 16- and 8-channel blocks (padded to 32 and 24
// channels) and channel-last (one run of 20) is visited exactly once, with its run index, on
// 1 to 3 threads: with 3 the ranges start inside an image.
TEST(ChannelRunsTest, VisitsEveryRunOnceHoweverTheThreadsSplitThePositions) {
  using dnnl::memory;
  const int64_t N = 2, C = 20, H = 45, W = 35;
  struct Format {
    memory::format_tag tag;
    int64_t run, padded;  // Channels per run and padded channels.
  };
  for (const Format f :
       {Format{memory::format_tag::nChw16c, 16, 32}, Format{memory::format_tag::nChw8c, 8, 24},
        Format{memory::format_tag::nhwc, 20, 20}}) {
    const memory::desc md({N, C, H, W}, memory::data_type::f32, f.tag);
    ASSERT_TRUE(operators::ChannelRuns::Fits(md));
    const operators::ChannelRuns runs(md);
    EXPECT_EQ(runs.run(), f.run);
    for (int threads : {1, 2, 3}) {
      const std::string what =
          "run " + std::to_string(f.run) + ", " + std::to_string(threads) + " threads";
      const platform::CPUDeviceContext dev(threads);
      std::vector<int64_t> seen(static_cast<size_t>(N * f.padded * H * W), 0);
      runs.ForEach(dev, [&](int64_t offset, int64_t r) { seen[offset] += 1 + r; });
      // Run r of position (n, h, w) starts at channel r * run: in a blocked format block r,
      // channel-last the position's first channel.
      std::vector<int64_t> expected(seen.size(), 0);
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t h = 0; h < H; ++h) {
          for (int64_t w = 0; w < W; ++w) {
            for (int64_t r = 0; r < f.padded / f.run; ++r) {
              const int64_t offset =
                  n * f.padded * H * W + r * f.run * H * W + h * f.run * W + w * f.run;
              expected[offset] += 1 + r;
            }
          }
        }
      }
      EXPECT_EQ(seen, expected) << what;
    }
  }
}

// Packed channel-last data in spans of whole positions: every element is in exactly one
// span on 1 to 3 threads, and the span's table holds each element's channel value (20
// channels: spans of 260 elements, the last of the 63000 shorter). Blocked formats have none.
TEST(ChannelRunsTest, SpansOfChannelLastDataLineUpWithTheirTable) {
  using dnnl::memory;
  const int64_t N = 2, C = 20, H = 45, W = 35;
  const memory::desc md({N, C, H, W}, memory::data_type::f32, memory::format_tag::nhwc);
  const operators::ChannelRuns runs(md);
  ASSERT_TRUE(runs.spans());
  EXPECT_EQ(runs.span() % C, 0);
  EXPECT_NE(runs.elements() % runs.span(), 0);
  std::vector<float> values(C), table;
  for (int64_t c = 0; c < C; ++c) values[c] = static_cast<float>(c + 1);
  runs.SpanValues(values.data(), &table);
  ASSERT_EQ(static_cast<int64_t>(table.size()), runs.span());
  for (int threads : {1, 2, 3}) {
    const platform::CPUDeviceContext dev(threads);
    std::vector<int> seen(static_cast<size_t>(N * C * H * W), 0);
    std::vector<float> channel(seen.size(), 0.f);
    runs.ForEachSpan(dev, [&](int64_t begin, int64_t end) {
      for (int64_t j = begin; j < end; ++j) {
        seen[j] += 1;
        channel[j] = table[j - begin];
      }
    });
    for (size_t j = 0; j < seen.size(); ++j) {
      ASSERT_EQ(seen[j], 1) << j << ", " << threads << " threads";
      ASSERT_EQ(channel[j], values[j % C]) << j << ", " << threads << " threads";
    }
  }
  const memory::desc blocked({N, C, H, W}, memory::data_type::f32, memory::format_tag::nChw16c);
  EXPECT_FALSE(operators::ChannelRuns(blocked).spans());
}

// Spans that start again at each image: every element once, each image's span reading its
// own values from the table (one span per image), on 1 to 3 threads. 45 x 35 positions of
// 20 channels are not a whole number of spans, so each image ends with a shorter one.
TEST(ChannelRunsTest, SpansOfEachImageReadThatImagesValues) {
  using dnnl::memory;
  const int64_t N = 3, C = 20, H = 45, W = 35;
  const memory::desc md({N, C, H, W}, memory::data_type::f32, memory::format_tag::nhwc);
  const operators::ChannelRuns runs(md);
  ASSERT_TRUE(runs.spans());
  ASSERT_NE((H * W * C) % runs.span(), 0);
  std::vector<float> values(N * C), table;
  for (int64_t i = 0; i < N * C; ++i) values[i] = static_cast<float>(i + 1);
  runs.SpanValues(values.data(), &table, N);
  ASSERT_EQ(static_cast<int64_t>(table.size()), N * runs.span());
  for (int threads : {1, 2, 3}) {
    const platform::CPUDeviceContext dev(threads);
    std::vector<int> seen(static_cast<size_t>(N * C * H * W), 0);
    std::vector<float> value(seen.size(), 0.f);
    runs.ForEachSpanOfImages(dev, [&](int64_t begin, int64_t end, int64_t n) {
      ASSERT_EQ(begin / (H * W * C), n);
      ASSERT_EQ((end - 1) / (H * W * C), n);
      for (int64_t j = begin; j < end; ++j) {
        seen[j] += 1;
        value[j] = table[n * runs.span() + (j - begin)];
      }
    });
    for (size_t j = 0; j < seen.size(); ++j) {
      const size_t n = j / (H * W * C);
      ASSERT_EQ(seen[j], 1) << j << ", " << threads << " threads";
      ASSERT_EQ(value[j], values[n * C + j % C]) << j << ", " << threads << " threads";
    }
  }
}

// Per-image padded tables and the image index of ForEachWithImage on 20 channels in 16- and
// 8-channel blocks: each run reads its image's channels, padding lanes hold `pad`.
TEST(ChannelRunsTest, BlockedRunsOfEachImageReadThatImagesPaddedValues) {
  using dnnl::memory;
  const int64_t N = 3, C = 20, H = 9, W = 7;
  for (const auto tag : {memory::format_tag::nChw16c, memory::format_tag::nChw8c}) {
    const memory::desc md({N, C, H, W}, memory::data_type::f32, tag);
    const operators::ChannelRuns runs(md);
    const int64_t padded = runs.run() * runs.runs();
    std::vector<float> values(N * C), table;
    for (int64_t i = 0; i < N * C; ++i) values[i] = static_cast<float>(i + 1);
    runs.PaddedValues(values.data(), -1.f, &table, N);
    ASSERT_EQ(static_cast<int64_t>(table.size()), N * padded);
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t c = 0; c < padded; ++c) {
        EXPECT_EQ(table[n * padded + c], c < C ? values[n * C + c] : -1.f) << n << ", " << c;
      }
    }
    const int64_t image_elements = static_cast<int64_t>(md.get_size() / sizeof(float)) / N;
    for (int threads : {1, 2, 3}) {
      const platform::CPUDeviceContext dev(threads);
      std::vector<int> seen(static_cast<size_t>(N * H * W * runs.runs()), 0);
      runs.ForEachWithImage(dev, [&](int64_t offset, int64_t r, int64_t n) {
        ASSERT_EQ(offset / image_elements, n) << offset;
        seen[static_cast<size_t>(offset / runs.run())] += 1;
        (void)r;
      });
      for (size_t j = 0; j < seen.size(); ++j) ASSERT_EQ(seen[j], 1) << j;
    }
  }
}

// Reorder between channel blocks and channel-last goes through CopyBetweenChannelRuns for
// ranks 3 to 5, whole and partly padded blocks, one image or several: the values match what
// oneDNN's own reorder primitive makes of the same data, and blocked outputs have 0 in their
// padding lanes (the destination starts as NaN). Other pairs are left to the primitive.
TEST(ChannelRunsTest, CopiesBetweenBlocksAndChannelLastAsOneDNNsReorderDoes) {
  using dnnl::memory;
  using Tag = memory::format_tag;
  const platform::OneDNNContext dev(3);
  const auto f32 = memory::data_type::f32;
  struct Case {
    memory::dims dims;
    Tag last, by8, by16, plain;
  };
  const Case cases[] = {{{2, 20, 45, 35}, Tag::acdb, Tag::aBcd8b, Tag::aBcd16b, Tag::abcd},
                        {{1, 8, 112, 112}, Tag::acdb, Tag::aBcd8b, Tag::aBcd16b, Tag::abcd},
                        {{3, 32, 5, 7}, Tag::acdb, Tag::aBcd8b, Tag::aBcd16b, Tag::abcd},
                        {{3, 5, 9}, Tag::acb, Tag::aBc8b, Tag::aBc16b, Tag::abc},
                        {{2, 24, 3, 4, 5}, Tag::acdeb, Tag::aBcde8b, Tag::aBcde16b, Tag::abcde}};
  for (const Case& c : cases) {
    const memory::desc plain(c.dims, f32, c.plain);
    memory values(plain, dev.engine());
    const size_t count = plain.get_size() / sizeof(float);
    const std::vector<double> random = RandomValues(static_cast<int64_t>(count), -1, 1, 7);
    std::copy(random.begin(), random.end(), static_cast<float*>(values.get_data_handle()));
    for (const Tag blocked : {c.by8, c.by16}) {
      for (const bool to_blocked : {true, false}) {
        const memory::desc from_md(c.dims, f32, to_blocked ? c.last : blocked);
        const memory::desc to_md(c.dims, f32, to_blocked ? blocked : c.last);
        const std::string what = operators::FormatName(from_md) + " -> " +
                                 operators::FormatName(to_md) + " of " + std::to_string(c.dims[1]) +
                                 " channels";
        memory from(from_md, dev.engine()), to(to_md, dev.engine());
        dnnl::reorder(values, from).execute(dev.stream(), values, from);
        float* out = static_cast<float*>(to.get_data_handle());
        std::fill(out, out + to_md.get_size() / sizeof(float), std::nanf(""));
        ASSERT_TRUE(operators::CopyBetweenChannelRuns(from_md, from.get_data_handle(), to_md,
                                                      to.get_data_handle(), dev))
            << what;
        memory expected(to_md, dev.engine()), back(plain, dev.engine());
        dnnl::reorder(values, expected).execute(dev.stream(), values, expected);
        dev.stream().wait();
        const float* want = static_cast<const float*>(expected.get_data_handle());
        // Bitwise, padding included (oneDNN's reorder writes 0 there).
        EXPECT_EQ(0, std::memcmp(out, want, to_md.get_size())) << what;
        operators::Reorder(to, back, dev);  // The primitive: to a plain format.
        dev.stream().wait();
        EXPECT_EQ(0,
                  std::memcmp(back.get_data_handle(), values.get_data_handle(), plain.get_size()))
            << what;
      }
    }
    // Pairs that are not one blocked and one channel-last: the primitive's.
    memory by8(memory::desc(c.dims, f32, c.by8), dev.engine());
    memory by16(memory::desc(c.dims, f32, c.by16), dev.engine());
    EXPECT_FALSE(operators::CopyBetweenChannelRuns(by8.get_desc(), by8.get_data_handle(),
                                                   by16.get_desc(), by16.get_data_handle(), dev));
    EXPECT_FALSE(operators::CopyBetweenChannelRuns(values.get_desc(), values.get_data_handle(),
                                                   by16.get_desc(), by16.get_data_handle(), dev));
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// conv -> relu -> pool chains in oneDNN's blocked layouts (framework/layout_planning.h,
// operators/onednn/onednn_layout.h), forward and backward, through the executor.
//
// The same program runs three ways: with layout planning (temporaries stay blocked between
// oneDNN ops), with every temporary fetched (fetched variables stay row-major, so the same
// oneDNN kernels reorder at every op), and on the plain kernels. Results agree to 1e-5
// relative between the first two and within float32 accumulation error with the third; the
// profile shows which outputs stayed blocked and that no data transform was needed.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "framework/backward.h"
#include "framework/executor.h"
#include "framework/op_registry.h"
#include "framework/passes/fuse_relu_grad_pass.h"
#include "framework/tensor_io.h"
#include "framework/var_type_inference.h"
#include "operators/onednn/onednn_layout.h"
#include "platform/device_context_pool.h"
#include "platform/flags.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::ExecutionProfile;
using framework::LibraryType;
using framework::ProgramDesc;
using framework::Scope;

struct ChainOptions {
  bool nhwc = false;
  bool adaptive_first_pool = false;  // The oneDNN pool kernel's row-major fallback.
  bool plain_first_relu = false;     // use_mkldnn=false on the first relu of a placed block.
  bool backward = true;
  bool fuse_relu_grad = true;        // ApplyExecutionPasses after AppendBackward.
  // Gradients the passes must keep (fuse_pool_relu_grad_pass removes the relu outputs' ones).
  std::vector<std::string> keep;
  // A bias after each convolution (elementwise_add of a [C] parameter, as the layers of
  // Paddle's programs add it), whose gradient is a reduce_as of the convolution's.
  bool bias = false;
  // With a bias, let fuse_conv_bias_relu_pass fold the add and relu into the convolution;
  // otherwise the conv outputs are kept from it, so that the add's kernels run.
  bool fuse_conv_bias = false;
  int64_t in_channels = 8;
};

class Chain {
 public:
  explicit Chain(const ChainOptions& o) : o_(o) {
    framework::BlockDesc& b = program_.Block(0);
    framework::VarDesc* x = b.Var("x");
    const int64_t c = o.in_channels;
    x->SetShape(o.nhwc ? std::vector<int64_t>{2, 12, 12, c} : std::vector<int64_t>{2, c, 12, 12});
    x->SetDataType(DataType::FLOAT32);
    Param("w1", {16, c, 3, 3});
    if (o.bias) {
      Param("b1", {16});
      Param("b2", {16});
    }
    Param("w2", {16, 16, 3, 3});
    Conv("x", "w1", "c1");
    Relu("c1", "r1", o.plain_first_relu);
    Pool("r1", "p1", "max", o.adaptive_first_pool);
    Conv("p1", "w2", "c2");
    Relu("c2", "r2", false);
    Pool("r2", "p2", "avg", false);
    Op("mean", {{"X", {"p2"}}}, {{"Out", {"loss"}}}, {});
    if (o.backward) framework::AppendBackward(&program_, "loss");
    if (o.backward && o.fuse_relu_grad) {
      // relu's gradient as relu_grad, which reads blocked data (sign and mul do not); then
      // each relu_grad with the pooling's gradient before it, unless the relu's output
      // gradient is kept or the relu is placed apart from the pooling.
      const int pool_fusions = o.keep.empty() && !o.plain_first_relu ? 2 : 0;
      std::vector<std::string> keep = o.keep;
      if (o.bias && !o.fuse_conv_bias) keep.insert(keep.end(), {"c1_nobias", "c2_nobias"});
      const int conv_fusions = o.bias && o.fuse_conv_bias ? 2 : 0;
      // Each fused pooling gradient also takes the bias gradient's sum after it.
      const int bias_sums = o.bias ? pool_fusions : 0;
      EXPECT_EQ(framework::ApplyExecutionPasses(&program_, keep),
                2 + pool_fusions + conv_fusions + bias_sums);
    }
  }

  const ProgramDesc& program() const { return program_; }

  // Runs the program (or `other`, a variant of it) in a fresh scope holding the parameters;
  // returns the fetched values.
  std::map<std::string, std::vector<double>> Run(const std::vector<std::string>& fetches,
                                                 bool onednn, ExecutionProfile* profile,
                                                 const ProgramDesc* other = nullptr) const {
    const bool saved = FLAGS_use_onednn;
    FLAGS_use_onednn = onednn;
    Scope scope;
    for (const auto& kv : params_) *scope.Var(kv.first)->GetMutable<DenseTensor>() = kv.second;
    framework::Executor::RunOptions options;
    options.profile = profile;
    options.repeat = 2;  // The profile describes a steady-state run.
    std::vector<DenseTensor> values;
    try {
      values = framework::Executor(platform::CPUPlace())
                   .Run(other != nullptr ? *other : program_, &scope, {{"x", x_}}, fetches,
                        options);
    } catch (...) {
      FLAGS_use_onednn = saved;
      throw;
    }
    FLAGS_use_onednn = saved;
    std::map<std::string, std::vector<double>> out;
    for (size_t i = 0; i < fetches.size(); ++i) {
      EXPECT_TRUE(values[i].is_plain()) << fetches[i];
      out[fetches[i]] = ToDoubles(values[i]);
    }
    return out;
  }

 private:
  void Param(const std::string& name, const std::vector<int64_t>& dims) {
    framework::VarDesc* v = program_.Block(0).Var(name);
    v->SetShape(dims);
    v->SetDataType(DataType::FLOAT32);
    v->SetPersistable(true);
    const DDim d(dims);
    params_[name] = MakeTensor<float>(d, RandomValues(d.numel(), -0.3, 0.3, seed_++));
    if (name == "w1") {
      const DDim xd(program_.Block(0).FindVar("x")->GetShape());
      x_ = MakeTensor<float>(xd, RandomValues(xd.numel(), -1, 1, 99));
    }
  }
  void Op(const std::string& type, const framework::VariableNameMap& in,
          const framework::VariableNameMap& out, const AttributeMap& attrs) {
    framework::OpDesc* op = program_.Block(0).AppendOp();
    op->SetType(type);
    for (const auto& kv : in) op->SetInput(kv.first, kv.second);
    for (const auto& kv : out) op->SetOutput(kv.first, kv.second);
    for (const auto& kv : attrs) op->SetAttr(kv.first, kv.second);
    // use_mkldnn=true on some op makes the block placed: each op's attribute decides.
    if (!attrs.count("use_mkldnn") && o_.plain_first_relu && type != "mean") {
      op->SetAttr("use_mkldnn", true);
    }
    framework::InferVarTypeAndShape(op, &program_.Block(0));
  }
  std::string Format() const { return o_.nhwc ? "NHWC" : "NCHW"; }
  void Conv(const std::string& x, const std::string& w, const std::string& y) {
    const std::string conv = o_.bias ? y + "_nobias" : y;
    Op("conv2d", {{"Input", {x}}, {"Filter", {w}}}, {{"Output", {conv}}},
       {{"paddings", std::vector<int>{1, 1}}, {"data_format", Format()}});
    if (o_.bias) {
      const std::string b = w == "w1" ? "b1" : "b2";
      Op("elementwise_add", {{"X", {conv}}, {"Y", {b}}}, {{"Out", {y}}},
         {{"axis", o_.nhwc ? -1 : 1}});
    }
  }
  void Relu(const std::string& x, const std::string& y, bool plain) {
    AttributeMap attrs;
    if (plain) attrs["use_mkldnn"] = false;
    Op("relu", {{"X", {x}}}, {{"Out", {y}}}, attrs);
  }
  void Pool(const std::string& x, const std::string& y, const std::string& kind, bool adaptive) {
    Op("pool2d", {{"X", {x}}}, {{"Out", {y}}},
       {{"pooling_type", kind},
        {"ksize", adaptive ? std::vector<int>{5, 5} : std::vector<int>{2, 2}},
        {"strides", std::vector<int>{2, 2}},
        {"adaptive", adaptive},
        {"data_format", Format()}});
  }

  ChainOptions o_;
  ProgramDesc program_;
  std::map<std::string, DenseTensor> params_;
  DenseTensor x_;
  unsigned seed_ = 1;
};

const std::vector<std::string> kResults = {"p2", "loss", "x@GRAD", "w1@GRAD", "w2@GRAD"};
const std::vector<std::string> kBiasResults = {"p2",      "loss",    "x@GRAD", "w1@GRAD",
                                               "w2@GRAD", "b1@GRAD", "b2@GRAD"};
const std::vector<std::string> kForwardTemporaries = {"c1", "r1", "p1", "c2", "r2"};
const std::vector<std::string> kBackwardTemporaries = {"r2@GRAD", "c2@GRAD", "p1@GRAD",
                                                       "r1@GRAD", "c1@GRAD"};

// The outputs a run left blocked, by variable name.
std::set<std::string> Blocked(const ExecutionProfile& profile) {
  std::set<std::string> names;
  for (const auto& op : profile.ops) {
    for (const auto& o : op.opaque_outputs) {
      EXPECT_NE(o.find(": oneDNN "), std::string::npos) << o;
      names.insert(o.substr(0, o.find(':')));
    }
  }
  return names;
}

size_t Reorders(const ExecutionProfile& profile) {
  size_t n = 0;
  for (const auto& op : profile.ops) {
    for (const auto& t : op.transforms) n += t.kind.find("reorder") != std::string::npos;
  }
  return n;
}

LibraryType LibraryOf(const ExecutionProfile& profile, size_t index) {
  return profile.ops.at(index).key.backend;
}

void ExpectSame(const std::map<std::string, std::vector<double>>& actual,
                const std::map<std::string, std::vector<double>>& expected, double rtol,
                const std::string& what) {
  for (const auto& name : kBiasResults) {
    if (!expected.count(name)) continue;
    double scale = 0;
    for (double v : expected.at(name)) scale = std::max(scale, std::abs(v));
    // Relative to each value, and to the largest one for values near 0 (sums that cancel).
    ExpectNear(actual.at(name), expected.at(name), rtol, rtol * scale, what + " " + name);
  }
}

class OneDNNLayoutChainTest : public OneDNNKernelTestBase,
                              public ::testing::WithParamInterface<ChainOptions> {};

TEST_P(OneDNNLayoutChainTest, BlockedChainMatchesRowMajorAndPlainKernels) {
  const ChainOptions o = GetParam();
  const Chain chain(o);
  ExecutionProfile blocked_profile, row_major_profile;
  const auto blocked = chain.Run(kResults, true, &blocked_profile);

  // Every temporary fetched, the relu outputs' gradients too: kept from the fusion.
  ChainOptions keeping = o;
  keeping.keep = {"r1@GRAD", "r2@GRAD"};
  const Chain unfused_pools(keeping);
  std::vector<std::string> everything = kResults;
  everything.insert(everything.end(), kForwardTemporaries.begin(), kForwardTemporaries.end());
  everything.insert(everything.end(), kBackwardTemporaries.begin(), kBackwardTemporaries.end());
  const auto row_major = unfused_pools.Run(everything, true, &row_major_profile);
  const auto plain = chain.Run(kResults, false, nullptr);

  ExpectSame(blocked, row_major, 1e-5, "blocked vs row-major oneDNN:");
  ExpectSame(blocked, plain, 1e-4, "blocked oneDNN vs plain kernels:");
  EXPECT_TRUE(Blocked(row_major_profile).empty()) << "fetched variables stay row-major";

  // No input needed converting: every boundary is a reorder inside a oneDNN kernel.
  EXPECT_EQ(Reorders(blocked_profile), 0u);
  const std::set<std::string> b = Blocked(blocked_profile);
  // Every temporary between two oneDNN ops. Which format a primitive picks depends on the
  // CPU; in NCHW it is never the user's (8 or more channels), so each stays blocked.
  // (r1@GRAD and r2@GRAD only where the pooling gradients were not fused with relu's.)
  const std::set<std::string> between = {"c1",      "r1",      "p1",      "c2",      "r2",
                                         "r2@GRAD", "c2@GRAD", "p1@GRAD", "r1@GRAD", "c1@GRAD"};
  for (const auto& name : b) EXPECT_EQ(between.count(name), 1u) << name << " left blocked";
  if (o.nhwc) {
    // The primitive may pick nhwc, which is the user's layout: nothing to keep.
  } else if (o.plain_first_relu) {
    // c1 feeds a plain kernel, which writes row-major r1.
    EXPECT_EQ(b.count("c1"), 0u);
    EXPECT_EQ(b.count("r1"), 0u);
    EXPECT_EQ(LibraryOf(blocked_profile, 0), LibraryType::kOneDNN);  // conv2d
    EXPECT_EQ(LibraryOf(blocked_profile, 1), LibraryType::kPlain);   // relu
    EXPECT_EQ(LibraryOf(blocked_profile, 2), LibraryType::kOneDNN);  // pool2d
  } else if (o.adaptive_first_pool) {
    // The adaptive pool and its gradient (fused with relu's) run row-major code on row-major
    // copies.
    std::set<std::string> expected = between;
    for (const char* name : {"p1", "r1@GRAD", "c1@GRAD", "r2@GRAD"}) expected.erase(name);
    EXPECT_EQ(b, expected);
  } else {
    std::set<std::string> expected = between;
    for (const char* name : {"r1@GRAD", "r2@GRAD"}) expected.erase(name);
    EXPECT_EQ(b, expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Chains, OneDNNLayoutChainTest,
                         ::testing::Values(ChainOptions{}, ChainOptions{true, false, false, true},
                                           ChainOptions{false, true, false, true},
                                           ChainOptions{false, false, true, true}));

// Convolutions with a bias added after them, the first on a single input channel (LeNet's
// layers): the first convolution writes channel-last, the bias, relu and pooling and their
// gradients stay in oneDNN's layouts, and the bias gradients (reduce_as) sum the blocked or
// channel-last gradient while passing it on to the convolution's gradient in its layout.
TEST_F(OneDNNKernelTestBase, BiasedChainFromOneChannelStaysInOneDNNLayouts) {
  for (const int64_t channels : {1, 8}) {
    ChainOptions o;
    o.bias = true;
    o.in_channels = channels;
    const std::string what = std::to_string(channels) + " input channels:";
    const Chain chain(o);
    ExecutionProfile profile;
    const auto kept = chain.Run(kBiasResults, true, &profile);
    std::vector<std::string> everything = kBiasResults;
    for (const char* name : {"c1_nobias", "c1", "r1", "p1", "c2_nobias", "c2", "r2",
                             "c1_nobias@GRAD", "c1@GRAD", "c2_nobias@GRAD", "c2@GRAD"}) {
      everything.push_back(name);
    }
    const auto row_major = chain.Run(everything, true, nullptr);
    const auto plain = chain.Run(kBiasResults, false, nullptr);
    ExpectSame(kept, row_major, 1e-5, what + " kept layouts vs row-major oneDNN:");
    ExpectSame(kept, plain, 1e-4, what + " kept layouts vs plain kernels:");
    EXPECT_EQ(Reorders(profile), 0u) << what;
    const std::set<std::string> b = Blocked(profile);
    for (const char* name : {"c1_nobias", "c1", "r1", "c1@GRAD", "c1_nobias@GRAD", "c2_nobias",
                             "c2", "c2@GRAD", "c2_nobias@GRAD"}) {
      EXPECT_EQ(b.count(name), 1u) << what << " " << name << " row-major";
    }
    if (channels == 1) {
      for (const auto& op : profile.ops) {
        for (const auto& out : op.opaque_outputs) {
          if (out.rfind("c1_nobias:", 0) == 0) {
            EXPECT_EQ(out, "c1_nobias: oneDNN acdb");
          }
        }
      }
    }
  }
}

TEST_F(OneDNNKernelTestBase, BiasAndReluFoldedIntoTheConvolutionsKeepTheResults) {
  for (const bool nhwc : {false, true}) {
    ChainOptions o;
    o.bias = true;
    o.nhwc = nhwc;
    const std::string what = nhwc ? "NHWC:" : "NCHW:";
    ChainOptions unfused_options = o;
    o.fuse_conv_bias = true;
    const Chain fused(o), unfused(unfused_options);
    size_t adds = 0, relus = 0;
    for (const auto* op : fused.program().Block(0).AllOps()) {
      adds += op->Type() == "elementwise_add";
      relus += op->Type() == "relu";
    }
    EXPECT_EQ(adds + relus, 0u) << what;
    ExecutionProfile profile;
    const auto folded = fused.Run(kBiasResults, true, &profile);
    ExpectSame(folded, unfused.Run(kBiasResults, true, nullptr), 1e-5,
               what + " folded vs separate ops (oneDNN):");
    ExpectSame(folded, unfused.Run(kBiasResults, false, nullptr), 1e-4,
               what + " folded (oneDNN) vs separate ops (plain):");
    ExpectSame(fused.Run(kBiasResults, false, nullptr), unfused.Run(kBiasResults, false, nullptr),
               1e-5, what + " folded vs separate ops (plain):");
    EXPECT_EQ(Reorders(profile), 0u) << what;
  }
}

size_t OpsOfType(const ProgramDesc& program, const std::string& type) {
  size_t n = 0;
  for (const auto* op : program.Block(0).AllOps()) n += op->Type() == type;
  return n;
}

// The fused relu_grad gives the gradients of relu's sign(Out) * dOut, and the fused pooling
// and relu gradient those of pool2d_grad then relu_grad, exactly: on the plain kernels
// against the program without the passes, and on the oneDNN kernels (blocked layouts,
// NCHW and NHWC, max and avg pooling) against the program with relu_grad alone.
TEST_F(OneDNNKernelTestBase, FusedReluGradGivesTheGradientsOfTheUnfusedProgram) {
  ChainOptions unfused_options;
  unfused_options.fuse_relu_grad = false;
  const Chain fused{ChainOptions()}, unfused(unfused_options);
  const auto a = fused.Run(kResults, false, nullptr);
  const auto b = unfused.Run(kResults, false, nullptr);
  for (const auto& name : kResults) EXPECT_EQ(a.at(name), b.at(name)) << name;
  EXPECT_EQ(OpsOfType(fused.program(), "relu_grad"), 0u);
  EXPECT_EQ(OpsOfType(fused.program(), "pool2d_grad"), 0u);
  EXPECT_EQ(OpsOfType(fused.program(), framework::kFusedReluPool2dGrad), 2u);
  for (const bool nhwc : {false, true}) {
    ChainOptions o;
    o.nhwc = nhwc;
    const Chain both(o);
    o.keep = {"r1@GRAD", "r2@GRAD"};
    const Chain relu_grad_only(o);
    EXPECT_EQ(OpsOfType(relu_grad_only.program(), "relu_grad"), 2u);
    const auto c = both.Run(kResults, true, nullptr);
    const auto d = relu_grad_only.Run(kResults, true, nullptr);
    for (const auto& name : kResults) EXPECT_EQ(c.at(name), d.at(name)) << name << " nhwc " << nhwc;
  }
}

using OneDNNLayoutMiddleTest = OneDNNKernelTestBase;

TEST_F(OneDNNLayoutMiddleTest, FetchAndSaveInTheMiddleOfABlockedChainGiveRowMajorData) {
  const ChainOptions forward_only{false, false, false, false};
  const Chain reference(forward_only);
  ExecutionProfile profile;
  const auto without_fetch = reference.Run({"p2"}, true, &profile);
  EXPECT_EQ(Blocked(profile).count("r1"), 1u);
  // Fetching r1 keeps it row-major; the rest of the chain is unchanged.
  const auto with_fetch = reference.Run({"r1", "p2"}, true, &profile);
  EXPECT_EQ(Blocked(profile).count("r1"), 0u);
  ExpectNear(with_fetch.at("p2"), without_fetch.at("p2"), 1e-5, 1e-7, "p2");

  // A save op reading r1 in a program that fetches only p2.
  ProgramDesc program = reference.program();
  const std::string path = ::testing::TempDir() + "/onednn_layout_chain_r1.pdtensor";
  framework::OpDesc* save = program.Block(0).AppendOp();
  save->SetType("save");
  save->SetInput("X", {"r1"});
  save->SetAttr("file_path", path);
  save->SetAttr("overwrite", true);
  const auto with_save = reference.Run({"p2"}, true, &profile, &program);
  EXPECT_EQ(Blocked(profile).count("r1"), 0u);
  ExpectNear(with_save.at("p2"), without_fetch.at("p2"), 1e-5, 1e-7, "p2 with a save");
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t offset = 0;
  const DenseTensor loaded = framework::ReadTensorRecord(bytes, &offset, path);
  ExpectNear(ToDoubles(loaded), with_fetch.at("r1"), 1e-6, 1e-7, "saved r1");
}

// Reorder primitives are made once per pair of formats and engine, and reused: a round trip
// through a blocked format gives the data back.
using OneDNNReorderCache = OneDNNKernelTestBase;

TEST_F(OneDNNReorderCache, SamePairOfFormatsReusesItsPrimitive) {
  using dnnl::memory;
  using Tag = memory::format_tag;
  const auto& dev = *platform::DeviceContextPool::Instance().GetAs<platform::OneDNNContext>(
      platform::CPUPlace());
  const memory::dims dims = {2, 16, 3, 5};
  const memory::desc nchw(dims, memory::data_type::f32, Tag::nchw);
  const memory::desc blocked(dims, memory::data_type::f32, Tag::nChw16c);
  const memory::desc nhwc(dims, memory::data_type::f32, Tag::nhwc);
  const dnnl::reorder& first = operators::CachedReorder(nchw, blocked, dev.engine());
  EXPECT_EQ(first.get(), operators::CachedReorder(nchw, blocked, dev.engine()).get());
  EXPECT_NE(first.get(), operators::CachedReorder(nchw, nhwc, dev.engine()).get());
  EXPECT_NE(first.get(), operators::CachedReorder(blocked, nchw, dev.engine()).get());

  std::vector<float> x(2 * 16 * 3 * 5), back(x.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.5f - 7.0f;
  memory from(nchw, dev.engine(), x.data());
  memory mid(blocked, dev.engine());
  memory to(nchw, dev.engine(), back.data());
  operators::Reorder(from, mid, dev);
  operators::Reorder(mid, to, dev);
  dev.stream().wait();
  EXPECT_EQ(back, x);
}

// SameBytes says two formats place every element at the same byte exactly when oneDNN's own
// reorder primitive writes the same bytes for both (values 1, 2, ... in row-major order, so
// no two elements look alike and padding, 0, looks like none): nChw8c and nhwc of 8
// channels, any pair where the dims that differ are of size 1; not 16-channel blocks padding
// 8 channels, not 16 channels in 8-channel blocks. Reorder between such formats gives the
// primitive's bytes.
TEST_F(OneDNNReorderCache, SameBytesExactlyWhenTheReorderPrimitiveWritesTheSameBytes) {
  using dnnl::memory;
  using Tag = memory::format_tag;
  const auto& dev =
      *platform::DeviceContextPool::Instance().GetAs<platform::OneDNNContext>(platform::CPUPlace());
  const std::vector<Tag> tags = {Tag::nchw, Tag::nhwc, Tag::nChw8c, Tag::nChw16c};
  const std::vector<memory::dims> shapes = {{2, 8, 3, 5},  {2, 16, 3, 5}, {1, 8, 1, 1},
                                            {2, 1, 3, 5},  {2, 3, 1, 1},  {1, 8, 4, 1},
                                            {3, 16, 1, 1}, {1, 24, 2, 2}};
  int same = 0, different = 0;
  for (const memory::dims& dims : shapes) {
    const memory::desc plain(dims, memory::data_type::f32, Tag::nchw);
    std::vector<float> values(static_cast<size_t>(plain.get_size() / sizeof(float)));
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i + 1);
    memory source(plain, dev.engine(), values.data());
    std::vector<std::vector<char>> bytes;
    for (Tag tag : tags) {
      const memory::desc md(dims, memory::data_type::f32, tag);
      std::vector<char> out(md.get_size(), 1);
      memory to(md, dev.engine(), out.data());
      operators::CachedReorder(plain, md, dev.engine()).execute(dev.stream(), source, to);
      dev.stream().wait();
      bytes.push_back(std::move(out));
    }
    for (size_t a = 0; a < tags.size(); ++a) {
      for (size_t b = 0; b < tags.size(); ++b) {
        const memory::desc ma(dims, memory::data_type::f32, tags[a]);
        const memory::desc mb(dims, memory::data_type::f32, tags[b]);
        const bool expected = bytes[a] == bytes[b];
        const std::string what =
            "tags " + std::to_string(a) + ", " + std::to_string(b) + " of " + DDim(dims).ToString();
        EXPECT_EQ(operators::SameBytes(ma, mb), expected) << what;
        (expected ? same : different) += 1;
        // Reorder gives the primitive's bytes, through the shortcut or not.
        std::vector<char> from(bytes[a]), to(mb.get_size(), 7);
        memory src(ma, dev.engine(), from.data()), dst(mb, dev.engine(), to.data());
        operators::Reorder(src, dst, dev);
        dev.stream().wait();
        EXPECT_EQ(to, bytes[b]) << what;
      }
    }
  }
  // Both answers occur beyond the pairs of a format with itself.
  EXPECT_GT(same, static_cast<int>(shapes.size() * tags.size()));
  EXPECT_GT(different, 0);
  // Other dims or data types are never the same bytes.
  EXPECT_FALSE(operators::SameBytes(memory::desc({1, 8, 2, 2}, memory::data_type::f32, Tag::nhwc),
                                    memory::desc({1, 8, 4, 1}, memory::data_type::f32, Tag::nhwc)));
  EXPECT_FALSE(operators::SameBytes(memory::desc({1, 8, 2, 2}, memory::data_type::f32, Tag::nhwc),
                                    memory::desc({1, 8, 2, 2}, memory::data_type::s32, Tag::nhwc)));
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

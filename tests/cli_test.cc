// The `paddle_like` binary end to end: ops, run and inspect, and the typed messages of bad
// input (corrupt programs, unknown ops, missing or mistyped feeds).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "framework/npy_io.h"
#include "framework/program_desc.h"
#include "framework/tensor_io.h"
#include "paddle_like/cli/image_io.h"
#include "platform/file_util.h"
#include "tests/cli_test_util.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::Contains;
using testing::RunCli;
using testing::WriteTemp;
using framework::DDim;
using framework::DenseTensor;

const std::string kProgram = PL_SOURCE_DIR "/examples/quadratic.pbtxt";
const std::string kInput = PL_SOURCE_DIR "/examples/quadratic_x.npy";

std::string QuadraticWith(const std::string& from, const std::string& to) {
  std::string text = platform::ReadFile(kProgram);
  const size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

TEST(Cli, UsageAndUnknownVerb) {
  CliResult help = RunCli({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_TRUE(Contains(help.out, "usage: paddle_like"));
  CliResult bad = RunCli({"frobnicate"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(Contains(bad.err, "unknown verb `frobnicate`"));
  EXPECT_TRUE(Contains(bad.err, "usage:"));
  CliResult option = RunCli({"run", "--no-such-option"});
  EXPECT_EQ(option.code, 1);
  EXPECT_TRUE(Contains(option.err, "--no-such-option")) << option.err;
}

TEST(Cli, OpsJsonListsQuadratic) {
  CliResult r = RunCli({"ops", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  // Op objects sit at depth 3 of the indented document: their keys start 6 spaces in.
  const std::string op_key = "\n      \"type\": ";
  const size_t at = r.out.find(op_key + "\"quadratic\"");
  ASSERT_NE(at, std::string::npos);
  const std::string op = r.out.substr(at, r.out.find(op_key, at + 1) - at);
  for (const char* attr : {"\"name\": \"a\"", "\"name\": \"b\"", "\"name\": \"c\""}) {
    EXPECT_TRUE(Contains(op, attr)) << attr;
  }
  EXPECT_TRUE(Contains(op, "\"type\": \"FLOAT\""));
  EXPECT_TRUE(Contains(op, "\"dtype\": \"float32\""));
  EXPECT_TRUE(Contains(op, "\"dtype\": \"float64\""));
  EXPECT_TRUE(Contains(op, "\"device\": \"CPU\""));
  EXPECT_TRUE(Contains(op, "Quadratic operator"));  // The doc comment.
  // Kernel metadata: in-place pairs, and the forward op of a fused grad op.
  const size_t relu = r.out.find(op_key + "\"relu_grad\"");
  ASSERT_NE(relu, std::string::npos);
  const std::string relu_grad = r.out.substr(relu, r.out.find(op_key, relu + 1) - relu);
  EXPECT_TRUE(Contains(relu_grad, "\"Out@GRAD -> X@GRAD\"")) << relu_grad;
  EXPECT_TRUE(Contains(relu_grad, "\"fused_grad_of\": \"relu\"")) << relu_grad;

  CliResult text = RunCli({"ops"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(Contains(text.out, "quadratic  (version 0)"));
  EXPECT_TRUE(Contains(text.out, "a: FLOAT = 0"));
  CliResult unknown = RunCli({"ops", "no_such_op"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_TRUE(Contains(unknown.err, "op `no_such_op` is not registered"));
}

// `infer` on a shared model (legacy layout): outputs, top-5 classes, .npy files, and the
// usual mistakes.
TEST(Cli, InferRunsASavedModelThroughThePredictor) {
  const std::string model = std::string(PL_SHARED_DIR) + "/models/mnist_cnn_fluid";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "`" << model << "` is absent";
  const std::string input = testing::CliTempDir() + "/digits.npy";
  std::vector<double> pixels(2 * 28 * 28);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = ((i * 37) % 255) / 127.5 - 1;
  framework::WriteNpy(input, testing::MakeTensor<float>({2, 1, 28, 28}, pixels));
  const std::string out = testing::CliTempDir() + "/infer_out";
  CliResult r = RunCli({"infer", "--model", model, "--input", input, "--out", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "float32[2, 10]")) << r.out;
  EXPECT_TRUE(Contains(r.out, "row 0 top 5:")) << r.out;
  EXPECT_TRUE(Contains(r.out, "row 1 top 5:")) << r.out;
  // The same numbers as `run` on the same program and input.
  const std::string run_out = testing::CliTempDir() + "/run_infer_out";
  CliResult run = RunCli({"run", "--program", model, "--feed", input, "--out", run_out});
  ASSERT_EQ(run.code, 0) << run.err;
  for (const auto& entry : std::filesystem::directory_iterator(run_out)) {
    const auto a = testing::ToDoubles(framework::ReadNpy(entry.path().string()));
    const auto b = testing::ToDoubles(
        framework::ReadNpy(out + "/" + entry.path().filename().string()));
    testing::ExpectNear(b, a, 1e-5, 1e-7, entry.path().filename().string());
  }
  CliResult missing = RunCli({"infer", "--model", model});
  EXPECT_EQ(missing.code, 1);
  EXPECT_TRUE(Contains(missing.err, "missing input")) << missing.err;
  CliResult unknown = RunCli({"infer", "--model", model, "--input", "nope=" + input});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_TRUE(Contains(unknown.err, "no input `nope`")) << unknown.err;
  CliResult both = RunCli({"infer", "--model", model, "--program", model, "--input", input});
  EXPECT_EQ(both.code, 1);
  EXPECT_TRUE(Contains(both.err, "--model DIR or --program FILE")) << both.err;
}

// A LoD feed (FILE.npy@offsets) through `run` and `infer`, on PaddlePaddle's own GRU program:
// both give PaddlePaddle's output and print the output's LoD.
TEST(Cli, LoDFeedsReachTheSequenceOps) {
  const std::string dir = PL_SOURCE_DIR "/tests/fixtures/ops/gru_h0";
  const std::string expected = dir + "/expected_0.npy";
  for (const std::string verb : {"run", "infer"}) {
    SCOPED_TRACE(verb);
    const std::string out = testing::CliTempDir() + "/lod_" + verb;
    const std::string model_flag = verb == "run" ? "--program" : "--model";
    const std::string feed_flag = verb == "run" ? "--feed" : "--input";
    CliResult r = RunCli({verb, model_flag, dir, feed_flag, "input=" + dir + "/input.npy@0,3,5,9",
                          feed_flag, "h0=" + dir + "/h0.npy", "--out", out});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(Contains(r.out, "float32[9, 4] lod [[0, 3, 5, 9]]")) << r.out;
    ASSERT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1);
    const auto got = testing::ToDoubles(framework::ReadNpy(fs::directory_iterator(out)->path()));
    testing::ExpectNear(got, testing::ToDoubles(framework::ReadNpy(expected)), 1e-5, 1e-5,
                        verb + " gru");

    CliResult bad = RunCli({verb, model_flag, dir, feed_flag, "input=" + dir + "/input.npy@0,3,7",
                            feed_flag, "h0=" + dir + "/h0.npy"});
    EXPECT_EQ(bad.code, 1);
    EXPECT_TRUE(Contains(bad.err, "feed `input`")) << bad.err;
    EXPECT_TRUE(Contains(bad.err, "the LoD does not fit")) << bad.err;
    CliResult none = RunCli({verb, model_flag, dir, feed_flag, "input=" + dir + "/input.npy",
                             feed_flag, "h0=" + dir + "/h0.npy"});
    EXPECT_EQ(none.code, 1);
    EXPECT_TRUE(Contains(none.err, "op `gru` input `Input`: expected a level-1 LoD")) << none.err;
  }
}

// Images through `infer`: a PNG gives the same numbers as the .npy the same preprocessing
// makes; a detector gets im_shape and scale_factor from the image and draws its boxes; bad
// files are typed errors.
TEST(Cli, InferTakesImagesAndDrawsDetections) {
  cli::Image image;
  image.height = 60;
  image.width = 96;
  for (int64_t i = 0; i < image.height * image.width * 3; ++i) {
    image.rgb.push_back(static_cast<uint8_t>((i * 37 + i / 7) % 251));
  }
  const std::string png = testing::CliTempDir() + "/picture.png";
  cli::WritePng(png, image);
  const cli::Image back = cli::ReadImage(png);
  ASSERT_EQ(back.rgb, image.rgb) << "PNG round trip";

  const std::string cls = PL_SOURCE_DIR "/tests/fixtures/models/ppocr_mobile_v2_cls";
  const std::string npy = testing::CliTempDir() + "/picture.npy";
  framework::WriteNpy(npy, cli::ImageToTensor(cli::Resize(back, 48, 192), {0.5f, 0.5f, 0.5f},
                                              {0.5f, 0.5f, 0.5f}));
  const std::string from_png = testing::CliTempDir() + "/from_png";
  const std::string from_npy = testing::CliTempDir() + "/from_npy";
  CliResult a = RunCli({"infer", "--model", cls, "--input", png, "--resize", "48x192", "--mean",
                        "0.5,0.5,0.5", "--std", "0.5,0.5,0.5", "--out", from_png});
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_TRUE(Contains(a.out, "row 0 top 2:")) << a.out;
  CliResult b = RunCli({"infer", "--model", cls, "--input", npy, "--out", from_npy});
  ASSERT_EQ(b.code, 0) << b.err;
  for (const auto& entry : fs::directory_iterator(from_npy)) {
    testing::ExpectNear(
        testing::ToDoubles(framework::ReadNpy(from_png + "/" + entry.path().filename().string())),
        testing::ToDoubles(framework::ReadNpy(entry.path().string())), 0, 0, "png vs npy");
  }

  const std::string det = PL_SOURCE_DIR "/tests/fixtures/models/face_det_blazeface";
  const std::string drawn = testing::CliTempDir() + "/drawn.png";
  CliResult d = RunCli({"infer", "--model", det, "--input", "image=" + png, "--resize",
                        "160x160", "--threshold", "0", "--draw", drawn});
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_TRUE(Contains(d.out, "  box: class 0 score")) << d.out;
  EXPECT_TRUE(Contains(d.out, "boxes score at least 0")) << d.out;
  const cli::Image painted = cli::ReadImage(drawn);
  EXPECT_EQ(painted.height, image.height);
  EXPECT_EQ(painted.width, image.width);
  EXPECT_NE(painted.rgb, image.rgb) << "boxes drawn";

  const std::string bad_jpeg = WriteTemp("bad.jpg", std::string("\xFF\xD8\xFF\xE0garbage", 11));
  CliResult e = RunCli({"infer", "--model", cls, "--input", bad_jpeg});
  EXPECT_EQ(e.code, 1);
  EXPECT_TRUE(Contains(e.err, "corrupt JPEG data")) << e.err;
  const std::string text = WriteTemp("notes.txt", "not an image");
  CliResult f = RunCli({"infer", "--model", cls, "--input", text});
  EXPECT_EQ(f.code, 1);
  EXPECT_TRUE(Contains(f.err, "expected a PNG or JPEG file")) << f.err;
  CliResult g = RunCli({"infer", "--model", cls, "--input", npy, "--draw", drawn});
  EXPECT_EQ(g.code, 1);
  EXPECT_TRUE(Contains(g.err, "--draw needs an image input")) << g.err;
  CliResult h = RunCli({"infer", "--model", cls, "--input", png, "--resize", "48by192"});
  EXPECT_EQ(h.code, 1);
  EXPECT_TRUE(Contains(h.err, "--resize expects HxW")) << h.err;
}

// Bilinear resizing with aligned pixel centres, and box outlines.
TEST(Cli, ImageResizeAndBoxes) {
  cli::Image two;
  two.height = 1;
  two.width = 2;
  two.rgb = {0, 0, 0, 200, 100, 40};
  const cli::Image four = cli::Resize(two, 1, 4);
  // Centres at 0.25 px steps of the source: -0.25 (clamped to 0), 0.25, 0.75, 1.25 (clamped).
  const std::vector<uint8_t> want = {0, 0, 0, 50, 25, 10, 150, 75, 30, 200, 100, 40};
  EXPECT_EQ(four.rgb, want);
  cli::Image canvas;
  canvas.height = 5;
  canvas.width = 5;
  canvas.rgb.assign(75, 0);
  cli::DrawBox(&canvas, 1, 1, 3, 3, {255, 0, 0}, 1);
  for (int64_t y = 0; y < 5; ++y) {
    for (int64_t x = 0; x < 5; ++x) {
      const bool edge = (y >= 1 && y <= 3 && x >= 1 && x <= 3) && (y == 1 || y == 3 || x == 1 ||
                                                                    x == 3);
      EXPECT_EQ(canvas.rgb[(y * 5 + x) * 3], edge ? 255 : 0) << y << "," << x;
    }
  }
}

TEST(Cli, RunQuadraticWritesNpy) {
  const std::string out = testing::CliTempDir() + "/run_out";
  CliResult r = RunCli({"run", "--program", kProgram, "--feed", "x=" + kInput, "--out", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "y  float32[2, 2]  [[6, 11], [18, 27]]")) << r.out;
  const DenseTensor y = framework::ReadNpy(out + "/y.npy");
  ASSERT_EQ(y.dtype(), platform::DataType::FLOAT32);
  ASSERT_EQ(y.dims(), DDim({2, 2}));
  const float expected[] = {6, 11, 18, 27};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y.data<float>()[i], expected[i]);

  // A feed without NAME= goes to the feed target; --fetch names what to fetch.
  CliResult positional = RunCli({"run", "--program", kProgram, "--feed", kInput, "--fetch", "y"});
  ASSERT_EQ(positional.code, 0) << positional.err;
  EXPECT_TRUE(Contains(positional.out, "[[6, 11], [18, 27]]"));
}

TEST(Cli, RunRepeatsAndProfiles) {
  const std::string profile = testing::CliTempDir() + "/profile.json";
  CliResult r = RunCli({"run", "--program", kProgram, "--feed", "x=" + kInput, "--repeat", "3",
                        "--profile", profile});
  ASSERT_EQ(r.code, 0) << r.err;
  // The fetched values are those of one run: repeating feeds the same input each time.
  EXPECT_TRUE(Contains(r.out, "[[6, 11], [18, 27]]")) << r.out;
  const std::string json = platform::ReadFile(profile);
  EXPECT_TRUE(Contains(json, "\"runs\": 3")) << json;
  EXPECT_TRUE(Contains(json, "\"type\": \"quadratic\"")) << json;
  EXPECT_TRUE(Contains(json, "\"library\": \"PLAIN\"")) << json;
  EXPECT_TRUE(Contains(json, "\"by_type\"")) << json;
  EXPECT_TRUE(Contains(r.err, "profile of one run")) << r.err;
  EXPECT_TRUE(Contains(r.err, "quadratic {CPU, float32, PLAIN, ANY}")) << r.err;

  CliResult zero = RunCli({"run", "--program", kProgram, "--feed", "x=" + kInput, "--repeat", "0"});
  EXPECT_EQ(zero.code, 1);
  EXPECT_TRUE(Contains(zero.err, "--repeat expects a positive integer, received `0`")) << zero.err;
}

TEST(Cli, RunLoadsAndChecksParameters) {
  // A program whose quadratic reads a persistable parameter `w` instead of a feed.
  std::string text = QuadraticWith("inputs { parameter: \"X\" arguments: \"x\" }\n    outputs",
                                   "inputs { parameter: \"X\" arguments: \"w\" }\n    outputs");
  const std::string w_var =
      "  vars {\n    name: \"w\"\n    type { type: LOD_TENSOR lod_tensor { tensor { data_type: "
      "FP32 dims: 3 } } }\n    persistable: true\n  }\n";
  text.insert(text.find("  vars {"), w_var);
  const std::string dir = testing::CliTempDir() + "/params_model";
  fs::create_directories(dir);
  const std::string program = dir + "/__model__";
  platform::WriteFileAtomically(program, text);

  DenseTensor w(DDim({3}), platform::DataType::FLOAT32);
  float* p = w.mutable_data<float>(platform::CPUPlace());
  p[0] = 0, p[1] = 1, p[2] = -1;
  std::string record;
  framework::AppendTensorRecord(w, &record);
  platform::WriteFileAtomically(dir + "/w", record);
  // Per-variable files next to the program are found without options.
  CliResult r = RunCli({"run", "--program", program, "--feed", "x=" + kInput});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "[3, 6, 2]")) << r.out;
  // A model directory stands for its __model__.
  r = RunCli({"run", "--program", dir, "--feed", "x=" + kInput});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "[3, 6, 2]")) << r.out;
  // The same record as a combined file.
  const std::string combined = WriteTemp("w.pdiparams", record);
  r = RunCli({"run", "--program", program, "--params", combined, "--feed", "x=" + kInput});
  ASSERT_EQ(r.code, 0) << r.err;

  DenseTensor wrong(DDim({2, 2}), platform::DataType::FLOAT32);
  wrong.mutable_data<float>(platform::CPUPlace());
  std::string wrong_record;
  framework::AppendTensorRecord(wrong, &wrong_record);
  const std::string wrong_file = WriteTemp("wrong.pdiparams", wrong_record);
  r = RunCli({"run", "--program", program, "--params", wrong_file, "--feed", "x=" + kInput});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "parameter `w`: expected shape [3]")) << r.err;
  EXPECT_TRUE(Contains(r.err, "[2, 2]")) << r.err;

  const std::string nowhere = testing::CliTempDir() + "/nowhere";
  r = RunCli({"run", "--program", program, "--params-dir", nowhere, "--feed",
              "x=" + kInput});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "nowhere/w")) << r.err;
}

TEST(Cli, CorruptAndTruncatedPrograms) {
  const std::string corrupt =
      WriteTemp("corrupt.pdmodel", std::string("\x0a\xff\xff\xff\x0f\x01", 6));
  CliResult r = RunCli({"run", "--program", corrupt, "--feed", "x=" + kInput});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "corrupt.pdmodel")) << r.err;
  EXPECT_TRUE(Contains(r.err, "InvalidArgumentError")) << r.err;

  // A valid binary program cut in half.
  const std::string binary =
      framework::ProgramDesc::FromText(platform::ReadFile(kProgram)).ToBinary();
  const std::string truncated = WriteTemp("truncated.pdmodel", binary.substr(0, binary.size() / 2));
  r = RunCli({"inspect", truncated});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "truncated.pdmodel")) << r.err;

  // A text program lacking a required field (the op type).
  const std::string no_type = WriteTemp(
      "no_type.pbtxt", QuadraticWith("type: \"quadratic\"", ""));
  r = RunCli({"run", "--program", no_type, "--feed", "x=" + kInput});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "no_type.pbtxt")) << r.err;
  EXPECT_TRUE(Contains(r.err, "type")) << r.err;

  r = RunCli({"run", "--program", testing::CliTempDir() + "/missing.pdmodel"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "missing.pdmodel")) << r.err;
}

TEST(Cli, UnknownOpIsNamed) {
  const std::string path =
      WriteTemp("unknown_op.pbtxt", QuadraticWith("type: \"quadratic\"", "type: \"quadratik\""));
  CliResult r = RunCli({"run", "--program", path, "--feed", "x=" + kInput});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "op `quadratik` is not registered")) << r.err;
  EXPECT_TRUE(Contains(r.err, "quadratic")) << r.err;  // The suggestion.
}

TEST(Cli, FeedErrors) {
  CliResult r = RunCli({"run", "--program", kProgram});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "missing feed for variable `x`")) << r.err;

  DenseTensor x64(DDim({2, 2}), platform::DataType::FLOAT64);
  x64.mutable_data<double>(platform::CPUPlace());
  const std::string f64 = testing::CliTempDir() + "/x64.npy";
  framework::WriteNpy(f64, x64);
  r = RunCli({"run", "--program", kProgram, "--feed", "x=" + f64});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "feed `x`")) << r.err;
  EXPECT_TRUE(Contains(r.err, "expected dtype float32, received float64")) << r.err;

  DenseTensor x3(DDim({3}), platform::DataType::FLOAT32);
  x3.mutable_data<float>(platform::CPUPlace());
  const std::string f3 = testing::CliTempDir() + "/x3.npy";
  framework::WriteNpy(f3, x3);
  r = RunCli({"run", "--program", kProgram, "--feed", "x=" + f3});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "expected shape [2, 2] (rank 2), received [3]")) << r.err;

  const std::string not_npy = WriteTemp("not.npy", "hello");
  r = RunCli({"run", "--program", kProgram, "--feed", "x=" + not_npy});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "not.npy")) << r.err;
  EXPECT_TRUE(Contains(r.err, "bad magic")) << r.err;

  r = RunCli({"run", "--program", kProgram, "--feed", "x=" + kInput, "--fetch", "nope"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "fetch `nope`")) << r.err;
}

TEST(Cli, InspectPrintsOps) {
  CliResult r = RunCli({"inspect", kProgram});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* part : {"[0] feed", "[1] quadratic", "[2] fetch", "a=1", "feed targets: x",
                           "fetch targets: y", "FEED_MINIBATCH", "float32 [2, 2]"}) {
    EXPECT_TRUE(Contains(r.out, part)) << part << "\n" << r.out;
  }
}

TEST(Cli, InspectDotDrawsOpsVariablesAndSlots) {
  CliResult r = RunCli({"inspect", "--dot", kProgram});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("digraph program {", 0), 0u) << r.out;
  EXPECT_TRUE(Contains(r.out, "\"o0:1\" [shape=box, style=\"rounded,bold\", label=\"quadratic\"]"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "\"v0:x\" -> \"o0:1\" [label=\"X\""));
  EXPECT_TRUE(Contains(r.out, "\"o0:1\" -> \"v0:y\" [label=\"Out\""));
  EXPECT_TRUE(Contains(r.out, "label=\"x\\nfloat32 [2, 2]\""));
  size_t edges = 0;
  for (size_t at = r.out.find(" -> "); at != std::string::npos; at = r.out.find(" -> ", at + 1)) {
    ++edges;
  }
  EXPECT_EQ(edges, 6u);  // feed, quadratic and fetch: one input and one output each.
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '{'), std::count(r.out.begin(), r.out.end(), '}'));
  EXPECT_FALSE(Contains(r.out, "program: ")) << "the dump goes to stderr with --dot";
}

TEST(Cli, InspectPassesReportsEachPass) {
  const std::string model = std::string(PL_SHARED_DIR) + "/models/resnet_cifar10";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << model << " is absent";
  CliResult r = RunCli({"inspect", "--passes", model});
  ASSERT_EQ(r.code, 0) << r.err;
  // 33 conv + batch_norm pairs (15 with a bias add between), 15 shortcuts, 31 relus, the head
  // and its identity scale.
  for (const char* part : {"conv_bn_fuse_pass: 33 rewrites (batch_norm -33, elementwise_add -15)",
                           "scale_fuse_pass: 1 rewrite (scale -1)",
                           "conv_elementwise_add_fuse_pass: 15 rewrites",
                           "conv_activation_fuse_pass: 31 rewrites (relu -31)",
                           "fc_fuse_pass: 1 rewrite (elementwise_add -1, fc +1, mul -1)",
                           "dead_op_elimination_pass: 0 rewrites", "ops: 134 -> 38",
                           "fuse_activation=\"relu\""}) {
    EXPECT_TRUE(Contains(r.out, part)) << part << "\n" << r.out.substr(0, 2000);
  }
  // A model whose parameter file is missing: the error names it.
  std::ifstream in(model + "/__model__", std::ios::binary);
  const std::string program((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string alone = WriteTemp("params_missing.pdmodel", program);
  r = RunCli({"inspect", "--passes", alone});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "params_missing")) << r.err;
}

TEST(Cli, BenchReportsPercentilesForClones) {
  const std::string model = std::string(PL_SHARED_DIR) + "/models/mnist_cnn_fluid";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << model << " is absent";
  const std::string report = testing::CliTempDir() + "/bench.json";
  const std::string profile = testing::CliTempDir() + "/bench_profile.json";
  CliResult r =
      RunCli({"bench", "--model", model, "--batch", "3", "--warmup", "1", "--repeat", "4",
              "--clones", "2", "--report", report, "--profile", profile, "--profile-runs", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* part : {"input img: 3x1x28x28", "clones 2, batch 3", "latency ms: p50",
                           "throughput:", "mean profile of 3 runs", "conv2d"}) {
    EXPECT_TRUE(Contains(r.out, part)) << part << "\n" << r.out;
  }
  std::ifstream in(report);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* key : {"\"p50_ms\": ", "\"p90_ms\": ", "\"p99_ms\": ",
                          "\"throughput_per_s\": ", "\"threads\": ", "\"clones\": 2",
                          "\"batch\": 3", "\"repeat\": 4"}) {
    EXPECT_TRUE(Contains(json, key)) << key << "\n" << json;
  }
  std::ifstream profile_in(profile);
  const std::string profile_json((std::istreambuf_iterator<char>(profile_in)),
                                 std::istreambuf_iterator<char>());
  EXPECT_TRUE(Contains(profile_json, "\"averaged_runs\": 3")) << profile_json.substr(0, 400);

  r = RunCli({"bench", "--model", model, "--shape", "img=1x1x28"});
  EXPECT_EQ(r.code, 1);
  r = RunCli({"bench", "--model", model, "--shape", "img=1xAx28x28"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "1xAx28x28")) << r.err;
  r = RunCli({"bench", "--model", model, "--shape", "nope=1x1x28x28"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "no input `nope`")) << r.err;
}

}  // namespace
}  // namespace paddle_like

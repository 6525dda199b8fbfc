// `paddle_like backward` end to end: appending the backward pass of a text program, applying
// it again for a second-order gradient, running the result, and the typed errors.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "framework/npy_io.h"
#include "framework/program_desc.h"
#include "platform/file_util.h"
#include "tests/cli_test_util.h"

namespace paddle_like {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::Contains;
using testing::RunCli;
using testing::WriteTemp;
using framework::DDim;
using framework::DenseTensor;


// x (float64 [3]) -> sin -> y -> reduce_sum(reduce_all) -> loss.
constexpr char kSinProgram[] = R"PB(
blocks {
  idx: 0
  parent_idx: -1
  vars {
    name: "x"
    type { type: LOD_TENSOR lod_tensor { tensor { data_type: FP64 dims: 3 } } }
  }
  vars {
    name: "y"
    type { type: LOD_TENSOR lod_tensor { tensor { data_type: FP64 dims: 3 } } }
  }
  vars {
    name: "loss"
    type { type: LOD_TENSOR lod_tensor { tensor { data_type: FP64 } } }
  }
  ops {
    type: "sin"
    inputs { parameter: "X" arguments: "x" }
    outputs { parameter: "Out" arguments: "y" }
  }
  ops {
    type: "reduce_sum"
    inputs { parameter: "X" arguments: "y" }
    outputs { parameter: "Out" arguments: "loss" }
    attrs { name: "reduce_all" type: BOOLEAN b: true }
    attrs { name: "dim" type: INTS }
    attrs { name: "keep_dim" type: BOOLEAN b: false }
  }
}
)PB";

// The name printed for `var` as "  var -> name" in the section that starts with the line
// `header` ("gradients:" or "parameter gradients:"), or "".
std::string Printed(const std::string& out, const std::string& header, const std::string& var) {
  const size_t section = ("\n" + out).find("\n" + header + "\n");
  if (section == std::string::npos) return "";
  const std::string key = "  " + var + " -> ";
  size_t pos = section + header.size() + 1;  // Start of the first line of the section.
  while (pos < out.size()) {
    size_t eol = out.find('\n', pos);
    if (eol == std::string::npos) eol = out.size();
    const std::string line = out.substr(pos, eol - pos);
    if (line.compare(0, 2, "  ") != 0) break;  // The section ends at an unindented line.
    if (line.compare(0, key.size(), key) == 0) return line.substr(key.size());
    pos = eol + 1;
  }
  return "";
}

std::string PrintedGrad(const std::string& out, const std::string& var) {
  return Printed(out, "gradients:", var);
}

TEST(CliBackward, SecondOrderOfSinIsMinusSin) {
  const std::string program = WriteTemp("sin.pbtxt", kSinProgram);
  const std::string first = testing::CliTempDir() + "/sin_grad.pdmodel";
  CliResult r = RunCli({"backward", "--program", program, "--loss", "loss", "--out", first});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string x_grad = PrintedGrad(r.out, "x");
  ASSERT_FALSE(x_grad.empty()) << r.out;
  EXPECT_EQ(x_grad, "x@GRAD");
  EXPECT_EQ(PrintedGrad(r.out, "y"), "y@GRAD") << r.out;
  // The output is a loadable binary program with the gradient variable declared.
  const framework::ProgramDesc loaded = framework::ProgramDesc::Load(first);
  EXPECT_TRUE(loaded.Block(0).HasVar(x_grad));
  EXPECT_FALSE(loaded.OpVersions().empty());

  // Second order, written as text.
  const std::string second = testing::CliTempDir() + "/sin_grad2.pbtxt";
  r = RunCli({"backward", "--program", first, "--loss", x_grad, "--out", second, "--text"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string x_grad2 = PrintedGrad(r.out, "x");
  ASSERT_FALSE(x_grad2.empty()) << r.out;
  EXPECT_NE(x_grad2, x_grad);
  EXPECT_TRUE(Contains(platform::ReadFile(second), "blocks {"));

  const std::vector<double> xs = {0.3, -1.2, 2.0};
  DenseTensor x(DDim({3}), platform::DataType::FLOAT64);
  double* p = x.mutable_data<double>(platform::CPUPlace());
  for (size_t i = 0; i < xs.size(); ++i) p[i] = xs[i];
  const std::string x_file = testing::CliTempDir() + "/x.npy";
  framework::WriteNpy(x_file, x);
  const std::string out_dir = testing::CliTempDir() + "/run_out";
  r = RunCli({"run", "--program", second, "--feed", "x=" + x_file, "--fetch", x_grad2, "--fetch",
              x_grad, "--out", out_dir});
  ASSERT_EQ(r.code, 0) << r.err;
  const DenseTensor g2 = framework::ReadNpy(out_dir + "/" + x_grad2 + ".npy");
  const DenseTensor g1 = framework::ReadNpy(out_dir + "/" + x_grad + ".npy");
  ASSERT_EQ(g2.dtype(), platform::DataType::FLOAT64);
  ASSERT_EQ(g2.dims(), DDim({3}));
  ASSERT_EQ(g1.dims(), DDim({3}));
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_NEAR(g1.data<double>()[i], std::cos(xs[i]), 1e-12) << i;
    EXPECT_NEAR(g2.data<double>()[i], -std::sin(xs[i]), 1e-12) << i;
  }
}

TEST(CliBackward, ParametersAndNoGradSet) {
  // sin reads a persistable parameter `w` instead of `x`.
  std::string text = kSinProgram;
  const std::string from = "arguments: \"x\"";
  text.replace(text.find(from), from.size(), "arguments: \"w\"");
  const std::string w_var =
      "  vars {\n    name: \"w\"\n    type { type: LOD_TENSOR lod_tensor { tensor { data_type: "
      "FP64 dims: 3 } } }\n    persistable: true\n  }\n";
  text.insert(text.find("  vars {"), w_var);
  const std::string program = WriteTemp("sin_w.pbtxt", text);
  const std::string out = testing::CliTempDir() + "/sin_w_grad.pdmodel";
  CliResult r = RunCli({"backward", "--program", program, "--loss", "loss", "--out", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Printed(r.out, "parameter gradients:", "w"), "w@GRAD") << r.out;
  EXPECT_EQ(PrintedGrad(r.out, "w"), "w@GRAD") << r.out;
  EXPECT_EQ(PrintedGrad(r.out, "x"), "") << r.out;  // Not used by the loss.

  // With w in the no-grad set nothing is left to differentiate.
  r = RunCli({"backward", "--program", program, "--loss", "loss", "--no-grad", "x,w", "--out",
              testing::CliTempDir() + "/never_written.pdmodel"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "InvalidArgument")) << r.err;
  EXPECT_TRUE(Contains(r.err, "`loss`")) << r.err;
  EXPECT_FALSE(fs::exists(testing::CliTempDir() + "/never_written.pdmodel"));
}

TEST(CliBackward, Errors) {
  const std::string program = WriteTemp("sin_err.pbtxt", kSinProgram);
  const std::string out = testing::CliTempDir() + "/never_written.pdmodel";
  CliResult r =
      RunCli({"backward", "--program", program, "--loss", "no_such_var", "--out", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "NotFound")) << r.err;
  EXPECT_TRUE(Contains(r.err, "no_such_var")) << r.err;
  EXPECT_FALSE(fs::exists(out));

  std::string unknown = kSinProgram;
  unknown.replace(unknown.find("\"sin\""), 5, "\"no_such_op\"");
  const std::string unknown_program = WriteTemp("unknown.pbtxt", unknown);
  r = RunCli({"backward", "--program", unknown_program, "--loss", "loss", "--out", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "NotFound")) << r.err;
  EXPECT_TRUE(Contains(r.err, "no_such_op")) << r.err;
  EXPECT_FALSE(fs::exists(out));

  r = RunCli({"backward", "--program", program, "--out", out});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Contains(r.err, "--loss")) << r.err;

  CliResult help = RunCli({"backward", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_TRUE(Contains(help.out, "usage: paddle_like backward")) << help.out;
}

}  // namespace
}  // namespace paddle_like

// PaddlePaddle's own grad ops, one forward op per program (tests/fixtures/
// paddle_grad_op_programs, made by make_paddle_grad_op_programs.py with PaddlePaddle 3.3.1's
// append_backward): run here, each program's gradients of its fed inputs must be
// PaddlePaddle's. Grad ops paddle_like registers take PaddlePaddle's slots; the others
// become paddle_like's own backward when the program loads (framework/paddle_grad_ops.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/npy_io.h"
#include "framework/op_info.h"
#include "framework/program_desc.h"
#include "operators/registry.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace {

namespace fs = std::filesystem;
using framework::DenseTensor;
using framework::ProgramDesc;

const std::string kDir = PL_SOURCE_DIR "/tests/fixtures/paddle_grad_op_programs";

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kDir)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The strings of meta.json's list `key` (a flat object written by the generator).
std::vector<std::string> MetaList(const std::string& dir, const std::string& key) {
  std::ifstream in(dir + "/meta.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const size_t list = text.find('[', text.find("\"" + key + "\""));
  const size_t end = text.find(']', list);
  std::vector<std::string> items;
  for (size_t q = text.find('"', list); q < end; q = text.find('"', text.find('"', q + 1) + 1)) {
    items.push_back(text.substr(q + 1, text.find('"', q + 1) - q - 1));
  }
  return items;
}

class PaddleGradOpProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(PaddleGradOpProgram, GradientsArePaddlePaddles) {
  operators::RegisterAllOps();
  const std::string dir = kDir + "/" + GetParam();
  const ProgramDesc program = ProgramDesc::Load(dir + "/main.pdmodel");
  for (const framework::OpDesc* op : program.Block(0).AllOps()) {
    EXPECT_TRUE(framework::OpInfoMap::Instance().Has(op->Type())) << op->Type();
  }
  std::map<std::string, DenseTensor> feeds;
  for (const auto& f : MetaList(dir, "feeds"))
    feeds[f] = framework::ReadNpy(dir + "/" + f + ".npy");
  const std::vector<std::string> grads = MetaList(dir, "grads");
  ASSERT_FALSE(grads.empty());
  framework::Scope scope;
  const auto out = framework::Executor(platform::CPUPlace()).Run(program, &scope, feeds, grads);
  ASSERT_EQ(out.size(), grads.size());
  for (size_t i = 0; i < grads.size(); ++i) {
    const DenseTensor want = framework::ReadNpy(dir + "/grad_" + std::to_string(i) + ".npy");
    EXPECT_EQ(out[i].dims(), want.dims()) << grads[i];
    testing::ExpectNear(testing::ToDoubles(out[i]), testing::ToDoubles(want), 1e-4, 1e-5, grads[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PaddleGradOpProgram, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace paddle_like

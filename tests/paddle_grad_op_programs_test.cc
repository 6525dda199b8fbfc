// PaddlePaddle's own grad ops, one forward op per program (tests/fixtures/
// paddle_grad_op_programs, made by make_paddle_grad_op_programs.py with PaddlePaddle 3.3.1's
// append_backward): run here, each program's gradients of its fed inputs must be
// PaddlePaddle's. Grad ops paddle_like registers take PaddlePaddle's slots; the others
// become paddle_like's own backward when the program loads (framework/paddle_grad_ops.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
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

using framework::DenseTensor;
using framework::ProgramDesc;

const std::string kDir = PL_SOURCE_DIR "/tests/fixtures/paddle_grad_op_programs";

// meta.json's list `key`.
std::vector<std::string> MetaList(const std::string& dir, const std::string& key) {
  std::ifstream in(dir + "/meta.json");
  return nlohmann::json::parse(in).at(key).get<std::vector<std::string>>();
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

INSTANTIATE_TEST_SUITE_P(Fixtures, PaddleGradOpProgram,
                         ::testing::ValuesIn(testing::SubdirectoryNames(kDir)),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace paddle_like

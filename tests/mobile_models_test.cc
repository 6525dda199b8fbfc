// The mobile models saved by PaddlePaddle 2.3 and 2.6 (../shared/models: pplcnet_3cls with
// SE blocks and hard_swish, ppocr_cls_v2 with hard_sigmoid and a shape-driven reshape) give
// PaddlePaddle's own outputs on a fixed input pattern, with the oneDNN kernels and without.
// The goldens come from tests/fixtures/make_mobile_model_goldens.py; the test skips with a
// message where the models folder is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/model_loading.h"
#include "framework/program_desc.h"
#include "framework/scope.h"
#include "operators/registry.h"
#include "tests/model_goldens.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

namespace fs = std::filesystem;

const std::string kModels = PL_SHARED_DIR "/models";

void CheckModel(const std::string& name, const DDim& input_dims) {
  const std::string program_path = kModels + "/" + name + "/inference.pdmodel";
  if (!fs::exists(program_path)) GTEST_SKIP() << "`" << program_path << "` is absent";
  operators::RegisterAllOps();
  const framework::ProgramDesc program = framework::ProgramDesc::Load(program_path);
  const Golden golden = ReadGolden(name);
  const DenseTensor input = InputPattern(input_dims);
  for (bool use_onednn : {true, false}) {
    SCOPED_TRACE(name + (use_onednn ? " with oneDNN kernels" : " with plain kernels"));
    ScopedFlag flag(&FLAGS_use_onednn, use_onednn);
    framework::Scope scope;
    framework::LoadParameters(program, program_path, {}, &scope);
    const auto feeds = program.FeedTargetNames();
    const auto fetches = program.FetchTargetNames();
    ASSERT_EQ(feeds.size(), 1u);
    ASSERT_EQ(fetches.size(), 1u);
    const std::vector<DenseTensor> out =
        framework::Executor(platform::CPUPlace())
            .Run(program, &scope, {{feeds[0], input}}, fetches);
    EXPECT_EQ(out[0].dims(), DDim(golden.dims));
    ExpectNear(ToDoubles(out[0]), golden.values, 1e-4, 2e-6, "probabilities");
  }
}

TEST(MobileModels, PpLcNetMatchesPaddlePaddle) { CheckModel("pplcnet_3cls", {2, 3, 224, 224}); }

TEST(MobileModels, PpOcrAngleClassifierMatchesPaddlePaddle) {
  CheckModel("ppocr_cls_v2", {2, 3, 48, 192});
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

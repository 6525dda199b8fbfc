// Real models saved by PaddlePaddle (../shared/models, see SOURCES.md there): every program
// parses, has a sound block structure, round-trips through our binary writer, and its
// parameter files hold exactly the persistable variables with the dtypes and dims the
// program declares. Models whose ops are all registered are also run once on constant feeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/op_info.h"
#include "framework/program_desc.h"
#include "framework/scope.h"
#include "framework/tensor_io.h"
#include "operators/registry.h"

namespace paddle_like {
namespace framework {
namespace {

namespace fs = std::filesystem;

const std::string kModels = PL_SHARED_DIR "/models";

struct SavedModel {
  std::string dir;
  std::string program;  // __model__, model.pdmodel or inference.pdmodel
  std::string params;   // The combined file, or empty for one file per variable.
};

std::vector<SavedModel> FindModels() {
  std::vector<SavedModel> models;
  for (const auto& entry : fs::directory_iterator(kModels)) {
    if (!entry.is_directory()) continue;
    const std::string dir = entry.path().string();
    for (const char* stem : {"__model__", "model", "inference"}) {
      const std::string base = dir + "/" + stem;
      const std::string program = fs::exists(base + ".pdmodel") ? base + ".pdmodel" : base;
      if (!fs::is_regular_file(program)) continue;
      const std::string params = fs::exists(base + ".pdiparams") ? base + ".pdiparams" : "";
      models.push_back({dir, program, params});
      break;
    }
  }
  std::sort(models.begin(), models.end(),
            [](const SavedModel& a, const SavedModel& b) { return a.dir < b.dir; });
  return models;
}

// Persistable variables of block 0 that a parameter file holds, sorted (FORMATS.md 3.3).
std::vector<std::string> ParameterNames(const ProgramDesc& program) {
  std::vector<std::string> names;
  for (const VarDesc* v : program.Block(0).AllVars()) {
    const VarKind k = v->GetKind();
    if (v->Persistable() && k != VarKind::kFeedMinibatch && k != VarKind::kFetchList &&
        k != VarKind::kRaw) {
      names.push_back(v->Name());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

void CheckBlocks(const ProgramDesc& program) {
  ASSERT_GE(program.Size(), 1u);
  EXPECT_EQ(program.Block(0).Parent(), -1);
  for (size_t b = 0; b < program.Size(); ++b) {
    const BlockDesc& block = program.Block(b);
    EXPECT_EQ(block.ID(), static_cast<int>(b));
    if (b > 0) {
      EXPECT_GE(block.Parent(), 0);
      EXPECT_LT(block.Parent(), static_cast<int>(program.Size()));
    }
    for (size_t i = 0; i < block.OpSize(); ++i) {
      const OpDesc* op = block.Op(i);
      EXPECT_FALSE(op->Type().empty());
      std::vector<std::string> names = op->InputArgumentNames();
      for (const auto& n : op->OutputArgumentNames()) names.push_back(n);
      for (const auto& n : names) {
        EXPECT_NE(block.FindVarRecursive(n), nullptr)
            << "block " << b << " op #" << i << " `" << op->Type() << "` uses undeclared `" << n
            << "`";
      }
    }
  }
  const auto feeds = program.FeedTargetNames();
  const auto fetches = program.FetchTargetNames();
  EXPECT_FALSE(feeds.empty());
  EXPECT_FALSE(fetches.empty());
  for (const auto& n : feeds) EXPECT_TRUE(program.Block(0).HasVar(n)) << n;
  for (const auto& n : fetches) EXPECT_TRUE(program.Block(0).HasVar(n)) << n;
}

void CheckParameters(const SavedModel& model, const ProgramDesc& program, Scope* scope) {
  const std::vector<std::string> names = ParameterNames(program);
  ASSERT_FALSE(names.empty());
  if (model.params.empty()) {
    LoadSeparateParams(model.dir, names, scope);
  } else {
    LoadCombinedParams(model.params, names, scope);  // Also checks nothing is left over.
  }
  for (const auto& name : names) {
    const VarDesc* desc = program.Block(0).FindVar(name);
    const DenseTensor& t = scope->FindVar(name)->Get<DenseTensor>();
    EXPECT_EQ(t.dtype(), desc->GetDataType()) << name;
    EXPECT_EQ(t.dims(), DDim(desc->GetShape())) << name;
    EXPECT_TRUE(t.lod().empty()) << name;
  }
}

// Constant feeds shaped like the feed targets (unknown dims become 1).
std::map<std::string, DenseTensor> ConstantFeeds(const ProgramDesc& program) {
  std::map<std::string, DenseTensor> feeds;
  for (const auto& name : program.FeedTargetNames()) {
    const VarDesc* desc = program.Block(0).FindVar(name);
    std::vector<int64_t> dims = desc->GetShape();
    // A dynamic batch becomes 1; other dynamic dims (image sides) 64, so that every stride
    // and pooling window of the models still finds an input.
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] < 0) dims[i] = i == 0 ? 1 : 64;
    }
    DenseTensor t(DDim(dims), desc->GetDataType());
    platform::VisitDataType(desc->GetDataType(), [&](auto tag) {
      using T = decltype(tag);
      T* p = t.mutable_data<T>(platform::CPUPlace());
      for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(0.5f);
    });
    feeds[name] = t;
  }
  return feeds;
}

bool AllOpsRegistered(const ProgramDesc& program, std::string* missing) {
  for (size_t b = 0; b < program.Size(); ++b) {
    for (const OpDesc* op : program.Block(b).AllOps()) {
      if (!OpInfoMap::Instance().Has(op->Type())) {
        *missing = op->Type();
        return false;
      }
    }
  }
  return true;
}

TEST(Models, ParseRoundTripAndLoadParameters) {
  if (!fs::is_directory(kModels)) GTEST_SKIP() << "no models folder at " << kModels;
  operators::RegisterAllOps();
  const std::vector<SavedModel> models = FindModels();
  ASSERT_FALSE(models.empty()) << "no programs under " << kModels;
  for (const SavedModel& model : models) {
    SCOPED_TRACE(model.program);
    const ProgramDesc program = ProgramDesc::Load(model.program);
    CheckBlocks(program);

    const std::string once = program.ToBinary();
    const std::string twice = ProgramDesc::FromBinary(once, model.program).ToBinary();
    EXPECT_EQ(once, twice);
    // Nothing is lost on the way: the same ops, vars and attributes come back.
    const ProgramDesc back = ProgramDesc::FromBinary(once);
    EXPECT_EQ(back.Block(0).OpSize(), program.Block(0).OpSize());
    EXPECT_EQ(back.Block(0).AllVars().size(), program.Block(0).AllVars().size());
    EXPECT_EQ(back.Version(), program.Version());
    EXPECT_EQ(back.OpVersions(), program.OpVersions());

    Scope scope;
    CheckParameters(model, program, &scope);
    std::string missing;
    if (HasFailure() || !AllOpsRegistered(program, &missing)) {
      std::printf("%s: parsed, %zu parameters checked; not run (op `%s` not registered)\n",
                  model.program.c_str(), ParameterNames(program).size(), missing.c_str());
      continue;
    }
    const auto fetches = program.FetchTargetNames();
    const auto outputs = Executor(platform::CPUPlace())
                             .Run(program, &scope, ConstantFeeds(program), fetches);
    ASSERT_EQ(outputs.size(), fetches.size());
    for (const DenseTensor& out : outputs) {
      EXPECT_GT(out.numel(), 0);
      if (out.dtype() != platform::DataType::FLOAT32) continue;
      for (int64_t i = 0; i < out.numel(); ++i) EXPECT_TRUE(std::isfinite(out.data<float>()[i]));
    }
    std::printf("%s: parsed, %zu parameters checked, ran (%zu outputs)\n",
                model.program.c_str(), ParameterNames(program).size(), outputs.size());
  }
}

// Quirks SOURCES.md points out, checked where they are known to occur.
TEST(Models, FormatQuirks) {
  if (!fs::is_directory(kModels)) GTEST_SKIP() << "no models folder at " << kModels;
  const std::string cnn = kModels + "/mnist_cnn_fluid/__model__";
  const std::string lcnet = kModels + "/pplcnet_3cls/inference.pdmodel";
  if (!fs::exists(cnn) || !fs::exists(lcnet)) GTEST_SKIP() << "expected models are absent";
  EXPECT_EQ(ProgramDesc::Load(cnn).Version(), -1);  // No version field in 1.x files.
  const ProgramDesc p = ProgramDesc::Load(lcnet);
  EXPECT_EQ(p.Version(), 2006002);
  EXPECT_FALSE(p.OpVersions().empty());
  // Dynamic batch dimension.
  const auto feeds = p.FeedTargetNames();
  ASSERT_EQ(feeds.size(), 1u);
  EXPECT_EQ(p.Block(0).FindVar(feeds[0])->GetShape().at(0), -1);
}

}  // namespace
}  // namespace framework
}  // namespace paddle_like

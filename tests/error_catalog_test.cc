// docs/errors.md: each error type of platform/errors.h with one real message, made here by
// the runtime itself. The test fails when the page differs from what it makes; to write it
// again after a message changed:
//   PL_WRITE_ERRORS_DOC=1 build/tests/error_catalog_test
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "framework/executor.h"
#include "framework/op_registry.h"
#include "framework/program_desc.h"
#include "operators/registry.h"
#include "platform/allocator.h"
#include "platform/file_util.h"
#include "platform/flags.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace testing {
namespace {

const char* const kDoc = PL_SOURCE_DIR "/docs/errors.md";

struct Entry {
  const char* type;  // The class in platform/errors.h.
  const char* when;  // What makes the runtime raise it.
  std::function<void()> cause;
};

class CatalogOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "input");
    AddOutput("Out", "output");
    AddComment("An op the catalog registers twice.");
  }
};

std::vector<Entry> Entries() {
  return {
      {"InvalidArgumentError",
       "Input that breaks a rule the user can fix: a shape, dtype or attribute an op does not "
       "accept, a malformed or truncated file, a feed that does not fit its variable.",
       [] {
         RunOp("conv2d_transpose",
               {{"Input", {MakeTensor<float>({1, 2, 3, 3}, std::vector<double>(18, 1))}},
                {"Filter", {MakeTensor<float>({3, 2, 3, 3}, std::vector<double>(54, 1))}}},
               {{"Output", 1}}, {});
       }},
      {"NotFoundError",
       "Something named is not there: an op type that is not registered, a missing input, "
       "variable, attribute or file.",
       [] { framework::ProgramDesc::Load("/nonexistent/model.pdmodel"); }},
      {"OutOfRangeError",
       "A size or index past what the runtime can represent: a tensor whose byte count "
       "overflows, a rank above 9, an index past a dim.",
       [] {
         framework::DenseTensor t(framework::DDim({int64_t{1} << 62}), DataType::FLOAT32);
         t.mutable_data<float>(platform::CPUPlace());
       }},
      {"AlreadyExistsError",
       "A registration made twice: an op, a kernel, a pass or an attribute.",
       [] {
         framework::RegisterOp<framework::OperatorWithKernel, CatalogOpMaker>(
             "error_catalog_op");
         framework::RegisterOp<framework::OperatorWithKernel, CatalogOpMaker>(
             "error_catalog_op");
       }},
      {"PreconditionNotMetError",
       "An API used out of order: reading a tensor that holds no data yet, or in another "
       "dtype or layout than it has.",
       [] {
         framework::DenseTensor t(framework::DDim({2, 3}), DataType::FLOAT32);
         t.data<float>();
       }},
      {"UnimplementedError",
       "Valid input this runtime does not support: a program saved by a newer framework (op "
       "versions), an attribute combination or fusion no kernel implements.",
       [] {
         framework::ProgramDesc program;
         framework::OpDesc* op = program.Block(0).AppendOp();
         op->SetType("conv2d");
         (*program.MutableOpVersions())["conv2d"] = 99;
         framework::CheckOpVersions(program);
       }},
      {"UnavailableError",
       "A resource that is not there now: memory (the machine's, or FLAGS_memory_limit_mb), "
       "a device or a backend this build lacks.",
       [] {
         const int64_t saved = FLAGS_memory_limit_mb;
         FLAGS_memory_limit_mb = 1;
         try {
           platform::Alloc(platform::CPUPlace(), size_t{4} << 20);
         } catch (...) {
           FLAGS_memory_limit_mb = saved;
           throw;
         }
         FLAGS_memory_limit_mb = saved;
       }},
  };
}

// The message `cause` raises, which must be of `type`.
std::string MessageOf(const Entry& e) {
  try {
    e.cause();
  } catch (const platform::Error& error) {
    const std::string what = error.what();
    EXPECT_EQ(what.rfind(std::string(e.type) + ": ", 0), 0u) << what;
    return what;
  }
  ADD_FAILURE() << e.type << ": the cause raised nothing";
  return "";
}

std::string MakeDoc() {
  std::string doc =
      "# Errors\n\n"
      "Every error a caller can cause is a C++ exception derived from `platform::Error`\n"
      "(`platform/errors.h`, itself a `std::runtime_error`): its type says what kind of\n"
      "problem it is, `code()` gives the same as an enum, and the message names the op, slot,\n"
      "variable, attribute or file and what was expected against what was found. Errors\n"
      "raised while a program runs start with the op's place in it (`block 0 op #3 `conv2d`\n"
      "(Input: x; Output: y)`). `FatalError` is kept for a library (oneDNN, CUDA) failing\n"
      "internally, which no input should reach.\n\n"
      "Each message below was raised by the runtime in `tests/error_catalog_test.cc`, which\n"
      "fails when this page and the runtime disagree (`PL_WRITE_ERRORS_DOC=1\n"
      "build/tests/error_catalog_test` writes it again).\n";
  for (const Entry& e : Entries()) {
    doc += "\n## " + std::string(e.type) + "\n\n" + e.when + "\n\n```\n" + MessageOf(e) +
           "\n```\n";
  }
  return doc;
}

TEST(ErrorCatalog, DocsErrorsMdHoldsTheRuntimesOwnMessages) {
  operators::RegisterAllOps();
  const std::string doc = MakeDoc();
  if (std::getenv("PL_WRITE_ERRORS_DOC") != nullptr) {
    platform::WriteFileAtomically(kDoc, doc);
    GTEST_SKIP() << "wrote " << kDoc;
  }
  EXPECT_EQ(platform::ReadFile(kDoc), doc)
      << "docs/errors.md is out of date: PL_WRITE_ERRORS_DOC=1 build/tests/error_catalog_test";
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

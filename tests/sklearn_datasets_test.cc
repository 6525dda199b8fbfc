// The scikit-learn dataset readers: the real files (when scripts/fetch_datasets.sh has put them
// in build/datasets) and small hand-written files, including the typed errors for bad input.
#include "paddle_like/datasets/sklearn_datasets.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "platform/errors.h"

namespace paddle_like {
namespace datasets {
namespace {

namespace fs = std::filesystem;

const std::string kSklearn = PL_DATASETS_DIR "/sklearn";

class TempDir {
 public:
  TempDir()
      : path_(fs::temp_directory_path() / ("pl_datasets_test_" + std::to_string(::getpid()))) {
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string Write(const std::string& name, const std::string& text) const {
    const std::string path = (path_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string WriteGzip(const std::string& name, const std::string& text) const {
    const std::string path = (path_ / name).string();
    gzFile f = gzopen(path.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    EXPECT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())),
              static_cast<int>(text.size()));
    gzclose(f);
    return path;
  }

 private:
  fs::path path_;
};

// Expects `load` to throw an error of type E whose message holds every one of `parts`.
template <typename E>
void ExpectError(const std::function<void()>& load, const std::vector<std::string>& parts) {
  try {
    load();
    ADD_FAILURE() << "no error";
  } catch (const E& e) {
    for (const auto& part : parts) {
      EXPECT_NE(e.message().find(part), std::string::npos) << e.message() << "\nlacks " << part;
    }
  }
}

std::string DigitsLine(int pixel, int label) {
  std::string line;
  for (int i = 0; i < 64; ++i) line += std::to_string(i == 10 ? pixel : 0) + ",";
  return line + std::to_string(label) + "\n";
}

constexpr char kBostonHeader[] =
    "2,3,,,\n"
    "\"A\",\"B\",\"C\",\"MEDV\"\n";

TEST(SklearnDatasets, RealDigits) {
  const std::string path = kSklearn + "/digits.csv.gz";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent (scripts/fetch_datasets.sh)";
  const Dataset d = LoadDigits(path);
  ASSERT_EQ(d.rows, 1797);
  ASSERT_EQ(d.cols, 64);
  ASSERT_EQ(d.features.size(), 1797u * 64);
  ASSERT_EQ(d.labels.size(), 1797u);
  EXPECT_TRUE(d.targets.empty());
  // The first image of the file: 0,0,5,13,9,1,0,0,... labelled 0.
  EXPECT_EQ(std::vector<float>(d.Row(0), d.Row(0) + 8),
            (std::vector<float>{0, 0, 5, 13, 9, 1, 0, 0}));
  EXPECT_EQ(d.labels[0], 0);
  EXPECT_EQ(d.labels[1], 1);
  std::vector<int> per_class(10, 0);
  for (int64_t label : d.labels) ++per_class.at(static_cast<size_t>(label));
  EXPECT_EQ(per_class, (std::vector<int>{178, 182, 177, 183, 181, 182, 181, 179, 174, 180}));
}

TEST(SklearnDatasets, RealBostonHousing) {
  const std::string path = kSklearn + "/boston_house_prices.csv";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent (scripts/fetch_datasets.sh)";
  const Dataset d = LoadBostonHousing(path);
  ASSERT_EQ(d.rows, 506);
  ASSERT_EQ(d.cols, 13);
  ASSERT_EQ(d.features.size(), 506u * 13);
  ASSERT_EQ(d.targets.size(), 506u);
  EXPECT_TRUE(d.labels.empty());
  ASSERT_EQ(d.feature_names.size(), 13u);
  EXPECT_EQ(d.feature_names.front(), "CRIM");
  EXPECT_EQ(d.feature_names.back(), "LSTAT");
  EXPECT_FLOAT_EQ(d.Row(0)[0], 0.00632f);
  EXPECT_FLOAT_EQ(d.Row(0)[12], 4.98f);
  EXPECT_FLOAT_EQ(d.targets[0], 24.0f);
  EXPECT_FLOAT_EQ(d.targets[505], 11.9f);
}

TEST(SklearnDatasets, DigitsFromGzipAndPlainText) {
  TempDir dir;
  const std::string text = DigitsLine(16, 7) + "\r\n" + DigitsLine(3, 0);
  for (const std::string& path : {dir.WriteGzip("d.csv.gz", text), dir.Write("d.csv", text)}) {
    SCOPED_TRACE(path);
    const Dataset d = LoadDigits(path);
    ASSERT_EQ(d.rows, 2);
    EXPECT_EQ(d.labels, (std::vector<int64_t>{7, 0}));
    EXPECT_EQ(d.Row(0)[10], 16.0f);
    EXPECT_EQ(d.Row(1)[10], 3.0f);
    EXPECT_EQ(d.Row(1)[11], 0.0f);
  }
}

TEST(SklearnDatasets, DigitsErrorsNameFileAndLine) {
  TempDir dir;
  ExpectError<platform::NotFoundError>([&] { LoadDigits(dir.Write("x", "") + ".missing"); },
                                       {"x.missing", "does not exist"});
  std::string path = dir.Write("short.csv", DigitsLine(1, 1) + "1,2,3\n");
  ExpectError<platform::InvalidArgumentError>([&] { LoadDigits(path); },
                                              {path, "line 2", "expected 65", "found 3"});
  path = dir.Write("text.csv", DigitsLine(1, 1) + DigitsLine(1, 1) + "a" + DigitsLine(1, 1));
  ExpectError<platform::InvalidArgumentError>([&] { LoadDigits(path); },
                                              {path, "line 3 column 1", "`a0`"});
  path = dir.Write("pixel.csv", DigitsLine(17, 1));
  ExpectError<platform::InvalidArgumentError>([&] { LoadDigits(path); },
                                              {path, "line 1 column 11", "17"});
  path = dir.Write("label.csv", DigitsLine(1, 10));
  ExpectError<platform::InvalidArgumentError>([&] { LoadDigits(path); },
                                              {path, "line 1", "label 10"});
  path = dir.Write("empty.csv", "\n\n");
  ExpectError<platform::InvalidArgumentError>([&] { LoadDigits(path); }, {path, "no rows"});
}

TEST(SklearnDatasets, BostonHousingSmallFile) {
  TempDir dir;
  const Dataset d = LoadBostonHousing(
      dir.Write("b.csv", std::string(kBostonHeader) + "1,2,3,4.5\n-1,0.25,1e2,6\n"));
  ASSERT_EQ(d.rows, 2);
  ASSERT_EQ(d.cols, 3);
  EXPECT_EQ(d.feature_names, (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_EQ(d.features, (std::vector<float>{1, 2, 3, -1, 0.25f, 100}));
  EXPECT_EQ(d.targets, (std::vector<float>{4.5f, 6}));
}

TEST(SklearnDatasets, BostonHousingErrorsNameFileAndLine) {
  TempDir dir;
  std::string path = dir.Write("counts.csv", "many,3\n\"A\",\"B\",\"C\",\"D\"\n");
  ExpectError<platform::InvalidArgumentError>([&] { LoadBostonHousing(path); },
                                              {path, "line 1 column 1", "`many`"});
  path = dir.Write("names.csv", "2,3\n\"A\",\"B\"\n");
  ExpectError<platform::InvalidArgumentError>([&] { LoadBostonHousing(path); },
                                              {path, "line 2", "expected 4 column names"});
  path = dir.Write("width.csv", std::string(kBostonHeader) + "1,2,3,4\n1,2,3\n");
  ExpectError<platform::InvalidArgumentError>([&] { LoadBostonHousing(path); },
                                              {path, "line 4", "expected 4", "found 3"});
  path = dir.Write("few.csv", std::string(kBostonHeader) + "1,2,3,4\n");
  ExpectError<platform::InvalidArgumentError>([&] { LoadBostonHousing(path); },
                                              {path, "announces 2 rows", "holds 1"});
  path = dir.Write("many.csv", std::string(kBostonHeader) + "1,2,3,4\n1,2,3,4\n1,2,3,4\n");
  ExpectError<platform::InvalidArgumentError>([&] { LoadBostonHousing(path); },
                                              {path, "line 5", "more rows"});
  path = dir.Write("one.csv", "2,3\n");
  ExpectError<platform::InvalidArgumentError>([&] { LoadBostonHousing(path); },
                                              {path, "found 1 lines"});
}

}  // namespace
}  // namespace datasets
}  // namespace paddle_like

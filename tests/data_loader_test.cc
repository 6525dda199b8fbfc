// The training data path: idx files (small ones written here, and Fashion-MNIST where Debian's
// `dataset-fashion-mnist` is installed), the digits images and their split, seeded shuffling,
// and DataLoader batching with and without background prefetch.
#include "paddle_like/datasets/data_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "paddle_like/datasets/digits_images.h"
#include "paddle_like/datasets/fashion_mnist.h"
#include "paddle_like/datasets/idx_reader.h"
#include "paddle_like/datasets/shuffle.h"
#include "paddle_like/datasets/sklearn_datasets.h"
#include "platform/errors.h"

namespace paddle_like {
namespace datasets {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir()
      : path_(fs::temp_directory_path() / ("pl_data_loader_test_" + std::to_string(::getpid()))) {
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  std::string Write(const std::string& name, const std::string& bytes) const {
    const std::string path = (path_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  std::string WriteGzip(const std::string& name, const std::string& bytes) const {
    const std::string path = (path_ / name).string();
    gzFile f = gzopen(path.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    EXPECT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
              static_cast<int>(bytes.size()));
    gzclose(f);
    return path;
  }

 private:
  fs::path path_;
};

// Expects `run` to throw an error of type E whose message holds every one of `parts`.
template <typename E>
void ExpectError(const std::function<void()>& run, const std::vector<std::string>& parts) {
  try {
    run();
    ADD_FAILURE() << "no error";
  } catch (const E& e) {
    for (const auto& part : parts) {
      EXPECT_NE(e.message().find(part), std::string::npos) << e.message() << "\nlacks " << part;
    }
  }
}

std::string BigEndian(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

std::string IdxImagesBytes(uint32_t count, uint32_t rows, uint32_t cols,
                           const std::vector<uint8_t>& pixels) {
  return BigEndian(kIdxImagesMagic) + BigEndian(count) + BigEndian(rows) + BigEndian(cols) +
         std::string(pixels.begin(), pixels.end());
}

std::string IdxLabelsBytes(const std::vector<uint8_t>& labels) {
  return BigEndian(kIdxLabelsMagic) + BigEndian(static_cast<uint32_t>(labels.size())) +
         std::string(labels.begin(), labels.end());
}

std::vector<uint8_t> Iota(size_t n, int start = 0) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((start + i) % 256);
  return v;
}

// ---------------------------------------------------------------------------------------------
// idx files

TEST(IdxReader, ReadsPlainAndGzipFiles) {
  TempDir dir;
  const std::vector<uint8_t> pixels = Iota(3 * 2 * 4, 250);  // Wraps past 255.
  const std::string images = IdxImagesBytes(3, 2, 4, pixels);
  const std::string labels = IdxLabelsBytes({7, 0, 9});
  for (bool gz : {false, true}) {
    SCOPED_TRACE(gz ? "gzip" : "plain");
    const std::string ip = gz ? dir.WriteGzip("i.gz", images) : dir.Write("i", images);
    const std::string lp = gz ? dir.WriteGzip("l.gz", labels) : dir.Write("l", labels);
    const IdxImages read = ReadIdxImages(ip);
    EXPECT_EQ(read.count, 3);
    EXPECT_EQ(read.rows, 2);
    EXPECT_EQ(read.cols, 4);
    EXPECT_EQ(read.pixels, pixels);
    EXPECT_EQ(ReadIdxLabels(lp), (std::vector<uint8_t>{7, 0, 9}));
  }
}

TEST(IdxReader, EmptyFilesOfZeroItems) {
  TempDir dir;
  EXPECT_EQ(ReadIdxImages(dir.Write("i", IdxImagesBytes(0, 28, 28, {}))).count, 0);
  EXPECT_TRUE(ReadIdxLabels(dir.Write("l", IdxLabelsBytes({}))).empty());
}

TEST(IdxReader, MissingFileIsNotFound) {
  TempDir dir;
  const std::string path = (dir.path() / "absent-idx3-ubyte").string();
  ExpectError<platform::NotFoundError>([&] { ReadIdxImages(path); }, {path});
}

TEST(IdxReader, BadMagicNamesTheFile) {
  TempDir dir;
  const std::string labels = dir.Write("labels", IdxLabelsBytes({1, 2}));
  ExpectError<platform::InvalidArgumentError>(
      [&] { ReadIdxImages(labels); },
      {labels, "bad magic number 0x00000801", "expected 0x00000803"});
  const std::string images = dir.WriteGzip("images.gz", IdxImagesBytes(1, 1, 1, {5}));
  ExpectError<platform::InvalidArgumentError>([&] { ReadIdxLabels(images); },
                                              {images, "bad magic number 0x00000803"});
  const std::string text = dir.Write("text", "not an idx file at all");
  ExpectError<platform::InvalidArgumentError>([&] { ReadIdxImages(text); },
                                              {text, "bad magic number"});
}

TEST(IdxReader, TruncatedAndOverlongFiles) {
  TempDir dir;
  const std::string full = IdxImagesBytes(2, 3, 3, Iota(18));
  // Data cut short, plain and gzip (the gzip stream itself is complete).
  for (bool gz : {false, true}) {
    const std::string cut = full.substr(0, full.size() - 1);
    const std::string path = gz ? dir.WriteGzip("cut.gz", cut) : dir.Write("cut", cut);
    ExpectError<platform::InvalidArgumentError>(
        [&] { ReadIdxImages(path); }, {path, "truncated", "[2, 3, 3]", "18 bytes", "holds 17"});
  }
  // A header cut short.
  for (size_t size : {0, 3, 10}) {
    const std::string header = dir.Write("header", full.substr(0, size));
    ExpectError<platform::InvalidArgumentError>(
        [&] { ReadIdxImages(header); },
        {header, "truncated header: " + std::to_string(size) + " bytes"});
  }
  const std::string labels = dir.Write("labels", IdxLabelsBytes({1, 2, 3}).substr(0, 9));
  ExpectError<platform::InvalidArgumentError>([&] { ReadIdxLabels(labels); },
                                              {labels, "truncated", "3 bytes", "holds 1"});
  // A count so large that its byte size passes 2^64.
  const std::string huge =
      dir.Write("huge", BigEndian(kIdxImagesMagic) + BigEndian(0xFFFFFFFF) + BigEndian(0xFFFFFFFF) +
                            BigEndian(0xFFFFFFFF) + "x");
  ExpectError<platform::InvalidArgumentError>([&] { ReadIdxImages(huge); }, {huge, "truncated"});
  // Bytes after the data.
  const std::string extra = dir.Write("extra", full + "zz");
  ExpectError<platform::InvalidArgumentError>([&] { ReadIdxImages(extra); },
                                              {extra, "2 bytes after"});
  // A gzip stream cut in the middle.
  const std::string gz = dir.WriteGzip("whole.gz", IdxImagesBytes(50, 28, 28, Iota(50 * 784)));
  const std::string bytes = [&] {
    std::ifstream in(gz, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  const std::string cut_gz = dir.Write("cut_stream.gz", bytes.substr(0, bytes.size() / 2));
  ExpectError<platform::InvalidArgumentError>([&] { ReadIdxImages(cut_gz); }, {cut_gz});
}

// ---------------------------------------------------------------------------------------------
// Fashion-MNIST: small files in the Debian layout, then the real files where installed.

TEST(FashionMnist, SmallFilesNormalisedToMinusOneToOne) {
  TempDir dir;
  std::vector<uint8_t> pixels(2 * 784, 0);
  pixels[1] = 255;
  pixels[2] = 51;
  pixels[784] = 128;
  dir.Write("t10k-images-idx3-ubyte", IdxImagesBytes(2, 28, 28, pixels));  // Plain.
  dir.WriteGzip("t10k-labels-idx1-ubyte.gz", IdxLabelsBytes({9, 0}));      // Compressed.
  const InMemoryDataset test = LoadFashionMnist(dir.path().string(), "test");
  EXPECT_EQ(test.sample_shape, (std::vector<int64_t>{1, 28, 28}));
  ASSERT_EQ(test.size(), 2);
  ASSERT_EQ(test.features.size(), 2u * 784);
  EXPECT_EQ(test.labels, (std::vector<int64_t>{9, 0}));
  EXPECT_EQ(test.features[0], -1.0f);
  EXPECT_EQ(test.features[1], 1.0f);
  EXPECT_EQ(test.features[2], static_cast<float>(51 / 255.0 * 2 - 1));
  EXPECT_FLOAT_EQ(test.features[2], -0.6f);
  EXPECT_EQ(test.features[784], NormalizeMnistPixel(128));
  EXPECT_NEAR(test.Sample(1)[0], 128.0 / 255 * 2 - 1, 1e-7);
}

TEST(FashionMnist, Errors) {
  TempDir dir;
  const std::string d = dir.path().string();
  ExpectError<platform::InvalidArgumentError>([&] { LoadFashionMnist(d, "valid"); },
                                              {"split `valid`"});
  ExpectError<platform::NotFoundError>(
      [&] { LoadFashionMnist(d, "train"); },
      {d + "/train-images-idx3-ubyte.gz", "dataset-fashion-mnist"});

  // Counts that differ between the two files.
  const std::string images =
      dir.Write("train-images-idx3-ubyte", IdxImagesBytes(2, 28, 28, Iota(2 * 784)));
  const std::string labels = dir.Write("train-labels-idx1-ubyte", IdxLabelsBytes({1, 2, 3}));
  ExpectError<platform::InvalidArgumentError>([&] { LoadFashionMnist(d, "train"); },
                                              {images, labels, "2 images", "3 labels"});
  // A label that is not a class.
  dir.Write("train-labels-idx1-ubyte", IdxLabelsBytes({1, 10}));
  ExpectError<platform::InvalidArgumentError>([&] { LoadFashionMnist(d, "train"); },
                                              {labels, "label 10 of sample 1"});
  // Images of another size.
  dir.Write("train-images-idx3-ubyte", IdxImagesBytes(2, 8, 8, Iota(2 * 64)));
  ExpectError<platform::InvalidArgumentError>([&] { LoadFashionMnist(d, "train"); },
                                              {images, "8x8", "28x28"});
}

// The real files, where Debian's `dataset-fashion-mnist` installed them (scripts/setup.sh).
TEST(FashionMnist, RealFiles) {
  if (!fs::is_directory(kFashionMnistDebianDir)) {
    GTEST_SKIP() << kFashionMnistDebianDir
                 << " is absent (Debian package dataset-fashion-mnist, see scripts/setup.sh)";
  }
  struct Split {
    std::string name;
    int64_t count;
    std::vector<int64_t> first_labels;  // As in the published files.
  };
  for (const Split& split :
       {Split{"train", 60000, {9, 0, 0, 3, 0, 2}}, Split{"test", 10000, {9, 2, 1, 1, 6, 1}}}) {
    SCOPED_TRACE(split.name);
    const int64_t count = split.count;
    const InMemoryDataset d = LoadFashionMnist(kFashionMnistDebianDir, split.name);
    ASSERT_EQ(d.size(), count);
    ASSERT_EQ(d.features.size(), static_cast<size_t>(count) * 784);
    EXPECT_EQ(d.sample_shape, (std::vector<int64_t>{1, 28, 28}));
    EXPECT_EQ(std::vector<int64_t>(d.labels.begin(), d.labels.begin() + 6), split.first_labels);
    std::vector<int64_t> per_class(10);
    for (int64_t label : d.labels) ++per_class.at(label);
    EXPECT_EQ(per_class, std::vector<int64_t>(10, count / 10));
    const auto [lo, hi] = std::minmax_element(d.features.begin(), d.features.end());
    EXPECT_EQ(*lo, -1.0f);
    EXPECT_EQ(*hi, 1.0f);
    // Every value is one of the 256 normalised pixels.
    std::set<float> levels(d.features.begin(), d.features.begin() + 784 * 100);
    for (float v : levels) {
      const int x = static_cast<int>(std::lround((v + 1) / 2 * 255));
      ASSERT_EQ(v, NormalizeMnistPixel(x));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Digits

// `rows` digits whose pixel p of row r is (r + p) % 17, labelled r % 10.
Dataset SyntheticDigits(int64_t rows) {
  Dataset d;
  d.rows = rows;
  d.cols = 64;
  for (int64_t r = 0; r < rows; ++r) {
    for (int p = 0; p < 64; ++p) d.features.push_back(static_cast<float>((r + p) % 17));
    d.labels.push_back(r % 10);
  }
  return d;
}

TEST(DigitsImages, NormalisedSplitAndUpsampled) {
  const Dataset digits = SyntheticDigits(12);
  EXPECT_EQ(DigitsTrainRows(12), 9);
  EXPECT_EQ(DigitsTrainRows(1797), 1437);

  const InMemoryDataset all = DigitsImages(digits, DigitsImageSize::k8x8);
  EXPECT_EQ(all.sample_shape, (std::vector<int64_t>{1, 8, 8}));
  ASSERT_EQ(all.size(), 12);
  for (size_t i = 0; i < all.features.size(); ++i) {
    ASSERT_EQ(all.features[i], static_cast<float>(digits.features[i] / 16.0 * 2 - 1)) << i;
  }
  EXPECT_EQ(all.features[16], 1.0f);  // Row 0, pixel 16: value 16.
  EXPECT_EQ(all.features[0], -1.0f);

  const InMemoryDataset train = DigitsSplit(digits, "train", DigitsImageSize::k8x8);
  const InMemoryDataset test = DigitsSplit(digits, "test", DigitsImageSize::k8x8);
  ASSERT_EQ(train.size(), 9);
  ASSERT_EQ(test.size(), 3);
  EXPECT_EQ(test.labels, (std::vector<int64_t>{9, 0, 1}));
  EXPECT_EQ(std::vector<float>(test.Sample(0), test.Sample(0) + 64),
            std::vector<float>(all.Sample(9), all.Sample(9) + 64));
  EXPECT_EQ(DigitsSplit(digits, "all", DigitsImageSize::k8x8).features, all.features);

  const InMemoryDataset big = DigitsSplit(digits, "test", DigitsImageSize::k28x28);
  EXPECT_EQ(big.sample_shape, (std::vector<int64_t>{1, 28, 28}));
  ASSERT_EQ(big.size(), 3);
  EXPECT_EQ(std::vector<float>(big.Sample(2), big.Sample(2) + 784), DigitToMnist(digits.Row(11)));

  ExpectError<platform::InvalidArgumentError>(
      [&] { DigitsSplit(digits, "validation", DigitsImageSize::k8x8); }, {"validation"});
  Dataset bad = digits;
  bad.labels.pop_back();
  ExpectError<platform::InvalidArgumentError>(
      [&] { DigitsSplit(bad, "train", DigitsImageSize::k8x8); }, {"11 labels for 12 rows"});
}

TEST(DigitsImages, RealDigitsSplit) {
  const std::string path = PL_DATASETS_DIR "/sklearn/digits.csv.gz";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent (scripts/fetch_datasets.sh)";
  const Dataset digits = LoadDigits(path);
  const InMemoryDataset train = DigitsSplit(digits, "train", DigitsImageSize::k8x8);
  const InMemoryDataset test = DigitsSplit(digits, "test", DigitsImageSize::k28x28);
  ASSERT_EQ(train.size(), 1437);
  ASSERT_EQ(test.size(), 360);
  EXPECT_EQ(test.features.size(), 360u * 784);
  std::vector<int> train_classes(10), test_classes(10);
  for (int64_t l : train.labels) ++train_classes.at(l);
  for (int64_t l : test.labels) ++test_classes.at(l);
  EXPECT_EQ(train_classes, (std::vector<int>{143, 146, 142, 146, 144, 145, 144, 143, 141, 143}));
  EXPECT_EQ(test_classes, (std::vector<int>{35, 36, 35, 37, 37, 37, 37, 36, 33, 37}));
  for (const InMemoryDataset* d : {&train, &test}) {
    const auto [lo, hi] = std::minmax_element(d->features.begin(), d->features.end());
    EXPECT_EQ(*lo, -1.0f);
    EXPECT_EQ(*hi, 1.0f);
  }
}

// ---------------------------------------------------------------------------------------------
// Shuffling

TEST(Shuffle, PortablePermutation) {
  // Pinned: std::mt19937_64 is fixed by the standard and the shuffle is written here, so these
  // orders are the same with every standard library (they were also checked against a separate
  // implementation of the same steps from the definitions of MT19937-64 and SplitMix64).
  EXPECT_EQ(Permutation(10, 42), (std::vector<int64_t>{1, 7, 9, 0, 3, 8, 4, 2, 5, 6}));
  EXPECT_EQ(Permutation(10, EpochSeed(7, 3)), (std::vector<int64_t>{1, 2, 0, 4, 6, 9, 5, 7, 8, 3}));
  EXPECT_TRUE(Permutation(0, 1).empty());
  EXPECT_EQ(Permutation(1, 1), (std::vector<int64_t>{0}));
  std::vector<int64_t> p = Permutation(1000, 5);
  std::sort(p.begin(), p.end());
  for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ(p[i], i);
}

TEST(Shuffle, UniformBelowStaysInRangeAndCoversIt) {
  std::mt19937_64 rng(1);
  std::vector<int> seen(7);
  for (int i = 0; i < 7000; ++i) {
    const uint64_t v = UniformBelow(7, &rng);
    ASSERT_LT(v, 7u);
    ++seen[v];
  }
  for (int c : seen) EXPECT_NEAR(c, 1000, 150);
  EXPECT_EQ(UniformBelow(1, &rng), 0u);
  EXPECT_LT(UniformBelow(UINT64_MAX, &rng), UINT64_MAX);
}

// ---------------------------------------------------------------------------------------------
// DataLoader

// `n` samples shaped [2, 3]: sample i holds i * 10 + 0..5, labelled i * 7 % 11.
std::shared_ptr<const InMemoryDataset> Numbered(int64_t n) {
  auto data = std::make_shared<InMemoryDataset>();
  data->sample_shape = {2, 3};
  for (int64_t i = 0; i < n; ++i) {
    for (int j = 0; j < 6; ++j) data->features.push_back(static_cast<float>(i * 10 + j));
    data->labels.push_back(i * 7 % 11);
  }
  return data;
}

DataLoaderOptions Options(int64_t batch_size, bool shuffle, uint64_t seed, int prefetch,
                          bool drop_last = false) {
  DataLoaderOptions o;
  o.batch_size = batch_size;
  o.shuffle = shuffle;
  o.seed = seed;
  o.prefetch = prefetch;
  o.drop_last = drop_last;
  return o;
}

// Every batch of epoch `epoch`, checked against the dataset sample by sample.
std::vector<Batch> Epoch(DataLoader* loader, int64_t epoch) {
  loader->StartEpoch(epoch);
  std::vector<Batch> batches;
  Batch batch;
  while (loader->Next(&batch)) {
    const InMemoryDataset& data = loader->dataset();
    const int64_t b = static_cast<int64_t>(batch.indices.size());
    std::vector<int64_t> dims{b};
    dims.insert(dims.end(), data.sample_shape.begin(), data.sample_shape.end());
    EXPECT_EQ(batch.features.dims(), framework::DDim(dims));
    EXPECT_EQ(batch.features.dtype(), platform::DataType::FLOAT32);
    EXPECT_EQ(batch.labels.dims(), framework::DDim({b, 1}));
    EXPECT_EQ(batch.labels.dtype(), platform::DataType::INT64);
    const int64_t per = data.sample_numel();
    for (int64_t i = 0; i < b; ++i) {
      const int64_t index = batch.indices[i];
      EXPECT_EQ(0, std::memcmp(batch.features.data<float>() + i * per, data.Sample(index),
                               per * sizeof(float)))
          << "sample " << index;
      EXPECT_EQ(batch.labels.data<int64_t>()[i], data.labels[index]);
    }
    batches.push_back(batch);
  }
  EXPECT_FALSE(loader->Next(&batch)) << "an ended epoch stays ended";
  return batches;
}

std::vector<int64_t> Order(const std::vector<Batch>& batches) {
  std::vector<int64_t> order;
  for (const Batch& b : batches) order.insert(order.end(), b.indices.begin(), b.indices.end());
  return order;
}

TEST(DataLoader, EverySampleOncePerEpoch) {
  for (int prefetch : {0, 2}) {
    SCOPED_TRACE(prefetch);
    DataLoader loader(Numbered(103), Options(10, true, 5, prefetch));
    EXPECT_EQ(loader.num_batches(), 11);
    for (int64_t epoch : {0, 1, 2}) {
      const std::vector<Batch> batches = Epoch(&loader, epoch);
      ASSERT_EQ(batches.size(), 11u);
      EXPECT_EQ(batches.back().indices.size(), 3u);
      std::vector<int64_t> order = Order(batches);
      EXPECT_EQ(order, loader.EpochOrder(epoch));
      std::sort(order.begin(), order.end());
      for (int64_t i = 0; i < 103; ++i) ASSERT_EQ(order[i], i);
    }
  }
}

TEST(DataLoader, OrderDependsOnSeedAndEpochOnly) {
  const auto data = Numbered(200);
  DataLoader a(data, Options(16, true, 11, 2)), b(data, Options(16, true, 11, 0));
  DataLoader other_seed(data, Options(16, true, 12, 2));
  const std::vector<int64_t> a1 = Order(Epoch(&a, 1));
  EXPECT_EQ(Order(Epoch(&b, 1)), a1) << "same seed, same order";
  EXPECT_NE(Order(Epoch(&other_seed, 1)), a1) << "another seed, another order";
  EXPECT_NE(Order(Epoch(&a, 2)), a1) << "another epoch, another order";
  EXPECT_EQ(Order(Epoch(&a, 1)), a1) << "epoch 1 again, without epoch 0 first";

  std::vector<int64_t> identity(200);
  for (int64_t i = 0; i < 200; ++i) identity[i] = i;
  DataLoader in_order(data, Options(16, false, 11, 2));
  EXPECT_EQ(Order(Epoch(&in_order, 3)), identity);
  EXPECT_NE(a1, identity);
}

TEST(DataLoader, PrefetchGivesTheSameBatches) {
  const auto data = Numbered(57);
  DataLoader reference(data, Options(8, true, 3, 0));
  const std::vector<Batch> expected = Epoch(&reference, 4);
  for (int prefetch : {1, 2, 4}) {
    SCOPED_TRACE(prefetch);
    DataLoader loader(data, Options(8, true, 3, prefetch));
    const std::vector<Batch> got = Epoch(&loader, 4);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].features.dims(), expected[i].features.dims());
      EXPECT_EQ(0, std::memcmp(got[i].features.data<float>(), expected[i].features.data<float>(),
                               got[i].features.numel() * sizeof(float)));
      EXPECT_EQ(0, std::memcmp(got[i].labels.data<int64_t>(), expected[i].labels.data<int64_t>(),
                               got[i].labels.numel() * sizeof(int64_t)));
    }
  }
}

TEST(DataLoader, DropLast) {
  for (int prefetch : {0, 3}) {
    DataLoader drop(Numbered(103), Options(10, true, 1, prefetch, /*drop_last=*/true));
    EXPECT_EQ(drop.num_batches(), 10);
    const std::vector<Batch> batches = Epoch(&drop, 0);
    ASSERT_EQ(batches.size(), 10u);
    for (const Batch& b : batches) EXPECT_EQ(b.indices.size(), 10u);
    std::vector<int64_t> expected = drop.EpochOrder(0);
    expected.resize(100);
    EXPECT_EQ(Order(batches), expected);
  }
  // Exact multiples lose nothing; fewer samples than one batch give no batch.
  DataLoader exact(Numbered(30), Options(10, false, 0, 2, true));
  EXPECT_EQ(Epoch(&exact, 0).size(), 3u);
  DataLoader too_few(Numbered(9), Options(10, false, 0, 2, true));
  EXPECT_EQ(too_few.num_batches(), 0);
  EXPECT_TRUE(Epoch(&too_few, 0).empty());
  DataLoader kept(Numbered(9), Options(10, false, 0, 2, false));
  ASSERT_EQ(Epoch(&kept, 0).size(), 1u);
}

TEST(DataLoader, BatchShapesAndValues) {
  DataLoader loader(Numbered(5), Options(2, false, 0, 2));
  loader.StartEpoch(0);
  Batch batch;
  ASSERT_TRUE(loader.Next(&batch));
  EXPECT_EQ(batch.features.dims(), framework::DDim({2, 2, 3}));
  EXPECT_EQ(batch.labels.dims(), framework::DDim({2, 1}));
  const float* x = batch.features.data<float>();
  EXPECT_EQ(std::vector<float>(x, x + 12),
            (std::vector<float>{0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(batch.labels.data<int64_t>()[1], 7);
  Batch kept = batch;  // Later batches do not overwrite this one's buffers.
  ASSERT_TRUE(loader.Next(&batch));
  ASSERT_TRUE(loader.Next(&batch));
  EXPECT_EQ(batch.features.dims(), framework::DDim({1, 2, 3}));
  EXPECT_EQ(batch.features.data<float>()[0], 40.0f);
  EXPECT_EQ(kept.features.data<float>()[6], 10.0f);
  EXPECT_FALSE(loader.Next(&batch));
}

TEST(DataLoader, EmptyDataset) {
  DataLoader loader(Numbered(0), Options(4, true, 0, 2));
  EXPECT_EQ(loader.num_batches(), 0);
  EXPECT_TRUE(Epoch(&loader, 0).empty());
}

TEST(DataLoader, TransformRunsOnEveryBatch) {
  for (int prefetch : {0, 2}) {
    DataLoaderOptions options = Options(4, true, 9, prefetch);
    options.transform = [](Batch* b) {
      float* x = b->features.mutable_data<float>();
      for (int64_t i = 0; i < b->features.numel(); ++i) x[i] = -x[i];
    };
    DataLoader loader(Numbered(10), options);
    loader.StartEpoch(0);
    Batch batch;
    ASSERT_TRUE(loader.Next(&batch));
    const int64_t first = batch.indices[0];
    EXPECT_EQ(batch.features.data<float>()[1], -static_cast<float>(first * 10 + 1));
  }
}

TEST(DataLoader, ExceptionReachesTheConsumerInOrder) {
  for (int prefetch : {0, 1, 3}) {
    SCOPED_TRACE(prefetch);
    DataLoaderOptions options = Options(10, true, 2, prefetch);
    std::atomic<int> calls{0};
    options.transform = [&calls](Batch* b) {
      if (++calls == 3) throw std::runtime_error("augmentation failed on batch 2");
    };
    DataLoader loader(Numbered(100), options);
    loader.StartEpoch(0);
    Batch batch;
    ASSERT_TRUE(loader.Next(&batch));
    ASSERT_TRUE(loader.Next(&batch));
    try {
      loader.Next(&batch);
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "augmentation failed on batch 2");
    }
    EXPECT_FALSE(loader.Next(&batch)) << "the epoch ends with the error";
    EXPECT_EQ(calls.load(), 3) << "no batch is made after the failed one";
    loader.StartEpoch(1);  // A new epoch runs.
    EXPECT_TRUE(loader.Next(&batch));
  }
}

TEST(DataLoader, PrefetchIsBoundedAndStopsCleanly) {
  std::atomic<int> produced{0};
  DataLoaderOptions options = Options(1, false, 0, 2);
  options.transform = [&produced](Batch*) { ++produced; };
  {
    DataLoader loader(Numbered(1000), options);
    loader.StartEpoch(0);
    Batch batch;
    ASSERT_TRUE(loader.Next(&batch));
    // The producer runs ahead by at most the capacity: 1 popped + 2 waiting.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (produced < 3 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(produced.load(), 3);
    loader.StartEpoch(1);  // Abandons epoch 0 with a full queue.
    ASSERT_TRUE(loader.Next(&batch));
    EXPECT_EQ(batch.indices[0], 0);
  }  // Destroyed with a full queue: joins without hanging.
  EXPECT_LE(produced.load(), 3 + 3);
}

TEST(DataLoader, Errors) {
  ExpectError<platform::InvalidArgumentError>([] { DataLoader(nullptr, DataLoaderOptions()); },
                                              {"null"});
  ExpectError<platform::InvalidArgumentError>(
      [] { DataLoader(Numbered(3), Options(0, false, 0, 0)); }, {"batch_size", "0"});
  ExpectError<platform::InvalidArgumentError>(
      [] { DataLoader(Numbered(3), Options(1, false, 0, -1)); }, {"prefetch", "-1"});
  auto bad = std::make_shared<InMemoryDataset>(*Numbered(3));
  bad->features.pop_back();
  ExpectError<platform::InvalidArgumentError>(
      [&] { DataLoader(bad, DataLoaderOptions()); },
      {"3 labels", "[2, 3]", "18 feature values", "found 17"});
  DataLoader loader(Numbered(3), DataLoaderOptions());
  Batch batch;
  ExpectError<platform::PreconditionNotMetError>([&] { loader.Next(&batch); }, {"StartEpoch"});
  ExpectError<platform::InvalidArgumentError>([&] { loader.StartEpoch(-1); }, {"epoch"});
}

}  // namespace
}  // namespace datasets
}  // namespace paddle_like

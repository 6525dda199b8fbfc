#include "paddle_like/datasets/data_loader.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "paddle_like/datasets/prefetch_queue.h"
#include "paddle_like/datasets/shuffle.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace datasets {

// The batches of one epoch, in order. Used by one thread at a time.
class DataLoader::EpochCursor {
 public:
  EpochCursor(std::shared_ptr<const InMemoryDataset> data, const DataLoaderOptions& options,
              std::vector<int64_t> order)
      : data_(std::move(data)),
        batch_size_(options.batch_size),
        drop_last_(options.drop_last),
        transform_(options.transform),
        order_(std::move(order)) {}

  // Assembles the next batch; false when the epoch has no more (or failed before).
  bool NextBatch(Batch* batch) {
    const int64_t left = static_cast<int64_t>(order_.size()) - position_;
    if (done_ || left <= 0 || (drop_last_ && left < batch_size_)) return false;
    const int64_t b = std::min(batch_size_, left);
    const int64_t per = data_->sample_numel();

    std::vector<int64_t> dims{b};
    dims.insert(dims.end(), data_->sample_shape.begin(), data_->sample_shape.end());
    Batch out;
    out.features = framework::DenseTensor(framework::DDim(dims), platform::DataType::FLOAT32);
    out.labels = framework::DenseTensor(framework::DDim({b, 1}), platform::DataType::INT64);
    float* x = out.features.mutable_data<float>(platform::CPUPlace());
    int64_t* y = out.labels.mutable_data<int64_t>(platform::CPUPlace());
    out.indices.assign(order_.begin() + position_, order_.begin() + position_ + b);
    for (int64_t i = 0; i < b; ++i) {
      const int64_t index = out.indices[i];
      std::copy_n(data_->Sample(index), per, x + i * per);
      y[i] = data_->labels[index];
    }
    position_ += b;
    if (transform_) {
      try {
        transform_(&out);
      } catch (...) {
        done_ = true;
        throw;
      }
    }
    *batch = std::move(out);
    return true;
  }

 private:
  const std::shared_ptr<const InMemoryDataset> data_;
  const int64_t batch_size_;
  const bool drop_last_;
  const std::function<void(Batch*)> transform_;
  const std::vector<int64_t> order_;
  int64_t position_ = 0;
  bool done_ = false;
};

DataLoader::DataLoader(std::shared_ptr<const InMemoryDataset> data, DataLoaderOptions options)
    : data_(std::move(data)), options_(std::move(options)) {
  PL_ENFORCE(data_ != nullptr, errors::InvalidArgument("DataLoader: the dataset is null"));
  data_->Validate("DataLoader input");
  PL_ENFORCE(options_.batch_size >= 1,
             errors::InvalidArgument("DataLoader: batch_size must be at least 1, received %lld",
                                     static_cast<long long>(options_.batch_size)));
  PL_ENFORCE(options_.prefetch >= 0,
             errors::InvalidArgument("DataLoader: prefetch must be 0 (off) or a positive "
                                     "number of batches, received %d",
                                     options_.prefetch));
}

DataLoader::~DataLoader() = default;

int64_t DataLoader::num_batches() const {
  const int64_t n = data_->size(), b = options_.batch_size;
  return options_.drop_last ? n / b : (n + b - 1) / b;
}

std::vector<int64_t> DataLoader::EpochOrder(int64_t epoch) const {
  if (options_.shuffle) return Permutation(data_->size(), EpochSeed(options_.seed, epoch));
  std::vector<int64_t> order(static_cast<size_t>(data_->size()));
  std::iota(order.begin(), order.end(), int64_t{0});
  return order;
}

void DataLoader::StartEpoch(int64_t epoch) {
  PL_ENFORCE(epoch >= 0, errors::InvalidArgument("DataLoader: epoch must not be negative, "
                                                 "received %lld",
                                                 static_cast<long long>(epoch)));
  queue_.reset();  // Stops and joins the thread of the previous epoch first.
  cursor_.reset();
  auto cursor = std::make_shared<EpochCursor>(data_, options_, EpochOrder(epoch));
  if (options_.prefetch > 0) {
    queue_ = std::make_unique<PrefetchQueue<Batch>>(
        [cursor](Batch* batch) { return cursor->NextBatch(batch); },
        static_cast<size_t>(options_.prefetch));
  } else {
    cursor_ = std::move(cursor);
  }
  started_ = true;
}

bool DataLoader::Next(Batch* batch) {
  PL_ENFORCE(started_, errors::PreconditionNotMet("DataLoader: Next before StartEpoch"));
  return queue_ ? queue_->Pop(batch) : cursor_->NextBatch(batch);
}

}  // namespace datasets
}  // namespace paddle_like

// DataLoader: mini-batches of an InMemoryDataset for training loops, optionally shuffled with
// a seed and prepared ahead on a background thread.
//
//   auto data = std::make_shared<const InMemoryDataset>(LoadFashionMnist(dir, "train"));
//   DataLoaderOptions options;
//   options.batch_size = 64;
//   options.shuffle = true;
//   options.seed = 1;
//   DataLoader loader(data, options);
//   for (int64_t epoch = 0; epoch < 10; ++epoch) {
//     loader.StartEpoch(epoch);
//     Batch batch;
//     while (loader.Next(&batch)) Train(batch.features, batch.labels);
//   }
//
// Determinism: the batches of an epoch depend only on the dataset, batch_size, drop_last,
// shuffle, seed and the epoch number, never on prefetching or on earlier epochs. A shuffled
// epoch uses the order Permutation(size, EpochSeed(seed, epoch)) (shuffle.h), identical with
// every standard library.
//
// Threading and ownership: the loader shares ownership of the dataset, which nobody may
// modify while the loader lives. StartEpoch and Next are for one thread at a time. With
// prefetch > 0 one background thread per loader assembles up to `prefetch` batches ahead of
// Next (PrefetchQueue: a bounded queue, no busy waiting); StartEpoch and the destructor stop
// it and join it. Each Batch owns fresh buffers, so a batch stays valid after later calls.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "framework/dense_tensor.h"
#include "paddle_like/datasets/in_memory_dataset.h"

namespace paddle_like {
namespace datasets {

template <typename T>
class PrefetchQueue;

struct Batch {
  framework::DenseTensor features;  // float32 [b, sample_shape...] on the CPU.
  framework::DenseTensor labels;    // int64 [b, 1] on the CPU (PaddlePaddle's label layout).
  std::vector<int64_t> indices;     // The dataset index of each sample, in batch order.
};

struct DataLoaderOptions {
  int64_t batch_size = 1;  // Positive.
  bool shuffle = false;    // Epoch order 0..n-1 when false.
  uint64_t seed = 0;       // Used when shuffle is true.
  bool drop_last = false;  // Drop a last batch smaller than batch_size.
  int prefetch = 2;        // Batches prepared ahead on a background thread; 0: none, Next
                           // assembles each batch on the caller's thread.
  // Called on every batch before Next returns it (on the background thread when prefetch > 0):
  // augmentation, device copies. Whatever it throws reaches the caller of Next in the place of
  // that batch and ends the epoch.
  std::function<void(Batch*)> transform;
};

class DataLoader {
 public:
  // InvalidArgumentError for a null or inconsistent dataset (InMemoryDataset::Validate), a
  // batch_size below 1 or a negative prefetch.
  DataLoader(std::shared_ptr<const InMemoryDataset> data, DataLoaderOptions options);
  ~DataLoader();  // Stops and joins the background thread.

  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  const DataLoaderOptions& options() const { return options_; }
  const InMemoryDataset& dataset() const { return *data_; }
  // Batches per epoch: ceil(size / batch_size), or floor with drop_last.
  int64_t num_batches() const;

  // The order in which epoch `epoch` visits the samples (before dropping a last partial batch).
  std::vector<int64_t> EpochOrder(int64_t epoch) const;

  // Starts epoch `epoch` (>= 0), abandoning what is left of the current one.
  void StartEpoch(int64_t epoch);

  // Moves the next batch of the current epoch into `*batch` and returns true, or returns false
  // at the end of the epoch (and from then on, until StartEpoch). Rethrows what the transform
  // threw, after which the epoch is over. PreconditionNotMetError before the first StartEpoch.
  bool Next(Batch* batch);

 private:
  class EpochCursor;

  std::shared_ptr<const InMemoryDataset> data_;
  DataLoaderOptions options_;
  bool started_ = false;
  // The current epoch: cursor_ when prefetch == 0, else queue_, whose thread alone uses the
  // epoch's cursor.
  std::shared_ptr<EpochCursor> cursor_;
  std::unique_ptr<PrefetchQueue<Batch>> queue_;  // Declared last: destroyed (joined) first.
};

}  // namespace datasets
}  // namespace paddle_like

// PrefetchQueue<T>: runs a producer function on one background thread and hands its items, in
// order, to one consumer through a bounded queue.
//
// Threading contract:
//  - `produce(T*)` fills one item and returns true, or returns false when there are no more.
//    It runs only on the background thread, one call at a time. It is called only while fewer
//    than `capacity` items wait in the queue; otherwise the thread sleeps on a condition
//    variable (no spinning) until Pop makes room or the queue is destroyed.
//  - An exception thrown by `produce` ends production: Pop hands out the items produced before
//    it, then rethrows it once, then returns false.
//  - Pop is for one consumer thread at a time.
//  - The destructor asks the producer to stop, waits for the call in progress (if any) to
//    return, joins the thread and drops the items nobody popped. `produce` and whatever it
//    captures must stay valid until then.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "platform/enforce.h"

namespace paddle_like {
namespace datasets {

template <typename T>
class PrefetchQueue {
 public:
  PrefetchQueue(std::function<bool(T*)> produce, size_t capacity)
      : produce_(std::move(produce)), capacity_(capacity) {
    PL_ENFORCE(capacity_ > 0,
               errors::InvalidArgument("PrefetchQueue: capacity must be positive, received 0"));
    thread_ = std::thread([this] { Run(); });
  }

  ~PrefetchQueue() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    not_full_.notify_all();
    thread_.join();
  }

  PrefetchQueue(const PrefetchQueue&) = delete;
  PrefetchQueue& operator=(const PrefetchQueue&) = delete;

  // Blocks until an item is ready and moves it into `*item` (true), or until production has
  // ended and every item was popped (false). Rethrows the producer's exception, once, in its
  // place in the sequence.
  bool Pop(T* item) {
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [this] { return !items_.empty() || finished_; });
    if (!items_.empty()) {
      *item = std::move(items_.front());
      items_.pop_front();
      lock.unlock();
      not_full_.notify_one();
      return true;
    }
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    return false;
  }

 private:
  void Run() {
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        not_full_.wait(lock, [this] { return stop_ || items_.size() < capacity_; });
        if (stop_) return;
      }
      // Only this thread adds items, so the room found above is still there.
      T item{};
      bool more = false;
      std::exception_ptr error;
      try {
        more = produce_(&item);
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (more) {
          items_.push_back(std::move(item));
        } else {
          finished_ = true;
          error_ = std::move(error);  // This thread keeps no reference to the exception.
        }
      }
      not_empty_.notify_one();
      if (!more) return;
    }
  }

  const std::function<bool(T*)> produce_;
  const size_t capacity_;

  std::mutex mu_;
  std::condition_variable not_empty_;  // Signalled when an item is added or production ends.
  std::condition_variable not_full_;   // Signalled when an item is popped or stop_ is set.
  std::deque<T> items_;                // Guarded by mu_.
  bool finished_ = false;              // Guarded by mu_: produce returned false or threw.
  bool stop_ = false;                  // Guarded by mu_: the destructor is running.
  std::exception_ptr error_;           // Guarded by mu_: what produce threw.

  std::thread thread_;  // Started last, in the constructor body; joined by the destructor.
};

}  // namespace datasets
}  // namespace paddle_like

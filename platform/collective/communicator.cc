#include "platform/collective/communicator.h"

#include <algorithm>

namespace paddle_like {
namespace platform {
namespace collective {

const char* ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kMax: return "max";
    case ReduceOp::kMin: return "min";
    default: return "prod";
  }
}

std::string Communicator::Describe() const {
  return "ring " + std::to_string(ring_id()) + " (rank " + std::to_string(rank()) + " of " +
         std::to_string(nranks()) + ")";
}

Communicator::~Communicator() { StopWorker(); }

std::shared_ptr<Allocation> Communicator::SharedBuffer(size_t) { return nullptr; }

bool Communicator::IsSharedBuffer(const void*, size_t) const { return false; }

bool Communicator::NoteInPlaceAllReduce(const std::shared_ptr<Allocation>& holder) {
  constexpr size_t kRemembered = 64;
  auto same = [&](const std::weak_ptr<Allocation>& w) {
    return !w.owner_before(holder) && !holder.owner_before(w);
  };
  if (std::any_of(reduced_in_place_.begin(), reduced_in_place_.end(), same)) return true;
  reduced_in_place_.erase(
      std::remove_if(reduced_in_place_.begin(), reduced_in_place_.end(),
                     [](const std::weak_ptr<Allocation>& w) { return w.expired(); }),
      reduced_in_place_.end());
  if (reduced_in_place_.size() >= kRemembered) reduced_in_place_.erase(reduced_in_place_.begin());
  reduced_in_place_.push_back(holder);
  return false;
}

void Communicator::StopWorker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void Communicator::Submit(std::function<void(Communicator*)> work) {
  std::unique_lock<std::mutex> lock(mu_);
  if (error_ != nullptr) std::rethrow_exception(error_);
  if (!worker_.joinable()) worker_ = std::thread([this] { WorkerLoop(); });
  queue_.push_back(std::move(work));
  changed_.notify_all();
}

void Communicator::WaitAll() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [this] { return (queue_.empty() && !busy_) || stopping_; });
  if (error_ != nullptr) std::rethrow_exception(error_);
}

void Communicator::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    changed_.wait(lock, [this] { return !queue_.empty() || stopping_; });
    if (queue_.empty()) return;  // Stopping with nothing left.
    std::function<void(Communicator*)> work = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    const bool skip = error_ != nullptr;  // After a failure the ring is unusable.
    lock.unlock();
    std::exception_ptr failed;
    if (!skip) {
      try {
        work(this);
      } catch (...) {
        failed = std::current_exception();
      }
    }
    lock.lock();
    busy_ = false;
    if (failed != nullptr && error_ == nullptr) error_ = failed;
    changed_.notify_all();
  }
}

bool IsReducibleType(DataType dtype) {
  switch (dtype) {
    case DataType::FLOAT32: case DataType::FLOAT64: case DataType::FLOAT16:
    case DataType::BFLOAT16: case DataType::INT32: case DataType::INT64: case DataType::INT8:
    case DataType::UINT8:
      return true;
    default:
      return false;
  }
}

}  // namespace collective
}  // namespace platform
}  // namespace paddle_like

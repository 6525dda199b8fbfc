// Variable: a named slot in a Scope holding one object of a registered type (DenseTensor,
// SelectedRows, FeedList, FetchList, DenseTensorArray). The held type is fixed by the first
// GetMutable<T>().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "framework/dense_tensor.h"
#include "framework/selected_rows.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {

// Holder of the `feed` variable: the column `col` of feed op i is element col.
using FeedList = std::vector<DenseTensor>;
// Holder of the `fetch` variable.
using FetchList = std::vector<DenseTensor>;

// VarType.Type number of each holdable type (FORMATS.md 1.6).
template <typename T>
struct VarTypeOf;
template <>
struct VarTypeOf<DenseTensor> {
  static constexpr int value = 7;
};
template <>
struct VarTypeOf<SelectedRows> {
  static constexpr int value = 8;
};
// FeedList and FetchList are the same C++ type; one tag covers both.
template <>
struct VarTypeOf<std::vector<DenseTensor>> {
  static constexpr int value = 9;
};

// A tensor array (LOD_TENSOR_ARRAY): the lists that write_to_array grows, as the loops of
// control-flow programs fill them.
struct DenseTensorArray : std::vector<DenseTensor> {
  using std::vector<DenseTensor>::vector;
};
template <>
struct VarTypeOf<DenseTensorArray> {
  static constexpr int value = 13;
};

const char* VarTypeName(int var_type);

class Variable;
// What a variable holds, for messages: VarTypeName of its type, or "nothing" when empty.
const char* HeldTypeName(const Variable& var);

class Variable {
 public:
  Variable() = default;
  Variable(const Variable&) = delete;
  Variable& operator=(const Variable&) = delete;

  bool IsInitialized() const { return holder_ != nullptr; }
  // Counts the writable accesses (GetMutable, Clear): every op output, feed and load goes
  // through them, so state derived from the contents (a kernel's pre-packed weights) is
  // stale once this changes. A caller that keeps a DenseTensor* and writes through it
  // later bypasses the count and must not expect prepared programs to see the change.
  uint64_t version() const { return version_; }
  int Type() const { return holder_ ? holder_->type : -1; }

  template <typename T>
  bool IsType() const {
    return holder_ != nullptr && holder_->type == VarTypeOf<T>::value;
  }

  template <typename T>
  const T& Get() const {
    PL_ENFORCE(holder_ != nullptr,
               errors::PreconditionNotMet("variable holds nothing, expected %s",
                                          VarTypeName(VarTypeOf<T>::value)));
    PL_ENFORCE(IsType<T>(), errors::InvalidArgument("variable holds %s, expected %s",
                                                    VarTypeName(holder_->type),
                                                    VarTypeName(VarTypeOf<T>::value)));
    return static_cast<const Holder<T>*>(holder_.get())->obj;
  }

  // The held T, or nullptr when the variable holds nothing or something else: the checks
  // of IsType and Get in one, for the run path.
  template <typename T>
  const T* GetIf() const {
    return IsType<T>() ? &static_cast<const Holder<T>*>(holder_.get())->obj : nullptr;
  }

  template <typename T>
  T* GetMutable() {
    ++version_;
    if (holder_ == nullptr) {
      holder_ = std::make_unique<Holder<T>>();
    } else {
      PL_ENFORCE(IsType<T>(), errors::InvalidArgument("variable holds %s, cannot be used as %s",
                                                      VarTypeName(holder_->type),
                                                      VarTypeName(VarTypeOf<T>::value)));
    }
    return &static_cast<Holder<T>*>(holder_.get())->obj;
  }

  void Clear() {
    ++version_;
    holder_.reset();
  }

 private:
  struct HolderBase {
    explicit HolderBase(int t) : type(t) {}
    virtual ~HolderBase() = default;
    int type;
  };
  template <typename T>
  struct Holder : HolderBase {
    Holder() : HolderBase(VarTypeOf<T>::value) {}
    T obj;
  };
  std::unique_ptr<HolderBase> holder_;
  uint64_t version_ = 0;
};

// The dense tensor a variable holds: the DenseTensor itself, or a SelectedRows' value;
// nullptr for other contents or an empty variable.
inline const DenseTensor* TensorOf(const Variable& var) {
  if (const DenseTensor* t = var.GetIf<DenseTensor>()) return t;
  if (const SelectedRows* rows = var.GetIf<SelectedRows>()) return &rows->value();
  return nullptr;
}

}  // namespace framework
}  // namespace paddle_like

// SlotMap: the variables bound to an op's input or output slots, by slot name.
//
// A sorted vector with each name's hash beside it: iteration is in name order, as over a
// std::map, and find(NameRef) compares hashes (a literal's is folded at compile time), so a
// kernel reaching its slots on the run path builds no string and walks no tree. Ops have a
// handful of slots; a linear scan beats a search at that size.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "framework/name_ref.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {

class Variable;

class SlotMap {
 public:
  using value_type = std::pair<std::string, std::vector<Variable*>>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  iterator begin() { return slots_.begin(); }
  iterator end() { return slots_.end(); }
  const_iterator begin() const { return slots_.begin(); }
  const_iterator end() const { return slots_.end(); }
  size_t size() const { return slots_.size(); }
  bool empty() const { return slots_.empty(); }

  const_iterator find(NameRef name) const { return slots_.begin() + IndexOf(name); }
  iterator find(NameRef name) { return slots_.begin() + IndexOf(name); }
  size_t count(NameRef name) const { return IndexOf(name) < slots_.size() ? 1 : 0; }

  // The slot's variables; NotFoundError when the op has no such slot.
  const std::vector<Variable*>& at(NameRef name) const {
    const size_t k = IndexOf(name);
    PL_ENFORCE(k < slots_.size(), errors::NotFound("no slot `%s`", name.c_str()));
    return slots_[k].second;
  }
  std::vector<Variable*>& at(NameRef name) {
    return const_cast<std::vector<Variable*>&>(static_cast<const SlotMap&>(*this).at(name));
  }
  // The slot's variables, adding the slot (empty, in name order) when absent.
  std::vector<Variable*>& operator[](NameRef name) {
    const size_t k = IndexOf(name);
    if (k < slots_.size()) return slots_[k].second;
    const std::string key = name.str();
    auto pos = std::lower_bound(slots_.begin(), slots_.end(), key,
                                [](const value_type& a, const std::string& b) { return a.first < b; });
    const size_t at = static_cast<size_t>(pos - slots_.begin());
    slots_.insert(pos, value_type(key, {}));
    hashes_.insert(hashes_.begin() + static_cast<std::ptrdiff_t>(at), name.hash());
    return slots_[at].second;
  }

 private:
  // The slot's position, or size() when absent.
  size_t IndexOf(NameRef name) const {
    for (size_t k = 0; k < hashes_.size(); ++k) {
      if (name.Matches(hashes_[k], slots_[k].first)) return k;
    }
    return slots_.size();
  }

  std::vector<value_type> slots_;  // Sorted by name.
  std::vector<uint64_t> hashes_;   // HashName of each slot's name, in the same order.
};

}  // namespace framework
}  // namespace paddle_like

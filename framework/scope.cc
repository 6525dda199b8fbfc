#include "framework/scope.h"

#include <algorithm>
#include <mutex>

namespace paddle_like {
namespace framework {

Scope::~Scope() = default;

Variable* Scope::Var(const std::string& name) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  auto& slot = vars_[name];
  if (slot == nullptr) slot = std::make_unique<Variable>();
  return slot.get();
}

Variable* Scope::FindLocalVarLocked(const std::string& name) const {
  auto it = vars_.find(name);
  return it == vars_.end() ? nullptr : it->second.get();
}

Variable* Scope::FindLocalVar(const std::string& name) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return FindLocalVarLocked(name);
}

Variable* Scope::FindVar(const std::string& name) const {
  for (const Scope* s = this; s != nullptr; s = s->parent_) {
    if (Variable* v = s->FindLocalVar(name)) return v;
  }
  return nullptr;
}

const Scope* Scope::FindScope(const std::string& name) const {
  for (const Scope* s = this; s != nullptr; s = s->parent_) {
    if (s->FindLocalVar(name) != nullptr) return s;
  }
  return nullptr;
}

Scope& Scope::NewScope() {
  std::unique_lock<std::shared_mutex> lock(mu_);
  kids_.push_back(std::make_unique<Scope>());
  kids_.back()->parent_ = this;
  return *kids_.back();
}

void Scope::DeleteScope(Scope* kid) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  kids_.remove_if([kid](const std::unique_ptr<Scope>& s) { return s.get() == kid; });
}

void Scope::DropKids() {
  std::unique_lock<std::shared_mutex> lock(mu_);
  kids_.clear();
}

void Scope::EraseVars(const std::vector<std::string>& names) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  for (const auto& n : names) vars_.erase(n);
}

std::vector<std::string> Scope::LocalVarNames() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  std::vector<std::string> names;
  names.reserve(vars_.size());
  for (const auto& kv : vars_) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace framework
}  // namespace paddle_like

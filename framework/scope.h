// Scope: a hierarchy of name -> Variable maps. Lookups fall back to the parent; creation is
// local. Persistable variables (parameters) live in a root scope shared by runs and
// predictors; each run's temporaries live in a kid scope.
//
// Thread-safe: Var/FindVar/NewScope may be called concurrently. A Scope owns its kids and
// its variables; pointers stay valid until the variable is erased or the scope destroyed.
#pragma once

#include <list>
#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/variable.h"

namespace paddle_like {
namespace framework {

class Scope {
 public:
  Scope() = default;
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  // Finds `name` in this scope only, or creates it here.
  Variable* Var(const std::string& name);
  // Finds `name` here or in an ancestor; nullptr if absent.
  Variable* FindVar(const std::string& name) const;
  Variable* FindLocalVar(const std::string& name) const;
  // The scope (this or an ancestor) that holds `name`, or nullptr.
  const Scope* FindScope(const std::string& name) const;

  // Creates a kid scope owned by this one.
  Scope& NewScope();
  void DeleteScope(Scope* kid);
  void DropKids();

  void EraseVars(const std::vector<std::string>& names);
  std::vector<std::string> LocalVarNames() const;
  const Scope* parent() const { return parent_; }

 private:
  Variable* FindLocalVarLocked(const std::string& name) const;

  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<Variable>> vars_;
  std::list<std::unique_ptr<Scope>> kids_;
  const Scope* parent_ = nullptr;
};

}  // namespace framework
}  // namespace paddle_like

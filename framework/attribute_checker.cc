#include "framework/attribute_checker.h"

#include "platform/enforce.h"

namespace paddle_like {
namespace framework {

AttributeChecker::Entry* AttributeChecker::Find(const std::string& name) {
  for (auto& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

void AttributeChecker::Declare(const std::string& name, AttrType type) {
  PL_ENFORCE(Find(name) == nullptr,
             errors::AlreadyExists("attribute `%s` is declared twice", name));
  entries_.push_back(Entry{name, type});
}

void AttributeChecker::SetDefault(const std::string& name, const Attribute& value) {
  Entry* e = Find(name);
  PL_ENFORCE(e != nullptr, errors::NotFound("attribute `%s` is not declared", name));
  e->has_default = true;
  e->default_value = value;
}

void AttributeChecker::AddValidator(const std::string& name, Validator validator) {
  Entry* e = Find(name);
  PL_ENFORCE(e != nullptr, errors::NotFound("attribute `%s` is not declared", name));
  e->validators.push_back(std::move(validator));
}

void AttributeChecker::Check(const std::string& op_type, AttributeMap* attrs) const {
  for (const auto& e : entries_) {
    auto it = attrs->find(e.name);
    if (it == attrs->end()) {
      PL_ENFORCE(e.has_default,
                 errors::InvalidArgument("op `%s` attribute `%s`: required %s attribute is missing",
                                         op_type, e.name, AttrTypeName(e.type)));
      attrs->emplace(e.name, e.default_value);
      continue;
    }
    if (GetAttrType(it->second) != e.type) {
      Attribute coerced;
      PL_ENFORCE(CoerceAttribute(it->second, e.type, &coerced),
                 errors::InvalidArgument("op `%s` attribute `%s`: expected type %s, received %s %s",
                                         op_type, e.name, AttrTypeName(e.type),
                                         AttrTypeName(GetAttrType(it->second)),
                                         AttrToString(it->second)));
      it->second = std::move(coerced);
    }
    for (const auto& v : e.validators) v(op_type, e.name, it->second);
  }
}

}  // namespace framework
}  // namespace paddle_like

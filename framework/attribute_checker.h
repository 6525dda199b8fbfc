// AttributeChecker: completes and validates an op's attributes when the op is created.
// Missing attributes get their registered default (a missing attribute without a default is
// an error); values of a convertible type are coerced (an INT stored for a BOOLEAN, as old
// programs do); range and enum constraints are checked. Unknown attributes are kept, so
// programs saved by newer producers still load.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "framework/attribute.h"

namespace paddle_like {
namespace framework {

class AttributeChecker {
 public:
  // Throws InvalidArgumentError naming `op_type` and the attribute.
  using Validator = std::function<void(const std::string& op_type, const std::string& attr,
                                       const Attribute& value)>;

  void Declare(const std::string& name, AttrType type);
  void SetDefault(const std::string& name, const Attribute& value);
  void AddValidator(const std::string& name, Validator validator);

  // Fills defaults, coerces and validates `attrs` in place.
  void Check(const std::string& op_type, AttributeMap* attrs) const;

 private:
  struct Entry {
    std::string name;
    AttrType type;
    bool has_default = false;
    Attribute default_value;
    std::vector<Validator> validators;
  };
  Entry* Find(const std::string& name);
  std::vector<Entry> entries_;
};

}  // namespace framework
}  // namespace paddle_like

// The table of PIR op translations (framework/pir/pir_op_table.h) against the registered
// ProgramDesc ops: every entry's op is registered, and every input and output slot, attribute
// operand, renamed and fixed attribute it names is declared by that op. The translation drops
// a result whose slot the op lacks and an attribute the op does not declare (PIR-only ones),
// so a misspelt name would otherwise lose an output or an attribute's value without an error.
#include "framework/pir/pir_op_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "framework/op_info.h"
#include "operators/registry.h"

namespace paddle_like {
namespace testing {
namespace {

using framework::OpInfoMap;
using framework::OpSpec;
using framework::pir::AllOpTranslations;
using framework::pir::OpTranslation;

std::string Strip(std::string slot) {
  if (!slot.empty() && slot.back() == '*') slot.pop_back();
  return slot;
}

// The slots and the attribute of one operand role ("Slot", "Slot*", "@attr",
// "@attr|Slot", "@attr|Slot|ListSlot", "").
struct Role {
  std::string attr;
  std::vector<std::string> slots;
};

Role ParseRole(const std::string& role) {
  Role r;
  if (role.empty()) return r;
  if (role[0] != '@') {
    r.slots.push_back(Strip(role));
    return r;
  }
  size_t bar = role.find('|');
  r.attr = role.substr(1, bar == std::string::npos ? std::string::npos : bar - 1);
  while (bar != std::string::npos) {
    const size_t next = role.find('|', bar + 1);
    r.slots.push_back(Strip(
        role.substr(bar + 1, next == std::string::npos ? std::string::npos : next - bar - 1)));
    bar = next;
  }
  return r;
}

TEST(PirOpTable, EveryNameAnEntryUsesIsDeclaredByItsOp) {
  operators::RegisterAllOps();
  const std::vector<const OpTranslation*> all = AllOpTranslations();
  ASSERT_GT(all.size(), 300u);
  for (const OpTranslation* t : all) {
    SCOPED_TRACE("pd_op." + t->pir_name + " -> " + t->legacy_type);
    ASSERT_TRUE(OpInfoMap::Instance().Has(t->legacy_type));
    const OpSpec& spec = OpInfoMap::Instance().Get(t->legacy_type).spec;
    for (const std::string& role : t->operands) {
      const Role r = ParseRole(role);
      if (!r.attr.empty()) {
        EXPECT_NE(spec.FindAttr(r.attr), nullptr) << "attribute operand `" << r.attr << "`";
      }
      for (const std::string& slot : r.slots) {
        EXPECT_NE(spec.FindInput(slot), nullptr) << "input `" << slot << "`";
      }
    }
    for (const std::string& result : t->results) {
      if (result.empty()) continue;
      EXPECT_NE(spec.FindOutput(Strip(result)), nullptr) << "output `" << result << "`";
    }
    for (const auto& [from, to] : t->renamed_attrs) {
      EXPECT_NE(spec.FindAttr(to), nullptr) << "attribute `" << from << "` renamed `" << to << "`";
    }
    for (const auto& [name, value] : t->fixed_attrs) {
      EXPECT_NE(spec.FindAttr(name), nullptr) << "fixed attribute `" << name << "`";
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace paddle_like

// How kernels reach slots and attributes by name on the run path: NameRef (a name with its
// hash), SlotMap (an op's slots) and OperatorBase's attribute index.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "framework/name_ref.h"
#include "framework/op_registry.h"
#include "framework/slot_map.h"
#include "framework/variable.h"
#include "operators/registry.h"
#include "tests/op_test_util.h"

namespace paddle_like {
namespace {

using framework::HashName;
using testing::ExpectError;
using framework::NameRef;
using framework::SlotMap;
using framework::Variable;

// A literal's hash is a compile-time constant.
static_assert(NameRef("Out@GRAD").hash() == HashName("Out@GRAD", 8), "hash of a literal");
static_assert(NameRef("X").size() == 1, "size of a literal");

TEST(NameRef, EverySpellingOfANameIsTheSameName) {
  const std::string owned = "Out@GRAD";
  const char* pointer = owned.c_str();
  char buffer[32] = "Out@GRAD";  // A buffer longer than its string.
  const NameRef names[] = {NameRef("Out@GRAD"), NameRef(owned), NameRef(pointer),
                           NameRef(buffer)};
  for (const NameRef& n : names) {
    EXPECT_EQ(n.size(), 8u);
    EXPECT_EQ(n.hash(), HashName("Out@GRAD", 8));
    EXPECT_EQ(n.str(), "Out@GRAD");
    EXPECT_STREQ(n.c_str(), "Out@GRAD");
    EXPECT_TRUE(n.Matches(HashName("Out@GRAD", 8), owned));
    // Same hash claimed for another name: the characters decide.
    EXPECT_FALSE(n.Matches(HashName("Out@GRAD", 8), "Out@GRAF"));
    EXPECT_FALSE(n.Matches(HashName("Out", 3), "Out"));
  }
  EXPECT_EQ(NameRef("").size(), 0u);
  EXPECT_NE(NameRef("ab").hash(), NameRef("ba").hash());
}

TEST(SlotMap, KeepsSlotsInNameOrderAndFindsThemByName) {
  Variable a, b, c;
  SlotMap slots;
  slots["Y"].push_back(&b);
  slots["X"].push_back(&a);
  slots[std::string("Bias")].push_back(&c);
  slots["X"].push_back(&c);  // An existing slot: no second entry.
  std::vector<std::string> order;
  for (const auto& kv : slots) order.push_back(kv.first);
  EXPECT_EQ(order, (std::vector<std::string>{"Bias", "X", "Y"}));
  ASSERT_EQ(slots.size(), 3u);
  EXPECT_EQ(slots.at("X"), (std::vector<Variable*>{&a, &c}));
  EXPECT_EQ(slots.at(std::string("Y")), (std::vector<Variable*>{&b}));
  EXPECT_EQ(slots.count("Bias"), 1u);
  EXPECT_EQ(slots.count("B"), 0u);
  EXPECT_EQ(slots.count("XX"), 0u);
  EXPECT_TRUE(slots.find("Z") == slots.end());
  EXPECT_EQ(slots.find("Y")->second[0], &b);
  ExpectError<platform::NotFoundError>([&] { slots.at("Scale"); }, {"no slot `Scale`"});
  const SlotMap copy = slots;
  EXPECT_EQ(copy.at("Bias"), (std::vector<Variable*>{&c}));
}

TEST(OperatorAttributes, FoundByNameWithTheirTypeChecked) {
  operators::RegisterAllOps();
  auto op = framework::OpRegistry::CreateOp("quadratic", {{"X", {"x"}}}, {{"Out", {"y"}}},
                                            {{"a", 2.5f}, {"b", -1.0f}});
  EXPECT_EQ(op->Attr<float>("a"), 2.5f);
  EXPECT_EQ(op->Attr<float>(std::string("b")), -1.0f);
  EXPECT_EQ(op->Attr<float>("c"), 0.0f);  // Filled with its default.
  EXPECT_TRUE(op->HasAttr("c"));
  EXPECT_FALSE(op->HasAttr("d"));
  ExpectError<platform::NotFoundError>([&] { op->Attr<float>("d"); },
                                       {"op `quadratic` has no attribute `d`"});
  ExpectError<platform::InvalidArgumentError>(
      [&] { op->Attr<int>("a"); },
      {"op `quadratic` attribute `a`: expected type INT, received FLOAT"});
}

}  // namespace
}  // namespace paddle_like

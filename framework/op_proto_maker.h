// OpProtoAndCheckerMaker: an op's declaration of its slots, attributes and doc. Subclass it
// and implement Make():
//
//   class QuadraticOpMaker : public OpProtoAndCheckerMaker {
//     void Make() override {
//       AddInput("X", "input tensor");
//       AddOutput("Out", "a*X^2 + b*X + c");
//       AddAttr<float>("a", "coefficient of X^2").SetDefault(0.0f);
//       AddComment(R"DOC(Out = a * X^2 + b * X + c, elementwise.)DOC");
//     }
//   };
//
// Every op also gets PaddlePaddle's framework attributes (op_role, op_role_var,
// op_namescope, op_callstack, op_device, with_quant_attr) as extra attributes.
#pragma once

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "framework/attribute_checker.h"
#include "framework/op_spec.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {

// Values of the `op_role` attribute (FORMATS.md 3.2).
enum class OpRole : int {
  kForward = 0x0000,
  kBackward = 0x0001,
  kOptimize = 0x0002,
  kLRSched = 0x0010,
  kLoss = 0x0100,
  kNotSpecified = 0x1000,
};

// Builders name their slot or attribute by its index in the spec's list, never by pointer:
// a builder kept across a later AddInput/AddAttr (which may grow the list and move its
// elements) still reaches the right entry.
class SlotBuilder {
 public:
  SlotBuilder(std::vector<OpSlotSpec>* slots, size_t index) : slots_(slots), index_(index) {}
  SlotBuilder& AsDuplicable() { slot().duplicable = true; return *this; }
  SlotBuilder& AsDispensable() { slot().dispensable = true; return *this; }
  SlotBuilder& AsIntermediate() { slot().intermediate = true; return *this; }
  SlotBuilder& AsExtra() { slot().extra = true; return *this; }
  // Only the variable's dims, dtype and LoD are read (see OpSlotSpec::no_need_buffer).
  SlotBuilder& AsNoNeedBuffer() { slot().no_need_buffer = true; return *this; }

 private:
  OpSlotSpec& slot() { return (*slots_)[index_]; }

  std::vector<OpSlotSpec>* slots_;
  size_t index_;
};

template <typename T>
class AttrBuilder {
 public:
  AttrBuilder(std::vector<OpAttrSpec>* attrs, size_t index, AttributeChecker* checker)
      : attrs_(attrs), index_(index), checker_(checker) {}

  AttrBuilder& SetDefault(const T& value) {
    spec().has_default = true;
    spec().default_value = value;
    checker_->SetDefault(spec().name, value);
    return *this;
  }
  AttrBuilder& AsExtra() {
    spec().extra = true;
    return *this;
  }
  // Inclusive range check for numeric attributes (each element for lists).
  template <typename V>
  AttrBuilder& InRange(V lo, V hi) {
    AddConstraint("in [" + Str(lo) + ", " + Str(hi) + "]");
    checker_->AddValidator(spec().name, [lo, hi](const std::string& op, const std::string& name,
                                                 const Attribute& a) {
      ForEachNumber(a, [&](double v) {
        PL_ENFORCE(v >= static_cast<double>(lo) && v <= static_cast<double>(hi),
                   errors::InvalidArgument("op `%s` attribute `%s`: expected a value in [%s, %s], received %s",
                                           op, name, Str(lo), Str(hi), Str(v)));
      });
    });
    return *this;
  }
  template <typename V>
  AttrBuilder& GreaterThan(V lo) {
    AddConstraint("> " + Str(lo));
    checker_->AddValidator(spec().name, [lo](const std::string& op, const std::string& name,
                                             const Attribute& a) {
      ForEachNumber(a, [&](double v) {
        PL_ENFORCE(v > static_cast<double>(lo),
                   errors::InvalidArgument("op `%s` attribute `%s`: expected a value > %s, received %s",
                                           op, name, Str(lo), Str(v)));
      });
    });
    return *this;
  }
  // The value must be one of `allowed` (strings or integers).
  AttrBuilder& InEnum(const std::vector<T>& allowed) {
    std::string list;
    for (const auto& v : allowed) list += (list.empty() ? "" : ", ") + Str(v);
    AddConstraint("one of {" + list + "}");
    checker_->AddValidator(spec().name, [allowed, list](const std::string& op,
                                                        const std::string& name,
                                                        const Attribute& a) {
      const T& v = std::get<T>(a);
      for (const auto& ok : allowed) {
        if (ok == v) return;
      }
      throw errors::InvalidArgument("op `%s` attribute `%s`: expected one of {%s}, received %s", op,
                                    name, list, Str(v));
    });
    return *this;
  }

 private:
  template <typename V>
  static std::string Str(const V& v) {
    std::ostringstream os;
    os << v;
    return os.str();
  }
  template <typename Fn>
  static void ForEachNumber(const Attribute& a, Fn&& fn) {
    std::visit(
        [&](const auto& v) {
          using U = std::decay_t<decltype(v)>;
          if constexpr (std::is_arithmetic_v<U>) {
            fn(static_cast<double>(v));
          } else if constexpr (std::is_same_v<U, std::vector<int>> ||
                               std::is_same_v<U, std::vector<int64_t>> ||
                               std::is_same_v<U, std::vector<float>> ||
                               std::is_same_v<U, std::vector<double>>) {
            for (auto x : v) fn(static_cast<double>(x));
          }
        },
        a);
  }
  void AddConstraint(const std::string& c) {
    spec().constraint += (spec().constraint.empty() ? "" : "; ") + c;
  }
  OpAttrSpec& spec() { return (*attrs_)[index_]; }

  std::vector<OpAttrSpec>* attrs_;
  size_t index_;
  AttributeChecker* checker_;
};

// Whether `name` is one of the attributes every op gets from the framework (op_role,
// op_namescope, op_device ...), which describe where an op sits rather than what it computes.
bool IsFrameworkAttr(const std::string& name);

class OpProtoAndCheckerMaker {
 public:
  virtual ~OpProtoAndCheckerMaker() = default;
  virtual void Make() = 0;

  // Runs Make() and the framework additions, filling `spec` and `checker`.
  void Build(const std::string& op_type, OpSpec* spec, AttributeChecker* checker);

 protected:
  SlotBuilder AddInput(const std::string& name, const std::string& comment);
  SlotBuilder AddOutput(const std::string& name, const std::string& comment);
  template <typename T>
  AttrBuilder<T> AddAttr(const std::string& name, const std::string& comment) {
    return AttrBuilder<T>(&spec_->attrs, NewAttr(name, comment, AttrTypeOf<T>()), checker_);
  }
  void AddComment(const std::string& comment);

 private:
  // Declares the attribute and returns its index in spec_->attrs.
  size_t NewAttr(const std::string& name, const std::string& comment, AttrType type);
  void AddFrameworkAttrs();

  OpSpec* spec_ = nullptr;
  AttributeChecker* checker_ = nullptr;
};

}  // namespace framework
}  // namespace paddle_like

#include "framework/op_desc.h"

#include "framework/framework.pb.h"

namespace paddle_like {
namespace framework {

namespace {
const std::vector<std::string>& EmptyNames() {
  static const std::vector<std::string> kEmpty;
  return kEmpty;
}

Scalar ScalarFromProto(const proto::Scalar& s) {
  Scalar out;
  out.type = static_cast<Scalar::Type>(s.type());
  out.b = s.b();
  out.i = s.i();
  out.r = s.r();
  if (s.has_c()) {
    out.c_real = s.c().r();
    out.c_imag = s.c().i();
  }
  return out;
}

void ScalarToProto(const Scalar& s, proto::Scalar* out) {
  out->set_type(static_cast<proto::Scalar::Type>(s.type));
  switch (s.type) {
    case Scalar::Type::BOOLEAN: out->set_b(s.b); break;
    case Scalar::Type::LONG: out->set_i(s.i); break;
    case Scalar::Type::FLOAT64: out->set_r(s.r); break;
    case Scalar::Type::COMPLEX128:
      out->mutable_c()->set_r(s.c_real);
      out->mutable_c()->set_i(s.c_imag);
      break;
  }
}

Attribute AttrFromProto(const proto::OpDesc::Attr& a, const std::string& op_type) {
  switch (a.type()) {
    case proto::INT: return a.i();
    case proto::FLOAT: return a.f();
    case proto::STRING: return a.s();
    case proto::INTS: return std::vector<int>(a.ints().begin(), a.ints().end());
    case proto::FLOATS: return std::vector<float>(a.floats().begin(), a.floats().end());
    case proto::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case proto::BOOLEAN: return a.b();
    case proto::BOOLEANS: return std::vector<bool>(a.bools().begin(), a.bools().end());
    case proto::BLOCK: return BlockIndex{a.block_idx()};
    case proto::LONG: return static_cast<int64_t>(a.l());
    case proto::BLOCKS: return BlockIndices{std::vector<int>(a.blocks_idx().begin(), a.blocks_idx().end())};
    case proto::LONGS: return std::vector<int64_t>(a.longs().begin(), a.longs().end());
    case proto::FLOAT64S: return std::vector<double>(a.float64s().begin(), a.float64s().end());
    case proto::VAR: return VarName{a.var_name()};
    case proto::VARS: return VarNames{std::vector<std::string>(a.vars_name().begin(), a.vars_name().end())};
    case proto::FLOAT64: return a.float64();
    case proto::SCALAR: return ScalarFromProto(a.scalar());
    case proto::SCALARS: {
      std::vector<Scalar> v;
      for (const auto& s : a.scalars()) v.push_back(ScalarFromProto(s));
      return v;
    }
  }
  throw errors::InvalidArgument("op `%s` attribute `%s`: unknown attribute type %d", op_type,
                                a.name(), static_cast<int>(a.type()));
}

void AttrToProto(const std::string& name, const Attribute& attr, proto::OpDesc::Attr* out) {
  out->set_name(name);
  out->set_type(static_cast<proto::AttrType>(attr.index()));
  std::visit(
      [out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int>) out->set_i(v);
        else if constexpr (std::is_same_v<T, float>) out->set_f(v);
        else if constexpr (std::is_same_v<T, std::string>) out->set_s(v);
        else if constexpr (std::is_same_v<T, std::vector<int>>) for (int x : v) out->add_ints(x);
        else if constexpr (std::is_same_v<T, std::vector<float>>) for (float x : v) out->add_floats(x);
        else if constexpr (std::is_same_v<T, std::vector<std::string>>) for (const auto& x : v) out->add_strings(x);
        else if constexpr (std::is_same_v<T, bool>) out->set_b(v);
        else if constexpr (std::is_same_v<T, std::vector<bool>>) for (bool x : v) out->add_bools(x);
        else if constexpr (std::is_same_v<T, BlockIndex>) out->set_block_idx(v.idx);
        else if constexpr (std::is_same_v<T, int64_t>) out->set_l(v);
        else if constexpr (std::is_same_v<T, BlockIndices>) for (int x : v.idx) out->add_blocks_idx(x);
        else if constexpr (std::is_same_v<T, std::vector<int64_t>>) for (int64_t x : v) out->add_longs(x);
        else if constexpr (std::is_same_v<T, std::vector<double>>) for (double x : v) out->add_float64s(x);
        else if constexpr (std::is_same_v<T, VarName>) out->set_var_name(v.name);
        else if constexpr (std::is_same_v<T, VarNames>) for (const auto& x : v.names) out->add_vars_name(x);
        else if constexpr (std::is_same_v<T, double>) out->set_float64(v);
        else if constexpr (std::is_same_v<T, Scalar>) ScalarToProto(v, out->mutable_scalar());
        else if constexpr (std::is_same_v<T, std::vector<Scalar>>) for (const auto& x : v) ScalarToProto(x, out->add_scalars());
      },
      attr);
}
}  // namespace

OpDesc::OpDesc(const std::string& type, const VariableNameMap& inputs,
               const VariableNameMap& outputs, const AttributeMap& attrs)
    : type_(type), inputs_(inputs), outputs_(outputs), attrs_(attrs) {}

OpDesc::OpDesc(const proto::OpDesc& desc, BlockDesc* block)
    : type_(desc.type()), is_target_(desc.is_target()), block_(block) {
  for (const auto& v : desc.inputs()) {
    inputs_[v.parameter()] = std::vector<std::string>(v.arguments().begin(), v.arguments().end());
  }
  for (const auto& v : desc.outputs()) {
    outputs_[v.parameter()] = std::vector<std::string>(v.arguments().begin(), v.arguments().end());
  }
  for (const auto& a : desc.attrs()) attrs_[a.name()] = AttrFromProto(a, type_);
}

const std::vector<std::string>& OpDesc::Input(const std::string& slot) const {
  auto it = inputs_.find(slot);
  return it == inputs_.end() ? EmptyNames() : it->second;
}

const std::vector<std::string>& OpDesc::Output(const std::string& slot) const {
  auto it = outputs_.find(slot);
  return it == outputs_.end() ? EmptyNames() : it->second;
}

void OpDesc::SetInput(const std::string& slot, const std::vector<std::string>& args) {
  inputs_[slot] = args;
}

void OpDesc::SetOutput(const std::string& slot, const std::vector<std::string>& args) {
  outputs_[slot] = args;
}

std::vector<std::string> OpDesc::InputArgumentNames() const {
  std::vector<std::string> names;
  for (const auto& kv : inputs_) names.insert(names.end(), kv.second.begin(), kv.second.end());
  return names;
}

std::vector<std::string> OpDesc::OutputArgumentNames() const {
  std::vector<std::string> names;
  for (const auto& kv : outputs_) names.insert(names.end(), kv.second.begin(), kv.second.end());
  return names;
}

void OpDesc::Rename(const std::string& old_name, const std::string& new_name) {
  for (auto* slots : {&inputs_, &outputs_}) {
    for (auto& kv : *slots) {
      for (auto& n : kv.second) {
        if (n == old_name) n = new_name;
      }
    }
  }
}

const Attribute& OpDesc::GetAttr(const std::string& name) const {
  auto it = attrs_.find(name);
  PL_ENFORCE(it != attrs_.end(),
             errors::NotFound("op `%s` has no attribute `%s`", type_, name));
  return it->second;
}

void OpDesc::ToProto(proto::OpDesc* out) const {
  out->Clear();
  out->set_type(type_);
  for (const auto& kv : inputs_) {
    auto* v = out->add_inputs();
    v->set_parameter(kv.first);
    for (const auto& a : kv.second) v->add_arguments(a);
  }
  for (const auto& kv : outputs_) {
    auto* v = out->add_outputs();
    v->set_parameter(kv.first);
    for (const auto& a : kv.second) v->add_arguments(a);
  }
  for (const auto& kv : attrs_) AttrToProto(kv.first, kv.second, out->add_attrs());
  if (is_target_) out->set_is_target(true);
}

}  // namespace framework
}  // namespace paddle_like

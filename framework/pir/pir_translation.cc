#include "framework/pir/pir_translation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "framework/inference_fused_ops.h"
#include "framework/op_info.h"
#include "framework/pir/pir_json.h"
#include "framework/pir/pir_op_table.h"
#include "framework/pir/pir_translator.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {
namespace pir {

using platform::DataType;

namespace {

// PaddlePaddle's oneDNN dialect mirrors pd_op (the same operands and results, more
// attributes): "onednn_op.add" is translated as "pd_op.add".
std::string AsPdOpName(const std::string& full_name) {
  const std::string onednn = "onednn_op.";
  if (full_name.compare(0, onednn.size(), onednn) != 0) return full_name;
  return "pd_op." + full_name.substr(onednn.size());
}

bool NumbersOf(const Attribute& a, Numbers* n) {
  auto add_int = [&](int64_t v) {
    n->ints.push_back(v);
    n->reals.push_back(static_cast<double>(v));
  };
  // PIR keeps some integer lists as doubles (assign_value's `values`): a whole number stays
  // usable where an integer is read.
  auto add_real = [&](double v) {
    const bool whole = std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 9.2e18;
    n->reals.push_back(v);
    n->ints.push_back(whole ? static_cast<int64_t>(v) : 0);
    n->integral = n->integral && whole;
  };
  switch (GetAttrType(a)) {
    case AttrType::INT:
      add_int(std::get<int>(a));
      return true;
    case AttrType::LONG:
      add_int(std::get<int64_t>(a));
      return true;
    case AttrType::BOOLEAN:
      add_int(std::get<bool>(a) ? 1 : 0);
      return true;
    case AttrType::FLOAT:
      add_real(std::get<float>(a));
      return true;
    case AttrType::FLOAT64:
      add_real(std::get<double>(a));
      return true;
    case AttrType::INTS:
      for (int v : std::get<std::vector<int>>(a)) add_int(v);
      break;
    case AttrType::LONGS:
      for (int64_t v : std::get<std::vector<int64_t>>(a)) add_int(v);
      break;
    case AttrType::BOOLEANS:
      for (bool v : std::get<std::vector<bool>>(a)) add_int(v);
      break;
    case AttrType::FLOATS:
      for (float v : std::get<std::vector<float>>(a)) add_real(v);
      break;
    case AttrType::FLOAT64S:
      for (double v : std::get<std::vector<double>>(a)) add_real(v);
      break;
    default:
      return false;
  }
  n->list = true;
  return true;
}

bool FitsInt(int64_t v) {
  return v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max();
}

// `value` as the type an op declares, narrowing where the value fits (PIR keeps int64 and
// double where a ProgramDesc op reads int and float). False when it cannot be expressed.
bool ToDeclaredType(const Attribute& value, AttrType target, Attribute* out) {
  if (CoerceAttribute(value, target, out)) return true;
  Numbers n;
  if (!NumbersOf(value, &n)) return false;
  const bool one = n.reals.size() == 1;
  switch (target) {
    case AttrType::INT:
      if (!one || !n.integral || !FitsInt(n.ints[0])) return false;
      *out = static_cast<int>(n.ints[0]);
      return true;
    case AttrType::LONG:
      if (!one || !n.integral) return false;
      *out = n.ints[0];
      return true;
    case AttrType::BOOLEAN:
      if (!one || !n.integral) return false;
      *out = n.ints[0] != 0;
      return true;
    case AttrType::FLOAT:
      if (!one) return false;
      *out = static_cast<float>(n.reals[0]);
      return true;
    case AttrType::FLOAT64:
      if (!one) return false;
      *out = n.reals[0];
      return true;
    case AttrType::INTS: {
      if (!n.integral) return false;
      std::vector<int> v;
      for (int64_t x : n.ints) {
        if (!FitsInt(x)) return false;
        v.push_back(static_cast<int>(x));
      }
      *out = v;
      return true;
    }
    case AttrType::LONGS:
      if (!n.integral) return false;
      *out = n.ints;
      return true;
    case AttrType::BOOLEANS: {
      if (!n.integral) return false;
      std::vector<bool> v;
      for (int64_t x : n.ints) v.push_back(x != 0);
      *out = v;
      return true;
    }
    case AttrType::FLOATS: {
      std::vector<float> v;
      for (double x : n.reals) v.push_back(static_cast<float>(x));
      *out = v;
      return true;
    }
    case AttrType::FLOAT64S:
      *out = n.reals;
      return true;
    default:
      return false;
  }
}

bool IsIntegral(DataType t) {
  return t == DataType::BOOL || t == DataType::INT8 || t == DataType::UINT8 ||
         t == DataType::INT16 || t == DataType::INT32 || t == DataType::INT64;
}

}  // namespace

ProgramDesc Translator::Run() {
  CheckEveryOpIsTranslated();
  CountReads(program_.ops, false);
  NameFetchedValues();
  DeclareFeedAndFetchVars();
  for (const pir::Op& op : program_.ops) Translate(op);
  RemoveUnusedConstants();
  // Feed ops first, in `col` order, as a ProgramDesc keeps them.
  std::sort(feeds_.begin(), feeds_.end());
  for (auto it = feeds_.rbegin(); it != feeds_.rend(); ++it) {
    OpDesc* feed = block_->PrependOp();
    feed->SetType("feed");
    feed->SetInput("X", {"feed"});
    feed->SetOutput("Out", {it->second});
    feed->SetAttr("col", it->first);
  }
  return std::move(desc_);
}

const std::map<std::string, Translator::Handler>& Translator::Handlers() {
  static const std::map<std::string, Handler> kHandlers = {
      {"builtin.parameter", &Translator::Parameter},
      {"builtin.combine", &Translator::Combine},
      {"builtin.split", &Translator::SplitVector},
      {"builtin.slice", &Translator::SliceVector},
      {"pd_op.data", &Translator::Data},
      {"pd_op.feed", &Translator::Data},
      {"pd_op.fetch", &Translator::Fetch},
      {"pd_op.full", &Translator::Full},
      {"pd_op.full_int_array", &Translator::FullIntArray},
      {"pd_op.assign_value", &Translator::AssignValue},
      {"pd_op.assign_value_", &Translator::AssignValue},
      {"pd_op.shape64", &Translator::Shape64},
      {"pd_op.arange", &Translator::Arange},
      {"pd_op.batch_norm", &Translator::BatchNorm},
      {"pd_op.batch_norm_", &Translator::BatchNorm},
      // A saved program is an inference one: synchronised statistics are batch_norm's
      // (as PaddlePaddle's sync_batch_norm_pass makes them).
      {"pd_op.fused_matmul", &Translator::InferenceFusedOp},
      {"pd_op.fused_elementwise_add", &Translator::InferenceFusedOp},
      {"pd_op.fused_elementwise_sub", &Translator::InferenceFusedOp},
      {"pd_op.fused_elementwise_mul", &Translator::InferenceFusedOp},
      {"pd_op.fused_elementwise_div", &Translator::InferenceFusedOp},
      {"pd_op.fused_conv2d", &Translator::InferenceFusedOp},
      {"pd_op.fused_conv3d", &Translator::InferenceFusedOp},
      {"pd_op.fused_softplus", &Translator::InferenceFusedOp},
      {"pd_op.conv2d_transpose_bias", &Translator::InferenceFusedOp},
      {"pd_op.depthwise_conv2d_bias", &Translator::InferenceFusedOp},
      {"pd_op.fused_conv2d_add_act", &Translator::InferenceFusedOp},
      {"pd_op.fused_transpose", &Translator::InferenceFusedOp},
      {"pd_op.skip_layernorm", &Translator::InferenceFusedOp},
      {"pd_op.fused_fc_elementwise_layernorm", &Translator::InferenceFusedOp},
      {"pd_op.fused_embedding_eltwise_layernorm", &Translator::InferenceFusedOp},
      {"pd_op.sync_batch_norm", &Translator::BatchNorm},
      {"pd_op.sync_batch_norm_", &Translator::BatchNorm},
      {"pd_op.if", &Translator::If},
      {"pd_op.while", &Translator::While},
      {"cf.yield", &Translator::YieldOutsideRegion},
      {"pd_op.select_input", &Translator::SelectInput},
      {"pd_op.assign_out_", &Translator::AssignOut},
      {"pd_op.create_array", &Translator::CreateArray},
      {"pd_op.array_write_", &Translator::ArrayWrite},
      {"pd_op.slice_array_dense", &Translator::SliceArrayDense},
      {"pd_op.pylayer", &Translator::PyLayer}};
  return kHandlers;
}

std::string Translator::Where(const pir::Op& op) const {
  return "PIR program `" + source_ + "`, " + op.location + " (`" + op.FullName() + "`)";
}

bool Translator::IsTranslatedControlFlow(const pir::Op& op) {
  return op.FullName() == "pd_op.if" || op.FullName() == "pd_op.while" ||
         op.FullName() == "pd_op.pylayer";
}

void Translator::CollectMissing(const std::vector<pir::Op>& ops,
                                std::map<std::string, Missing>* missing,
                                std::vector<std::string>* order) {
  for (const pir::Op& op : ops) {
    for (const pir::Region& region : op.regions) {
      for (const pir::Block& block : region.blocks) CollectMissing(block.ops, missing, order);
    }
    const bool translated =
        op.regions.empty() ? PirOpIsTranslated(op.FullName()) : IsTranslatedControlFlow(op);
    if (translated) continue;
    auto it = missing->find(op.FullName());
    if (it == missing->end()) {
      missing->emplace(op.FullName(), Missing{&op, 1});
      order->push_back(op.FullName());
    } else {
      ++it->second.count;
    }
  }
}

void Translator::CheckEveryOpIsTranslated() const {
  std::map<std::string, Missing> missing;
  std::vector<std::string> order;
  CollectMissing(program_.ops, &missing, &order);
  if (missing.empty()) return;
  std::string list;
  for (const auto& name : order) {
    const Missing& m = missing.at(name);
    list += (list.empty() ? "" : ", ") + m.first->location + " (`" + name + "`" +
            (m.first->regions.empty() ? "" : ", control flow") +
            (m.count > 1 ? ", " + std::to_string(m.count) + " times" : "") + ")";
  }
  throw errors::Unimplemented(
      "PIR program `%s`: no ProgramDesc op in paddle_like corresponds to %zu kind(s) of op in "
      "it: %s; the same model saved as a ProgramDesc (FLAGS_enable_pir_api=0) may run",
      source_, order.size(), list);
}

void Translator::NameFetchedValues() {
  std::map<int64_t, const pir::Op*> producer;
  for (const pir::Op& op : program_.ops) {
    for (const auto& r : op.results) producer[r.id] = &op;
  }
  for (const pir::Op& op : program_.ops) {
    if (op.name != "fetch" || op.operands.size() != 1) continue;
    const auto name = op.attrs.find("name");
    if (name == op.attrs.end() || GetAttrType(name->second.value) != AttrType::STRING) continue;
    const auto p = producer.find(op.operands[0]);
    if (p == producer.end()) continue;
    const std::string& kind = p->second->name;
    if (kind == "parameter" || kind == "data" || p->second->dialect == "builtin") continue;
    preferred_names_.emplace(op.operands[0], std::get<std::string>(name->second.value));
  }
}

void Translator::DeclareFeedAndFetchVars() {
  VarDesc* feed = block_->Var("feed");
  feed->SetKind(VarKind::kFeedMinibatch);
  feed->SetPersistable(true);
  VarDesc* fetch = block_->Var("fetch");
  fetch->SetKind(VarKind::kFetchList);
  fetch->SetPersistable(true);
}

const Value& Translator::Lookup(const pir::Op& op, size_t i) {
  const int64_t id = op.operands[i];
  const auto it = values_.find(id);
  PL_ENFORCE(it != values_.end(),
             errors::InvalidArgument("%s: operand %zu is value %lld, which no earlier op makes",
                                     Where(op), i, static_cast<long long>(id)));
  PL_ENFORCE(!it->second.dropped,
             errors::Unimplemented("%s: operand %zu is value %lld, a result that its "
                                   "ProgramDesc op does not produce",
                                   Where(op), i, static_cast<long long>(id)));
  return it->second;
}

void Translator::Declare(const std::string& name, const ValueType& type, BlockDesc* block) {
  VarDesc* var = (block != nullptr ? block : block_)->Var(name);
  if (type.is_array) {
    var->SetKind(VarKind::kDenseTensorArray);
    if (type.known) var->SetDataType(type.dtype);
    return;
  }
  if (!type.known || type.is_vector) return;
  var->SetDataType(type.dtype);
  var->SetShape(type.dims);
  var->SetLoDLevel(type.lod_level);
}

std::string Translator::NameFor(const pir::Op& op, int64_t id) const {
  const auto it = preferred_names_.find(id);
  if (it != preferred_names_.end()) return it->second;
  return op.name + ".tmp_" + std::to_string(id);
}

std::vector<std::string> Translator::DefineResult(const pir::Op& op, const pir::Result& r) {
  Value v;
  v.type = r.type;
  const std::string base = NameFor(op, r.id);
  if (r.type.is_vector) {
    v.is_vector = true;
    for (size_t i = 0; i < r.type.elements.size(); ++i) {
      v.names.push_back(base + "_" + std::to_string(i));
      Declare(v.names.back(), r.type.elements[i]);
    }
  } else {
    v.names.push_back(base);
    Declare(base, r.type);
  }
  v.constants.assign(v.names.size(), nullptr);
  PL_ENFORCE(values_.emplace(r.id, v).second,
             errors::InvalidArgument("%s: value %lld is defined twice", Where(op),
                                     static_cast<long long>(r.id)));
  return v.names;
}

void Translator::DropResult(const pir::Result& r) {
  Value v;
  v.dropped = true;
  v.type = r.type;
  values_[r.id] = v;
}

const pir::OpAttribute* Translator::Attr(const pir::Op& op, const std::string& name,
                                         bool required) {
  const auto it = op.attrs.find(name);
  if (it != op.attrs.end()) return &it->second;
  RefuseUnread(op, name);
  PL_ENFORCE(!required, errors::InvalidArgument("%s: missing attribute `%s`", Where(op), name));
  return nullptr;
}

void Translator::RefuseUnread(const pir::Op& op, const std::string& name) const {
  const auto unread = op.unread_attrs.find(name);
  PL_ENFORCE(unread == op.unread_attrs.end(),
             errors::InvalidArgument("%s: attribute `%s` is of kind `%s`, which paddle_like does "
                                     "not read",
                                     Where(op), name, unread->second));
}

void Translator::Translate(const pir::Op& op) {
  PL_ENFORCE(op.regions.empty() || IsTranslatedControlFlow(op),
             errors::Unimplemented("%s: this control-flow op has no ProgramDesc counterpart in "
                                   "paddle_like",
                                   Where(op)));
  // oneDNN's fc keeps its post-ops in attributes the table would drop.
  if (op.dialect == "onednn_op" && op.name == "fc") return InferenceFusedOp(op);
  const auto handler = Handlers().find(AsPdOpName(op.FullName()));
  if (handler != Handlers().end()) return (this->*handler->second)(op);
  if (op.dialect == "onednn_op") {
    // The table's ProgramDesc op lacks oneDNN's attributes: refused if they mean something.
    AttributeMap attrs;
    for (const auto& [name, attr] : op.attrs) attrs[name] = attr.value;
    RefuseOneDnnOnlyAttributes(Where(op), attrs, /*post_ops_expanded=*/false);
  }
  if (op.dialect == "pd_op" || op.dialect == "onednn_op") {
    if (const pir::OpTranslation* t = pir::FindOpTranslation(op.name)) {
      FromTable(op, *t);
      AliasInPlaceResult(op);
      return;
    }
  }
  throw errors::Unimplemented("%s: no ProgramDesc op corresponds to this PIR op in paddle_like",
                              Where(op));
}

void Translator::CountReads(const std::vector<pir::Op>& ops, bool in_region) {
  for (const pir::Op& op : ops) {
    const int place = static_cast<int>(op_places_.size());
    op_places_[&op] = {place, in_region};
    for (int64_t id : op.operands) {
      if (id != 0) reads_[id].push_back(place);
    }
    for (const pir::Region& region : op.regions) {
      for (const pir::Block& block : region.blocks) CountReads(block.ops, true);
    }
  }
}

void Translator::AliasInPlaceResult(const pir::Op& op) {
  // In-place ops whose first result is not their first operand's new value.
  static const std::set<std::string> kOtherPairs = {"average_accumulates_"};
  if (op.name.size() < 2 || op.name.back() != '_' || kOtherPairs.count(op.name) > 0 ||
      op.operands.empty() || op.operands[0] == 0 || op.results.empty()) {
    return;
  }
  const auto place = op_places_.find(&op);
  const auto read = reads_.find(op.operands[0]);
  if (place == op_places_.end() || read == reads_.end()) return;
  // Read later, or (in a loop's body, which runs again) by any other op.
  const int at = place->second.first;
  const bool in_region = place->second.second;
  const bool read_again = std::any_of(read->second.begin(), read->second.end(),
                                      [&](int r) { return r > at || (in_region && r != at); });
  if (!read_again) return;
  const auto in_it = values_.find(op.operands[0]);
  const auto out = values_.find(op.results[0].id);
  if (in_it == values_.end() || out == values_.end()) return;
  Value& in = in_it->second;
  if (in.dropped || out->second.dropped || in.is_vector || out->second.is_vector ||
      in.names.size() != 1 || out->second.names.size() != 1 ||
      in.names[0] == out->second.names[0]) {
    return;
  }
  OpDesc* assign = block_->AppendOp();
  assign->SetType("assign");
  assign->SetInput("X", out->second.names);
  assign->SetOutput("Out", in.names);
  // Its value changes: later ops read the variable, not a constant recorded for it.
  for (auto& c : in.constants) c = nullptr;
}

void Translator::Parameter(const pir::Op& op) {
  const std::string& name = std::get<std::string>(Attr(op, "parameter_name")->value);
  PL_ENFORCE(op.results.size() == 1 && !op.results[0].type.is_vector,
             errors::InvalidArgument("%s: a parameter has one tensor result", Where(op)));
  Value v;
  v.names = {name};
  v.type = op.results[0].type;
  v.constants = {nullptr};
  Declare(name, v.type);
  const pir::OpAttribute* persistable = Attr(op, "persistable", /*required=*/false);
  block_->FindVar(name)->SetPersistable(persistable == nullptr ||
                                        std::get<bool>(persistable->value));
  values_[op.results[0].id] = v;
}

void Translator::Combine(const pir::Op& op) {
  PL_ENFORCE(op.results.size() == 1,
             errors::InvalidArgument("%s: combine has one result", Where(op)));
  Value v;
  v.is_vector = true;
  v.type = op.results[0].type;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const Value& e = Lookup(op, i);
    v.names.insert(v.names.end(), e.names.begin(), e.names.end());
    v.constants.insert(v.constants.end(), e.constants.begin(), e.constants.end());
  }
  values_[op.results[0].id] = v;
}

void Translator::SplitVector(const pir::Op& op) {
  PL_ENFORCE(op.operands.size() == 1,
             errors::InvalidArgument("%s: split takes one vector", Where(op)));
  const Value src = Lookup(op, 0);
  PL_ENFORCE(src.names.size() == op.results.size(),
             errors::InvalidArgument("%s: splits a vector of %zu into %zu results", Where(op),
                                     src.names.size(), op.results.size()));
  for (size_t i = 0; i < op.results.size(); ++i) {
    Value e;
    e.names = {src.names[i]};
    e.type = op.results[i].type;
    e.constants = {src.constants[i]};
    values_[op.results[i].id] = e;
  }
}

void Translator::SliceVector(const pir::Op& op) {
  const Value src = Lookup(op, 0);
  Attribute index;
  PL_ENFORCE(ToDeclaredType(Attr(op, "index")->value, AttrType::LONG, &index),
             errors::InvalidArgument("%s: `index` is not an integer", Where(op)));
  const int64_t i = std::get<int64_t>(index);
  PL_ENFORCE(i >= 0 && i < static_cast<int64_t>(src.names.size()) && op.results.size() == 1,
             errors::InvalidArgument("%s: index %lld of a vector of %zu", Where(op),
                                     static_cast<long long>(i), src.names.size()));
  Value e;
  e.names = {src.names[i]};
  e.type = op.results[0].type;
  e.constants = {src.constants[i]};
  values_[op.results[0].id] = e;
}

void Translator::Data(const pir::Op& op) {
  const pir::OpAttribute* name = Attr(op, "name");
  PL_ENFORCE(
      GetAttrType(name->value) == AttrType::STRING && op.results.size() == 1,
      errors::InvalidArgument("%s: a data op has a string `name` and one result", Where(op)));
  const std::string& var_name = std::get<std::string>(name->value);
  Value v;
  v.names = {var_name};
  v.type = op.results[0].type;
  v.constants = {nullptr};
  Declare(var_name, v.type);
  block_->FindVar(var_name)->SetNeedCheckFeed(true);
  PL_ENFORCE(values_.emplace(op.results[0].id, v).second,
             errors::InvalidArgument("%s: value defined twice", Where(op)));
  // `pd_op.feed` (programs translated from a ProgramDesc) carries its column; data ops
  // are numbered in order.
  int col = static_cast<int>(feeds_.size());
  if (const pir::OpAttribute* c = Attr(op, "col", /*required=*/false)) {
    Attribute value;
    PL_ENFORCE(ToDeclaredType(c->value, AttrType::INT, &value),
               errors::InvalidArgument("%s: `col` is not an int", Where(op)));
    col = std::get<int>(value);
  }
  feeds_.emplace_back(col, var_name);
}

void Translator::Fetch(const pir::Op& op) {
  PL_ENFORCE(op.operands.size() == 1,
             errors::InvalidArgument("%s: fetch takes one operand", Where(op)));
  const Value v = Lookup(op, 0);
  PL_ENFORCE(!v.is_vector, errors::Unimplemented("%s: fetching a vector", Where(op)));
  const pir::OpAttribute* name = Attr(op, "name");
  const pir::OpAttribute* col = Attr(op, "col");
  PL_ENFORCE(GetAttrType(name->value) == AttrType::STRING,
             errors::InvalidArgument("%s: `name` is not a string", Where(op)));
  const std::string& fetch_name = std::get<std::string>(name->value);
  Attribute col_value;
  PL_ENFORCE(ToDeclaredType(col->value, AttrType::INT, &col_value),
             errors::InvalidArgument("%s: `col` is not an int", Where(op)));
  if (v.names[0] != fetch_name) {
    Declare(fetch_name, v.type);
    OpDesc* assign = block_->AppendOp();
    assign->SetType("assign");
    assign->SetInput("X", v.names);
    assign->SetOutput("Out", {fetch_name});
  }
  OpDesc* fetch = block_->AppendOp();
  fetch->SetType("fetch");
  fetch->SetInput("X", {fetch_name});
  fetch->SetOutput("Out", {"fetch"});
  fetch->SetAttr("col", col_value);
  for (const auto& r : op.results) DropResult(r);
}

void Translator::RecordConstant(const pir::Op& op, Numbers numbers) {
  if (static_cast<int64_t>(numbers.reals.size()) > kMaxConstantElements) return;
  if (values_[op.results[0].id].names.size() != 1) return;
  constants_.push_back(std::make_unique<Constant>(Constant{std::move(numbers)}));
  values_[op.results[0].id].constants = {constants_.back().get()};
}

void Translator::RequireOneTensorResult(const pir::Op& op) {
  PL_ENFORCE(op.results.size() == 1 && !op.results[0].type.is_vector && op.results[0].id != 0,
             errors::InvalidArgument("%s: expected one tensor result", Where(op)));
}

OpDesc* Translator::AppendConstantOp(const std::string& type) {
  OpDesc* desc = block_->AppendOp();
  desc->SetType(type);
  constant_ops_.insert(desc);
  return desc;
}

DataType Translator::DtypeAttr(const pir::Op& op) {
  const pir::OpAttribute* dtype = Attr(op, "dtype");
  PL_ENFORCE(dtype->is_dtype, errors::InvalidArgument("%s: `dtype` is not a data type", Where(op)));
  return static_cast<DataType>(std::get<int>(dtype->value));
}

void Translator::Full(const pir::Op& op) {
  RequireOneTensorResult(op);
  Attribute shape, value;
  PL_ENFORCE(
      ToDeclaredType(Attr(op, "shape")->value, AttrType::LONGS, &shape) &&
          ToDeclaredType(Attr(op, "value")->value, AttrType::FLOAT64, &value),
      errors::InvalidArgument("%s: `shape` should be integers and `value` a number", Where(op)));
  const DataType dtype = DtypeAttr(op);
  const double v = std::get<double>(value);
  const auto& dims = std::get<std::vector<int64_t>>(shape);
  OpDesc* desc = AppendConstantOp("fill_constant");
  desc->SetOutput("Out", DefineResult(op, op.results[0]));
  desc->SetAttr("shape", dims);
  desc->SetAttr("dtype", static_cast<int>(dtype));
  desc->SetAttr("value", static_cast<float>(v));
  // The exact value where a float would round it (large integers, doubles).
  if (static_cast<double>(static_cast<float>(v)) != v || IsIntegral(dtype)) {
    char text[64];
    if (IsIntegral(dtype) && std::fabs(v) < 9.2e18) {
      std::snprintf(text, sizeof(text), "%lld", static_cast<long long>(v));
    } else {
      std::snprintf(text, sizeof(text), "%.17g", v);
    }
    desc->SetAttr("str_value", std::string(text));
  }
  int64_t numel = 1;  // Capped past the largest constant kept, so that it cannot overflow.
  for (int64_t d : dims) {
    numel = d < 0 || d > kMaxConstantElements ? kMaxConstantElements + 1
                                              : std::min(numel * d, kMaxConstantElements + 1);
  }
  if (numel <= kMaxConstantElements) {
    Numbers n;
    n.list = true;
    n.integral = std::floor(v) == v && std::fabs(v) < 9.2e18;
    n.reals.assign(numel, v);
    n.ints.assign(numel, n.integral ? static_cast<int64_t>(v) : 0);
    RecordConstant(op, std::move(n));
  }
}

void Translator::FullIntArray(const pir::Op& op) {
  RequireOneTensorResult(op);
  Attribute values;
  PL_ENFORCE(ToDeclaredType(Attr(op, "value")->value, AttrType::LONGS, &values),
             errors::InvalidArgument("%s: `value` should be integers", Where(op)));
  const auto& ints = std::get<std::vector<int64_t>>(values);
  const DataType dtype = DtypeAttr(op);
  OpDesc* desc = AppendConstantOp("assign_value");
  desc->SetOutput("Out", DefineResult(op, op.results[0]));
  desc->SetAttr("shape", std::vector<int>{static_cast<int>(ints.size())});
  desc->SetAttr("dtype", static_cast<int>(dtype));
  if (dtype == DataType::INT32) {
    Attribute narrow;
    PL_ENFORCE(ToDeclaredType(values, AttrType::INTS, &narrow),
               errors::InvalidArgument("%s: a value does not fit int32", Where(op)));
    desc->SetAttr("int32_values", narrow);
  } else {
    desc->SetAttr("int64_values", ints);
  }
  Numbers n;
  NumbersOf(values, &n);
  RecordConstant(op, std::move(n));
}

void Translator::AssignValue(const pir::Op& op) {
  RequireOneTensorResult(op);
  Attribute shape;
  PL_ENFORCE(ToDeclaredType(Attr(op, "shape")->value, AttrType::INTS, &shape),
             errors::InvalidArgument("%s: `shape` should be integers", Where(op)));
  const DataType dtype = DtypeAttr(op);
  const Attribute& values = Attr(op, "values")->value;
  // The values go to the typed list of `dtype`, complex ones to scalars in `values` (real
  // numbers may be among them).
  std::string field = "values";
  Attribute typed;
  Numbers n;
  if (platform::IsComplex(dtype)) {
    if (const auto* complex = std::get_if<std::vector<Scalar>>(&values)) {
      typed = *complex;
    } else {
      PL_ENFORCE(NumbersOf(values, &n),
                 errors::InvalidArgument("%s: `values` should be numbers", Where(op)));
      std::vector<Scalar> scalars(n.reals.size());
      for (size_t k = 0; k < scalars.size(); ++k) scalars[k].r = n.reals[k];
      typed = scalars;
    }
  } else {
    PL_ENFORCE(NumbersOf(values, &n),
               errors::InvalidArgument("%s: `values` should be numbers", Where(op)));
    AttrType type;
    const char* list = pir::TypedValuesField(dtype, &type);
    PL_ENFORCE(list != nullptr, errors::Unimplemented("%s: assign_value of dtype %s", Where(op),
                                                      platform::DataTypeName(dtype)));
    field = list;
    PL_ENFORCE(ToDeclaredType(values, type, &typed),
               errors::InvalidArgument("%s: `values` do not fit dtype %s", Where(op),
                                       platform::DataTypeName(dtype)));
  }
  OpDesc* desc = AppendConstantOp("assign_value");
  desc->SetOutput("Out", DefineResult(op, op.results[0]));
  desc->SetAttr("shape", shape);
  desc->SetAttr("dtype", static_cast<int>(dtype));
  desc->SetAttr(field, typed);
  // Real constants are known to the translation (shapes and bounds read from them).
  if (!platform::IsComplex(dtype)) RecordConstant(op, std::move(n));
}

void Translator::Shape64(const pir::Op& op) {
  PL_ENFORCE(op.operands.size() == 1,
             errors::InvalidArgument("%s: shape64 has one operand", Where(op)));
  RequireOneTensorResult(op);
  const Value& x = Lookup(op, 0);
  const std::string out = DefineResult(op, op.results[0])[0];
  const std::string int32_shape = out + ".int32";
  ValueType t = op.results[0].type;
  t.dtype = DataType::INT32;
  Declare(int32_shape, t);
  OpDesc* shape = block_->AppendOp();
  shape->SetType("shape");
  shape->SetInput("Input", x.names);
  shape->SetOutput("Out", {int32_shape});
  AppendCast(int32_shape, DataType::INT32, out, DataType::INT64);
}

void Translator::AppendCast(const std::string& x, DataType from, const std::string& out,
                            DataType to) {
  OpDesc* cast = block_->AppendOp();
  cast->SetType("cast");
  cast->SetInput("X", {x});
  cast->SetOutput("Out", {out});
  cast->SetAttr("in_dtype", static_cast<int>(from));
  cast->SetAttr("out_dtype", static_cast<int>(to));
}

void Translator::BatchNorm(const pir::Op& op) {
  const pir::OpTranslation* t = pir::FindOpTranslation("batch_norm");
  pir::Op filled = op;
  // Operands x, mean, variance, scale, bias: a missing scale is ones, a missing bias zeros.
  for (size_t i = 3; i < 5 && filled.operands.size() > 2; ++i) {
    if (i < filled.operands.size() && filled.operands[i] != 0) continue;
    const Value& mean = Lookup(op, 1);
    const int64_t id = -(2 * (op.results.empty() ? 0 : op.results[0].id) + static_cast<int64_t>(i));
    const std::string name =
        mean.names.at(0) + (i == 3 ? ".unit_scale" : ".zero_bias") + std::to_string(-id);
    Declare(name, mean.type);
    OpDesc* fill = block_->AppendOp();
    fill->SetType("fill_any_like");
    fill->SetInput("X", mean.names);
    fill->SetOutput("Out", {name});
    fill->SetAttr("value", i == 3 ? 1.0f : 0.0f);
    fill->SetAttr("dtype", -1);
    Value v;
    v.names = {name};
    v.type = mean.type;
    values_[id] = v;
    if (filled.operands.size() <= i) filled.operands.resize(i + 1, 0);
    filled.operands[i] = id;
  }
  FromTable(filled, *t);
}

void Translator::InferenceFusedOp(const pir::Op& op) {
  struct Slots {
    std::vector<std::string> inputs;  // Per operand; "" for output_size (an IntArray).
    std::vector<std::string> outputs;
  };
  static const std::map<std::string, Slots> kSlots = {
      {"fused_matmul", {{"X", "Y", "ResidualData"}, {"Out"}}},
      {"fused_elementwise_add", {{"X", "Y"}, {"Out"}}},
      {"fused_elementwise_sub", {{"X", "Y"}, {"Out"}}},
      {"fused_elementwise_mul", {{"X", "Y"}, {"Out"}}},
      {"fused_elementwise_div", {{"X", "Y"}, {"Out"}}},
      {"fused_conv2d", {{"Input", "Filter", "Bias", "ResidualData"}, {"Output"}}},
      {"fused_conv3d", {{"Input", "Filter", "Bias", "ResidualData"}, {"Output"}}},
      {"fused_softplus", {{"X"}, {"Out"}}},
      {"fused_transpose", {{"X"}, {"Out"}}},
      {"fc", {{"Input", "W", "Bias"}, {"Out"}}},
      {"conv2d_transpose_bias", {{"Input", "Filter", "Bias", ""}, {"Output"}}},
      {"depthwise_conv2d_bias", {{"input", "filter", "bias"}, {"out"}}},
      {"fused_conv2d_add_act",
       {{"Input", "Filter", "Bias", "ResidualData"}, {"Output", "Outputs"}}},
      {"skip_layernorm", {{"X", "Y", "Scale", "Bias"}, {"Out"}}},
      {"fused_fc_elementwise_layernorm",
       {{"X", "W", "Y", "Bias0", "Scale", "Bias1"}, {"Out", "Mean", "Variance"}}},
      {"fused_embedding_eltwise_layernorm", {{"Ids", "Embs", "Bias", "Scale"}, {"Out"}}}};
  const Slots& slots = kSlots.at(op.name);
  PL_ENFORCE(op.operands.size() <= slots.inputs.size() && op.results.size() <= slots.outputs.size(),
             errors::InvalidArgument("%s: expected at most %zu operands and %zu results, found "
                                     "%zu and %zu",
                                     Where(op), slots.inputs.size(), slots.outputs.size(),
                                     op.operands.size(), op.results.size()));
  OpDesc* desc = block_->AppendOp();
  desc->SetType(op.name);
  for (const auto& [name, attr] : op.attrs) desc->SetAttr(name, attr.value);
  for (size_t i = 0; i < op.operands.size(); ++i) {
    if (op.operands[i] == 0) continue;
    const Value& v = Lookup(op, i);
    if (!slots.inputs[i].empty()) {
      desc->SetInput(slots.inputs[i], v.names);
      continue;
    }
    Numbers n;
    PL_ENFORCE(ConstantNumbers(v, &n),
               errors::Unimplemented("%s: operand %zu (output_size) is computed when the program "
                                     "runs; paddle_like needs it constant",
                                     Where(op), i));
    if (!n.ints.empty()) desc->SetAttr("output_size", n.ints);
  }
  for (size_t i = 0; i < op.results.size(); ++i) {
    if (op.results[i].id == 0) continue;
    desc->SetOutput(slots.outputs[i], DefineResult(op, op.results[i]));
  }
}

void Translator::Arange(const pir::Op& op) {
  PL_ENFORCE(op.operands.size() == 3,
             errors::InvalidArgument("%s: arange has three operands", Where(op)));
  RequireOneTensorResult(op);
  const DataType dtype = DtypeAttr(op);
  std::vector<std::string> inputs;
  for (size_t i = 0; i < 3; ++i) {
    const Value& v = Lookup(op, i);
    PL_ENFORCE(v.names.size() == 1,
               errors::InvalidArgument("%s: operand %zu is not one tensor", Where(op), i));
    if (!v.type.known || v.type.dtype == dtype || dtype == DataType::UNDEFINED) {
      inputs.push_back(v.names[0]);
      continue;
    }
    const std::string cast_name = v.names[0] + ".as_" + platform::DataTypeName(dtype);
    ValueType t = v.type;
    t.dtype = dtype;
    Declare(cast_name, t);
    AppendCast(v.names[0], v.type.dtype, cast_name, dtype);
    inputs.push_back(cast_name);
  }
  OpDesc* range = block_->AppendOp();
  range->SetType("range");
  range->SetInput("Start", {inputs[0]});
  range->SetInput("End", {inputs[1]});
  range->SetInput("Step", {inputs[2]});
  range->SetOutput("Out", DefineResult(op, op.results[0]));
}

bool Translator::ConstantNumbers(const Value& v, Numbers* out) {
  if (v.constants.empty()) return false;
  for (const Constant* c : v.constants) {
    if (c == nullptr) return false;
    out->reals.insert(out->reals.end(), c->numbers.reals.begin(), c->numbers.reals.end());
    out->ints.insert(out->ints.end(), c->numbers.ints.begin(), c->numbers.ints.end());
    out->integral = out->integral && c->numbers.integral;
  }
  out->list = true;
  return true;
}

Attribute Translator::AsAttribute(const Numbers& n) {
  if (n.integral) return n.ints;
  return n.reals;
}

void Translator::FromTable(const pir::Op& op, const pir::OpTranslation& t) {
  PL_ENFORCE(OpInfoMap::Instance().Has(t.legacy_type),
             errors::Unimplemented("%s: its ProgramDesc op `%s` is not registered", Where(op),
                                   t.legacy_type));
  const OpSpec& spec = OpInfoMap::Instance().Get(t.legacy_type).spec;
  PL_ENFORCE(op.operands.size() <= t.operands.size(),
             errors::InvalidArgument("%s: %zu operands, this op has at most %zu", Where(op),
                                     op.operands.size(), t.operands.size()));
  AttributeMap attrs = t.fixed_attrs;
  for (const auto& [name, kind] : op.unread_attrs) {
    std::string legacy = name;
    for (const auto& [from, to] : t.renamed_attrs) {
      if (from == name) legacy = to;
    }
    if (spec.FindAttr(legacy) != nullptr) RefuseUnread(op, name);
  }
  for (const auto& [name, attr] : op.attrs) {
    std::string legacy = name;
    for (const auto& [from, to] : t.renamed_attrs) {
      if (from == name) legacy = to;
    }
    attrs[legacy] = attr.value;
  }
  VariableNameMap inputs;
  std::vector<const ValueType*> operand_types;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const std::string& role = t.operands[i];
    if (op.operands[i] == 0 || role.empty()) {
      operand_types.push_back(nullptr);
      continue;
    }
    const Value& v = Lookup(op, i);
    operand_types.push_back(&v.type);
    std::string attr_name, slot = role;
    if (role[0] == '@') {
      const size_t bar = role.find('|');
      attr_name = role.substr(1, bar == std::string::npos ? std::string::npos : bar - 1);
      slot = bar == std::string::npos ? "" : role.substr(bar + 1);
      const size_t list_bar = slot.find('|');
      if (list_bar != std::string::npos) {
        slot = v.is_vector ? slot.substr(list_bar + 1) : slot.substr(0, list_bar);
      }
      Numbers n;
      if (ConstantNumbers(v, &n)) {
        attrs[attr_name] = AsAttribute(n);
        continue;
      }
      PL_ENFORCE(!slot.empty(),
                 errors::Unimplemented("%s: operand %zu (attribute `%s` of `%s`) is computed "
                                       "when the program runs; paddle_like needs it constant",
                                       Where(op), i, attr_name, t.legacy_type));
    }
    if (slot.back() == '*') slot.pop_back();
    if (spec.FindInput(slot) == nullptr) {
      throw errors::Unimplemented("%s: operand %zu goes to input `%s`, which `%s` lacks", Where(op),
                                  i, slot, t.legacy_type);
    }
    auto& args = inputs[slot];
    const std::vector<std::string> names = IsScalarList(slot) ? AsScalars(op, i, v) : v.names;
    args.insert(args.end(), names.begin(), names.end());
  }
  VariableNameMap outputs;
  for (size_t i = 0; i < op.results.size(); ++i) {
    const pir::Result& r = op.results[i];
    if (r.id == 0) continue;
    std::string slot = i < t.results.size() ? t.results[i] : "";
    if (!slot.empty() && slot.back() == '*') slot.pop_back();
    if (slot.empty() || spec.FindOutput(slot) == nullptr) {
      DropResult(r);
      continue;
    }
    const auto names = DefineResult(op, r);
    auto& args = outputs[slot];
    args.insert(args.end(), names.begin(), names.end());
  }
  if (t.adjust != nullptr) t.adjust(operand_types, &attrs);

  OpDesc* desc = block_->AppendOp();
  desc->SetType(t.legacy_type);
  for (const auto& [slot, args] : inputs) desc->SetInput(slot, args);
  for (const auto& [slot, args] : outputs) desc->SetOutput(slot, args);
  for (const auto& [name, value] : attrs) {
    const OpAttrSpec* declared = spec.FindAttr(name);
    if (declared == nullptr) continue;  // PIR-only attributes (places, struct names).
    Attribute typed;
    PL_ENFORCE(
        ToDeclaredType(value, declared->type, &typed),
        errors::InvalidArgument("%s: attribute `%s` is %s %s; `%s` reads it as %s", Where(op), name,
                                AttrTypeName(GetAttrType(value)), AttrToString(value),
                                t.legacy_type, AttrTypeName(declared->type)));
    desc->SetAttr(name, typed);
  }
}

bool Translator::IsScalarList(const std::string& slot) {
  const std::string suffix = "TensorList";
  return slot.size() > suffix.size() &&
         slot.compare(slot.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> Translator::AsScalars(const pir::Op& op, size_t i, const Value& v) {
  if (v.is_vector || v.names.size() != 1 || !v.type.known || v.type.dims.empty() ||
      (v.type.dims.size() == 1 && v.type.dims[0] == 1)) {
    return v.names;
  }
  PL_ENFORCE(v.type.dims.size() == 1 && v.type.dims[0] > 1,
             errors::Unimplemented("%s: operand %zu is a tensor of shape [%s] computed when the "
                                   "program runs; paddle_like needs its number of values known",
                                   Where(op), i, JoinDims(v.type.dims)));
  const int64_t n = v.type.dims[0];
  // One value per axis (starts, ends, a shape): a length past any rank is a damaged type, not
  // a reason to declare that many variables.
  PL_ENFORCE(n <= 64, errors::InvalidArgument("%s: operand %zu holds %lld values, more than the 64 "
                                              "one-element tensors (one per axis) its slot takes",
                                              Where(op), i, static_cast<long long>(n)));
  std::vector<std::string> parts;
  ValueType part = v.type;
  part.dims = {1};
  for (int64_t k = 0; k < n; ++k) {
    parts.push_back(v.names[0] + ".part_" + std::to_string(k));
    Declare(parts.back(), part);
  }
  OpDesc* split = block_->AppendOp();
  split->SetType("split");
  split->SetInput("X", v.names);
  split->SetOutput("Out", parts);
  split->SetAttr("axis", 0);
  split->SetAttr("num", static_cast<int>(n));
  return parts;
}

std::string Translator::JoinDims(const std::vector<int64_t>& dims) {
  std::string text;
  for (int64_t d : dims) text += (text.empty() ? "" : ", ") + std::to_string(d);
  return text;
}

void Translator::RemoveUnusedConstants() {
  std::set<std::string> read;
  for (size_t b = 0; b < desc_.Size(); ++b) {
    for (const OpDesc* op : desc_.Block(b).AllOps()) {
      for (const auto& name : op->InputArgumentNames()) read.insert(name);
    }
  }
  for (size_t b = 0; b < desc_.Size(); ++b) {
    BlockDesc& block = desc_.Block(b);
    for (size_t i = block.OpSize(); i-- > 0;) {
      OpDesc* op = block.Op(i);
      if (!constant_ops_.count(op)) continue;
      const std::string out = op->Output("Out")[0];
      if (read.count(out)) continue;
      block.RemoveOp(i, i + 1);
      block.RemoveVar(out);
    }
  }
}

}  // namespace pir

bool PirOpIsTranslated(const std::string& name) {
  const std::string full_name = pir::AsPdOpName(name);
  if (pir::Translator::Handlers().count(full_name)) return true;
  const std::string prefix = "pd_op.";
  if (full_name.compare(0, prefix.size(), prefix) != 0) return false;
  const pir::OpTranslation* t = pir::FindOpTranslation(full_name.substr(prefix.size()));
  return t != nullptr && OpInfoMap::Instance().Has(t->legacy_type);
}

ProgramDesc ProgramFromPirJson(const std::string& text, const std::string& source) {
  const pir::Program program = pir::ParseProgramJson(text, source);
  ProgramDesc desc = pir::Translator(program, source).Run();
  ExpandInferenceFusedOps(&desc);
  return desc;
}

}  // namespace framework
}  // namespace paddle_like

#include "framework/program_desc.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cctype>

#include "framework/ddim.h"
#include "framework/framework.pb.h"
#include "framework/inference_fused_ops.h"
#include "framework/paddle_grad_ops.h"
#include "framework/pir/pir_translation.h"
#include "platform/file_util.h"

namespace paddle_like {
namespace framework {

ProgramDesc::ProgramDesc() { blocks_.push_back(std::make_unique<BlockDesc>(this, 0, -1)); }

ProgramDesc::ProgramDesc(const ProgramDesc& other) { *this = other; }

ProgramDesc& ProgramDesc::operator=(const ProgramDesc& other) {
  if (this != &other) *this = FromBinary(other.ToBinary());  // Move-assigns.
  return *this;
}

ProgramDesc::ProgramDesc(ProgramDesc&& other) noexcept { *this = std::move(other); }

ProgramDesc& ProgramDesc::operator=(ProgramDesc&& other) noexcept {
  if (this == &other) return *this;
  blocks_ = std::move(other.blocks_);
  version_ = other.version_;
  op_versions_ = std::move(other.op_versions_);
  for (auto& b : blocks_) b->program_ = this;
  return *this;
}

ProgramDesc::~ProgramDesc() = default;

namespace {
// A tensor description a program declares: a known element type and a shape that can exist
// (rank <= DDim::kMaxRank, dims >= -1, element count within int64).
bool IsElementType(proto::VarType::Type t) {
  const int v = static_cast<int>(t);
  // POD numbers of VarType.Type (FORMATS.md 1.6); the rest name variable kinds.
  return (v >= 0 && v <= 6) || (v >= 19 && v <= 24) || v == 32 || v == 33 || v == 37 || v == 38;
}

void CheckTensorDesc(const proto::VarType::TensorDesc& t, const std::string& source, int block,
                     const std::string& var) {
  PL_ENFORCE(IsElementType(t.data_type()),
             errors::InvalidArgument("program `%s`: block %d variable `%s`: data type %d is not "
                                     "a tensor element type",
                                     source, block, var, static_cast<int>(t.data_type())));
  const std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  const std::string problem = ShapeProblem(dims, /*allow_unknown=*/true);
  PL_ENFORCE(problem.empty(), errors::InvalidArgument("program `%s`: block %d variable `%s`: %s",
                                                      source, block, var, problem));
}

// PaddlePaddle's build-time shape inference multiplies unknown dims (a layer_norm over
// [-1, 50] declares its Mean [-50]): any negative dim of a declared shape means unknown.
void NormalizeUnknownDims(proto::VarType::TensorDesc* t) {
  for (int i = 0; i < t->dims_size(); ++i) {
    if (t->dims(i) < -1) t->set_dims(i, -1);
  }
}

void NormalizeUnknownDims(proto::BlockDesc* b) {
  for (auto& v : *b->mutable_vars()) {
    auto* type = v.mutable_type();
    if (type->has_lod_tensor()) NormalizeUnknownDims(type->mutable_lod_tensor()->mutable_tensor());
    if (type->has_selected_rows()) NormalizeUnknownDims(type->mutable_selected_rows());
    if (type->has_tensor_array()) {
      NormalizeUnknownDims(type->mutable_tensor_array()->mutable_tensor());
    }
  }
}

// Checks what later code indexes with or allocates by: declared tensor shapes and types,
// and block indices held by BLOCK/BLOCKS attributes.
void CheckBlockProto(const proto::BlockDesc& b, int num_blocks, const std::string& source) {
  for (const auto& v : b.vars()) {
    const auto& type = v.type();
    if (type.has_lod_tensor()) CheckTensorDesc(type.lod_tensor().tensor(), source, b.idx(), v.name());
    if (type.has_selected_rows()) CheckTensorDesc(type.selected_rows(), source, b.idx(), v.name());
    if (type.has_tensor_array()) {
      CheckTensorDesc(type.tensor_array().tensor(), source, b.idx(), v.name());
    }
  }
  for (int i = 0; i < b.ops_size(); ++i) {
    for (const auto& a : b.ops(i).attrs()) {
      std::vector<int> indices;
      if (a.type() == proto::BLOCK) indices.push_back(a.block_idx());
      if (a.type() == proto::BLOCKS) indices.assign(a.blocks_idx().begin(), a.blocks_idx().end());
      for (int idx : indices) {
        // A sub-block comes after the block that runs it, so running blocks never cycles.
        PL_ENFORCE(idx > b.idx() && idx < num_blocks,
                   errors::InvalidArgument("program `%s`: block %d op #%d `%s` attribute `%s`: "
                                           "block index %d is out of range (expected a later "
                                           "block, below %d)",
                                           source, b.idx(), i, b.ops(i).type(), a.name(), idx,
                                           num_blocks));
      }
    }
  }
}
}  // namespace

void ProgramDesc::ParseFrom(const void* proto_program, const std::string& source) {
  const auto& p = *static_cast<const proto::ProgramDesc*>(proto_program);
  blocks_.clear();
  for (int i = 0; i < p.blocks_size(); ++i) {
    proto::BlockDesc b = p.blocks(i);
    NormalizeUnknownDims(&b);
    PL_ENFORCE(b.idx() == i, errors::InvalidArgument(
                                 "program `%s`: block %d carries idx %d (blocks must be in order)",
                                 source, i, b.idx()));
    // Block 0 has no parent; every other block's parent comes before it (no cycles).
    PL_ENFORCE(
        i == 0 ? b.parent_idx() == -1 : b.parent_idx() >= 0 && b.parent_idx() < i,
        errors::InvalidArgument("program `%s`: block %d has invalid parent_idx %d "
                                "(expected %s)",
                                source, i, b.parent_idx(), i == 0 ? "-1" : "an earlier block"));
    CheckBlockProto(b, p.blocks_size(), source);
    blocks_.push_back(std::make_unique<BlockDesc>(this, b));
  }
  PL_ENFORCE(!blocks_.empty(),
             errors::InvalidArgument("program `%s` has no blocks", source));
  version_ = p.has_version() ? p.version().version() : -1;
  op_versions_.clear();
  for (const auto& pair : p.op_version_map().pair()) {
    op_versions_[pair.op_name()] = pair.op_version().version();
  }
}

ProgramDesc ProgramDesc::FromBinary(const std::string& bytes, const std::string& source) {
  proto::ProgramDesc p;
  // An ONNX ModelProto starts with its ir_version, a varint in field 1, where a ProgramDesc
  // has its blocks (length-delimited): protobuf would parse it as a program of no blocks.
  if (!bytes.empty() && bytes[0] == '\x08') {
    throw errors::InvalidArgument(
        "program `%s` starts like an ONNX model (ModelProto), not a PaddlePaddle ProgramDesc; "
        "paddle_like reads PaddlePaddle's programs (.pdmodel, __model__)",
        source);
  }
  if (!p.ParsePartialFromString(bytes)) {
    throw errors::InvalidArgument(
        "program `%s`: not a valid binary ProgramDesc (corrupt or truncated, %zu bytes)", source,
        bytes.size());
  }
  if (!p.IsInitialized()) {
    throw errors::InvalidArgument("program `%s`: missing required field(s): %s", source,
                                  p.InitializationErrorString());
  }
  ProgramDesc program;
  program.ParseFrom(&p, source);
  return program;
}

namespace {
class CollectingErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first.empty()) {
      first = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) +
              ": " + message;
    }
  }
  std::string first;
};
}  // namespace

ProgramDesc ProgramDesc::FromText(const std::string& text, const std::string& source) {
  proto::ProgramDesc p;
  google::protobuf::TextFormat::Parser parser;
  CollectingErrors collector;
  parser.RecordErrorsTo(&collector);
  parser.AllowPartialMessage(true);
  if (!parser.ParseFromString(text, &p)) {
    throw errors::InvalidArgument("program `%s`: not a valid text ProgramDesc: %s", source,
                                  collector.first);
  }
  if (!p.IsInitialized()) {
    throw errors::InvalidArgument("program `%s`: missing required field(s): %s", source,
                                  p.InitializationErrorString());
  }
  ProgramDesc program;
  program.ParseFrom(&p, source);
  return program;
}

namespace {
// Text format starts with a field name or a comment; binary starts with a tag byte.
bool LooksLikeText(const std::string& bytes) {
  size_t i = 0;
  while (i < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[i]))) ++i;
  if (i == bytes.size()) return false;
  const char c = bytes[i];
  if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '#')) return false;
  const size_t n = std::min<size_t>(bytes.size(), 4096);
  for (size_t k = 0; k < n; ++k) {
    const unsigned char ch = static_cast<unsigned char>(bytes[k]);
    if (ch < 0x09 || (ch > 0x0d && ch < 0x20)) return false;
  }
  return true;
}

// PaddlePaddle 3 saves PIR programs as JSON objects; neither ProgramDesc format starts so.
bool LooksLikeJson(const std::string& bytes) {
  size_t i = 0;
  while (i < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[i]))) ++i;
  return i < bytes.size() && bytes[i] == '{';
}
}  // namespace

ProgramDesc ProgramDesc::Load(const std::string& path) {
  return FromBytes(platform::ReadFile(path, {"program", platform::kMaxProgramBytes}), path);
}

ProgramDesc ProgramDesc::FromBytes(const std::string& bytes, const std::string& source) {
  if (LooksLikeJson(bytes)) return ProgramFromPirJson(bytes, source);
  ProgramDesc program = LooksLikeText(bytes) ? FromText(bytes, source) : FromBinary(bytes, source);
  ExpandInferenceFusedOps(&program);
  ExpandPaddleGradOps(&program);
  return program;
}

std::string ProgramDesc::ToBinary() const {
  proto::ProgramDesc p;
  for (const auto& b : blocks_) b->ToProto(p.add_blocks());
  if (version_ >= 0) p.mutable_version()->set_version(version_);
  if (!op_versions_.empty()) {
    auto* map = p.mutable_op_version_map();
    for (const auto& kv : op_versions_) {
      auto* pair = map->add_pair();
      pair->set_op_name(kv.first);
      pair->mutable_op_version()->set_version(kv.second);
    }
  }
  return p.SerializeAsString();
}

std::string ProgramDesc::ToText() const {
  proto::ProgramDesc p;
  p.ParseFromString(ToBinary());
  std::string text;
  google::protobuf::TextFormat::PrintToString(p, &text);
  return text;
}

void ProgramDesc::Save(const std::string& path, bool as_text) const {
  platform::WriteFileAtomically(path, as_text ? ToText() : ToBinary());
}

BlockDesc& ProgramDesc::Block(size_t i) const {
  PL_ENFORCE(i < blocks_.size(), errors::OutOfRange("program has %zu blocks, block %zu requested",
                                                    blocks_.size(), i));
  return *blocks_[i];
}

BlockDesc* ProgramDesc::AppendBlock(const BlockDesc& parent) {
  blocks_.push_back(std::make_unique<BlockDesc>(this, static_cast<int>(blocks_.size()), parent.ID()));
  return blocks_.back().get();
}

namespace {
std::vector<std::string> TargetsByCol(const BlockDesc& block, const std::string& op_type,
                                      const std::string& slot) {
  std::vector<std::pair<int, std::string>> found;
  for (size_t i = 0; i < block.OpSize(); ++i) {
    const OpDesc* op = block.Op(i);
    if (op->Type() != op_type) continue;
    int col = static_cast<int>(found.size());
    if (op->HasAttr("col")) {
      Attribute v;
      if (CoerceAttribute(op->GetAttr("col"), AttrType::INT, &v)) col = std::get<int>(v);
    }
    const auto& args = op->Input(slot).empty() ? op->Output(slot) : op->Input(slot);
    if (!args.empty()) found.emplace_back(col, args[0]);
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> names;
  for (auto& f : found) names.push_back(std::move(f.second));
  return names;
}
}  // namespace

std::vector<std::string> ProgramDesc::FeedTargetNames() const {
  return TargetsByCol(Block(0), "feed", "Out");
}

std::vector<std::string> ProgramDesc::FetchTargetNames() const {
  return TargetsByCol(Block(0), "fetch", "X");
}

}  // namespace framework
}  // namespace paddle_like

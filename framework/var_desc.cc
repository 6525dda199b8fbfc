#include "framework/var_desc.h"

#include "framework/framework.pb.h"
#include "platform/enforce.h"

namespace paddle_like {
namespace framework {

namespace {
proto::VarType::TensorDesc* MutableTensorDesc(proto::VarDesc* desc) {
  auto* type = desc->mutable_type();
  switch (type->type()) {
    case proto::VarType::SELECTED_ROWS: return type->mutable_selected_rows();
    case proto::VarType::LOD_TENSOR_ARRAY: return type->mutable_tensor_array()->mutable_tensor();
    default: return type->mutable_lod_tensor()->mutable_tensor();
  }
}

const proto::VarType::TensorDesc* TensorDescOf(const proto::VarDesc& desc) {
  const auto& type = desc.type();
  switch (type.type()) {
    case proto::VarType::SELECTED_ROWS:
      return type.has_selected_rows() ? &type.selected_rows() : nullptr;
    case proto::VarType::LOD_TENSOR_ARRAY:
      return type.has_tensor_array() ? &type.tensor_array().tensor() : nullptr;
    case proto::VarType::LOD_TENSOR:
      return type.has_lod_tensor() ? &type.lod_tensor().tensor() : nullptr;
    default: return nullptr;
  }
}
}  // namespace

VarDesc::VarDesc(const std::string& name) : desc_(new proto::VarDesc) {
  desc_->set_name(name);
  desc_->mutable_type()->set_type(proto::VarType::LOD_TENSOR);
  MutableTensorDesc(desc_.get())->set_data_type(proto::VarType::FP32);
}

VarDesc::VarDesc(const proto::VarDesc& desc) : desc_(new proto::VarDesc(desc)) {}
VarDesc::VarDesc(const VarDesc& other) : desc_(new proto::VarDesc(*other.desc_)) {}
VarDesc& VarDesc::operator=(const VarDesc& other) {
  *desc_ = *other.desc_;
  return *this;
}
VarDesc::~VarDesc() = default;

const std::string& VarDesc::Name() const { return desc_->name(); }
void VarDesc::SetName(const std::string& name) { desc_->set_name(name); }

VarKind VarDesc::GetKind() const { return static_cast<VarKind>(desc_->type().type()); }
void VarDesc::SetKind(VarKind kind) {
  desc_->mutable_type()->set_type(static_cast<proto::VarType::Type>(kind));
}

bool VarDesc::HasTensorDesc() const {
  VarKind k = GetKind();
  return k == VarKind::kDenseTensor || k == VarKind::kSelectedRows ||
         k == VarKind::kDenseTensorArray;
}

std::vector<int64_t> VarDesc::GetShape() const {
  const auto* t = TensorDescOf(*desc_);
  if (t == nullptr) return {};
  return std::vector<int64_t>(t->dims().begin(), t->dims().end());
}

void VarDesc::SetShape(const std::vector<int64_t>& dims) {
  PL_ENFORCE(HasTensorDesc(), errors::InvalidArgument("variable `%s` of kind %s has no shape",
                                                      Name(), VarKindName(static_cast<int>(GetKind()))));
  auto* t = MutableTensorDesc(desc_.get());
  if (!t->has_data_type()) t->set_data_type(proto::VarType::FP32);
  t->clear_dims();
  for (int64_t d : dims) t->add_dims(d);
}

DataType VarDesc::GetDataType() const {
  const auto* t = TensorDescOf(*desc_);
  return t == nullptr ? DataType::UNDEFINED : static_cast<DataType>(t->data_type());
}

void VarDesc::SetDataType(DataType dtype) {
  PL_ENFORCE(HasTensorDesc(), errors::InvalidArgument("variable `%s` of kind %s has no data type",
                                                      Name(), VarKindName(static_cast<int>(GetKind()))));
  MutableTensorDesc(desc_.get())->set_data_type(static_cast<proto::VarType::Type>(dtype));
}

int VarDesc::GetLoDLevel() const {
  const auto& type = desc_->type();
  if (type.type() == proto::VarType::LOD_TENSOR && type.has_lod_tensor()) {
    return type.lod_tensor().lod_level();
  }
  if (type.type() == proto::VarType::LOD_TENSOR_ARRAY && type.has_tensor_array()) {
    return type.tensor_array().lod_level();
  }
  return 0;
}

void VarDesc::SetLoDLevel(int level) {
  auto* type = desc_->mutable_type();
  if (type->type() == proto::VarType::LOD_TENSOR) {
    MutableTensorDesc(desc_.get());
    type->mutable_lod_tensor()->set_lod_level(level);
  } else if (type->type() == proto::VarType::LOD_TENSOR_ARRAY) {
    MutableTensorDesc(desc_.get());
    type->mutable_tensor_array()->set_lod_level(level);
  }
}

bool VarDesc::Persistable() const { return desc_->persistable(); }
void VarDesc::SetPersistable(bool v) { desc_->set_persistable(v); }
bool VarDesc::IsParameter() const { return desc_->is_parameter(); }
void VarDesc::SetIsParameter(bool v) { desc_->set_is_parameter(v); }
bool VarDesc::StopGradient() const { return desc_->stop_gradient(); }
void VarDesc::SetStopGradient(bool v) { desc_->set_stop_gradient(v); }
bool VarDesc::NeedCheckFeed() const { return desc_->need_check_feed(); }
void VarDesc::SetNeedCheckFeed(bool v) { desc_->set_need_check_feed(v); }

std::string VarKindName(int kind) {
  if (proto::VarType::Type_IsValid(kind)) {
    std::string name = proto::VarType::Type_Name(static_cast<proto::VarType::Type>(kind));
    if (name == "LOD_TENSOR") return "DENSE_TENSOR";
    if (name == "LOD_TENSOR_ARRAY") return "DENSE_TENSOR_ARRAY";
    return name;
  }
  return "UNKNOWN(" + std::to_string(kind) + ")";
}

}  // namespace framework
}  // namespace paddle_like

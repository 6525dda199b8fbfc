// VarDesc: the build-time description of one variable of a block (name, variable type,
// element type, shape with -1 for unknown dims, persistable ...). Wraps proto::VarDesc.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/data_type.h"

namespace paddle { namespace framework { namespace proto { class VarDesc; } } }

namespace paddle_like {
namespace framework {

namespace proto = ::paddle::framework::proto;
using platform::DataType;

// Variable kinds (VarType.Type numbers of FORMATS.md 1.6).
enum class VarKind : int {
  kDenseTensor = 7,
  kSelectedRows = 8,
  kFeedMinibatch = 9,
  kFetchList = 10,
  kStepScopes = 11,
  kDenseTensorArray = 13,
  kReader = 15,
  kRaw = 17,
};

class VarDesc {
 public:
  // A DenseTensor variable of FLOAT32 with unknown shape.
  explicit VarDesc(const std::string& name);
  explicit VarDesc(const proto::VarDesc& desc);
  VarDesc(const VarDesc& other);
  VarDesc& operator=(const VarDesc& other);
  ~VarDesc();

  const std::string& Name() const;
  void SetName(const std::string& name);

  VarKind GetKind() const;
  void SetKind(VarKind kind);
  // Whether this kind carries a tensor desc (DenseTensor, SelectedRows, arrays).
  bool HasTensorDesc() const;

  std::vector<int64_t> GetShape() const;
  void SetShape(const std::vector<int64_t>& dims);
  DataType GetDataType() const;
  void SetDataType(DataType dtype);
  int GetLoDLevel() const;
  void SetLoDLevel(int level);

  bool Persistable() const;
  void SetPersistable(bool v);
  bool IsParameter() const;
  void SetIsParameter(bool v);
  bool StopGradient() const;
  void SetStopGradient(bool v);
  bool NeedCheckFeed() const;
  void SetNeedCheckFeed(bool v);

  const proto::VarDesc& Proto() const { return *desc_; }

 private:
  std::unique_ptr<proto::VarDesc> desc_;
};

// "DENSE_TENSOR", "FEED_MINIBATCH", ... for a VarType.Type number.
std::string VarKindName(int kind);

}  // namespace framework
}  // namespace paddle_like

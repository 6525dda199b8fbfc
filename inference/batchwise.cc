#include "inference/batchwise.h"

#include <algorithm>
#include <set>

#include "framework/scope.h"
#include "framework/variable.h"

namespace paddle_like {
namespace infer {

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

void AddUnique(const std::string& name, std::vector<std::string>* names) {
  if (!Contains(*names, name)) names->push_back(name);
}

const framework::DenseTensor* DenseVar(framework::PreparedProgram* prepared,
                                       const std::string& name) {
  const framework::Variable* v = prepared->local_scope()->FindVar(name);
  return v != nullptr ? v->GetIf<framework::DenseTensor>() : nullptr;
}

framework::DenseTensor* MutableDenseVar(framework::PreparedProgram* prepared,
                                        const std::string& name) {
  framework::Variable* v = prepared->local_scope()->FindVar(name);
  return v != nullptr && v->IsType<framework::DenseTensor>()
             ? v->GetMutable<framework::DenseTensor>()
             : nullptr;
}

bool IsBatchwiseOp(const std::string& type) {
  static const std::set<std::string> kTypes = {"conv2d",
                                               "depthwise_conv2d",
                                               "conv2d_transpose",
                                               "depthwise_conv2d_transpose",
                                               "conv3d",
                                               "pool2d",
                                               "pool3d",
                                               "relu",
                                               "relu6",
                                               "leaky_relu",
                                               "sigmoid",
                                               "tanh",
                                               "swish",
                                               "hard_swish",
                                               "hard_sigmoid",
                                               "gelu",
                                               "elu",
                                               "selu",
                                               "mish",
                                               "silu",
                                               "softplus",
                                               "exp",
                                               "abs",
                                               "sqrt",
                                               "square",
                                               "scale"};
  return kTypes.count(type) > 0;
}

bool IsBatchwiseBinaryOp(const std::string& type) {
  static const std::set<std::string> kTypes = {"elementwise_add", "elementwise_sub",
                                               "elementwise_mul", "elementwise_div",
                                               "elementwise_max", "elementwise_min"};
  return kTypes.count(type) > 0;
}

bool BatchwiseAt(const framework::OpDesc& op,
                 const std::vector<const framework::DenseTensor*>& tensors, int64_t batch) {
  if (!IsBatchwiseOp(op.Type()) && !IsBatchwiseBinaryOp(op.Type())) return false;
  for (const framework::DenseTensor* t : tensors) {
    if (t == nullptr || !t->initialized() || t->dims().size() < 1 || t->dims()[0] != batch ||
        !t->place().is_cpu() || !t->lod().empty()) {
      return false;
    }
    // Operands of equal rank: a broadcast operand's dim 0 is then the batch too.
    if (IsBatchwiseBinaryOp(op.Type()) && t->dims().size() != tensors[0]->dims().size()) {
      return false;
    }
    size_t offset = 0;
    if (!t->is_plain() && t->opaque_layout()->Rows(0, 1, &offset) == nullptr) return false;
  }
  return true;
}

int64_t ChunkRows(int64_t batch, size_t row_bytes, size_t budget) {
  int64_t rows = 1;
  for (int64_t r = 2; r < batch; ++r) {
    if (batch % r == 0 && static_cast<size_t>(r) * row_bytes <= budget) rows = r;
  }
  return rows;
}

}  // namespace infer
}  // namespace paddle_like

// Tensor arrays (LOD_TENSOR_ARRAY variables), the lists that loops of static programs fill:
// write_to_array, read_from_array, lod_array_length and tensor_array_to_tensor.
#include <string>
#include <vector>

#include "framework/data_transform.h"
#include "operators/common.h"
#include "operators/op_family.h"
#include "operators/tensor/concat_split_util.h"
#include "operators/tensor/copy_box.h"
#include "operators/tensor/tensor_op_util.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::DenseTensorArray;

class WriteToArrayOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to store.");
    AddInput("I", "int64 (or int32) tensor of one element: the position.");
    AddOutput("Out", "The tensor array, grown to hold position I when shorter.");
    AddComment(R"DOC(
Write to array: $$Out[I] = X$$ (a copy); positions between the old end and I hold empty
tensors.
)DOC");
  }
};

class ReadFromArrayOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor array.");
    AddInput("I", "int64 (or int32) tensor of one element: the position (< the length).");
    AddOutput("Out", "A copy of X[I].");
    AddComment(R"DOC(
Read from array: $$Out = X[I]$$
)DOC");
  }
};

class LodArrayLengthOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor array.");
    AddOutput("Out", "int64 [1]: its length.");
    AddComment(R"DOC(
Array length: $$Out = |X|$$
)DOC");
  }
};

class TensorArrayToTensorOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor array (its tensors have one dtype).");
    AddOutput("Out", "Its tensors concatenated (or stacked) along `axis`.");
    AddOutput("OutIndex", "int32 [n]: each tensor's size along `axis` (1 when stacked).");
    AddAttr<int>("axis", "The axis (negative counts from the end).").SetDefault(0);
    AddAttr<bool>("use_stack", "Stack along a new axis instead of concatenating.")
        .SetDefault(false);
    AddComment(R"DOC(
Tensor array to tensor: $$Out = \mathrm{concat}(X_0, \ldots, X_{n-1}; axis)$$ or, with
use_stack, $$Out = \mathrm{stack}(X_0, \ldots, X_{n-1}; axis)$$
)DOC");
  }
};

framework::Variable* Find(const framework::OperatorBase& op, const framework::Scope& scope,
                          const std::string& slot, bool input) {
  const std::string name = input ? op.Input(slot) : op.Output(slot);
  framework::Variable* v = scope.FindVar(name);
  PL_ENFORCE(v != nullptr, errors::NotFound("op `%s` %s `%s`: variable `%s` not found", op.Type(),
                                            input ? "input" : "output", slot, name));
  return v;
}

const DenseTensor& TensorIn(const framework::OperatorBase& op, const framework::Scope& scope,
                            const std::string& slot) {
  const framework::Variable* v = Find(op, scope, slot, true);
  const DenseTensor* t = v->GetIf<DenseTensor>();
  PL_ENFORCE(t != nullptr && t->initialized(),
             errors::InvalidArgument("op `%s` input `%s` (variable `%s`): expected a tensor with "
                                     "a value, found %s",
                                     op.Type(), slot, op.Input(slot), framework::HeldTypeName(*v)));
  return *t;
}

// Input X as a tensor array; a variable nothing has written yet is an empty array (a loop
// appends to an array declared outside it, and reads its length first).
const DenseTensorArray& ArrayIn(const framework::OperatorBase& op, const framework::Scope& scope) {
  static const DenseTensorArray kEmpty;
  const framework::Variable* v = Find(op, scope, "X", true);
  if (!v->IsInitialized()) return kEmpty;
  const DenseTensorArray* a = v->GetIf<DenseTensorArray>();
  PL_ENFORCE(a != nullptr,
             errors::InvalidArgument("op `%s` input `X` (variable `%s`): expected a "
                                     "tensor array, found %s",
                                     op.Type(), op.Input("X"), framework::HeldTypeName(*v)));
  return *a;
}

int64_t Position(const framework::OperatorBase& op, const framework::Scope& scope) {
  const DenseTensor& i = TensorIn(op, scope, "I");
  PL_ENFORCE(i.numel() == 1, errors::InvalidArgument("op `%s` input `I`: expected one element, "
                                                     "received shape %s",
                                                     op.Type(), i.dims().ToString()));
  const int64_t pos = ReadIntValues(i, op.Type(), "I")[0];
  PL_ENFORCE(pos >= 0 && pos < (int64_t{1} << 31),
             errors::InvalidArgument("op `%s` input `I`: expected a position >= 0, received %lld",
                                     op.Type(), static_cast<long long>(pos)));
  return pos;
}

// The tensors of `parts` (one dtype and rank) joined along `axis`, on `place`.
DenseTensor Join(const std::string& op, const std::vector<DenseTensor>& parts, int axis,
                 const platform::Place& place) {
  std::vector<DDim> dims;
  for (size_t i = 0; i < parts.size(); ++i) {
    CheckSameDimsExceptAxis(op, "X", i, parts[0].dims(), parts[i].dims(), axis);
    dims.push_back(parts[i].dims());
  }
  DenseTensor out(ConcatDims(op, dims, axis), parts[0].dtype());
  void* dst = out.mutable_data(place, parts[0].dtype());
  int64_t offset = 0;
  for (const DenseTensor& p : parts) {
    BoxGeometry g;
    g.big = out.dims().ToVector();
    g.box = p.dims().ToVector();
    g.offset.assign(g.big.size(), 0);
    g.offset[static_cast<size_t>(axis)] = offset;
    CopyBoxBytes(place, g, platform::SizeOf(p.dtype()), p.raw_data(), dst, /*to_big=*/true);
    offset += p.dims()[axis];
  }
  return out;
}

class WriteToArrayOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const framework::Scope& scope, const platform::Place& place) const override {
    const DenseTensor& x = TensorIn(*this, scope, "X");
    const auto pos = static_cast<size_t>(Position(*this, scope));
    DenseTensorArray* out = Find(*this, scope, "Out", false)->GetMutable<DenseTensorArray>();
    if (out->size() <= pos) out->resize(pos + 1);
    framework::CopyTensor(x, place, &(*out)[pos]);
    (*out)[pos].set_lod(x.lod());
  }
};

class ReadFromArrayOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const framework::Scope& scope, const platform::Place& place) const override {
    const DenseTensorArray& a = ArrayIn(*this, scope);
    const int64_t pos = Position(*this, scope);
    PL_ENFORCE(static_cast<size_t>(pos) < a.size() && a[static_cast<size_t>(pos)].initialized(),
               errors::InvalidArgument("op `read_from_array` input `I`: position %lld holds no "
                                       "tensor (array `%s` of length %zu)",
                                       static_cast<long long>(pos), Input("X"), a.size()));
    const DenseTensor& item = a[static_cast<size_t>(pos)];
    DenseTensor* out = Find(*this, scope, "Out", false)->GetMutable<DenseTensor>();
    framework::CopyTensor(item, place, out);
    out->set_lod(item.lod());
  }
};

class LodArrayLengthOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const framework::Scope& scope, const platform::Place&) const override {
    const DenseTensorArray& a = ArrayIn(*this, scope);
    DenseTensor length(DDim{1}, DataType::INT64);
    length.mutable_data<int64_t>(platform::CPUPlace())[0] = static_cast<int64_t>(a.size());
    *Find(*this, scope, "Out", false)->GetMutable<DenseTensor>() = std::move(length);
  }
};

class TensorArrayToTensorOp : public framework::OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const framework::Scope& scope, const platform::Place& place) const override {
    const DenseTensorArray& a = ArrayIn(*this, scope);
    PL_ENFORCE(!a.empty(), errors::InvalidArgument("op `tensor_array_to_tensor` input `X` "
                                                   "(variable `%s`): the array is empty",
                                                   Input("X")));
    const bool stack = Attr<bool>("use_stack");
    std::vector<DenseTensor> parts;
    for (size_t i = 0; i < a.size(); ++i) {
      PL_ENFORCE(a[i].initialized() && a[i].dtype() == a[0].dtype() &&
                     a[i].dims().size() == a[0].dims().size(),
                 errors::InvalidArgument("op `tensor_array_to_tensor` input `X`: element %zu "
                                         "holds %s, expected a tensor of element 0's dtype %s "
                                         "and rank %d",
                                         i, a[i].initialized() ? a[i].dims().ToString() : "nothing",
                                         platform::DataTypeName(a[0].dtype()), a[0].dims().size()));
      DenseTensor on_place;
      framework::CopyTensor(a[i], place, &on_place);
      parts.push_back(std::move(on_place));
    }
    const int rank = a[0].dims().size() + (stack ? 1 : 0);
    const int axis = NormalizeAxis(Type(), "attribute `axis`", Attr<int>("axis"), rank);
    std::vector<int32_t> sizes;
    if (stack) {
      for (DenseTensor& p : parts) {
        std::vector<int64_t> d(p.dims().data(), p.dims().data() + p.dims().size());
        d.insert(d.begin() + axis, 1);
        p.Resize(DDim(d));
        sizes.push_back(1);
      }
    } else {
      for (const DenseTensor& p : parts) sizes.push_back(static_cast<int32_t>(p.dims()[axis]));
    }
    *Find(*this, scope, "Out", false)->GetMutable<DenseTensor>() = Join(Type(), parts, axis, place);
    DenseTensor index(DDim{static_cast<int64_t>(sizes.size())}, DataType::INT32);
    std::copy(sizes.begin(), sizes.end(), index.mutable_data<int32_t>(platform::CPUPlace()));
    if (HasOutput("OutIndex")) {
      *Find(*this, scope, "OutIndex", false)->GetMutable<DenseTensor>() = std::move(index);
    }
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterTensorArrayOps) {
  framework::RegisterOp<WriteToArrayOp, WriteToArrayOpMaker>("write_to_array")
      .InferShape([](InferShapeContext* ctx) { ctx->RequireInput("X"); });
  framework::RegisterOp<ReadFromArrayOp, ReadFromArrayOpMaker>("read_from_array")
      .InferShape([](InferShapeContext* ctx) { ctx->RequireInput("X"); });
  framework::RegisterOp<LodArrayLengthOp, LodArrayLengthOpMaker>("lod_array_length")
      .InferShape([](InferShapeContext* ctx) {
        ctx->RequireInput("X");
        if (!ctx->IsRuntime()) ctx->SetOutputDim("Out", DDim{1});
      });
  framework::RegisterOp<TensorArrayToTensorOp, TensorArrayToTensorOpMaker>("tensor_array_to_tensor")
      .InferShape([](InferShapeContext* ctx) { ctx->RequireInput("X"); });
}

}  // namespace operators
}  // namespace paddle_like

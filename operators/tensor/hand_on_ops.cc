// Ops that hand tensors on unchanged, which programs carry after PaddlePaddle's own passes:
// depend, nop and share_buffer (ordering and memory-reuse markers) and memcpy, memcpy_h2d,
// memcpy_d2h (copies between host and device). None computes anything, so they have no
// kernels; the first three share buffers (a later write to either side gets its own), the
// copies are deep.
#include <string>
#include <vector>

#include "operators/common.h"
#include "operators/op_family.h"

namespace paddle_like {
namespace operators {

namespace {

using framework::OperatorBase;
using framework::Scope;

// Build time: each Out[i] takes the dims of X[i] (dtypes follow by default var-type
// inference).
void OutputsLikeInputs(InferShapeContext* ctx) {
  const size_t n = std::min(ctx->InputSize("X"), ctx->OutputSize("Out"));
  for (size_t i = 0; i < n; ++i) ctx->SetOutputDim("Out", ctx->GetInputDim("X", i), i);
  if (n == 1) ctx->ShareLoD("X", "Out");
}

// ---- depend ----

class DependOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor handed on.");
    AddInput("Dep", "Variables that must be computed before Out is used (read by nothing).")
        .AsDuplicable()
        .AsDispensable();
    AddOutput("Out", "X (usually the same variable).");
    AddComment(R"DOC(
Depend operator: orders the ops of a program; Dep must be computed before Out is used.

$$Out = X$$
)DOC");
  }
};

class HandOnOp : public OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope& scope, const platform::Place&) const override {
    ShareInputsWithOutputs(*this, scope, "X", "Out");
  }
};

// ---- nop ----

class NopOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "Tensors whose memory and order the op marks.").AsDuplicable().AsDispensable();
    AddOutput("Out", "Usually the X variables themselves.").AsDuplicable().AsDispensable();
    AddComment(R"DOC(
Nop operator: does nothing but mark X and Out as used at this point of the program.

$$Out_i = X_i$$

when Out names as many variables as X (Out_i shares X_i's buffer); otherwise nothing is
written.
)DOC");
  }
};

class NopOp : public OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope& scope, const platform::Place&) const override {
    if (InputNames("X").size() == OutputNames("Out").size()) {
      ShareInputsWithOutputs(*this, scope, "X", "Out");
    }
  }
};

// ---- share_buffer ----

class ShareBufferOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensors whose buffers are reused.").AsDuplicable();
    AddOutput("Out", "The tensors that take over X's buffers, one per X.").AsDuplicable();
    AddOutput("XOut", "X handed on (usually the X variables themselves), one per X.")
        .AsDuplicable();
    AddAttr<std::vector<bool>>("share_dims_and_dtype",
                               "Per X: whether Out_i takes X_i's dims and dtype too (empty: "
                               "false for all).")
        .SetDefault({});
    AddComment(R"DOC(
ShareBuffer operator: memory reuse planned by PaddlePaddle's passes. Out_i reuses X_i's
memory, XOut_i is X_i.

$$XOut_i = X_i, \qquad Out_i = X_i \text{ where share\_dims\_and\_dtype}_i$$

Where share_dims_and_dtype_i is false, Out_i keeps its own dims and dtype and what it holds
is not defined until an op writes it, so it is left as it is here (outputs own their memory:
the op writing it allocates).
)DOC");
  }
};

class ShareBufferOp : public OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope& scope, const platform::Place&) const override {
    const size_t n = InputNames("X").size();
    const std::vector<bool>& share = Attr<std::vector<bool>>("share_dims_and_dtype");
    PL_ENFORCE(share.empty() || share.size() == n,
               errors::InvalidArgument("op `%s` attribute `share_dims_and_dtype`: expected %zu "
                                       "values (one per X) or none, received %zu",
                                       Type(), n, share.size()));
    PL_ENFORCE(OutputNames("Out").size() == n,
               errors::InvalidArgument("op `%s` output `Out`: expected %zu variables (one per "
                                       "X), received %zu",
                                       Type(), n, OutputNames("Out").size()));
    ShareInputsWithOutputs(*this, scope, "X", "XOut");
    for (size_t i = 0; i < n; ++i) {
      if (share.empty() || !share[i]) continue;
      const std::string& x = InputNames("X")[i];
      const std::string& out = OutputNames("Out")[i];
      if (x == out) continue;
      const framework::Variable* xv = scope.FindVar(x);
      framework::Variable* ov = scope.FindVar(out);
      PL_ENFORCE(xv != nullptr && ov != nullptr && xv->IsType<DenseTensor>(),
                 errors::InvalidArgument("op `%s` input `X` #%zu (variable `%s`) and output "
                                         "`Out` (variable `%s`): expected a dense tensor and a "
                                         "variable in scope",
                                         Type(), i, x, out));
      ov->GetMutable<DenseTensor>()->ShareDataWith(xv->Get<DenseTensor>());
    }
  }
};

void ShareBufferInferShape(InferShapeContext* ctx) {
  const size_t n = ctx->InputSize("X");
  for (size_t i = 0; i < n && i < ctx->OutputSize("XOut"); ++i) {
    ctx->SetOutputDim("XOut", ctx->GetInputDim("X", i), i);
  }
}

// ---- memcpy, memcpy_h2d, memcpy_d2h ----

template <int kKind>
class MemcpyOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() override {
    AddInput("X", "The tensor to copy (any dtype, with its LoD).");
    AddOutput("Out", "A copy of X on the destination place.");
    AddAttr<int>("dst_place_type", kKind == 0   ? "Where Out goes: 0 the host, 1 the CUDA "
                                                  "device, 2 pinned host memory (the host)."
                                   : kKind == 1 ? "Where Out goes: 0 the CUDA device (the host "
                                                  "on a CPU run)."
                                                : "Where Out goes: 0 the host, 1 pinned host "
                                                  "memory (the host).");
    AddComment(R"DOC(
Memcpy operators (memcpy, memcpy_h2d, memcpy_d2h): copy X between host and device memory.

$$Out = X$$

Out owns its copy. The device is the CUDA device the program runs on; when it runs on the
CPU, every destination is the host (a program saved for a GPU then runs unchanged). Other
destinations (XPU, NPU, custom devices) are not supported and raise an error.
)DOC");
  }
};

class MemcpyOp : public OperatorBase {
 public:
  using OperatorBase::OperatorBase;

 protected:
  void RunImpl(const Scope& scope, const platform::Place& place) const override {
    const framework::Variable* x = scope.FindVar(Input("X"));
    PL_ENFORCE(x != nullptr && x->IsType<DenseTensor>() && x->Get<DenseTensor>().initialized(),
               errors::InvalidArgument("op `%s` input `X` (variable `%s`): expected a dense "
                                       "tensor holding data",
                                       Type(), Input("X")));
    framework::Variable* out = scope.FindVar(Output("Out"));
    PL_ENFORCE(out != nullptr, errors::NotFound("op `%s` output `Out`: variable `%s` not found",
                                                Type(), Output("Out")));
    const DenseTensor& src = x->Get<DenseTensor>();
    const platform::Place dst = Destination(place);
    if (Output("Out") == Input("X") && src.place() == dst) return;
    DenseTensor copy;
    framework::CopyTensor(src, dst, &copy);
    *out->GetMutable<DenseTensor>() = std::move(copy);
  }

 private:
  platform::Place Destination(const platform::Place& place) const {
    const int kind = Attr<int>("dst_place_type");
    const platform::Place host = platform::CPUPlace();
    const platform::Place device = place.is_gpu() ? place : host;
    if (Type() == "memcpy_h2d" && kind == 0) return device;
    if (Type() == "memcpy_d2h" && (kind == 0 || kind == 1)) return host;
    if (Type() == "memcpy" && (kind == 0 || kind == 2)) return host;
    if (Type() == "memcpy" && kind == 1) return device;
    throw errors::InvalidArgument(
        "op `%s` attribute `dst_place_type`: %d names a place this "
        "runtime does not have (expected %s)",
        Type(), kind,
        Type() == "memcpy_h2d"   ? "0, the CUDA device"
        : Type() == "memcpy_d2h" ? "0 or 1, the host"
                                 : "0 or 2, the host, or 1, the CUDA device");
  }
};

}  // namespace

PL_REGISTER_OPS(RegisterHandOnOps) {
  framework::RegisterOp<HandOnOp, DependOpMaker>("depend").InferShape(OutputsLikeInputs);
  framework::RegisterOp<NopOp, NopOpMaker>("nop").InferShape(OutputsLikeInputs);
  framework::RegisterOp<ShareBufferOp, ShareBufferOpMaker>("share_buffer")
      .InferShape(ShareBufferInferShape);
  framework::RegisterOp<MemcpyOp, MemcpyOpMaker<0>>("memcpy").InferShape(OutputsLikeInputs);
  framework::RegisterOp<MemcpyOp, MemcpyOpMaker<1>>("memcpy_h2d").InferShape(OutputsLikeInputs);
  framework::RegisterOp<MemcpyOp, MemcpyOpMaker<2>>("memcpy_d2h").InferShape(OutputsLikeInputs);
}

}  // namespace operators
}  // namespace paddle_like

// Shared pieces of the elementwise unary ops (activations) and of their fused grad ops,
// which read one forward value V (X or Out) and Out@GRAD and write X@GRAD elementwise.
//
// Both loops read element i of every input before writing element i of the output and read
// nothing else, so they are correct in place (the output over an input's buffer).
#pragma once

#include <string>

#include "framework/fused_grad_op.h"
#include "operators/common.h"

namespace paddle_like {
namespace operators {

// Maker base of the elementwise unary ops: slots X and Out and the library-preference extras
// (use_mkldnn, use_cudnn); a subclass declares its own attributes and doc in MakeAttrsAndDoc.
class UnaryOpMaker : public OpProtoAndCheckerMaker {
 public:
  void Make() final {
    AddInput("X", "Input tensor of any shape.");
    AddOutput("Out", "Output tensor with the shape, dtype and LoD of X.");
    MakeAttrsAndDoc();
    AddAttr<bool>("use_mkldnn", "Prefer a oneDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
    AddAttr<bool>("use_cudnn", "Prefer a cuDNN kernel when one is registered.")
        .SetDefault(false)
        .AsExtra();
  }

 protected:
  virtual void MakeAttrsAndDoc() = 0;
};

// The op class of the elementwise unary ops (nothing beyond OperatorWithKernel).
class UnaryOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
};

// Out[i] = f(X[i]); Out takes X's shape and LoD.
template <typename T, typename F>
void ComputeUnary(const ExecutionContext& ctx, const F& f) {
  const DenseTensor x = *ctx.Input("X");
  DenseTensor* out = ctx.Output("Out");
  out->Resize(x.dims());
  out->set_lod(x.lod());
  T* o = out->mutable_data<T>(ctx.GetPlace());
  if (x.numel() == 0) return;
  const T* in = x.data<T>();
  ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
      x.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
        const F fn = f;  // A copy: see ComputeUnaryGrad.
        for (int64_t i = begin; i < end; ++i) o[i] = fn(in[i]);
      });
}

// Out = X: floor, ceil and round of an integer tensor.
template <typename T>
struct IntegerIdentityKernel {
  static void Compute(const ExecutionContext& ctx) {
    ComputeUnary<T>(ctx, [](T x) { return x; });
  }
};

// X@GRAD[i] = dx(V[i], dOut[i]) where V is the forward value `like` (X or Out); X@GRAD takes
// V's shape and LoD. InvalidArgumentError when Out@GRAD's shape is not V's.
template <typename T, typename DX>
void ComputeUnaryGrad(const ExecutionContext& ctx, const std::string& like, const DX& dx) {
  const DenseTensor v = *ctx.Input(like);
  const DenseTensor dout = *ctx.Input("Out@GRAD");
  PL_ENFORCE(v.dims() == dout.dims(),
             errors::InvalidArgument("op `%s` input `Out@GRAD`: expected the shape of `%s` %s, "
                                     "received %s",
                                     ctx.Type(), like, v.dims().ToString(), dout.dims().ToString()));
  DenseTensor* out = ctx.Output("X@GRAD");
  out->Resize(v.dims());
  out->set_lod(v.lod());
  T* o = out->mutable_data<T>(ctx.GetPlace());
  if (v.numel() == 0) return;
  const T* in = v.data<T>();
  const T* g = dout.data<T>();
  ctx.device_context<platform::CPUDeviceContext>().ParallelFor(
      v.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
        // A copy of the functor, so that its attributes stay in registers: read through the
        // reference they could change with any store of a T, and the loop would not vectorise.
        const DX fn = dx;
        for (int64_t i = begin; i < end; ++i) o[i] = fn(in[i], g[i]);
      });
}

// Plain CPU kernels from functor templates with a FromAttrs(ctx) factory
// (parametric_activation.h): Out = F(X), and X@GRAD = G(V, dOut) with V the forward value
// G::kGradDep.
template <template <typename> class F>
struct UnaryFunctorKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) { ComputeUnary<T>(ctx, F<T>::FromAttrs(ctx)); }
  };
};
template <template <typename> class G>
struct UnaryGradFunctorKernel {
  template <typename T>
  struct Kernel {
    static void Compute(const ExecutionContext& ctx) {
      ComputeUnaryGrad<T>(ctx, G<T>::kGradDep, G<T>::FromAttrs(ctx));
    }
  };
};

// Registers the fused grad op of the unary op `forward` (fused_grad_op.h) reading
// `decl.reads[0]` and Out@GRAD, with KernelT<float> and KernelT<double> as its plain kernels,
// which compute X@GRAD in place over Out@GRAD.
template <template <typename> class KernelT>
void RegisterUnaryFusedGradOp(const std::string& forward, const framework::FusedGradDecl& decl) {
  const std::string like = decl.reads.at(0);
  framework::RegisterFusedGradOp(forward, decl).InferShape(
      [like](InferShapeContext* ctx) { UnaryGradInferShape(ctx, like); });
  RegisterPlainCpuFloatKernels<KernelT>(forward + "_grad");
  DeclarePlainInPlace(forward + "_grad", {{"Out@GRAD", "X@GRAD"}});
}

// Registers the elementwise unary op `type` (OpT, MakerT; Out shaped like X) with
// KernelT<float|double> as its plain kernels, in place X -> Out, and its fused grad op per
// `grad` (RegisterUnaryFusedGradOp with GradKernelT), which FusedGradMaker emits as its
// backward. Returns the forward op's registrar (for checkpoints).
template <typename OpT, typename MakerT, template <typename> class KernelT,
          template <typename> class GradKernelT>
framework::OpRegistrar RegisterUnaryOpWithFusedGrad(const std::string& type,
                                                    const framework::FusedGradDecl& grad) {
  framework::OpRegistrar forward = framework::RegisterOp<OpT, MakerT>(type)
                                       .InferShape(SameShapeInferShape)
                                       .GradOpMaker(framework::FusedGradMaker(grad));
  RegisterPlainCpuFloatKernels<KernelT>(type);
  DeclarePlainInPlace(type, {{"X", "Out"}});
  RegisterUnaryFusedGradOp<GradKernelT>(type, grad);
  return forward;
}

}  // namespace operators
}  // namespace paddle_like

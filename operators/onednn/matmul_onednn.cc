// dnnl::matmul for matmul_v2, mul and fc, float32.
//
// Transposes are expressed as strides, and broadcast batch dims as size-1 dims of src or
// weights, which the primitive broadcasts itself. The forward kernels are kernel classes
// (framework/op_kernel.h) that keep their primitive, and a packed weight, between runs;
// RunOneDNNMatmul (the grad kernels) creates its primitive per call, which oneDNN's
// primitive cache makes cheap for repeated shapes.
#include "operators/onednn/matmul_onednn.h"

#include <algorithm>
#include <memory>

#include "framework/op_registry.h"
#include "operators/matmul/fc_util.h"
#include "operators/matmul/matmul_shape.h"
#include "operators/onednn/conv_pool_onednn_util.h"
#include "operators/onednn/onednn_layout.h"
#include "operators/onednn/onednn_memory.h"
#include "operators/onednn/plain_fallback.h"
#include "operators/op_family.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

namespace {

using dnnl::memory;
using framework::DenseTensor;
using framework::ExecutionContext;

// Row-major strides of `dims`, except that the last two dims swap their strides when
// `transposed` (the data is stored as [..., cols, rows]).
memory::dims MatrixStrides(const memory::dims& dims, bool transposed) {
  const size_t r = dims.size();
  memory::dims strides(r);
  const memory::dim rows = dims[r - 2], cols = dims[r - 1];
  strides[r - 1] = transposed ? rows : 1;
  strides[r - 2] = transposed ? 1 : cols;
  memory::dim s = rows * cols;
  for (size_t i = r - 2; i-- > 0;) {
    strides[i] = s;
    s *= dims[i];
  }
  return strides;
}

// The output buffer: Out itself, or a fresh tensor when Out is one of the operands.
float* OutputBuffer(const ExecutionContext& ctx, const framework::DDim& dims, const char* x_slot,
                    const char* y_slot, DenseTensor* fresh, DenseTensor** target) {
  DenseTensor* out = ctx.Output("Out");
  *target = (out == ctx.Input(x_slot) || out == ctx.Input(y_slot)) ? fresh : out;
  (*target)->Resize(dims);
  return (*target)->mutable_data<float>(ctx.GetPlace());
}

// Handles the sizes oneDNN has no use for; returns true when Out is complete.
bool TrivialProduct(int64_t out_numel, int64_t K, float* o) {
  if (out_numel == 0) return true;
  if (K > 0) return false;
  std::fill(o, o + out_numel, 0.0f);  // An empty sum.
  return true;
}

}  // namespace

void RunOneDNNMatmul(const char* op, const ExecutionContext& ctx, const MatmulOperand& src,
                     const MatmulOperand& weights, const memory::dims& dst_dims, float* dst) {
  const auto& dev = ctx.device_context<platform::OneDNNContext>();
  try {
    const auto f32 = memory::data_type::f32;
    const memory::desc src_md(src.dims, f32, MatrixStrides(src.dims, src.transposed));
    const memory::desc w_md(weights.dims, f32, MatrixStrides(weights.dims, weights.transposed));
    const memory::desc dst_md(dst_dims, f32, MatrixStrides(dst_dims, false));
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, w_md, dst_md), dev.engine());
    // oneDNN takes non-const handles; src and weights are only read.
    memory src_mem(src_md, dev.engine(), const_cast<float*>(src.data));
    memory w_mem(w_md, dev.engine(), const_cast<float*>(weights.data));
    memory dst_mem(dst_md, dev.engine(), dst);
    Execute(dnnl::matmul(pd), dev.stream(),
            {{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_WEIGHTS, w_mem}, {DNNL_ARG_DST, dst_mem}});
    dev.stream().wait();
  } catch (const dnnl::error& e) {
    throw errors::Fatal("op `%s`: oneDNN matmul failed for src %s, weights %s: %s", op,
                        framework::DDim(src.dims).ToString(),
                        framework::DDim(weights.dims).ToString(), e.what());
  }
}

namespace {

// A prepared matmul_v2, mul or fc: the operands as oneDNN sees them and the dnnl::matmul
// primitive, created per input shape (fc's bias and activation are the primitive's bias and
// post-ops). When Y is a parameter whose batch dims are all 1 (a
// weight) the primitive picks its own weights format and Y is packed into it once per Y
// value; other operands are read in place through strides. A weight found written again
// on two runs in a row (a training step's optimizer writes it every run) is read as it is
// from then on: packing it each run cost more than it saved (tests/benchmarks/
// gemm_vs_onednn_benchmark, BM_MatmulPrimitiveRepack against BM_MatmulPrimitiveRowMajorY:
// 253 against 175 us for [64, 784] x [784, 256], one thread).
class MatmulOneDNN : public framework::OpKernel {
 public:
  void Prepare(const ExecutionContext& ctx) override {
    const DenseTensor* x = ctx.Input(x_slot_);
    const DenseTensor* y = ctx.Input(y_slot_);
    CheckOperandTypes(ctx.Type(), *x, *y, framework::DataType::FLOAT32);
    primitive_.reset();
    plain_ = false;
    Shape shape = Analyze(ctx, *x, *y);
    out_dims_ = shape.out_dims;
    if (BelowOneDNNThreshold(shape.out_dims.numel() * shape.K, kOneDNNMatmulMinWork)) {
      plain_ = true;
      return;
    }
    K_ = shape.K;
    if (shape.out_dims.numel() == 0 || shape.K == 0) return;
    const auto& dev = ctx.device_context<platform::OneDNNContext>();
    const auto f32 = memory::data_type::f32;
    src_md_ = memory::desc(shape.src.dims, f32, MatrixStrides(shape.src.dims, shape.src.transposed));
    user_w_md_ = memory::desc(shape.w.dims, f32, MatrixStrides(shape.w.dims, shape.w.transposed));
    dst_md_ = memory::desc(shape.dst, f32, MatrixStrides(shape.dst, false));
    bool weight = ctx.InputIsParameter(y_slot_) && !weight_written_each_run_;
    for (size_t i = 0; i + 2 < shape.w.dims.size(); ++i) weight = weight && shape.w.dims[i] == 1;
    dnnl::primitive_attr attr;
    if (!Epilogue(ctx, &attr)) {  // An activation oneDNN has no post-op for.
      plain_ = true;
      return;
    }
    has_bias_ = HasBias(ctx);
    if (has_bias_) {
      memory::dims bias_dims(shape.dst.size(), 1);
      bias_dims.back() = shape.dst.back();
      bias_md_ = memory::desc(bias_dims, f32, MatrixStrides(bias_dims, false));
    }
    try {
      const memory::desc w_md =
          weight ? memory::desc(shape.w.dims, f32, memory::format_tag::any) : user_w_md_;
      pd_ = MakePrimitiveDesc(w_md, attr, dev);
      packs_weights_ = pd_.weights_desc() != user_w_md_;
      // A new batch size usually keeps the weights format: the packed weight stays valid.
      if (packs_weights_ && (!weights_ || weights_.get_desc() != pd_.weights_desc())) {
        weights_ = memory(pd_.weights_desc(), dev.engine());
        weights_stamp_ = framework::VariableStamp();
      }
      primitive_ = std::make_unique<dnnl::matmul>(pd_);
    } catch (const dnnl::error& e) {
      throw Failure(ctx, *x, *y, e);
    }
  }

  void Compute(const ExecutionContext& ctx) override {
    if (plain_) {
      RunPlainKernel(ctx);
      return;
    }
    const DenseTensor* x = ctx.Input(x_slot_);
    const DenseTensor* y = ctx.Input(y_slot_);
    const framework::LoD lod = x->lod();
    DenseTensor fresh, *target = nullptr;
    float* o = OutputBuffer(ctx, out_dims_, x_slot_, y_slot_, &fresh, &target);
    if (!TrivialProduct(out_dims_.numel(), K_, o)) {
      const auto& dev = ctx.device_context<platform::OneDNNContext>();
      try {
        memory src(src_md_, dev.engine(), const_cast<float*>(x->data<float>()));
        memory dst(dst_md_, dev.engine(), o);
        const memory weights = Weights(ctx, *y, dev);  // May recreate the primitive.
        if (has_bias_) {
          memory bias(bias_md_, dev.engine(), const_cast<float*>(ctx.Input("Bias")->data<float>()));
          Execute(*primitive_, dev.stream(),
                  {{DNNL_ARG_SRC, src},
                   {DNNL_ARG_WEIGHTS, weights},
                   {DNNL_ARG_BIAS, bias},
                   {DNNL_ARG_DST, dst}});
        } else {
          Execute(*primitive_, dev.stream(),
                  {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
        }
        dev.stream().wait();
      } catch (const dnnl::error& e) {
        throw Failure(ctx, *x, *y, e);
      }
    }
    if (KeepsLoD()) target->set_lod(lod);
    if (target == &fresh) *ctx.Output("Out") = std::move(fresh);
  }

 protected:
  // The slots of the two operands: X and Y, or fc's Input and W.
  MatmulOneDNN(const char* x_slot, const char* y_slot) : x_slot_(x_slot), y_slot_(y_slot) {}

  struct Shape {
    MatmulOperand src, w;
    memory::dims dst;
    int64_t K = 0;
    framework::DDim out_dims;
  };
  virtual Shape Analyze(const ExecutionContext& ctx, const DenseTensor& x,
                        const DenseTensor& y) const = 0;
  // The [M, K] x [K, N] product of mul and fc, their operands flattened to matrices.
  static Shape FlatShape(const MulShape& s) {
    Shape r;
    r.src = {{s.M, s.K}, false, nullptr};
    r.w = {{s.K, s.N}, false, nullptr};
    r.dst = {s.M, s.N};
    r.K = s.K;
    r.out_dims = s.out_dims;
    return r;
  }
  // mul and fc pass X's LoD on to Out.
  virtual bool KeepsLoD() const = 0;
  // fc: a bias per output column, from input Bias.
  virtual bool HasBias(const ExecutionContext&) const { return false; }
  // fc: the activation as post-ops of `attr`; false when oneDNN has none for it.
  virtual bool Epilogue(const ExecutionContext&, dnnl::primitive_attr*) const { return true; }

 private:
  dnnl::matmul::primitive_desc MakePrimitiveDesc(const memory::desc& w_md,
                                                 const dnnl::primitive_attr& attr,
                                                 const platform::OneDNNContext& dev) const {
    const dnnl::matmul::desc desc = has_bias_ ? dnnl::matmul::desc(src_md_, w_md, bias_md_, dst_md_)
                                              : dnnl::matmul::desc(src_md_, w_md, dst_md_);
    return dnnl::matmul::primitive_desc(desc, attr, dev.engine());
  }

  memory Weights(const ExecutionContext& ctx, const DenseTensor& y,
                 const platform::OneDNNContext& dev) {
    memory user(user_w_md_, dev.engine(), const_cast<float*>(y.data<float>()));
    if (!packs_weights_) return user;
    const framework::VariableStamp stamp(*ctx.InputVar(y_slot_));
    if (stamp == weights_stamp_) {
      packed_last_run_ = false;
      return weights_;
    }
    if (packed_last_run_) {  // Written again since the last run's pack: stop packing.
      weight_written_each_run_ = true;
      ReadWeightAsItIs(dev);
      return user;
    }
    Reorder(user, weights_, dev);
    weights_stamp_ = stamp;
    packed_last_run_ = true;
    ctx.NotePrepack(y_slot_, 0, pd_.weights_desc().get_size(),
                    "reorder to the matmul's weights format");
    return weights_;
  }

  // Recreates the primitive for Y in its own (strided) layout and drops the packed copy.
  void ReadWeightAsItIs(const platform::OneDNNContext& dev) {
    pd_ = MakePrimitiveDesc(user_w_md_, pd_.get_primitive_attr(), dev);
    primitive_ = std::make_unique<dnnl::matmul>(pd_);
    packs_weights_ = false;
    weights_ = memory();
    weights_stamp_ = framework::VariableStamp();
  }

  static platform::FatalError Failure(const ExecutionContext& ctx, const DenseTensor& x,
                                 const DenseTensor& y, const dnnl::error& e) {
    return errors::Fatal("op `%s`: oneDNN matmul failed for X %s, Y %s: %s", ctx.Type(),
                         x.dims().ToString(), y.dims().ToString(), e.what());
  }

  const char* x_slot_;
  const char* y_slot_;
  bool plain_ = false;
  bool has_bias_ = false;
  int64_t K_ = 0;
  framework::DDim out_dims_;
  memory::desc src_md_, user_w_md_, dst_md_, bias_md_;
  dnnl::matmul::primitive_desc pd_;
  std::unique_ptr<dnnl::matmul> primitive_;
  bool packs_weights_ = false;
  memory weights_;
  framework::VariableStamp weights_stamp_;
  bool packed_last_run_ = false;           // The last run packed Y.
  bool weight_written_each_run_ = false;   // Y is read as it is, never packed again.
};

class MatmulV2OneDNN final : public MatmulOneDNN {
 public:
  MatmulV2OneDNN() : MatmulOneDNN("X", "Y") {}

 private:
  Shape Analyze(const ExecutionContext& ctx, const DenseTensor& x,
                const DenseTensor& y) const override {
    const MatmulV2Shape s = AnalyzeMatmulV2("matmul_v2", x.dims(), y.dims(),
                                            ctx.Attr<bool>("trans_x"), ctx.Attr<bool>("trans_y"));
    Shape r;
    r.src = {memory::dims(s.x_batch.begin(), s.x_batch.end()), s.trans_x, nullptr};
    r.w = {memory::dims(s.y_batch.begin(), s.y_batch.end()), s.trans_y, nullptr};
    r.dst = memory::dims(s.batch.begin(), s.batch.end());
    r.src.dims.insert(r.src.dims.end(), {s.M, s.K});
    r.w.dims.insert(r.w.dims.end(), {s.K, s.N});
    r.dst.insert(r.dst.end(), {s.M, s.N});
    r.K = s.K;
    r.out_dims = s.out_dims;
    return r;
  }
  bool KeepsLoD() const override { return false; }
};

class MulOneDNN final : public MatmulOneDNN {
 public:
  MulOneDNN() : MatmulOneDNN("X", "Y") {}

 private:
  Shape Analyze(const ExecutionContext& ctx, const DenseTensor& x,
                const DenseTensor& y) const override {
    return FlatShape(AnalyzeMul("mul", x.dims(), y.dims(), ctx.Attr<int>("x_num_col_dims"),
                                ctx.Attr<int>("y_num_col_dims")));
  }
  bool KeepsLoD() const override { return true; }
};

class FcOneDNN final : public MatmulOneDNN {
 public:
  FcOneDNN() : MatmulOneDNN("Input", "W") {}

 private:
  Shape Analyze(const ExecutionContext& ctx, const DenseTensor& x,
                const DenseTensor& w) const override {
    const DenseTensor* bias = ctx.HasInput("Bias") ? ctx.Input("Bias") : nullptr;
    return FlatShape(CheckFc(ctx.op().Attrs(), x.dims(), w.dims(), bias ? &bias->dims() : nullptr));
  }
  bool KeepsLoD() const override { return true; }
  bool HasBias(const ExecutionContext& ctx) const override { return ctx.HasInput("Bias"); }
  bool Epilogue(const ExecutionContext& ctx, dnnl::primitive_attr* attr) const override {
    dnnl::post_ops ops;
    if (!AppendActivationPostOps(FcActivation(ctx.op().Attrs()), &ops)) return false;
    attr->set_post_ops(ops);
    return true;
  }
};

}  // namespace

// dnnl::matmul has no float64; the plain kernels serve it.
PL_REGISTER_BACKEND_KERNELS(RegisterMatmulOneDNNKernels) {
  using framework::DataType;
  using framework::DeviceType;
  using framework::LibraryType;
  // oneDNN splits the products' sums (its GEMM may partition K) across threads in an order of its own (it may differ with
  // the thread count and the machine): not deterministic, so deterministic mode
  // (FLAGS_cpu_deterministic, KernelInfo::deterministic) runs the plain kernels instead.
  framework::RegisterKernelClass<MatmulV2OneDNN>("matmul_v2", DeviceType::kCPU, DataType::FLOAT32,
                                                 LibraryType::kOneDNN, false);
  framework::RegisterKernelClass<MulOneDNN>("mul", DeviceType::kCPU, DataType::FLOAT32,
                                            LibraryType::kOneDNN, false);
  framework::RegisterKernelClass<FcOneDNN>("fc", DeviceType::kCPU, DataType::FLOAT32,
                                           LibraryType::kOneDNN, false);
}

}  // namespace operators
}  // namespace paddle_like

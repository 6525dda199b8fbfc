// What PaddlePaddle's recurrent ops (gru, lstm, their fused forms, gru_unit) share: the "batch"
// order in which the LoD ones step, the activations they accept by name, those activations'
// slopes, gru's Bias check, and the fused forms' op class and input projection.
//
// Batch order: sequences sorted by length (longest first), step t of every sequence still
// running stacked together, so that one GEMM per step serves all of them.
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "framework/dense_tensor.h"
#include "operators/activation/fused_activation.h"
#include "operators/common.h"
#include "operators/math/blas.h"

namespace paddle_like {
namespace operators {

// `rows[k]` is the input row of batch row k, and step t holds batch rows
// [step_begin[t], step_begin[t + 1]): the t-th step of the first
// step_begin[t + 1] - step_begin[t] sequences of `seqs` (sorted longest first). Sequence
// seqs[i] at step t is batch row step_begin[t] + i, at step t - 1 step_begin[t - 1] + i.
struct BatchOrder {
  std::vector<size_t> seqs, rows, step_begin;
};

inline BatchOrder MakeBatchOrder(const std::vector<size_t>& offsets, bool reverse) {
  BatchOrder b;
  const size_t n = offsets.size() - 1;
  b.seqs.resize(n);
  std::iota(b.seqs.begin(), b.seqs.end(), 0);
  auto len = [&](size_t s) { return offsets[s + 1] - offsets[s]; };
  std::stable_sort(b.seqs.begin(), b.seqs.end(),
                   [&](size_t a, size_t c) { return len(a) > len(c); });
  const size_t max_len = n == 0 ? 0 : len(b.seqs[0]);
  b.step_begin.push_back(0);
  for (size_t t = 0; t < max_len; ++t) {
    for (size_t s : b.seqs) {
      if (len(s) <= t) break;
      b.rows.push_back(reverse ? offsets[s + 1] - 1 - t : offsets[s] + t);
    }
    b.step_begin.push_back(b.rows.size());
  }
  return b;
}

// The sequence offsets of `input` (slot `Input` of op `op`): its level-1 LoD, checked
// against its rows.
inline const std::vector<size_t>& SequenceOffsets(const std::string& op, const DenseTensor& input) {
  const framework::LoD& lod = input.lod();
  PL_ENFORCE(lod.size() == 1,
             errors::InvalidArgument("op `%s` input `Input`: expected a level-1 LoD (the "
                                     "sequence offsets), received %zu levels",
                                     op, lod.size()));
  const std::string problem = framework::LoDProblem(lod, input.dims()[0]);
  PL_ENFORCE(problem.empty(), errors::InvalidArgument("op `%s` input `Input`: %s", op, problem));
  return lod[0];
}

// The activations PaddlePaddle's recurrent ops accept; "identity", "linear" and "" apply none.
inline FusedActivation RecurrentActivation(const std::string& op, const char* attr,
                                           const std::string& name) {
  if (name.empty() || name == "identity" || name == "linear") return {};
  PL_ENFORCE(name == "sigmoid" || name == "tanh" || name == "relu",
             errors::InvalidArgument("op `%s` attribute `%s`: expected sigmoid, tanh, relu or "
                                     "identity, received \"%s\"",
                                     op, attr, name));
  return {name};
}

// act(z) for a RecurrentActivation, one value at a time.
template <typename T>
T ApplyRecurrentActivation(const FusedActivation& a, T z) {
  if (a.name == "sigmoid") return T(1) / (T(1) + std::exp(-z));
  if (a.name == "tanh") return std::tanh(z);
  if (a.name == "relu") return z > T(0) ? z : T(0);
  return z;
}

// d act(z) / dz from the activated value y = act(z), for a RecurrentActivation.
template <typename T>
T ActivationSlope(const FusedActivation& a, T y) {
  if (a.name == "sigmoid") return y * (T(1) - y);
  if (a.name == "tanh") return T(1) - y * y;
  if (a.name == "relu") return y > T(0) ? T(1) : T(0);
  return T(1);
}

// The op class of fusion_gru and fusion_lstm: the kernel's dtype is X's.
class FusedRecurrentOp : public OperatorWithKernel {
 public:
  using OperatorWithKernel::OperatorWithKernel;
  DataType IndicateDataType(const framework::RuntimeContext& ctx) const override {
    return InputDataType(ctx, "X");
  }
};

// D from the hidden weights of gru, fusion_gru (WeightH) and gru_unit, input `slot`: [D, 3 D],
// else InvalidArgumentError (D < 0 when unknown at build time).
inline int64_t CheckGruWeight(InferShapeContext* ctx, const char* slot) {
  const DDim w = ctx->GetInputDim(slot);
  PL_ENFORCE(w.size() == 2 && (w[0] < 0 || w[1] < 0 || w[1] == 3 * w[0]),
             errors::InvalidArgument("op `%s` input `%s`: expected [D, 3 D], received shape %s",
                                     ctx->OpType(), slot, w.ToString()));
  return w[0];
}

// Bias [1, 3 D] of gru and gru_unit (D = `d`, unknown when negative), when the op has one.
inline void CheckGruBias(InferShapeContext* ctx, int64_t d) {
  if (!ctx->HasInput("Bias")) return;
  const DDim b = ctx->GetInputDim("Bias");
  PL_ENFORCE(b.size() == 2 && (b[0] < 0 || b[0] == 1) && (b[1] < 0 || d < 0 || b[1] == 3 * d),
             errors::InvalidArgument("op `%s` input `Bias`: expected [1, %lld], received shape %s",
                                     ctx->OpType(), static_cast<long long>(3 * d), b.ToString()));
}

// X [T, M] times W [M, N] into a new [T, N] tensor with X's LoD: the projection that
// fusion_gru and fusion_lstm make before their recurrence.
template <typename T>
framework::DenseTensor ProjectSequenceRows(const framework::ExecutionContext& ctx,
                                           const framework::DenseTensor& x,
                                           const framework::DenseTensor& w) {
  const int64_t rows = x.dims()[0], m = x.dims()[1], n = w.dims()[1];
  framework::DenseTensor out(framework::DDim{rows, n}, x.dtype());
  T* o = out.mutable_data<T>(ctx.GetPlace());
  if (rows > 0 && n > 0) {
    math::Gemm<T>(ctx.device_context<platform::CPUDeviceContext>(), false, false, rows, n, m, T(1),
                  x.data<T>(), m, w.data<T>(), n, T(0), o, n);
  }
  out.set_lod(x.lod());
  return out;
}

}  // namespace operators
}  // namespace paddle_like

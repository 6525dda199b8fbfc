// The mask of the CUDA dropout kernel (dropout_op.cu): a counter-based draw, so whether
// element k is kept depends only on the seed and on k, not on the launch configuration, the
// device or the other elements. Host code (the tests) can recompute any element's draw.
//
// The generator is Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as
// easy as 1, 2, 3", SC 2011; the generator of cuRAND's and PaddlePaddle's GPU dropout), keyed
// by the 64-bit seed, with the element index as the 128-bit counter {k_lo, k_hi, 0, 0}. The
// first two output words give 53 uniform bits u_k in [0, 1), drawn as the CPU kernel draws its
// u_k from std::mt19937_64: element k is kept when u_k >= dropout_prob.
#pragma once

#include <cstdint>

#include "operators/math/hostdevice.h"

namespace paddle_like {
namespace operators {
namespace dropout {

struct PhiloxBlock {
  uint32_t v[4];
};

// Philox4x32 with 10 rounds on `counter` under the key {key0, key1}.
PL_HOSTDEVICE inline PhiloxBlock Philox4x32x10(PhiloxBlock counter, uint32_t key0, uint32_t key1) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {  // The key schedule: a Weyl sequence.
      key0 += 0x9E3779B9u;
      key1 += 0xBB67AE85u;
    }
    const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * counter.v[0];
    const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * counter.v[2];
    PhiloxBlock next;
    next.v[0] = static_cast<uint32_t>(p1 >> 32) ^ counter.v[1] ^ key0;
    next.v[1] = static_cast<uint32_t>(p1);
    next.v[2] = static_cast<uint32_t>(p0 >> 32) ^ counter.v[3] ^ key1;
    next.v[3] = static_cast<uint32_t>(p0);
    counter = next;
  }
  return counter;
}

// u_k in [0, 1), a multiple of 2^-53, for element `index` under `seed`.
PL_HOSTDEVICE inline double MaskUniform(uint64_t seed, uint64_t index) {
  PhiloxBlock counter;
  counter.v[0] = static_cast<uint32_t>(index);
  counter.v[1] = static_cast<uint32_t>(index >> 32);
  counter.v[2] = 0;
  counter.v[3] = 0;
  const PhiloxBlock r =
      Philox4x32x10(counter, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
  const uint64_t bits = (static_cast<uint64_t>(r.v[0]) << 32) | r.v[1];
  return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);  // 2^-53
}

// Whether element `index` is kept when dropping with probability `p`.
PL_HOSTDEVICE inline bool KeepElement(uint64_t seed, uint64_t index, double p) {
  return MaskUniform(seed, index) >= p;
}

}  // namespace dropout
}  // namespace operators
}  // namespace paddle_like

// IEEE half precision and bfloat16 storage types. Arithmetic converts through float.
#pragma once

#include <cstdint>
#include <cstring>

namespace paddle_like {
namespace platform {

struct float16 {
  uint16_t x = 0;

  float16() = default;
  explicit float16(float f) : x(FromFloat(f)) {}
  explicit operator float() const { return ToFloat(x); }

  static float16 FromBits(uint16_t bits) {
    float16 h;
    h.x = bits;
    return h;
  }
  static uint16_t FromFloat(float f);
  static float ToFloat(uint16_t h);
};

struct bfloat16 {
  uint16_t x = 0;

  bfloat16() = default;
  explicit bfloat16(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    if ((bits & 0x7fffffffu) > 0x7f800000u) {  // NaN stays a quiet NaN.
      x = static_cast<uint16_t>((bits >> 16) | 0x40u);
    } else {  // Round to nearest even.
      x = static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
    }
  }
  explicit operator float() const {
    uint32_t bits = static_cast<uint32_t>(x) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
  }
};

}  // namespace platform
}  // namespace paddle_like

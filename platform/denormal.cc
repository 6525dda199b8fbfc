#include "platform/denormal.h"

#include "platform/flags.h"

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define PL_HAS_MXCSR 1
#endif

namespace paddle_like {
namespace platform {

#ifdef PL_HAS_MXCSR
namespace {
constexpr unsigned int kFlushToZero = 0x8000;       // MXCSR.FTZ: denormal results become 0.
constexpr unsigned int kDenormalsAreZero = 0x0040;  // MXCSR.DAZ: denormal inputs read as 0.
}  // namespace

ScopedFlushDenormal::ScopedFlushDenormal() {
  if (!FLAGS_cpu_flush_denormal) return;
  saved_ = _mm_getcsr();
  const unsigned int flushed = saved_ | kFlushToZero | kDenormalsAreZero;
  if (flushed == saved_) return;
  _mm_setcsr(flushed);
  active_ = true;
}

ScopedFlushDenormal::~ScopedFlushDenormal() {
  if (active_) _mm_setcsr(saved_);
}
#else
ScopedFlushDenormal::ScopedFlushDenormal() {}
ScopedFlushDenormal::~ScopedFlushDenormal() {}
#endif

}  // namespace platform
}  // namespace paddle_like

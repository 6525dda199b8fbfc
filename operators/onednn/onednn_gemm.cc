#include "operators/onednn/onednn_gemm.h"

#include <oneapi/dnnl/dnnl.h>

#include "platform/enforce.h"
#include "platform/onednn/onednn_context.h"

namespace paddle_like {
namespace operators {

void OneDNNGemm(const platform::CPUDeviceContext& ctx, bool trans_a, bool trans_b, int64_t M,
                int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B,
                int64_t ldb, float beta, float* C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  // The thread count oneDNN reads outside a parallel region: the calling thread's OpenMP
  // setting, which a thread the program starts does not inherit.
  platform::LimitOpenMPThreadsOfCallingThread(ctx.num_threads());
  const dnnl_status_t status = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', M, N, K,
                                          alpha, A, lda, B, ldb, beta, C, ldc);
  PL_ENFORCE(status == dnnl_success,
             errors::Fatal("oneDNN sgemm failed (status %d) for M %lld, N %lld, K %lld",
                           static_cast<int>(status), static_cast<long long>(M),
                           static_cast<long long>(N), static_cast<long long>(K)));
}

}  // namespace operators
}  // namespace paddle_like

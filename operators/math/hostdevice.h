// PL_HOSTDEVICE marks functors that CPU kernels and CUDA kernels share: `__host__ __device__`
// under nvcc, nothing otherwise.
#pragma once

#ifndef PL_HOSTDEVICE
#if defined(__CUDACC__)
#define PL_HOSTDEVICE __host__ __device__
#else
#define PL_HOSTDEVICE
#endif
#endif

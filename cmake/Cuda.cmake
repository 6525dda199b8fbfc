# CUDA toolkit, cuBLAS and cuDNN. Everything GPU-side compiles wherever nvcc is found;
# the tests skip at run time when no device is present.
if(NOT CMAKE_CUDA_COMPILER)
  set(CMAKE_CUDA_COMPILER ${PL_NVCC})
endif()
if(NOT CMAKE_CUDA_ARCHITECTURES)
  # Ampere and Hopper by default; override with -DCMAKE_CUDA_ARCHITECTURES=... for others.
  set(CMAKE_CUDA_ARCHITECTURES 80 90)
endif()
enable_language(CUDA)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
find_package(CUDAToolkit REQUIRED)

find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
find_library(CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64)
if(NOT CUDNN_INCLUDE_DIR OR NOT CUDNN_LIBRARY)
  message(FATAL_ERROR "WITH_GPU=ON needs cuDNN (cudnn.h and libcudnn) under /usr/local/cuda")
endif()
add_library(pl_cudnn INTERFACE)
target_include_directories(pl_cudnn INTERFACE ${CUDNN_INCLUDE_DIR})
target_link_libraries(pl_cudnn INTERFACE ${CUDNN_LIBRARY})
message(STATUS "CUDA ${CUDAToolkit_VERSION}, cuDNN ${CUDNN_LIBRARY}, archs ${CMAKE_CUDA_ARCHITECTURES}")

# NCCL (shipped with the CUDA toolkit here) for the collectives on GPUs; without it they
# raise UnimplementedError.
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64)
if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
  set(WITH_NCCL ON)
  message(STATUS "NCCL ${NCCL_LIBRARY}")
else()
  set(WITH_NCCL OFF)
  message(STATUS "NCCL not found: no GPU collectives")
endif()

# Third-party packages, all from Debian's packages (CUDA and cuDNN come from /usr/local/cuda, see Cuda.cmake).
find_package(Threads REQUIRED)
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
find_package(gflags REQUIRED)
find_package(glog REQUIRED)
find_package(Protobuf REQUIRED)
find_package(OpenMP REQUIRED)  # CPU parallelism, shared with Debian's oneDNN.
find_package(ZLIB REQUIRED)
find_package(PNG REQUIRED)   # `paddle_like infer` reads and draws images.
find_package(JPEG REQUIRED)
find_package(nlohmann_json 3 REQUIRED)  # Reading PaddlePaddle 3 PIR programs (JSON).
find_package(Gloo REQUIRED)  # CPU collectives of distributed training (libgloo-dev).

if(WITH_ONEDNN)
  find_package(dnnl REQUIRED)
  message(STATUS "oneDNN: ${dnnl_VERSION}")
endif()

if(WITH_TESTING)
  find_package(GTest REQUIRED)
endif()

if(WITH_BENCHMARKS)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    message(STATUS "Google Benchmark not found: benchmarks are not built")
    set(WITH_BENCHMARKS OFF)
  endif()
endif()
